// Kokkos engine: the sequential translation chain, evaluated in batches and decided in order.

#include "gpumc_system_kokkos.h"
#include "gpumc_chain_kokkos.h"

#include "gpumc_device_types_kokkos.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpumc {

// One sweep's worth of the chain: nmoves translations numbered first_move.. of atoms drawn from
// `mobile` (atom indices), then nvol volume trials numbered first_vol... Everything runs on the
// device; the host reads the counters once at the end to learn whether the chain stopped before
// a move it could not carry out (see the header), and if so rebuilds and resumes at that move.
template <class DeviceType>
void DeviceSystem<DeviceType>::sweep(View<int *> mobile, double beta, double dmax, const CounterRNG &trans_rng,
                                     uint64_t first_move, uint64_t nmoves, int nvol, int scheme, double vstep,
                                     double pressure_energy, const CounterRNG &vol_rng, uint64_t first_vol)
{
  settle();
  ensure_cells();
  ensure_ewald();
  uint64_t t_done = 0;
  int v_done = 0;
  long last_stop = -1, repeats = 0;
  for (;;) {
    if (t_done < nmoves && mobile.extent(0) > 0)
      chain(mobile, beta, dmax, trans_rng, first_move + t_done, nmoves - t_done);
    for (int v = v_done; v < nvol; v++) volume_trial(scheme, vstep, beta, pressure_energy, vol_rng, first_vol + v);
    if (nvol > 0) box_synced_ = false;
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_.counter);
    if (!h(DC_STOPPED)) return;
    const long kind = h(DC_STOP_KIND), move = h(DC_STOP_MOVE);
    // a stop fixed by a rebuild never recurs at the same move: guard against a logic error
    repeats = (move == last_stop) ? repeats + 1 : 0;
    last_stop = move;
    if (repeats > 2) throw std::runtime_error("GPUMC Kokkos engine: the chain stopped repeatedly at one move");
    if (kind == 0) {
      t_done = (uint64_t) move - first_move;
      v_done = 0;
      rebuild_cells(false);    // a cell was full: more room per cell
    } else {
      t_done = nmoves;
      v_done = (int) ((uint64_t) move - first_vol);
      rebuild_cells(true);     // cells too narrow for the proposed box: a coarser grid
    }
  }
}

// Moves first..first+nmoves-1 of the sequential chain, in batches evaluated in parallel and
// decided in order (kk::ChainCommitFunctor). The chain is the same for every batch size
// (EngineOptions::chain_batch; 1 is the strictly serial evaluation).
template <class DeviceType>
void DeviceSystem<DeviceType>::chain(View<int *> mobile, double beta, double dmax, const CounterRNG &rng,
                                     uint64_t first, uint64_t nmoves)
{
  padding_stale_ = true;    // moves between cells
  const int batch = chain_batch();
  if (chain_.size() != batch) chain_ = kk::BatchData<DeviceType>(batch);
  const uint64_t nmobile = mobile.extent(0);
  ensure_ewald_batch(batch);
  // the kernels compiled for the table's pair kinds (gpumc_pair_potential.h)
  auto run = [&](auto pairs) {
    using Pairs = decltype(pairs);
    using Correct = kk::ChainCorrectionFunctor<DeviceType, Pairs>;
    using Commit = kk::ChainCommitFunctor<DeviceType, Pairs>;
    const size_t bytes = Commit::scratch_bytes(batch, ew_.nk > 0);
    // one batch: moves from `from` (count of them), or (end >= 0) from where the last batch ended
    auto launch = [&](uint64_t from, int count, int64_t end) {
      ew_.buffer ^= 1;    // (batches alternate between the Ewald buffers: kk::EwaldData)
      kk::ChainEvaluateFunctor<DeviceType, Pairs> evaluate{c_,      mobile, chain_, rng, dmax, from,
                                                           nmobile, count,  end,    ew_};
      Kokkos::parallel_for("gpumc:chain_evaluate", light(TeamPolicy(count, team_size())), evaluate);
      const double cutsq_max = cut_max_ * cut_max_ * (1.0 + 1e-12);
      if (ew_.nk)
        ewald_chain_evaluate<Pairs>(count, end, cutsq_max);    // (the pair terms' corrections too)
      else
        Kokkos::parallel_for("gpumc:chain_corrections",
                             light(TeamPolicy(count, on_host() ? 1 : 64))
                                 .set_scratch_size(0, Kokkos::PerTeam(Correct::scratch_bytes(batch))),
                             Correct{chain_, c_.scalar, c_.coeff, c_.nt1, c_.nterms, cutsq_max});
      Commit commit{c_, mobile, chain_, rng, beta, dmax, from, nmobile, count, ew_, end};
      Kokkos::parallel_for("gpumc:chain_commit",
                           light(TeamPolicy(1, commit_team())).set_scratch_size(0, Kokkos::PerTeam(bytes)), commit);
    };
    if (!ew_.nk) {
      for (uint64_t done = 0; done < nmoves; done += batch)
        launch(first + done, (int) std::min<uint64_t>(batch, nmoves - done), -1);
      return;
    }
    // With an Ewald sum a batch may end early (kk::ChainCommitFunctor): batches for the moves left,
    // then the host reads where they got to, until the chain is done or stopped.
    const int64_t end = (int64_t) (first + nmoves);
    Kokkos::deep_copy(chain_.next, (long) first);
    for (long next = (long) first; next < end;) {
      const uint64_t left = (uint64_t) (end - next);
      for (uint64_t n = 0; n < (left + batch - 1) / batch; n++) launch(0, batch, end);
      const long before = next;
      Kokkos::deep_copy(next, chain_.next);
      long stopped;
      Kokkos::deep_copy(stopped, Kokkos::subview(c_.counter, (int) DC_STOPPED));
      if (stopped) return;
      // (every batch decides at least its first move)
      if (next <= before) throw std::runtime_error("GPUMC Kokkos engine: the Ewald chain made no progress");
    }
  };
  if (lj_morse_)
    run(PairsLJMorse{});
  else
    run(PairsAny{});
  ewald_apply_pending();    // (S current, as the rest of the engine expects it)
}

