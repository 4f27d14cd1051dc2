// Kokkos Monte Carlo engine of the /kk styles: the counterpart of gpumc_host_engine.h for any
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
// Translations run as one strictly sequential Metropolis chain, evaluated in batches: a kernel
// evaluates a batch's moves in parallel (a team per move, summing over the cells around the old
// and new positions), and one team then decides them, each with its energy change corrected for
// the moves of the batch accepted before it (see ChainCommitFunctor). Volume moves are
// proposed, evaluated and accepted by device kernels. A move that cannot be carried out with the
// current cell list (a full cell, or cells that a compression made narrower than allowed) stops
// the chain before that move; the host rebuilds the cell list and resumes at the same move, so
// the chain is unchanged.
//
// Kernels are functors, as in LAMMPS's KOKKOS package: nvcc's host-side wrappers of device
// lambdas defined in class templates crash on the host (a call through a null pointer).
#pragma once

#include "gpumc_checkerboard.h"
#include "gpumc_moves.h"
#include "gpumc_pair_potential.h"
#include "gpumc_rng.h"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <stdexcept>
#include <vector>

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
// rounds of candidates a thread tests before listing them: independent work to hide latency
constexpr int CANDIDATE_ROUNDS = 4;

// v with n entries: its own allocation when it has that many already (contents left as they are),
// else a new one. Every invocation of the styles refills these arrays, and fresh device
// allocations cost more than the rest of the work per invocation.
template <class V>
void reuse_or_allocate(V &v, const char *label, size_t n)
{
  if (v.data() == nullptr || v.extent(0) != n) v = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
}

// A team's scratch memory viewed as an array of T (the kernels' on-chip or level-1 arrays).
template <class ExecSpace, class T>
using ScratchView = Kokkos::View<T *, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

// Arrays carved one after another out of a block of team scratch (16-byte aligned, as is each
// array, for vector loads). bytes<T>(n) is what take<T>(n) uses.
struct ScratchCarver {
  static constexpr int ALIGN = 16;
  char *next;
  template <class T>
  KOKKOS_INLINE_FUNCTION static size_t bytes(size_t n)
  {
    return (n * sizeof(T) + ALIGN - 1) / ALIGN * ALIGN;
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION T *take(size_t n)
  {
    T *p = reinterpret_cast<T *>(next);
    next += bytes<T>(n);
    return p;
  }
};

// On a CUDA device, p (an address in the block's shared memory) as a pointer the compiler knows to
// be shared: 32-bit shared-memory loads and stores instead of generic ones, which need 64-bit
// address arithmetic (Kokkos's team scratch pointers are generic). Elsewhere p itself.
template <class T>
KOKKOS_INLINE_FUNCTION T *as_shared(T *p)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  extern __shared__ double gpumc_dynamic_shared[];
  char *base = reinterpret_cast<char *>(gpumc_dynamic_shared);
  return reinterpret_cast<T *>(base + (__cvta_generic_to_shared(p) - __cvta_generic_to_shared(base)));
#else
  return p;
#endif
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
  int nt1;                                 // ntypes + 1: row length of the coefficient table
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

template <class DeviceType>
struct WrapFunctor {
  Kokkos::View<double *[3], DeviceType> x;
  Kokkos::View<int *[3], DeviceType> image;
  double lo[3], len[3];
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const
  {
    double p[3] = {x(i, 0), x(i, 1), x(i, 2)};
    int s[3] = {0, 0, 0};
    wrap_position(p, lo, len, s);
    for (int d = 0; d < 3; d++) {
      x(i, d) = p[d];
      image(i, d) = s[d];
    }
  }
};

template <class DeviceType>
struct PositionsFunctor {
  CellData<DeviceType> c;
  Kokkos::View<double *[3], DeviceType> x;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const
  {
    const int k = c.cell_of(i) * c.g.cap + c.slot_of(i);
    x(i, 0) = c.sx(k);
    x(i, 1) = c.sy(k);
    x(i, 2) = c.sz(k);
  }
};

// Atoms per type (index 0..ntypes), an array reduction: a fixed order for a given launch.
template <class DeviceType>
struct TypeCountFunctor {
  using value_type = long[];
  using size_type = int;
  const unsigned value_count;
  Kokkos::View<int *, DeviceType> type;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, value_type count) const { count[type(i)] += 1; }
  KOKKOS_INLINE_FUNCTION void init(value_type count) const
  {
    for (unsigned k = 0; k < value_count; k++) count[k] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const
  {
    for (unsigned k = 0; k < value_count; k++) dst[k] += src[k];
  }
};

// Cell list construction: count (atomically), fullest cell, slots, then each cell sorted by ID.
template <class DeviceType>
struct CellBuildFunctor {
  struct TagCount {};
  struct TagFullest {};
  struct TagFill {};
  struct TagSort {};
  CellData<DeviceType> c;
  Kokkos::View<double *[3], DeviceType> x;
  double lo[3], len[3];
  KOKKOS_INLINE_FUNCTION void operator()(TagCount, const int i) const
  {
    const double p[3] = {x(i, 0), x(i, 1), x(i, 2)};
    int cc[3];
    cell_coords(c.g, lo, len, p, cc);
    c.cell_of(i) = cell_index(c.g, cc);
    c.slot_of(i) = Kokkos::atomic_fetch_add(&c.count(c.cell_of(i)), 1);
  }
  KOKKOS_INLINE_FUNCTION void operator()(TagFullest, const int cell, int &m) const
  {
    m = c.count(cell) > m ? c.count(cell) : m;
  }
  KOKKOS_INLINE_FUNCTION void operator()(TagFill, const int i) const
  {
    c.sid(c.cell_of(i) * c.g.cap + c.slot_of(i)) = i;
  }
  KOKKOS_INLINE_FUNCTION void operator()(TagSort, const int cell) const
  {
    const int base = cell * c.g.cap, n = c.count(cell);
    for (int a = 1; a < n; a++) {    // insertion sort of the cell's atoms by ID
      const int v = c.sid(base + a);
      int b = a - 1;
      while (b >= 0 && c.sid(base + b) > v) {
        c.sid(base + b + 1) = c.sid(base + b);
        b--;
      }
      c.sid(base + b + 1) = v;
    }
    for (int a = 0; a < n; a++) {
      const int i = c.sid(base + a);
      c.slot_of(i) = a;
      c.sx(base + a) = x(i, 0);
      c.sy(base + a) = x(i, 1);
      c.sz(base + a) = x(i, 2);
      c.stype(base + a) = c.type(i);
    }
  }
};

// Order-independent fingerprint of positions (in atom order) and types (a sum of per-atom hashes).
template <class DeviceType>
struct FingerprintFunctor {
  Kokkos::View<double *[3], DeviceType> x;
  Kokkos::View<int *, DeviceType> type;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, uint64_t &acc) const
  {
    const double v[3] = {x(i, 0), x(i, 1), x(i, 2)};
    uint64_t m = 0x9e3779b97f4a7c15ULL * (uint64_t) (i + 1) ^ (uint64_t) type(i);
    for (int d = 0; d < 3; d++) {
      uint64_t bits;
      memcpy(&bits, &v[d], sizeof(bits));
      m ^= bits + 0x9e3779b97f4a7c15ULL + (m << 6) + (m >> 2);
      m *= 0xff51afd7ed558ccdULL;
      m ^= m >> 33;
    }
    acc += m;
  }
};

// First entries of the padded cells in the energy's copy of the positions (see CellData): a scan
// of their counts over padded cells 0..npadded, the last entry the copy's length.
template <class DeviceType>
struct RowPaddingFunctor {
  CellData<DeviceType> c;
  int npadded;
  KOKKOS_INLINE_FUNCTION void operator()(const int p, int &part, const bool final) const
  {
    if (final) c.pad_start(p) = part;
    int image;
    if (p < npadded) part += c.count(c.padded_cell(p, image));
  }
};

// ---- groups of threads that share one energy: a CUDA warp (32 lanes), elsewhere one thread ----

// Bits of the group's lanes whose `hit` is set, lane 0 lowest (one thread: bit 0).
KOKKOS_INLINE_FUNCTION unsigned group_ballot(bool hit, int group)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (group == 32) return __ballot_sync(0xffffffffu, hit);
#endif
  (void) group;
  return hit ? 1u : 0u;
}

// Index of the lowest set bit of a nonzero mask.
KOKKOS_INLINE_FUNCTION int lowest_bit(unsigned mask)
{
#ifdef __CUDA_ARCH__
  return __ffs(mask) - 1;
#else
  return __builtin_ctz(mask);
#endif
}

// Number of set bits of a mask.
KOKKOS_INLINE_FUNCTION int bit_count(unsigned mask)
{
#ifdef __CUDA_ARCH__
  return __popc(mask);
#else
  return __builtin_popcount(mask);
#endif
}

// Appends the lanes' candidates (hit) to their group's list: returns the slot that a lane with a
// hit takes after the entries already listed (the hits of the lanes below it), and sets `added`
// to the group's hits this round. Lanes append in lane order, so the list and every sum over it
// are the same in every run. (A lane without a hit writes nothing: a predicated store, no branch.)
KOKKOS_INLINE_FUNCTION int group_append(bool hit, int group, int lane, int &added)
{
  const unsigned mask = group_ballot(hit, group);
  added = bit_count(mask);
  return bit_count(mask & ((1u << lane) - 1u));
}

// The group's lanes have written (or may overwrite) their list.
KOKKOS_INLINE_FUNCTION void group_sync(int group)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (group == 32) __syncwarp();
#endif
  (void) group;
}

// Lane src's value on every lane of the group.
template <class T>
KOKKOS_INLINE_FUNCTION T group_broadcast(T v, int src, int group)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (group == 32) return __shfl_sync(0xffffffffu, v, src);
#endif
  (void) src;
  (void) group;
  return v;
}

// Sum over the group's lanes, the same bits on every lane (a butterfly: partners add the same
// two numbers).
KOKKOS_INLINE_FUNCTION double group_sum(double v, int group)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (group == 32)
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
#endif
  (void) group;
  return v;
}

// Inclusive prefix sum of v over the group's lanes (one thread: v).
KOKKOS_INLINE_FUNCTION int group_inclusive_scan(int v, int group, int lane)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (group == 32)
    for (int d = 1; d < 32; d <<= 1) {
      const int o = __shfl_up_sync(0xffffffffu, v, d);
      if (lane >= d) v += o;
    }
#endif
  (void) group;
  (void) lane;
  return v;
}

// Pair energy of the whole system, of the current positions or of a volume trial's (then skipped
// unless the trial is active). Each pair is summed once: an atom takes the atoms after it in its
// own cell and those of the forward half of its window (flat window indices above the centre's),
// since a pair at window offset o from one atom's cell is at -o from the other's (cells are at
// least half a cutoff wide, so the nearest image of a pair within the cutoff is at one offset).
//
// That half window is the own cell, the two cells after it in its grid row and 12 whole rows of 5
// cells (flat window indices 63..124: rows 13..24 of the 25), the same for every atom of a cell.
// The kernel reads a copy of the positions (TagGather fills it) that holds every grid row padded
// with the periodic images of REACH cells at either end (CellData), so a row's 5 cells are one
// range of it, whatever the wrap along x; rows that wrap along y or z are shifted as a whole.
// A group of threads (a CUDA warp, elsewhere one thread) takes a cell: it lists the cell's half
// window once, as a table of 14 ranges (the 13 rows and the own cell), and its lanes take one
// candidate each, which they test against every atom of the cell (staged in scratch), so that a
// candidate is loaded once per cell rather than once per atom. Pairs within the cutoff go to the
// group's list and are evaluated `group` at a time, every lane busy. In small systems a cell's
// candidates are split into parts, so that a GPU has enough groups to hide latency.
template <class DeviceType>
struct PairEnergyFunctor {
  static constexpr int W = 2 * REACH + 1, ROWS = 13;
  // parts per cell: enough groups for a GPU; GPUMC_ENERGY_PARTS (a test hook) sets them
  static int parts_for(int ncells)
  {
    const char *env = std::getenv("GPUMC_ENERGY_PARTS");
    if (env) return std::min(std::max(1, std::atoi(env)), ROWS);
    return std::min(std::max(1, 2048 / std::max(ncells, 1)), ROWS);
  }
  struct TagGather {};
  struct TagCells {};
  using TeamMember = typename Kokkos::TeamPolicy<typename DeviceType::execution_space>::member_type;
  using ScratchD = ScratchView<typename DeviceType::execution_space, double>;
  using ScratchI = ScratchView<typename DeviceType::execution_space, int>;

  CellData<DeviceType> c;
  bool trial;
  int parts;
  int nitems;    // cells times parts

  // The energy's copy of the positions, thread t for slot t % cap of padded cell t / cap: the
  // current positions, or the volume trial's (scaled with the box, the positions that
  // VolumeFunctor commits if the trial is accepted).
  KOKKOS_INLINE_FUNCTION void operator()(TagGather, const int t) const
  {
    if (trial && !c.counter(DC_TRIAL_ACTIVE)) return;
    const int p = t / c.g.cap, s = t % c.g.cap;
    int image;
    const int cell = c.padded_cell(p, image);
    if (s >= c.count(cell)) return;
    const int k = cell * c.g.cap + s, e = c.pad_start(p) + s;
    const double shift = image * c.scalar(trial ? DS_TRIAL_LEN : DS_LEN);
    c.ox(e) = (trial ? c.trial_scaled(0, c.sx(k)) : c.sx(k)) + shift;
    c.oy(e) = trial ? c.trial_scaled(1, c.sy(k)) : c.sy(k);
    c.oz(e) = trial ? c.trial_scaled(2, c.sz(k)) : c.sz(k);
    c.otype(e) = c.stype(k);
  }

  static constexpr int SLOTS = ROWS + 1;    // the rows' ranges and the own cell's
  static constexpr int IBATCH = 32;         // atoms of the cell staged at a time
  // threads per cell: a warp on CUDA, one thread elsewhere (known at compile time, so that the
  // group operations in the candidate loop are single instructions)
  static constexpr int GROUP =
#ifdef KOKKOS_ENABLE_CUDA
      std::is_same<typename DeviceType::execution_space, Kokkos::Cuda>::value ? 32 :
#endif
                                                                                1;
  static constexpr int TEAM = GROUP == 32 ? 128 : 1;    // 4 cells per team on CUDA
  double filter_cutsq = 0.0;    // the largest cutoff^2 of any pair (pair_energy applies each pair's)
  static size_t scratch_bytes()
  {
    constexpr int ngroups = TEAM / GROUP;
    return ScratchI::shmem_size(2 * ngroups * SLOTS) + ScratchD::shmem_size(2 * ngroups * SLOTS) +
           ScratchD::shmem_size(3 * ngroups * IBATCH) + ScratchI::shmem_size(ngroups * IBATCH) +
           ScratchD::shmem_size(2 * TEAM) + ScratchI::shmem_size(2 * TEAM);
  }
  KOKKOS_INLINE_FUNCTION void operator()(TagCells, const TeamMember &tm, double &acc) const
  {
    if (trial && !c.counter(DC_TRIAL_ACTIVE)) return;
    constexpr int group = GROUP, ngroups = TEAM / GROUP;
    const int my = tm.team_rank() / group, lane = tm.team_rank() % group;
    const auto &mem = tm.team_scratch(0);
    ScratchI slot_base(mem, ngroups * SLOTS), slot_end(mem, ngroups * SLOTS);
    ScratchD slot_shift(mem, 2 * ngroups * SLOTS), staged(mem, 3 * ngroups * IBATCH);
    ScratchI staged_row(mem, ngroups * IBATCH);
    ScratchD list_rsq(mem, 2 * TEAM);
    ScratchI list_pc(mem, 2 * TEAM);
    const int item = tm.league_rank() * ngroups + my;
    if (item >= nitems) return;    // the whole group
    const int cell = item / parts, part = item % parts;
    int *base = slot_base.data() + my * SLOTS, *end = slot_end.data() + my * SLOTS;
    double *shift = slot_shift.data() + 2 * my * SLOTS, *ip = staged.data() + 3 * my * IBATCH;
    int *irow = staged_row.data() + my * IBATCH;
    double *lrsq = list_rsq.data() + 2 * group * my;
    int *lpc = list_pc.data() + 2 * group * my;

    const int len_at = trial ? DS_TRIAL_LEN : DS_LEN;    // the box's sides: the rows' periodic shifts
    const int c0[3] = {cell % c.g.n[0], (cell / c.g.n[0]) % c.g.n[1], cell / (c.g.n[0] * c.g.n[1])};
    // The slot table: slot s holds candidates end[s-1]..end[s]-1 of the cell (in this order), at
    // copy positions base[s] + k, shifted by shift[2s], shift[2s+1] along y and z. Lane r lists
    // row r (0: the centre row, x offsets 1..2; 1..12: whole rows, x offsets -2..2); the own
    // cell's atoms (slot ROWS) follow the rows.
    const int own_begin = c.pad_start(c.padded_of(cell)), ni = c.count(cell);
    int total = 0;
    for (int r0 = 0; r0 <= ROWS; r0 += group) {
      const int r = r0 + lane;
      int row_len = 0, b = 0;
      double sy = 0.0, sz = 0.0;
      if (r < ROWS) {
        int cy, cz;
        window_cell(c.g.n[1], c.scalar(len_at + 1), c0[1], (12 + r) % W, cy, sy);
        window_cell(c.g.n[2], c.scalar(len_at + 2), c0[2], (12 + r) / W, cz, sz);
        const int row_cell = (cz * c.g.n[1] + cy) * c.row_padded() + c0[0] + REACH;    // x offset 0
        b = c.pad_start(row_cell + (r == 0 ? 1 : -REACH));
        row_len = c.pad_start(row_cell + REACH + 1) - b;
      } else if (r == ROWS) {
        b = own_begin;
        row_len = ni;
      }
      const int upto = group_inclusive_scan(row_len, group, lane);
      if (r <= ROWS) {
        base[r] = b - (total + upto - row_len);    // candidate k of the slot is at base[r] + k
        end[r] = total + upto;
        shift[2 * r] = sy;
        shift[2 * r + 1] = sz;
      }
      total += group_broadcast(upto, group - 1, group);
    }

    double e = 0.0;
    int count = 0;    // entries in the group's list (the same on every lane)
    for (int i0 = 0; i0 < ni; i0 += IBATCH) {
      const int nb = ni - i0 < IBATCH ? ni - i0 : IBATCH;
      group_sync(group);
      for (int b = lane; b < nb; b += group) {
        const int i = own_begin + i0 + b;
        ip[3 * b] = c.ox(i);
        ip[3 * b + 1] = c.oy(i);
        ip[3 * b + 2] = c.oz(i);
        irow[b] = c.otype(i) * c.nt1;
      }
      group_sync(group);
      int s = 0;
      for (int k0 = part * group; k0 < total; k0 += parts * group) {
        const int k = k0 + lane;
        // a lane past the end tests a point far outside the box (no hits)
        double q[3] = {1e100, 1e100, 1e100};
        int jtype = 0, below = nb;    // the staged atoms b < below pair with this candidate
        if (k < total) {
          while (end[s] <= k) s++;
          const int j = base[s] + k;
          q[0] = c.ox(j);
          q[1] = c.oy(j) + shift[2 * s];
          q[2] = c.oz(j) + shift[2 * s + 1];
          jtype = c.otype(j);
          if (s == ROWS) below = j - own_begin - i0;    // own cell: pairs i < j only
        }
        for (int b = 0; b < nb; b++) {
          const double dx = ip[3 * b] - q[0], dy = ip[3 * b + 1] - q[1], dz = ip[3 * b + 2] - q[2];
          const double rsq = dx * dx + dy * dy + dz * dz;
          const bool hit = rsq < filter_cutsq && b < below;
          int added;
          const int at = group_append(hit, group, lane, added);
          if (hit) {
            lrsq[count + at] = rsq;
            lpc[count + at] = irow[b] + jtype;
          }
          count += added;
          if (count >= group) {
            group_sync(group);
            e += pair_energy(c.coeff(lpc[lane]), lrsq[lane]);
            group_sync(group);
            if (lane < count - group) {
              lrsq[lane] = lrsq[group + lane];
              lpc[lane] = lpc[group + lane];
            }
            group_sync(group);
            count -= group;
          }
        }
      }
    }
    group_sync(group);
    if (lane < count) e += pair_energy(c.coeff(lpc[lane]), lrsq[lane]);
    acc += e;
  }
};

