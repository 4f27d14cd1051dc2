// Kernels of the cells of a checkerboard sweep (gpumc_checkerboard.h) in the Kokkos engine: the
// cells filled and sorted, their sizes measured and guarded, and a sweep's sums.
#pragma once

#include "gpumc_device_state_kokkos.h"

namespace gpumc {
namespace kk {

// ---- checkerboard sweeps (gpumc_checkerboard.h) ----

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
    v.fullest = d.count(cell) > v.fullest ? d.count(cell) : v.fullest;
    if (d.domain && !d.in_block(cell)) return;    // a cell of the layer: never active, its window never staged
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

// A sweep's sums added to those of the sweeps before it that the host has not read (the domain
// engine's: the host reads them when it needs them, not after every sweep).
template <class DeviceType>
struct CheckerPendingFunctor {
  Kokkos::View<CheckerSums, DeviceType> sums, pending;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const
  {
    pending().du += sums().du;
    pending().accepted += sums().accepted;
    pending().trials += sums().trials;
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
}    // namespace gpumc
