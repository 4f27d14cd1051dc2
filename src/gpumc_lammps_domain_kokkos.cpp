/* ----------------------------------------------------------------------
   GPUMC: checkerboard sweeps of the /kk styles on several MPI ranks (gpumc_lammps_kokkos.h:
   DomainSweepsKokkos; the driver is gpumc_lammps.h's DomainSweeps, the engine
   gpumc_domain_kokkos.cpp). The Kokkos counterpart of gpumc_lammps_domain.cpp's DomainSweepsHost.
------------------------------------------------------------------------- */

#include "gpumc_lammps_kokkos.h"

#include "atom_kokkos.h"
#include "atom_masks.h"
#include "comm_kokkos.h"
#include "domain.h"
#include "error.h"
#include "utils.h"

using namespace LAMMPS_NS;

namespace {

// Owned positions scaled and moved, then wrapped into the periodic box with their image flags,
// in the arithmetic of Domain::remap for an orthogonal box.
template <class DeviceType>
struct TransformFunctor {
  using AT = ArrayTypes<DeviceType>;
  typename AT::t_x_array x;
  typename AT::t_imageint_1d image;
  double old_lo[3], lo[3], scale[3], delta[3], boxlo[3], boxhi[3], prd[3];
  int periodic[3];
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const
  {
    int moved[3] = {0, 0, 0};
    for (int d = 0; d < 3; d++) {
      double v = lo[d] + (x(i, d) - old_lo[d]) * scale[d] + delta[d];
      if (periodic[d]) {
        while (v < boxlo[d]) {
          v += prd[d];
          moved[d]--;
        }
        while (v >= boxhi[d]) {
          v -= prd[d];
          moved[d]++;
        }
        v = v > boxlo[d] ? v : boxlo[d];
      }
      x(i, d) = v;
    }
    image(i) = GPUMC::shifted_image(image(i), moved[0], moved[1], moved[2]);
  }
};

// Counts the owned atoms that a translation by delta would take beyond this rank's subdomain and
// its neighbours' (GPUMC::within_one_subdomain).
template <class DeviceType>
struct BeyondNeighboursFunctor {
  using AT = ArrayTypes<DeviceType>;
  typename AT::t_x_array x;
  double delta[3], boxlo[3], prd[3];
  int procs[3], loc[3];
  KOKKOS_INLINE_FUNCTION void operator()(const int i, int &beyond) const
  {
    for (int d = 0; d < 3; d++)
      if (!GPUMC::within_one_subdomain(x(i, d) + delta[d], boxlo[d], prd[d], procs[d], loc[d])) beyond++;
  }
};

// The engine's copy of atoms first .. last - 1 from atomKK (positions only, or everything the
// cells need), or (store) the owned positions back.
template <class DeviceType>
struct EngineCopyFunctor {
  using AT = ArrayTypes<DeviceType>;
  struct TagLoad {};
  struct TagPositions {};
  struct TagStore {};
  typename AT::t_x_array x_lmp;
  typename AT::t_int_1d type_lmp, mask;
  typename AT::t_tagint_1d tag_lmp;
  Kokkos::View<double *[3], DeviceType> x;
  Kokkos::View<int *, DeviceType> type, mobile;
  Kokkos::View<int64_t *, DeviceType> tag;
  int nlocal, groupbit;
  KOKKOS_INLINE_FUNCTION void operator()(TagLoad, const int i) const
  {
    for (int d = 0; d < 3; d++) x(i, d) = x_lmp(i, d);
    type(i) = type_lmp(i);
    tag(i) = (int64_t) tag_lmp(i);
    mobile(i) = i < nlocal && (mask(i) & groupbit) ? 1 : 0;
  }
  KOKKOS_INLINE_FUNCTION void operator()(TagPositions, const int i) const
  {
    for (int d = 0; d < 3; d++) x(i, d) = x_lmp(i, d);
  }
  KOKKOS_INLINE_FUNCTION void operator()(TagStore, const int i) const
  {
    for (int d = 0; d < 3; d++) x_lmp(i, d) = x(i, d);
  }
};

}    // namespace