// ---- the sequential translation chain, evaluated speculatively in batches ----
//
// Moves first.. of the chain run in batches of B. A first kernel evaluates every move of a batch
// at once (a team per move) against the configuration at the start of the batch; a second works
// out, for each pair of moves a < m of the batch, the correction that move a, if accepted, makes to
// move m's energy change: the pair terms between the two atoms' old and new positions (four terms,
// zero beyond the cutoff), or NaN when they move the same atom; a third, one team, then decides.
// A move's energy change differs from its evaluation only through the moves of the batch accepted
// before it: a move that no earlier one may change is decided as evaluated, any other with the
// corrections of the earlier accepted ones added (once those are decided), and a move whose atom
// moved earlier in the batch (NaN) is evaluated again from the current configuration. Every
// decision is therefore the strictly sequential chain's, made with energy changes equal to it up
// to round-off in the order of the sums (as between host and device anyway), and the chain does
// not depend on B.

// A trial translation of the chain: the atom, its old and new position (wrapped into the box) and
// the periodic images the move crosses.
struct ChainTrial {
  int atom, type;
  int slot;    // the atom's slot in the cell list when drawn
  double p_old[3], p_new[3];
  int shift[3];
};

// Trial `move` of the chain drawn against the positions held in the cell list.
template <class DeviceType>
KOKKOS_INLINE_FUNCTION ChainTrial chain_trial(const CellData<DeviceType> &c, const Kokkos::View<int *, DeviceType> &mobile,
                                              const CounterRNG &rng, uint64_t move, uint64_t nmobile, double dmax,
                                              const double lo[3], const double len[3])
{
  const Translation t = propose_translation(rng, move, nmobile, dmax);
  ChainTrial tr;
  tr.atom = mobile(t.pick);
  tr.type = c.type(tr.atom);
  const int k = tr.slot = c.cell_of(tr.atom) * c.g.cap + c.slot_of(tr.atom);
  tr.p_old[0] = c.sx(k);
  tr.p_old[1] = c.sy(k);
  tr.p_old[2] = c.sz(k);
  for (int d = 0; d < 3; d++) {
    tr.p_new[d] = tr.p_old[d] + t.disp[d];
    tr.shift[d] = 0;
  }
  wrap_position(tr.p_new, lo, len, tr.shift);
  return tr;
}

// Energy change of a trial translation, summed by a team over the cells around the old and new
// positions: one pass over the union of their windows when the two cells are adjacent, else the
// new window and then the old one. Threads share the window's cells, several per cell when the
// team outnumbers them (each thread's loop over atoms is then shorter). Every thread of the team
// gets the sum.
template <class DeviceType, class Member>
KOKKOS_INLINE_FUNCTION double team_energy_change(const Member &team, const CellData<DeviceType> &c,
                                                 const double lo[3], const double len[3], const ChainTrial &tr)
{
  const Grid &g = c.g;
  int c_old[3], c_new[3], c_lo[3], span[3];
  cell_coords(g, lo, len, tr.p_old, c_old);
  cell_coords(g, lo, len, tr.p_new, c_new);
  bool adjacent = true;
  for (int d = 0; d < 3; d++) {
    c_lo[d] = c_old[d] < c_new[d] ? c_old[d] : c_new[d];
    span[d] = c_old[d] < c_new[d] ? c_new[d] - c_old[d] : c_old[d] - c_new[d];
    adjacent = adjacent && span[d] <= 1;
  }
  const PairCoeff *row = c.coeff.data() + tr.type * c.nt1;
  const double cutsq = c.row_cutsq(tr.type);
  const int i = tr.atom;
  double dU = 0.0;
  for (int pass = 0; pass < (adjacent ? 1 : 2); pass++) {
    const int *c0 = adjacent ? c_lo : (pass == 0 ? c_new : c_old);
    const int zero[3] = {0, 0, 0};
    const int *sp = adjacent ? span : zero;
    const int nw[3] = {2 * REACH + 1 + sp[0], 2 * REACH + 1 + sp[1], 2 * REACH + 1 + sp[2]};
    const int ncells = nw[0] * nw[1] * nw[2];
    const int per_cell = team.team_size() > ncells ? team.team_size() / ncells : 1;
    const bool with_new = adjacent || pass == 0, with_old = adjacent || pass == 1;
    double part = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, ncells * per_cell),
        [&](const int item, double &acc) {
          double sh[3];
          const int cell = window_cell_flat(g, len, c0, nw, item / per_cell, sh);
          const int base = cell * g.cap;
          for (int s = item % per_cell; s < c.count(cell); s += per_cell) {
            const int k = base + s;
            if (c.sid(k) == i) continue;
            const double xj = c.sx(k) + sh[0], yj = c.sy(k) + sh[1], zj = c.sz(k) + sh[2];
            const PairCoeff &pc = row[c.stype(k)];
            if (with_new) {
              const double dx = tr.p_new[0] - xj, dy = tr.p_new[1] - yj, dz = tr.p_new[2] - zj;
              const double rsq = dx * dx + dy * dy + dz * dz;
              if (rsq < cutsq) acc += pair_energy(pc, rsq);
            }
            if (with_old) {
              const double dx = tr.p_old[0] - xj, dy = tr.p_old[1] - yj, dz = tr.p_old[2] - zj;
              const double rsq = dx * dx + dy * dy + dz * dz;
              if (rsq < cutsq) acc -= pair_energy(pc, rsq);
            }
          }
        },
        part);
    dU += part;
  }
  return dU;
}

// Squared distance of two positions in the periodic box (the nearest image: a side is at least
// twice the cutoff, so no other image is in range).
KOKKOS_INLINE_FUNCTION double nearest_rsq(const double p[3], const double q[3], const double len[3])
{
  double rsq = 0.0;
  for (int d = 0; d < 3; d++) {
    double dx = p[d] - q[d];
    if (dx > 0.5 * len[d]) dx -= len[d];
    else if (dx < -0.5 * len[d]) dx += len[d];
    rsq += dx * dx;
  }
  return rsq;
}

// The evaluated moves of a batch, each against the configuration at the start of the batch.
constexpr int CHAIN_BATCH_MAX = 128;                   // moves per batch: the deciding team's scratch
constexpr int CHAIN_WORDS = CHAIN_BATCH_MAX / 32;    // 32-bit words of a set of moves of a batch
template <class DeviceType>
struct BatchData {
  Kokkos::View<int *[4], DeviceType> index;            // atom, type, slot, cell of the new position
  Kokkos::View<double *[6], DeviceType> positions;    // old (0-2) and new (3-5)
  Kokkos::View<int *[3], DeviceType> shift;
  Kokkos::View<double *[3], DeviceType> du_u;          // energy change, uniform number of the test, its log
  // per pair of moves a < m: move a's correction to move m's energy change, at m * B + a (the
  // corrections to one move are contiguous)
  Kokkos::View<double *, DeviceType> corr;
  // per move m, sets of earlier moves (bit a % 32 of word a / 32): words 0.. those whose
  // correction to m may be nonzero ("links", moves of m's atom included), words CHAIN_WORDS.. the
  // moves of m's atom
  Kokkos::View<unsigned *[2 * CHAIN_WORDS], DeviceType> links;
  BatchData() = default;
  explicit BatchData(int batch)
      : index("gpumc:batch_index", batch), positions("gpumc:batch_pos", batch), shift("gpumc:batch_shift", batch),
        du_u("gpumc:batch_du", batch), corr("gpumc:batch_corr", (size_t) batch * batch),
        links("gpumc:batch_links", batch)
  {
  }
  KOKKOS_INLINE_FUNCTION int size() const { return (int) index.extent(0); }
  KOKKOS_INLINE_FUNCTION double &correction(int a, int m) const { return corr((size_t) m * size() + a); }
};

// Squared distances for move_correction (gpumc_pair_potential.h): the nearest image in a periodic
// box of sides len (the checkerboard's distances within one cell's frame are FrameRsq).
struct NearestImageRsq {
  const double *len;
  KOKKOS_INLINE_FUNCTION double operator()(const double p[3], const double q[3]) const { return nearest_rsq(p, q, len); }
};

// Evaluation of moves first..first+count-1, a team per move.
template <class DeviceType>
struct ChainEvaluateFunctor {
  using Member = typename Kokkos::TeamPolicy<typename DeviceType::execution_space>::member_type;
  CellData<DeviceType> c;
  Kokkos::View<int *, DeviceType> mobile;
  BatchData<DeviceType> b;
  CounterRNG rng{0, 0};
  double dmax;
  uint64_t first, nmobile;

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    if (c.counter(DC_STOPPED)) return;
    const int k = team.league_rank();
    double lo[3], len[3];
    c.box(DS_LO, DS_LEN, lo, len);
    const ChainTrial tr = chain_trial(c, mobile, rng, first + k, nmobile, dmax, lo, len);
    const double dU = team_energy_change(team, c, lo, len, tr);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      int cc[3];
      cell_coords(c.g, lo, len, tr.p_new, cc);
      b.index(k, 0) = tr.atom;
      b.index(k, 1) = tr.type;
      b.index(k, 2) = tr.slot;
      b.index(k, 3) = cell_index(c.g, cc);
      for (int d = 0; d < 3; d++) {
        b.positions(k, d) = tr.p_old[d];
        b.positions(k, 3 + d) = tr.p_new[d];
        b.shift(k, d) = tr.shift[d];
      }
      const double u = uniform01(rng.bits(first + k, 1)[0]);    // accept_translation's test number
      b.du_u(k, 0) = dU;
      b.du_u(k, 1) = u;
      b.du_u(k, 2) = log(u);
    });
  }
};

// The corrections of a batch, from the evaluated positions: a team per move m, a thread per
// earlier move a. A pair whose four positions are all beyond the largest cutoff of each other
// gets zero without a term evaluated and no link; a pair of moves of the same atom gets NaN (the
// later one is evaluated again if the earlier one is accepted) and a link of both kinds.
template <class DeviceType>
struct ChainCorrectionFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  enum : int { APART = 0, NEAR = 1, SAME_ATOM = 3 };    // per pair: bit 0 a link, bit 1 the same atom
  BatchData<DeviceType> b;
  Kokkos::View<double *, DeviceType> scalar;
  Kokkos::View<PairCoeff *, DeviceType> coeff;
  int nt1;
  double cutsq_max;

  static size_t scratch_bytes(int batch) { return ScratchView<ExecSpace, int>::shmem_size(batch); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    const int m = team.league_rank(), atom = b.index(m, 0), type = b.index(m, 1);
    const double len[3] = {scalar(DS_LEN), scalar(DS_LEN + 1), scalar(DS_LEN + 2)};
    const double pm[3] = {b.positions(m, 0), b.positions(m, 1), b.positions(m, 2)};
    const double qm[3] = {b.positions(m, 3), b.positions(m, 4), b.positions(m, 5)};
    ScratchView<ExecSpace, int> pair(team.team_scratch(0), m > 0 ? m : 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const int a) {
      double corr = 0.0;
      int kind = APART;
      if (b.index(a, 0) == atom) {
        corr = Kokkos::Experimental::quiet_NaN<double>::value;
        kind = SAME_ATOM;
      } else {
        const double pa[3] = {b.positions(a, 0), b.positions(a, 1), b.positions(a, 2)};
        const double qa[3] = {b.positions(a, 3), b.positions(a, 4), b.positions(a, 5)};
        if (nearest_rsq(pm, pa, len) < cutsq_max || nearest_rsq(pm, qa, len) < cutsq_max ||
            nearest_rsq(qm, pa, len) < cutsq_max || nearest_rsq(qm, qa, len) < cutsq_max) {
          corr = move_correction(coeff(type * nt1 + b.index(a, 1)), pa, qa, pm, qm, NearestImageRsq{len});
          kind = NEAR;
        }
      }
      b.correction(a, m) = corr;
      pair(a) = kind;
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, CHAIN_WORDS), [&](const int w) {
      unsigned linked = 0, same = 0;
      for (int a = 32 * w; a < m && a < 32 * (w + 1); a++) {
        linked |= (unsigned) (pair(a) & 1) << (a % 32);
        same |= (unsigned) (pair(a) >> 1) << (a % 32);
      }
      b.links(m, w) = linked;
      b.links(m, CHAIN_WORDS + w) = same;
    });
  }
};

