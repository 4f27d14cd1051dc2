// Kernels of the Kokkos engine's Ewald sum (gpumc_ewald.h): the structure factors and their energy,
// the reciprocal-space parts of the sequential chain's batches (a move's change of E_recip, added to
// its pair terms from kk::ChainEvaluateFunctor, and the correction an accepted earlier move of the
// batch makes to it), the update of S by the accepted moves, and Widom insertions.
#pragma once

#include "gpumc_batch_kokkos.h"
#include "gpumc_ewald.h"
#include "gpumc_team_kokkos.h"
#include "gpumc_widom_kokkos.h"

#include <Kokkos_Complex.hpp>

namespace gpumc {
namespace kk {

// The wave vector k's m (views of m may be laid out either way)
template <class DeviceType>
KOKKOS_INLINE_FUNCTION void wave_vector(const EwaldData<DeviceType> &e, int k, int m[3])
{
  for (int d = 0; d < 3; d++) m[d] = e.m(k, d);
}

// S(k) from the atoms in the cell list's slots: a team per wave vector.
template <class DeviceType>
struct EwaldSumFunctor {
  using Member = typename Kokkos::TeamPolicy<typename DeviceType::execution_space>::member_type;
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  double lo[3], len[3];

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    const int k = team.league_rank();
    const int nslots = (int) c.sx.extent(0);
    Kokkos::complex<double> sum;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, nslots),
        [&](const int slot, Kokkos::complex<double> &acc) {
          if (slot % c.g.cap >= c.count(slot / c.g.cap)) return;
          const double pos[3] = {c.sx(slot), c.sy(slot), c.sz(slot)};
          int m[3];
          wave_vector(e, k, m);
          double re, im;
          ewald_term(m, e.charge(c.stype(slot)), pos, lo, len, re, im);
          acc += Kokkos::complex<double>(re, im);
        },
        sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      e.s(k, 0) = sum.real();
      e.s(k, 1) = sum.imag();
    });
  }
};

// qqrd2e sum_k ug |S|^2 (of the current box, or of a volume trial's wave vectors)
template <class DeviceType>
struct EwaldEnergyFunctor {
  EwaldData<DeviceType> e;
  KOKKOS_INLINE_FUNCTION void operator()(const int k, double &sum) const
  {
    sum += e.qqrd2e * e.ug(k) * (e.s(k, 0) * e.s(k, 0) + e.s(k, 1) * e.s(k, 1));
  }
};

// Adds a volume trial's E_recip (summed into `recip`) to its pair energy (DS_TRIAL_ENERGY)
template <class DeviceType>
struct EwaldTrialEnergyFunctor {
  CellData<DeviceType> c;
  Kokkos::View<double, DeviceType> recip;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const
  {
    if (c.counter(DC_TRIAL_ACTIVE)) c.scalar(DS_TRIAL_ENERGY) += recip();
  }
};

// The pair p = m (m - 1) / 2 + a of moves a < m of a batch
KOKKOS_INLINE_FUNCTION void batch_pair(int p, int &a, int &m)
{
  m = (int) ((1.0 + sqrt(1.0 + 8.0 * p)) / 2.0);
  while (m * (m - 1) / 2 > p) m--;
  while ((m + 1) * m / 2 <= p) m++;
  a = p - m * (m - 1) / 2;
}

// A phase (Re and Im, adjacent) at p: one 16-byte load on a GPU
KOKKOS_INLINE_FUNCTION void load_phase(const double *p, double &re, double &im)
{
#ifdef __CUDA_ARCH__
  const double2 v = *reinterpret_cast<const double2 *>(p);
  re = v.x;
  im = v.y;
#else
  re = p[0];
  im = p[1];
#endif
}

// Row r of the phase table in column j, laid out by move (EwaldData::phase_by_move; written by
// team_phases)
template <class DeviceType>
KOKKOS_INLINE_FUNCTION void phase_entry(const EwaldData<DeviceType> &e, int j, int r, double &re, double &im)
{
  load_phase(&e.phase_by_move(j, r, 0), re, im);
}

// The rows of move j's phase tables for the wave vector m at its old (position 0) or new (1)
// position: along x, y and z
template <class DeviceType>
KOKKOS_INLINE_FUNCTION int phase_row(const EwaldData<DeviceType> &e, int position, int d, int m)
{
  const int w = 2 * e.kmax + 1;
  return 3 * w * position + d * w + e.kmax + m;
}

