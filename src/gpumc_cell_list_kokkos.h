// Kernels of the Kokkos engine's configuration and cell list: wrapping into the box, positions
// gathered from the cell slots, type counts, the cell list's construction, and the fingerprint.
#pragma once

#include "gpumc_device_state_kokkos.h"
#include <cstring>

namespace gpumc {
namespace kk {

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

}    // namespace kk
}    // namespace gpumc
