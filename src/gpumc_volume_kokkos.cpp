// Kokkos engine: volume moves.

#include "gpumc_system_kokkos.h"
#include "gpumc_volume_kokkos.h"

#include "gpumc_device_types_kokkos.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpumc {

template <class DeviceType>
void DeviceSystem<DeviceType>::volume_trial(int scheme, double step, double beta, double pressure_energy,
                                            const CounterRNG &rng, uint64_t move)
{
  using F = kk::VolumeFunctor<DeviceType>;
  ensure_energy_copy();    // commit reads the trial's positions from the energy's copy
  F f{c_, rng, move, scheme, step, 2.0 * cut_max_, beta, pressure_energy, (double) natoms_,
      table_.tail_sum(type_count_), table_.self_sum(type_count_)};
  Kokkos::parallel_for("gpumc:volume_propose", light(Kokkos::RangePolicy<ExecSpace, typename F::TagPropose>(0, 1)), f);
  trial_pair_energy();    // of the scaled configuration
  // with an Ewald sum, its reciprocal part (the host reads the trial box: an inactive trial ends here)
  kk::EwaldData<DeviceType> ewald_trial;
  std::vector<EwaldVector> ewald_kvec;
  if (ew_.nk && !ewald_volume_trial_energy(ewald_trial, ewald_kvec)) return;
  Kokkos::parallel_for("gpumc:volume_accept", light(Kokkos::RangePolicy<ExecSpace, typename F::TagAccept>(0, 1)), f);
  Kokkos::parallel_for("gpumc:volume_commit",
                       light(Kokkos::RangePolicy<ExecSpace, typename F::TagCommit>(0, (int) c_.sx.extent(0))), f);
  if (ew_.nk) ewald_volume_commit(ewald_trial, ewald_kvec);
}

// compiled once, for the device types of LAMMPS's KOKKOS package
#define GPUMC_INSTANTIATE(D)                                                                                \
  template void DeviceSystem<D>::volume_trial(int scheme, double step, double beta, double pressure_energy, \
                                              const CounterRNG &rng, uint64_t move);

GPUMC_KOKKOS_DEVICE_TYPES(GPUMC_INSTANTIATE)
#undef GPUMC_INSTANTIATE

}    // namespace gpumc