// The term in S for the wave vector m of the move in column j at its old (position 0) or new (1)
// position, from the batch's phase tables
template <class DeviceType>
KOKKOS_INLINE_FUNCTION void batch_term(const EwaldData<DeviceType> &e, int j, int position, const int m[3], double q,
                                       double &re, double &im)
{
  double p[6];
  for (int d = 0; d < 3; d++) phase_entry(e, j, phase_row(e, position, d, m[d]), p[2 * d], p[2 * d + 1]);
  ewald_phase_product(p[0], p[1], p[2], p[3], p[4], p[5], q, re, im);
}

// The phase tables of a chain batch's move k (EwaldData::phase, in its buffer's column), by its
// evaluating team
template <class DeviceType, class Member>
KOKKOS_INLINE_FUNCTION void team_phases(const Member &team, const EwaldData<DeviceType> &e, int k,
                                        const double p_old[3], const double p_new[3], const double lo[3],
                                        const double len[3])
{
  const int w = 2 * e.kmax + 1;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 6 * w), [&](const int r) {
    const int d = (r / w) % 3;
    const double x = r < 3 * w ? p_old[d] : p_new[d];
    double re, im;
    ewald_phase(r % w - e.kmax, (x - lo[d]) / len[d], re, im);
    const int j = e.batch_column(k);
    e.phase(r, j, 0) = re;
    e.phase(r, j, 1) = im;
    e.phase_by_move(j, r, 0) = re;
    e.phase_by_move(j, r, 1) = im;
  });
}

// The change of S for the wave vector m by moves i0..i1-1 of a list of accepted moves (their phase
// tables' columns and charges), summed in list order, the loads of two moves issued together (the
// sum is a chain of latencies otherwise)
template <class DeviceType>
KOKKOS_INLINE_FUNCTION void moves_change(const EwaldData<DeviceType> &e, const int m[3], const int *column,
                                         const double *charge, int i0, int i1, double &re, double &im)
{
  re = im = 0.0;
  for (int i = i0; i < i1; i += 2) {
    double term[2][2][2] = {};    // [move][old, new][re, im]
    for (int u = 0; u < 2; u++)
      if (i + u < i1)
        for (int position = 0; position < 2; position++)
          batch_term(e, column[i + u], position, m, charge[i + u], term[u][position][0], term[u][position][1]);
    for (int u = 0; u < 2 && i + u < i1; u++) {
      re += term[u][1][0] - term[u][0][0];
      im += term[u][1][1] - term[u][0][1];
    }
  }
}

// S for the wave vector m (re, im) plus the changes of the n listed moves, summed in two halves
// (two independent chains of latencies)
template <class DeviceType>
KOKKOS_INLINE_FUNCTION void add_moves_changes(const EwaldData<DeviceType> &e, const int m[3], const int *column,
                                              const double *charge, int n, double &re, double &im)
{
  const int h = (n + 1) / 2;
  double first[2], rest[2];
  moves_change(e, m, column, charge, 0, h, first[0], first[1]);
  moves_change(e, m, column, charge, h, n, rest[0], rest[1]);
  re += first[0] + rest[0];
  im += first[1] + rest[1];
}

// Lists, in chain order, the moves of buffer u that were accepted and written (EwaldData::applied)
// by their columns and charges; returns how many, on the group's lanes (a CUDA warp, elsewhere one
// thread)
template <class DeviceType>
KOKKOS_INLINE_FUNCTION int list_applied_moves(const EwaldData<DeviceType> &e, int u, int group, int lane, int *column,
                                              double *charge)
{
  const int batch = (int) e.applied.extent(1);
  int n = 0;
  for (int base = 0; base < batch; base += group) {
    const int a = base + lane;
    const double q = a < batch ? e.applied(u, a) : 0.0;
    int added;
    const int slot = n + group_append(q != 0.0, group, lane, added);
    if (q != 0.0) {
      column[slot] = e.column(u, a);
      charge[slot] = q;
    }
    n += added;
  }
  group_sync(group);
  return n;
}

