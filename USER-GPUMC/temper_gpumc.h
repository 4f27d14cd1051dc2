/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: temper/gpumc, parallel tempering (replica exchange) of GPUMC Monte Carlo replicas, one
   per processor partition (lmp -partition), as LAMMPS's temper command does for MD thermostats.
------------------------------------------------------------------------- */

#ifdef COMMAND_CLASS
// clang-format off
CommandStyle(temper/gpumc,TemperGpumc);
// clang-format on
#else

#ifndef LMP_TEMPER_GPUMC_H
#define LMP_TEMPER_GPUMC_H

#include "command.h"

#include <vector>

namespace LAMMPS_NS {

class TemperGpumc : public Command {
 public:
  TemperGpumc(class LAMMPS *lmp) : Command(lmp) {}
  void command(int, char **) override;

 private:
  int me = 0, me_universe = 0, nworlds = 1;
  MPI_Comm roots = MPI_COMM_NULL;    // the root process of each world
  std::vector<double> set_temp;      // the ladder, by temperature index
  std::vector<int> world2temp, temp2world;
  int my_set_temp = 0;

  void print_status();
  void print_summary(const std::vector<std::vector<double>> &energies, const std::vector<long> &attempts,
                     const std::vector<long> &accepts);
};

}    // namespace LAMMPS_NS

#endif
#endif
