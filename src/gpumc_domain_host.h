// Host engine: checkerboard sweeps over a spatial decomposition (LAMMPS's processor grid, one
// block of the global checkerboard grid per MPI rank). Independent of LAMMPS, as HostSystem is;
// gpumc_lammps_domain.cpp moves the atoms between ranks and refreshes the ghosts.
//
// A rank holds the atoms of its block (owned) and copies of the atoms of the layer of cells
// around it (ghosts, periodic images with their image's coordinates). The grid's origin is the
// box's lower corner: the sweep's random shift is applied to the atoms instead (the system is
// translated by it, which leaves every energy unchanged), so that cell walls fall on the ranks'
// subdomain walls. Within a colour a rank moves the atoms of its active cells; their neighbours
// all lie in cells of other colours, which do not move, so the ranks need each other's moves only
// between colours. The trials are those of gpumc_checkerboard.h, keyed by the global cell and the
// atom's place among the cell's atoms in ID order; each energy is summed over the 27 cells in a
// fixed order, atoms by ID within a cell. The chain is therefore the same on any number of ranks
// that split the grid alike, and makes the decisions of the single-process sweep.
#pragma once

#include "gpumc_checkerboard.h"
#include "gpumc_pair_potential.h"
#include "gpumc_rng.h"
#include "gpumc_system_host.h"

#include <cstdint>
#include <vector>

namespace gpumc {

class DomainCheckerboard {
 public:
  explicit DomainCheckerboard(const PairTable &table);

  // Sort atoms 0..nall-1 (the first nowned owned, the rest ghosts) into the block's cells and the
  // layer around it; ghosts farther out are left out. tag: atom IDs; mobile: owned atoms that move.
  void build(const DomainBlock &block, int nowned, int nall, const double *const *x, const int *type,
             const int64_t *tag, const int *mobile);
  // Take the ghosts' positions again (their owners moved them).
  void refresh_ghosts(const double *const *x);
  // The cells that later colours try (DomainBlock's lowest and moving): the still layer moved.
  void set_tried_cells(const int lowest[3], const int moving[3]);
  // The trials of one colour in this rank's cells (sweep `sweep`); accepted moves are written to
  // x as well, and to the periodic images of the moved atoms (block.images). dU accumulates the
  // accepted energy changes.
  MoveCounts colour(int colour, const CounterRNG &rng, uint64_t sweep, double beta, double dmax, double *const *x,
                    double &dU);
  // Pair energy of the pairs of owned atoms with atoms of higher ID: summed over the ranks, every
  // pair (every periodic image within range) once.
  double owned_pair_energy() const;

 private:
  // the atoms sorted by cell (owned ones first, by ID), as structure-of-arrays coordinates
  // (x mutable: an evaluation parks the atom it skips out of range) and per-entry records
  struct Entry {
    int local;
    int64_t tag;
    bool owned, mobile;
  };
  struct Candidate {
    double rsq;
    int type;
  };
  const PairTable *table_;
  std::vector<double> row_cutsq_;
  DomainBlock block_;
  int ext_[3] = {0, 0, 0};            // cells per dimension with the layer around the block
  std::vector<int> start_;            // entries of local cell c: start_[c] .. start_[c+1]-1
  std::vector<int> owned_count_;      // owned entries of each cell (they come first, by ID)
  std::vector<Entry> entries_;
  mutable std::vector<double> xs_;
  std::vector<double> ys_, zs_;
  std::vector<int> ts_;
  mutable std::vector<Candidate> near_p_, near_q_;    // scratch of energies_at
  // ghost entries that are periodic images of owned entries (block.images), and their shifts
  struct Image {
    int entry, owner;
    int shift[3];
  };
  std::vector<Image> images_;

  int local_cell(const int l[3]) const { return (l[2] * ext_[1] + l[1]) * ext_[0] + l[0]; }
  // The owned entry with ID `tag` in the block's cell l or, round-off having put it there, one of
  // the 26 around it; -1 if none.
  int owned_entry_near(int64_t tag, const int l[3]) const;
  void find_images();
  void move_images();
  // Pair energies of an atom of type itype at p and at q with the entries of the 27 cells around
  // local cell l, except entry skip (one pass over the candidates for both).
  void energies_at(int skip, int itype, const int l[3], const double p[3], const double q[3], double &ep,
                   double &eq) const;
};

}    // namespace gpumc
