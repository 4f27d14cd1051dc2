// Kernels of the Kokkos engine's Ewald sum (gpumc_ewald.h): the structure factors and their energy,
// the reciprocal-space parts of the sequential chain's batches (a move's change of E_recip, and
// the correction an accepted earlier move of the batch makes to it), and the update of S by the
// accepted moves.
#pragma once

#include "gpumc_ewald.h"
#include "gpumc_team_kokkos.h"
#include "gpumc_widom_kokkos.h"

#include <Kokkos_Complex.hpp>

namespace gpumc {
namespace kk {

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
          double re, im;
          ewald_term(&e.m(k, 0), e.charge(c.stype(slot)), pos, lo, len, re, im);
          acc += Kokkos::complex<double>(re, im);
        },
        sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      e.s(k, 0) = sum.real();
      e.s(k, 1) = sum.imag();
    });
  }
};

// qqrd2e sum_k ug |S|^2, with the weights ug (the current box's, or a volume trial's)
template <class DeviceType>
struct EwaldEnergyFunctor {
  EwaldData<DeviceType> e;
  Kokkos::View<double *, DeviceType> ug;
  KOKKOS_INLINE_FUNCTION void operator()(const int k, double &sum) const
  {
    sum += e.qqrd2e * ug(k) * (e.s(k, 0) * e.s(k, 0) + e.s(k, 1) * e.s(k, 1));
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

// A move's change of S for every wave vector (into delta row `row`), and its change of E_recip
// from S plus the accepted changes of the earlier moves a < row with accepted(a) set; by the
// calling team's threads (every thread gets the sum).
template <class DeviceType, class Member, class Accepted>
KOKKOS_INLINE_FUNCTION double team_ewald_move(const Member &team, const EwaldData<DeviceType> &e, int row, int type,
                                              const double p_old[3], const double p_new[3], const double lo[3],
                                              const double len[3], int nearlier, const Accepted &accepted)
{
  const double q = e.charge(type);
  double sum = 0.0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, e.nk),
      [&](const int k, double &acc) {
        double o_re, o_im, n_re, n_im;
        ewald_term(&e.m(k, 0), q, p_old, lo, len, o_re, o_im);
        ewald_term(&e.m(k, 0), q, p_new, lo, len, n_re, n_im);
        const double d_re = n_re - o_re, d_im = n_im - o_im;
        e.delta_re(row, k) = d_re;
        e.delta_im(row, k) = d_im;
        double s_re = e.s(k, 0), s_im = e.s(k, 1);
        for (int a = 0; a < nearlier; a++)
          if (accepted(a)) {
            s_re += e.delta_re(a, k);
            s_im += e.delta_im(a, k);
          }
        acc += ewald_change(e.ug(k), s_re, s_im, d_re, d_im);
      },
      sum);
  return e.qqrd2e * sum;
}

// A chain batch's moves: each move's change of E_recip against S at the start of the batch, added
// to its evaluated energy change (a team per move).
template <class DeviceType>
struct EwaldChainEvaluateFunctor {
  using Member = typename Kokkos::TeamPolicy<typename DeviceType::execution_space>::member_type;
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  BatchData<DeviceType> b;

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    if (c.counter(DC_STOPPED)) return;
    const int m = team.league_rank();
    double lo[3], len[3];
    c.box(DS_LO, DS_LEN, lo, len);
    const double p_old[3] = {b.positions(m, 0), b.positions(m, 1), b.positions(m, 2)};
    const double p_new[3] = {b.positions(m, 3), b.positions(m, 4), b.positions(m, 5)};
    const double du = team_ewald_move(team, e, m, b.index(m, 1), p_old, p_new, lo, len, 0, [](int) { return false; });
    Kokkos::single(Kokkos::PerTeam(team), [&]() { b.du_u(m, 0) += du; });
  }
};

// The reciprocal-space correction of each pair of moves a < m of a batch (a team per pair): an
// accepted move a changes S, and so move m's change of E_recip, by qqrd2e sum_k ug 2 Re(conj(delta_a)
// delta_m). Every pair is linked (S couples every atom with every other); a pair of moves of one
// atom keeps its NaN (the later move is evaluated again).
template <class DeviceType>
struct EwaldChainCorrectionFunctor {
  using Member = typename Kokkos::TeamPolicy<typename DeviceType::execution_space>::member_type;
  CellData<DeviceType> c;
  EwaldData<DeviceType> e;
  BatchData<DeviceType> b;

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    if (c.counter(DC_STOPPED)) return;
    // pair p = m (m - 1) / 2 + a
    const int p = team.league_rank();
    int m = (int) ((1.0 + sqrt(1.0 + 8.0 * p)) / 2.0);
    while (m * (m - 1) / 2 > p) m--;
    while ((m + 1) * m / 2 <= p) m++;
    const int a = p - m * (m - 1) / 2;
    double sum = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, e.nk),
        [&](const int k, double &acc) {
          acc += ewald_cross(e.ug(k), e.delta_re(a, k), e.delta_im(a, k), e.delta_re(m, k), e.delta_im(m, k));
        },
        sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      b.correction(a, m) += e.qqrd2e * sum;    // (NaN stays NaN)
      Kokkos::atomic_or(&b.links(m, a / 32), 1u << (a % 32));
    });
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

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team, double &acc) const
  {
    const int64_t gidx = team.league_rank();
    double corner[3], p[3];
    int cc[3];
    widom_box(c.g, a, (long) ((uint64_t) gidx % (uint64_t) a.nboxes), cc, corner);
    widom_point(a, rng, (uint64_t) gidx, corner, p);
    const PairCoeff *row = c.coeff.data() + a.type * c.nt1 * c.nterms;
    const double cutsq = c.row_cutsq(a.type);
    const int nw[3] = {2 * REACH + 1, 2 * REACH + 1, 2 * REACH + 1};
    double pair = 0.0, recip = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, nw[0] * nw[1] * nw[2]),
        [&](const int w, double &sum) {
          double sh[3];
          const int cell = window_cell_flat(c.g, a.len, cc, nw, w, sh);
          for (int s = 0; s < c.count(cell); s++) {
            const int k = cell * c.g.cap + s;
            const double dx = p[0] - c.sx(k) - sh[0], dy = p[1] - c.sy(k) - sh[1], dz = p[2] - c.sz(k) - sh[2];
            const double rsq = dx * dx + dy * dy + dz * dz;
            if (rsq < cutsq) sum += pair_energy(row + c.stype(k) * c.nterms, c.nterms, rsq);
          }
        },
        pair);
    const double q = e.charge(a.type);
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, e.nk),
        [&](const int k, double &sum) {
          double re, im;
          ewald_term(&e.m(k, 0), q, p, a.lo, a.len, re, im);
          sum += ewald_change(e.ug(k), e.s(k, 0), e.s(k, 1), re, im);
        },
        recip);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { acc += exp(-a.beta * (pair + e.qqrd2e * recip + a.count_shift)); });
  }
};

}    // namespace kk
}    // namespace gpumc
