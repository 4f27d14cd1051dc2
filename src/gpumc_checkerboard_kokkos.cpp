// Kokkos engine: checkerboard sweeps.

#include "gpumc_system_kokkos.h"
#include "gpumc_checkerboard_kokkos.h"

#include "gpumc_device_types_kokkos.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace gpumc {

// One checkerboard sweep numbered `sweep` (gpumc_checkerboard.h) of the atoms listed in
// `mobile`: the checkerboard cells are filled from the positions, then the 8 colours run, each as
// a trial kernel and a decision kernel (checker_colours). Afterwards the positions are held in
// atom order and the cell list of the other kernels is rebuilt when one of them next needs it.
// The host does not wait for the sweep: its kernels are sized by the room that earlier sweeps
// measured, and a sweep whose cells outgrow it stops the sweeps after it on the device. The
// next call that reads the engine's state (or settle()) runs them again from that one, sized
// by its measured sizes, so the chain is the same as if every sweep had been measured.
template <class DeviceType>
void DeviceSystem<DeviceType>::checkerboard_sweep(View<int *> mobile, double beta, double dmax, const CounterRNG &rng,
                                                  uint64_t sweep)
{
  const bool continues = pending_.count > 0 && pending_.mobile.data() == mobile.data() &&
      pending_.mobile.extent(0) == mobile.extent(0) && pending_.beta == beta && pending_.dmax == dmax &&
      pending_.rng.key == rng.key && pending_.first + pending_.count == sweep;
  if (!continues) settle();
  const bool measure = cb_room_.fullest == 0 || options_.checker_measure_all;
  launch_checkerboard_sweep(mobile, beta, dmax, rng, sweep, measure);
  if (measure) return;
  if (pending_.count == 0) pending_ = PendingSweeps{mobile, beta, dmax, rng, sweep, 0};
  pending_.count++;
}

// Waits for the pending checkerboard sweeps, and runs them again from one that stopped (the
// stopped one measured): each stop grows the room.
template <class DeviceType>
void DeviceSystem<DeviceType>::settle()
{
  while (pending_.count > 0) {
    const PendingSweeps p = pending_;
    pending_.count = 0;
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.counter);
    if (!h(DC_STOPPED)) return;
    if (h(DC_STOP_KIND) != 2) throw std::logic_error("GPUMC Kokkos engine: a chain stop left pending");
    const uint64_t stop = (uint64_t) h(DC_STOP_MOVE), end = p.first + p.count;
    if (stop < p.first || stop >= end) throw std::logic_error("GPUMC Kokkos engine: a stop outside the pending sweeps");
    Kokkos::deep_copy(Kokkos::subview(c_.counter, (int) DC_STOPPED), 0L);
    for (uint64_t sw = stop; sw < end; sw++) launch_checkerboard_sweep(p.mobile, p.beta, p.dmax, p.rng, sw, sw == stop);
    if (end > stop + 1) pending_ = PendingSweeps{p.mobile, p.beta, p.dmax, p.rng, stop + 1, end - stop - 1};
  }
}

