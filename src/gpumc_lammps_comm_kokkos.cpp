/* ----------------------------------------------------------------------
   GPUMC: LAMMPS's exchange and borders on the device with their messages staged in host memory
   (gpumc_lammps_comm_kokkos.h). The steps and the state they set are those of the KOKKOS
   package's CommKokkos::exchange_device and borders_device (LAMMPS 4Feb2025), for an orthogonal
   box and a single ghost cutoff; only their MPI messages go through pinned host buffers.
------------------------------------------------------------------------- */

#include "gpumc_lammps_comm_kokkos.h"

#include "atom_kokkos.h"
#include "atom_masks.h"
#include "atom_vec_kokkos.h"
#include "comm_kokkos.h"
#include "domain.h"
#include "fix.h"
#include "kokkos.h"
#include "kokkos_base.h"
#include "utils.h"

#include <algorithm>

using namespace LAMMPS_NS;

namespace {

// CommKokkos keeps the state that exchange and borders set in protected members. A class derived
// from it may form pointers to them, and such a pointer applies to any CommKokkos: through these
// the staged versions set exactly what CommKokkos's own set. (The class is never instantiated.)
struct CommState : CommKokkos {
  CommState() = delete;
  static DAT::tdual_int_2d &sendlist_of(CommKokkos *c) { return c->*&CommState::k_sendlist; }
  static int *&maxsendlist_of(CommKokkos *c) { return c->*&CommState::maxsendlist; }
  static int (&sendneed_of(CommKokkos *c))[3][2] { return c->*&CommState::sendneed; }
  static int (&maxneed_of(CommKokkos *c))[3] { return c->*&CommState::maxneed; }
  static int *&sendnum_of(CommKokkos *c) { return c->*&CommState::sendnum; }
  static int *&recvnum_of(CommKokkos *c) { return c->*&CommState::recvnum; }
  static int *&sendproc_of(CommKokkos *c) { return c->*&CommState::sendproc; }
  static int *&recvproc_of(CommKokkos *c) { return c->*&CommState::recvproc; }
  static int *&size_forward_recv_of(CommKokkos *c) { return c->*&CommState::size_forward_recv; }
  static int *&size_reverse_send_of(CommKokkos *c) { return c->*&CommState::size_reverse_send; }
  static int *&size_reverse_recv_of(CommKokkos *c) { return c->*&CommState::size_reverse_recv; }
  static double *&slablo_of(CommKokkos *c) { return c->*&CommState::slablo; }
  static double *&slabhi_of(CommKokkos *c) { return c->*&CommState::slabhi; }
  static int *&pbc_flag_of(CommKokkos *c) { return c->*&CommState::pbc_flag; }
  static int **&pbc_of(CommKokkos *c) { return c->*&CommState::pbc; }
  static int *&firstrecv_of(CommKokkos *c) { return c->*&CommState::firstrecv; }
  static int &maxsend_of(CommKokkos *c) { return c->*&CommState::maxsend; }
  static int &maxrecv_of(CommKokkos *c) { return c->*&CommState::maxrecv; }
  static int &size_forward_of(CommKokkos *c) { return c->*&CommState::size_forward; }
  static int &size_reverse_of(CommKokkos *c) { return c->*&CommState::size_reverse; }
  static int &maxforward_of(CommKokkos *c) { return c->*&CommState::maxforward; }
  static int &maxreverse_of(CommKokkos *c) { return c->*&CommState::maxreverse; }
  static int &bordergroup_of(CommKokkos *c) { return c->*&CommState::bordergroup; }
  static int &nswap_of(CommKokkos *c) { return c->*&CommState::nswap; }
  static int &smax_of(CommKokkos *c) { return c->*&CommState::smax; }
  static int &rmax_of(CommKokkos *c) { return c->*&CommState::rmax; }
  static void grow_list_of(CommKokkos *c, int iswap, int n) { (c->*&CommState::grow_list)(iswap, n); }
  static void grow_send_kokkos_of(CommKokkos *c, int n) { (c->*&CommState::grow_send_kokkos)(n, 0, Host); }
  static void grow_recv_kokkos_of(CommKokkos *c, int n) { (c->*&CommState::grow_recv_kokkos)(n, Host); }
};

using AT = ArrayTypes<LMPDeviceType>;

// owned atoms outside [lo, hi) along dim, in index order (a prefix sum: the same list on every
// run)
struct LeavingFunctor {
  AT::t_x_array x;
  AT::t_int_1d list;
  int dim, capacity;
  double lo, hi;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, int &at, const bool final) const
  {
    if (x(i, dim) < lo || x(i, dim) >= hi) {
      if (final && at < capacity) list(at) = i;
      at++;
    }
  }
};

