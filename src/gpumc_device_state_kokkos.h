// Device state of the Kokkos engine (gpumc_system_kokkos.h): indices of its small arrays of
// scalars and counters, the cell grid and its windows, and the handles to every device array the
// kernels read and write (views are reference-counted handles, copied into each kernel).
#pragma once

#include "gpumc_checkerboard.h"
#include "gpumc_moves.h"
#include "gpumc_pair_potential.h"
#include "gpumc_rng.h"
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

namespace gpumc {

// Indices into the engine's small device array of doubles.
enum DeviceScalar : int {
  DS_LO = 0,              // box lo (3)
  DS_LEN = 3,             // box side lengths (3)
  DS_ENERGY = 6,          // running energy (pair + tail)
  DS_TRIAL_LO = 7,        // volume trial: box (3 + 3)
  DS_TRIAL_LEN = 10,
  DS_TRIAL_ENERGY = 13,   // volume trial: energy
  DS_TRIAL_U = 14,        // volume trial: uniform number of its test
  DS_COUNT = 15
};

// Indices into the engine's small device array of counters.
enum DeviceCounter : int {
  DC_TRANS_ACCEPTED = 0,
  DC_VOL_ACCEPTED = 1,
  DC_STOPPED = 2,          // 1 when the chain stopped before a move it could not carry out
  DC_STOP_MOVE = 3,        // translation or volume move (or checkerboard sweep) at which it stopped
  DC_STOP_KIND = 4,        // 0: translation, 1: volume, 2: checkerboard sweep
  DC_TRIAL_ACTIVE = 5,     // the current volume trial is inside the allowed region
  DC_TRIAL_ACCEPTED = 6,   // the current volume trial was accepted
  DC_CHECKER_TRIALS = 7,   // translation trials of checkerboard sweeps
  DC_COUNT = 8
};

namespace kk {

constexpr int REACH = 2;    // cells per cutoff

// v with n entries: its own allocation when it has that many already (contents left as they are),
// else a new one. Every invocation of the styles refills these arrays, and fresh device
// allocations cost more than the rest of the work per invocation.
template <class V>
void reuse_or_allocate(V &v, const char *label, size_t n)
{
  if (v.data() == nullptr || v.extent(0) != n) v = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
}

// v with room for at least n entries (contents left as they are): arrays whose length changes at
// every use (a rank's atoms and ghosts, sweep by sweep) grow with a margin instead of being
// allocated afresh each time.
template <class V>
void grow_to(V &v, const char *label, size_t n)
{
  if (v.data() == nullptr || v.extent(0) < n)
    v = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n + n / 8 + 64);
}

// Grid and slot layout of the cell list.
struct Grid {
  int n[3] = {1, 1, 1};    // cells per side
  int cap = 0;             // slots per cell
  double min_width = 0.0;  // narrowest cell that still covers the cutoff
};

// Cell coordinates of a position (clamped into the grid).
KOKKOS_INLINE_FUNCTION void cell_coords(const Grid &g, const double lo[3], const double len[3], const double p[3],
                                        int c[3])
{
  for (int d = 0; d < 3; d++) {
    const int k = (int) ((p[d] - lo[d]) * (g.n[d] / len[d]));
    c[d] = k < 0 ? 0 : (k >= g.n[d] ? g.n[d] - 1 : k);
  }
}

KOKKOS_INLINE_FUNCTION int cell_index(const Grid &g, const int c[3])
{
  return (c[2] * g.n[1] + c[1]) * g.n[0] + c[0];
}

// Cell t of a periodic row of n cells wrapped into 0..n-1, and its image w: t = cell + w n.
KOKKOS_INLINE_FUNCTION int wrap_cell(int t, int n, int &w)
{
  w = t >= 0 ? t / n : -((-t + n - 1) / n);
  return t - w * n;
}

// Cell and periodic shift of window offset k along one dimension (n cells, side len) from c0.
KOKKOS_INLINE_FUNCTION void window_cell(int n, double len, int c0, int k, int &cell, double &shift)
{
  int w;
  cell = wrap_cell(c0 - REACH + k, n, w);
  shift = w * len;
}

// Cell index and periodic shifts of cell w (x fastest) of a window nw[0] x nw[1] x nw[2] cells
// wide that starts REACH cells below c0.
KOKKOS_INLINE_FUNCTION int window_cell_flat(const Grid &g, const double len[3], const int c0[3], const int nw[3], int w,
                                            double shift[3])
{
  const int k[3] = {w % nw[0], (w / nw[0]) % nw[1], w / (nw[0] * nw[1])};
  int c[3];
  for (int d = 0; d < 3; d++) window_cell(g.n[d], len[d], c0[d], k[d], c[d], shift[d]);
  return (c[2] * g.n[1] + c[1]) * g.n[0] + c[0];
}

// Handles to everything the kernels read and write (views are reference-counted handles).
template <class DeviceType>
struct CellData {
  template <class T>
  using View = Kokkos::View<T, DeviceType>;
  Grid g;
  int nt1;                                 // ntypes + 1: pairs in a row of the coefficient table
  int nterms;                              // terms per pair: pair (i, j)'s from (i * nt1 + j) * nterms
  View<PairCoeff *> coeff;
  View<PairCoeffT<float> *> coeff_f;       // the same in float: pair terms of mixed precision
  View<double *> row_cutsq;                // largest cutoff^2 of each type's row

