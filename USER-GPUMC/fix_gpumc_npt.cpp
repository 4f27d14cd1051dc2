/* ----------------------------------------------------------------------
   GPUMC: fix gpumc/npt. The moves, acceptance rules and bookkeeping are those of
   fix gpumc/nvt (fix_gpumc_nvt.cpp) with volume moves switched on.
------------------------------------------------------------------------- */

#include "fix_gpumc_npt.h"

using namespace LAMMPS_NS;

FixGpumcNPT::FixGpumcNPT(LAMMPS *lmp, int narg, char **arg) : FixGpumcNVT(lmp, narg, arg, true) {}
