// Kokkos Monte Carlo engine of the /kk styles: the counterpart of gpumc_system_host.h for any
// Kokkos execution space (CUDA, OpenMP, Serial). Potentials, proposals, wrapping and acceptance
// rules are the shared ones (gpumc_pair_potential.h, gpumc_moves.h), so that a device chain and a
// host chain with the same seed make the same proposals and, up to round-off in the sums, the
// same decisions.
//
// Data stay in the execution space's memory for a whole invocation: atoms in atom-ID order, a cell
// list of fixed capacity per cell whose slots hold the positions (so a team reads neighbouring
// atoms contiguously), the box, the running energy and the counters. The host launches kernels
// and reads per-invocation totals only.
//
// The class is declared here; its member functions are defined by subsystem, each file with the
// kernels (functors) it launches, and compiled once for the KOKKOS package's device types:
//   gpumc_system_kokkos.cpp        configuration, box, counters, fingerprint
//   gpumc_cell_list_kokkos.*       the cell list
//   gpumc_energy_kokkos.*          the total energy
//   gpumc_chain_kokkos.*           the sequential translation chain
//   gpumc_volume_kokkos.*          volume moves
//   gpumc_widom_kokkos.*           Widom test insertions
//   gpumc_checkerboard_kokkos.*    checkerboard sweeps (cells: gpumc_checkerboard_cells_kokkos.h)
//   gpumc_ewald_kokkos.*           the reciprocal-space part of an Ewald sum
// with the device arrays in gpumc_device_state_kokkos.h and what teams of threads share in
// gpumc_team_kokkos.h.
//
// A move that cannot be carried out with the current cell list (a full cell, or cells that a
// compression made narrower than allowed) stops the chain before that move; the host rebuilds the
// cell list and resumes at the same move, so the chain is unchanged.
#pragma once

#include "gpumc_device_state_kokkos.h"

#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

namespace gpumc {

namespace kk {
struct WidomArgs;
}

// Settings of the engine that users need not touch: the defaults are the measured best, and the
// chain does not depend on them. Tests set them (through a /kk style's public engine_options)
// to drive rare paths: forced cell-list stops, sweeps run again, every batch size.
struct EngineOptions {
  int chain_batch = 0;              // moves per batch of the sequential chain; 0: about sqrt(N)
  int energy_parts = 0;             // parts of a cell's half window in the energy kernel (1-13); 0: chosen
  int cell_slack = -1;              // free slots per cell of the cell list; -1: max(4, half the fullest)
  int checker_trials = 0;           // trials per group in a checkerboard trial team; 0: chosen
  int checker_list_rounds = 0;      // candidate list rounds of the checkerboard trial kernel; 0: chosen
  bool checker_measure_all = false; // the host measures every checkerboard sweep before the next
  bool checker_no_room = false;     // unmeasured sweeps get no room: each stops and runs again
  int widom_split = 0;              // Widom insertion boxes per cell side (1-3); 0: chosen
  bool widom_walk_cells = false;    // Widom insertions walk the cell list instead of staging atoms
};

template <class DeviceType>
class DeviceSystem {
 public:
  using ExecSpace = typename DeviceType::execution_space;
  template <class T>
  using View = Kokkos::View<T, DeviceType>;
  using TeamPolicy = Kokkos::TeamPolicy<ExecSpace>;
  using Grid = kk::Grid;

  // mixed: the checkerboard and Widom kernels evaluate pair terms (and stage positions, relative
  // to their cell) in float, summing in double; everything else stays double. team_size 0: each
  // kernel's default.
  DeviceSystem(const PairTable &table, int team_size, bool mixed = false, const EngineOptions &options = {});

  // ---- configuration (gpumc_system_kokkos.cpp) ----

