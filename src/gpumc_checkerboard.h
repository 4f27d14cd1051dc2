// Checkerboard decomposition of translation moves (Anderson, Jankowski, Grubb, Engel and
// Glotzer, J. Comput. Phys. 254 (2013) 27): the geometry, the random grid shift and colour order,
// and how each trial move is drawn. The one definition for the host and Kokkos engines.
//
// A sweep: the box is cut into a grid of n[0] x n[1] x n[2] cells (n even, cells at least as wide
// as the largest cutoff), shifted by a random vector. The 8 colours (parities of the cell
// coordinates) are visited in a random order; in the cells of one colour, each cell holding n_c
// atoms makes n_c trial moves, one of each of its atoms in a random order, displaced uniformly in
// a cube of half-width d, rejected if it would leave the cell, otherwise accepted by Metropolis.
// Cells of one colour are a full cell apart (>= the cutoff), and their atoms stay in
// them, so no atom of one active cell ever interacts with an atom of another: their moves are
// independent and run in parallel, and the result equals running the cells one after another.
// (Anderson et al. make cells r_cut + d wide because their moves may end outside the cell before
// being rejected; here the test "stays in the cell" comes before any energy is evaluated, so
// the cell only has to hold the cutoff.)
//
// Balance. No move leaves its cell, so which atoms each cell holds does not change during a sweep,
// and the sequence of trials (which atom, in which order, which displacement) depends only on that
// membership and on the random numbers. Given the membership, each trial is a Metropolis move of
// one atom with a symmetric displacement, a move out of the cell being rejected whichever way it
// is attempted: it satisfies detailed balance with respect to exp(-U/kT) restricted to the
// configurations of that membership. A composition of such moves leaves that restricted
// distribution invariant, hence (the memberships partitioning configuration space) the Boltzmann
// distribution itself (global balance); so does a mixture over grid shifts and colour orders drawn
// independently of the configuration. A sweep as a whole does NOT satisfy detailed balance (the
// reverse sequence of cells and moves is not the same kernel); the random shift makes the chain
// ergodic (no cell wall is permanent).
#pragma once

#include "gpumc_moves.h"
#include "gpumc_portability.h"
#include "gpumc_rng.h"

#include <cmath>
#include <cstdint>

