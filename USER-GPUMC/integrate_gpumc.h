/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: run_style gpumc, the timestep loop for Monte Carlo runs (integrate_gpumc_steps.h).
------------------------------------------------------------------------- */

#ifdef INTEGRATE_CLASS
// clang-format off
IntegrateStyle(gpumc,IntegrateGpumc);
// clang-format on
#else

#ifndef LMP_INTEGRATE_GPUMC_H
#define LMP_INTEGRATE_GPUMC_H

#include "integrate_gpumc_steps.h"
#include "verlet.h"

namespace LAMMPS_NS {

class IntegrateGpumc : public MonteCarloTimesteps<Verlet> {
 public:
  IntegrateGpumc(class LAMMPS *lmp, int narg, char **arg) : MonteCarloTimesteps<Verlet>(lmp, narg, arg) {}
};

}    // namespace LAMMPS_NS

#endif
#endif
