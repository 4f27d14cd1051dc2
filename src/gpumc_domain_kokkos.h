// Kernels of the Kokkos engine's checkerboard sweeps over a spatial decomposition (the Kokkos
// counterpart of gpumc_domain_host.h): a rank's block of cells and the layer around it filled
// from its owned atoms and ghosts, the ghosts' staged positions refreshed after their owners
// moved them, the rank's own periodic images moved with their atoms, and the pair energy of the
// owned atoms. The sweeps themselves are the
// checkerboard's kernels (gpumc_checkerboard_kokkos.h) on these cells.
#pragma once

#include "gpumc_checkerboard_cells_kokkos.h"

namespace gpumc {
namespace kk {

template <class DeviceType>
struct DomainCellsFunctor {
  struct TagCount {};
  struct TagFill {};
  struct TagSort {};
  struct TagRefresh {};
  struct TagFindImages {};
  struct TagMoveImages {};
  CheckerData<DeviceType> d;
  Kokkos::View<int64_t *, DeviceType> tag;
  int nowned;

  // each atom's cell (-1: a ghost beyond the layer) and its place among the cell's atoms: owned
  // ones by ID, then ghosts by ID, as the host engine orders them (IDs are below 2^62)
  KOKKOS_INLINE_FUNCTION void operator()(TagCount, const int i) const
  {
    const bool owned = i < nowned;
    d.order_key(i) = (owned ? int64_t(0) : (int64_t(1) << 62)) + tag(i);
    const double p[3] = {d.x(i, 0), d.x(i, 1), d.x(i, 2)};
    int l[3];
    if (!domain_cell(d.block, owned, p, l)) {
      d.cell_of(i) = -1;
      return;
    }
    d.cell_of(i) = (l[2] * d.g.n[1] + l[1]) * d.g.n[0] + l[0];
    Kokkos::atomic_inc(&d.count(d.cell_of(i)));
  }
  KOKKOS_INLINE_FUNCTION void operator()(TagFill, const int i) const
  {
    const int c = d.cell_of(i);
    if (c < 0) return;
    const int s = Kokkos::atomic_fetch_add(&d.count(c), 1);
    d.unsorted(c * d.cap + s) = i;
  }
  // a team per cell: each atom's rank in the order is its slot
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(TagSort, const Member &tm) const
  {
    const int cell = tm.league_rank(), base = cell * d.cap, n = d.count(cell);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, n), [&](const int a) {
      const int v = d.unsorted(base + a);
      const int64_t kv = d.order_key(v);
      int rank = 0;
      for (int b = 0; b < n; b++) {
        const int w = d.unsorted(base + b);
        const int64_t kw = d.order_key(w);
        rank += kw < kv || (kw == kv && w < v);
      }
      d.atom(base + rank) = v;
      stage(cell, base + rank, v);
      d.stype(base + rank) = (short) d.type(v);
    });
  }
  // over every slot: a ghost's staged position from its current one (a ghost, not a cell of the
  // layer: round-off can put a ghost in a cell of the block)
  KOKKOS_INLINE_FUNCTION void operator()(TagRefresh, const int k) const
  {
    const int cell = k / d.cap;
    if (k - cell * d.cap >= d.count(cell) || d.atom(k) < nowned) return;
    stage(cell, k, d.atom(k));
  }
  // over every slot: whether its atom is a periodic image of an owned atom (block.images), found
  // by its ID among the owned atoms of its owner's cell and the cells around it (round-off); the
  // owner, and the image's shift as (s0 + 1) + 3 (s1 + 1) + 9 (s2 + 1)
  KOKKOS_INLINE_FUNCTION void operator()(TagFindImages, const int k) const
  {
    d.image_owner(k) = -1;
    const int cell = k / d.cap;
    if (k - cell * d.cap >= d.count(cell)) return;
    const int i = d.atom(k);
    if (i < nowned) return;
    int l[3], shifts[7][3];
    d.cell_coords(cell, l);
    const int nshifts = domain_image_shifts(d.block, l, shifts);
    const double at[3] = {d.x(i, 0), d.x(i, 1), d.x(i, 2)};
    for (int s = 0; s < nshifts; s++) {
      double owner_at[3];
      domain_owner_position(d.block, shifts[s], at, owner_at);
      int lo[3];
      domain_cell(d.block, true, owner_at, lo);
      for (int w = 0; w < 27; w++) {
        int n[3];
        if (!domain_block_neighbour(d.block, lo, w, n)) continue;
        const int nc = (n[2] * d.g.n[1] + n[1]) * d.g.n[0] + n[0], base = nc * d.cap;
        for (int t = 0; t < d.count(nc); t++) {
          const int j = d.atom(base + t);
          if (j >= nowned) break;    // owned atoms come first
          if (tag(j) == tag(i)) {
            d.image_owner(k) = j;
            d.image_shift(k) = (shifts[s][0] + 1) + 3 * (shifts[s][1] + 1) + 9 * (shifts[s][2] + 1);
            return;
          }
        }
      }
    }
  }
  // over every slot: an image's position from its owner's (after a colour; gpumc_domain_host.cpp's
  // move_images says why not during one)
  KOKKOS_INLINE_FUNCTION void operator()(TagMoveImages, const int k) const
  {
    const int owner = d.image_owner(k);
    if (owner < 0) return;
    const int cell = k / d.cap, i = d.atom(k), code = d.image_shift(k);
    const int shift[3] = {code % 3 - 1, (code / 3) % 3 - 1, code / 9 - 1};
    const double owner_at[3] = {d.x(owner, 0), d.x(owner, 1), d.x(owner, 2)};
    double at[3];
    domain_image_position(d.block, shift, owner_at, at);
    for (int q = 0; q < 3; q++) d.x(i, q) = at[q];
    stage(cell, k, i);
  }
  KOKKOS_INLINE_FUNCTION void stage(int cell, int k, int i) const
  {
    const double p[3] = {d.x(i, 0), d.x(i, 1), d.x(i, 2)};
    double u[3];
    d.domain_frame(cell, p, u);
    d.sux(k) = u[0];
    d.suy(k) = u[1];
    d.suz(k) = u[2];
  }
};

