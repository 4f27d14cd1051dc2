// Host (CPU) Monte Carlo engine: atoms in an orthogonal periodic box held in a cell list,
// energies from the shared pair potentials, and the move kernels of the host styles.
// Independent of LAMMPS so that it can be tested on its own. Declared here, defined by subsystem
// as the Kokkos engine is (gpumc_system_kokkos.h):
//   gpumc_system_host.cpp        configuration and single-atom moves
//   gpumc_cell_list_host.cpp     the cell list
//   gpumc_energy_host.cpp        energies
//   gpumc_chain_host.cpp         the sequential translation chain
//   gpumc_volume_host.cpp        volume moves
//   gpumc_widom_host.cpp         Widom test insertions
//   gpumc_ewald_host.cpp         the reciprocal-space part of an Ewald sum
//   gpumc_checkerboard_host.cpp  checkerboard sweeps
#pragma once

#include "gpumc_checkerboard.h"
#include "gpumc_moves.h"
#include "gpumc_pair_potential.h"
#include "gpumc_rng.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace gpumc {

struct Box {
  double lo[3] = {0.0, 0.0, 0.0};
  double len[3] = {0.0, 0.0, 0.0};
  double volume() const { return len[0] * len[1] * len[2]; }
};

// Atoms sorted by cell (compressed rows: the atoms of cell c are entries start[c]..start[c+1]
// of structure-of-arrays coordinates), cells at least half as wide as the largest cutoff. The
// energy of one atom then streams through 25 contiguous rows of 5 cells around it: 2.2 times
// fewer candidates than 3x3x3 cells a cutoff wide, with one loop per row rather than per cell.
// Periodic images are handled by a shift per row segment, which also covers boxes only a few
// cells wide; a box side must be at least twice the largest cutoff, so that at most one image
// of an atom is within range.
class HostSystem {
 public:
  explicit HostSystem(PairTable table);

  // x: 3n coordinates (wrapped into the box here), type: n types in 1..ntypes.
  void set_configuration(const std::vector<double> &x, const std::vector<int> &type, const Box &box);

  int natoms() const { return (int) type_.size(); }
  const Box &box() const { return box_; }
  const PairTable &table() const { return *table_; }
  const std::vector<int> &types() const { return type_; }
  double min_side() const { return 2.0 * table_->cut_max; }

  void position(int i, double pos[3]) const;
  std::vector<double> positions() const;    // 3n, atom order
  // periodic images crossed since set_configuration (3n), for LAMMPS's image flags
  const std::vector<int> &image_shifts() const { return image_shift_; }

  double pair_energy_total() const;
  // the part that depends only on the type counts and the volume (tail, self energies)
  double count_energy() const { return table_->count_energy(type_count_, box_.volume()); }
  // the reciprocal-space part of an Ewald sum (kspace_style ewald; else 0)
  double ewald_energy() const;
  double total_energy() const { return pair_energy_total() + count_energy() + ewald_energy(); }
  // Total energy summed in an order that depends only on the positions (cells rebuilt in atom
  // order first), so that a chain split by a restart sums exactly as an unbroken one.
  double canonical_total_energy();

  // Energy of atom i placed at pos with all other atoms (pair terms).
  double particle_energy(int i, const double pos[3]) const;
  // Energy change of moving atom i to new_pos (inside the box).
  double move_energy_change(int i, const double new_pos[3]) const;
  // Energy change of inserting a test particle of the given type at pos (pair, tail and self).
  double insertion_energy(int type, const double pos[3]) const;

  // Wrap pos into the box, adding the images crossed to shift.
  void wrap(double pos[3], int shift[3]) const;
  // Move atom i to pos (inside the box) that lies shift images away from its old position.
  void move_atom(int i, const double pos[3], const int shift[3]);
  // New box sides, positions scaled affinely about the box centre.
  void rescale_box(const double len[3]);

 private:
  struct Candidate {
    double rsq;
    int type;
  };
  static constexpr int REACH = 2;                      // cells per cutoff
  static constexpr int WINDOW = 2 * REACH + 2;         // cells per side of two adjacent stencils
  // A window of cell coordinates along one dimension around coordinate c: [c - REACH, c + REACH]
  // (one stencil) or [c - REACH, c + REACH + 1] (the union of the stencils of c and c + 1), as
  // cells and the shifts that bring their atoms next to c. Along x, also as runs of consecutive
  // cells with one shift (so that a row of cells is a contiguous range of atoms).
  struct Run {
    int first, length;
    double shift;
  };
  struct Window {
    int cell[WINDOW];
    double shift[WINDOW];
    int nruns[2];            // runs of the single stencil [0] and of the union [1]
    Run runs[2][WINDOW];
  };

