// Velocities at the Monte Carlo temperature. Monte Carlo moves no atom by its velocity, but LAMMPS
// reads velocities for temp, press, ke and etotal: drawn from the Maxwell-Boltzmann distribution at
// the chain's T they make those read as in equilibrium at T (press: the virial plus the kinetic
// term of T, whose mean is N k T / V). Shared by the host and Kokkos styles.
#pragma once

#include "gpumc_rng.h"

#include <Random123/boxmuller.hpp>

#include <cmath>

namespace gpumc {

// Draw `draw` of the velocity of the atom with ID `tag`: three normal deviates from the counter
// (draw, tag) of the velocity stream, times sigma = sqrt(kT / m) in velocity units.
GPUMC_INLINE void maxwell_velocity(const CounterRNG &rng, uint64_t draw, uint64_t tag, double sigma, double v[3])
{
  const auto b = rng.bits(draw, tag);
  const r123::double2 n01 = r123::boxmuller(b[0], b[1]);
  const r123::double2 n23 = r123::boxmuller(b[2], b[3]);
  v[0] = sigma * n01.x;
  v[1] = sigma * n01.y;
  v[2] = sigma * n23.x;
}

// sigma of an atom of mass m: kT in energy units, mvv2e LAMMPS's mass * velocity^2 to energy.
GPUMC_INLINE double maxwell_sigma(double kT, double mass, double mvv2e)
{
  return sqrt(kT / (mass * mvv2e));
}

}    // namespace gpumc