// atoms of nfirst .. nlast-1 within [lo, hi] along dim, in index order, into row iswap of the
// send lists
struct BorderFunctor {
  AT::t_x_array x;
  AT::t_int_2d sendlist;
  int nfirst, dim, iswap, capacity;
  double lo, hi;
  KOKKOS_INLINE_FUNCTION void operator()(const int k, int &at, const bool final) const
  {
    const int i = nfirst + k;
    if (x(i, dim) >= lo && x(i, dim) <= hi) {
      if (final && at < capacity) sendlist(iswap, at) = i;
      at++;
    }
  }
};

// rows of n values each, at least `rows` of them (reallocated, contents dropped, where fewer)
void fit_rows(DAT::tdual_xfloat_2d &buf, int rows, int n)
{
  if ((int) buf.extent(0) < rows || (int) buf.extent(1) != n) {
    buf = DAT::tdual_xfloat_2d(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpumc:staged_comm_buf"),
                               (size_t) std::max(rows + rows / 4, 16), (size_t) n);
  }
}

}    // namespace

GPUMC::StagedDeviceComm::StagedDeviceComm(LAMMPS *lmp) :
    Pointers(lmp), leaving_("gpumc:staged_leaving", 100), fill_("gpumc:staged_fill", 100)
{
}

bool GPUMC::StagedDeviceComm::applies() const
{
  auto *commKK = dynamic_cast<CommKokkos *>(comm);
  auto *avecKK = atomKK ? atomKK->avecKK : nullptr;
  if (!lmp->kokkos || !commKK || !avecKK || comm->nprocs == 1) return false;
  // (exchange_comm_changed: the KOKKOS package turned its device exchange off for want of
  // GPU-aware MPI, and no `comm/exchange` keyword, `comm host` or `pair/only` set it since)
  const KokkosLMP *k = lmp->kokkos;
  if (!k->exchange_comm_changed || k->gpu_aware_flag || !k->exchange_comm_classic || k->exchange_comm_on_host ||
      lmp->pair_only_flag)
    return false;
  // setups that the copies below do not handle (AtomVecHybridKokkos packs nothing on the device)
  return domain->triclinic == 0 && comm->mode == Comm::SINGLE && !CommState::bordergroup_of(commKK) &&
      atom->nextra_grow == 0 && atom->nextra_border == 0 && !utils::strmatch(atom->atom_style, "^hybrid") &&
      !(comm->ghost_velocity && avecKK->no_border_vel_flag);
}

// n values at `send` (device memory) to rank `to`, and nrecv values from rank `from` into `recv`
// (device memory), through the pinned host buffers (send_staged: host_send_ holds them already)
void GPUMC::StagedDeviceComm::send_receive(const double *send, int n, int to, double *recv, int nrecv, int from,
                                           bool send_staged)
{
  auto fit = [](Kokkos::View<double *, LMPPinnedHostType> &v, int size) {
    if ((int) v.extent(0) < size)
      v = Kokkos::View<double *, LMPPinnedHostType>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpumc:staged"),
                                                   size + size / 4);
  };
  fit(host_send_, n);
  fit(host_recv_, nrecv);
  using Values = Kokkos::View<double *, LMPDeviceType, Kokkos::MemoryUnmanaged>;
  if (n && !send_staged)
    Kokkos::deep_copy(Kokkos::subview(host_send_, std::make_pair(0, n)), Values(const_cast<double *>(send), n));
  MPI_Request request;
  if (nrecv) MPI_Irecv(host_recv_.data(), nrecv, MPI_DOUBLE, from, 0, world, &request);
  if (n) MPI_Send(host_send_.data(), n, MPI_DOUBLE, to, 0, world);
  if (nrecv) {
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    Kokkos::deep_copy(Values(recv, nrecv), Kokkos::subview(host_recv_, std::make_pair(0, nrecv)));
  }
}

