// Kokkos engine: Widom test insertions.

#include "gpumc_system_kokkos.h"
#include "gpumc_widom_kokkos.h"

#include "gpumc_device_types_kokkos.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpumc {

// Mean Boltzmann factor of test insertions of `type`, ninsert or more of them: the same number
// in every insertion box (kk::WidomArgs; boxes have equal volumes, so the mean over boxes is the
// mean over the simulation box), numbered (block, g) in the stream. By default one team per
// insertion box stages the atoms within reach of it in scratch memory and evaluates all its
// insertions there; with EngineOptions::widom_walk_cells every insertion walks the cell list.
template <class DeviceType>
double DeviceSystem<DeviceType>::widom(int type, double beta, const CounterRNG &rng, uint64_t block, uint64_t ninsert,
                                       uint64_t &done, int part, int parts)
{
  settle();
  ensure_cells();
  const Grid g = c_.g;
  const long ncells = (long) g.n[0] * g.n[1] * g.n[2];
  kk::WidomArgs a;
  a.split = widom_split(ncells, ninsert, std::sqrt(row_cutsq_[type]));
  a.nboxes = ncells * a.split * a.split * a.split;
  a.per_box = (ninsert + a.nboxes - 1) / a.nboxes;
  done = a.per_box * a.nboxes;
  a.first_box = a.nboxes * part / parts;
  a.my_boxes = a.nboxes * (part + 1) / parts - a.first_box;
  for (int d = 0; d < 3; d++) {
    a.lo[d] = box_lo_[d];
    a.len[d] = box_len_[d];
    a.width[d] = a.len[d] / (g.n[d] * a.split);
  }
  a.count_shift = table_.insertion_count_energy(type, type_count_, a.len[0] * a.len[1] * a.len[2]);
  a.type = type;
  a.beta = beta;
  a.block = block;
  double sum = 0.0;
  if (table_.ewald.enabled) {
    if (parts > 1) throw std::logic_error("GPUMC Kokkos engine: Widom insertions with an Ewald sum are not split");
    return widom_ewald(a, rng, done) / (double) done;
  }
  if (a.my_boxes == 0) return 0.0;
  // (tables of pair_style table lie after the terms, which the staged kernel copies: the simple one)
  if (options_.widom_walk_cells || table_.has_tables()) {
    Kokkos::parallel_reduce("gpumc:widom_simple",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>(
                                0, (int64_t) a.per_box * (int64_t) a.my_boxes),
                            kk::WidomSimpleFunctor<DeviceType>{c_, a, rng}, sum);
  } else if (mixed_) {
    sum = lj_morse_ ? widom_tiled<float, PairsLJMorse>(a, rng) : widom_tiled<float, PairsAny>(a, rng);
  } else {
    sum = lj_morse_ ? widom_tiled<double, PairsLJMorse>(a, rng) : widom_tiled<double, PairsAny>(a, rng);
  }
  return sum / (double) done;
}

template <class DeviceType>
template <class Real, class Pairs>
double DeviceSystem<DeviceType>::widom_tiled(const kk::WidomArgs &a, const CounterRNG &rng)
{
  using F = kk::WidomTiledFunctor<DeviceType, Real, Pairs>;
  F f{c_, a, rng};
  int most = 0;
  Kokkos::parallel_reduce("gpumc:widom_staged_max",
                          Kokkos::RangePolicy<ExecSpace, typename F::TagStagedMax>(0, (int) a.my_boxes), f,
                          Kokkos::Max<int>(most));
  f.cap = std::max(most, 1);
  const int team = widom_team();
  double sum = 0.0;
  const size_t bytes = F::scratch_bytes(f.cap, c_.nt1 * Pairs::terms(c_.nterms));
  f.level = bytes <= TeamPolicy::scratch_size_max(0) ? 0 : 1;
  const char *label = std::is_same<Real, float>::value ? "gpumc:widom_tiled_mixed" : "gpumc:widom_tiled";
  if constexpr (std::is_same<Real, float>::value) {
    // In single precision, warps of at most 64 registers where 32 of them fit a multiprocessor
    // with their scratch (H100, SiO2 at N = 74088: 1.15x the insertions per second of the 90
    // registers the compiler takes unbounded); else the unbounded kernel.
    using Bounded = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<32, 32>, typename F::TagInsertOnChip>;
    const auto bounded = Bounded((int) a.my_boxes, team).set_scratch_size(0, Kokkos::PerTeam(bytes));
    if (f.level == 0 && team == 32 && bounded.team_size_max(f, Kokkos::ParallelReduceTag()) >= team) {
      Kokkos::parallel_reduce(label, bounded, f, sum);
      return sum;
    }
  }
  if (f.level == 0)
    Kokkos::parallel_reduce(label,
                            Kokkos::TeamPolicy<ExecSpace, typename F::TagInsertOnChip>((int) a.my_boxes, team)
                                .set_scratch_size(0, Kokkos::PerTeam(bytes)),
                            f, sum);
  else
    Kokkos::parallel_reduce(label,
                            Kokkos::TeamPolicy<ExecSpace, typename F::TagInsert>((int) a.my_boxes, team)
                                .set_scratch_size(1, Kokkos::PerTeam(bytes)),
                            f, sum);
  return sum;
}

// Boxes per cell side for Widom insertions: the split (1 to 3) with the least work per insertion,
// estimated in units of volume: the volume within the cutoff of a box (the atoms a team stages
// and every insertion tests) over the fraction of a team's rounds of insertions its lanes fill,
// plus the staging (the box's whole window, in two passes of about twice a test's cost each)
// shared by the box's insertions. In SiO2 with 10^7 insertions this gives boxes of an eighth of
// a cell at N = 74088 (91 insertions per box) and whole cells at N = 357911 (146).
// EngineOptions::widom_split sets it.
template <class DeviceType>
int DeviceSystem<DeviceType>::widom_split(long ncells, uint64_t ninsert, double rc) const
{
  if (options_.widom_split >= 1 && options_.widom_split <= 3) return options_.widom_split;
  const double w = std::cbrt(box_len_[0] * box_len_[1] * box_len_[2] / (double) ncells);
  const uint64_t team = (uint64_t) widom_team();
  int best = 1;
  double best_cost = 0.0;
  for (int k = 1; k <= 3; k++) {
    const double b = w / k;
    const double reach = b * b * b + 6.0 * b * b * rc + 3.0 * M_PI * b * rc * rc + 4.0 * M_PI / 3.0 * rc * rc * rc;
    const uint64_t boxes = (uint64_t) ncells * k * k * k, per_box = (ninsert + boxes - 1) / boxes;
    const double filled = (double) per_box / (double) (team * ((per_box + team - 1) / team));
    const double window = std::pow((2 * kk::REACH + 1) * w, 3);
    const double cost = reach / filled + 4.0 * window / (double) per_box;
    if (k == 1 || cost < best_cost) {
      best = k;
      best_cost = cost;
    }
  }
  return best;
}

// compiled once, for the device types of LAMMPS's KOKKOS package
#define GPUMC_INSTANTIATE(D)                                                                           \
  template double DeviceSystem<D>::widom(int type, double beta, const CounterRNG &rng, uint64_t block, \
                                         uint64_t ninsert, uint64_t &done, int part, int parts);       \
  template int DeviceSystem<D>::widom_split(long ncells, uint64_t ninsert, double rc) const;

GPUMC_KOKKOS_DEVICE_TYPES(GPUMC_INSTANTIATE)
#undef GPUMC_INSTANTIATE

}    // namespace gpumc
