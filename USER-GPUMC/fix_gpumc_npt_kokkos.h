/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: fix gpumc/npt/kk: fix gpumc/nvt/kk with volume moves (see fix_gpumc_npt.h).
------------------------------------------------------------------------- */

#ifdef FIX_CLASS
// clang-format off
FixStyle(gpumc/npt/kk,FixGpumcNPTKokkos<LMPDeviceType>);
FixStyle(gpumc/npt/kk/device,FixGpumcNPTKokkos<LMPDeviceType>);
FixStyle(gpumc/npt/kk/host,FixGpumcNPTKokkos<LMPHostType>);
// clang-format on
#else

#ifndef LMP_FIX_GPUMC_NPT_KOKKOS_H
#define LMP_FIX_GPUMC_NPT_KOKKOS_H

#include "fix_gpumc_nvt_kokkos.h"

namespace LAMMPS_NS {

template <class DeviceType>
class FixGpumcNPTKokkos : public FixGpumcNVTKokkos<DeviceType> {
 public:
  FixGpumcNPTKokkos(class LAMMPS *, int, char **);
};

}    // namespace LAMMPS_NS

#endif
#endif