  // Atoms in atom-ID order: positions (n x 3) and types, and the box. Positions are wrapped into
  // the box in place, and the engine keeps x as its positions until the cell list is first needed
  // (a checkerboard sweep reads them in this order): the caller leaves x alone while the engine
  // runs. Image shifts count from zero.
  void set_configuration(View<double *[3]> x, View<int *> type, const double lo[3], const double len[3]);
  int natoms() const { return natoms_; }
  View<int *[3]> image_shifts()
  {
    settle();
    return c_.image;
  }
  // Positions in atom-ID order (n x 3): the engine's own array (gathered into it from the cell
  // slots if they hold the positions), valid until the engine next moves atoms; copy to keep.
  View<double *[3]> positions()
  {
    settle();
    return atom_positions();
  }
  // Box after the invocation (from the device).
  void fetch_box(double lo[3], double len[3]);
  long counter(int which);
  void reset_counters();
  // Order-independent fingerprint of positions, types and box (not the host's: compare within a
  // backend only).
  uint64_t fingerprint();
  // The largest team the translation kernel of an algorithm can run with here: a host backend's
  // thread pool, a GPU's block limits for that kernel's registers.
  static int max_team_size(bool checkerboard, bool mixed);

  // ---- energies (gpumc_energy_kokkos.cpp) ----

  // the part that depends only on the type counts and the volume (tail, self energies)
  double count_energy(double volume) const { return table_.count_energy(type_count_, volume); }
  // Total energy (pair, tail and self) of the current configuration, also stored as the running energy
  // when `store` is set. Summed in a fixed order for a given cell list.
  double total_energy(bool store);
  // Total energy summed in an order that depends only on the positions: cells rebuilt (each
  // sorted by atom ID) first, so that a chain split by restarts sums exactly as an unbroken one.
  double canonical_total_energy();
  void set_running_energy(double e);
  double running_energy();

  // ---- moves ----

  // One sweep's worth of the sequential chain (gpumc_chain_kokkos.cpp): nmoves translations
  // numbered first_move.. of atoms drawn from `mobile` (atom indices), then nvol volume trials
  // numbered first_vol... Everything runs on the device; the host reads the counters once at the
  // end to learn whether the chain stopped before a move it could not carry out, and if so
  // rebuilds and resumes at that move.
  void sweep(View<int *> mobile, double beta, double dmax, const CounterRNG &trans_rng, uint64_t first_move,
             uint64_t nmoves, int nvol, int scheme, double vstep, double pressure_energy, const CounterRNG &vol_rng,
             uint64_t first_vol);
  // One checkerboard sweep numbered `sweep` of the atoms listed in `mobile`
  // (gpumc_checkerboard_kokkos.cpp). The host does not wait for it; settle() does.
  void checkerboard_sweep(View<int *> mobile, double beta, double dmax, const CounterRNG &rng, uint64_t sweep);
  // Waits for the pending checkerboard sweeps, and runs them again from one that stopped.
  void settle();
  // Mean Boltzmann factor of ninsert or more test insertions of `type` (done: how many), numbered
  // (block, g) in the stream (gpumc_widom_kokkos.cpp). With parts > 1 only share `part` of them
  // is made (the insertion boxes split evenly), and their Boltzmann factors' sum over done is
  // returned: the parts' results add up to the mean (not with an Ewald sum).
  double widom(int type, double beta, const CounterRNG &rng, uint64_t block, uint64_t ninsert, uint64_t &done,
               int part = 0, int parts = 1);

