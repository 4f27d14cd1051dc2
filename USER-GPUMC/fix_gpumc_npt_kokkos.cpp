/* ----------------------------------------------------------------------
   GPUMC: fix gpumc/npt/kk: fix gpumc/nvt/kk with volume moves switched on.
------------------------------------------------------------------------- */

#include "fix_gpumc_npt_kokkos.h"

using namespace LAMMPS_NS;

template <class DeviceType>
FixGpumcNPTKokkos<DeviceType>::FixGpumcNPTKokkos(LAMMPS *lmp, int narg, char **arg) :
    FixGpumcNVTKokkos<DeviceType>(lmp, narg, arg, true)
{
}

namespace LAMMPS_NS {
template class FixGpumcNPTKokkos<LMPDeviceType>;
#ifdef LMP_KOKKOS_GPU
template class FixGpumcNPTKokkos<LMPHostType>;
#endif
}    // namespace LAMMPS_NS
