// A batch of the sequential chain's moves, evaluated against the configuration at its start: the
// correction an earlier move of the batch, if accepted, makes to a later one's energy change, and
// the kernel that works them out for a batch (kk::ChainCorrectionFunctor; with an Ewald sum the
// kernel that adds the coupling through S does: kk::EwaldBatchFinishFunctor).
#pragma once

#include "gpumc_device_state_kokkos.h"
#include "gpumc_pair_potential.h"
#include "gpumc_team_kokkos.h"

namespace gpumc {
namespace kk {

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

// Squared distances for move_correction (gpumc_pair_potential.h): the nearest image in a periodic
// box of sides len (the checkerboard's distances within one cell's frame are FrameRsq).
struct NearestImageRsq {
  const double *len;
  KOKKOS_INLINE_FUNCTION double operator()(const double p[3], const double q[3]) const
  {
    return nearest_rsq(p, q, len);
  }
};

// A move of a batch as evaluated: its atom and type, old and new position.
struct BatchMove {
  int atom, type;
  double p_old[3], p_new[3];
};
template <class DeviceType>
KOKKOS_INLINE_FUNCTION BatchMove batch_move(const BatchData<DeviceType> &b, int k)
{
  BatchMove mv;
  mv.atom = b.index(k, 0);
  mv.type = b.index(k, 1);
  for (int d = 0; d < 3; d++) {
    mv.p_old[d] = b.positions(k, d);
    mv.p_new[d] = b.positions(k, 3 + d);
  }
  return mv;
}

// per pair of moves: bit 0 a link (the correction may be nonzero), bit 1 the same atom
enum BatchPairKind : int { BATCH_APART = 0, BATCH_NEAR = 1, BATCH_SAME_ATOM = 3 };

// The kind of the pair of moves a before m: the same atom, or apart (all four positions beyond the
// largest cutoff of each other: no term evaluated), or near.
KOKKOS_INLINE_FUNCTION int batch_pair_kind(const BatchMove &a, const BatchMove &m, const double len[3],
                                           double cutsq_max)
{
  if (a.atom == m.atom) return BATCH_SAME_ATOM;
  if (nearest_rsq(m.p_old, a.p_old, len) < cutsq_max || nearest_rsq(m.p_old, a.p_new, len) < cutsq_max ||
      nearest_rsq(m.p_new, a.p_old, len) < cutsq_max || nearest_rsq(m.p_new, a.p_new, len) < cutsq_max)
    return BATCH_NEAR;
  return BATCH_APART;
}

// Term t of a near pair's correction (move_correction's, in the order of correction_of_terms): the
// pair energy between m's new (t 0, 1) or old position and a's new (t even) or old one.
template <class Pairs>
KOKKOS_INLINE_FUNCTION double batch_correction_term(const BatchMove &a, const BatchMove &m, const PairCoeff *terms,
                                                    int nterms, const double len[3], int t)
{
  const double *p = t < 2 ? m.p_new : m.p_old, *q = t % 2 == 0 ? a.p_new : a.p_old;
  return (double) pair_energy<Pairs>(terms, nterms, nearest_rsq(p, q, len));
}

// A pair's correction from its kind and, if near, its four terms (batch_correction_term): NaN for
// two moves of one atom (the later one is evaluated again if the earlier one is accepted), zero for
// a pair apart.
KOKKOS_INLINE_FUNCTION double batch_correction_of(int kind, const double term[4])
{
  if (kind == BATCH_SAME_ATOM) return Kokkos::Experimental::quiet_NaN<double>::value;
  if (kind == BATCH_APART) return 0.0;
  return correction_of_terms(term[0], term[1], term[2], term[3]);
}

// Move a's correction to move m's energy change (a before m), and the pair's kind, on one thread
// (the Ewald chain's finish kernel takes the four terms on four threads). `terms` are the
// coefficients of the pair of their types.
template <class Pairs>
KOKKOS_INLINE_FUNCTION double batch_correction(const BatchMove &a, const BatchMove &m, const PairCoeff *terms,
                                               int nterms, const double len[3], double cutsq_max, int &kind)
{
  kind = batch_pair_kind(a, m, len, cutsq_max);
  double term[4] = {0.0, 0.0, 0.0, 0.0};
  if (kind == BATCH_NEAR)
    for (int t = 0; t < 4; t++) term[t] = batch_correction_term<Pairs>(a, m, terms, nterms, len, t);
  return batch_correction_of(kind, term);
}

// The corrections of a batch, from the evaluated positions: a team per move m, a thread per
// earlier move a. A pair whose four positions are all beyond the largest cutoff of each other
// gets zero without a term evaluated and no link; a pair of moves of the same atom gets NaN (the
// later one is evaluated again if the earlier one is accepted) and a link of both kinds.
template <class DeviceType, class Pairs>
struct ChainCorrectionFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  BatchData<DeviceType> b;
  Kokkos::View<double *, DeviceType> scalar;
  Kokkos::View<PairCoeff *, DeviceType> coeff;
  int nt1, nterms;
  double cutsq_max;

  static size_t scratch_bytes(int batch) { return ScratchView<ExecSpace, int>::shmem_size(batch); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    const int m = team.league_rank();
    const double len[3] = {scalar(DS_LEN), scalar(DS_LEN + 1), scalar(DS_LEN + 2)};
    const BatchMove moved = batch_move(b, m);
    const PairCoeff *row = coeff.data() + moved.type * nt1 * Pairs::terms(nterms);
    ScratchView<ExecSpace, int> pair(team.team_scratch(0), m > 0 ? m : 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const int a) {
      const BatchMove mover = batch_move(b, a);
      int kind;
      const double corr = batch_correction<Pairs>(mover, moved, row + mover.type * Pairs::terms(nterms), nterms, len,
                                                  cutsq_max, kind);
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

}    // namespace kk
}    // namespace gpumc