template <class DeviceType>
GPUMC::DomainSweepsKokkos<DeviceType>::DomainSweepsKokkos(LAMMPS *lmp, const gpumc::PairTable &table, int groupbit,
                                                          const std::string &who, Ghosts ghosts,
                                                          gpumc::DeviceSystem<DeviceType> &engine,
                                                          Fix *ghost_fix, StagedDeviceComm &staged_comm) :
    DomainSweeps(lmp, table, groupbit, who, ghosts), atomKK_((AtomKokkos *) lmp->atom), staged_comm_(staged_comm),
    engine_(engine), ghost_fix_(ghost_fix)
{
  // (an invocation that an error stopped may have left sums pending)
  double discarded;
  engine_.domain_take_sums(discarded);
}

// The ghosts' positions through the fix's Kokkos forward communication (GhostPositionsComm), on
// the device: StagedDeviceComm's when MPI cannot read device memory, else CommKokkos's. (Without
// GPU-aware MPI the KOKKOS package makes every forward communication classic, which for positions
// means copying all of them to the host and back.)
template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::forward_ghosts()
{
  const ExecutionSpace space = ExecutionSpaceFromDevice<DeviceType>::space;
  auto *commKK = dynamic_cast<CommKokkos *>(lmp_->comm);
  if (space != Device || !commKK) {
    DomainSweeps::forward_ghosts();
    return;
  }
  atomKK_->sync(space, X_MASK);
  if (staged_comm_applies()) {
    staged_comm_.forward_comm(ghost_fix_);
  } else {
    const bool classic = commKK->forward_fix_comm_classic;
    commKK->forward_fix_comm_classic = false;
    commKK->forward_comm(ghost_fix_);
    commKK->forward_fix_comm_classic = classic;
  }
  atomKK_->modified(space, X_MASK);
}

// LAMMPS's exchange and borders on the device where, for want of GPU-aware MPI, the KOKKOS
// package would run them on the host (StagedDeviceComm)
template <class DeviceType>
bool GPUMC::DomainSweepsKokkos<DeviceType>::staged_comm_applies()
{
  if (ExecutionSpaceFromDevice<DeviceType>::space != Device || !staged_comm_.applies()) return false;
  if (staged_comm_.first_use() && lmp_->comm->me == 0)
    utils::logmesg(lmp_, "{}: LAMMPS's wrap into the box, exchange, borders and the ghosts' refresh on the device, "
                   "their messages through host memory (MPI without GPU support)\n", who_);
  return true;
}