// Decisions of moves first..first+count-1 in chain order (see above), by one team: a CUDA warp or
// one thread, holding the batch in scratch memory. A move's energy change is its evaluated one
// plus the corrections of the earlier moves linked to it (ChainCorrectionFunctor) that were
// accepted as evaluated, so it can be decided as soon as those are decided, not only in turn:
//  1. Rounds decide, in chunks of a lane per move in chain order, every undecided move whose
//     linked moves are decided. The first round decides every move without links (the usual case
//     in a large system) and the moves linked only to moves of earlier chunks; rounds repeat until
//     the lowest undecided move is one that may need evaluating again.
//  2. Such a move (an earlier move of the batch moves its atom, or its energy change is NaN) is
//     decided alone once every move before it is decided. A NaN (its atom moved) has it evaluated
//     again from the current configuration, after the accepted moves before it are written; if it
//     is then accepted, its corrections to the later moves come from its actual positions, and the
//     later moves decided so far are decided again.
//  3. The accepted moves are written to the cell list in chain order: between two moves that
//     change cells (which move another atom's slot: lane 0 alone) the lanes write the others at
//     once. A move into a full cell stops the chain before it (the host makes room and resumes).
// Every decision is the one of the strictly sequential chain: a move is decided with the energy
// change it has after every earlier move, whatever the order in which the moves are decided.
template <class DeviceType>
struct ChainCommitFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  template <class T>
  using Scratch = ScratchView<ExecSpace, T>;
  CellData<DeviceType> c;
  Kokkos::View<int *, DeviceType> mobile;
  BatchData<DeviceType> b;
  CounterRNG rng{0, 0};
  double beta, dmax;
  uint64_t first, nmobile;
  int count;

  // per move: not decided yet, rejected, accepted as evaluated, accepted after evaluating it again
  // (positions as then)
  enum : int { UNDECIDED = -1, REJECTED = 0, ACCEPTED = 1, ACCEPTED_AGAIN = 2 };

  static size_t scratch_bytes(int batch)
  {
    return Scratch<int>::shmem_size(4 * batch) + Scratch<int>::shmem_size(3 * batch) +
        2 * Scratch<int>::shmem_size(batch) + Scratch<unsigned>::shmem_size(CHAIN_WORDS * batch) +
        Scratch<unsigned>::shmem_size(2 * CHAIN_WORDS) + Scratch<double>::shmem_size(6 * batch) +
        5 * Scratch<double>::shmem_size(batch);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    if (c.counter(DC_STOPPED)) return;
    const Grid &g = c.g;
    const int lane = team.team_rank(), group = team.team_size();    // (group divides 32)
    const auto &mem = team.team_scratch(0);
    // the batch as evaluated (a move evaluated again: as then); the slot (index 2) follows the
    // atom when a move between cells makes it fill the slot that move's atom left
    Scratch<int> index(mem, 4 * count), sh(mem, 3 * count);
    Scratch<int> alone(mem, count), accepted(mem, count);    // alone: decided by itself (step 2)
    Scratch<unsigned> links(mem, CHAIN_WORDS * count);
    // sets of moves (as links): words 0.. decided, words CHAIN_WORDS.. accepted as evaluated
    Scratch<unsigned> sets(mem, 2 * CHAIN_WORDS);
    Scratch<double> pos(mem, 6 * count);
    // evaluated energy change (a move evaluated again: as then), decided energy change, extra
    // corrections (from moves evaluated again), uniform number of the test and its log
    Scratch<double> du(mem, count), decided(mem, count), extra(mem, count), u(mem, count), log_u(mem, count);
    double lo[3], len[3];
    c.box(DS_LO, DS_LEN, lo, len);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int k) {
      for (int d = 0; d < 4; d++) index(4 * k + d) = b.index(k, d);
      for (int d = 0; d < 6; d++) pos(6 * k + d) = b.positions(k, d);
      for (int d = 0; d < 3; d++) sh(3 * k + d) = b.shift(k, d);
      unsigned same = 0;
      for (int w = 0; w < CHAIN_WORDS; w++) {
        links(CHAIN_WORDS * k + w) = b.links(k, w);
        same |= b.links(k, CHAIN_WORDS + w);
      }
      alone(k) = same != 0;
      du(k) = b.du_u(k, 0);
      extra(k) = 0.0;
      u(k) = b.du_u(k, 1);
      log_u(k) = b.du_u(k, 2);
      accepted(k) = UNDECIDED;
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * CHAIN_WORDS), [&](const int w) { sets(w) = 0u; });
    team.team_barrier();
    unsigned *const done = &sets(0), *const as_evaluated = &sets(CHAIN_WORDS);

    // the first of moves from..to-1 for which pred holds (to if none), on every lane
    auto first_where = [&](int from, int to, auto pred) {
      for (int base = from; base < to; base += group) {
        const int k = base + lane;
        const unsigned hits = group_ballot(k < to && pred(k), group);
        if (hits) return base + lowest_bit(hits);
      }
      return to;
    };
    auto undecided = [&](int k) { return accepted(k) == UNDECIDED; };
    // marks move k decided (and accepted as evaluated if it was), on one lane
    auto mark = [&](int k, int state) {
      done[k / 32] |= 1u << (k % 32);
      if (state == ACCEPTED) as_evaluated[k / 32] |= 1u << (k % 32);
    };
    // move m's energy change after the earlier moves, into dU; false if a move linked to it is
    // undecided. The corrections are summed in chain order, loaded four at a time.
    auto energy_change = [&](int m, double &dU) {
      for (int w = 0; w < CHAIN_WORDS; w++)
        if (links(CHAIN_WORDS * m + w) & ~done[w]) return false;
      double sum = 0.0;
      for (int w = 0; w < CHAIN_WORDS; w++)
        for (unsigned bits = links(CHAIN_WORDS * m + w) & as_evaluated[w]; bits;) {
          double x[4];
          int n = 0;
          for (; n < 4 && bits; n++, bits &= bits - 1u) x[n] = b.correction(32 * w + lowest_bit(bits), m);
          for (int j = 0; j < n; j++) sum += x[j];
        }
      dU = du(m) + extra(m) + sum;
      return true;
    };
    // energy change and count of the accepted moves before `end`, on every lane
    auto totals = [&](int end, double &energy, double &naccepted) {
      energy = naccepted = 0.0;
      for (int a = lane; a < end; a += group)
        if (accepted(a) > REJECTED) {
          energy += decided(a);
          naccepted += 1.0;
        }
      energy = group_sum(energy, group);
      naccepted = group_sum(naccepted, group);
    };
    // whether move a changes cells: its new cell against the cell of its slot
    auto changes_cell = [&](int a) { return index(4 * a + 3) != index(4 * a + 2) / g.cap; };
    // move a's atom at its new position in the cell list's slot `slot`, its images updated
    auto place = [&](int a, int slot) {
      c.sx(slot) = pos(6 * a + 3);
      c.sy(slot) = pos(6 * a + 4);
      c.sz(slot) = pos(6 * a + 5);
      for (int d = 0; d < 3; d++)
        if (sh(3 * a + d)) c.image(index(4 * a), d) += sh(3 * a + d);
    };
    // writes the accepted moves from..to-1 (all decided) to the cell list in chain order; false if
    // the chain stopped before one of them (its counters then hold the moves before it)
    auto write_moves = [&](int from, int to) {
      for (int next = from;;) {
        // the first accepted move at or after next that changes cells (to if none)
        const int cross = first_where(next, to, [&](int a) { return accepted(a) > REJECTED && changes_cell(a); });
        // the moves within their cells before it, at their slots
        for (int a = next + lane; a < cross; a += group)
          if (accepted(a) > REJECTED) place(a, index(4 * a + 2));
        group_sync(group);
        if (cross == to) return true;
        const int i = index(4 * cross), slot_from = index(4 * cross + 2), cell_from = slot_from / g.cap;
        const int cell_new = index(4 * cross + 3), count_new = c.count(cell_new);
        if (count_new >= g.cap) {    // a full destination cell: stop before this move
          double energy, naccepted;
          totals(cross, energy, naccepted);
          if (lane == 0) {
            c.counter(DC_STOPPED) = 1;
            c.counter(DC_STOP_MOVE) = (long) (first + cross);
            c.counter(DC_STOP_KIND) = 0;
            c.scalar(DS_ENERGY) += energy;
            c.counter(DC_TRANS_ACCEPTED) += (long) naccepted;
          }
          return false;
        }
        int filler = -1;    // the atom that fills the slot atom i leaves
        if (lane == 0) {
          // leave the old cell (its last atom fills the hole), join the new one
          const int last = cell_from * g.cap + c.count(cell_from) - 1;
          if (slot_from != last) {
            filler = c.sid(last);
            c.sx(slot_from) = c.sx(last);
            c.sy(slot_from) = c.sy(last);
            c.sz(slot_from) = c.sz(last);
            c.sid(slot_from) = filler;
            c.stype(slot_from) = c.stype(last);
            c.slot_of(filler) = slot_from - cell_from * g.cap;
          }
          c.count(cell_from) = last - cell_from * g.cap;
          c.count(cell_new) = count_new + 1;
          c.cell_of(i) = cell_new;
          c.slot_of(i) = count_new;
          const int slot = cell_new * g.cap + count_new;
          c.sid(slot) = i;
          c.stype(slot) = index(4 * cross + 1);
          place(cross, slot);
        }
        filler = group_broadcast(filler, 0, group);
        for (int m = cross + 1 + lane; m < count; m += group)
          if (index(4 * m) == filler) index(4 * m + 2) = slot_from;
        group_sync(group);
        next = cross + 1;
      }
    };

    int written = 0;    // the accepted moves before this one are in the cell list
    for (int open = first_where(0, count, undecided); open < count; open = first_where(open, count, undecided)) {
      if (!alone(open)) {
        // a round over the undecided moves up to the next one to be decided alone, in chunks
        // of a lane per move (whole words of the sets)
        const int end = first_where(open + 1, count, [&](int k) { return alone(k) != 0; });
        for (int base = open - open % group; base < end; base += group) {
          const int m = base + lane;
          int state = UNDECIDED;
          double dU = 0.0;
          if (m >= open && m < end && accepted(m) == UNDECIDED && energy_change(m, dU)) {
            if (dU != dU)
              alone(m) = 1;    // (atoms put on top of each other: evaluated again in turn)
            else
              state = metropolis_accept_log(-beta * dU, u(m), log_u(m)) ? ACCEPTED : REJECTED;
          }
          const unsigned now_done = group_ballot(state != UNDECIDED, group) << (base % 32);
          const unsigned now_as_evaluated = group_ballot(state == ACCEPTED, group) << (base % 32);
          group_sync(group);    // (every lane has read the sets)
          if (state != UNDECIDED) {
            accepted(m) = state;
            decided(m) = dU;
          }
          if (lane == 0) {
            done[base / 32] |= now_done;
            as_evaluated[base / 32] |= now_as_evaluated;
          }
          group_sync(group);
        }
        continue;
      }
      // decided alone: every move before it is decided
      const int k = open;
      double dU;
      energy_change(k, dU);
      const bool again = dU != dU;    // (NaN: its atom moved, or atoms were put on top of each other)
      ChainTrial tr;
      if (again) {
        if (!write_moves(written, k)) return;    // the evaluation reads the cell list
        written = k;
        tr = chain_trial(c, mobile, rng, first + k, nmobile, dmax, lo, len);
        dU = team_energy_change(team, c, lo, len, tr);
      }
      const bool accept = metropolis_accept_log(-beta * dU, u(k), log_u(k));
      const int state = accept ? (again ? ACCEPTED_AGAIN : ACCEPTED) : REJECTED;
      group_sync(group);    // (every lane has read this move's entries)
      if (lane == 0) {
        accepted(k) = state;
        decided(k) = dU;
        mark(k, state);
      }
      if (state == ACCEPTED_AGAIN) {
        if (lane == 0) {
          int cc[3];
          cell_coords(g, lo, len, tr.p_new, cc);
          index(4 * k + 2) = tr.slot;
          index(4 * k + 3) = cell_index(g, cc);
          for (int d = 0; d < 3; d++) {
            pos(6 * k + d) = tr.p_old[d];
            pos(6 * k + 3 + d) = tr.p_new[d];
            sh(3 * k + d) = tr.shift[d];
          }
          // the later moves are decided again
          for (int w = 0; w < CHAIN_WORDS; w++) {
            const int keep = k + 1 - 32 * w;    // bits of moves up to k
            const unsigned upto = keep >= 32 ? ~0u : (keep <= 0 ? 0u : (1u << keep) - 1u);
            done[w] &= upto;
            as_evaluated[w] &= upto;
          }
        }
        // its corrections to the later moves, from its actual positions (NaN for its own atom,
        // whose later moves are decided alone anyway)
        const PairCoeff *row = c.coeff.data() + tr.type * c.nt1;
        for (int m = k + 1 + lane; m < count; m += group) {
          extra(m) += index(4 * m) == tr.atom
              ? Kokkos::Experimental::quiet_NaN<double>::value
              : move_correction(row[index(4 * m + 1)], tr.p_old, tr.p_new, &pos(6 * m), &pos(6 * m + 3),
                                NearestImageRsq{len});
          accepted(m) = UNDECIDED;
        }
      }
      group_sync(group);
    }
    if (!write_moves(written, count)) return;
    double energy, naccepted;
    totals(count, energy, naccepted);
    if (lane == 0) {
      c.scalar(DS_ENERGY) += energy;
      c.counter(DC_TRANS_ACCEPTED) += (long) naccepted;
    }
  }
};

// A volume trial in four kernels around the trial's energy: propose (one thread), then the energy
// of the scaled positions (PairEnergyFunctor, which scales them as it gathers its copy of them),
// accept (one thread), commit (every atom). Each reads the trial's state from device memory.
template <class DeviceType>
struct VolumeFunctor {
  struct TagPropose {};
  struct TagAccept {};
  struct TagCommit {};
  CellData<DeviceType> c;
  CounterRNG rng{0, 0};
  uint64_t move;
  int scheme;
  double step, min_side, beta, pressure_energy, natoms, tail;