int GPUMC::StagedDeviceComm::list_leaving(int dim, double lo, double hi)
{
  const int nlocal = atom->nlocal;
  LeavingFunctor f{atomKK->k_x.d_view, leaving_.d_view, dim, (int) leaving_.extent(0), lo, hi};
  int count = 0;
  Kokkos::parallel_scan("gpumc:staged_leaving", Kokkos::RangePolicy<LMPDeviceType>(0, nlocal), f, count);
  if (count > f.capacity) {
    leaving_ = DAT::tdual_int_1d("gpumc:staged_leaving", count + count / 10 + 16);
    fill_ = DAT::tdual_int_1d("gpumc:staged_fill", leaving_.extent(0));
    f.list = leaving_.d_view;
    f.capacity = (int) leaving_.extent(0);
    Kokkos::parallel_scan("gpumc:staged_leaving", Kokkos::RangePolicy<LMPDeviceType>(0, nlocal), f, count);
  }
  leaving_.modify_device();
  return count;
}

int GPUMC::StagedDeviceComm::list_border(int iswap, int nfirst, int nlast, int dim, double lo, double hi)
{
  auto *commKK = (CommKokkos *) comm;
  auto &sendlist = CommState::sendlist_of(commKK);
  BorderFunctor f{atomKK->k_x.d_view, sendlist.d_view, nfirst, dim, iswap, CommState::maxsendlist_of(commKK)[iswap],
                  lo, hi};
  int nsend = 0;
  Kokkos::parallel_scan("gpumc:staged_border", Kokkos::RangePolicy<LMPDeviceType>(0, nlast - nfirst), f, nsend);
  sendlist.modify_device();
  if (nsend >= f.capacity) {    // a full list grows (at capacity too, as in CommKokkos)
    CommState::grow_list_of(commKK, iswap, nsend);
    f.sendlist = sendlist.d_view;
    f.capacity = CommState::maxsendlist_of(commKK)[iswap];
    Kokkos::parallel_scan("gpumc:staged_border", Kokkos::RangePolicy<LMPDeviceType>(0, nlast - nfirst), f, nsend);
    sendlist.modify_device();
  }
  return nsend;
}

// CommKokkos::exchange_device, staged.
void GPUMC::StagedDeviceComm::exchange()
{
  auto *avecKK = atomKK->avecKK;
  if (lmp->kokkos->atom_map_classic && atom->map_style != Atom::MAP_NONE) atom->map_clear();
  atom->nghost = 0;
  atom->avec->clear_bonus();
  atomKK->sync(Device, ALL_MASK);
  // (rows as CommKokkos's buffers have them; pack_exchange_kokkos adds rows as it needs)
  const int cols = avecKK->size_border + (comm->ghost_velocity ? avecKK->size_velocity : 0);
  fit_rows(send_, 16, cols);
  for (int dim = 0; dim < 3; dim++) {
    const double lo = domain->sublo[dim], hi = domain->subhi[dim];
    int nlocal = atom->nlocal;
    const int count = list_leaving(dim, lo, hi);
    // each leaving atom's place taken by the last atom that stays (CommKokkos's order)
    leaving_.sync_host();
    int sendpos = count - 1, icopy = nlocal - 1;
    nlocal -= count;
    for (int recvpos = 0; recvpos < count; recvpos++) {
      const int irecv = leaving_.h_view(recvpos);
      if (irecv < nlocal) {
        if (icopy == leaving_.h_view(sendpos)) icopy--;
        while (sendpos > 0 && icopy <= leaving_.h_view(sendpos - 1)) {
          sendpos--;
          icopy = leaving_.h_view(sendpos) - 1;
        }
        fill_.h_view(recvpos) = icopy;
        icopy--;
      } else
        fill_.h_view(recvpos) = -1;
    }
    fill_.modify_host();
    fill_.sync_device();
    const int nsend = avecKK->pack_exchange_kokkos(count, send_, leaving_, fill_, Device);
    Kokkos::fence();
    atom->nlocal = nlocal;
    // to the lower neighbour, and to the upper one too where there are more than two along dim;
    // with a single rank along dim, as in CommKokkos, none is sent (an atom outside a periodic
    // box's only subdomain cannot be: the callers wrap the positions first)
    if (comm->procgrid[dim] == 1) continue;
    const int lower = comm->procneigh[dim][0], upper = comm->procneigh[dim][1];
    int nrecv1 = 0, nrecv2 = 0;
    MPI_Sendrecv(&nsend, 1, MPI_INT, lower, 0, &nrecv1, 1, MPI_INT, upper, 0, world, MPI_STATUS_IGNORE);
    if (comm->procgrid[dim] > 2)
      MPI_Sendrecv(&nsend, 1, MPI_INT, upper, 0, &nrecv2, 1, MPI_INT, lower, 0, world, MPI_STATUS_IGNORE);
    const int nrecv = nrecv1 + nrecv2;
    fit_rows(recv_, nrecv / cols + 1, cols);
    send_receive(send_.d_view.data(), nsend, lower, recv_.d_view.data(), nrecv1, upper);
    if (comm->procgrid[dim] > 2)
      send_receive(send_.d_view.data(), nsend, upper, recv_.d_view.data() + nrecv1, nrecv2, lower, true);
    if (nrecv) {
      recv_.modify_device();
      DAT::tdual_int_1d no_indices;    // (no fix's per-atom data moves with the atoms)
      atom->nlocal = avecKK->unpack_exchange_kokkos(recv_, nrecv, atom->nlocal, dim, lo, hi, Device, no_indices);
      Kokkos::fence();
    }
  }
  atomKK->modified(Device, ALL_MASK);
  if (atom->firstgroupname) {    // (as CommKokkos: on the host)
    atomKK->sync(Host, ALL_MASK);
    atom->first_reorder();
    atomKK->modified(Host, ALL_MASK);
  }
}

