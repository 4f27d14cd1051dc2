// Kokkos engine: the reciprocal-space part of an Ewald sum (gpumc_ewald.h). The structure factors
// stay on the device; the host keeps the wave vectors of the box, which change only with it.

#include "gpumc_system_kokkos.h"
#include "gpumc_ewald_kokkos.h"

#include "gpumc_device_types_kokkos.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpumc {

namespace {
// The device's wave vectors: LAMMPS's, in rows along z (by m along x, then y, then z), so that
// consecutive wave vectors share their phases along x and y (kk::EwaldBatchFunctor keeps them).
// Sums over them differ from those in LAMMPS's order by round-off.
std::vector<EwaldVector> device_wave_vectors(const EwaldSettings &s, const double len[3])
{
  std::vector<EwaldVector> kvec = ewald_vectors(s, len);
  std::sort(kvec.begin(), kvec.end(), [](const EwaldVector &a, const EwaldVector &b) {
    return std::lexicographical_compare(a.m, a.m + 3, b.m, b.m + 3);
  });
  return kvec;
}
}    // namespace

template <class DeviceType>
void DeviceSystem<DeviceType>::upload_wave_vectors(kk::EwaldData<DeviceType> &e, const std::vector<EwaldVector> &kvec)
{
  e.nk = (int) kvec.size();
  int kmax[3];
  ewald_kmax(kvec, kmax);
  e.kmax = std::max(kmax[0], std::max(kmax[1], kmax[2]));    // (one table width for every dimension)
  kk::reuse_or_allocate(e.m, "gpumc:ewald_m", kvec.size());
  kk::reuse_or_allocate(e.ug, "gpumc:ewald_ug", kvec.size());
  kk::reuse_or_allocate(e.s, "gpumc:ewald_s", kvec.size());
  auto h_m = Kokkos::create_mirror_view(e.m);
  auto h_ug = Kokkos::create_mirror_view(e.ug);
  for (size_t k = 0; k < kvec.size(); k++) {
    for (int d = 0; d < 3; d++) h_m(k, d) = kvec[k].m[d];
    h_ug(k) = kvec[k].ug;
  }
  Kokkos::deep_copy(e.m, h_m);
  Kokkos::deep_copy(e.ug, h_ug);
}

// S from the positions in the cell list (a team per wave vector)
template <class DeviceType>
void DeviceSystem<DeviceType>::ewald_structure_factors(kk::EwaldData<DeviceType> &e)
{
  if (e.nk == 0) return;
  kk::EwaldSumFunctor<DeviceType> f{c_, e, {box_lo_[0], box_lo_[1], box_lo_[2]},
                                    {box_len_[0], box_len_[1], box_len_[2]}};
  Kokkos::parallel_for("gpumc:ewald_sum", TeamPolicy(e.nk, on_host() ? 1 : 128), f);
}

// The wave vectors of the current box and S from the positions, where the configuration is new
template <class DeviceType>
void DeviceSystem<DeviceType>::ensure_ewald()
{
  if (!table_.ewald.enabled || !ewald_stale_) return;
  double lo[3], len[3];
  fetch_box(lo, len);
  ensure_cells();
  kvec_ = device_wave_vectors(table_.ewald, box_len_);
  upload_wave_vectors(ew_, kvec_);
  ewald_structure_factors(ew_);
  ewald_stale_ = false;
}

// E_recip of the current configuration, with S computed again from the positions (so that it
// carries no round-off of the moves' updates)
template <class DeviceType>
double DeviceSystem<DeviceType>::ewald_energy()
{
  if (!table_.ewald.enabled) return 0.0;
  ewald_stale_ = true;
  ensure_ewald();
  double e = 0.0;
  Kokkos::parallel_reduce("gpumc:ewald_energy", Kokkos::RangePolicy<ExecSpace>(0, ew_.nk),
                          kk::EwaldEnergyFunctor<DeviceType>{ew_}, e);
  return e;
}

// teams of kk::EwaldBatchFunctor: a stage of wave vectors each at least, two per H100
// multiprocessor at most
namespace {
int batch_teams(int nk, int stage, bool host)
{
  const int stages = (nk + stage - 1) / stage;
  return std::max(1, std::min(stages, host ? 8 : 264));
}
}    // namespace