  KOKKOS_INLINE_FUNCTION void operator()(TagPropose, const int) const
  {
    c.counter(DC_TRIAL_ACTIVE) = 0;
    c.counter(DC_TRIAL_ACCEPTED) = 0;
    if (c.counter(DC_STOPPED)) return;
    const double len[3] = {c.scalar(DS_LEN), c.scalar(DS_LEN + 1), c.scalar(DS_LEN + 2)};
    double new_len[3];
    c.scalar(DS_TRIAL_U) = propose_volume(rng, move, scheme, step, len, new_len);
    bool inside = true, fits = true;
    for (int d = 0; d < 3; d++) {
      inside = inside && new_len[d] >= min_side;
      fits = fits && new_len[d] / c.g.n[d] >= c.g.min_width;
      c.scalar(DS_TRIAL_LEN + d) = new_len[d];
      // the same arithmetic as the host engine: scaled about the box centre
      const double centre = c.scalar(DS_LO + d) + 0.5 * len[d];
      c.scalar(DS_TRIAL_LO + d) = centre - 0.5 * new_len[d];
    }
    if (inside && !fits) {    // stop before this trial: the host regrids and resumes
      c.counter(DC_STOPPED) = 1;
      c.counter(DC_STOP_MOVE) = (long) move;
      c.counter(DC_STOP_KIND) = 1;
    } else {
      c.counter(DC_TRIAL_ACTIVE) = inside ? 1 : 0;    // outside: rejected, pi = 0 there
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(TagAccept, const int) const
  {
    if (!c.counter(DC_TRIAL_ACTIVE)) return;
    const double v_old = c.scalar(DS_LEN) * c.scalar(DS_LEN + 1) * c.scalar(DS_LEN + 2);
    const double v_new = c.scalar(DS_TRIAL_LEN) * c.scalar(DS_TRIAL_LEN + 1) * c.scalar(DS_TRIAL_LEN + 2);
    const double e_new = c.scalar(DS_TRIAL_ENERGY) + tail / v_new;
    const double lr = volume_log_ratio(beta, e_new - c.scalar(DS_ENERGY), pressure_energy, v_old, v_new, natoms, scheme);
    if (metropolis_accept(lr, c.scalar(DS_TRIAL_U))) {
      c.counter(DC_TRIAL_ACCEPTED) = 1;
      c.counter(DC_VOL_ACCEPTED) += 1;
      c.scalar(DS_ENERGY) = e_new;
      for (int d = 0; d < 3; d++) {
        c.scalar(DS_LO + d) = c.scalar(DS_TRIAL_LO + d);
        c.scalar(DS_LEN + d) = c.scalar(DS_TRIAL_LEN + d);
      }
    }
  }

  // Slot k: the trial's position, from the energy's copy (PairEnergyFunctor scaled it there). The
  // cells scale with the box, so every atom keeps its cell and slot.
  KOKKOS_INLINE_FUNCTION void operator()(TagCommit, const int k) const
  {
    if (!c.counter(DC_TRIAL_ACCEPTED)) return;
    const int cell = k / c.g.cap, s = k % c.g.cap;
    if (s >= c.count(cell)) return;
    const int e = c.pad_start(c.padded_of(cell)) + s;
    c.sx(k) = c.ox(e);
    c.sy(k) = c.oy(e);
    c.sz(k) = c.oz(e);
  }
};

// Atoms a team stages in scratch memory, in a frame of its own (positions relative to a corner
// near them): position and type. In single precision one 16-byte record per atom (one load per
// candidate); in double precision separate arrays (records of 32 bytes would not leave a SiO2
// neighbourhood on chip).
template <class Real>
struct StagedAtoms {
  Real *x, *y, *z;
  short *t;
  KOKKOS_INLINE_FUNCTION static size_t bytes(int n)
  {
    return 3 * ScratchCarver::bytes<Real>(n) + ScratchCarver::bytes<short>(n);
  }
  KOKKOS_INLINE_FUNCTION void carve(ScratchCarver &c, int n)
  {
    x = c.take<Real>(n);
    y = c.take<Real>(n);
    z = c.take<Real>(n);
    t = c.take<short>(n);
  }
  KOKKOS_INLINE_FUNCTION void to_shared()
  {
    x = as_shared(x);
    y = as_shared(y);
    z = as_shared(z);
    t = as_shared(t);
  }
  KOKKOS_INLINE_FUNCTION void set(int j, Real px, Real py, Real pz, int type) const
  {
    x[j] = px;
    y[j] = py;
    z[j] = pz;
    t[j] = (short) type;
  }
  KOKKOS_INLINE_FUNCTION void position(int j, Real p[3]) const
  {
    p[0] = x[j];
    p[1] = y[j];
    p[2] = z[j];
  }
  KOKKOS_INLINE_FUNCTION void load(int j, Real p[3], int &type) const
  {
    position(j, p);
    type = t[j];
  }
};

template <>
struct StagedAtoms<float> {
  struct alignas(16) Atom {
    float x, y, z;
    int type;
  };
  Atom *atom;
  KOKKOS_INLINE_FUNCTION static size_t bytes(int n) { return ScratchCarver::bytes<Atom>(n); }
  KOKKOS_INLINE_FUNCTION void carve(ScratchCarver &c, int n) { atom = c.take<Atom>(n); }
  KOKKOS_INLINE_FUNCTION void to_shared() { atom = as_shared(atom); }
  KOKKOS_INLINE_FUNCTION void set(int j, float px, float py, float pz, int type) const { atom[j] = Atom{px, py, pz, type}; }
  KOKKOS_INLINE_FUNCTION void position(int j, float p[3]) const
  {
    int type;    // (the record is one load either way)
    load(j, p, type);
  }
  KOKKOS_INLINE_FUNCTION void load(int j, float p[3], int &type) const
  {
    const Atom a = atom[j];
    p[0] = a.x;
    p[1] = a.y;
    p[2] = a.z;
    type = a.type;
  }
};

// Widom insertions are stratified over insertion boxes: every cell of the cell list cut into
// split^3 boxes of equal volume (split 1 to 3). Insertion g is at a uniform point of box
// g mod nboxes, numbered (block, g); box b is part b mod split^3 (x fastest) of cell b / split^3.
struct WidomArgs {
  double lo[3], len[3], width[3], tail_shift, beta;    // width: of an insertion box
  int type, split;
  uint64_t block, per_box;
  long nboxes;
};

// Box b's cell coordinates and lower corner.
KOKKOS_INLINE_FUNCTION void widom_box(const Grid &g, const WidomArgs &a, long b, int c[3], double corner[3])
{
  const int parts = a.split * a.split * a.split;
  const long cell = b / parts;
  const int part = (int) (b % parts);
  c[0] = (int) (cell % g.n[0]);
  c[1] = (int) ((cell / g.n[0]) % g.n[1]);
  c[2] = (int) (cell / ((long) g.n[0] * g.n[1]));
  const int k[3] = {part % a.split, (part / a.split) % a.split, part / (a.split * a.split)};
  for (int d = 0; d < 3; d++) corner[d] = a.lo[d] + (a.split * c[d] + k[d]) * a.width[d];
}

// Point of insertion gidx (in box gidx mod nboxes, whose corner is given).
KOKKOS_INLINE_FUNCTION void widom_point(const WidomArgs &a, const CounterRNG &rng, uint64_t gidx,
                                        const double corner[3], double p[3])
{
  const auto r = rng.bits(a.block, gidx);
  for (int d = 0; d < 3; d++) {
    p[d] = corner[d] + uniform01(r[d]) * a.width[d];
    if (p[d] >= a.lo[d] + a.len[d]) p[d] = a.lo[d] + a.len[d] * (1.0 - 1e-16);
  }
}

// Each insertion walks the cell list on its own.
template <class DeviceType>
struct WidomSimpleFunctor {
  CellData<DeviceType> c;
  WidomArgs a;
  CounterRNG rng{0, 0};
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t gidx, double &acc) const
  {
    double corner[3], p[3];
    int cc[3];
    widom_box(c.g, a, (long) ((uint64_t) gidx % (uint64_t) a.nboxes), cc, corner);
    widom_point(a, rng, (uint64_t) gidx, corner, p);
    const PairCoeff *row = c.coeff.data() + a.type * c.nt1;
    const double cutsq = c.row_cutsq(a.type);
    const int nw[3] = {2 * REACH + 1, 2 * REACH + 1, 2 * REACH + 1};
    double e = 0.0;
    for (int w = 0; w < nw[0] * nw[1] * nw[2]; w++) {
      double sh[3];
      const int cell = window_cell_flat(c.g, a.len, cc, nw, w, sh);
      for (int s = 0; s < c.count(cell); s++) {
        const int k = cell * c.g.cap + s;
        const double dx = p[0] - c.sx(k) - sh[0], dy = p[1] - c.sy(k) - sh[1], dz = p[2] - c.sz(k) - sh[2];
        const double rsq = dx * dx + dy * dy + dz * dz;
        if (rsq < cutsq) e += pair_energy(row[c.stype(k)], rsq);
      }
    }
    acc += exp(-a.beta * (e + a.tail_shift));
  }
};

// A team per insertion box stages the atoms of its cell's window that are within the cutoff of the
// box (in SiO2 about 400 of the window's 610 for a whole cell, 260 for an eighth of one: no
// insertion inside the box has other neighbours), relative to the box's corner (numbers below a
// few cutoffs, so that float keeps about 1e-6 of a length unit). Then each thread takes insertions
// of the box in turn and sums its pair terms over the staged atoms: on a GPU the 32 lanes of a warp
// read the same staged atom at once (one broadcast load) for 32 insertions a few angstroms apart,
// which share most of their neighbours.
// (A warp per insertion needed the lanes to list the neighbours first, and one lane to do the
// insertion's exponential and sum.)
// Real: the precision of the staged positions and pair terms; sums are double.
template <class DeviceType, class Real>
struct WidomTiledFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int W = 2 * REACH + 1, NW = W * W * W;
  struct TagStagedMax {};
  struct TagInsert {};
  struct TagInsertOnChip {};    // scratch on chip: shared-memory loads on a CUDA device
  CellData<DeviceType> c;
  WidomArgs a;
  CounterRNG rng{0, 0};
  int cap = 0;       // most atoms any box stages
  int level = 0;     // scratch level

  KOKKOS_INLINE_FUNCTION static size_t scratch_bytes(int cap, int nt1)
  {
    using C = ScratchCarver;
    return StagedAtoms<Real>::bytes(cap) + C::bytes<int>(NW + 1) + C::bytes<PairCoeffT<Real>>(nt1);
  }

  // Whether the atom in cell slot k, at periodic shift sh, is within reach of the box whose corner
  // is given; r: its position relative to that corner.
  KOKKOS_INLINE_FUNCTION bool within_reach(const int k, const double sh[3], const double corner[3],
                                           const double reach_sq, double r[3]) const
  {
    r[0] = c.sx(k) + sh[0] - corner[0];
    r[1] = c.sy(k) + sh[1] - corner[1];
    r[2] = c.sz(k) + sh[2] - corner[2];
    double dsq = 0.0;
    for (int d = 0; d < 3; d++) {
      const double out = r[d] < 0.0 ? -r[d] : (r[d] > a.width[d] ? r[d] - a.width[d] : 0.0);
      dsq += out * out;
    }
    return dsq < reach_sq;
  }
  // The test is in double, with a margin well above the round-off of the Real distances, so the
  // staged atoms hold every neighbour of every insertion in the box.
  KOKKOS_INLINE_FUNCTION double reach_sq() const { return c.row_cutsq(a.type) * (1.0 + 1e-4); }
  // Atoms of cell wc (at periodic shift sh) within reach of the box whose corner is given.
  KOKKOS_INLINE_FUNCTION int count_within_reach(const int wc, const double sh[3], const double corner[3],
                                                const double reach_sq) const
  {
    double r[3];
    int n = 0;
    for (int s = 0; s < c.count(wc); s++) n += within_reach(wc * c.g.cap + s, sh, corner, reach_sq, r) ? 1 : 0;
    return n;
  }

  // atoms box b stages (to size the scratch space)
  KOKKOS_INLINE_FUNCTION void operator()(TagStagedMax, const int b, int &m) const
  {
    int c0[3];
    double corner[3];
    widom_box(c.g, a, b, c0, corner);
    const int nw[3] = {W, W, W};
    const double rsq = reach_sq();
    int n = 0;
    for (int w = 0; w < NW; w++) {
      double sh[3];
      const int wc = window_cell_flat(c.g, a.len, c0, nw, w, sh);
      n += count_within_reach(wc, sh, corner, rsq);
    }
    m = n > m ? n : m;
  }

  KOKKOS_INLINE_FUNCTION void operator()(TagInsert, const Member &tm, double &acc) const { insert<false>(tm, acc); }
  KOKKOS_INLINE_FUNCTION void operator()(TagInsertOnChip, const Member &tm, double &acc) const
  {
    insert<true>(tm, acc);
  }

  template <bool ON_CHIP>
  KOKKOS_INLINE_FUNCTION void insert(const Member &tm, double &acc) const
  {
    const long b = tm.league_rank();
    int c0[3];
    double corner[3];
    widom_box(c.g, a, b, c0, corner);
    const int nw[3] = {W, W, W};
    const int nt1 = c.nt1;
    ScratchCarver carve{(char *) tm.team_scratch(level).get_shmem_aligned(scratch_bytes(cap, nt1),
                                                                           ScratchCarver::ALIGN)};
    StagedAtoms<Real> atoms;
    atoms.carve(carve, cap);
    int *offset = carve.take<int>(NW + 1);
    PairCoeffT<Real> *row = carve.take<PairCoeffT<Real>>(nt1);
    if constexpr (ON_CHIP) {
      atoms.to_shared();
      offset = as_shared(offset);
      row = as_shared(row);
    }
    const double rsq_reach = reach_sq();
    // offsets of the window cells' staged atoms
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(tm, NW), [&](const int w, int &part, const bool final) {
      double sh[3];
      const int wc = window_cell_flat(c.g, a.len, c0, nw, w, sh);
      const int n = count_within_reach(wc, sh, corner, rsq_reach);
      if (final) offset[w] = part;
      part += n;
      if (final && w == NW - 1) offset[NW] = part;
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, nt1),
                         [&](const int t) { row[t] = c.coeff_view(Real())(a.type * nt1 + t); });
    tm.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, NW), [&](const int w) {
      double sh[3], r[3];
      const int wc = window_cell_flat(c.g, a.len, c0, nw, w, sh);
      int o = offset[w];
      for (int s = 0; s < c.count(wc); s++) {
        const int k = wc * c.g.cap + s;
        if (within_reach(k, sh, corner, rsq_reach, r)) atoms.set(o++, (Real) r[0], (Real) r[1], (Real) r[2], c.stype(k));
      }
    });
    tm.team_barrier();
    const int nstaged = offset[NW];
    const Real cutsq = (Real) c.row_cutsq(a.type);
    double team_sum = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(tm, (int) a.per_box),
        [&](const int k, double &part) {
          double p[3];
          widom_point(a, rng, (uint64_t) k * (uint64_t) a.nboxes + (uint64_t) b, corner, p);
          const Real q[3] = {(Real) (p[0] - corner[0]), (Real) (p[1] - corner[1]), (Real) (p[2] - corner[2])};
          double e = 0.0;
          // CANDIDATE_ROUNDS staged atoms at a time: independent loads and arithmetic
          int j = 0;
          for (; j + CANDIDATE_ROUNDS <= nstaged; j += CANDIDATE_ROUNDS) {
            Real rsq[CANDIDATE_ROUNDS];
            int jtype[CANDIDATE_ROUNDS];
            for (int u = 0; u < CANDIDATE_ROUNDS; u++) rsq[u] = staged_distance_sq(atoms, j + u, q, jtype[u]);
            for (int u = 0; u < CANDIDATE_ROUNDS; u++)
              if (rsq[u] < cutsq) e += (double) pair_energy(row[jtype[u]], rsq[u]);
          }
          for (; j < nstaged; j++) {
            int jtype;
            const Real rsq = staged_distance_sq(atoms, j, q, jtype);
            if (rsq < cutsq) e += (double) pair_energy(row[jtype], rsq);
          }
          part += exp(-a.beta * (e + a.tail_shift));
        },
        team_sum);
    Kokkos::single(Kokkos::PerTeam(tm), [&]() { acc += team_sum; });
  }

  KOKKOS_INLINE_FUNCTION static Real staged_distance_sq(const StagedAtoms<Real> &atoms, int j, const Real q[3],
                                                        int &type)
  {
    Real p[3];
    atoms.load(j, p, type);
    return frame_rsq(q, p);
  }
};

// ---- checkerboard sweeps (gpumc_checkerboard.h) ----

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
};

// A sweep's fullest cell and the most atoms within reach of one cell (its 27-cell window).
struct CheckerSizes {
  int fullest, window;
};

template <class DeviceType>
struct CheckerBuildFunctor {
  struct TagCount {};
  struct TagFill {};
  struct TagSort {};
  struct TagMobile {};
  CheckerData<DeviceType> d;
  Kokkos::View<int *, DeviceType> mobile_list;

  KOKKOS_INLINE_FUNCTION void operator()(TagMobile, const int k) const { d.mobile(mobile_list(k)) = 1; }
  KOKKOS_INLINE_FUNCTION void operator()(TagCount, const int i) const
  {
    const double p[3] = {d.x(i, 0), d.x(i, 1), d.x(i, 2)};
    int c[3];
    double u[3];
    d.cell_of(i) = checker_cell(d.g, p, c, u);
    Kokkos::atomic_inc(&d.count(d.cell_of(i)));
  }
  KOKKOS_INLINE_FUNCTION void operator()(TagFill, const int i) const
  {
    if (d.stopped()) return;    // (the cells may be fuller than their room)
    const int s = Kokkos::atomic_fetch_add(&d.count(d.cell_of(i)), 1);
    d.unsorted(d.cell_of(i) * d.cap + s) = i;
  }
  // a team per cell: each atom's rank among the cell's atoms is its slot (ascending IDs)
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(TagSort, const Member &tm) const
  {
    const int base = tm.league_rank() * d.cap, n = d.count(tm.league_rank());
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, n), [&](const int a) {
      const int v = d.unsorted(base + a);
      int rank = 0;
      for (int b = 0; b < n; b++) rank += d.unsorted(base + b) < v;
      d.atom(base + rank) = v;
      const double p[3] = {d.x(v, 0), d.x(v, 1), d.x(v, 2)};
      int c[3];
      double u[3];
      checker_cell(d.g, p, c, u);
      d.sux(base + rank) = u[0];
      d.suy(base + rank) = u[1];
      d.suz(base + rank) = u[2];
      d.stype(base + rank) = (short) d.type(v);
    });
  }
};

// The sweep's sizes (CheckerSizes), reduced into device memory: the host does not wait for them.
template <class DeviceType>
struct CheckerSizesFunctor {
  using value_type = CheckerSizes;
  CheckerData<DeviceType> d;
  KOKKOS_INLINE_FUNCTION void init(value_type &v) const { v.fullest = v.window = 0; }
  KOKKOS_INLINE_FUNCTION void join(value_type &a, const value_type &b) const
  {
    a.fullest = b.fullest > a.fullest ? b.fullest : a.fullest;
    a.window = b.window > a.window ? b.window : a.window;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int cell, value_type &v) const
  {
    const int c0[3] = {cell % d.g.n[0], (cell / d.g.n[0]) % d.g.n[1], cell / (d.g.n[0] * d.g.n[1])};
    // the 27 cells' counts as independent loads (loops of constant length, unrolled), each
    // periodic image counted as checker_neighbour names it
    int c[3][3];
    for (int k = 0; k < 3; k++)
      for (int o = 0; o < 3; o++) c[k][o] = checker_wrap(c0[k] + o - 1, d.g.n[k]);
    int n = 0;
    for (int z = 0; z < 3; z++)
      for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) n += d.count((c[2][z] * d.g.n[1] + c[1][y]) * d.g.n[0] + c[0][x]);
    v.fullest = d.count(cell) > v.fullest ? d.count(cell) : v.fullest;
    v.window = n > v.window ? n : v.window;
  }
};

// One thread: stops the sweeps from this one on if its cells outgrew the room that the host gave
// their slots (cap) and the trial kernel's staged atoms (window_cap). The first stop is kept.
template <class DeviceType>
struct CheckerGuardFunctor {
  Kokkos::View<CheckerSizes, DeviceType> sizes;
  Kokkos::View<long *, DeviceType> counter;
  int cap, window_cap;
  uint64_t sweep;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const
  {
    if (counter(DC_STOPPED) || (sizes().fullest <= cap && sizes().window <= window_cap)) return;
    counter(DC_STOPPED) = 1;
    counter(DC_STOP_MOVE) = (long) sweep;
    counter(DC_STOP_KIND) = 2;
  }
};

// The cells of one colour. Each cell tries every one of its atoms once, in a random order
// (gpumc_checkerboard.h), and because no atom is tried twice the trials need not be evaluated one
// after another. Two kernels per colour:
//  - CheckerTrialFunctor evaluates every trial of the colour at once, each against its cell's
//    starting configuration, and the correction that each pair of trials of a cell makes to the
//    other's energy change if that one is accepted first (four pair terms: the two atoms' old and
//    new positions against each other; symmetric in the two trials). Its teams take a chunk of a
//    cell's trials each, so a colour launches about N / (8 x trials per team) teams, not one per
//    cell: the cells of a colour (216 at N = 74088) are too few to fill a GPU on their own.
//  - CheckerDecideFunctor, a team per cell, decides the trials in order, each with its evaluated
//    energy change plus the corrections of the trials accepted before it: the energy change of the
//    strictly sequential visit, up to round-off in the order of the sums. It then writes the
//    accepted moves back.
// Moves of different cells are independent (gpumc_checkerboard.h), so the result does not depend
// on the order the teams run in.

// Energy changes and corrections of a colour's trials: active cell a (the a-th of the colour), slot
// s at a * cap + s; the correction between slots t < s at a * corr_cap + s (s - 1) / 2 + t.
KOKKOS_INLINE_FUNCTION int checker_pair_entry(int s, int t)
{
  return s > t ? s * (s - 1) / 2 + t : t * (t - 1) / 2 + s;
}