// With the staged exchange, the wrap into the box on the device too: there LAMMPS's pbc would run
// on the host (DomainKokkos does with a classic exchange), copying positions, velocities, masks and
// image flags to the host and back at every invocation. (Not with fix deform's velocity remapping,
// which the translation's kernel leaves out. The fix has stopped on non-numeric coordinates
// already, on which the translation's wrapping would not end.)
template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::wrap_atoms()
{
  if (lmp_->domain->deform_vremap || !staged_comm_applies()) {
    DomainSweeps::wrap_atoms();
    return;
  }
  const double zero[3] = {0.0, 0.0, 0.0};
  translate_atoms(zero);
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::exchange_atoms()
{
  if (staged_comm_applies())
    staged_comm_.exchange();
  else
    DomainSweeps::exchange_atoms();
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::copy_ghosts()
{
  if (staged_comm_applies())
    staged_comm_.borders();
  else
    DomainSweeps::copy_ghosts();
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::transform_atoms(const double old_lo[3], const double lo[3],
                                                            const double scale[3], const double delta[3])
{
  const ExecutionSpace space = ExecutionSpaceFromDevice<DeviceType>::space;
  atomKK_->sync(space, X_MASK | IMAGE_MASK);
  Domain *domain = lmp_->domain;
  TransformFunctor<DeviceType> f{atomKK_->k_x.template view<DeviceType>(),
                                 atomKK_->k_image.template view<DeviceType>()};
  for (int d = 0; d < 3; d++) {
    f.old_lo[d] = old_lo[d];
    f.lo[d] = lo[d];
    f.scale[d] = scale[d];
    f.delta[d] = delta[d];
    f.boxlo[d] = domain->boxlo[d];
    f.boxhi[d] = domain->boxhi[d];
    f.prd[d] = domain->prd[d];
    f.periodic[d] = domain->periodicity[d];
  }
  Kokkos::parallel_for("gpumc:domain_transform", Kokkos::RangePolicy<ExecSpace>(0, atomKK_->nlocal), f);
  atomKK_->modified(space, X_MASK | IMAGE_MASK);
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::translate_atoms(const double delta[3])
{
  const double zero[3] = {0.0, 0.0, 0.0}, one[3] = {1.0, 1.0, 1.0};
  transform_atoms(zero, zero, one, delta);
}

template <class DeviceType>
bool GPUMC::DomainSweepsKokkos<DeviceType>::owned_within_one_subdomain(const double delta[3])
{
  const ExecutionSpace space = ExecutionSpaceFromDevice<DeviceType>::space;
  atomKK_->sync(space, X_MASK);
  const Domain *domain = lmp_->domain;
  BeyondNeighboursFunctor<DeviceType> f{atomKK_->k_x.template view<DeviceType>()};
  for (int d = 0; d < 3; d++) {
    f.delta[d] = delta[d];
    f.boxlo[d] = domain->boxlo[d];
    f.prd[d] = domain->prd[d];
    f.procs[d] = lmp_->comm->procgrid[d];
    f.loc[d] = lmp_->comm->myloc[d];
  }
  int beyond = 0;
  Kokkos::parallel_reduce("gpumc:domain_beyond_neighbours", Kokkos::RangePolicy<ExecSpace>(0, atomKK_->nlocal), f,
                          beyond);
  return beyond == 0;
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::scale_atoms(const double old_lo[3], const double lo[3],
                                                        const double scale[3])
{
  const double zero[3] = {0.0, 0.0, 0.0};
  transform_atoms(old_lo, lo, scale, zero);
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::save_atoms()
{
  const ExecutionSpace space = ExecutionSpaceFromDevice<DeviceType>::space;
  atomKK_->sync(space, X_MASK | IMAGE_MASK);
  const int nlocal = atomKK_->nlocal;
  const auto owned = std::make_pair(0, nlocal);
  gpumc::kk::grow_to(saved_x_, "gpumc:domain_saved_x", nlocal);
  gpumc::kk::grow_to(saved_image_, "gpumc:domain_saved_image", nlocal);
  Kokkos::deep_copy(Kokkos::subview(saved_x_, owned, Kokkos::ALL),
                    Kokkos::subview(atomKK_->k_x.template view<DeviceType>(), owned, Kokkos::ALL));
  Kokkos::deep_copy(Kokkos::subview(saved_image_, owned),
                    Kokkos::subview(atomKK_->k_image.template view<DeviceType>(), owned));
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::restore_atoms()
{
  const ExecutionSpace space = ExecutionSpaceFromDevice<DeviceType>::space;
  atomKK_->sync(space, X_MASK | IMAGE_MASK);
  const auto owned = std::make_pair(0, atomKK_->nlocal);
  Kokkos::deep_copy(Kokkos::subview(atomKK_->k_x.template view<DeviceType>(), owned, Kokkos::ALL),
                    Kokkos::subview(saved_x_, owned, Kokkos::ALL));
  Kokkos::deep_copy(Kokkos::subview(atomKK_->k_image.template view<DeviceType>(), owned),
                    Kokkos::subview(saved_image_, owned));
  atomKK_->modified(space, X_MASK | IMAGE_MASK);
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::build_engine(const gpumc::DomainBlock &block)
{
  using F = EngineCopyFunctor<DeviceType>;
  const ExecutionSpace space = ExecutionSpaceFromDevice<DeviceType>::space;
  atomKK_->sync(space, X_MASK | TYPE_MASK | TAG_MASK | MASK_MASK);
  const int nlocal = atomKK_->nlocal, nall = atomKK_->nlocal + atomKK_->nghost;
  gpumc::kk::grow_to(x_, "gpumc:domain_x", nall);
  gpumc::kk::grow_to(type_, "gpumc:domain_type", nall);
  gpumc::kk::grow_to(mobile_, "gpumc:domain_mobile", nall);
  gpumc::kk::grow_to(tag_, "gpumc:domain_tag", nall);
  F f{atomKK_->k_x.template view<DeviceType>(),
      atomKK_->k_type.template view<DeviceType>(),
      atomKK_->k_mask.template view<DeviceType>(),
      atomKK_->k_tag.template view<DeviceType>(),
      x_,
      type_,
      mobile_,
      tag_,
      nlocal,
      groupbit_};
  Kokkos::parallel_for("gpumc:domain_load", Kokkos::RangePolicy<ExecSpace, typename F::TagLoad>(0, nall), f);
  engine_.domain_build(block, nlocal, nall, x_, type_, tag_, mobile_);
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::set_tried_cells(const gpumc::DomainBlock &block)
{
  engine_.domain_set_tried_cells(block.lowest, block.moving);
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::sweep_colours(const int order[8], const gpumc::CounterRNG &rng,
                                                          uint64_t sweep, double beta, double dmax)
{
  if (one_grid()) {
    engine_.domain_colours(order, beta, dmax, rng, sweep, {});
    store_owned();
  } else {
    engine_.domain_colours(order, beta, dmax, rng, sweep, [&]() {
      store_owned();
      colour_done();
    });
  }
  engine_.domain_add_sweep_sums();
}

template <class DeviceType>
gpumc::MoveCounts GPUMC::DomainSweepsKokkos<DeviceType>::take_pending(double &dU)
{
  return engine_.domain_take_sums(dU);
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::store_owned()
{
  using F = EngineCopyFunctor<DeviceType>;
  const ExecutionSpace space = ExecutionSpaceFromDevice<DeviceType>::space;
  atomKK_->sync(space, X_MASK);
  F f{atomKK_->k_x.template view<DeviceType>(), {}, {}, {}, x_, {}, {}, {}, atomKK_->nlocal, 0};
  Kokkos::parallel_for("gpumc:domain_store", Kokkos::RangePolicy<ExecSpace, typename F::TagStore>(0, f.nlocal), f);
  atomKK_->modified(space, X_MASK);
}

template <class DeviceType>
void GPUMC::DomainSweepsKokkos<DeviceType>::refresh_ghosts()
{
  using F = EngineCopyFunctor<DeviceType>;
  const ExecutionSpace space = ExecutionSpaceFromDevice<DeviceType>::space;
  atomKK_->sync(space, X_MASK);
  F f{atomKK_->k_x.template view<DeviceType>(), {}, {}, {}, x_, {}, {}, {}, atomKK_->nlocal, 0};
  Kokkos::parallel_for("gpumc:domain_ghosts",
                       Kokkos::RangePolicy<ExecSpace, typename F::TagPositions>(atomKK_->nlocal,
                                                                                atomKK_->nlocal + atomKK_->nghost),
                       f);
  engine_.domain_refresh_ghosts();
}

template <class DeviceType>
double GPUMC::DomainSweepsKokkos<DeviceType>::owned_pair_energy()
{
  return engine_.domain_owned_pair_energy();
}

namespace LAMMPS_NS {
namespace GPUMC {
  template class DomainSweepsKokkos<LMPDeviceType>;
#ifdef LMP_KOKKOS_GPU
  template class DomainSweepsKokkos<LMPHostType>;
#endif
}    // namespace GPUMC
}    // namespace LAMMPS_NS
