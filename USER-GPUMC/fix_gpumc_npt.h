/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: fix gpumc/npt: translations plus volume moves at constant N, P, T.
------------------------------------------------------------------------- */

#ifdef FIX_CLASS
// clang-format off
FixStyle(gpumc/npt,FixGpumcNPT);
// clang-format on
#else

#ifndef LMP_FIX_GPUMC_NPT_H
#define LMP_FIX_GPUMC_NPT_H

#include "fix_gpumc_nvt.h"

namespace LAMMPS_NS {

class FixGpumcNPT : public FixGpumcNVT {
 public:
  FixGpumcNPT(class LAMMPS *, int, char **);
};

}    // namespace LAMMPS_NS

#endif
#endif
