/* ----------------------------------------------------------------------
   GPUMC: compute widom/kk. Arguments, blocks and output are those of compute widom; the
   insertions run in parallel in the Kokkos engine (gpumc_system_kokkos.h), stratified over its
   cells (the same number of insertions in every cell).
------------------------------------------------------------------------- */

#include "compute_widom_kokkos.h"

#include "atom_kokkos.h"
#include "atom_masks.h"
#include "comm.h"

using namespace LAMMPS_NS;

template <class DeviceType>
ComputeWidomKokkos<DeviceType>::ComputeWidomKokkos(LAMMPS *lmp, int narg, char **arg) :
    ComputeWidom(lmp, narg, arg)
{
  kokkosable = 1;
  atomKK = (AtomKokkos *) atom;
  execution_space = ExecutionSpaceFromDevice<DeviceType>::space;
  datamask_read = X_MASK | TYPE_MASK | TAG_MASK | MASK_MASK;
  datamask_modify = EMPTY_MASK;
}

template <class DeviceType>
void ComputeWidomKokkos<DeviceType>::init()
{
  ComputeWidom::init();
  GPUMC::check_kokkos_system(lmp, "compute widom/kk");
  if (table->ewald.enabled)
    GPUMC::check_one_process(lmp, "compute widom/kk with kspace_style ewald", "; the host style runs on several");
  engine = std::make_unique<gpumc::DeviceSystem<DeviceType>>(*table, 0, mixed_precision, engine_options);
}

template <class DeviceType>
uint64_t ComputeWidomKokkos<DeviceType>::load_configuration()
{
  GPUMC::stop_on_non_finite(lmp, "compute widom/kk", GPUMC::non_finite_owned_kokkos<DeviceType>(lmp));    // (the cells need numbers)
  double lo[3], len[3];
  GPUMC::box_of(lmp, lo, len);
  if (comm->nprocs > 1) {
    // every rank takes the whole configuration (GPUMC::gather), in ID order, onto its device
    atomKK->sync(Host, X_MASK | TYPE_MASK | TAG_MASK);
    const GPUMC::Configuration all = GPUMC::gather(lmp);
    conf.load(all);
    engine->set_configuration(conf.x, conf.type, lo, len);
    return GPUMC::fingerprint(lmp, all.x, all.type, *table);
  }
  atomKK->sync(execution_space, datamask_read);
  conf.gather(lmp, 1);
  engine->set_configuration(conf.x, conf.type, lo, len);
  return GPUMC::fingerprint(lmp, engine->fingerprint(), *table);
}

template <class DeviceType>
double ComputeWidomKokkos<DeviceType>::insertion_block(uint64_t block, uint64_t &done)
{
  const gpumc::CounterRNG rng(seed, gpumc::RNG_WIDOM + 16 * (uint64_t) itype);
  if (comm->nprocs == 1) return engine->widom(itype, beta, rng, block, (uint64_t) ninsert, done);
  // on several MPI ranks each rank makes the insertions of its share of the insertion boxes
  const double mine = engine->widom(itype, beta, rng, block, (uint64_t) ninsert, done, comm->me, comm->nprocs);
  double mean = 0.0;
  MPI_Allreduce((void *) &mine, &mean, 1, MPI_DOUBLE, MPI_SUM, world);
  return mean;
}

namespace LAMMPS_NS {
template class ComputeWidomKokkos<LMPDeviceType>;
#ifdef LMP_KOKKOS_GPU
template class ComputeWidomKokkos<LMPHostType>;
#endif
}    // namespace LAMMPS_NS