// Pair energy of the pairs of each owned atom with the atoms of higher ID in the 27 cells around
// its own (in double precision): summed over the ranks, every pair once (gpumc_domain_host.h's
// owned_pair_energy). A block's cell may hold a ghost too, after its owner's own cell by
// round-off at a wall (a volume move's scaling): its pairs are its owner's to count.
template <class DeviceType>
struct DomainPairEnergyFunctor {
  CheckerData<DeviceType> d;
  Kokkos::View<PairCoeff *, DeviceType> coeff;
  Kokkos::View<int64_t *, DeviceType> tag;
  int nt1, nterms, nowned;
  KOKKOS_INLINE_FUNCTION void operator()(const int k, double &e) const
  {
    const int cell = k / d.cap;
    if (k - cell * d.cap >= d.count(cell) || !d.in_block(cell)) return;
    const int i = d.atom(k), itype = d.type(i);
    if (i >= nowned) return;
    const int64_t id = tag(i);
    int c0[3];
    d.cell_coords(cell, c0);
    double sum = 0.0;
    for (int w = 0; w < 27; w++) {
      int off[3];
      const int nc = checker_neighbour(d.g, c0, w, off), n = d.count(nc);
      for (int t = 0; t < n; t++) {
        const int j = d.atom(nc * d.cap + t);
        if (tag(j) <= id) continue;
        double rsq = 0.0;
        for (int q = 0; q < 3; q++) {
          const double dx = d.x(i, q) - d.x(j, q);
          rsq += dx * dx;
        }
        sum += pair_energy<PairsAny>(&coeff((itype * nt1 + d.type(j)) * nterms), nterms, rsq);
      }
    }
    e += sum;
  }
};

}    // namespace kk
}    // namespace gpumc