  // the coefficient table of a precision
  KOKKOS_INLINE_FUNCTION View<PairCoeffT<double> *> coeff_view(double) const { return coeff; }
  KOKKOS_INLINE_FUNCTION View<PairCoeffT<float> *> coeff_view(float) const { return coeff_f; }
  View<double *> scalar;                   // DeviceScalar
  View<long *> counter;                    // DeviceCounter
  View<int *> type, cell_of, slot_of;      // per atom
  View<int *[3]> image;
  View<int *> count;                       // per cell
  // The whole-system energy's copy of the positions and types (PairEnergyFunctor): the cells of
  // each grid row in order, the row padded with the periodic images of REACH cells at either end
  // (shifted by a box length), so that the cells of a row within any cell's window are one range
  // of the copy. pad_start: the first entry of each padded cell, and one past the last.
  View<double *> ox, oy, oz;
  View<int *> otype;
  View<int *> pad_start;
  View<double *> sx, sy, sz;               // per slot
  View<int *> sid, stype;

  KOKKOS_INLINE_FUNCTION void box(int lo_at, int len_at, double lo[3], double len[3]) const
  {
    for (int d = 0; d < 3; d++) {
      lo[d] = scalar(lo_at + d);
      len[d] = scalar(len_at + d);
    }
  }
  // padded cells per grid row in the energy's copy
  KOKKOS_INLINE_FUNCTION int row_padded() const { return g.n[0] + 2 * REACH; }
  // the cell that padded cell p holds, and its image along x (in box lengths)
  KOKKOS_INLINE_FUNCTION int padded_cell(int p, int &image) const
  {
    return (p / row_padded()) * g.n[0] + wrap_cell(p % row_padded() - REACH, g.n[0], image);
  }
  // the padded cell that holds a cell itself (image 0)
  KOKKOS_INLINE_FUNCTION int padded_of(int cell) const
  {
    return (cell / g.n[0]) * row_padded() + cell % g.n[0] + REACH;
  }
  // Coordinate d of a position scaled with the box into the volume trial's box (the host engine's
  // arithmetic); rounding at the upper face stays inside, so the atom keeps its cell and slot.
  KOKKOS_INLINE_FUNCTION double trial_scaled(int d, double x) const
  {
    const double lo = scalar(DS_LO + d), len = scalar(DS_LEN + d);
    const double nlo = scalar(DS_TRIAL_LO + d), nlen = scalar(DS_TRIAL_LEN + d);
    const double v = nlo + (x - lo) * (nlen / len);
    return v < nlo + nlen ? v : nlo + nlen * (1.0 - 1e-16);
  }
};

// The evaluated moves of a batch, each against the configuration at the start of the batch.
constexpr int CHAIN_BATCH_MAX = 128;                   // moves per batch: the deciding team's scratch
constexpr int CHAIN_WORDS = CHAIN_BATCH_MAX / 32;    // 32-bit words of a set of moves of a batch
constexpr int EWALD_BATCH_MAX = 64;                  // with an Ewald sum: the Gram matrix's tiles
template <class DeviceType>
struct BatchData {
  Kokkos::View<int *[4], DeviceType> index;            // atom, type, slot, cell of the new position
  Kokkos::View<double *[6], DeviceType> positions;    // old (0-2) and new (3-5)
  Kokkos::View<int *[3], DeviceType> shift;
  Kokkos::View<double *[3], DeviceType> du_u;          // energy change, uniform number of the test, its log
  // per pair of moves a < m: move a's correction to move m's energy change, at m * B + a (the
  // corrections to one move are contiguous); without an Ewald sum (with one: EwaldData's
  // pair_correction)
  Kokkos::View<double *, DeviceType> corr;
  // per move m, sets of earlier moves (bit a % 32 of word a / 32): words 0.. those whose
  // correction to m may be nonzero ("links", moves of m's atom included), words CHAIN_WORDS.. the
  // moves of m's atom; without an Ewald sum
  Kokkos::View<unsigned *[2 * CHAIN_WORDS], DeviceType> links;
  // the move after the last one decided (batches that start where the last one ended)
  Kokkos::View<long, DeviceType> next;
  BatchData() = default;
  explicit BatchData(int batch)
      : index("gpumc:batch_index", batch), positions("gpumc:batch_pos", batch), shift("gpumc:batch_shift", batch),
        du_u("gpumc:batch_du", batch), corr("gpumc:batch_corr", (size_t) batch * batch),
        links("gpumc:batch_links", batch), next("gpumc:batch_next")
  {
  }
  KOKKOS_INLINE_FUNCTION int size() const { return (int) index.extent(0); }
  KOKKOS_INLINE_FUNCTION double &correction(int a, int m) const { return corr((size_t) m * size() + a); }
  // A batch's first move and number of moves: as launched (end < 0), or from `next` up to the
  // chain's end (with an Ewald sum a batch ends before a move that must be evaluated again, and
  // the next batch starts with it).
  KOKKOS_INLINE_FUNCTION void span(uint64_t launched_first, int launched_count, int64_t end, uint64_t &first,
                                   int &count) const
  {
    if (end < 0) {
      first = launched_first;
      count = launched_count;
      return;
    }
    first = (uint64_t) next();
    const int64_t left = end - (int64_t) first;
    count = left < (int64_t) size() ? (int) (left > 0 ? left : 0) : size();
  }
};

// The device's Ewald state: the wave vectors of the current box, their weights, S, the charge of
// each type, and for the chain's batches the parts of their sums over the wave vectors and the
// accepted moves whose changes of S are still to be applied.
//
// Batches alternate between two buffers of phase tables and accepted moves: the one-pass kernel of
// a batch (kk::EwaldBatchFunctor) adds the previous batch's accepted moves to S over its team's
// wave vectors before it stages any, while its own batch's tables are in the other buffer. The
// moves of the chain's last batch are added at its end (kk::EwaldApplyFunctor), so S is current
// between runs of the chain.
template <class DeviceType>
struct EwaldData {
  template <class T>
  using View = Kokkos::View<T, DeviceType>;
  int nk = 0;    // 0: no Ewald sum
  double qqrd2e = 0.0;
  View<int *[3]> m;
  View<double *> ug;
  View<double *[2]> s;
  View<double *> charge;
  // parts over the teams of kk::EwaldBatchFunctor (teams x moves, teams x pairs): per move of a
  // chain batch its change of E_recip / qqrd2e, per pair of moves a < m (p = m (m - 1) / 2 + a)
  // sum ug 2 Re(conj delta_a delta_m), delta a move's change of S
  Kokkos::View<double **, Kokkos::LayoutRight, DeviceType> part_own, part_pair;
  // per move of a chain batch, exp(2 pi i m s_d) of its old and new positions along each dimension
  // for m = -kmax..kmax: at ((position * 3 + d) (2 kmax + 1) + m + kmax, column, re / im), move k
  // of buffer u in column batch_column(k) = u * batch + k
  // (phase_by_move: the same at (column, row, re / im), for reads along the wave vectors; in both,
  // re and im adjacent and 16-byte aligned: kk::load_phase reads them as one)
  int kmax = 0;
  Kokkos::View<double ***, Kokkos::LayoutRight, DeviceType> phase, phase_by_move;
  // per pair of moves a < m at p: move a's whole correction to move m's energy change (pair terms
  // and coupling through S), for the deciding team to copy at once
  View<double *> pair_correction;
  // per buffer and move: the charge of a move accepted and written to the cell list, else 0
  Kokkos::View<double **, Kokkos::LayoutRight, DeviceType> applied;
  // 1 + the buffer whose accepted moves are yet to be added to S, 0 if none (set by the deciding
  // kernel, kk::ChainCommitFunctor)
  View<int> pending;
  int buffer = 0;    // the buffer of the batch being launched