// the team that evaluates one move of a batch of the sequential chain: on a GPU 512 threads
// (16 warps to hide the latency of the loads of one move's neighbourhood) where they fit
template <class DeviceType>
int DeviceSystem<DeviceType>::team_size() const
{
  if (team_size_ > 0) return team_size_;
  return on_host() ? 1 : std::min(512, max_team_size(false, false));
}

// moves per batch of the sequential chain: about sqrt(N), so that few moves of a batch move an
// atom that an earlier one moved (then evaluated again), at most 128; with an Ewald sum 16 to 64
// (the Gram matrix's tiles; on an H200 at N = 4913 a batch of 64 made 1.6x the trial moves/s of
// one of 35, its fixed cost spread over more moves)
template <class DeviceType>
int DeviceSystem<DeviceType>::chain_batch() const
{
  int batch = options_.chain_batch > 0 ? options_.chain_batch
      : table_.ewald.enabled           ? std::min(64, std::max(16, (int) std::sqrt((double) natoms_)))
                                       : std::max(8, (int) std::sqrt((double) natoms_));
  batch = std::min(batch, table_.ewald.enabled ? kk::EWALD_BATCH_MAX : kk::CHAIN_BATCH_MAX);
  // no more than the deciding team's on-chip scratch holds
  auto fits = [&](int b) {
    return kk::ChainCommitFunctor<DeviceType, PairsAny>::scratch_bytes(b, table_.ewald.enabled) <=
        TeamPolicy::scratch_size_max(0);
  };
  while (batch > 1 && !fits(batch)) batch = batch * 3 / 4;
  return batch;
}

// the largest team of the chain's evaluation kernel (max_team_size)
template <class DeviceType>
int DeviceSystem<DeviceType>::chain_team_max()
{
  using Any = kk::ChainEvaluateFunctor<DeviceType, PairsAny>;
  using LJMorse = kk::ChainEvaluateFunctor<DeviceType, PairsLJMorse>;
  return std::min(TeamPolicy(1, 1).team_size_max(Any{}, Kokkos::ParallelForTag()),
                  TeamPolicy(1, 1).team_size_max(LJMorse{}, Kokkos::ParallelForTag()));
}

// compiled once, for the device types of LAMMPS's KOKKOS package
#define GPUMC_INSTANTIATE(D)                                                                                      \
  template int DeviceSystem<D>::chain_team_max();                                                                 \
  template void DeviceSystem<D>::sweep(View<int *> mobile, double beta, double dmax, const CounterRNG &trans_rng, \
                                       uint64_t first_move, uint64_t nmoves, int nvol, int scheme, double vstep,  \
                                       double pressure_energy, const CounterRNG &vol_rng, uint64_t first_vol);    \
  template void DeviceSystem<D>::chain(View<int *> mobile, double beta, double dmax, const CounterRNG &rng,       \
                                       uint64_t first, uint64_t nmoves);                                          \
  template int DeviceSystem<D>::team_size() const;                                                                \
  template int DeviceSystem<D>::chain_batch() const;

GPUMC_KOKKOS_DEVICE_TYPES(GPUMC_INSTANTIATE)
#undef GPUMC_INSTANTIATE

}    // namespace gpumc
