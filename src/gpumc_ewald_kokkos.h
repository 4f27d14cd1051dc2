// Kernels of the Kokkos engine's Ewald sum (gpumc_ewald.h): the structure factors and their energy,
// the reciprocal-space parts of the sequential chain's batches (a move's change of E_recip, added to
// its pair terms from kk::ChainEvaluateFunctor, and the correction an accepted earlier move of the
// batch makes to it), the update of S by the accepted moves, and Widom insertions.
#pragma once

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

// Move j's term in S for the wave vector m at its old (position 0) or new (1) position, from the
// batch's phase tables (EwaldData::phase, or phase_by_move if by_move; written by team_phases)
template <class DeviceType>
KOKKOS_INLINE_FUNCTION void batch_term(const EwaldData<DeviceType> &e, int j, int position, const int m[3], double q,
                                       double &re, double &im, bool by_move = false)
{
  const int w = 2 * e.kmax + 1, base = 3 * w * position + e.kmax;
  const int r[3] = {base + m[0], base + w + m[1], base + 2 * w + m[2]};
  double p[6];
  for (int d = 0; d < 3; d++) {
    p[2 * d] = by_move ? e.phase_by_move(j, r[d], 0) : e.phase(r[d], j, 0);
    p[2 * d + 1] = by_move ? e.phase_by_move(j, r[d], 1) : e.phase(r[d], j, 1);
  }
  ewald_phase_product(p[0], p[1], p[2], p[3], p[4], p[5], q, re, im);
}

// The phase tables of a chain batch's move k (EwaldData::phase), by its evaluating team
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
    e.phase(r, k, 0) = re;
    e.phase(r, k, 1) = im;
    e.phase_by_move(k, r, 0) = re;
    e.phase_by_move(k, r, 1) = im;
  });
}

// The reciprocal-space parts of a chain batch, against S at the start of the batch, in one pass
// over the wave vectors that keeps every move's change of S on chip: each team takes a range of
// wave vectors and, STAGE of them at a time, computes the change of S of every move (delta, zero
// for rows past the batch's moves; from its phase tables) into scratch, then adds up
//   per move m:          ug (|S + delta_m|^2 - |S|^2)          (its own change of E_recip)
//   per pair of moves:   ug Re(conj(delta_a) delta_m)           (half the coupling of a and m)
// over its range, in a fixed order. The pairs form a symmetric Gram matrix, tiled over the team: a
// thread holds an R x R block of it in registers, rows ta, ta + G, ... and columns tm, tm + G, ...
// (G = 64 / R: a warp reads consecutive deltas), for ta <= tm only (block (tm, ta) is its
// transpose): G (G + 1) / 2 blocks, a whole 64 x 64 matrix on a host (one thread, R = 64). On a GPU
// the team's other threads sum the moves' own changes meanwhile.
template <class DeviceType>
struct EwaldBatchFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int ROWS = EWALD_BATCH_MAX;    // moves per batch, padded
  static constexpr int STAGE = 32;                // wave vectors staged at a time
  static constexpr bool host = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
  static constexpr int R = host ? ROWS : 4, G = ROWS / R, TILES = G * (G + 1) / 2;
  static constexpr int team_size() { return host ? 1 : 256; }    // (256 >= TILES + ROWS: spare threads)
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  BatchData<DeviceType> b;
  uint64_t launched_first = 0;
  int launched_count = 0;
  int64_t end = -1;

  static size_t scratch_bytes()
  {
    using S = ScratchView<ExecSpace, double>;
    return 2 * S::shmem_size(ROWS * STAGE) + S::shmem_size(3 * STAGE) + 2 * S::shmem_size(ROWS);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    if (c.counter(DC_STOPPED)) return;
    uint64_t first;
    int count;
    b.span(launched_first, launched_count, end, first, count);
    const int nteams = team.league_size(), t = team.league_rank(), tid = team.team_rank();
    const int k_begin = (int) ((long) e.nk * t / nteams), k_end = (int) ((long) e.nk * (t + 1) / nteams);
    ScratchView<ExecSpace, double> d_re(team.team_scratch(0), ROWS * STAGE), d_im(team.team_scratch(0), ROWS * STAGE);
    ScratchView<ExecSpace, double> wave(team.team_scratch(0), 3 * STAGE);    // ug, Re S, Im S
    ScratchView<ExecSpace, double> charge(team.team_scratch(0), ROWS);
    ScratchView<ExecSpace, double> own(team.team_scratch(0), ROWS);
    // (here and below every load before the stores: scratch and global memory may alias for the
    // compiler, which would otherwise wait for each load in turn)
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ROWS), [&](const int j) {
      const double q = j < count ? e.charge(b.index(j, 1)) : 0.0;
      charge(j) = q;
      own(j) = 0.0;
    });
    // block tid of the upper triangle, row by row
    int ta = 0, tm = tid;
    while (ta < G && tm >= G - ta) {
      tm -= G - ta;
      ta++;
    }
    tm += ta;
    const bool spare = team.team_size() >= TILES + ROWS;    // own changes by threads past the blocks
    auto own_change = [&](const int j, const int n) {
      double sum = own(j);
      for (int s = 0; s < n; s++)
        sum += ewald_change(wave(3 * s), wave(3 * s + 1), wave(3 * s + 2), d_re(s * ROWS + j), d_im(s * ROWS + j));
      own(j) = sum;
    };
    double acc[R][R];
    for (int i = 0; i < R; i++)
      for (int j = 0; j < R; j++) acc[i][j] = 0.0;
    for (int k0 = k_begin; k0 < k_end; k0 += STAGE) {
      const int n = k_end - k0 < STAGE ? k_end - k0 : STAGE;
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int s) {
        const double v[3] = {e.ug(k0 + s), e.s(k0 + s, 0), e.s(k0 + s, 1)};
        for (int i = 0; i < 3; i++) wave(3 * s + i) = v[i];
      });
      // deltas, LOADS per thread at a time
      constexpr int LOADS = 8;
      const int nthreads = team.team_size(), items = ROWS * n;
      for (int base = tid; base < items; base += LOADS * nthreads) {
        int mk[LOADS][3];
        for (int r = 0; r < LOADS; r++) {
          const int i = base + r * nthreads;
          if (i < items) wave_vector(e, k0 + i / ROWS, mk[r]);
        }
        for (int r = 0; r < LOADS; r++) {
          const int i = base + r * nthreads, j = i % ROWS, s = i / ROWS;
          if (i >= items) break;
          double dre = 0.0, dim = 0.0;
          if (j < count) {
            double o_re, o_im, n_re, n_im;
            batch_term(e, j, 0, mk[r], charge(j), o_re, o_im);
            batch_term(e, j, 1, mk[r], charge(j), n_re, n_im);
            dre = n_re - o_re;
            dim = n_im - o_im;
          }
          d_re(s * ROWS + j) = dre;
          d_im(s * ROWS + j) = dim;
        }
      }
      team.team_barrier();
      if (!spare)
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int j) { own_change(j, n); });
      else if (tid >= TILES && tid - TILES < count)
        own_change(tid - TILES, n);
      if (tid < TILES)
        for (int s = 0; s < n; s++) {
          const double ug = wave(3 * s);
          double a_re[R], a_im[R], m_re[R], m_im[R];
          for (int i = 0; i < R; i++) {
            a_re[i] = ug * d_re(s * ROWS + ta + G * i);
            a_im[i] = ug * d_im(s * ROWS + ta + G * i);
            m_re[i] = d_re(s * ROWS + tm + G * i);
            m_im[i] = d_im(s * ROWS + tm + G * i);
          }
          for (int i = 0; i < R; i++)
            for (int j = 0; j < R; j++) acc[i][j] += a_re[i] * m_re[j] + a_im[i] * m_im[j];
        }
    }
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int j) { e.part_own(t, j) = own(j); });
    if (tid < TILES)
      for (int i = 0; i < R; i++)
        for (int j = 0; j < R; j++) {
          const int a = ta + G * i, m = tm + G * j, lo_move = a < m ? a : m, hi_move = a < m ? m : a;
          if ((ta < tm || i < j) && hi_move < count)
            e.part_pair(t, hi_move * (hi_move - 1) / 2 + lo_move) = 2.0 * acc[i][j];
        }
  }
};