  // the phase tables' column of move k of buffer u, and of the batch being launched
  KOKKOS_INLINE_FUNCTION int column(int u, int k) const { return u * (int) applied.extent(1) + k; }
  KOKKOS_INLINE_FUNCTION int batch_column(int k) const { return column(buffer, k); }
};

// Atoms of the checkerboard cells: cell_count per cell, cell_atom(cell * cap + s) its atoms in
// ascending order, and per cell the sums of one sweep.
template <class DeviceType>
struct CheckerData {
  template <class T>
  using View = Kokkos::View<T, DeviceType>;
  CheckerGrid g;
  int cap = 0;
  View<double *[3]> x;                     // positions in atom order: the truth during a sweep
  View<int *> mobile;                      // per atom: 1 if in the group
  View<int *> cell_of, count, atom;
  View<int *> unsorted;                    // cell slots in the order atomics filled them
  View<int *> type;                        // per atom
  // per cell slot: the atom's position in its cell's frame (checker_cell) and its type, kept
  // with the positions, so that a kernel stages a neighbourhood without recomputing them
  View<double *> sux, suy, suz;
  View<short *> stype;
  View<double *> du;                       // per cell: sum of accepted dU
  View<long *> accepted, trials;           // per cell
  // the colour being swept, per active cell a (CheckerTrialFunctor): by slot s (at a * cap + s) each
  // trial's energy change and state, and per pair of slots the correction; by place b in the
  // cell's decision order (at a * cap + b) the trial's slot, Metropolis uniform (u, log u) and
  // displacement (at 3 (a * cap + b) + k)
  int corr_cap = 0;                        // pair entries of a full cell: cap (cap - 1) / 2
  View<double *> trial_du, trial_corr, trial_u, trial_log_u, trial_disp;
  View<int *> trial_state, trial_slot;
  // the engine's counters: a sweep whose cells outgrew their room stops the sweeps after it
  // (CheckerGuardFunctor). The fill of a stopped sweep does nothing, so its cells are empty and
  // the kernels after it find no atoms to sort, try or decide.
  View<long *> counter;
  KOKKOS_INLINE_FUNCTION bool stopped() const { return counter(DC_STOPPED) != 0; }

