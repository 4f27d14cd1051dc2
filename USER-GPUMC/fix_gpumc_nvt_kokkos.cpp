/* ----------------------------------------------------------------------
   GPUMC: fix gpumc/nvt/kk and fix gpumc/npt/kk. Arguments, bookkeeping, thermo output and restart
   are those of the host styles (fix_gpumc_nvt.cpp); the chain runs in the Kokkos engine.
------------------------------------------------------------------------- */

#include "fix_gpumc_nvt_kokkos.h"

#include "atom_kokkos.h"
#include "atom_masks.h"
#include "comm.h"
#include "error.h"
#include "update.h"

#include <stdexcept>

using namespace LAMMPS_NS;

template <class DeviceType>
FixGpumcNVTKokkos<DeviceType>::FixGpumcNVTKokkos(LAMMPS *lmp, int narg, char **arg) :
    FixGpumcNVTKokkos(lmp, narg, arg, false)
{
}

template <class DeviceType>
FixGpumcNVTKokkos<DeviceType>::FixGpumcNVTKokkos(LAMMPS *lmp, int narg, char **arg, bool with_volume_moves) :
    FixGpumcNVT(lmp, narg, arg, with_volume_moves)
{
  kokkosable = 1;
  atomKK = (AtomKokkos *) atom;
  execution_space = ExecutionSpaceFromDevice<DeviceType>::space;
  datamask_read = X_MASK | TYPE_MASK | TAG_MASK | MASK_MASK | IMAGE_MASK;
  datamask_modify = X_MASK | IMAGE_MASK;
  comm_forward = 3;
  forward_comm_device = 1;
}

template <class DeviceType>
int FixGpumcNVTKokkos<DeviceType>::pack_forward_comm_kokkos(int n, DAT::tdual_int_1d k_sendlist,
                                                             DAT::tdual_xfloat_1d &k_buf, int pbc_flag, int *pbc)
{
  return GPUMC::GhostPositionsComm<DeviceType>::pack(lmp, n, k_sendlist, k_buf, pbc_flag, pbc);
}

template <class DeviceType>
void FixGpumcNVTKokkos<DeviceType>::unpack_forward_comm_kokkos(int n, int first, DAT::tdual_xfloat_1d &k_buf)
{
  GPUMC::GhostPositionsComm<DeviceType>::unpack(lmp, n, first, k_buf);
}

template <class DeviceType>
void FixGpumcNVTKokkos<DeviceType>::init()
{
  FixGpumcNVT::init();
  GPUMC::check_kokkos_system(lmp, style_name());
  const int most = gpumc::DeviceSystem<DeviceType>::max_team_size(algorithm == ALGORITHM_CHECKERBOARD, mixed_precision);
  if (team_size > most)
    error->all(FLERR, "{}: team {} is larger than this Kokkos backend runs ({} threads at most)", style_name(),
               team_size, most);
  engine = std::make_unique<gpumc::DeviceSystem<DeviceType>>(*table, team_size, mixed_precision, engine_options);
}

// A fresh engine state from the LAMMPS configuration on the device.
template <class DeviceType>
void FixGpumcNVTKokkos<DeviceType>::load()
{
  atomKK->sync(execution_space, datamask_read);
  conf.gather(lmp, groupbit);
  double lo[3], len[3];
  GPUMC::box_of(lmp, lo, len);
  engine->set_configuration(conf.x, conf.type, lo, len);
}

template <class DeviceType>
void FixGpumcNVTKokkos<DeviceType>::setup_energy()
{
  if (comm->nprocs > 1) {    // unless nothing changed, the host's recomputation from the configuration gathered
    const uint64_t now = fingerprint_ranks();
    if (now == fingerprint) return;
    atomKK->sync(Host, X_MASK | TYPE_MASK | TAG_MASK);
    start_energy_gathered(GPUMC::gather(lmp), now);
    return;
  }
  load();
  synchronise_energy();
}

template <class DeviceType>
uint64_t FixGpumcNVTKokkos<DeviceType>::fingerprint_ranks()
{
  return GPUMC::fingerprint_ranks_kokkos<DeviceType>(lmp, *table);
}

template <class DeviceType>
long FixGpumcNVTKokkos<DeviceType>::non_finite_owned()
{
  return GPUMC::non_finite_owned_kokkos<DeviceType>(lmp);
}