// per trial slot: the trial's state
enum CheckerTrialState : int { NOT_A_TRIAL = 0, LEAVES_CELL = 1, EVALUATED = 2 };

// A team of the first kernel: active cell a's trials first .. first + per_team - 1.
//  1. The team stages the atoms of the 27 cells around the cell in scratch memory, in the cell's
//     own frame (cell offset times width plus the position in the neighbour's frame: exact
//     periodic images whatever the grid shift), the cell's own atoms first in ascending order,
//     and draws the trials of all the cell's atoms (their new positions enter the corrections).
//  2. Groups of threads (a CUDA warp, elsewhere one thread) take the team's trials. A group
//     evaluates a trial in two passes: it lists the staged atoms that may be within the cutoff
//     of the old or the new position (lanes append in candidate order, so the list and the sum's
//     order are the same in every run), then sums their pair terms, lanes in parallel. Its lanes
//     then compute the trial's corrections with the cell's lower slots.
//
// Real: the precision of the staged cell-frame positions, the distances and the pair terms
// (float in mixed precision); the stay-in-cell test and all sums are double. Launched with
// WarpPolicy (TagWarp), the kernel takes the CUDA path with the hot scratch on chip and a warp per
// trial, both known to the compiler (shared-memory loads, no run-time group size); with Policy,
// any group size and scratch level.
template <class DeviceType, class Real>
struct CheckerTrialFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  // teams of at most 256 threads, at most 80 registers each: registers allow 6 default teams of
  // 128 per multiprocessor (the shared memory of a SiO2 neighbourhood in double precision, 4)
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 3>>;
  struct TagWarp {};
  using WarpPolicy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 3>, TagWarp>;
  using Member = typename Policy::member_type;
  template <class T>
  using Scratch = ScratchView<ExecSpace, T>;
  using ScratchR = Scratch<Real>;
  using ScratchD = Scratch<double>;
  using ScratchI = Scratch<int>;
  // lists of 16-bit indices of the staged atoms
  static constexpr int MAX_WINDOW = 65535;
  CheckerData<DeviceType> d;
  Kokkos::View<PairCoeffT<Real> *, DeviceType> coeff;
  Kokkos::View<double *, DeviceType> row_cutsq;
  int nt1, colour, window_cap, team;
  int group;                   // threads that evaluate a trial together: 32 (a CUDA warp) or 1
  int per_team, teams_per_cell;    // trials per team, teams per active cell
  // a group's list of candidates holds list_rounds rounds of them: the candidates of a trial and
  // a block of rounds more, so that its pair terms are summed once (every lane busy but in the
  // last round), in a list small enough to leave room for more teams per multiprocessor
  int list_rounds = 4 * CANDIDATE_ROUNDS;
  int hot_level, cold_level;   // scratch levels (0: on chip) of hot_bytes and of cold_bytes
  CounterRNG rng{0, 0};
  uint64_t sweep;
  double dmax;

  // The staged atoms are padded with atoms out of every trial's reach to whole blocks of
  // CANDIDATE_ROUNDS rounds of a group, so that the candidate test has no bounds check.
  KOKKOS_INLINE_FUNCTION static int padded_window(int nstage, int group)
  {
    const int block = CANDIDATE_ROUNDS * group;
    return (nstage + block - 1) / block * block;
  }
  // scratch read in every candidate test: the staged atoms (padded for the largest group, a warp)
  // and the groups' candidate lists (and the 27 cells' offsets, indices and counts)
  KOKKOS_INLINE_FUNCTION static size_t hot_bytes(int window_cap, int team, int list_rounds)
  {
    using C = ScratchCarver;
    return StagedAtoms<Real>::bytes(padded_window(window_cap, 32)) + C::bytes<int>(28) + 2 * C::bytes<int>(27) +
           C::bytes<unsigned short>((size_t) list_rounds * team);
  }
  // List rounds for a quarter of the staged atoms and a block (a trial's candidates, within
  // rc + h of a point of the cell, are about 4 pi / 81 = 16 % of its 27 cells' atoms), within
  // 16 KiB of lists per team; GPUMC_CHECKER_LIST_ROUNDS (a test hook) sets them.
  static int list_rounds_for(int window_cap, int team, int group)
  {
    const char *env = std::getenv("GPUMC_CHECKER_LIST_ROUNDS");
    int rounds = env && std::atoi(env) > 0 ? std::atoi(env) : (window_cap / 4 + group - 1) / group + CANDIDATE_ROUNDS;
    rounds = std::min(rounds, 8192 / team);
    return std::max(CANDIDATE_ROUNDS, (rounds + CANDIDATE_ROUNDS - 1) / CANDIDATE_ROUNDS * CANDIDATE_ROUNDS);
  }
  // scratch read a few times per trial: the trial positions, states and order keys of the cell's
  // atoms, the neighbour cells' shifts
  static size_t cold_bytes(int cell_cap)
  {
    return 3 * ScratchR::shmem_size(cell_cap) + ScratchI::shmem_size(cell_cap) + ScratchD::shmem_size(3 * 27) +
           Scratch<uint64_t>::shmem_size(cell_cap);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &tm) const { trials<false>(tm); }
  KOKKOS_INLINE_FUNCTION void operator()(TagWarp, const Member &tm) const { trials<true>(tm); }

  template <bool WARP>
  KOKKOS_INLINE_FUNCTION void trials(const Member &tm) const
  {
    const CheckerGrid &g = d.g;
    const int a = tm.league_rank() / teams_per_cell, first = (tm.league_rank() % teams_per_cell) * per_team;
    int c0[3];
    const int cell = checker_active_cell(g, colour, a, c0);
    const int n = d.count(cell);
    if (first >= n) return;
    const int last = first + per_team < n ? first + per_team : n;
    ScratchCarver carve{(char *) tm.team_scratch(hot_level)
                            .get_shmem_aligned(hot_bytes(window_cap, team, list_rounds), ScratchCarver::ALIGN)};
    StagedAtoms<Real> atoms;
    atoms.carve(carve, padded_window(window_cap, 32));
    int *offset = carve.take<int>(28), *ncell = carve.take<int>(27), *cell_count = carve.take<int>(27);
    unsigned short *list = carve.take<unsigned short>((size_t) list_rounds * team);
    if constexpr (WARP) {
      atoms.to_shared();
      offset = as_shared(offset);
      ncell = as_shared(ncell);
      cell_count = as_shared(cell_count);
      list = as_shared(list);
    }
    const auto &mem = tm.team_scratch(cold_level);
    ScratchR nx(mem, d.cap), ny(mem, d.cap), nz(mem, d.cap);    // trial positions in the cell frame
    ScratchI state(mem, d.cap);
    Scratch<uint64_t> key(mem, d.cap);    // per slot: the key of its place in the decision order
    ScratchD shift(mem, 3 * 27);    // per neighbour cell: its offset times the cell width

    // 1. the 27 cells, the offsets of their atoms in scratch (each thread sums the counts before
    // its cell: a team scan of 27 numbers costs more); the staged atoms; the cell's trials
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, 27), [&](const int w) {
      int off[3];
      const int nc = checker_neighbour(g, c0, w, off);
      ncell[w] = nc;
      cell_count[w] = d.count(nc);
      for (int k = 0; k < 3; k++) shift(3 * w + k) = off[k] * g.w[k];
    });
    tm.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, 28), [&](const int w) {
      int sum = 0;
      for (int v = 0; v < w; v++) sum += cell_count[v];
      offset[w] = sum;
    });
    tm.team_barrier();
    const int group = WARP ? 32 : this->group;
    const int nstage = offset[27];
    // one staged atom per thread (independent loads), its cell found among the 27 offsets
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, padded_window(nstage, group)), [&](const int o) {
      if (o >= nstage) {    // padding: far beyond any trial's reach (its squared distance finite)
        const Real far = Real(1e18);
        atoms.set(o, far, far, far, 0);
        return;
      }
      int w = 0;    // the last cell whose offset is <= o (binary search: 5 steps)
      for (int step = 16; step > 0; step >>= 1)
        if (w + step < 27 && offset[w + step] <= o) w += step;
      const int s = o - offset[w], k = ncell[w] * d.cap + s;
      const double u[3] = {d.sux(k), d.suy(k), d.suz(k)};
      atoms.set(o, (Real) (shift(3 * w) + u[0]), (Real) (shift(3 * w + 1) + u[1]), (Real) (shift(3 * w + 2) + u[2]),
                d.stype(k));
      if (w != 0) return;
      // one of the cell's own atoms (slot s = o): its trial, and whether it stays in the cell. In
      // the cell's frame u_old + disp answers, unless it lies within round-off of a face: then the
      // host's own test (wrapped position, its cell) does.
      const int i = d.atom(k);
      int st = d.mobile(i) ? EVALUATED : NOT_A_TRIAL;
      double u_new[3] = {u[0], u[1], u[2]};
      const CellTrial t = cell_trial(rng, sweep, cell, s, dmax);
      key(s) = t.key;    // (every slot has a place in the order, a trial or not)
      if (st == EVALUATED) {
        bool outside = false, near_face = false;
        for (int k = 0; k < 3; k++) {
          u_new[k] = u[k] + t.disp[k];
          const double tol = 1e-9 * g.w[k];
          outside = outside || u_new[k] < -tol || u_new[k] >= g.w[k] + tol;
          near_face = near_face || u_new[k] < tol || u_new[k] >= g.w[k] - tol;
        }
        if (!outside && near_face) {
          double p_new[3] = {d.x(i, 0) + t.disp[0], d.x(i, 1) + t.disp[1], d.x(i, 2) + t.disp[2]};
          int shift[3] = {0, 0, 0}, cn[3];
          wrap_position(p_new, g.lo, g.len, shift);
          outside = checker_cell(g, p_new, cn, u_new) != cell;
        }
        if (outside) st = LEAVES_CELL;
      }
      nx(s) = (Real) u_new[0];
      ny(s) = (Real) u_new[1];
      nz(s) = (Real) u_new[2];
      state(s) = st;
      if (s >= first && s < last) d.trial_state(a * d.cap + s) = st;
    });
    tm.team_barrier();
    // the team of the cell's first trials: each slot's place in the decision order, and by place
    // the slot, its Metropolis uniform and its displacement, so that the decisions read them in
    // order (the displacement drawn again here rather than kept in every team's scratch)
    if (first == 0)
      Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, n), [&](const int s) {
        int b = 0;
        for (int t = 0; t < n; t++) b += cell_trial_before(key(t), t, key(s), s);
        const size_t at = (size_t) a * d.cap + b;
        const double u = cell_acceptance_uniform(rng, sweep, cell, s);
        const CellTrial t = cell_trial(rng, sweep, cell, s, dmax);
        d.trial_slot(at) = s;
        d.trial_u(at) = u;
        d.trial_log_u(at) = log(u);
        for (int k = 0; k < 3; k++) d.trial_disp(3 * at + k) = t.disp[k];
      });

    // 2. the team's trials against the starting configuration, a group per trial
    const int ngroups = team / group;
    const int my_group = tm.team_rank() / group, lane = tm.team_rank() % group;
    const int list_cap = list_rounds * group, block = CANDIDATE_ROUNDS * group;
    for (int s = first + my_group; s < last; s += ngroups) {
      const Real un[3] = {nx(s), ny(s), nz(s)};
      Real uo[3];
      int itype;
      atoms.load(s, uo, itype);
      double part = 0.0;
      if (state(s) == EVALUATED) {
        const Real cutsq = (Real) row_cutsq(itype);
        const PairCoeffT<Real> *row = coeff.data() + itype * nt1;
        // Candidates: the staged atoms within rc + h of the midpoint of the old and new positions
        // (h: half the displacement), which holds every atom within rc of either (triangle
        // inequality), at the cost of one distance instead of two. The margin covers rounding;
        // pair terms beyond the cutoff are zero.
        const Real mid[3] = {(un[0] + uo[0]) / 2, (un[1] + uo[1]) / 2, (un[2] + uo[2]) / 2};
        const Real half_step = real_sqrt(frame_rsq(un, uo)) / 2;
        const Real reach = real_sqrt(cutsq) + half_step;
        const Real reach_sq = reach * reach * (Real(1) + Real(64) * Kokkos::Experimental::epsilon<Real>::value);
        unsigned short *my_list = list + my_group * list_cap;
        int nlisted = 0;
        // pass 2: the listed pair terms, lanes in parallel, each pair's coefficients loaded once
        auto sum_listed = [&]() {
          group_sync(group);
          for (int q = lane; q < nlisted; q += group) {
            const int j = my_list[q];
            if (j == s) continue;
            Real p[3];
            int jtype;
            atoms.load(j, p, jtype);
            const PairCoeffT<Real> pc = row[jtype];
            part += (double) pair_energy(pc, frame_rsq(un, p));
            part -= (double) pair_energy(pc, frame_rsq(uo, p));
          }
          group_sync(group);    // the list is refilled from its start
          nlisted = 0;
        };
        // pass 1: list the candidates (the trial's own atom too: it is left out above), a block of
        // rounds at once (independent loads and arithmetic). The padding makes every round's
        // atoms staged ones: no bounds test. A list that might not hold the next block is summed
        // first (rarely: it holds a neighbourhood's candidates with room to spare).
        for (int j_block = 0; j_block < nstage; j_block += block) {
          if (nlisted + block > list_cap) sum_listed();
          const int j0 = j_block + lane;
          bool near[CANDIDATE_ROUNDS];
          for (int u = 0; u < CANDIDATE_ROUNDS; u++) {
            Real q[3];
            atoms.position(j0 + u * group, q);
            near[u] = frame_rsq(mid, q) < reach_sq;
          }
          for (int u = 0; u < CANDIDATE_ROUNDS; u++) {
            int added;
            const int slot = group_append(near[u], group, lane, added);
            if (near[u]) my_list[nlisted + slot] = (unsigned short) (j0 + u * group);
            nlisted += added;
          }
        }
        sum_listed();
        part = group_sum(part, group);
      }
      if (lane == 0) d.trial_du(a * d.cap + s) = part;
      // the corrections between this trial and those of the cell's lower slots
      for (int t = lane; t < s; t += group) {
        double corr = 0.0;
        if (state(s) == EVALUATED && state(t) == EVALUATED) {
          Real was_t[3];
          int ttype;
          atoms.load(t, was_t, ttype);
          const Real now_t[3] = {nx(t), ny(t), nz(t)};
          corr = move_correction(coeff(itype * nt1 + ttype), was_t, now_t, uo, un, FrameRsq<Real>{});
        }
        d.trial_corr((size_t) a * d.corr_cap + checker_pair_entry(s, t)) = corr;
      }
    }
  }
};