// Sweep `sweep`, sized by the room that the host knows (measure: sized by its own sizes, read
// back first, with the room grown to fit them).
template <class DeviceType>
void DeviceSystem<DeviceType>::launch_checkerboard_sweep(View<int *> mobile, double beta, double dmax,
                                                         const CounterRNG &rng, uint64_t sweep, bool measure)
{
  using B = kk::CheckerBuildFunctor<DeviceType>;
  double lo[3], len[3];
  if (!box_synced_) fetch_box(lo, len);
  CheckerGrid g;
  if (!checker_grid(rng, sweep, box_lo_, box_len_, checker_min_width(cut_max_), g))
    throw std::runtime_error("box too small for the checkerboard decomposition: each side must hold two cells "
                             "as wide as the largest cutoff");
  if (ntypes_ > 32767) throw std::runtime_error("the checkerboard kernel stages atom types as short integers");
  cb_.x = atom_positions();
  cb_.type = c_.type;
  cb_.counter = c_.counter;
  if ((int) cb_.cell_of.extent(0) != natoms_) {
    cb_.cell_of = View<int *>("gpumc:checker_cell_of", natoms_);
    cb_.mobile = View<int *>("gpumc:checker_mobile", natoms_);
  }
  if (cb_mobile_stale_ || mobile.data() != cb_mobile_source_.data() ||
      mobile.extent(0) != cb_mobile_source_.extent(0)) {
    cb_mobile_source_ = mobile;
    cb_mobile_stale_ = false;
    Kokkos::deep_copy(ExecSpace(), cb_.mobile, 0);
    Kokkos::parallel_for("gpumc:checker_mobile",
                         Kokkos::RangePolicy<ExecSpace, typename B::TagMobile>(0, (int) mobile.extent(0)),
                         B{cb_, mobile});
  }
  const int ncells = g.n[0] * g.n[1] * g.n[2];
  if ((int) cb_.count.extent(0) != ncells) {
    cb_.count = View<int *>("gpumc:checker_count", ncells);
    cb_.du = View<double *>("gpumc:checker_du", ncells);
    cb_.accepted = View<long *>("gpumc:checker_accepted", ncells);
    cb_.trials = View<long *>("gpumc:checker_trials", ncells);
  } else {
    Kokkos::deep_copy(ExecSpace(), cb_.count, 0);
  }
  // (the per-cell sums need no fill: each colour's decision kernel sets its cells')
  cb_.g = g;
  cb_.domain = false;
  // (every kernel of a sweep takes its functor as a kernel argument: see light())
  Kokkos::parallel_for("gpumc:checker_count", light(Kokkos::RangePolicy<ExecSpace, typename B::TagCount>(0, natoms_)),
                       B{cb_, mobile});
  if (!cb_sizes_.data()) cb_sizes_ = View<kk::CheckerSizes>("gpumc:checker_sizes");
  Kokkos::parallel_reduce("gpumc:checker_sizes", light(Kokkos::RangePolicy<ExecSpace>(0, ncells)),
                          kk::CheckerSizesFunctor<DeviceType>{cb_}, cb_sizes_);
  if (measure) {
    kk::CheckerSizes m;
    Kokkos::deep_copy(m, cb_sizes_);
    // room for the sweeps that follow: a margin over this one's sizes
    cb_room_.fullest = std::max(cb_room_.fullest, m.fullest + m.fullest / 8 + 2);
    cb_room_.window = std::max(cb_room_.window, m.window + m.window / 16 + 32);
    if (cb_room_.fullest > cb_.cap) cb_.cap = m.fullest + m.fullest / 4 + 4;
    cb_.cap = std::max(cb_.cap, cb_room_.fullest);
  }
  // EngineOptions::checker_no_room: no room for a sweep that is not measured, so that every such
  // sweep stops and runs again
  const kk::CheckerSizes room = !measure && options_.checker_no_room ? kk::CheckerSizes{0, 0} : cb_room_;
  ensure_checker_slots(ncells);
  Kokkos::parallel_for("gpumc:checker_guard", light(Kokkos::RangePolicy<ExecSpace>(0, 1)),
                       kk::CheckerGuardFunctor<DeviceType>{cb_sizes_, c_.counter, room.fullest, room.window, sweep});
  Kokkos::deep_copy(ExecSpace(), cb_.count, 0);
  Kokkos::parallel_for("gpumc:checker_fill", light(Kokkos::RangePolicy<ExecSpace, typename B::TagFill>(0, natoms_)),
                       B{cb_, mobile});
  Kokkos::parallel_for("gpumc:checker_sort",
                       light(Kokkos::TeamPolicy<ExecSpace, typename B::TagSort>(ncells, on_host() ? 1 : 64)),
                       B{cb_, mobile});

  int order[8];
  checker_colour_order(rng, sweep, order);
  checker_colours(order, room, beta, dmax, rng, sweep);
  if (!cb_sums_.data()) cb_sums_ = View<kk::CheckerSums>("gpumc:checker_sums");
  Kokkos::parallel_reduce("gpumc:checker_sum", light(Kokkos::RangePolicy<ExecSpace>(0, ncells)),
                          kk::CheckerSumFunctor<DeviceType>{cb_}, cb_sums_);
  Kokkos::parallel_for("gpumc:checker_add", light(Kokkos::RangePolicy<ExecSpace>(0, 1)),
                       kk::CheckerAddFunctor<DeviceType>{cb_sums_, c_.scalar, c_.counter});
  cells_stale_ = true;
}

