// Kernels of the Kokkos engine's Widom test insertions: insertions stratified over boxes of the
// cell grid, each box's neighbourhood staged in team scratch (or, for tests, a walk of the cells).
#pragma once

#include "gpumc_team_kokkos.h"

namespace gpumc {
namespace kk {

// Widom insertions are stratified over insertion boxes: every cell of the cell list cut into
// split^3 boxes of equal volume (split 1 to 3). Insertion g is at a uniform point of box
// g mod nboxes, numbered (block, g); box b is part b mod split^3 (x fastest) of cell b / split^3.
struct WidomArgs {
  double lo[3], len[3], width[3], count_shift, beta;    // width: of an insertion box
  int type, split;
  uint64_t block, per_box;
  long nboxes;
  // the boxes this call inserts in: first_box .. first_box + my_boxes - 1 (a share of them on
  // each of several MPI ranks)
  long first_box = 0, my_boxes = 0;
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

// Insertion gidx: its point p and the cell coordinates cc of its insertion box.
KOKKOS_INLINE_FUNCTION void widom_insertion(const Grid &g, const WidomArgs &a, const CounterRNG &rng, uint64_t gidx,
                                            int cc[3], double p[3])
{
  double corner[3];
  widom_box(g, a, (long) (gidx % (uint64_t) a.nboxes), cc, corner);
  widom_point(a, rng, gidx, corner, p);
}

// The pair terms of a test particle of a.type at p with the atoms of cell w of the window of
// 5 x 5 x 5 cells around cell coordinates cc.
template <class DeviceType>
KOKKOS_INLINE_FUNCTION double widom_cell_energy(const CellData<DeviceType> &c, const WidomArgs &a, const int cc[3],
                                                const double p[3], int w)
{
  const PairCoeff *row = c.coeff.data() + a.type * c.nt1 * c.nterms;
  const double cutsq = c.row_cutsq(a.type);
  const int nw[3] = {2 * REACH + 1, 2 * REACH + 1, 2 * REACH + 1};
  double sh[3], e = 0.0;
  const int cell = window_cell_flat(c.g, a.len, cc, nw, w, sh);
  for (int s = 0; s < c.count(cell); s++) {
    const int k = cell * c.g.cap + s;
    const double dx = p[0] - c.sx(k) - sh[0], dy = p[1] - c.sy(k) - sh[1], dz = p[2] - c.sz(k) - sh[2];
    const double rsq = dx * dx + dy * dy + dz * dz;
    if (rsq < cutsq) e += pair_energy(row + c.stype(k) * c.nterms, c.nterms, rsq);
  }
  return e;
}
constexpr int WIDOM_WINDOW_CELLS = (2 * REACH + 1) * (2 * REACH + 1) * (2 * REACH + 1);

// Each insertion walks the cell list on its own.
template <class DeviceType>
struct WidomSimpleFunctor {
  CellData<DeviceType> c;
  WidomArgs a;
  CounterRNG rng{0, 0};
  // i: the i-th of this call's insertions, box first_box + i % my_boxes
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, double &acc) const
  {
    const uint64_t gidx = (uint64_t) (i / a.my_boxes) * (uint64_t) a.nboxes + (uint64_t) (a.first_box + i % a.my_boxes);
    double p[3];
    int cc[3];
    widom_insertion(c.g, a, rng, gidx, cc, p);
    double e = 0.0;
    for (int w = 0; w < WIDOM_WINDOW_CELLS; w++) e += widom_cell_energy(c, a, cc, p, w);
    acc += exp(-a.beta * (e + a.count_shift));
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
// Real: the precision of the staged positions and pair terms; sums are double. Pairs: the pair
// kinds compiled in (gpumc_pair_potential.h).
template <class DeviceType, class Real, class Pairs>
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

  // row_terms: the terms of a row of the coefficient table (nt1 * nterms)
  KOKKOS_INLINE_FUNCTION static size_t scratch_bytes(int cap, int row_terms)
  {
    using C = ScratchCarver;
    return StagedAtoms<Real>::bytes(cap) + C::bytes<int>(NW + 1) + C::bytes<PairCoeffT<Real>>(row_terms);
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
  KOKKOS_INLINE_FUNCTION void operator()(TagStagedMax, const int k, int &m) const
  {
    const long b = a.first_box + k;
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
    const long b = a.first_box + tm.league_rank();
    int c0[3];
    double corner[3];
    widom_box(c.g, a, b, c0, corner);
    const int nw[3] = {W, W, W};
    const int nterms = Pairs::terms(c.nterms), row_terms = c.nt1 * nterms;
    ScratchCarver carve{(char *) tm.team_scratch(level).get_shmem_aligned(scratch_bytes(cap, row_terms),
                                                                           ScratchCarver::ALIGN)};
    StagedAtoms<Real> atoms;
    atoms.carve(carve, cap);
    int *offset = carve.take<int>(NW + 1);
    PairCoeffT<Real> *row = carve.take<PairCoeffT<Real>>(row_terms);
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
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, row_terms),
                         [&](const int t) { row[t] = c.coeff_view(Real())(a.type * row_terms + t); });
    tm.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, NW), [&](const int w) {
      double sh[3], r[3];
      const int wc = window_cell_flat(c.g, a.len, c0, nw, w, sh);
      int o = offset[w];
      for (int s = 0; s < c.count(wc); s++) {
        const int k = wc * c.g.cap + s;
        if (within_reach(k, sh, corner, rsq_reach, r))
          atoms.set(o++, (Real) r[0], (Real) r[1], (Real) r[2], c.stype(k));
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
              if (rsq[u] < cutsq) e += (double) pair_energy<Pairs>(row + jtype[u] * nterms, nterms, rsq[u]);
          }
          for (; j < nstaged; j++) {
            int jtype;
            const Real rsq = staged_distance_sq(atoms, j, q, jtype);
            if (rsq < cutsq) e += (double) pair_energy<Pairs>(row + jtype * nterms, nterms, rsq);
          }
          part += exp(-a.beta * (e + a.count_shift));
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

}    // namespace kk
}    // namespace gpumc
