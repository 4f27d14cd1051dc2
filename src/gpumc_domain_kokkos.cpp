// Kokkos engine: checkerboard sweeps over a spatial decomposition (gpumc_domain_kokkos.h), one
// MPI rank's block of the global grid. The LAMMPS side (gpumc_lammps_domain_kokkos.cpp) moves the
// atoms between ranks and brings the ghosts' positions after each colour.

#include "gpumc_system_kokkos.h"
#include "gpumc_domain_kokkos.h"

#include "gpumc_device_types_kokkos.h"

#include <algorithm>
#include <stdexcept>

namespace gpumc {

// The cells of the block and its layer, sorted, with room measured for the sweep's kernels.
template <class DeviceType>
void DeviceSystem<DeviceType>::domain_build(const DomainBlock &block, int nowned, int nall, View<double *[3]> x,
                                            View<int *> type, View<int64_t *> tag, View<int *> mobile)
{
  using F = kk::DomainCellsFunctor<DeviceType>;
  if (ntypes_ > 32767) throw std::runtime_error("the checkerboard kernel stages atom types as short integers");
  CheckerGrid g = block.grid;
  for (int d = 0; d < 3; d++) {
    g.n[d] = block.count[d] + 2;
    g.origin[d] = block.grid.origin[d] + (block.first[d] - 1) * g.w[d];
    g.lo[d] = g.origin[d];
    g.len[d] = g.n[d] * g.w[d];
  }
  cb_.domain = true;
  cb_.block = block;
  cb_.g = g;
  cb_.x = x;
  cb_.type = type;
  cb_.mobile = mobile;
  cb_.counter = c_.counter;
  domain_tag_ = tag;
  domain_nowned_ = nowned;
  kk::grow_to(cb_.cell_of, "gpumc:checker_cell_of", nall);
  kk::grow_to(cb_.order_key, "gpumc:domain_order_key", nall);
  const int ncells = g.n[0] * g.n[1] * g.n[2];
  kk::reuse_or_allocate(cb_.count, "gpumc:checker_count", ncells);
  kk::reuse_or_allocate(cb_.du, "gpumc:checker_du", ncells);
  kk::reuse_or_allocate(cb_.accepted, "gpumc:checker_accepted", ncells);
  kk::reuse_or_allocate(cb_.trials, "gpumc:checker_trials", ncells);
  // (the layer's cells are never active: their sums stay zero)
  Kokkos::deep_copy(ExecSpace(), cb_.du, 0.0);
  Kokkos::deep_copy(ExecSpace(), cb_.accepted, 0L);
  Kokkos::deep_copy(ExecSpace(), cb_.trials, 0L);
  Kokkos::deep_copy(ExecSpace(), cb_.count, 0);
  F f{cb_, tag, nowned};
  Kokkos::parallel_for("gpumc:domain_count", Kokkos::RangePolicy<ExecSpace, typename F::TagCount>(0, nall), f);
  kk::CheckerSizes m{0, 0};
  Kokkos::parallel_reduce("gpumc:domain_sizes", Kokkos::RangePolicy<ExecSpace>(0, ncells),
                          kk::CheckerSizesFunctor<DeviceType>{cb_}, m);
  domain_room_ = m;
  if (m.fullest > cb_.cap) cb_.cap = m.fullest + m.fullest / 4 + 4;
  ensure_checker_slots(ncells);
  Kokkos::deep_copy(ExecSpace(), cb_.count, 0);
  f.d = cb_;
  Kokkos::parallel_for("gpumc:domain_fill", Kokkos::RangePolicy<ExecSpace, typename F::TagFill>(0, nall), f);
  Kokkos::parallel_for("gpumc:domain_sort",
                       Kokkos::TeamPolicy<ExecSpace, typename F::TagSort>(ncells, on_host() ? 1 : 64), f);
  if (block.any_images()) {
    kk::reuse_or_allocate(cb_.image_owner, "gpumc:domain_image_owner", (size_t) ncells * cb_.cap);
    kk::reuse_or_allocate(cb_.image_shift, "gpumc:domain_image_shift", (size_t) ncells * cb_.cap);
    f.d = cb_;
    Kokkos::parallel_for("gpumc:domain_find_images",
                         Kokkos::RangePolicy<ExecSpace, typename F::TagFindImages>(0, ncells * cb_.cap), f);
  }
  // the single-process sweeps fill their cells afresh
  cb_room_ = kk::CheckerSizes{0, 0};
}

template <class DeviceType>
void DeviceSystem<DeviceType>::domain_refresh_ghosts()
{
  using F = kk::DomainCellsFunctor<DeviceType>;
  const int nslots = (int) cb_.atom.extent(0);
  Kokkos::parallel_for("gpumc:domain_refresh",
                       light(Kokkos::RangePolicy<ExecSpace, typename F::TagRefresh>(0, nslots)),
                       F{cb_, domain_tag_, domain_nowned_});
}

template <class DeviceType>
void DeviceSystem<DeviceType>::domain_set_tried_cells(const int lowest[3], const int moving[3])
{
  for (int d = 0; d < 3; d++) {
    cb_.block.lowest[d] = lowest[d];
    cb_.block.moving[d] = moving[d];
  }
  // a cell's sums are written when it is tried and summed over every cell after each sweep: those
  // of a cell tried no longer would be added again
  Kokkos::deep_copy(ExecSpace(), cb_.du, 0.0);
  Kokkos::deep_copy(ExecSpace(), cb_.accepted, 0L);
  Kokkos::deep_copy(ExecSpace(), cb_.trials, 0L);
}

template <class DeviceType>
void DeviceSystem<DeviceType>::domain_colours(const int order[8], double beta, double dmax, const CounterRNG &rng,
                                              uint64_t sweep, const std::function<void()> &after_colour)
{
  if (!cb_.block.any_images()) {
    checker_colours(order, domain_room_, beta, dmax, rng, sweep, after_colour);
    return;
  }
  using F = kk::DomainCellsFunctor<DeviceType>;
  const int nslots = (int) cb_.atom.extent(0);
  checker_colours(order, domain_room_, beta, dmax, rng, sweep, [&]() {
    Kokkos::parallel_for("gpumc:domain_move_images",
                         light(Kokkos::RangePolicy<ExecSpace, typename F::TagMoveImages>(0, nslots)),
                         F{cb_, domain_tag_, domain_nowned_});
    if (after_colour) after_colour();
  });
}

// (a fixed-order reduction, then added in sweep order: the sums are reproducible)
template <class DeviceType>
void DeviceSystem<DeviceType>::domain_add_sweep_sums()
{
  if (!cb_sums_.data()) cb_sums_ = View<kk::CheckerSums>("gpumc:checker_sums");
  if (!domain_pending_.data()) domain_pending_ = View<kk::CheckerSums>("gpumc:domain_pending");
  const int ncells = cb_.g.n[0] * cb_.g.n[1] * cb_.g.n[2];
  Kokkos::parallel_reduce("gpumc:domain_sums", Kokkos::RangePolicy<ExecSpace>(0, ncells),
                          kk::CheckerSumFunctor<DeviceType>{cb_}, cb_sums_);
  Kokkos::parallel_for("gpumc:domain_pending", light(Kokkos::RangePolicy<ExecSpace>(0, 1)),
                       kk::CheckerPendingFunctor<DeviceType>{cb_sums_, domain_pending_});
}

template <class DeviceType>
MoveCounts DeviceSystem<DeviceType>::domain_take_sums(double &du)
{
  MoveCounts counts;
  du = 0.0;
  if (!domain_pending_.data()) return counts;
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), domain_pending_);
  du = h().du;
  counts.trials = (uint64_t) h().trials;
  counts.accepted = (uint64_t) h().accepted;
  Kokkos::deep_copy(domain_pending_, kk::CheckerSums{0.0, 0, 0});
  return counts;
}

