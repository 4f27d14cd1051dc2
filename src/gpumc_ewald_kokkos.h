// Kernels of the Kokkos engine's Ewald sum (gpumc_ewald.h): the structure factors and their energy,
// the reciprocal-space parts of the sequential chain's batches (a move's change of E_recip, with
// its pair terms in kk::ChainEvaluateFunctor, and the correction an accepted earlier move of the
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

// A move of a chain batch against S at the start of the batch, by the team that evaluated its
// pair terms: its change of S for every wave vector (into delta row `row`) and its change of
// E_recip (every thread gets it).
template <class DeviceType, class Member>
KOKKOS_INLINE_FUNCTION double team_ewald_move(const Member &team, const EwaldData<DeviceType> &e, int row, int type,
                                              const double p_old[3], const double p_new[3], const double lo[3],
                                              const double len[3])
{
  const double q = e.charge(type);
  double sum = 0.0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, e.nk),
      [&](const int k, double &acc) {
        int m[3];
        wave_vector(e, k, m);
        double o_re, o_im, n_re, n_im;
        ewald_term(m, q, p_old, lo, len, o_re, o_im);
        ewald_term(m, q, p_new, lo, len, n_re, n_im);
        const double d_re = n_re - o_re, d_im = n_im - o_im;
        e.delta_re(row, k) = d_re;
        e.delta_im(row, k) = d_im;
        acc += ewald_change(e.ug(k), e.s(k, 0), e.s(k, 1), d_re, d_im);
      },
      sum);
  return e.qqrd2e * sum;
}

// The reciprocal-space coupling of every pair of moves a < m of a batch, sum_k ug 2 Re(conj(delta_a)
// delta_m) (a Gram matrix): each team takes a range of wave vectors, stages the batch's deltas for
// GRAM_STAGE of them at a time in scratch, and sums every pair over its range in a fixed order.
constexpr int GRAM_STAGE = 16;
template <class DeviceType>
struct EwaldChainGramFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  int batch;

  static size_t scratch_bytes(int batch)
  {
    const int pairs = batch * (batch - 1) / 2;
    return ScratchView<ExecSpace, double>::shmem_size(2 * batch * GRAM_STAGE + GRAM_STAGE) +
        ScratchView<ExecSpace, double>::shmem_size(pairs > 0 ? pairs : 1);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    if (c.counter(DC_STOPPED)) return;
    const int pairs = batch * (batch - 1) / 2, nteams = team.league_size(), t = team.league_rank();
    const int k_begin = (int) ((long) e.nk * t / nteams), k_end = (int) ((long) e.nk * (t + 1) / nteams);
    ScratchView<ExecSpace, double> stage(team.team_scratch(0), 2 * batch * GRAM_STAGE + GRAM_STAGE);
    ScratchView<ExecSpace, double> acc(team.team_scratch(0), pairs > 0 ? pairs : 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, pairs), [&](const int p) { acc(p) = 0.0; });
    for (int k0 = k_begin; k0 < k_end; k0 += GRAM_STAGE) {
      const int n = k_end - k0 < GRAM_STAGE ? k_end - k0 : GRAM_STAGE;
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, batch * n), [&](const int i) {
        const int mv = i / n, j = i % n;
        stage(2 * (mv * GRAM_STAGE + j)) = e.delta_re(mv, k0 + j);
        stage(2 * (mv * GRAM_STAGE + j) + 1) = e.delta_im(mv, k0 + j);
        if (mv == 0) stage(2 * batch * GRAM_STAGE + j) = e.ug(k0 + j);
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, pairs), [&](const int p) {
        int a, m;
        batch_pair(p, a, m);
        double sum = acc(p);
        for (int j = 0; j < n; j++)
          sum += ewald_cross(stage(2 * batch * GRAM_STAGE + j), stage(2 * (a * GRAM_STAGE + j)),
                             stage(2 * (a * GRAM_STAGE + j) + 1), stage(2 * (m * GRAM_STAGE + j)),
                             stage(2 * (m * GRAM_STAGE + j) + 1));
        acc(p) = sum;
      });
    }
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, pairs), [&](const int p) { e.part_pair(t, p) = acc(p); });
  }
};

// The parts summed: pair i's coupling added to the later move's correction, and the pair linked
// (S couples every atom with every other; a pair of moves of one atom keeps its NaN, and the batch
// ends before the later one if the earlier one is accepted).
template <class DeviceType>
struct EwaldChainFinishFunctor {
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  BatchData<DeviceType> b;

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const
  {
    if (c.counter(DC_STOPPED)) return;
    double sum = 0.0;
    for (int t = 0; t < (int) e.part_pair.extent(0); t++) sum += e.part_pair(t, i);
    int a, m;
    batch_pair(i, a, m);
    b.correction(a, m) += e.qqrd2e * sum;
    Kokkos::atomic_or(&b.links(m, a / 32), 1u << (a % 32));
  }
};

// S plus the changes of the moves of the batch that were accepted and written (a thread per wave
// vector, the moves in chain order).
template <class DeviceType>
struct EwaldApplyFunctor {
  EwaldData<DeviceType> e;
  int count;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const
  {
    double re = e.s(k, 0), im = e.s(k, 1);
    for (int a = 0; a < count; a++)
      if (e.state(a)) {
        re += e.delta_re(a, k);
        im += e.delta_im(a, k);
      }
    e.s(k, 0) = re;
    e.s(k, 1) = im;
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