// The teams' parts summed (a team per pair of moves, then per move): a pair's coupling added to
// its correction from the pair terms (a pair of moves of one atom keeps its NaN), a move's own
// change of E_recip to its energy change.
template <class DeviceType>
struct EwaldBatchFinishFunctor {
  using Member = typename Kokkos::TeamPolicy<typename DeviceType::execution_space>::member_type;
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  BatchData<DeviceType> b;
  int pairs, teams;

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    if (c.counter(DC_STOPPED)) return;
    const int i = team.league_rank();
    double sum = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, teams),
        [&](const int t, double &acc) { acc += i < pairs ? e.part_pair(t, i) : e.part_own(t, i - pairs); }, sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (i < pairs) {
        int a, m;
        batch_pair(i, a, m);
        e.pair_correction(i) = b.correction(a, m) + e.qqrd2e * sum;
      } else {
        b.du_u(i - pairs, 0) += e.qqrd2e * sum;
      }
    });
  }
};

// S plus the changes of the moves of the batch that were accepted and written, in chain order,
// computed again from their phase tables as EwaldBatchFunctor computed them (an uncharged move
// changes nothing): a team stages the batch's charges, then a thread per wave vector.
template <class DeviceType>
struct EwaldApplyFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int WAVES = 256;    // wave vectors per team
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  BatchData<DeviceType> b;
  int count;

  static size_t scratch_bytes(int count) { return ScratchView<ExecSpace, double>::shmem_size(count); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    ScratchView<ExecSpace, double> charge(team.team_scratch(0), count);    // 0: not written
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int a) {
      const double q = e.state(a) ? e.charge(b.index(a, 1)) : 0.0;
      charge(a) = q;
    });
    team.team_barrier();
    const int k_begin = team.league_rank() * WAVES, k_end = k_begin + WAVES < e.nk ? k_begin + WAVES : e.nk;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, k_begin, k_end), [&](const int k) {
      int m[3];
      wave_vector(e, k, m);
      double re = e.s(k, 0), im = e.s(k, 1);
      for (int a = 0; a < count; a++)
        if (charge(a) != 0.0) {
          double o_re, o_im, n_re, n_im;
          batch_term(e, a, 0, m, charge(a), o_re, o_im, true);
          batch_term(e, a, 1, m, charge(a), n_re, n_im, true);
          re += n_re - o_re;
          im += n_im - o_im;
        }
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