template <class DeviceType>
void DeviceSystem<DeviceType>::ensure_ewald_batch(int batch)
{
  if (!ew_.nk) return;
  // (kk::EwaldBatchFunctor's blocks cover EWALD_BATCH_MAX moves: chain_batch() keeps to them)
  if (batch > kk::EWALD_BATCH_MAX)
    throw std::runtime_error("GPUMC Kokkos engine: an Ewald batch of more than " +
                             std::to_string(kk::EWALD_BATCH_MAX) + " moves");
  using V2 = Kokkos::View<double **, Kokkos::LayoutRight, DeviceType>;
  const int pairs = std::max(1, batch * (batch - 1) / 2);
  const int teams = batch_teams(ew_.nk, kk::EwaldBatchFunctor<DeviceType>::STAGE, on_host());
  auto fit = [](V2 &v, const char *label, size_t n0, size_t n1) {
    if (v.extent(0) != n0 || v.extent(1) != n1)
      v = V2(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n0, n1);
  };
  fit(ew_.part_own, "gpumc:ewald_part_own", teams, batch);
  fit(ew_.part_pair, "gpumc:ewald_part_pair", teams, pairs);
  const size_t rows = 6 * (2 * ew_.kmax + 1);
  if (ew_.phase.extent(0) != rows || ew_.phase.extent(1) != (size_t) (2 * batch)) {
    using V3 = decltype(ew_.phase);
    ew_.phase = V3(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpumc:ewald_phase"), rows, 2 * batch, 2);
    ew_.phase_by_move =
        V3(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpumc:ewald_phase_by_move"), 2 * batch, rows, 2);
  }
  if (ew_.pair_correction.extent(0) != (size_t) pairs)
    ew_.pair_correction =
        View<double *>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpumc:ewald_pair_correction"), pairs);
  if (ew_.applied.extent(1) != (size_t) batch)
    ew_.applied = decltype(ew_.applied)("gpumc:ewald_applied", 2, batch);
  if (!ew_.pending.data()) ew_.pending = View<int>("gpumc:ewald_pending");
}

// a batch's moves' changes of E_recip and the coupling of every pair of them (one pass over the
// wave vectors), then the teams' parts summed into their energy changes and, with the pair
// terms, into the corrections
template <class DeviceType>
template <class Pairs>
void DeviceSystem<DeviceType>::ewald_chain_evaluate(int count, int64_t end, double cutsq_max)
{
  using Batch = kk::EwaldBatchFunctor<DeviceType>;
  const int teams = (int) ew_.part_pair.extent(0), pairs = count * (count - 1) / 2;
  Kokkos::parallel_for("gpumc:ewald_chain_batch",
                       light(typename Batch::Policy(teams, Batch::team_size()))
                           .set_scratch_size(0, Kokkos::PerTeam(Batch::scratch_bytes())),
                       Batch{c_, ew_, chain_, 0, count, end});
  using Finish = kk::EwaldBatchFinishFunctor<DeviceType, Pairs>;
  Kokkos::parallel_for("gpumc:ewald_chain_finish",
                       light(TeamPolicy(pairs + count, on_host() ? 1 : 32))
                           .set_scratch_size(0, Kokkos::PerTeam(Finish::scratch_bytes())),
                       Finish{c_, ew_, chain_, pairs, teams, cutsq_max});
}

// the moves of the chain's last batch added to S (kk::EwaldData: the one-pass kernels add those of
// the batches before it)
template <class DeviceType>
void DeviceSystem<DeviceType>::ewald_apply_pending()
{
  if (!ew_.nk || !ew_.pending.data()) return;
  using Apply = kk::EwaldApplyFunctor<DeviceType>;
  const int teams = (ew_.nk + Apply::WAVES - 1) / Apply::WAVES;
  Kokkos::parallel_for("gpumc:ewald_apply",
                       light(TeamPolicy(teams, on_host() ? 1 : Apply::WAVES))
                           .set_scratch_size(0, Kokkos::PerTeam(Apply::scratch_bytes((int) ew_.applied.extent(1)))),
                       Apply{ew_});
  Kokkos::deep_copy(ew_.pending, 0);
}

// A volume trial's E_recip, added to its pair energy (after trial_pair_energy): the trial box's
// wave vectors worked out on the host (they depend on the box through LAMMPS's choice of kmax),
// S kept where they are the same (positions scale with the box), else from the positions. False
// for an inactive trial.
template <class DeviceType>
bool DeviceSystem<DeviceType>::ewald_volume_trial_energy(kk::EwaldData<DeviceType> &trial,
                                                         std::vector<EwaldVector> &kvec)
{
  auto h_counter = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.counter);
  if (!h_counter(DC_TRIAL_ACTIVE)) return false;    // outside the allowed region, or the chain stopped
  auto h_scalar = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.scalar);
  const double trial_len[3] = {h_scalar(DS_TRIAL_LEN), h_scalar(DS_TRIAL_LEN + 1), h_scalar(DS_TRIAL_LEN + 2)};
  kvec = device_wave_vectors(table_.ewald, trial_len);
  trial = ew_;
  if (same_wave_vectors(kvec, kvec_)) {
    trial.ug = View<double *>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpumc:ewald_trial_ug"), kvec.size());
    auto h_ug = Kokkos::create_mirror_view(trial.ug);
    for (size_t k = 0; k < kvec.size(); k++) h_ug(k) = kvec[k].ug;
    Kokkos::deep_copy(trial.ug, h_ug);
  } else {
    trial.m = View<int *[3]>();
    trial.ug = View<double *>();
    trial.s = View<double *[2]>();
    upload_wave_vectors(trial, kvec);
    for (int d = 0; d < 3; d++) {    // (fractional coordinates: the current box's will do)
      box_lo_[d] = h_scalar(DS_LO + d);
      box_len_[d] = h_scalar(DS_LEN + d);
    }
    ewald_structure_factors(trial);
  }
  Kokkos::View<double, DeviceType> recip("gpumc:ewald_trial_energy");
  Kokkos::parallel_reduce("gpumc:ewald_trial_energy", Kokkos::RangePolicy<ExecSpace>(0, trial.nk),
                          kk::EwaldEnergyFunctor<DeviceType>{trial}, recip);
  Kokkos::parallel_for("gpumc:ewald_trial_add", Kokkos::RangePolicy<ExecSpace>(0, 1),
                       kk::EwaldTrialEnergyFunctor<DeviceType>{c_, recip});
  return true;
}