// The colours in the precision and for the pair kinds of this engine.
template <class DeviceType>
void DeviceSystem<DeviceType>::checker_colours(const int order[8], const kk::CheckerSizes &room, double beta,
                                               double dmax, const CounterRNG &rng, uint64_t sweep,
                                               const std::function<void()> &after_colour)
{
  auto in_precision = [&](auto real) {
    using Real = decltype(real);
    if (lj_morse_)
      checker_colours<Real, PairsLJMorse>(order, room.fullest, room.window, beta, dmax, rng, sweep, after_colour);
    else if (analytic_)
      checker_colours<Real, PairsAnalytic>(order, room.fullest, room.window, beta, dmax, rng, sweep, after_colour);
    else
      checker_colours<Real, PairsAny>(order, room.fullest, room.window, beta, dmax, rng, sweep, after_colour);
  };
  if (mixed_)
    in_precision(float());
  else
    in_precision(double());
}

// The cells' slots (cb_.cap per cell) for ncells cells.
template <class DeviceType>
void DeviceSystem<DeviceType>::ensure_checker_slots(int ncells)
{
  if ((size_t) ncells * cb_.cap != cb_.atom.extent(0)) {
    cb_.atom = View<int *>("gpumc:checker_atom", (size_t) ncells * cb_.cap);
    cb_.unsorted = View<int *>("gpumc:checker_unsorted", (size_t) ncells * cb_.cap);
    cb_.sux = View<double *>("gpumc:checker_sux", (size_t) ncells * cb_.cap);
    cb_.suy = View<double *>("gpumc:checker_suy", (size_t) ncells * cb_.cap);
    cb_.suz = View<double *>("gpumc:checker_suz", (size_t) ncells * cb_.cap);
    cb_.stype = View<short *>("gpumc:checker_stype", (size_t) ncells * cb_.cap);
  }
}