// CommKokkos::borders_device, staged.
void GPUMC::StagedDeviceComm::borders()
{
  auto *commKK = (CommKokkos *) comm;
  auto *avecKK = atomKK->avecKK;
  // CommKokkos's grow_list keeps the send lists on the device only when its exchange is not
  // classic (the flag set back however this returns: an error in library mode throws)
  struct DeviceLists {
    CommKokkos *c;
    bool classic;
    ~DeviceLists() { c->exchange_comm_classic = classic; }
  } device_lists{commKK, commKK->exchange_comm_classic};
  commKK->exchange_comm_classic = false;
  atomKK->sync(Device, ALL_MASK);
  auto &sendlist = CommState::sendlist_of(commKK);
  sendlist.sync_device();
  const bool vel = comm->ghost_velocity;
  const int cols = avecKK->size_border + (vel ? avecKK->size_velocity : 0);
  int *sendnum = CommState::sendnum_of(commKK), *recvnum = CommState::recvnum_of(commKK);
  int *sendproc = CommState::sendproc_of(commKK), *recvproc = CommState::recvproc_of(commKK);
  int(&sendneed)[3][2] = CommState::sendneed_of(commKK);
  int iswap = 0, smax = 0, rmax = 0;
  for (int dim = 0; dim < 3; dim++) {
    int nfirst = 0, nlast = 0;
    const int twoneed = 2 * CommState::maxneed_of(commKK)[dim];
    for (int ineed = 0; ineed < twoneed; ineed++) {
      // first swaps of a dimension: owned atoms and ghosts; later ones: the ghosts just received
      if (ineed % 2 == 0) {
        nfirst = nlast;
        nlast = atom->nlocal + atom->nghost;
      }
      // (sendneed: the receiver needs nothing more from this far)
      int nsend = 0;
      if (ineed / 2 < sendneed[dim][ineed % 2])
        nsend = list_border(iswap, nfirst, nlast, dim, CommState::slablo_of(commKK)[iswap],
                            CommState::slabhi_of(commKK)[iswap]);
      fit_rows(send_, nsend, cols);
      auto list = Kokkos::subview(sendlist, iswap, Kokkos::ALL);
      const int pbc_flag = CommState::pbc_flag_of(commKK)[iswap];
      int *pbc = CommState::pbc_of(commKK)[iswap];
      const int n = vel ? avecKK->pack_border_vel_kokkos(nsend, list, send_, pbc_flag, pbc, Device)
                        : avecKK->pack_border_kokkos(nsend, list, send_, pbc_flag, pbc, Device);
      Kokkos::fence();
      int nrecv = nsend;
      DAT::tdual_xfloat_2d *from = &send_;
      if (sendproc[iswap] != comm->me) {
        MPI_Sendrecv(&nsend, 1, MPI_INT, sendproc[iswap], 0, &nrecv, 1, MPI_INT, recvproc[iswap], 0, world,
                     MPI_STATUS_IGNORE);
        fit_rows(recv_, nrecv, cols);
        send_receive(send_.d_view.data(), n, sendproc[iswap], recv_.d_view.data(), nrecv * cols, recvproc[iswap]);
        recv_.modify_device();
        from = &recv_;
      }
      if (vel)
        avecKK->unpack_border_vel_kokkos(nrecv, atom->nlocal + atom->nghost, *from, Device);
      else
        avecKK->unpack_border_kokkos(nrecv, atom->nlocal + atom->nghost, *from, Device);
      Kokkos::fence();
      smax = std::max(smax, nsend);
      rmax = std::max(rmax, nrecv);
      sendnum[iswap] = nsend;
      recvnum[iswap] = nrecv;
      CommState::size_forward_recv_of(commKK)[iswap] = nrecv * CommState::size_forward_of(commKK);
      CommState::size_reverse_send_of(commKK)[iswap] = nrecv * CommState::size_reverse_of(commKK);
      CommState::size_reverse_recv_of(commKK)[iswap] = nsend * CommState::size_reverse_of(commKK);
      CommState::firstrecv_of(commKK)[iswap] = atom->nlocal + atom->nghost;
      atom->nghost += nrecv;
      iswap++;
    }
  }
  // (the classic borders set these; CommKokkos's device borders leaves them)
  CommState::smax_of(commKK) = smax;
  CommState::rmax_of(commKK) = rmax;
  // Comm's own buffers long enough for every forward and reverse communication
  const int maxforward = CommState::maxforward_of(commKK), maxreverse = CommState::maxreverse_of(commKK);
  int max = std::max(maxforward * smax, maxreverse * rmax);
  if (max > CommState::maxsend_of(commKK)) CommState::grow_send_kokkos_of(commKK, max);
  max = std::max(maxforward * rmax, maxreverse * smax);
  if (max > CommState::maxrecv_of(commKK)) CommState::grow_recv_kokkos_of(commKK, max);
  atomKK->modified(Device, ALL_MASK);
  if (atom->map_style != Atom::MAP_NONE) atom->map_set();
}

