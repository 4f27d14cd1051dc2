// Kokkos engine: the configuration, the box, the counters and the fingerprint.

#include "gpumc_system_kokkos.h"
#include "gpumc_cell_list_kokkos.h"

#include "gpumc_device_types_kokkos.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace gpumc {

template <class DeviceType>
DeviceSystem<DeviceType>::DeviceSystem(const PairTable &table, int team_size, bool mixed,
                                       const EngineOptions &options) :
    team_size_(team_size),
    mixed_(mixed), options_(options)
{
  ntypes_ = table.ntypes;
  cut_max_ = table.cut_max;
  c_.nt1 = ntypes_ + 1;
  c_.nterms = table.nterms;
  c_.coeff = View<PairCoeff *>("gpumc:coeff", table.coeff.size());
  auto h_coeff = Kokkos::create_mirror_view(c_.coeff);
  for (size_t k = 0; k < table.coeff.size(); k++) h_coeff(k) = table.coeff[k];
  Kokkos::deep_copy(c_.coeff, h_coeff);
  c_.coeff_f = View<PairCoeffT<float> *>("gpumc:coeff_float", table.coeff.size());
  auto h_coeff_f = Kokkos::create_mirror_view(c_.coeff_f);
  for (size_t k = 0; k < table.coeff.size(); k++) h_coeff_f(k) = PairCoeffT<float>(table.coeff[k]);
  Kokkos::deep_copy(c_.coeff_f, h_coeff_f);
  c_.row_cutsq = View<double *>("gpumc:row_cutsq", ntypes_ + 1);
  auto h_row = Kokkos::create_mirror_view(c_.row_cutsq);
  for (int i = 0; i <= ntypes_; i++) h_row(i) = i > 0 ? table.row_cutsq(i) : 0.0;
  Kokkos::deep_copy(c_.row_cutsq, h_row);
  row_cutsq_.assign(h_row.data(), h_row.data() + ntypes_ + 1);
  table_ = table;
  lj_morse_ = table.lj_morse_only();
  analytic_ = table.analytic_only();
  c_.scalar = View<double *>("gpumc:scalars", DS_COUNT);
  c_.counter = View<long *>("gpumc:counters", DC_COUNT);
  if (table.ewald.enabled) {
    ew_.qqrd2e = table.ewald.qqrd2e;
    ew_.charge = View<double *>("gpumc:ewald_charge", ntypes_ + 1);
    auto h_charge = Kokkos::create_mirror_view(ew_.charge);
    for (int t = 0; t <= ntypes_; t++)
      h_charge(t) = t > 0 && !table.charge.empty() && !std::isnan(table.charge[t]) ? table.charge[t] : 0.0;
    Kokkos::deep_copy(ew_.charge, h_charge);
  }
}

template <class DeviceType>
void DeviceSystem<DeviceType>::set_configuration(View<double *[3]> x, View<int *> type, const double lo[3],
                                                 const double len[3])
{
  settle();
  natoms_ = (int) type.extent(0);
  for (int d = 0; d < 3; d++)
    if (!(len[d] >= 2.0 * cut_max_)) throw std::invalid_argument("box side shorter than twice the largest cutoff");
  c_.type = type;
  kk::reuse_or_allocate(c_.image, "gpumc:image", natoms_);    // (every entry is written before it is read)
  kk::reuse_or_allocate(c_.cell_of, "gpumc:cell", natoms_);
  kk::reuse_or_allocate(c_.slot_of, "gpumc:slot", natoms_);
  auto h_scalar = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.scalar);
  for (int d = 0; d < 3; d++) {
    h_scalar(DS_LO + d) = box_lo_[d] = lo[d];
    h_scalar(DS_LEN + d) = box_len_[d] = len[d];
  }
  Kokkos::deep_copy(c_.scalar, h_scalar);
  box_synced_ = true;
  // type counts for the tail correction and self energies, counted on the device
  type_count_.assign(ntypes_ + 1, 0);
  if (table_.counts_matter()) {
    Kokkos::View<long *, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> counts(type_count_.data(), ntypes_ + 1);
    Kokkos::parallel_reduce("gpumc:type_count", Kokkos::RangePolicy<ExecSpace>(0, natoms_),
                            kk::TypeCountFunctor<DeviceType>{(unsigned) ntypes_ + 1, type}, counts);
  }
  kk::WrapFunctor<DeviceType> wrap{x, c_.image, {lo[0], lo[1], lo[2]}, {len[0], len[1], len[2]}};
  Kokkos::parallel_for("gpumc:wrap", Kokkos::RangePolicy<ExecSpace>(0, natoms_), wrap);
  cb_.x = x;
  ewald_stale_ = true;
  cells_stale_ = true;          // the cell list is filled from x when first needed (ensure_cells)
  cb_mobile_stale_ = true;      // the caller may pass a new group in a reused array
}

template <class DeviceType>
void DeviceSystem<DeviceType>::fetch_box(double lo[3], double len[3])
{
  settle();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.scalar);
  for (int d = 0; d < 3; d++) {
    lo[d] = box_lo_[d] = h(DS_LO + d);
    len[d] = box_len_[d] = h(DS_LEN + d);
  }
  box_synced_ = true;
}

template <class DeviceType>
int DeviceSystem<DeviceType>::max_team_size(bool checkerboard, bool mixed)
{
  if (checkerboard) return mixed ? checker_team_max<float>() : checker_team_max<double>();
  return chain_team_max();
}

template <class DeviceType>
long DeviceSystem<DeviceType>::counter(int which)
{
  settle();
  long v;
  Kokkos::deep_copy(v, Kokkos::subview(c_.counter, which));
  return v;
}

template <class DeviceType>
void DeviceSystem<DeviceType>::reset_counters()
{
  settle();
  Kokkos::deep_copy(c_.counter, 0L);
}

template <class DeviceType>
uint64_t DeviceSystem<DeviceType>::fingerprint()
{
  settle();
  double lo[3], len[3];
  fetch_box(lo, len);
  uint64_t h = 0;
  Kokkos::parallel_reduce("gpumc:fingerprint", Kokkos::RangePolicy<ExecSpace>(0, natoms_),
                          kk::FingerprintFunctor<DeviceType>{atom_positions(), c_.type}, h);
  for (int d = 0; d < 3; d++) {
    uint64_t a, b;
    memcpy(&a, &lo[d], sizeof(a));
    memcpy(&b, &len[d], sizeof(b));
    h = h * 1099511628211ULL + a;
    h = h * 1099511628211ULL + b;
  }
  return h;
}

// compiled once, for the device types of LAMMPS's KOKKOS package
#define GPUMC_INSTANTIATE(D)                                                                                  \
  template DeviceSystem<D>::DeviceSystem(const PairTable &table, int team_size, bool mixed,                   \
                                         const EngineOptions &options);                                       \
  template void DeviceSystem<D>::set_configuration(View<double *[3]> x, View<int *> type, const double lo[3], \
                                                   const double len[3]);                                      \
  template void DeviceSystem<D>::fetch_box(double lo[3], double len[3]);                                      \
  template int DeviceSystem<D>::max_team_size(bool checkerboard, bool mixed);                                 \
  template long DeviceSystem<D>::counter(int which);                                                          \
  template void DeviceSystem<D>::reset_counters();                                                            \
  template uint64_t DeviceSystem<D>::fingerprint();

GPUMC_KOKKOS_DEVICE_TYPES(GPUMC_INSTANTIATE)
#undef GPUMC_INSTANTIATE

}    // namespace gpumc
