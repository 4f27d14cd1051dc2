// Kokkos engine: the total energy and the running energy.

#include "gpumc_system_kokkos.h"
#include "gpumc_energy_kokkos.h"

#include "gpumc_device_types_kokkos.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpumc {

// Total energy (pair, tail, self and Ewald) of the current configuration, also stored as the running energy
// when `store` is set. Summed in a fixed order for a given cell list.
template <class DeviceType>
double DeviceSystem<DeviceType>::total_energy(bool store)
{
  settle();
  double lo[3], len[3];
  fetch_box(lo, len);
  ensure_cells();
  double e = pair_energy();
  e += count_energy(len[0] * len[1] * len[2]);
  e += ewald_energy();
  if (store) set_running_energy(e);
  return e;
}

// Total energy summed in an order that depends only on the positions: cells rebuilt (each
// sorted by atom ID) first, so that a chain split by restarts sums exactly as an unbroken one.
template <class DeviceType>
double DeviceSystem<DeviceType>::canonical_total_energy()
{
  settle();
  double lo[3], len[3];
  fetch_box(lo, len);
  auto x = positions();
  choose_grid(box_len_, c_.g);
  fill_cells(x, c_.g.cap);
  return total_energy(false);
}

template <class DeviceType>
void DeviceSystem<DeviceType>::set_running_energy(double e)
{
  settle();
  Kokkos::deep_copy(Kokkos::subview(c_.scalar, (int) DS_ENERGY), e);
}

template <class DeviceType>
double DeviceSystem<DeviceType>::running_energy()
{
  settle();
  double e;
  Kokkos::deep_copy(e, Kokkos::subview(c_.scalar, (int) DS_ENERGY));
  return e;
}

template <class DeviceType>
void DeviceSystem<DeviceType>::ensure_energy_copy()
{
  const int npadded = padded_cells();
  if (padding_stale_ || (int) c_.pad_start.extent(0) != npadded + 1) {
    kk::reuse_or_allocate(c_.pad_start, "gpumc:pad_start", npadded + 1);
    Kokkos::parallel_scan("gpumc:pad_start", Kokkos::RangePolicy<ExecSpace>(0, npadded + 1),
                          kk::RowPaddingFunctor<DeviceType>{c_, npadded});
    padding_stale_ = false;
  }
  const size_t entries = (size_t) natoms_ * (1 + (2 * kk::REACH + c_.g.n[0] - 1) / c_.g.n[0]);
  kk::reuse_or_allocate(c_.ox, "gpumc:energy_ox", entries);
  kk::reuse_or_allocate(c_.oy, "gpumc:energy_oy", entries);
  kk::reuse_or_allocate(c_.oz, "gpumc:energy_oz", entries);
  kk::reuse_or_allocate(c_.otype, "gpumc:energy_otype", entries);
}

// Pair energy of the configuration (or of the volume trial's) into `result` (a double on the
// host, or a device scalar).
template <class DeviceType>
template <class Result>
void DeviceSystem<DeviceType>::pair_energy_sum(bool trial, Result &&result)
{
  ensure_energy_copy();
  // the kernel compiled for the table's pair kinds (gpumc_pair_potential.h)
  auto launch = [&](auto pairs) {
    using F = kk::PairEnergyFunctor<DeviceType, decltype(pairs)>;
    const char *label = trial ? "gpumc:volume_energy" : "gpumc:pair_energy";
    const int ncells = c_.g.n[0] * c_.g.n[1] * c_.g.n[2], parts = F::parts_for(ncells, options_.energy_parts);
    F f{c_, trial, parts, ncells * parts};
    f.filter_cutsq = cut_max_ * cut_max_ * (1.0 + 1e-12);    // no pair lost to rounding
    Kokkos::parallel_for("gpumc:energy_gather",
                         light(Kokkos::RangePolicy<ExecSpace, typename F::TagGather>(0, padded_cells() * c_.g.cap)), f);
    constexpr int groups = F::TEAM / F::GROUP;
    // at most 64 registers: 8 teams per multiprocessor rather than 7 at the 72 the kernel takes
    // unbounded (H100, 400 volume moves at N = 74088: 0.081 against 0.087 s)
    using Policy = Kokkos::TeamPolicy<ExecSpace, typename F::TagCells, Kokkos::LaunchBounds<F::TEAM, 8>>;
    Kokkos::parallel_reduce(label,
                            light(Policy((f.nitems + groups - 1) / groups, F::TEAM))
                                .set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes())),
                            f, result);
  };
  if (lj_morse_)
    launch(PairsLJMorse{});
  else
    launch(PairsAny{});
}

template <class DeviceType>
double DeviceSystem<DeviceType>::pair_energy()
{
  double e = 0.0;
  pair_energy_sum(false, e);
  return e;
}

// the volume trial's pair energy, into device memory (skipped for inactive trials)
template <class DeviceType>
void DeviceSystem<DeviceType>::trial_pair_energy()
{
  pair_energy_sum(true, Kokkos::subview(c_.scalar, (int) DS_TRIAL_ENERGY));
}

// compiled once, for the device types of LAMMPS's KOKKOS package
#define GPUMC_INSTANTIATE(D) \
  template double DeviceSystem<D>::pair_energy(); \
  template void DeviceSystem<D>::trial_pair_energy(); \
  template double DeviceSystem<D>::total_energy(bool store); \
  template double DeviceSystem<D>::canonical_total_energy(); \
  template void DeviceSystem<D>::set_running_energy(double e); \
  template double DeviceSystem<D>::running_energy(); \
  template void DeviceSystem<D>::ensure_energy_copy();

GPUMC_KOKKOS_DEVICE_TYPES(GPUMC_INSTANTIATE)
#undef GPUMC_INSTANTIATE

}    // namespace gpumc