template <class DeviceType>
double DeviceSystem<DeviceType>::domain_owned_pair_energy()
{
  double e = 0.0;
  kk::DomainPairEnergyFunctor<DeviceType> f{cb_, c_.coeff, domain_tag_, c_.nt1, c_.nterms, domain_nowned_};
  Kokkos::parallel_reduce("gpumc:domain_energy", Kokkos::RangePolicy<ExecSpace>(0, (int) cb_.atom.extent(0)), f, e);
  return e;
}

// compiled once, for the device types of LAMMPS's KOKKOS package
#define GPUMC_INSTANTIATE(D)                                                                                       \
  template void DeviceSystem<D>::domain_build(const DomainBlock &block, int nowned, int nall, View<double *[3]> x,  \
                                              View<int *> type, View<int64_t *> tag, View<int *> mobile);          \
  template void DeviceSystem<D>::domain_refresh_ghosts();                                                          \
  template void DeviceSystem<D>::domain_set_tried_cells(const int lowest[3], const int moving[3]);                 \
  template void DeviceSystem<D>::domain_colours(const int order[8], double beta, double dmax, const CounterRNG &rng, \
                                                uint64_t sweep, const std::function<void()> &after_colour);        \
  template void DeviceSystem<D>::domain_add_sweep_sums();                                                          \
  template MoveCounts DeviceSystem<D>::domain_take_sums(double &du);                                               \
  template double DeviceSystem<D>::domain_owned_pair_energy();

GPUMC_KOKKOS_DEVICE_TYPES(GPUMC_INSTANTIATE)
#undef GPUMC_INSTANTIATE

}    // namespace gpumc
