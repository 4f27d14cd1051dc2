// Kokkos engine: the cell list of the translation, energy and Widom kernels.

#include "gpumc_system_kokkos.h"
#include "gpumc_cell_list_kokkos.h"

#include "gpumc_device_types_kokkos.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpumc {

template <class DeviceType>
auto DeviceSystem<DeviceType>::atom_positions() -> View<double *[3]>
{
  if (cells_stale_) return cb_.x;
  kk::reuse_or_allocate(cb_.x, "gpumc:x", natoms_);
  Kokkos::parallel_for("gpumc:positions", Kokkos::RangePolicy<ExecSpace>(0, natoms_),
                       kk::PositionsFunctor<DeviceType>{c_, cb_.x});
  return cb_.x;
}

// The cell list of the translation, energy and Widom kernels, rebuilt from the positions of a
// checkerboard sweep if one ran since it was last filled.
template <class DeviceType>
void DeviceSystem<DeviceType>::ensure_cells()
{
  if (!cells_stale_) return;
  double lo[3], len[3];
  if (!box_synced_) fetch_box(lo, len);
  choose_grid(box_len_, c_.g);
  fill_cells(cb_.x, 0);
}

// Cells per side for a box: as many as fit while at least min_width wide, and no more than
// about two per atom (sparse systems). A small margin keeps rounding out of the coverage.
template <class DeviceType>
void DeviceSystem<DeviceType>::choose_grid(const double len[3], Grid &g) const
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
template <class DeviceType>
void DeviceSystem<DeviceType>::rebuild_cells(bool for_volume_trial)
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
template <class DeviceType>
void DeviceSystem<DeviceType>::fill_cells(View<double *[3]> x, int min_cap)
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
  // room for atoms moving in (EngineOptions::cell_slack 0 forces frequent stops)
  const int slack = options_.cell_slack >= 0 ? options_.cell_slack : std::max(4, fullest / 2);
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

// compiled once, for the device types of LAMMPS's KOKKOS package
#define GPUMC_INSTANTIATE(D) \
  template auto DeviceSystem<D>::atom_positions() -> View<double *[3]>; \
  template void DeviceSystem<D>::ensure_cells(); \
  template void DeviceSystem<D>::choose_grid(const double len[3], Grid &g) const; \
  template void DeviceSystem<D>::rebuild_cells(bool for_volume_trial); \
  template void DeviceSystem<D>::fill_cells(View<double *[3]> x, int min_cap);

GPUMC_KOKKOS_DEVICE_TYPES(GPUMC_INSTANTIATE)
#undef GPUMC_INSTANTIATE

}    // namespace gpumc