template <class DeviceType>
template <class Real, class Pairs>
void DeviceSystem<DeviceType>::checker_colours(const int order[8], int fullest, int window, double beta, double dmax,
                                               const CounterRNG &rng, uint64_t sweep,
                                               const std::function<void()> &after_colour)
{
  using F = kk::CheckerTrialFunctor<DeviceType, Real, Pairs>;
  const int nactive = cb_.active_cells_max();
  const int window_cap = std::max(window, 1);
  if (window_cap > F::MAX_WINDOW)
    throw std::runtime_error("more than " + std::to_string(F::MAX_WINDOW) +
                             " atoms within reach of one checkerboard cell: too dense for the checkerboard kernel");
  cb_.corr_cap = kk::CheckerDecideFunctor<DeviceType>::pair_entries(cb_.cap);
  kk::reuse_or_allocate(cb_.trial_du, "gpumc:checker_trial_du", (size_t) nactive * cb_.cap);
  kk::reuse_or_allocate(cb_.trial_state, "gpumc:checker_trial_state", (size_t) nactive * cb_.cap);
  kk::reuse_or_allocate(cb_.trial_slot, "gpumc:checker_trial_slot", (size_t) nactive * cb_.cap);
  kk::reuse_or_allocate(cb_.trial_u, "gpumc:checker_trial_u", (size_t) nactive * cb_.cap);
  kk::reuse_or_allocate(cb_.trial_log_u, "gpumc:checker_trial_log_u", (size_t) nactive * cb_.cap);
  kk::reuse_or_allocate(cb_.trial_disp, "gpumc:checker_trial_disp", (size_t) 3 * nactive * cb_.cap);
  kk::reuse_or_allocate(cb_.trial_corr, "gpumc:checker_trial_corr",
                        std::max<size_t>((size_t) nactive * cb_.corr_cap, 1));

  int team = checker_team_size();
  const int list_rounds = F::list_rounds_for(window_cap, team, warp_group(team), options_.checker_list_rounds);
  // (ALIGN: room to align the block the kernel carves)
  const size_t hot = F::hot_bytes(window_cap, team, list_rounds) + kk::ScratchCarver::ALIGN,
               cold = F::cold_bytes(cb_.cap);
  int hot_level, cold_level;
  scratch_levels(hot, cold, team, hot_level, cold_level);
  F f{cb_, c_.coeff_view(Real()), c_.row_cutsq, c_.nt1, c_.nterms, 0, window_cap, team, warp_group(team), 0, 0,
      list_rounds, hot_level, cold_level, rng, sweep, dmax};
  using Policy = typename F::Policy;
  auto with_scratch = [](auto p, int hl, int cl, size_t h, size_t c) {
    if (hl == cl) return p.set_scratch_size(hl, Kokkos::PerTeam(h + c));
    return p.set_scratch_size(0, Kokkos::PerTeam(h)).set_scratch_size(1, Kokkos::PerTeam(c));
  };
  // a team larger than the block limits with this much scratch runs as the largest that fits (its
  // lists are shorter: the same rounds, fewer groups)
  const int most = with_scratch(Policy(nactive, 1), hot_level, cold_level, hot, cold)
                       .team_size_max(f, Kokkos::ParallelForTag());
  if (team > most) {
    f.team = team = most >= 32 && warp_group(32) == 32 ? most / 32 * 32 : most;
    f.group = warp_group(team);
  }
  f.per_team = (team / f.group) * checker_trials_per_group(cb_.cap);
  f.teams_per_cell = (cb_.cap + f.per_team - 1) / f.per_team;

  using D = kk::CheckerDecideFunctor<DeviceType>;
  const int decide_team = on_host() ? 1 : 128;    // four warps: more loads in flight than one
  const size_t d_hot = D::hot_bytes(fullest), d_cold = D::cold_bytes(fullest);
  int d_hot_level, d_cold_level;
  scratch_levels(d_hot, d_cold, decide_team, d_hot_level, d_cold_level);
  D decide{cb_, c_.image, 0, warp_group(decide_team), d_hot_level, d_cold_level, beta, fullest};
  // the decisions of a colour: on CUDA by warps known to the compiler
  auto decide_colour = [&]() {
    if constexpr (cuda_space()) {
      if (decide.group == 32) {
        Kokkos::parallel_for("gpumc:checker_decide",
                             with_scratch(light(typename D::WarpPolicy(nactive, decide_team)), d_hot_level,
                                          d_cold_level, d_hot, d_cold),
                             decide);
        return;
      }
    }
    Kokkos::parallel_for("gpumc:checker_decide",
                         with_scratch(light(typename D::Policy(nactive, decide_team)), d_hot_level, d_cold_level,
                                      d_hot, d_cold),
                         decide);
  };
  const char *label = std::is_same<Real, float>::value ? "gpumc:checker_trials_mixed" : "gpumc:checker_trials";
  // the 8 colours, the trial kernel launched by a policy of policy_type's type (Policy or WarpPolicy)
  auto colours = [&](auto policy_type) {
    const auto trials_policy = with_scratch(light(decltype(policy_type)(nactive * f.teams_per_cell, team)),
                                            hot_level, cold_level, hot, cold);
    for (int k = 0; k < 8; k++) {
      f.colour = decide.colour = order[k];
      Kokkos::parallel_for(label, trials_policy, f);
      decide_colour();
      if (after_colour) after_colour();
    }
  };
  if constexpr (cuda_space()) {
    if (f.group == 32 && hot_level == 0) {
      colours(typename F::WarpPolicy());
      return;
    }
  }
  colours(Policy());
}