namespace gpumc {

// The grid of one sweep. Cell k along dimension d covers [origin + k w, origin + (k+1) w) in the
// periodic box, origin = lo + shift (0 <= shift < w): the last cell wraps round to lo.
struct CheckerGrid {
  int n[3];
  double w[3], origin[3], lo[3], len[3];
};

// Narrowest allowed cell: the largest cutoff, with a margin that keeps rounding in the cell
// assignment from bringing two atoms of different active cells within range.
GPUMC_INLINE double checker_min_width(double cut_max)
{
  return cut_max * (1.0 + 1e-10);
}

// Cells per side for a box: the largest even number of cells at least min_width wide, 0 when not
// even two fit (then the decomposition is impossible). Shared so that host and device agree.
GPUMC_INLINE int checker_cells(double len, double min_width)
{
  const int n = (int) (len / min_width);
  return n >= 2 ? n - n % 2 : 0;
}

// Cells per side when `procs` MPI ranks split the side into equal parts (LAMMPS's uniform
// processor grid): the largest multiple of 2 and of procs with cells at least min_width wide, so
// that every rank holds whole cells; 0 when none fits. For one rank, checker_cells.
GPUMC_INLINE int checker_domain_cells(double len, double min_width, int procs)
{
  const int multiple = procs % 2 ? 2 * procs : procs;
  const int n = (int) (len / min_width);
  return n >= multiple ? n - n % multiple : 0;
}

// The grid of sweep `sweep`: its cells and a shift uniform in one cell, draw (sweep, ~0, 0).
// With procs (ranks per dimension), cells that the ranks split evenly (checker_domain_cells).
// Returns false when the box is too small for the decomposition.
GPUMC_INLINE bool checker_grid(const CounterRNG &rng, uint64_t sweep, const double lo[3], const double len[3],
                               double min_width, CheckerGrid &g, const int *procs = nullptr)
{
  const auto r = rng.bits(sweep, ~0ULL, 0);
  bool ok = true;
  for (int d = 0; d < 3; d++) {
    g.n[d] = procs ? checker_domain_cells(len[d], min_width, procs[d]) : checker_cells(len[d], min_width);
    ok = ok && g.n[d] >= 2;
    g.w[d] = g.n[d] ? len[d] / g.n[d] : len[d];
    g.lo[d] = lo[d];
    g.len[d] = len[d];
    g.origin[d] = lo[d] + g.w[d] * uniform01(r[d]);
  }
  return ok;
}

// One MPI rank's part of the global grid when LAMMPS's processor grid splits it (the host and
// Kokkos domain engines): cells first[d] .. first[d] + count[d] - 1 along each dimension, the
// grid's origin at the box's lower corner; sublo, subhi: the rank's subdomain, whose walls are
// those cells' walls up to round-off. Trials are made in moving[d] of them along each dimension,
// from local cell lowest[d] (1: the block's first): all count[d], or count[d] - 1 when the layer
// at the upper walls (lowest 1) or at the lower walls (lowest 2) is held still (frozen or
// alternating ghosts: then no rank's trials read an atom that another rank moves in the same
// sweep).
// images[d] (frozen or alternating ghosts, one rank along d): the layer of cells along d holds
// this rank's own periodic images, which the engines move with their atoms after each colour
// (domain_image_shifts), so that no layer needs to be still along d.
struct DomainBlock {
  CheckerGrid grid;
  int first[3], count[3], lowest[3], moving[3], images[3];
  double sublo[3], subhi[3];
  GPUMC_INLINE bool any_images() const { return images[0] || images[1] || images[2]; }
};

// With one grid per invocation (frozen or alternating ghosts): the whole cells (0 or 1 along each
// dimension, draw (sweep, ~0, 2)) by which the system moves beside the grid's shift, so that the
// translation is uniform in two cells. A shift within one cell would leave every subdomain wall
// inside the still layer at the upper walls (frozen ghosts), and no atom would ever cross it;
// within two, every point is outside that layer with probability at least 1/2. (Uniform in a
// whole block would move half the atoms between ranks every time.)
GPUMC_INLINE void domain_extra_cells(const CounterRNG &rng, uint64_t sweep, int k[3])
{
  const auto r = rng.bits(sweep, ~0ULL, 2);
  for (int d = 0; d < 3; d++) k[d] = (int) uniform_index(r[d], 2);
}

// Global cell coordinate of coordinate x along dimension d (not wrapped: ghosts lie outside the box).
GPUMC_INLINE int domain_global_cell(const CheckerGrid &g, int d, double x)
{
  return (int) floor((x - g.origin[d]) / g.w[d]);
}

// The cell of an atom at x in a rank's block and the layer of cells around it: local coordinates
// l[d] from 0 to count[d] + 1 (the block's own cells 1 .. count[d]); false for a ghost beyond the
// layer. An atom within round-off of a subdomain wall (atoms on a lattice plane sit on it
// exactly) is in the cell on its owner's side, on every rank: LAMMPS's test of ownership and the
// cell's floor may round differently there.
GPUMC_INLINE bool domain_cell(const DomainBlock &b, bool owned, const double x[3], int l[3])
{
  bool inside = true;
  for (int d = 0; d < 3; d++) {
    int k = domain_global_cell(b.grid, d, x[d]) - b.first[d] + 1;
    if (owned) {
      k = k < 1 ? 1 : (k > b.count[d] ? b.count[d] : k);
    } else if (x[d] < b.sublo[d]) {
      k = k < 0 ? k : 0;
    } else if (x[d] >= b.subhi[d]) {
      k = k > b.count[d] + 1 ? k : b.count[d] + 1;
    }
    l[d] = k;
    inside = inside && k >= 0 && k <= b.count[d] + 1;
  }
  return inside;
}

// The shifts (in box lengths per dimension, not all 0) under which a ghost in local cell l
// (domain_cell's coordinates) may be a periodic image of one of the rank's own atoms, along the
// sides whose layers hold images (block.images): -1 in the layer below the block, +1 in the layer
// above, and in the block's first (last) cell 0 or -1 (+1), for an image that round-off put on the
// wall (LAMMPS's x - box length can round to the box's lower bound). Returns how many (at most 7)
// it wrote to shifts. Whether a ghost is such an image (its ID owned here, not another rank's
// atom) the engines answer by looking for its ID among the owned atoms in the cells around its
// owner's position (domain_owner_position: the owner's cell, or a neighbour by round-off).
GPUMC_INLINE int domain_image_shifts(const DomainBlock &b, const int l[3], int shifts[7][3])
{
  int options[3][2], noptions[3];
  for (int d = 0; d < 3; d++) {
    noptions[d] = 1;
    options[d][0] = 0;
    if (!b.images[d]) continue;
    if (l[d] < 1) {
      options[d][0] = -1;
    } else if (l[d] > b.count[d]) {
      options[d][0] = 1;
    } else if (l[d] == 1 || l[d] == b.count[d]) {
      options[d][noptions[d]++] = l[d] == 1 ? -1 : 1;
    }
  }
  int n = 0;
  for (int i = 0; i < noptions[0]; i++)
    for (int j = 0; j < noptions[1]; j++)
      for (int k = 0; k < noptions[2]; k++) {
        const int s[3] = {options[0][i], options[1][j], options[2][k]};
        if (s[0] == 0 && s[1] == 0 && s[2] == 0) continue;
        for (int d = 0; d < 3; d++) shifts[n][d] = s[d];
        n++;
      }
  return n;
}

// Offset (-1, 0 or 1 per dimension) of neighbour w (0..26) of a cell: w = 0 is the cell itself,
// then the other 26.
GPUMC_INLINE void checker_neighbour_offset(int w, int off[3])
{
  const int v = w == 0 ? 13 : (w <= 13 ? w - 1 : w);
  off[0] = v % 3 - 1;
  off[1] = (v / 3) % 3 - 1;
  off[2] = v / 9 - 1;
}

// Neighbour w (checker_neighbour_offset's order) of local cell l, in n; whether it is a cell of the
// block itself (not of the layer around it): where the engines look for an image's owner.
GPUMC_INLINE bool domain_block_neighbour(const DomainBlock &b, const int l[3], int w, int n[3])
{
  int off[3];
  checker_neighbour_offset(w, off);
  bool in_block = true;
  for (int d = 0; d < 3; d++) {
    n[d] = l[d] + off[d];
    in_block = in_block && n[d] >= 1 && n[d] <= b.count[d];
  }
  return in_block;
}

// The position of the atom whose periodic image lies at p with a shift of domain_image_shifts,
// and back: image = owner + shift * box length, as LAMMPS's Comm places a periodic image (the
// same rounding).
GPUMC_INLINE void domain_owner_position(const DomainBlock &b, const int shift[3], const double image[3],
                                        double owner[3])
{
  for (int d = 0; d < 3; d++) owner[d] = image[d] - shift[d] * b.grid.len[d];
}
GPUMC_INLINE void domain_image_position(const DomainBlock &b, const int shift[3], const double owner[3],
                                        double image[3])
{
  for (int d = 0; d < 3; d++) image[d] = owner[d] + shift[d] * b.grid.len[d];
}

// A trial position p stays in global cell c: the test of both domain engines.
GPUMC_INLINE bool domain_stays(const CheckerGrid &g, const double p[3], const int c[3])
{
  bool stays = true;
  for (int d = 0; d < 3; d++) stays = stays && domain_global_cell(g, d, p[d]) == c[d];
  return stays;
}

// Colour order of sweep `sweep`: a uniformly random permutation of 0..7, draw (sweep, ~0, 1).
GPUMC_INLINE void checker_colour_order(const CounterRNG &rng, uint64_t sweep, int order[8])
{
  const auto r = rng.bits(sweep, ~0ULL, 1);
  for (int k = 0; k < 8; k++) order[k] = k;
  for (int k = 7; k > 0; k--) {    // Fisher-Yates, 32 bits of a word per swap
    const uint64_t bits = (r[k / 2] >> (32 * (k % 2))) & 0xffffffffULL;
    const int j = (int) ((bits * (uint64_t) (k + 1)) >> 32);
    const int t = order[k];
    order[k] = order[j];
    order[j] = t;
  }
}

// Cell of a position inside the box (coordinates c, flat index returned) and the position in
// the cell's own frame, u in [0, w) per dimension.
GPUMC_INLINE int checker_cell(const CheckerGrid &g, const double p[3], int c[3], double u[3])
{
  for (int d = 0; d < 3; d++) {
    double a = p[d] - g.origin[d];
    if (a < 0.0) a += g.len[d];    // the wrapped part of the last cell
    int k = (int) floor(a / g.w[d]);
    k = k < 0 ? 0 : (k >= g.n[d] ? g.n[d] - 1 : k);
    c[d] = k;
    u[d] = a - k * g.w[d];
  }
  return (c[2] * g.n[1] + c[1]) * g.n[0] + c[0];
}

GPUMC_INLINE int checker_colour(const int c[3])
{
  return (c[0] & 1) | ((c[1] & 1) << 1) | ((c[2] & 1) << 2);
}

// Cell coordinates of the a-th cell of a colour (cells of one colour numbered x fastest).
GPUMC_INLINE int checker_active_cell(const CheckerGrid &g, int colour, int a, int c[3])
{
  const int h0 = g.n[0] / 2, h1 = g.n[1] / 2;
  c[0] = 2 * (a % h0) + (colour & 1);
  c[1] = 2 * ((a / h0) % h1) + ((colour >> 1) & 1);
  c[2] = 2 * (a / (h0 * h1)) + ((colour >> 2) & 1);
  return (c[2] * g.n[1] + c[1]) * g.n[0] + c[0];
}

// Cell index c (from -1 to n) of a periodic row of n checkerboard cells, wrapped into 0..n-1.
GPUMC_INLINE int checker_wrap(int c, int n)
{
  return (c + n) % n;
}

// Neighbour w (0..26) of cell c0 (checker_neighbour_offset's order); off gets its offset, the flat
// index is returned. With two cells per side, offsets -1 and +1 name the same cell: two different
// periodic images of it.
GPUMC_INLINE int checker_neighbour(const CheckerGrid &g, const int c0[3], int w, int off[3])
{
  checker_neighbour_offset(w, off);
  int c[3];
  for (int k = 0; k < 3; k++) c[k] = checker_wrap(c0[k] + off[k], g.n[k]);
  return (c[2] * g.n[1] + c[1]) * g.n[0] + c[0];
}

GPUMC_INLINE int checker_active_count(const CheckerGrid &g)
{
  return (g.n[0] / 2) * (g.n[1] / 2) * (g.n[2] / 2);
}

// The trials of a cell in sweep `sweep`: every atom of the cell once, in a random order. The atom
// in slot s (the s-th of the cell's atoms in ascending atom order) draws (sweep, cell, 2s): its
// displacement (words 1-3) and its place in the order (word 0: ascending keys, ties by slot);
// (sweep, cell, 2s + 1) is the uniform number of its Metropolis test. Because no atom is tried
// twice in one visit, a kernel can evaluate all the trials of a cell at once against the cell's
// starting configuration and correct each for the moves accepted before it exactly (see the
// Kokkos engine).
struct CellTrial {
  uint64_t key;
  double disp[3];
};

GPUMC_INLINE CellTrial cell_trial(const CounterRNG &rng, uint64_t sweep, int cell, int slot, double dmax)
{
  const auto r = rng.bits(sweep, (uint64_t) cell, 2 * (uint64_t) slot);
  CellTrial t;
  t.key = r[0];
  for (int d = 0; d < 3; d++) t.disp[d] = dmax * (2.0 * uniform01(r[d + 1]) - 1.0);
  return t;
}

// Trial of slot a comes before trial of slot b.
GPUMC_INLINE bool cell_trial_before(uint64_t key_a, int a, uint64_t key_b, int b)
{
  return key_a < key_b || (key_a == key_b && a < b);
}

// The uniform number that tests the trial of slot `slot` (kernels draw them ahead of the moves).
GPUMC_INLINE double cell_acceptance_uniform(const CounterRNG &rng, uint64_t sweep, int cell, int slot)
{
  return uniform01(rng.bits(sweep, (uint64_t) cell, 2 * (uint64_t) slot + 1)[0]);
}

}    // namespace gpumc