// The blocks (of 8 moves) of tile i of the tensor cores' tile group w, row (side 0) and column
// (1), in a chain batch's Gram matrix (EwaldBatchFunctor): rows {0,1} x columns {5,6,7}, {2,3} x
// {5,6,7}, the triangle of {5,6,7}, and the rest in three groups of at most five blocks each.
KOKKOS_INLINE_FUNCTION constexpr int ewald_tile_block(int w, int i, int side)
{
  constexpr int groups[6][6][2] = {{{0, 5}, {0, 6}, {0, 7}, {1, 5}, {1, 6}, {1, 7}},
                                   {{2, 5}, {2, 6}, {2, 7}, {3, 5}, {3, 6}, {3, 7}},
                                   {{5, 5}, {5, 6}, {5, 7}, {6, 6}, {6, 7}, {7, 7}},
                                   {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 1}},
                                   {{1, 2}, {1, 3}, {1, 4}, {2, 2}, {2, 3}, {2, 4}},
                                   {{3, 3}, {3, 4}, {4, 4}, {4, 5}, {4, 6}, {4, 7}}};
  return groups[w][i][side];
}
// whether a tile of group w takes its row or column from block
KOKKOS_INLINE_FUNCTION constexpr bool ewald_group_uses(int w, int block)
{
  for (int i = 0; i < 6; i++)
    if (ewald_tile_block(w, i, 0) == block || ewald_tile_block(w, i, 1) == block) return true;
  return false;
}
// every tile (I, J), I <= J, of the upper triangle of 8 x 8 blocks in exactly one group
constexpr bool ewald_tiles_cover_the_triangle()
{
  int seen[8][8] = {};
  for (int w = 0; w < 6; w++)
    for (int i = 0; i < 6; i++) {
      const int row = ewald_tile_block(w, i, 0), col = ewald_tile_block(w, i, 1);
      if (row > col) return false;
      seen[row][col]++;
    }
  for (int row = 0; row < 8; row++)
    for (int col = row; col < 8; col++)
      if (seen[row][col] != 1) return false;
  return true;
}
static_assert(ewald_tiles_cover_the_triangle(), "the tile groups cover the Gram matrix's upper triangle once");

// The reciprocal-space parts of a chain batch, against S at the start of the batch, in one pass
// over the wave vectors that keeps every move's change of S on chip: each team takes a range of
// wave vectors and, STAGE of them at a time, computes the change of S of every move (delta, zero
// for rows past the batch's moves; from its phase tables) times sqrt(ug) into scratch (so that the
// Gram matrix is the plain product of the rows), then adds up
//   per move m:          ug (|S + delta_m|^2 - |S|^2)          (its own change of E_recip)
//   per pair of moves:   ug Re(conj(delta_a) delta_m)           (half the coupling of a and m)
// over its range, in a fixed order. The pairs form a symmetric Gram matrix, of which only the
// upper triangle is summed.
//
// S at the start of the batch is S after the previous batch: the team first adds that batch's
// accepted moves (EwaldData::pending) to S over its range of wave vectors, each of which belongs to
// one team, so that no kernel of its own updates S between batches.
//
// With FP64 tensor cores (CUDA, GPUMC_FP64_MMA) it is the product of those rows with themselves
// (Re and Im parts as 2 STAGE steps of the inner dimension) in the 36 8 x 8 tiles of the upper
// triangle, a group of six per warp (ewald_tile_block) whose tiles share their blocks of moves: a
// warp loads each block once per step and uses it as either factor (in the fragments of mma's A
// and B a lane holds the same element). The first two warps sum the moves' own changes meanwhile,
// then stage the next wave vectors (the staged ones are double-buffered). Otherwise a thread
// holds an R x R block of the Gram matrix in registers, rows ta, ta + G, ... and columns tm,
// tm + G, ... (G = 64 / R: a warp reads consecutive deltas), for ta <= tm only (block (tm, ta) is
// its transpose): G (G + 1) / 2 blocks, a whole 64 x 64 matrix on a host (one thread, R = 64),
// and the team's other threads sum the moves' own changes and stage the wave vectors.
template <class DeviceType>
struct EwaldBatchFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int ROWS = EWALD_BATCH_MAX;    // moves per batch, padded
  static constexpr int STAGE = 32;                // wave vectors staged at a time
  static constexpr bool host = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
#ifdef KOKKOS_ENABLE_CUDA
  static constexpr bool mma = GPUMC_FP64_MMA && std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
  static constexpr bool mma = false;