template <class DeviceType>
template <class Real>
int DeviceSystem<DeviceType>::checker_team_max()
{
  using F = kk::CheckerTrialFunctor<DeviceType, Real, PairsAny>;
  using A = kk::CheckerTrialFunctor<DeviceType, Real, PairsAnalytic>;
  using G = kk::CheckerTrialFunctor<DeviceType, Real, PairsLJMorse>;
  return std::min({typename F::Policy(1, 1).team_size_max(F{}, Kokkos::ParallelForTag()),
                   typename A::Policy(1, 1).team_size_max(A{}, Kokkos::ParallelForTag()),
                   typename G::Policy(1, 1).team_size_max(G{}, Kokkos::ParallelForTag())});
}

// Threads per team of the checkerboard trial kernel (`team` overrides).
template <class DeviceType>
int DeviceSystem<DeviceType>::checker_team_size() const
{
  if (team_size_ > 0) return team_size_;
  return on_host() ? 1 : 128;
}

// Trials per group (a warp) in a team of the checkerboard trial kernel: on a GPU a few, so that
// a colour launches many teams (the more, the more often the staging is repeated); on a host
// backend a whole cell, staged once. EngineOptions::checker_trials sets it.
template <class DeviceType>
int DeviceSystem<DeviceType>::checker_trials_per_group(int cell_cap) const
{
  if (options_.checker_trials > 0) return options_.checker_trials;
  return on_host() ? cell_cap : 4;
}

// Scratch levels of a team parallel_for's `hot` bytes (read in its inner loops) and `cold` bytes:
// on chip (level 0) what fits, the hot bytes first, else level 1 (device memory). Kokkos limits a
// CUDA team's level 0 to sharedMemPerBlock (48 KiB), less (team + 2) doubles it keeps for itself.
template <class DeviceType>
void DeviceSystem<DeviceType>::scratch_levels(size_t hot, size_t cold, int team, int &hot_level, int &cold_level)
{
  const size_t on_chip = TeamPolicy::scratch_size_max(0) + (size_t) (1024 - team) * sizeof(double);
  hot_level = hot <= on_chip ? 0 : 1;
  cold_level = hot_level == 0 && hot + cold <= on_chip ? 0 : 1;
}

// compiled once, for the device types of LAMMPS's KOKKOS package (the colours for the domain
// engine too, gpumc_domain_kokkos.cpp)
#define GPUMC_INSTANTIATE(D)                                                                                     \
  template int DeviceSystem<D>::checker_team_max<float>();                                                       \
  template int DeviceSystem<D>::checker_team_max<double>();                                                      \
  template void DeviceSystem<D>::checkerboard_sweep(View<int *> mobile, double beta, double dmax,                \
                                                    const CounterRNG &rng, uint64_t sweep);                      \
  template void DeviceSystem<D>::settle();                                                                       \
  template void DeviceSystem<D>::launch_checkerboard_sweep(View<int *> mobile, double beta, double dmax,         \
                                                           const CounterRNG &rng, uint64_t sweep, bool measure); \
  template int DeviceSystem<D>::checker_team_size() const;                                                       \
  template void DeviceSystem<D>::ensure_checker_slots(int ncells);                                               \
  template int DeviceSystem<D>::checker_trials_per_group(int cell_cap) const;                                    \
  template void DeviceSystem<D>::scratch_levels(size_t hot, size_t cold, int team, int &hot_level, int &cold_level); \
  template void DeviceSystem<D>::checker_colours(const int order[8], const kk::CheckerSizes &room, double beta,    \
                                                 double dmax, const CounterRNG &rng, uint64_t sweep,              \
                                                 const std::function<void()> &after_colour);

GPUMC_KOKKOS_DEVICE_TYPES(GPUMC_INSTANTIATE)
#undef GPUMC_INSTANTIATE

}    // namespace gpumc