  // ---- checkerboard sweeps over a spatial decomposition (gpumc_domain_kokkos.cpp) ----
  // The trials and decisions of the host's DomainCheckerboard (gpumc_domain_host.h) on this MPI
  // rank's block of the global grid. The cells of the block and the layer around it from nall
  // atoms (the arrays may be longer), the first nowned owned and the rest ghosts: positions (swept
  // in place), types, IDs, and mobile (1 for the owned atoms of the group).
  void domain_build(const DomainBlock &block, int nowned, int nall, View<double *[3]> x, View<int *> type,
                    View<int64_t *> tag, View<int *> mobile);
  // The ghosts' positions in x taken again (their owners moved them).
  void domain_refresh_ghosts();
  // The cells that later colours try (DomainBlock's lowest and moving): the still layer moved.
  void domain_set_tried_cells(const int lowest[3], const int moving[3]);
  // The 8 colours of sweep `sweep` in `order` on the block; after_colour runs after each (it
  // brings the ghosts' new positions), after the rank's own periodic images (block.images) have
  // been moved with their atoms.
  void domain_colours(const int order[8], double beta, double dmax, const CounterRNG &rng, uint64_t sweep,
                      const std::function<void()> &after_colour);
  // The last sweep's trials, accepted moves and energy change on this rank added (on the device) to
  // those pending since the last domain_take_sums, which returns them (du: the energy change).
  void domain_add_sweep_sums();
  MoveCounts domain_take_sums(double &du);
  // Pair energy of the pairs of owned atoms with atoms of higher ID (every pair once over the ranks).
  double domain_owned_pair_energy();

 private:
  int natoms_ = 0, ntypes_ = 0, team_size_ = 0;
  bool mixed_ = false;
  EngineOptions options_;
  double cut_max_ = 0.0;
  double box_lo_[3] = {0, 0, 0}, box_len_[3] = {0, 0, 0};    // the host's copy of the box
  PairTable table_;                  // the host's copy of the interactions
  bool lj_morse_ = false;            // kernels for PairsLJMorse evaluate the table
  bool analytic_ = false;            // the checkerboard's for PairsAnalytic too
  std::vector<double> row_cutsq_;    // the host's copy of c_.row_cutsq
  std::vector<long> type_count_;
  kk::CellData<DeviceType> c_;
  // Ewald sum: the device's state, the wave vectors of the current box (host copy), and whether S
  // is to be computed again from the positions
  kk::EwaldData<DeviceType> ew_;
  std::vector<EwaldVector> kvec_;
  bool ewald_stale_ = true;
  kk::CheckerData<DeviceType> cb_;
  kk::BatchData<DeviceType> chain_;
  View<int *> cb_mobile_source_;
  // checkerboard sweeps launched since the host last read the device, and their arguments
  struct PendingSweeps {
    View<int *> mobile;
    double beta = 0.0, dmax = 0.0;
    CounterRNG rng{0, 0};
    uint64_t first = 0, count = 0;
  };
  PendingSweeps pending_;
  kk::CheckerSizes cb_room_{0, 0};    // the room the checkerboard kernels are sized for
  kk::CheckerSizes domain_room_{0, 0};    // the sizes of the block's cells (domain_build)
  View<int64_t *> domain_tag_;
  int domain_nowned_ = 0;
  View<kk::CheckerSizes> cb_sizes_;   // the last sweep's sizes
  View<kk::CheckerSums> cb_sums_;
  View<kk::CheckerSums> domain_pending_;    // domain_add_sweep_sums
  // the positions are cb_.x's (as set, or moved by checkerboard sweeps), not the cell list's,
  // which is rebuilt from them when next needed
  bool cells_stale_ = false;
  bool cb_mobile_stale_ = true;    // cb_.mobile is to be rebuilt from the next sweep's group
  bool box_synced_ = false;        // box_lo_, box_len_ equal the device's box
  bool padding_stale_ = true;      // atoms may have changed cells since c_.pad_start was built

  static bool on_host() { return std::is_same<ExecSpace, Kokkos::DefaultHostExecutionSpace>::value; }
  static constexpr bool cuda_space()
  {
#ifdef KOKKOS_ENABLE_CUDA
    return std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
    return false;
#endif
  }
  // Kernels launched many times per invocation (the chain's per batch, the volume trial's, every
  // kernel of a checkerboard sweep) take their functor as a kernel argument. Kokkos's CUDA default
  // for functors over 512 bytes (ours: views of the whole cell list) copies them to constant memory
  // and makes the host wait for the previous such kernel to finish before each launch, exposing
  // the launch latency every time.
  template <class Policy>
  static auto light(const Policy &policy)
  {
    return Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  }
  // the checkerboard kernel lists candidates a warp at a time on CUDA (team sizes of whole warps)
  static int warp_group(int team)
  {
    if constexpr (cuda_space()) return team % 32 == 0 ? 32 : 1;
    return 1;
  }