#endif
  static constexpr int team_size() { return host ? 1 : 256; }
  // two teams per multiprocessor (at most 128 registers a thread)
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 2>>;
  // register blocks (no tensor cores; 256 >= TILES + ROWS + STAGE: spare threads)
  static constexpr int R = host ? ROWS : 4, G = ROWS / R, TILES = G * (G + 1) / 2;
  // tensor-core tiles: warps OWN_WARPS.. take TILES_PER_WARP tiles each
  static constexpr int OWN_WARPS = ROWS / 32, TILES_PER_WARP = 6, BLOCKS = ROWS / 8;
  static_assert(ROWS == 64 && 256 / 32 - OWN_WARPS == 6, "ewald_tile_block covers 64 moves with 6 warps");
  // a scratch row of deltas (one wave vector's Re or Im parts of every move): padded for the
  // tensor cores, so that the four rows of a half-warp's fragment loads fall on distinct banks
  static constexpr int PITCH = mma ? ROWS + 4 : ROWS;
  // a staged wave vector: sqrt(ug), and S times sqrt(ug) (Re, Im), as the deltas are kept (and its
  // m, as ints)
  static constexpr int WAVE = 3;
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  BatchData<DeviceType> b;
  uint64_t launched_first = 0;
  int launched_count = 0;
  int64_t end = -1;

  static size_t scratch_bytes()
  {
    using S = ScratchView<ExecSpace, double>;
    return S::shmem_size(2 * STAGE * PITCH) + S::shmem_size(2 * WAVE * STAGE) +
        ScratchView<ExecSpace, int>::shmem_size(2 * 3 * STAGE) + 2 * S::shmem_size(ROWS) +
        ScratchView<ExecSpace, int>::shmem_size(ROWS + 1) + S::shmem_size(ROWS);
  }

  // A stage of warp group W's tiles: rows, the stage's deltas (times sqrt(ug))
  template <int W>
  KOKKOS_INLINE_FUNCTION void tile_stage(const double *rows, int lane, double (&acc)[TILES_PER_WARP][2]) const
  {
    GPUMC_NO_UNROLL    // (six warps' code: unrolled, it missed the instruction cache)
    for (int step = 0; step < 2 * STAGE / 4; step++) {
      const int row = 4 * step + lane % 4;
      const double *at = rows + row * PITCH + lane / 4;
      double frag[BLOCKS];
GPUMC_UNROLL
      for (int block = 0; block < BLOCKS; block++)
        if (ewald_group_uses(W, block)) frag[block] = at[8 * block];
GPUMC_UNROLL
      for (int i = 0; i < TILES_PER_WARP; i++)
        warp_mma_8x8x4(frag[ewald_tile_block(W, i, 0)], frag[ewald_tile_block(W, i, 1)], acc[i][0], acc[i][1]);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    if (c.counter(DC_STOPPED)) return;
    uint64_t first;
    int count;
    b.span(launched_first, launched_count, end, first, count);
    const int nteams = team.league_size(), t = team.league_rank(), tid = team.team_rank();
    const int nthreads = team.team_size();
    const int k_begin = (int) ((long) e.nk * t / nteams), k_end = (int) ((long) e.nk * (t + 1) / nteams);
    // Re of wave vector s's deltas in row s, Im in row STAGE + s
    ScratchView<ExecSpace, double> delta(team.team_scratch(0), 2 * STAGE * PITCH);
    ScratchView<ExecSpace, double> wave(team.team_scratch(0), 2 * WAVE * STAGE);    // two stages' worth
    ScratchView<ExecSpace, int> wave_m(team.team_scratch(0), 2 * 3 * STAGE);
    ScratchView<ExecSpace, double> charge(team.team_scratch(0), ROWS);
    ScratchView<ExecSpace, double> own(team.team_scratch(0), ROWS);
    // the previous batch's accepted moves, listed by the first group of threads ([ROWS]: how many)
    ScratchView<ExecSpace, int> applied_column(team.team_scratch(0), ROWS + 1);
    ScratchView<ExecSpace, double> applied_charge(team.team_scratch(0), ROWS);
    const int group = host ? 1 : 32;
    if (tid < group) {
      const int pending = e.pending();
      const int n = pending ? list_applied_moves(e, pending - 1, group, tid, applied_column.data(), applied_charge.data())
                            : 0;
      if (tid == 0) applied_column(ROWS) = n;
    }
    team.team_barrier();
    // those moves added to S over the team's wave vectors, by every thread, before any is staged
    // (not as the wave vectors are staged: the staging threads would be the stages' slowest):
    // rounds of a wave vector per thread, then the wave vectors left (fewer than the threads) with
    // the list split into parts over several threads, so that the others do not wait at the
    // barrier for the few that would take one wave vector more
    if (const int napplied = applied_column(ROWS)) {
      const int *const column = as_shared(applied_column.data());
      const double *const charge_applied = as_shared(applied_charge.data());
      const int nwaves = k_end - k_begin, rest = nwaves % nthreads, k_rest = k_end - rest;
      for (int k = k_begin + tid; k < k_rest; k += nthreads) {
        int m[3];
        wave_vector(e, k, m);
        double re = e.s(k, 0), im = e.s(k, 1);
        add_moves_changes(e, m, column, charge_applied, napplied, re, im);
        e.s(k, 0) = re;
        e.s(k, 1) = im;
      }
      if (rest) {
        const int parts = nthreads / rest;
        double *const part = as_shared(delta.data());    // (free until the first stage)
        if (tid < rest * parts) {
          const int p = tid % parts;
          int m[3];
          wave_vector(e, k_rest + tid / parts, m);
          double re, im;
          moves_change(e, m, column, charge_applied, napplied * p / parts, napplied * (p + 1) / parts, re, im);
          part[2 * tid] = re;
          part[2 * tid + 1] = im;
        }
        team.team_barrier();
        if (tid < rest) {
          const int k = k_rest + tid;
          double re = 0.0, im = 0.0;
          for (int p = 0; p < parts; p++) {
            re += part[2 * (tid * parts + p)];
            im += part[2 * (tid * parts + p) + 1];
          }
          e.s(k, 0) += re;
          e.s(k, 1) += im;
        }
      }
      team.team_barrier();
    }
    // the threads that sum the moves' own changes and then stage the next wave vectors
    const bool spare = nthreads >= TILES + ROWS + STAGE;
    const int own_first = spare ? TILES : 0;    // (not with the tensor cores: warps 0 .. OWN_WARPS - 1)
    const int stage_first = mma ? 0 : spare ? TILES + ROWS : 0,
              stage_threads = mma ? 32 * OWN_WARPS : spare ? nthreads - TILES - ROWS : nthreads;
    // wave vectors k0.. (those past k_end zero: the tensor cores take whole stages) into buffer
    auto stage_waves = [&](int k0, int buffer, int thread) {
      for (int s = thread; s < STAGE; s += stage_threads) {
        const int k = k0 + s;
        double v[WAVE] = {0.0, 0.0, 0.0};
        int m[3] = {0, 0, 0};
        if (k < k_end) {
          const double ug = e.ug(k), s_re = e.s(k, 0), s_im = e.s(k, 1);
          wave_vector(e, k, m);
          v[0] = sqrt(ug);
          v[1] = v[0] * s_re;
          v[2] = v[0] * s_im;
        }
        for (int i = 0; i < WAVE; i++) wave(WAVE * (buffer * STAGE + s) + i) = v[i];
        for (int d = 0; d < 3; d++) wave_m(3 * (buffer * STAGE + s) + d) = m[d];
      }
    };
    // (here and in the staging, every load before the stores: scratch and global memory may alias
    // for the compiler, which would otherwise wait for each load in turn)
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ROWS), [&](const int j) {
      const double q = j < count ? e.charge(b.index(j, 1)) : 0.0;
      charge(j) = q;
      own(j) = 0.0;
    });
    if (tid >= stage_first && tid < stage_first + stage_threads) stage_waves(k_begin, 0, tid - stage_first);
    auto own_change = [&](const int j, const int n, const int buffer) {
      double sum = own(j);
      const int w0 = WAVE * buffer * STAGE;
      // (ug (2 S.delta + |delta|^2) with S and delta both times sqrt(ug): ewald_change for ug 1)
      for (int s = 0; s < n; s++)
        sum += ewald_change(1.0, wave(w0 + WAVE * s + 1), wave(w0 + WAVE * s + 2), delta(s * PITCH + j),
                            delta((STAGE + s) * PITCH + j));
      own(j) = sum;
    };
    // register blocks: block tid of the upper triangle, row by row
    int ta = 0, tm = tid;
    while (ta < G && tm >= G - ta) {
      tm -= G - ta;
      ta++;
    }
    tm += ta;
    double acc[mma ? 1 : R][mma ? 1 : R];
    for (int i = 0; i < (mma ? 1 : R); i++)
      for (int j = 0; j < (mma ? 1 : R); j++) acc[i][j] = 0.0;
    // tensor-core tiles; lane l's part of the inner dimension is l % 4, of a block of moves l / 4
    const int warp = tid / 32, lane = tid % 32;
    double tile_acc[mma ? TILES_PER_WARP : 1][2];
    for (int i = 0; i < (mma ? TILES_PER_WARP : 1); i++) tile_acc[i][0] = tile_acc[i][1] = 0.0;
    // the phase tables' rows (phase_row) lie `row` doubles apart
    const int row = (int) e.phase.stride(0);
    for (int k0 = k_begin, buffer = 0; k0 < k_end; k0 += STAGE, buffer ^= 1) {
      const int n = k_end - k0 < STAGE ? k_end - k0 : STAGE;
      const int nstaged = mma ? STAGE : n;
      team.team_barrier();
      // deltas: a thread takes LOADS consecutive wave vectors of one move at a time (a warp's
      // threads, consecutive moves of the same wave vectors), and keeps the x y part of the move's
      // terms while m along x and y stays the same (the device's wave vectors come in rows along
      // z: device_wave_vectors)
      constexpr int LOADS = 8, HOIST = 4;
      static_assert(LOADS % HOIST == 0, "a thread's wave vectors in whole groups of loads");
      const int row_threads = nthreads < ROWS ? nthreads : ROWS, groups = nthreads / row_threads;
      const int *m_staged = &wave_m(3 * buffer * STAGE);
      for (int j = tid % row_threads; j < ROWS; j += row_threads) {
        // m = 0 along x, y and z of the old position, and the step to the new position's rows
        const double *x_old = e.phase.data() + phase_row(e, 0, 0, 0) * row +
                              e.batch_column(j < count ? j : 0) * e.phase.stride(1),
                     *y_old = x_old + (phase_row(e, 0, 1, 0) - phase_row(e, 0, 0, 0)) * row,
                     *z_old = x_old + (phase_row(e, 0, 2, 0) - phase_row(e, 0, 0, 0)) * row;
        const long to_new = (long) (phase_row(e, 1, 0, 0) - phase_row(e, 0, 0, 0)) * row;
        const double q = charge(j);
        for (int s0 = tid / row_threads * LOADS; s0 < nstaged; s0 += groups * LOADS) {
          // the z phases of HOIST wave vectors loaded before any of them is used (one latency for
          // them, not HOIST); x y phases at the thread's first wave vector and where a row along z
          // begins
          const bool active = j < count;
          int xy_m[2] = {0, 0};
          double xy[2][2] = {{0.0, 0.0}, {0.0, 0.0}};    // [old, new][re, im]
          for (int h = 0; h < LOADS; h += HOIST) {
            double z[HOIST][2][2];    // [wave vector][old, new][re, im]
GPUMC_UNROLL
            for (int r = 0; r < HOIST; r++) {
              const int s = s0 + h + r;
              const int mz = active && s < n ? m_staged[3 * s + 2] : 0;
              for (int position = 0; position < 2; position++)
                load_phase(z_old + position * to_new + mz * row, z[r][position][0], z[r][position][1]);
            }
GPUMC_UNROLL
            for (int r = 0; r < HOIST; r++) {
              const int s = s0 + h + r;
              if (s >= nstaged) break;
              double dre = 0.0, dim = 0.0;
              if (active && s < n) {
                const int mx = m_staged[3 * s], my = m_staged[3 * s + 1];
                if (h + r == 0 || mx != xy_m[0] || my != xy_m[1]) {
                  for (int position = 0; position < 2; position++) {
                    double x_re, x_im, y_re, y_im;
                    load_phase(x_old + position * to_new + mx * row, x_re, x_im);
                    load_phase(y_old + position * to_new + my * row, y_re, y_im);
                    ewald_phase_xy(x_re, x_im, y_re, y_im, xy[position][0], xy[position][1]);
                  }
                  xy_m[0] = mx;
                  xy_m[1] = my;
                }
                double term[2][2];
                for (int position = 0; position < 2; position++)
                  ewald_phase_xyz(xy[position][0], xy[position][1], z[r][position][0], z[r][position][1], q,
                                  term[position][0], term[position][1]);
                const double root_ug = wave(WAVE * (buffer * STAGE + s));
                dre = root_ug * (term[1][0] - term[0][0]);
                dim = root_ug * (term[1][1] - term[0][1]);
              }
              delta(s * PITCH + j) = dre;
              delta((STAGE + s) * PITCH + j) = dim;
            }
          }
        }
      }
      team.team_barrier();
      const bool last = k0 + STAGE >= k_end;
      if constexpr (mma) {
        if (warp < OWN_WARPS) {
          if (tid < count) own_change(tid, n, buffer);
          if (!last) stage_waves(k0 + STAGE, buffer ^ 1, tid);
        } else {
          const double *rows = as_shared(delta.data());
          switch (warp - OWN_WARPS) {
            case 0: tile_stage<0>(rows, lane, tile_acc); break;
            case 1: tile_stage<1>(rows, lane, tile_acc); break;
            case 2: tile_stage<2>(rows, lane, tile_acc); break;
            case 3: tile_stage<3>(rows, lane, tile_acc); break;
            case 4: tile_stage<4>(rows, lane, tile_acc); break;
            default: tile_stage<5>(rows, lane, tile_acc); break;
          }
        }
      } else {
        if (!spare) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int j) { own_change(j, n, buffer); });
        } else if (tid >= own_first && tid - own_first < count) {
          own_change(tid - own_first, n, buffer);
        }
        if (tid < TILES)
          for (int s = 0; s < n; s++) {
            double a_re[R], a_im[R], m_re[R], m_im[R];
            for (int i = 0; i < R; i++) {
              a_re[i] = delta(s * PITCH + ta + G * i);
              a_im[i] = delta((STAGE + s) * PITCH + ta + G * i);
              m_re[i] = delta(s * PITCH + tm + G * i);
              m_im[i] = delta((STAGE + s) * PITCH + tm + G * i);
            }
            for (int i = 0; i < R; i++)
              for (int j = 0; j < R; j++) acc[i][j] += a_re[i] * m_re[j] + a_im[i] * m_im[j];
          }
        if (!last) {
          if (!spare) team.team_barrier();    // (every thread has read this stage's wave vectors)
          if (tid >= stage_first && tid < stage_first + stage_threads)
            stage_waves(k0 + STAGE, buffer ^ 1, tid - stage_first);
        }
      }
    }
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int j) { e.part_own(t, j) = own(j); });
    if constexpr (mma) {
      if (warp >= OWN_WARPS)
        for (int i = 0; i < TILES_PER_WARP; i++)
          for (int h = 0; h < 2; h++) {
            // (the table read at constant group indices: indexed by the warp, it would be copied
            // to every thread's stack)
            int blocks[2] = {0, 0};
            for (int side = 0; side < 2; side++)
              for (int g = 0; g < 6; g++)
                if (g == warp - OWN_WARPS) blocks[side] = ewald_tile_block(g, i, side);
            const int a = 8 * blocks[0] + lane / 4, m = 8 * blocks[1] + 2 * (lane % 4) + h;
            if (a < m && m < count) e.part_pair(t, m * (m - 1) / 2 + a) = 2.0 * tile_acc[i][h];
          }
    } else if (tid < TILES) {
      for (int i = 0; i < R; i++)
        for (int j = 0; j < R; j++) {
          const int a = ta + G * i, m = tm + G * j, lo_move = a < m ? a : m, hi_move = a < m ? m : a;
          if ((ta < tm || i < j) && hi_move < count)
            e.part_pair(t, hi_move * (hi_move - 1) / 2 + lo_move) = 2.0 * acc[i][j];
        }
    }
  }
};

