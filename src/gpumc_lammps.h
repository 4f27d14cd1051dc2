/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: adapter between LAMMPS and the shared GPUMC physics.
   Reads the interactions of the active pair style, stops with a clear error for setups that
   GPUMC does not sample correctly, and copies the configuration in and out in atom-ID order,
   so that a Monte Carlo chain never depends on how LAMMPS happens to store its atoms.
------------------------------------------------------------------------- */

#ifndef LMP_GPUMC_LAMMPS_H
#define LMP_GPUMC_LAMMPS_H

#include "pointers.h"

#include "gpumc_domain_host.h"
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
  // Stops with an error naming `who` on more than one MPI process; `instead` says what runs there.
  void check_one_process(LAMMPS *lmp, const std::string &who, const std::string &instead);

  // Value of the `precision` keyword: true for mixed, false for double; anything else is an error.
  bool parse_precision(LAMMPS *lmp, const std::string &who, const char *value);

  // Box of the LAMMPS domain.
  gpumc::Box box(LAMMPS *lmp);

  // The configuration in atom-ID order: positions, types, and the local index of each atom.
  // On several MPI ranks every rank gets the whole configuration; local is then -1 for the atoms
  // other ranks own.
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
  // The same for a configuration spread over several MPI ranks, without gathering it: a sum over
  // the atoms of a hash of each one's ID, type and position (equal on any number of ranks, but
  // not to the single-process fingerprint).
  uint64_t fingerprint_ranks(LAMMPS *lmp, const gpumc::PairTable &table);
  // The same from a hash of the configuration made elsewhere (the Kokkos engine's, on the device).
  uint64_t fingerprint(LAMMPS *lmp, uint64_t configuration, const gpumc::PairTable &table);

  // Indices (in atom-ID order) of the atoms of a group.
  std::vector<int> group_members(LAMMPS *lmp, const Configuration &conf, int groupbit);

  // Checkerboard sweeps of the host styles on several MPI ranks, over LAMMPS's own spatial
  // decomposition (gpumc_domain_host.h; gpumc_lammps_domain.cpp). Each sweep translates the system
  // by its grid shift and lets LAMMPS's Comm move the atoms to the ranks whose subdomains hold them
  // (exchange) and copy the layer around each subdomain (borders); the ghosts are refreshed
  // (forward communication) after each colour. The system is translated back by finish().
  class DomainSweeps {
   public:
    DomainSweeps(LAMMPS *lmp, const gpumc::PairTable &table, int groupbit, const std::string &who);
    // Sweep `sweep` (gpumc_checkerboard.h's trials); energy gets the accepted energy changes of all ranks.
    gpumc::MoveCounts sweep(const gpumc::CounterRNG &rng, uint64_t sweep, double beta, double dmax, double &energy);
    // Energy of the configuration after a sweep or volume move: pair terms of all ranks and the
    // count energy.
    double total_energy() const;
    // Volume trial `move` (gpumc_moves.h), decided once for all ranks: every subdomain scales with
    // the box; a rejected trial restores the positions and the box exactly.
    bool volume_move(const gpumc::VolumeMoveParams &p, const gpumc::CounterRNG &rng, uint64_t move, double &energy);
    // Undo the translation: the atoms where the first sweep found them, up to the moves.
    void finish();

   private:
    LAMMPS *lmp_;
    const gpumc::PairTable &table_;
    int groupbit_;
    std::string who_;
    gpumc::DomainCheckerboard engine_;
    double offset_[3] = {0.0, 0.0, 0.0};    // the system's present translation
    std::vector<long> type_count_;          // of all ranks
    std::vector<int64_t> tag_;
    std::vector<int> mobile_;
    void translate(const double delta[3]);
    // The engine's cells for grid g (origin at the box's corner) and the current atoms and ghosts.
    void build_engine(gpumc::CheckerGrid g);
    // Ghosts anew for the current box (no atom changes its rank).
    void refresh_borders();
    gpumc::CheckerGrid unshifted_grid() const;
    [[noreturn]] void grid_error(const gpumc::Box &box) const;
  };

  // Velocities of the group's atoms drawn from the Maxwell-Boltzmann distribution at temperature
  // T (draw `draw` of the velocity stream, gpumc_velocities.h), then their total momentum removed,
  // as LAMMPS's `velocity ... mom yes` does, so that temp averages T.
  void draw_velocities(LAMMPS *lmp, int groupbit, const gpumc::CounterRNG &rng, uint64_t draw, double temperature);

}    // namespace GPUMC
}    // namespace LAMMPS_NS

#endif