  // Sweeps over a spatial decomposition (gpumc_domain_kokkos.cpp): g is then this rank's block of
  // the global grid (block) with the layer of ghost cells around it, block.count[d] + 2 cells per
  // side from the layer's lower corner, which no kernel wraps: only the block's cells are active
  // (block.moving[d] along each side from block.lowest[d]), and all their neighbours are stored.
  // Trials are keyed by the global cell. Positions are LAMMPS's (owned atoms and ghosts, nall of
  // them), and order_key gives each atom's place in its cell (owned atoms by ID, then ghosts by ID).
  bool domain = false;
  DomainBlock block;
  View<int64_t *> order_key;
  // per cell slot (block.images): the owned atom whose periodic image the slot's atom is, or -1, and
  // the image's shift (DomainCellsFunctor's TagFindImages)
  View<int *> image_owner, image_shift;

  // The a-th active cell of a colour: its stored coordinates c and index (returned; -1 past the
  // colour's last cell, which on a rank's block depends on the colour), and the global cell that
  // keys its trials.
  KOKKOS_INLINE_FUNCTION int active_cell(int colour, int a, int c[3], int &key) const
  {
    if (!domain) return key = checker_active_cell(g, colour, a, c);
    int global[3], rest = a;
    for (int k = 0; k < 3; k++) {
      // the first tried cell of the colour's parity along k (0: the block's first), and how many
      const int low = block.lowest[k] - 1, start = low + ((((colour >> k) ^ block.first[k]) ^ low) & 1);
      const int m = (low + block.moving[k] - start + 1) / 2;
      if (m <= 0) return -1;
      const int l = start + 2 * (rest % m);
      rest /= m;
      c[k] = l + 1;
      global[k] = block.first[k] + l;
    }
    if (rest > 0) return -1;
    key = (global[2] * block.grid.n[1] + global[1]) * block.grid.n[0] + global[0];
    return (c[2] * g.n[1] + c[1]) * g.n[0] + c[0];
  }
  // the most active cells of any colour
  int active_cells_max() const
  {
    if (!domain) return checker_active_count(g);
    return ((block.moving[0] + 1) / 2) * ((block.moving[1] + 1) / 2) * ((block.moving[2] + 1) / 2);
  }
  KOKKOS_INLINE_FUNCTION void cell_coords(int cell, int c[3]) const
  {
    c[0] = cell % g.n[0];
    c[1] = (cell / g.n[0]) % g.n[1];
    c[2] = cell / (g.n[0] * g.n[1]);
  }
  // a stored cell of the block itself, not of the layer
  KOKKOS_INLINE_FUNCTION bool in_block(int cell) const
  {
    int c[3];
    cell_coords(cell, c);
    return c[0] >= 1 && c[0] <= block.count[0] && c[1] >= 1 && c[1] <= block.count[1] && c[2] >= 1 &&
        c[2] <= block.count[2];
  }
  // Position p in the frame of stored cell `cell` (domain: whatever side of a wall round-off put
  // it, the cell it was assigned).
  KOKKOS_INLINE_FUNCTION void domain_frame(int cell, const double p[3], double u[3]) const
  {
    int c[3];
    cell_coords(cell, c);
    for (int k = 0; k < 3; k++) u[k] = p[k] - (g.origin[k] + c[k] * g.w[k]);
  }
};

// A sweep's fullest cell and the most atoms within reach of one cell (its 27-cell window).
struct CheckerSizes {
  int fullest, window;
};

// A sweep's per-cell sums, reduced over cells (a fixed-order tree for a given launch, so that a
// chain is reproducible on a device), then added to the running energy and the counters.
struct CheckerSums {
  double du;
  long accepted, trials;
};

}    // namespace kk
}    // namespace gpumc