// The teams' parts summed (a team per pair of moves, then per move): a pair's coupling added to
// the correction from its pair terms (batch_correction's, its four terms by four threads while the
// others load the parts; a pair of moves of one atom keeps its NaN), a move's own change of E_recip
// to its energy change.
template <class DeviceType, class Pairs>
struct EwaldBatchFinishFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  BatchData<DeviceType> b;
  int pairs, teams;
  double cutsq_max;

  static size_t scratch_bytes() { return ScratchView<ExecSpace, double>::shmem_size(4); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    if (c.counter(DC_STOPPED)) return;
    const int i = team.league_rank();
    ScratchView<ExecSpace, double> term(team.team_scratch(0), 4);
    int kind = BATCH_APART;
    if (i < pairs) {
      int a, m;
      batch_pair(i, a, m);
      const BatchMove mover = batch_move(b, a), moved = batch_move(b, m);
      double len[3];
      for (int d = 0; d < 3; d++) len[d] = c.scalar(DS_LEN + d);
      kind = batch_pair_kind(mover, moved, len, cutsq_max);
      if (kind == BATCH_NEAR) {
        const int nterms = Pairs::terms(c.nterms);
        const PairCoeff *coeff = c.coeff.data() + (moved.type * c.nt1 + mover.type) * nterms;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 4), [&](const int t) {
          term(t) = batch_correction_term<Pairs>(mover, moved, coeff, c.nterms, len, t);
        });
      }
    }
    double sum = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, teams),
        [&](const int t, double &acc) { acc += i < pairs ? e.part_pair(t, i) : e.part_own(t, i - pairs); }, sum);
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (i < pairs) {
        e.pair_correction(i) = batch_correction_of(kind, term.data()) + e.qqrd2e * sum;
      } else {
        b.du_u(i - pairs, 0) += e.qqrd2e * sum;
      }
    });
  }
};