// After the trial's decision: an accepted trial's wave vectors and S become the current ones
template <class DeviceType>
void DeviceSystem<DeviceType>::ewald_volume_commit(const kk::EwaldData<DeviceType> &trial,
                                                   std::vector<EwaldVector> &kvec)
{
  long accepted;
  Kokkos::deep_copy(accepted, Kokkos::subview(c_.counter, (int) DC_TRIAL_ACCEPTED));
  if (!accepted) return;
  kvec_ = std::move(kvec);
  ew_.m = trial.m;
  ew_.ug = trial.ug;
  ew_.s = trial.s;
  ew_.nk = trial.nk;    // (the batch arrays are sized again for it)
  ew_.kmax = trial.kmax;
}

template <class DeviceType>
double DeviceSystem<DeviceType>::widom_ewald(const kk::WidomArgs &a, const CounterRNG &rng, uint64_t ninsert)
{
  ensure_ewald();
  double sum = 0.0;
  const uint64_t most = 1u << 30;    // insertions per launch (league sizes are int)
  for (uint64_t base = 0; base < ninsert; base += most) {
    const int n = (int) std::min(most, ninsert - base);
    double part = 0.0;
    Kokkos::parallel_reduce("gpumc:widom_ewald", TeamPolicy(n, on_host() ? 1 : 128),
                            kk::EwaldWidomFunctor<DeviceType>{c_, ew_, a, rng, (int64_t) base}, part);
    sum += part;
  }
  return sum;
}

// compiled once, for the device types of LAMMPS's KOKKOS package
#define GPUMC_INSTANTIATE(D)                                                                                       \
  template void DeviceSystem<D>::upload_wave_vectors(kk::EwaldData<D> &e, const std::vector<EwaldVector> &kvec);  \
  template void DeviceSystem<D>::ewald_structure_factors(kk::EwaldData<D> &e);                                     \
  template double DeviceSystem<D>::ewald_energy();                                                                 \
  template void DeviceSystem<D>::ensure_ewald();                                                                   \
  template void DeviceSystem<D>::ensure_ewald_batch(int batch);                                                    \
  template void DeviceSystem<D>::ewald_chain_evaluate<PairsAny>(int count, int64_t end, double cutsq_max);          \
  template void DeviceSystem<D>::ewald_chain_evaluate<PairsLJMorse>(int count, int64_t end, double cutsq_max);      \
  template void DeviceSystem<D>::ewald_apply_pending();                                                           \
  template bool DeviceSystem<D>::ewald_volume_trial_energy(kk::EwaldData<D> &trial, std::vector<EwaldVector> &kvec); \
  template void DeviceSystem<D>::ewald_volume_commit(const kk::EwaldData<D> &trial, std::vector<EwaldVector> &kvec); \
  template double DeviceSystem<D>::widom_ewald(const kk::WidomArgs &a, const CounterRNG &rng, uint64_t ninsert);

GPUMC_KOKKOS_DEVICE_TYPES(GPUMC_INSTANTIATE)
#undef GPUMC_INSTANTIATE

}    // namespace gpumc
