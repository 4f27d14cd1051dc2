/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: compute widom/kk: Widom test-particle insertion run by the Kokkos engine, many
   insertions in parallel, the configuration on the device.
------------------------------------------------------------------------- */

#ifdef COMPUTE_CLASS
// clang-format off
ComputeStyle(widom/kk,ComputeWidomKokkos<LMPDeviceType>);
ComputeStyle(widom/kk/device,ComputeWidomKokkos<LMPDeviceType>);
ComputeStyle(widom/kk/host,ComputeWidomKokkos<LMPHostType>);
// clang-format on
#else

#ifndef LMP_COMPUTE_WIDOM_KOKKOS_H
#define LMP_COMPUTE_WIDOM_KOKKOS_H

#include "compute_widom.h"
#include "kokkos_type.h"

#include "gpumc_system_kokkos.h"
#include "gpumc_lammps_kokkos.h"

#include <memory>

namespace LAMMPS_NS {

template <class DeviceType>
class ComputeWidomKokkos : public ComputeWidom {
 public:
  ComputeWidomKokkos(class LAMMPS *, int, char **);
  void init() override;

  gpumc::EngineOptions engine_options;    // for tests: taken by the engine at init()

 protected:
  uint64_t load_configuration() override;
  double insertion_block(uint64_t block, uint64_t &done) override;

 private:
  std::unique_ptr<gpumc::DeviceSystem<DeviceType>> engine;
  GPUMC::KokkosConfiguration<DeviceType> conf;
};

}    // namespace LAMMPS_NS

#endif
#endif
