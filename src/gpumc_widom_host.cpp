// Host engine: Widom test insertions.

#include "gpumc_system_host.h"

#include <cmath>

namespace gpumc {

double widom_insertion_sum(const HostSystem &sys, int type, double beta, const CounterRNG &rng, uint64_t block,
                           uint64_t first, uint64_t last)
{
  const Box &box = sys.box();
  double sum = 0.0;
  for (uint64_t k = first; k < last; k++) {
    double pos[3];
    widom_point(rng, block, k, box.lo, box.len, pos);
    sum += std::exp(-beta * sys.insertion_energy(type, pos));
  }
  return sum;
}

double widom_insertions(const HostSystem &sys, int type, double beta, const CounterRNG &rng,
                        uint64_t block, uint64_t n)
{
  return n ? widom_insertion_sum(sys, type, beta, rng, block, 0, n) / (double) n : 0.0;
}

}    // namespace gpumc