// S plus the changes of the pending moves (EwaldData::pending: the chain's last batch's accepted
// moves, which no one-pass kernel has added), computed again from their phase tables as
// EwaldBatchFunctor adds them: a team lists them, then a thread per wave vector.
template <class DeviceType>
struct EwaldApplyFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int WAVES = 256;    // wave vectors per team
  EwaldData<DeviceType> e;

  static size_t scratch_bytes(int batch)
  {
    return ScratchView<ExecSpace, int>::shmem_size(batch + 1) + ScratchView<ExecSpace, double>::shmem_size(batch);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    const int pending = e.pending();
    if (!pending) return;
    const int batch = (int) e.applied.extent(1);
    ScratchView<ExecSpace, int> column(team.team_scratch(0), batch + 1);    // [batch]: how many
    ScratchView<ExecSpace, double> charge(team.team_scratch(0), batch);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      column(batch) = list_applied_moves(e, pending - 1, 1, 0, column.data(), charge.data());
    });
    team.team_barrier();
    const int n = column(batch);
    const int k_begin = team.league_rank() * WAVES, k_end = k_begin + WAVES < e.nk ? k_begin + WAVES : e.nk;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, k_begin, k_end), [&](const int k) {
      int m[3];
      wave_vector(e, k, m);
      double re = e.s(k, 0), im = e.s(k, 1);
      add_moves_changes(e, m, column.data(), charge.data(), n, re, im);
      e.s(k, 0) = re;
      e.s(k, 1) = im;
    });
  }
};

