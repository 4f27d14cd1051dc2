/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: adapter between LAMMPS and the shared GPUMC physics.
   Reads the interactions of the active pair style, stops with a clear error for setups that
   GPUMC does not sample correctly, and copies the configuration in and out in atom-ID order,
   so that a Monte Carlo chain never depends on how LAMMPS happens to store its atoms.
------------------------------------------------------------------------- */

#ifndef LMP_GPUMC_LAMMPS_H
#define LMP_GPUMC_LAMMPS_H

#include "pointers.h"

#include "gpumc_system_host.h"

#include <string>
#include <vector>

namespace LAMMPS_NS {
namespace GPUMC {

  // Interactions of the active pair style (gpumc_pair_styles.cpp: the supported styles, their
  // accelerator variants, hybrid and hybrid/overlay of them), with its cutoffs, its `pair_modify
  // shift` and `pair_modify tail` settings and, for Coulomb terms, the charge of each type.
  // Stops with an error naming `who` for anything else.
  gpumc::PairTable pair_table(LAMMPS *lmp, const std::string &who);

  // Stops with a clear error for setups GPUMC does not sample correctly.
  void check_system(LAMMPS *lmp, const std::string &who);

  // Value of the `precision` keyword: true for mixed, false for double; anything else is an error.
  bool parse_precision(LAMMPS *lmp, const std::string &who, const char *value);

  // Box of the LAMMPS domain.
  gpumc::Box box(LAMMPS *lmp);

  // The configuration in atom-ID order: positions, types, and the local index of each atom.
  struct Configuration {
    std::vector<double> x;
    std::vector<int> type;
    std::vector<int> local;    // local[k] = LAMMPS local index of the k-th atom by ID
  };
  Configuration gather(LAMMPS *lmp);

  // Positions and image flags back into LAMMPS, and the box if it changed.
  void scatter(LAMMPS *lmp, const Configuration &conf, const gpumc::HostSystem &sys, bool box_changed);

  // Fingerprint of everything the energy depends on: positions (atom-ID order), types, the
  // LAMMPS box and the interactions. Equal fingerprints: the running energy is still valid.
  uint64_t fingerprint(LAMMPS *lmp, const std::vector<double> &x, const std::vector<int> &type,
                       const gpumc::PairTable &table);
  // The same from a hash of the configuration made elsewhere (the Kokkos engine's, on the device).
  uint64_t fingerprint(LAMMPS *lmp, uint64_t configuration, const gpumc::PairTable &table);

  // Indices (in atom-ID order) of the atoms of a group.
  std::vector<int> group_members(LAMMPS *lmp, const Configuration &conf, int groupbit);

  // Velocities of the group's atoms drawn from the Maxwell-Boltzmann distribution at temperature
  // T (draw `draw` of the velocity stream, gpumc_velocities.h), then their total momentum removed,
  // as LAMMPS's `velocity ... mom yes` does, so that temp averages T.
  void draw_velocities(LAMMPS *lmp, int groupbit, const gpumc::CounterRNG &rng, uint64_t draw, double temperature);

}    // namespace GPUMC
}    // namespace LAMMPS_NS

#endif
