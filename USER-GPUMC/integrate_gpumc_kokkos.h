/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: run_style gpumc/kk, the timestep loop for Monte Carlo runs with the KOKKOS package
   (integrate_gpumc_steps.h); its timesteps with forces are those of verlet/kk.
------------------------------------------------------------------------- */

#ifdef INTEGRATE_CLASS
// clang-format off
IntegrateStyle(gpumc/kk,IntegrateGpumcKokkos);
// clang-format on
#else

#ifndef LMP_INTEGRATE_GPUMC_KOKKOS_H
#define LMP_INTEGRATE_GPUMC_KOKKOS_H

#include "atom_kokkos.h"
#include "atom_masks.h"
#include "integrate_gpumc_steps.h"
#include "kokkos.h"
#include "verlet_kokkos.h"

namespace LAMMPS_NS {

class IntegrateGpumcKokkos : public MonteCarloTimesteps<VerletKokkos> {
 public:
  IntegrateGpumcKokkos(class LAMMPS *lmp, int narg, char **arg) :
      MonteCarloTimesteps<VerletKokkos>(lmp, narg, arg)
  {
  }

 protected:
  // as verlet/kk's timesteps: the styles sync the data they use themselves (LAMMPS's automatic
  // sync would copy every array a /kk fix touches to the host and back at every invocation)
  void enter_monte_carlo_steps() override
  {
    lmp->kokkos->auto_sync = 0;
    atomKK->sync(Device, ALL_MASK);
  }
  void leave_monte_carlo_steps() override
  {
    atomKK->sync(Host, ALL_MASK);
    lmp->kokkos->auto_sync = 1;
  }
};

}    // namespace LAMMPS_NS

#endif
#endif