// Widom insertions with an Ewald sum: a team per insertion, numbered and placed as
// WidomSimpleFunctor's, its pair terms over the window of cells around it and its change of
// E_recip over the wave vectors (the count shift holds the self and background terms).
template <class DeviceType>
struct EwaldWidomFunctor {
  using Member = typename Kokkos::TeamPolicy<typename DeviceType::execution_space>::member_type;
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  WidomArgs a;
  CounterRNG rng{0, 0};
  int64_t base = 0;    // the first insertion of this launch

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team, double &acc) const
  {
    double p[3];
    int cc[3];
    widom_insertion(c.g, a, rng, (uint64_t) (base + team.league_rank()), cc, p);
    double pair = 0.0, recip = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, WIDOM_WINDOW_CELLS),
        [&](const int w, double &sum) { sum += widom_cell_energy(c, a, cc, p, w); }, pair);
    const double q = e.charge(a.type);
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, e.nk),
        [&](const int k, double &sum) {
          int m[3];
          wave_vector(e, k, m);
          double re, im;
          ewald_term(m, q, p, a.lo, a.len, re, im);
          sum += ewald_change(e.ug(k), e.s(k, 0), e.s(k, 1), re, im);
        },
        recip);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { acc += exp(-a.beta * (pair + e.qqrd2e * recip + a.count_shift)); });
  }
};

}    // namespace kk
}    // namespace gpumc