// The second kernel, a team per active cell (on a GPU four warps, which all load the cell's
// trials and write its accepted moves while the first alone walks; elsewhere one thread): the
// cell's decisions, in order, then the accepted moves. Each trial's energy change is its
// evaluated one plus the corrections of the trials accepted before it. The trial kernel has put
// the cell's order, uniforms and displacements by place in the decision order, so that no draw,
// sort or logarithm is left here, and the walk in order is short: place b belongs to lane
// b % group, which alone keeps its running energy change (in scratch, or on CUDA for cells of at
// most 64 trials in two registers per lane; no other lane touches it: no barrier in the walk);
// at place b that lane hands the energy change to the group (a shuffle), every lane makes the
// same decision, and if the trial is accepted each lane adds the corrections to its own later
// places.
template <class DeviceType>
struct CheckerDecideFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  struct TagWarp {};
  using WarpPolicy = Kokkos::TeamPolicy<ExecSpace, TagWarp>;    // whole CUDA warps, known to the compiler
  using Member = typename Policy::member_type;
  template <class T>
  using Scratch = ScratchView<ExecSpace, T>;
  using ScratchD = Scratch<double>;
  using ScratchI = Scratch<int>;
  CheckerData<DeviceType> d;
  Kokkos::View<int *[3], DeviceType> image;
  int colour, group;
  int hot_level, cold_level;   // scratch levels of hot_bytes (the trials) and cold_bytes (corrections)
  double beta;
  // room for the sweep's fullest cell: the scratch arrays' length (the host's room, a smaller
  // margin than the cells' capacity, so that more teams share a multiprocessor)
  int fullest = 0;

  static size_t hot_bytes(int cell_cap) { return 3 * ScratchD::shmem_size(cell_cap) + 3 * ScratchI::shmem_size(cell_cap); }
  static size_t cold_bytes(int cell_cap) { return ScratchD::shmem_size(pair_entries(cell_cap)); }
  KOKKOS_INLINE_FUNCTION static int pair_entries(int n) { return n * (n - 1) / 2; }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &tm) const { decide<false>(tm); }
  KOKKOS_INLINE_FUNCTION void operator()(TagWarp, const Member &tm) const { decide<true>(tm); }

  template <bool WARP>
  KOKKOS_INLINE_FUNCTION void decide(const Member &tm) const
  {
    const CheckerGrid &g = d.g;
    const int group = WARP ? 32 : this->group;
    const int a = tm.league_rank();
    int c0[3];
    const int cell = checker_active_cell(g, colour, a, c0);
    const int n = d.count(cell);
    if (n == 0) {    // (every cell is active in one colour of a sweep: its sums are set here)
      Kokkos::single(Kokkos::PerTeam(tm), [&]() {
        d.du(cell) = 0.0;
        d.accepted(cell) = d.trials(cell) = 0;
      });
      return;
    }
    const auto &hot = tm.team_scratch(hot_level);
    const int m = fullest;
    ScratchD du_run(hot, m), test_u(hot, m), test_log_u(hot, m);    // by place
    ScratchI state(hot, m), slot(hot, m), accepted(hot, m);
    ScratchD corr(tm.team_scratch(cold_level), pair_entries(m));

    const size_t base = (size_t) a * d.cap;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, n), [&](const int b) {
      const int s = d.trial_slot(base + b);
      slot(b) = s;
      du_run(b) = d.trial_du(base + s);
      state(b) = d.trial_state(base + s);
      test_u(b) = d.trial_u(base + b);
      test_log_u(b) = d.trial_log_u(base + b);
      accepted(b) = 0;
    });
    // the corrections, several independent loads per thread in flight
    constexpr int LOADS = 8;
    const int ncorr = n * (n - 1) / 2, nrounds = (ncorr + LOADS - 1) / LOADS;
    const double *from = d.trial_corr.data() + (size_t) a * d.corr_cap;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, nrounds), [&](const int r) {
      double v[LOADS];
      for (int u = 0; u < LOADS; u++) {
        const int e = r + u * nrounds;
        v[u] = e < ncorr ? from[e] : 0.0;
      }
      for (int u = 0; u < LOADS; u++)
        if (r + u * nrounds < ncorr) corr(r + u * nrounds) = v[u];
    });
    tm.team_barrier();

    // the walk: the team's first group (the other threads of a larger team only load and write)
    const int lane = tm.team_rank();
    double du_sum = 0.0;
    long naccepted = 0, trials = 0;
    bool walked = lane >= group;
    if constexpr (WARP) {
      if (!walked && n <= 64) {
        // the same walk with a lane's two places (lane, lane + 32) in registers
        const bool has0 = lane < n, has1 = lane + 32 < n;
        double run0 = has0 ? du_run(lane) : 0.0, run1 = has1 ? du_run(lane + 32) : 0.0;
        const int slot0 = has0 ? slot(lane) : 0, slot1 = has1 ? slot(lane + 32) : 0;
        for (int b = 0; b < n; b++) {
          const int st = state(b);
          if (st == NOT_A_TRIAL) continue;
          trials++;
          if (st == LEAVES_CELL) continue;    // rejected
          const double dU = group_broadcast(b < 32 ? run0 : run1, b & 31, 32);
          if (!metropolis_accept_log(-beta * dU, test_u(b), test_log_u(b))) continue;
          if (lane == (b & 31)) accepted(b) = 1;
          naccepted++;
          du_sum += dU;
          const int sb = slot(b);
          if (has0 && lane > b) run0 += corr(checker_pair_entry(sb, slot0));
          if (has1 && lane + 32 > b) run1 += corr(checker_pair_entry(sb, slot1));
        }
        walked = true;
      }
    }
    // place b's lane (owner), and this lane's first place after b (later)
    for (int b = 0, owner = 0, later = lane; !walked && b < n; b++, owner = owner + 1 == group ? 0 : owner + 1) {
      if (later == b) later += group;
      const int st = state(b);
      if (st == NOT_A_TRIAL) continue;
      trials++;
      if (st == LEAVES_CELL) continue;    // rejected
      const double dU = group_broadcast(lane == owner ? du_run(b) : 0.0, owner, group);
      if (!metropolis_accept_log(-beta * dU, test_u(b), test_log_u(b))) continue;
      if (lane == owner) accepted(b) = 1;
      naccepted++;
      du_sum += dU;
      const int sb = slot(b);
      for (int c = later; c < n; c += group) du_run(c) += corr(checker_pair_entry(sb, slot(c)));
    }
    if (lane == 0) {
      d.du(cell) = du_sum;
      d.accepted(cell) = naccepted;
      d.trials(cell) = trials;
    }
    tm.team_barrier();

    // the accepted moves
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, n), [&](const int b) {
      if (!accepted(b)) return;
      const int s = slot(b);
      const int i = d.atom(cell * d.cap + s);
      const double *disp = d.trial_disp.data() + 3 * (base + b);
      double p_new[3] = {d.x(i, 0) + disp[0], d.x(i, 1) + disp[1], d.x(i, 2) + disp[2]};
      int shift[3] = {0, 0, 0};
      wrap_position(p_new, g.lo, g.len, shift);
      for (int k = 0; k < 3; k++) {
        d.x(i, k) = p_new[k];
        if (shift[k]) image(i, k) += shift[k];    // (rare: no load of the image otherwise)
      }
      int c[3];
      double u[3];
      checker_cell(g, p_new, c, u);    // the same cell: moves that leave it are rejected
      d.sux(cell * d.cap + s) = u[0];
      d.suy(cell * d.cap + s) = u[1];
      d.suz(cell * d.cap + s) = u[2];
    });
  }
};

// A sweep's per-cell sums, reduced over cells (a fixed-order tree for a given launch, so that a
// chain is reproducible on a device), then added to the running energy and the counters.
struct CheckerSums {
  double du;
  long accepted, trials;
};

template <class DeviceType>
struct CheckerSumFunctor {
  using value_type = CheckerSums;
  CheckerData<DeviceType> d;
  KOKKOS_INLINE_FUNCTION void init(value_type &v) const
  {
    v.du = 0.0;
    v.accepted = v.trials = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type &a, const value_type &b) const
  {
    a.du += b.du;
    a.accepted += b.accepted;
    a.trials += b.trials;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int c, value_type &v) const
  {
    v.du += d.du(c);
    v.accepted += d.accepted(c);
    v.trials += d.trials(c);
  }
};

template <class DeviceType>
struct CheckerAddFunctor {
  Kokkos::View<CheckerSums, DeviceType> sums;
  Kokkos::View<double *, DeviceType> scalar;
  Kokkos::View<long *, DeviceType> counter;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const
  {
    scalar(DS_ENERGY) += sums().du;
    counter(DC_TRANS_ACCEPTED) += sums().accepted;
    counter(DC_CHECKER_TRIALS) += sums().trials;
  }
};

}    // namespace kk

template <class DeviceType>
class DeviceSystem {
 public:
  using ExecSpace = typename DeviceType::execution_space;
  template <class T>
  using View = Kokkos::View<T, DeviceType>;
  using TeamPolicy = Kokkos::TeamPolicy<ExecSpace>;
  using Grid = kk::Grid;

  // mixed: the checkerboard and Widom kernels evaluate pair terms (and stage positions, relative
  // to their cell) in float, summing in double; everything else stays double.
  DeviceSystem(const PairTable &table, int team_size, bool mixed = false) : team_size_(team_size), mixed_(mixed)
  {
    ntypes_ = table.ntypes;
    cut_max_ = table.cut_max;
    c_.nt1 = ntypes_ + 1;
    c_.coeff = View<PairCoeff *>("gpumc:coeff", table.coeff.size());
    auto h_coeff = Kokkos::create_mirror_view(c_.coeff);
    for (size_t k = 0; k < table.coeff.size(); k++) h_coeff(k) = table.coeff[k];
    Kokkos::deep_copy(c_.coeff, h_coeff);
    c_.coeff_f = View<PairCoeffT<float> *>("gpumc:coeff_float", table.coeff.size());
    auto h_coeff_f = Kokkos::create_mirror_view(c_.coeff_f);
    for (size_t k = 0; k < table.coeff.size(); k++) h_coeff_f(k) = PairCoeffT<float>(table.coeff[k]);
    Kokkos::deep_copy(c_.coeff_f, h_coeff_f);
    c_.row_cutsq = View<double *>("gpumc:row_cutsq", ntypes_ + 1);
    auto h_row = Kokkos::create_mirror_view(c_.row_cutsq);
    for (int i = 0; i <= ntypes_; i++) {
      h_row(i) = 0.0;
      for (int j = 1; j <= ntypes_ && i > 0; j++) h_row(i) = std::max(h_row(i), table.at(i, j).cutsq);
    }
    Kokkos::deep_copy(c_.row_cutsq, h_row);
    row_cutsq_.assign(h_row.data(), h_row.data() + ntypes_ + 1);
    tail_ = table.tail;
    c_.scalar = View<double *>("gpumc:scalars", DS_COUNT);
    c_.counter = View<long *>("gpumc:counters", DC_COUNT);
  }