  // cell list (gpumc_cell_list_kokkos.cpp)
  View<double *[3]> atom_positions();
  void ensure_cells();
  void choose_grid(const double len[3], Grid &g) const;
  void rebuild_cells(bool for_volume_trial);
  void fill_cells(View<double *[3]> x, int min_cap);

  // energies (gpumc_energy_kokkos.cpp)
  int padded_cells() const { return c_.g.n[1] * c_.g.n[2] * (c_.g.n[0] + 2 * kk::REACH); }
  void ensure_energy_copy();
  template <class Result>
  void pair_energy_sum(bool trial, Result &&result);
  double pair_energy();
  void trial_pair_energy();    // the volume trial's, into device memory

  // sequential chain (gpumc_chain_kokkos.cpp)
  void chain(View<int *> mobile, double beta, double dmax, const CounterRNG &rng, uint64_t first, uint64_t nmoves);
  int team_size() const;
  int commit_team() const { return on_host() ? 1 : 32; }    // the team that decides a batch: a warp on a GPU
  int chain_batch() const;
  static int chain_team_max();

  // volume moves (gpumc_volume_kokkos.cpp)
  void volume_trial(int scheme, double step, double beta, double pressure_energy, const CounterRNG &rng, uint64_t move);

  // Ewald sum (gpumc_ewald_kokkos.cpp)
  void upload_wave_vectors(kk::EwaldData<DeviceType> &e, const std::vector<EwaldVector> &kvec);
  void ewald_structure_factors(kk::EwaldData<DeviceType> &e);
  double ewald_energy();
  void ensure_ewald();
  void ensure_ewald_batch(int batch);
  template <class Pairs>
  void ewald_chain_evaluate(int count, int64_t end, double cutsq_max);
  void ewald_apply_pending();
  bool ewald_volume_trial_energy(kk::EwaldData<DeviceType> &trial, std::vector<EwaldVector> &kvec);
  void ewald_volume_commit(const kk::EwaldData<DeviceType> &trial, std::vector<EwaldVector> &kvec);
  double widom_ewald(const kk::WidomArgs &a, const CounterRNG &rng, uint64_t ninsert);

  // Widom insertions (gpumc_widom_kokkos.cpp)
  template <class Real, class Pairs>
  double widom_tiled(const kk::WidomArgs &a, const CounterRNG &rng);
  // Threads per team of the Widom kernel: a warp on a GPU, so that a box's insertions fill whole
  // rounds of 32 more often than rounds of a larger team.
  int widom_team() const { return team_size_ > 0 ? team_size_ : (on_host() ? 1 : 32); }
  int widom_split(long ncells, uint64_t ninsert, double rc) const;

  // checkerboard sweeps (gpumc_checkerboard_kokkos.cpp)
  void launch_checkerboard_sweep(View<int *> mobile, double beta, double dmax, const CounterRNG &rng, uint64_t sweep,
                                 bool measure);
  // The 8 colours of a sweep on the cells of cb_, sized by `room` (after_colour, if set, runs
  // after each colour), in the engine's precision and for its pair kinds.
  void checker_colours(const int order[8], const kk::CheckerSizes &room, double beta, double dmax,
                       const CounterRNG &rng, uint64_t sweep, const std::function<void()> &after_colour = {});
  template <class Real, class Pairs>
  void checker_colours(const int order[8], int fullest, int window, double beta, double dmax, const CounterRNG &rng,
                       uint64_t sweep, const std::function<void()> &after_colour = {});
  void ensure_checker_slots(int ncells);
  int checker_team_size() const;
  int checker_trials_per_group(int cell_cap) const;
  template <class Real>
  static int checker_team_max();
  static void scratch_levels(size_t hot, size_t cold, int team, int &hot_level, int &cold_level);
};

}    // namespace gpumc