  std::shared_ptr<const PairTable> table_;
  std::vector<double> row_cutsq_;    // largest cutoff^2 of each type's row
  Box box_;
  std::vector<int> type_;
  std::vector<int> image_shift_;
  std::vector<long> type_count_;
  // Ewald sum: the wave vectors of the box and the structure factors (empty without one)
  std::vector<EwaldVector> kvec_;
  std::vector<double> s_re_, s_im_;
  // scratch of a move's change of S (not part of the state)
  mutable EwaldPhases phases_old_, phases_new_;
  mutable std::vector<double> delta_re_, delta_im_;
  // the move whose change of S delta_re_, delta_im_ hold: an accepted move, evaluated just
  // before, applies it without computing it again
  struct DeltaMove {
    bool valid = false;
    int type = 0;
    double old_pos[3], new_pos[3];
    bool is(int t, const double o[3], const double n[3]) const
    {
      return valid && type == t && o[0] == old_pos[0] && o[1] == old_pos[1] && o[2] == old_pos[2] &&
          n[0] == new_pos[0] && n[1] == new_pos[1] && n[2] == new_pos[2];
    }
  };
  mutable DeltaMove delta_move_;

  int ncell_[3] = {0, 0, 0};
  double cell_inv_[3] = {0.0, 0.0, 0.0};
  std::vector<int> start_;                  // ncells + 1: atoms of cell c at start_[c]..start_[c+1]-1
  // coordinates in cell order (x mutable: an evaluation parks the atom it skips out of range)
  mutable std::vector<double> xs_;
  std::vector<double> ys_, zs_;
  std::vector<int> ts_, ids_;               // types and atom indices in cell order
  std::vector<int> cell_of_, slot_of_;      // per atom: its cell and its entry
  std::vector<Window> window_[3];           // per dimension and cell coordinate
  // in-range candidates of two positions; scratch space, not part of the state (never copied)
  struct Scratch {
    std::vector<Candidate> p, q;
    Scratch() = default;
    Scratch(const Scratch &) {}
    Scratch &operator=(const Scratch &) { return *this; }
  };
  mutable Scratch scratch_;

  void choose_grid(const Box &box, int grid[3]) const;
  void build_cells(const std::vector<double> &x);
  void build_windows();
  void cell_coords(const double pos[3], int c[3]) const;
  int cell_index(const int c[3]) const { return (c[2] * ncell_[1] + c[1]) * ncell_[0] + c[0]; }
  void swap_entries(int a, int b);
  double ewald_charge(int type) const;
  void ewald_setup();
  void ewald_structure_factors();
  void ewald_rescale();
  void ewald_move_delta(int type, const double old_pos[3], const double new_pos[3]) const;
  double ewald_move_change(int type, const double old_pos[3], const double new_pos[3]) const;
  double ewald_insertion_change(int type, const double pos[3]) const;
  void ewald_apply_move(int type, const double old_pos[3], const double new_pos[3]);
  void relocate(int i, int new_cell);
  // Energies at p and (if TWO) q, positions whose cells lie within one cell of each other in
  // every dimension: lo[d] is the lower of their cell coordinates, span[d] 0 or 1 apart.
  template <bool TWO>
  void window_energy(int skip, int itype, const int lo[3], const int span[3], const double p[3],
                     const double q[3], double &ep, double &eq) const;
};

// ---- move kernels of the host styles ----

// nmoves trial translations numbered first_move.. in the translation stream (gpumc_moves.h),
// each of an atom drawn uniformly from `mobile`; energy is updated by the accepted dU.
MoveCounts translation_moves(HostSystem &sys, const std::vector<int> &mobile, double beta,
                             double dmax, const CounterRNG &rng, uint64_t first_move,
                             uint64_t nmoves, double &energy);

// The trials of a cell of natoms atoms in sweep `sweep` (gpumc_checkerboard.h: every atom once, in
// the order of the trials' keys): trials[s] is slot s's, order the slots in the order tried.
void cell_trials_in_order(const CounterRNG &rng, uint64_t sweep, int cell, int natoms, double dmax,
                          std::vector<CellTrial> &trials, std::vector<int> &order);

// One checkerboard sweep numbered `sweep` (gpumc_checkerboard.h) of the atoms i with mobile[i]
// set, the cells run one after another; energy is updated by the accepted dU. The reference for
// the parallel device kernel, which makes the same proposals. Throws std::runtime_error when the
// box is too small for the decomposition.
MoveCounts checkerboard_sweep(HostSystem &sys, const std::vector<char> &mobile, double beta, double dmax,
                              const CounterRNG &rng, uint64_t sweep, double &energy);

struct VolumeMoveParams {
  int scheme = VOLUME_LOGV;
  double step = 0.0;               // max change of ln V (logv) or of each side (sides)
  double beta = 0.0;
  double pressure_energy = 0.0;    // P in energy/volume units
};

// Volume trial numbered move in the volume stream, the full energy recomputed. A rejected move
// leaves the system exactly as it was.
bool volume_move(HostSystem &sys, const VolumeMoveParams &p, const CounterRNG &rng, uint64_t move,
                 double &energy);

// Mean Boltzmann factor <exp(-beta dU)> of n test insertions of `type` at uniform random
// points, numbered (block, 0..n-1) in the given stream.
double widom_insertions(const HostSystem &sys, int type, double beta, const CounterRNG &rng,
                        uint64_t block, uint64_t n);
// The sum of exp(-beta dU) over insertions first..last-1 of the same numbering (a share of a block).
double widom_insertion_sum(const HostSystem &sys, int type, double beta, const CounterRNG &rng, uint64_t block,
                           uint64_t first, uint64_t last);

}    // namespace gpumc