  // Atoms in atom-ID order: positions (n x 3) and types, and the box. Positions are wrapped into
  // the box in place, and the engine keeps x as its positions until the cell list is first needed
  // (a checkerboard sweep reads them in this order): the caller leaves x alone while the engine
  // runs. Image shifts count from zero.
  void set_configuration(View<double *[3]> x, View<int *> type, const double lo[3], const double len[3])
  {
    settle();
    natoms_ = (int) type.extent(0);
    for (int d = 0; d < 3; d++)
      if (!(len[d] >= 2.0 * cut_max_)) throw std::invalid_argument("box side shorter than twice the largest cutoff");
    c_.type = type;
    kk::reuse_or_allocate(c_.image, "gpumc:image", natoms_);    // (every entry is written before it is read)
    kk::reuse_or_allocate(c_.cell_of, "gpumc:cell", natoms_);
    kk::reuse_or_allocate(c_.slot_of, "gpumc:slot", natoms_);
    auto h_scalar = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.scalar);
    for (int d = 0; d < 3; d++) {
      h_scalar(DS_LO + d) = box_lo_[d] = lo[d];
      h_scalar(DS_LEN + d) = box_len_[d] = len[d];
    }
    Kokkos::deep_copy(c_.scalar, h_scalar);
    box_synced_ = true;
    // type counts for the tail correction, counted on the device
    type_count_.assign(ntypes_ + 1, 0);
    if (!tail_.empty()) {
      Kokkos::View<long *, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> counts(type_count_.data(), ntypes_ + 1);
      Kokkos::parallel_reduce("gpumc:type_count", Kokkos::RangePolicy<ExecSpace>(0, natoms_),
                              kk::TypeCountFunctor<DeviceType>{(unsigned) ntypes_ + 1, type}, counts);
    }
    kk::WrapFunctor<DeviceType> wrap{x, c_.image, {lo[0], lo[1], lo[2]}, {len[0], len[1], len[2]}};
    Kokkos::parallel_for("gpumc:wrap", Kokkos::RangePolicy<ExecSpace>(0, natoms_), wrap);
    cb_.x = x;
    cells_stale_ = true;          // the cell list is filled from x when first needed (ensure_cells)
    cb_mobile_stale_ = true;      // the caller may pass a new group in a reused array
  }

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

 private:
  View<double *[3]> atom_positions()
  {
    if (cells_stale_) return cb_.x;
    kk::reuse_or_allocate(cb_.x, "gpumc:x", natoms_);
    Kokkos::parallel_for("gpumc:positions", Kokkos::RangePolicy<ExecSpace>(0, natoms_),
                         kk::PositionsFunctor<DeviceType>{c_, cb_.x});
    return cb_.x;
  }

 public:
  // ---- energies ----

  double tail_energy(double volume) const { return tail_.empty() ? 0.0 : tail_sum() / volume; }

  // Total energy (pair + tail) of the current configuration, also stored as the running energy
  // when `store` is set. Summed in a fixed order for a given cell list.
  double total_energy(bool store)
  {
    settle();
    double lo[3], len[3];
    fetch_box(lo, len);
    ensure_cells();
    double e = 0.0;
    pair_energy_sum(false, e);
    e += tail_energy(len[0] * len[1] * len[2]);
    if (store) set_running_energy(e);
    return e;
  }

  // Total energy summed in an order that depends only on the positions: cells rebuilt (each
  // sorted by atom ID) first, so that a chain split by restarts sums exactly as an unbroken one.
  double canonical_total_energy()
  {
    settle();
    double lo[3], len[3];
    fetch_box(lo, len);
    auto x = positions();
    choose_grid(box_len_, c_.g);
    fill_cells(x, c_.g.cap);
    return total_energy(false);
  }

  void set_running_energy(double e)
  {
    settle();
    Kokkos::deep_copy(Kokkos::subview(c_.scalar, (int) DS_ENERGY), e);
  }

  double running_energy()
  {
    settle();
    double e;
    Kokkos::deep_copy(e, Kokkos::subview(c_.scalar, (int) DS_ENERGY));
    return e;
  }

  // ---- moves ----

  // One sweep's worth of the chain: nmoves translations numbered first_move.. of atoms drawn from
  // `mobile` (atom indices), then nvol volume trials numbered first_vol... Everything runs on the
  // device; the host reads the counters once at the end to learn whether the chain stopped before
  // a move it could not carry out (see the header), and if so rebuilds and resumes at that move.
  void sweep(View<int *> mobile, double beta, double dmax, const CounterRNG &trans_rng, uint64_t first_move,
             uint64_t nmoves, int nvol, int scheme, double vstep, double pressure_energy, const CounterRNG &vol_rng,
             uint64_t first_vol)
  {
    settle();
    ensure_cells();
    uint64_t t_done = 0;
    int v_done = 0;
    long last_stop = -1, repeats = 0;
    for (;;) {
      if (t_done < nmoves && mobile.extent(0) > 0) chain(mobile, beta, dmax, trans_rng, first_move + t_done, nmoves - t_done);
      for (int v = v_done; v < nvol; v++) volume_trial(scheme, vstep, beta, pressure_energy, vol_rng, first_vol + v);
      if (nvol > 0) box_synced_ = false;
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.counter);
      if (!h(DC_STOPPED)) return;
      const long kind = h(DC_STOP_KIND), move = h(DC_STOP_MOVE);
      // a stop fixed by a rebuild never recurs at the same move: guard against a logic error
      repeats = (move == last_stop) ? repeats + 1 : 0;
      last_stop = move;
      if (repeats > 2) throw std::runtime_error("GPUMC Kokkos engine: the chain stopped repeatedly at one move");
      if (kind == 0) {
        t_done = (uint64_t) move - first_move;
        v_done = 0;
        rebuild_cells(false);    // a cell was full: more room per cell
      } else {
        t_done = nmoves;
        v_done = (int) ((uint64_t) move - first_vol);
        rebuild_cells(true);     // cells too narrow for the proposed box: a coarser grid
      }
    }
  }

  // Moves first..first+nmoves-1 of the sequential chain, in batches evaluated in parallel and
  // decided in order (kk::ChainCommitFunctor). GPUMC_CHAIN_BATCH sets the batch (a test hook:
  // the chain is the same for every batch; 1 is the strictly serial evaluation).
  void chain(View<int *> mobile, double beta, double dmax, const CounterRNG &rng, uint64_t first, uint64_t nmoves)
  {
    padding_stale_ = true;    // moves between cells
    const int batch = chain_batch();
    if (chain_.size() != batch) chain_ = kk::BatchData<DeviceType>(batch);
    const uint64_t nmobile = mobile.extent(0);
    const size_t bytes = kk::ChainCommitFunctor<DeviceType>::scratch_bytes(batch);
    for (uint64_t done = 0; done < nmoves; done += batch) {
      const int count = (int) std::min<uint64_t>(batch, nmoves - done);
      kk::ChainEvaluateFunctor<DeviceType> evaluate{c_, mobile, chain_, rng, dmax, first + done, nmobile};
      Kokkos::parallel_for("gpumc:chain_evaluate", light(TeamPolicy(count, team_size())), evaluate);
      Kokkos::parallel_for("gpumc:chain_corrections",
                           light(TeamPolicy(count, on_host() ? 1 : 64))
                               .set_scratch_size(0, Kokkos::PerTeam(kk::ChainCorrectionFunctor<DeviceType>::scratch_bytes(batch))),
                           kk::ChainCorrectionFunctor<DeviceType>{chain_, c_.scalar, c_.coeff, c_.nt1,
                                                                  cut_max_ * cut_max_ * (1.0 + 1e-12)});
      kk::ChainCommitFunctor<DeviceType> commit{c_, mobile, chain_, rng, beta, dmax, first + done, nmobile, count};
      Kokkos::parallel_for("gpumc:chain_commit",
                           light(TeamPolicy(1, commit_team())).set_scratch_size(0, Kokkos::PerTeam(bytes)), commit);
    }
  }

  // Mean Boltzmann factor of test insertions of `type`, ninsert or more of them: the same number
  // in every insertion box (kk::WidomArgs; boxes have equal volumes, so the mean over boxes is the
  // mean over the simulation box), numbered (block, g) in the stream. By default one team per
  // insertion box stages the atoms within reach of it in scratch memory and evaluates all its
  // insertions there; GPUMC_WIDOM_KERNEL=simple lets every insertion walk the cell list.
  double widom(int type, double beta, const CounterRNG &rng, uint64_t block, uint64_t ninsert, uint64_t &done)
  {
    settle();
    ensure_cells();
    const Grid g = c_.g;
    const long ncells = (long) g.n[0] * g.n[1] * g.n[2];
    kk::WidomArgs a;
    a.split = widom_split(ncells, ninsert, std::sqrt(row_cutsq_[type]));
    a.nboxes = ncells * a.split * a.split * a.split;
    a.per_box = (ninsert + a.nboxes - 1) / a.nboxes;
    done = a.per_box * a.nboxes;
    for (int d = 0; d < 3; d++) {
      a.lo[d] = box_lo_[d];
      a.len[d] = box_len_[d];
      a.width[d] = a.len[d] / (g.n[d] * a.split);
    }
    a.tail_shift = 0.0;
    if (!tail_.empty()) {
      double sum = tail_coeff(type, type);
      for (int j = 1; j <= ntypes_; j++) sum += 2.0 * (double) type_count_[j] * tail_coeff(type, j);
      a.tail_shift = sum / (a.len[0] * a.len[1] * a.len[2]);
    }
    a.type = type;
    a.beta = beta;
    a.block = block;
    double sum = 0.0;
    const char *kernel = std::getenv("GPUMC_WIDOM_KERNEL");
    if (kernel && std::string(kernel) == "simple") {
      Kokkos::parallel_reduce("gpumc:widom_simple",
                              Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>(0, (int64_t) done),
                              kk::WidomSimpleFunctor<DeviceType>{c_, a, rng}, sum);
    } else if (mixed_) {
      sum = widom_tiled<float>(a, rng);
    } else {
      sum = widom_tiled<double>(a, rng);
    }
    return sum / (double) done;
  }

  template <class Real>
  double widom_tiled(const kk::WidomArgs &a, const CounterRNG &rng)
  {
    using F = kk::WidomTiledFunctor<DeviceType, Real>;
    F f{c_, a, rng};
    int most = 0;
    Kokkos::parallel_reduce("gpumc:widom_staged_max",
                            Kokkos::RangePolicy<ExecSpace, typename F::TagStagedMax>(0, (int) a.nboxes), f,
                            Kokkos::Max<int>(most));
    f.cap = std::max(most, 1);
    const int team = widom_team();
    double sum = 0.0;
    const size_t bytes = F::scratch_bytes(f.cap, c_.nt1);
    f.level = bytes <= TeamPolicy::scratch_size_max(0) ? 0 : 1;
    const char *label = std::is_same<Real, float>::value ? "gpumc:widom_tiled_mixed" : "gpumc:widom_tiled";
    if constexpr (std::is_same<Real, float>::value) {
      // In single precision, warps of at most 64 registers where 32 of them fit a multiprocessor
      // with their scratch (H100, SiO2 at N = 74088: 1.15x the insertions per second of the 90
      // registers the compiler takes unbounded); else the unbounded kernel.
      using Bounded = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<32, 32>, typename F::TagInsertOnChip>;
      const auto bounded = Bounded((int) a.nboxes, team).set_scratch_size(0, Kokkos::PerTeam(bytes));
      if (f.level == 0 && team == 32 && bounded.team_size_max(f, Kokkos::ParallelReduceTag()) >= team) {
        Kokkos::parallel_reduce(label, bounded, f, sum);
        return sum;
      }
    }
    if (f.level == 0)
      Kokkos::parallel_reduce(label,
                              Kokkos::TeamPolicy<ExecSpace, typename F::TagInsertOnChip>((int) a.nboxes, team)
                                  .set_scratch_size(0, Kokkos::PerTeam(bytes)),
                              f, sum);
    else
      Kokkos::parallel_reduce(label,
                              Kokkos::TeamPolicy<ExecSpace, typename F::TagInsert>((int) a.nboxes, team)
                                  .set_scratch_size(1, Kokkos::PerTeam(bytes)),
                              f, sum);
    return sum;
  }

  // Threads per team of the Widom kernel: a warp on a GPU, so that a box's insertions fill whole
  // rounds of 32 more often than rounds of a larger team.
  int widom_team() const { return team_size_ > 0 ? team_size_ : (on_host() ? 1 : 32); }

  // Boxes per cell side for Widom insertions: the split (1 to 3) with the least work per insertion,
  // estimated in units of volume: the volume within the cutoff of a box (the atoms a team stages
  // and every insertion tests) over the fraction of a team's rounds of insertions its lanes fill,
  // plus the staging (the box's whole window, in two passes of about twice a test's cost each)
  // shared by the box's insertions. In SiO2 with 10^7 insertions this gives boxes of an eighth of
  // a cell at N = 74088 (91 insertions per box) and whole cells at N = 357911 (146).
  // GPUMC_WIDOM_SPLIT (a test hook) sets it.
  int widom_split(long ncells, uint64_t ninsert, double rc) const
  {
    const char *env = std::getenv("GPUMC_WIDOM_SPLIT");
    if (env && std::atoi(env) >= 1 && std::atoi(env) <= 3) return std::atoi(env);
    const double w = std::cbrt(box_len_[0] * box_len_[1] * box_len_[2] / (double) ncells);
    const uint64_t team = (uint64_t) widom_team();
    int best = 1;
    double best_cost = 0.0;
    for (int k = 1; k <= 3; k++) {
      const double b = w / k;
      const double reach = b * b * b + 6.0 * b * b * rc + 3.0 * M_PI * b * rc * rc + 4.0 * M_PI / 3.0 * rc * rc * rc;
      const uint64_t boxes = (uint64_t) ncells * k * k * k, per_box = (ninsert + boxes - 1) / boxes;
      const double filled = (double) per_box / (double) (team * ((per_box + team - 1) / team));
      const double window = std::pow((2 * kk::REACH + 1) * w, 3);
      const double cost = reach / filled + 4.0 * window / (double) per_box;
      if (k == 1 || cost < best_cost) {
        best = k;
        best_cost = cost;
      }
    }
    return best;
  }

  // ---- output ----

  // Box after the invocation (from the device).
  void fetch_box(double lo[3], double len[3])
  {
    settle();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.scalar);
    for (int d = 0; d < 3; d++) {
      lo[d] = box_lo_[d] = h(DS_LO + d);
      len[d] = box_len_[d] = h(DS_LEN + d);
    }
    box_synced_ = true;
  }

  // ---- checkerboard sweeps ----

  // One checkerboard sweep numbered `sweep` (gpumc_checkerboard.h) of the atoms listed in
  // `mobile`: the checkerboard cells are filled from the positions, then the 8 colours run, each as
  // a trial kernel and a decision kernel (checker_colours). Afterwards the positions are held in
  // atom order and the cell list of the other kernels is rebuilt when one of them next needs it.
  // The host does not wait for the sweep: its kernels are sized by the room that earlier sweeps
  // measured, and a sweep whose cells outgrow it stops the sweeps after it on the device. The
  // next call that reads the engine's state (or settle()) runs them again from that one, sized
  // by its measured sizes, so the chain is the same as if every sweep had been measured.
  void checkerboard_sweep(View<int *> mobile, double beta, double dmax, const CounterRNG &rng, uint64_t sweep)
  {
    const bool continues = pending_.count > 0 && pending_.mobile.data() == mobile.data() &&
        pending_.mobile.extent(0) == mobile.extent(0) && pending_.beta == beta && pending_.dmax == dmax &&
        pending_.rng.key == rng.key && pending_.first + pending_.count == sweep;
    if (!continues) settle();
    const bool measure = cb_room_.fullest == 0 || std::getenv("GPUMC_CHECKER_SYNC") != nullptr;
    launch_checkerboard_sweep(mobile, beta, dmax, rng, sweep, measure);
    if (measure) return;
    if (pending_.count == 0) pending_ = PendingSweeps{mobile, beta, dmax, rng, sweep, 0};
    pending_.count++;
  }

  // Waits for the pending checkerboard sweeps, and runs them again from one that stopped (the
  // stopped one measured): each stop grows the room.
  void settle()
  {
    while (pending_.count > 0) {
      const PendingSweeps p = pending_;
      pending_.count = 0;
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.counter);
      if (!h(DC_STOPPED)) return;
      if (h(DC_STOP_KIND) != 2) throw std::logic_error("GPUMC Kokkos engine: a chain stop left pending");
      const uint64_t stop = (uint64_t) h(DC_STOP_MOVE), end = p.first + p.count;
      if (stop < p.first || stop >= end) throw std::logic_error("GPUMC Kokkos engine: a stop outside the pending sweeps");
      Kokkos::deep_copy(Kokkos::subview(c_.counter, (int) DC_STOPPED), 0L);
      for (uint64_t sw = stop; sw < end; sw++) launch_checkerboard_sweep(p.mobile, p.beta, p.dmax, p.rng, sw, sw == stop);
      if (end > stop + 1) pending_ = PendingSweeps{p.mobile, p.beta, p.dmax, p.rng, stop + 1, end - stop - 1};
    }
  }

 private:
  // Sweep `sweep`, sized by the room that the host knows (measure: sized by its own sizes, read
  // back first, with the room grown to fit them).
  void launch_checkerboard_sweep(View<int *> mobile, double beta, double dmax, const CounterRNG &rng, uint64_t sweep,
                                 bool measure)
  {
    using B = kk::CheckerBuildFunctor<DeviceType>;
    double lo[3], len[3];
    if (!box_synced_) fetch_box(lo, len);
    CheckerGrid g;
    if (!checker_grid(rng, sweep, box_lo_, box_len_, checker_min_width(cut_max_), g))
      throw std::runtime_error("box too small for the checkerboard decomposition: each side must hold two cells "
                               "as wide as the largest cutoff");
    if (ntypes_ > 32767) throw std::runtime_error("the checkerboard kernel stages atom types as short integers");
    cb_.x = atom_positions();
    cb_.type = c_.type;
    cb_.counter = c_.counter;
    if ((int) cb_.cell_of.extent(0) != natoms_) {
      cb_.cell_of = View<int *>("gpumc:checker_cell_of", natoms_);
      cb_.mobile = View<int *>("gpumc:checker_mobile", natoms_);
    }
    if (cb_mobile_stale_ || mobile.data() != cb_mobile_source_.data() ||
        mobile.extent(0) != cb_mobile_source_.extent(0)) {
      cb_mobile_source_ = mobile;
      cb_mobile_stale_ = false;
      Kokkos::deep_copy(ExecSpace(), cb_.mobile, 0);
      Kokkos::parallel_for("gpumc:checker_mobile",
                           Kokkos::RangePolicy<ExecSpace, typename B::TagMobile>(0, (int) mobile.extent(0)),
                           B{cb_, mobile});
    }
    const int ncells = g.n[0] * g.n[1] * g.n[2];
    if ((int) cb_.count.extent(0) != ncells) {
      cb_.count = View<int *>("gpumc:checker_count", ncells);
      cb_.du = View<double *>("gpumc:checker_du", ncells);
      cb_.accepted = View<long *>("gpumc:checker_accepted", ncells);
      cb_.trials = View<long *>("gpumc:checker_trials", ncells);
    } else {
      Kokkos::deep_copy(ExecSpace(), cb_.count, 0);
    }
    // (the per-cell sums need no fill: each colour's decision kernel sets its cells')
    cb_.g = g;
    // (every kernel of a sweep takes its functor as a kernel argument: see light())
    Kokkos::parallel_for("gpumc:checker_count", light(Kokkos::RangePolicy<ExecSpace, typename B::TagCount>(0, natoms_)),
                         B{cb_, mobile});
    if (!cb_sizes_.data()) cb_sizes_ = View<kk::CheckerSizes>("gpumc:checker_sizes");
    Kokkos::parallel_reduce("gpumc:checker_sizes", light(Kokkos::RangePolicy<ExecSpace>(0, ncells)),
                            kk::CheckerSizesFunctor<DeviceType>{cb_}, cb_sizes_);
    if (measure) {
      kk::CheckerSizes m;
      Kokkos::deep_copy(m, cb_sizes_);
      // room for the sweeps that follow: a margin over this one's sizes
      cb_room_.fullest = std::max(cb_room_.fullest, m.fullest + m.fullest / 8 + 2);
      cb_room_.window = std::max(cb_room_.window, m.window + m.window / 16 + 32);
      if (cb_room_.fullest > cb_.cap) cb_.cap = m.fullest + m.fullest / 4 + 4;
      cb_.cap = std::max(cb_.cap, cb_room_.fullest);
    }
    // GPUMC_CHECKER_ROOM=0 (a test hook): no room for a sweep that is not measured, so that every
    // such sweep stops and runs again
    const char *room_env = std::getenv("GPUMC_CHECKER_ROOM");
    const kk::CheckerSizes room = !measure && room_env && std::atoi(room_env) == 0 ? kk::CheckerSizes{0, 0} : cb_room_;
    if ((size_t) ncells * cb_.cap != cb_.atom.extent(0)) {
      cb_.atom = View<int *>("gpumc:checker_atom", (size_t) ncells * cb_.cap);
      cb_.unsorted = View<int *>("gpumc:checker_unsorted", (size_t) ncells * cb_.cap);
      cb_.sux = View<double *>("gpumc:checker_sux", (size_t) ncells * cb_.cap);
      cb_.suy = View<double *>("gpumc:checker_suy", (size_t) ncells * cb_.cap);
      cb_.suz = View<double *>("gpumc:checker_suz", (size_t) ncells * cb_.cap);
      cb_.stype = View<short *>("gpumc:checker_stype", (size_t) ncells * cb_.cap);
    }
    Kokkos::parallel_for("gpumc:checker_guard", light(Kokkos::RangePolicy<ExecSpace>(0, 1)),
                         kk::CheckerGuardFunctor<DeviceType>{cb_sizes_, c_.counter, room.fullest, room.window, sweep});
    Kokkos::deep_copy(ExecSpace(), cb_.count, 0);
    Kokkos::parallel_for("gpumc:checker_fill", light(Kokkos::RangePolicy<ExecSpace, typename B::TagFill>(0, natoms_)),
                         B{cb_, mobile});
    Kokkos::parallel_for("gpumc:checker_sort",
                         light(Kokkos::TeamPolicy<ExecSpace, typename B::TagSort>(ncells, on_host() ? 1 : 64)),
                         B{cb_, mobile});

    int order[8];
    checker_colour_order(rng, sweep, order);
    if (mixed_)
      checker_colours<float>(g, order, room.fullest, room.window, beta, dmax, rng, sweep);
    else
      checker_colours<double>(g, order, room.fullest, room.window, beta, dmax, rng, sweep);
    if (!cb_sums_.data()) cb_sums_ = View<kk::CheckerSums>("gpumc:checker_sums");
    Kokkos::parallel_reduce("gpumc:checker_sum", light(Kokkos::RangePolicy<ExecSpace>(0, ncells)),
                            kk::CheckerSumFunctor<DeviceType>{cb_}, cb_sums_);
    Kokkos::parallel_for("gpumc:checker_add", light(Kokkos::RangePolicy<ExecSpace>(0, 1)),
                         kk::CheckerAddFunctor<DeviceType>{cb_sums_, c_.scalar, c_.counter});
    cells_stale_ = true;
  }

  // The 8 colours of a checkerboard sweep, pair terms in precision Real: per colour, a kernel that
  // evaluates the trials and one that decides them.
  template <class Real>
  void checker_colours(const CheckerGrid &g, const int order[8], int fullest, int window, double beta, double dmax,
                       const CounterRNG &rng, uint64_t sweep)
  {
    using F = kk::CheckerTrialFunctor<DeviceType, Real>;
    const int nactive = checker_active_count(g);
    const int window_cap = std::max(window, 1);
    if (window_cap > F::MAX_WINDOW)
      throw std::runtime_error("more than " + std::to_string(F::MAX_WINDOW) +
                               " atoms within reach of one checkerboard cell: too dense for the checkerboard kernel");
    cb_.corr_cap = kk::CheckerDecideFunctor<DeviceType>::pair_entries(cb_.cap);
    kk::reuse_or_allocate(cb_.trial_du, "gpumc:checker_trial_du", (size_t) nactive * cb_.cap);
    kk::reuse_or_allocate(cb_.trial_state, "gpumc:checker_trial_state", (size_t) nactive * cb_.cap);
    kk::reuse_or_allocate(cb_.trial_slot, "gpumc:checker_trial_slot", (size_t) nactive * cb_.cap);
    kk::reuse_or_allocate(cb_.trial_u, "gpumc:checker_trial_u", (size_t) nactive * cb_.cap);
    kk::reuse_or_allocate(cb_.trial_log_u, "gpumc:checker_trial_log_u", (size_t) nactive * cb_.cap);
    kk::reuse_or_allocate(cb_.trial_disp, "gpumc:checker_trial_disp", (size_t) 3 * nactive * cb_.cap);
    kk::reuse_or_allocate(cb_.trial_corr, "gpumc:checker_trial_corr", std::max<size_t>((size_t) nactive * cb_.corr_cap, 1));

    int team = checker_team_size();
    const int list_rounds = F::list_rounds_for(window_cap, team, warp_group(team));
    // (ALIGN: room to align the block the kernel carves)
    const size_t hot = F::hot_bytes(window_cap, team, list_rounds) + kk::ScratchCarver::ALIGN,
                 cold = F::cold_bytes(cb_.cap);
    int hot_level, cold_level;
    scratch_levels(hot, cold, team, hot_level, cold_level);
    F f{cb_, c_.coeff_view(Real()), c_.row_cutsq, c_.nt1, 0, window_cap, team, warp_group(team), 0, 0, list_rounds,
        hot_level, cold_level, rng, sweep, dmax};
    using Policy = typename F::Policy;
    auto with_scratch = [](auto p, int hl, int cl, size_t h, size_t c) {
      if (hl == cl) return p.set_scratch_size(hl, Kokkos::PerTeam(h + c));
      return p.set_scratch_size(0, Kokkos::PerTeam(h)).set_scratch_size(1, Kokkos::PerTeam(c));
    };
    // a team larger than the block limits with this much scratch runs as the largest that fits (its
    // lists are shorter: the same rounds, fewer groups)
    const int most = with_scratch(Policy(nactive, 1), hot_level, cold_level, hot, cold)
                         .team_size_max(f, Kokkos::ParallelForTag());
    if (team > most) {
      f.team = team = most >= 32 && warp_group(32) == 32 ? most / 32 * 32 : most;
      f.group = warp_group(team);
    }
    f.per_team = (team / f.group) * checker_trials_per_group(cb_.cap);
    f.teams_per_cell = (cb_.cap + f.per_team - 1) / f.per_team;

    using D = kk::CheckerDecideFunctor<DeviceType>;
    const int decide_team = on_host() ? 1 : 128;    // four warps: more loads in flight than one
    const size_t d_hot = D::hot_bytes(fullest), d_cold = D::cold_bytes(fullest);
    int d_hot_level, d_cold_level;
    scratch_levels(d_hot, d_cold, decide_team, d_hot_level, d_cold_level);
    D decide{cb_, c_.image, 0, warp_group(decide_team), d_hot_level, d_cold_level, beta, fullest};
    // the decisions of a colour: on CUDA by warps known to the compiler
    auto decide_colour = [&]() {
      if constexpr (cuda_space()) {
        if (decide.group == 32) {
          Kokkos::parallel_for("gpumc:checker_decide",
                               with_scratch(light(typename D::WarpPolicy(nactive, decide_team)), d_hot_level,
                                            d_cold_level, d_hot, d_cold),
                               decide);
          return;
        }
      }
      Kokkos::parallel_for("gpumc:checker_decide",
                           with_scratch(light(typename D::Policy(nactive, decide_team)), d_hot_level, d_cold_level,
                                        d_hot, d_cold),
                           decide);
    };
    const char *label = std::is_same<Real, float>::value ? "gpumc:checker_trials_mixed" : "gpumc:checker_trials";
    // the 8 colours, the trial kernel launched by a policy of policy_type's type (Policy or WarpPolicy)
    auto colours = [&](auto policy_type) {
      const auto trials_policy = with_scratch(light(decltype(policy_type)(nactive * f.teams_per_cell, team)),
                                              hot_level, cold_level, hot, cold);
      for (int k = 0; k < 8; k++) {
        f.colour = decide.colour = order[k];
        Kokkos::parallel_for(label, trials_policy, f);
        decide_colour();
      }
    };
    if constexpr (cuda_space()) {
      if (f.group == 32 && hot_level == 0) {
        colours(typename F::WarpPolicy());
        return;
      }
    }
    colours(Policy());
  }

 public:
  // The largest team the translation kernel of an algorithm can run with here: a host backend's
  // thread pool, a GPU's block limits for that kernel's registers.
  static int max_team_size(bool checkerboard, bool mixed)
  {
    if (checkerboard) return mixed ? checker_team_max<float>() : checker_team_max<double>();
    return TeamPolicy(1, 1).team_size_max(kk::ChainEvaluateFunctor<DeviceType>{}, Kokkos::ParallelForTag());
  }
  template <class Real>
  static int checker_team_max()
  {
    using F = kk::CheckerTrialFunctor<DeviceType, Real>;
    return typename F::Policy(1, 1).team_size_max(F{}, Kokkos::ParallelForTag());
  }

  long counter(int which)
  {
    settle();
    long v;
    Kokkos::deep_copy(v, Kokkos::subview(c_.counter, which));
    return v;
  }

  void reset_counters()
  {
    settle();
    Kokkos::deep_copy(c_.counter, 0L);
  }

  // Order-independent fingerprint of positions, types and box (not the host's: compare within a
  // backend only).
  uint64_t fingerprint()
  {
    settle();
    double lo[3], len[3];
    fetch_box(lo, len);
    uint64_t h = 0;
    Kokkos::parallel_reduce("gpumc:fingerprint", Kokkos::RangePolicy<ExecSpace>(0, natoms_),
                            kk::FingerprintFunctor<DeviceType>{atom_positions(), c_.type}, h);
    for (int d = 0; d < 3; d++) {
      uint64_t a, b;
      memcpy(&a, &lo[d], sizeof(a));
      memcpy(&b, &len[d], sizeof(b));
      h = h * 1099511628211ULL + a;
      h = h * 1099511628211ULL + b;
    }
    return h;
  }

 private:
  int natoms_ = 0, ntypes_ = 0, team_size_ = 0;
  bool mixed_ = false;
  double cut_max_ = 0.0;
  double box_lo_[3] = {0, 0, 0}, box_len_[3] = {0, 0, 0};    // the host's copy of the box
  std::vector<double> tail_;
  std::vector<double> row_cutsq_;    // the host's copy of c_.row_cutsq
  std::vector<long> type_count_;
  kk::CellData<DeviceType> c_;
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
  View<kk::CheckerSizes> cb_sizes_;   // the last sweep's sizes
  View<kk::CheckerSums> cb_sums_;
  // the positions are cb_.x's (as set, or moved by checkerboard sweeps), not the cell list's,
  // which is rebuilt from them when next needed
  bool cells_stale_ = false;
  bool cb_mobile_stale_ = true;    // cb_.mobile is to be rebuilt from the next sweep's group
  bool box_synced_ = false;     // box_lo_, box_len_ equal the device's box
  bool padding_stale_ = true;    // atoms may have changed cells since c_.pad_start was built

  // Threads per team of the checkerboard trial kernel (`team` overrides).
  int checker_team_size() const
  {
    if (team_size_ > 0) return team_size_;
    return on_host() ? 1 : 128;
  }
  // Trials per group (a warp) in a team of the checkerboard trial kernel: on a GPU a few, so that
  // a colour launches many teams (the more, the more often the staging is repeated); on a host
  // backend a whole cell, staged once. GPUMC_CHECKER_TRIALS (a test hook) sets it.
  static int checker_trials_per_group(int cell_cap)
  {
    const char *env = std::getenv("GPUMC_CHECKER_TRIALS");
    if (env && std::atoi(env) > 0) return std::atoi(env);
    return on_host() ? cell_cap : 4;
  }

  // The cell list of the translation, energy and Widom kernels, rebuilt from the positions of a
  // checkerboard sweep if one ran since it was last filled.
  void ensure_cells()
  {
    if (!cells_stale_) return;
    double lo[3], len[3];
    if (!box_synced_) fetch_box(lo, len);
    choose_grid(box_len_, c_.g);
    fill_cells(cb_.x, 0);
  }

  static bool on_host() { return std::is_same<ExecSpace, Kokkos::DefaultHostExecutionSpace>::value; }
  static constexpr bool cuda_space()
  {
#ifdef KOKKOS_ENABLE_CUDA
    return std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
    return false;
#endif
  }
  // Scratch levels of a team parallel_for's `hot` bytes (read in its inner loops) and `cold` bytes:
  // on chip (level 0) what fits, the hot bytes first, else level 1 (device memory). Kokkos limits a
  // CUDA team's level 0 to sharedMemPerBlock (48 KiB), less (team + 2) doubles it keeps for itself.
  static void scratch_levels(size_t hot, size_t cold, int team, int &hot_level, int &cold_level)
  {
    const size_t on_chip = TeamPolicy::scratch_size_max(0) + (size_t) (1024 - team) * sizeof(double);
    hot_level = hot <= on_chip ? 0 : 1;
    cold_level = hot_level == 0 && hot + cold <= on_chip ? 0 : 1;
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
#ifdef KOKKOS_ENABLE_CUDA
    if (std::is_same<ExecSpace, Kokkos::Cuda>::value && team % 32 == 0) return 32;
#endif
    return 1;
  }
  // the team that evaluates one move of a batch of the sequential chain: on a GPU 512 threads
  // (16 warps to hide the latency of the loads of one move's neighbourhood) where they fit
  int team_size() const
  {
    if (team_size_ > 0) return team_size_;
    return on_host() ? 1 : std::min(512, max_team_size(false, false));
  }
  // the team that decides a batch of the sequential chain: a warp on a GPU
  int commit_team() const { return on_host() ? 1 : 32; }
  // moves per batch of the sequential chain: about sqrt(N), so that few moves of a batch move an
  // atom that an earlier one moved (then evaluated again), at most 128
  int chain_batch() const
  {
    const char *env = std::getenv("GPUMC_CHAIN_BATCH");
    int batch = env ? std::max(1, std::atoi(env)) : std::max(8, (int) std::sqrt((double) natoms_));
    batch = std::min(batch, kk::CHAIN_BATCH_MAX);
    // no more than the deciding team's on-chip scratch holds
    while (batch > 1 && kk::ChainCommitFunctor<DeviceType>::scratch_bytes(batch) > TeamPolicy::scratch_size_max(0))
      batch = batch * 3 / 4;
    return batch;
  }

  double tail_coeff(int i, int j) const { return tail_[i * (ntypes_ + 1) + j]; }
  double tail_sum() const
  {
    double s = 0.0;
    for (int i = 1; i <= ntypes_; i++)
      for (int j = 1; j <= ntypes_; j++) s += (double) type_count_[i] * (double) type_count_[j] * tail_coeff(i, j);
    return s;
  }

  // Cells per side for a box: as many as fit while at least min_width wide, and no more than
  // about two per atom (sparse systems). A small margin keeps rounding out of the coverage.
  void choose_grid(const double len[3], Grid &g) const
  {
    g.min_width = cut_max_ * (1.0 + 1e-10) / kk::REACH;
    for (int d = 0; d < 3; d++) g.n[d] = g.min_width > 0.0 ? std::max(1, (int) std::min(len[d] / g.min_width, 1e6)) : 1;
    const long max_cells = std::max(27L, 2L * natoms_);
    while ((long) g.n[0] * g.n[1] * g.n[2] > max_cells) {
      int big = 0;
      for (int d = 1; d < 3; d++)
        if (g.n[d] > g.n[big]) big = d;
      g.n[big] = std::max(1, (int) (g.n[big] * 0.9));
    }
  }

  // Rebuild after a stop. After a full cell: the same grid with twice the room per cell. After a
  // volume trial whose box would make the cells too narrow: a grid that fits both the current and
  // the proposed box (each side the smaller of the two), so the trial can go ahead either way.
  void rebuild_cells(bool for_volume_trial)
  {
    double lo[3], len[3];
    fetch_box(lo, len);
    auto x = atom_positions();
    int cap = 2 * c_.g.cap;
    if (for_volume_trial) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.scalar);
      for (int d = 0; d < 3; d++) len[d] = std::min(len[d], h(DS_TRIAL_LEN + d));
      cap = 0;
    }
    choose_grid(len, c_.g);
    fill_cells(x, cap);
    Kokkos::deep_copy(Kokkos::subview(c_.counter, (int) DC_STOPPED), 0L);
  }

  // Sort atoms into cells: count (atomically), size the slots, fill, then order each cell's slots
  // by atom ID so that every sum over a cell is reproducible.
  void fill_cells(View<double *[3]> x, int min_cap)
  {
    using F = kk::CellBuildFunctor<DeviceType>;
    const int ncells = c_.g.n[0] * c_.g.n[1] * c_.g.n[2];
    kk::reuse_or_allocate(c_.count, "gpumc:count", ncells);
    Kokkos::deep_copy(ExecSpace(), c_.count, 0);
    F f{c_, x, {box_lo_[0], box_lo_[1], box_lo_[2]}, {box_len_[0], box_len_[1], box_len_[2]}};
    Kokkos::parallel_for("gpumc:count_cells", Kokkos::RangePolicy<ExecSpace, typename F::TagCount>(0, natoms_), f);
    int fullest = 0;
    Kokkos::parallel_reduce("gpumc:fullest", Kokkos::RangePolicy<ExecSpace, typename F::TagFullest>(0, ncells), f,
                            Kokkos::Max<int>(fullest));
    // room for atoms moving in; GPUMC_CELL_SLACK (a test hook) sets it, 0 forcing frequent stops
    const char *slack_env = std::getenv("GPUMC_CELL_SLACK");
    const int slack = slack_env ? std::max(0, std::atoi(slack_env)) : std::max(4, fullest / 2);
    c_.g.cap = std::max({min_cap, fullest + slack, 1});
    const size_t nslots = (size_t) ncells * c_.g.cap;
    kk::reuse_or_allocate(c_.sx, "gpumc:sx", nslots);    // (slots beyond a cell's count are never read)
    kk::reuse_or_allocate(c_.sy, "gpumc:sy", nslots);
    kk::reuse_or_allocate(c_.sz, "gpumc:sz", nslots);
    kk::reuse_or_allocate(c_.sid, "gpumc:sid", nslots);
    kk::reuse_or_allocate(c_.stype, "gpumc:stype", nslots);
    f.c = c_;
    Kokkos::parallel_for("gpumc:fill_cells", Kokkos::RangePolicy<ExecSpace, typename F::TagFill>(0, natoms_), f);
    Kokkos::parallel_for("gpumc:sort_cells", Kokkos::RangePolicy<ExecSpace, typename F::TagSort>(0, ncells), f);
    cells_stale_ = false;
    padding_stale_ = true;
  }

  // The energy's copy of the positions (CellData): its padded cells' first entries, rebuilt if
  // atoms may have changed cells since they were built, and its arrays, sized for the most entries
  // a grid can pad to without reading the count back (a row's 2 REACH padded cells hold at most
  // ceil(2 REACH / n[0]) copies of each of its cells).
  int padded_cells() const { return c_.g.n[1] * c_.g.n[2] * (c_.g.n[0] + 2 * kk::REACH); }
  void ensure_energy_copy()
  {
    const int npadded = padded_cells();
    if (padding_stale_ || (int) c_.pad_start.extent(0) != npadded + 1) {
      kk::reuse_or_allocate(c_.pad_start, "gpumc:pad_start", npadded + 1);
      Kokkos::parallel_scan("gpumc:pad_start", Kokkos::RangePolicy<ExecSpace>(0, npadded + 1),
                            kk::RowPaddingFunctor<DeviceType>{c_, npadded});
      padding_stale_ = false;
    }
    const size_t entries = (size_t) natoms_ * (1 + (2 * kk::REACH + c_.g.n[0] - 1) / c_.g.n[0]);
    kk::reuse_or_allocate(c_.ox, "gpumc:energy_ox", entries);
    kk::reuse_or_allocate(c_.oy, "gpumc:energy_oy", entries);
    kk::reuse_or_allocate(c_.oz, "gpumc:energy_oz", entries);
    kk::reuse_or_allocate(c_.otype, "gpumc:energy_otype", entries);
  }

  // Pair energy of the configuration (or of the volume trial's) into `result` (a double on the
  // host, or a device scalar).
  template <class Result>
  void pair_energy_sum(bool trial, Result &&result)
  {
    ensure_energy_copy();
    using F = kk::PairEnergyFunctor<DeviceType>;
    const char *label = trial ? "gpumc:volume_energy" : "gpumc:pair_energy";
    const int ncells = c_.g.n[0] * c_.g.n[1] * c_.g.n[2], parts = F::parts_for(ncells);
    F f{c_, trial, parts, ncells * parts};
    f.filter_cutsq = cut_max_ * cut_max_ * (1.0 + 1e-12);    // no pair lost to rounding
    Kokkos::parallel_for("gpumc:energy_gather",
                         light(Kokkos::RangePolicy<ExecSpace, typename F::TagGather>(0, padded_cells() * c_.g.cap)), f);
    constexpr int groups = F::TEAM / F::GROUP;
    // at most 64 registers: 8 teams per multiprocessor rather than 7 at the 72 the kernel takes
    // unbounded (H100, 400 volume moves at N = 74088: 0.081 against 0.087 s)
    using Policy = Kokkos::TeamPolicy<ExecSpace, typename F::TagCells, Kokkos::LaunchBounds<F::TEAM, 8>>;
    Kokkos::parallel_reduce(label,
                            light(Policy((f.nitems + groups - 1) / groups, F::TEAM))
                                .set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes())),
                            f, result);
  }

  void volume_trial(int scheme, double step, double beta, double pressure_energy, const CounterRNG &rng, uint64_t move)
  {
    using F = kk::VolumeFunctor<DeviceType>;
    ensure_energy_copy();    // commit reads the trial's positions from the energy's copy
    F f{c_, rng, move, scheme, step, 2.0 * cut_max_, beta, pressure_energy, (double) natoms_,
        tail_.empty() ? 0.0 : tail_sum()};
    Kokkos::parallel_for("gpumc:volume_propose", light(Kokkos::RangePolicy<ExecSpace, typename F::TagPropose>(0, 1)), f);
    // pair energy of the scaled configuration, into device memory (skipped for inactive trials)
    pair_energy_sum(true, Kokkos::subview(c_.scalar, (int) DS_TRIAL_ENERGY));
    Kokkos::parallel_for("gpumc:volume_accept", light(Kokkos::RangePolicy<ExecSpace, typename F::TagAccept>(0, 1)), f);
    Kokkos::parallel_for("gpumc:volume_commit",
                         light(Kokkos::RangePolicy<ExecSpace, typename F::TagCommit>(0, (int) c_.sx.extent(0))), f);
  }
};

}    // namespace gpumc
