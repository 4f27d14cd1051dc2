/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: LAMMPS's exchange and borders for the /kk checkerboard sweeps on several MPI ranks when
   MPI cannot read device memory (gpumc_lammps_comm_kokkos.cpp).
------------------------------------------------------------------------- */

#ifndef LMP_GPUMC_LAMMPS_COMM_KOKKOS_H
#define LMP_GPUMC_LAMMPS_COMM_KOKKOS_H

#include "kokkos_type.h"
#include "pointers.h"

#include <utility>

namespace LAMMPS_NS {
class Fix;

namespace GPUMC {

  // CommKokkos's exchange, borders and a fix's forward communication on the device, with only
  // their messages staged in host memory.
  //
  // Without GPU-aware MPI the KOKKOS package makes exchange and borders classic: every per-atom
  // array is copied to the host, the atoms are exchanged and the ghosts built there, and the
  // arrays are copied back (on 4 H200s with 716 thousand atoms each, 55-60 ms per invocation of
  // the sweeps). Its forward communication of a fix stays on the device but copies its buffers'
  // whole length to the host and back. These are the KOKKOS package's device versions
  // (CommKokkos::exchange_device, borders_device, forward_comm_device: the atoms listed, packed
  // and unpacked on the device by atomKK's AtomVecKokkos or the fix), with only the values sent
  // copied between the device and pinned host buffers around MPI. They set the Comm state that
  // CommKokkos's own set (send lists, swap counts, ghosts, the atom map), so every later
  // communication, classic or not, works on their result.
  class StagedDeviceComm : protected Pointers {
   public:
    explicit StagedDeviceComm(LAMMPS *lmp);
    // Whether the functions below replace Comm's: KOKKOS on a GPU, several ranks, MPI that
    // cannot read device memory (the KOKKOS package made its exchange classic for that reason,
    // not at a user's request: `-pk kokkos comm/exchange no` keeps it classic), and a setup these
    // copies handle: an orthogonal box, one ghost cutoff for all atoms, no `comm_modify group`, no
    // fix with per-atom data that moves with the atoms or goes with the ghosts, no hybrid atom
    // style, ghost velocities only where the atom style's Kokkos code packs them. Otherwise the
    // callers use Comm's.
    bool applies() const;
    // Comm::exchange: owned atoms that left this rank's subdomain to the neighbouring ranks.
    void exchange();
    // Comm::borders: the ghosts anew, with the send lists of every swap.
    void borders();
    // Comm::forward_comm(fix) for a /kk fix (KokkosBase's pack and unpack on the device).
    void forward_comm(Fix *fix);
    // true on the first call only (its user says once in the log that these replace Comm's)
    bool first_use() { return !std::exchange(used_, true); }

   private:
    bool used_ = false;
    DAT::tdual_int_1d leaving_, fill_;    // exchange: atoms that leave, the atoms moved into their places
    DAT::tdual_xfloat_2d send_, recv_;              // packed atoms on the device
    Kokkos::View<double *, LMPPinnedHostType> host_send_, host_recv_;    // the messages in host memory
    DAT::tdual_xfloat_1d forward_send_, forward_recv_;                  // a fix's forward communication
    // n values at send (device memory) to rank `to`, nrecv from rank `from` into recv (device
    // memory); send_staged: the last call staged these n values to the host already
    void send_receive(const double *send, int n, int to, double *recv, int nrecv, int from,
                      bool send_staged = false);
    // the atoms that leave along dim, into leaving_; their number
    int list_leaving(int dim, double lo, double hi);
    // the atoms that swap iswap sends, into CommKokkos's send list; their number
    int list_border(int iswap, int nfirst, int nlast, int dim, double lo, double hi);
  };

}    // namespace GPUMC
}    // namespace LAMMPS_NS

#endif