// On several MPI ranks: the Kokkos engine sweeps each rank's block (GPUMC::DomainSweepsKokkos).
template <class DeviceType>
std::unique_ptr<GPUMC::DomainSweeps> FixGpumcNVTKokkos<DeviceType>::make_domain_sweeps()
{
  atomKK->sync(Host, TYPE_MASK);    // (the type counts)
  if (!staged_comm) staged_comm = std::make_unique<GPUMC::StagedDeviceComm>(lmp);
  return std::make_unique<GPUMC::DomainSweepsKokkos<DeviceType>>(lmp, *table, groupbit, style_name(),
                                                                  ghosts, *engine, this, *staged_comm);
}

// as FixGpumcNVT::synchronise_energy, on the engine's configuration
template <class DeviceType>
void FixGpumcNVTKokkos<DeviceType>::synchronise_energy()
{
  const uint64_t now = GPUMC::fingerprint(lmp, engine->fingerprint(), *table);
  if (now != fingerprint) start_energy(engine->total_energy(false), now);    // cells freshly filled in ID order: canonical
}

template <class DeviceType>
void FixGpumcNVTKokkos<DeviceType>::run_invocation()
{
  if (comm->nprocs > 1) {
    try {
      run_domain_invocation();
    } catch (std::runtime_error &e) {
      error->one(FLERR, "{}: {}", style_name(), e.what());
    }
    return;
  }
  load();
  synchronise_energy();
  engine->set_running_energy(energy);
  engine->reset_counters();

  const gpumc::CounterRNG trans_rng(seed, gpumc::RNG_TRANSLATION);
  const gpumc::CounterRNG vol_rng(seed, gpumc::RNG_VOLUME);
  const gpumc::CounterRNG checker_rng(seed, gpumc::RNG_CHECKERBOARD);
  const bool checkerboard = algorithm == ALGORITHM_CHECKERBOARD;
  const uint64_t nmobile = conf.mobile.extent(0);
  const int nvol = npt ? vmoves : 0;
  uint64_t trials = 0, vtrials = 0;
  // (checkerboard sweeps are not waited for: the engine catches up, and may then throw, when it
  // is next read)
  try {
    for (bigint s = 0; s < nsweeps; s++) {
      if (checkerboard) engine->checkerboard_sweep(conf.mobile, beta, dmax, checker_rng, total_sweeps);
      // the sequential chain's translations, or only the volume trials after a checkerboard sweep
      const uint64_t nseq = checkerboard ? 0 : nmobile;
      if (nseq > 0 || nvol > 0)
        engine->sweep(conf.mobile, beta, dmax, trans_rng, trans_trials + trials, nseq, nvol, volume_scheme, vstep,
                      pressure_energy, vol_rng, vol_trials + vtrials);
      trials += nseq;
      vtrials += nvol;
      total_sweeps++;
      if (check_due()) {
        energy = engine->running_energy();
        record_check(engine->canonical_total_energy());
        engine->set_running_energy(energy);
      }
    }
    engine->settle();
  } catch (std::runtime_error &e) {
    error->one(FLERR, "{}: {}", style_name(), e.what());
  }
  energy = engine->running_energy();
  if (checkerboard) trials = engine->counter(gpumc::DC_CHECKER_TRIALS);
  const uint64_t accepted = engine->counter(gpumc::DC_TRANS_ACCEPTED);
  const uint64_t vaccepted = engine->counter(gpumc::DC_VOL_ACCEPTED);

  conf.scatter(lmp, engine->positions(), engine->image_shifts());
  atomKK->modified(execution_space, datamask_modify);
  if (vaccepted > 0) {
    double lo[3], len[3];
    engine->fetch_box(lo, len);
    GPUMC::set_box(lmp, lo, len);
  }
  fingerprint = GPUMC::fingerprint(lmp, engine->fingerprint(), *table);
  finish_invocation(trials, accepted, vtrials, vaccepted);
}

template <class DeviceType>
void FixGpumcNVTKokkos<DeviceType>::draw_velocities()
{
  atomKK->sync(execution_space, V_MASK | MASK_MASK | TAG_MASK | TYPE_MASK | (atom->rmass_flag ? RMASS_MASK : 0));
  GPUMC::draw_velocities_kokkos<DeviceType>(lmp, groupbit, gpumc::CounterRNG(seed, gpumc::RNG_VELOCITY), total_sweeps,
                                            temperature);
  atomKK->modified(execution_space, V_MASK);
}

namespace LAMMPS_NS {
template class FixGpumcNVTKokkos<LMPDeviceType>;
#ifdef LMP_KOKKOS_GPU
template class FixGpumcNVTKokkos<LMPHostType>;
#endif
}    // namespace LAMMPS_NS
