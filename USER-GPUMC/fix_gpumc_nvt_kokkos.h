/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: fix gpumc/nvt/kk and (with volume moves) fix gpumc/npt/kk: the Monte Carlo chain of
   fix gpumc/nvt run by the Kokkos engine in the execution space of the KOKKOS package (a GPU, or
   OpenMP or Serial threads), with the data on that device for whole invocations.
------------------------------------------------------------------------- */

#ifdef FIX_CLASS
// clang-format off
FixStyle(gpumc/nvt/kk,FixGpumcNVTKokkos<LMPDeviceType>);
FixStyle(gpumc/nvt/kk/device,FixGpumcNVTKokkos<LMPDeviceType>);
FixStyle(gpumc/nvt/kk/host,FixGpumcNVTKokkos<LMPHostType>);
// clang-format on
#else

#ifndef LMP_FIX_GPUMC_NVT_KOKKOS_H
#define LMP_FIX_GPUMC_NVT_KOKKOS_H

#include "fix_gpumc_nvt.h"
#include "kokkos_base.h"
#include "kokkos_type.h"

#include "gpumc_system_kokkos.h"
#include "gpumc_lammps_kokkos.h"

#include <memory>

namespace LAMMPS_NS {

template <class DeviceType>
class FixGpumcNVTKokkos : public FixGpumcNVT, public KokkosBase {
 public:
  FixGpumcNVTKokkos(class LAMMPS *, int, char **);
  void init() override;
  // the ghosts' positions on several MPI ranks (GPUMC::GhostPositionsComm)
  int pack_forward_comm_kokkos(int n, DAT::tdual_int_1d k_sendlist, DAT::tdual_xfloat_1d &k_buf, int pbc_flag,
                               int *pbc) override;
  void unpack_forward_comm_kokkos(int n, int first, DAT::tdual_xfloat_1d &k_buf) override;

  gpumc::EngineOptions engine_options;    // for tests: taken by the engine at init()

 protected:
  FixGpumcNVTKokkos(class LAMMPS *, int, char **, bool with_volume_moves);
  void setup_energy() override;
  void run_invocation() override;
  void draw_velocities() override;
  std::unique_ptr<GPUMC::DomainSweeps> make_domain_sweeps() override;
  uint64_t fingerprint_ranks() override;
  long non_finite_owned() override;

 private:
  std::unique_ptr<gpumc::DeviceSystem<DeviceType>> engine;
  GPUMC::KokkosConfiguration<DeviceType> conf;
  // the domain sweeps' exchange, borders and ghost refresh without GPU-aware MPI, kept from one
  // invocation to the next with its buffers
  std::unique_ptr<GPUMC::StagedDeviceComm> staged_comm;

  void load();
  void synchronise_energy();
};

}    // namespace LAMMPS_NS

#endif
#endif