// CommKokkos::forward_comm_device for a fix, staged: only the values sent cross to the host and
// back, where CommKokkos copies its buffers' whole length each way.
void GPUMC::StagedDeviceComm::forward_comm(Fix *fix)
{
  auto *commKK = (CommKokkos *) comm;
  auto *fixKK = dynamic_cast<KokkosBase *>(fix);
  auto &sendlist = CommState::sendlist_of(commKK);
  sendlist.sync_device();
  const int *sendnum = CommState::sendnum_of(commKK), *recvnum = CommState::recvnum_of(commKK);
  const int *sendproc = CommState::sendproc_of(commKK), *recvproc = CommState::recvproc_of(commKK);
  const int nsize = fix->comm_forward, nswap = CommState::nswap_of(commKK);
  int most = 1;
  for (int iswap = 0; iswap < nswap; iswap++) most = std::max({most, nsize * sendnum[iswap], nsize * recvnum[iswap]});
  if ((int) forward_send_.extent(0) < most) {
    forward_send_ = DAT::tdual_xfloat_1d("gpumc:staged_forward_send", most + most / 4);
    forward_recv_ = DAT::tdual_xfloat_1d("gpumc:staged_forward_recv", most + most / 4);
  }
  for (int iswap = 0; iswap < nswap; iswap++) {
    const int n = fixKK->pack_forward_comm_kokkos(sendnum[iswap], Kokkos::subview(sendlist, iswap, Kokkos::ALL),
                                                  forward_send_, CommState::pbc_flag_of(commKK)[iswap],
                                                  CommState::pbc_of(commKK)[iswap]);
    Kokkos::fence();
    DAT::tdual_xfloat_1d *from = &forward_send_;
    if (sendproc[iswap] != comm->me) {
      send_receive(forward_send_.d_view.data(), n, sendproc[iswap], forward_recv_.d_view.data(),
                   nsize * recvnum[iswap], recvproc[iswap]);
      forward_recv_.modify_device();
      from = &forward_recv_;
    }
    fixKK->unpack_forward_comm_kokkos(recvnum[iswap], CommState::firstrecv_of(commKK)[iswap], *from);
    Kokkos::fence();
  }
}
