// Host engine: the sequential translation chain.

#include "gpumc_system_host.h"

namespace gpumc {

MoveCounts translation_moves(HostSystem &sys, const std::vector<int> &mobile, double beta,
                             double dmax, const CounterRNG &rng, uint64_t first_move,
                             uint64_t nmoves, double &energy)
{
  MoveCounts counts;
  if (mobile.empty()) return counts;
  for (uint64_t m = first_move; m < first_move + nmoves; m++) {
    const Translation t = propose_translation(rng, m, mobile.size(), dmax);
    const int i = mobile[t.pick];
    double trial[3];
    sys.position(i, trial);
    for (int d = 0; d < 3; d++) trial[d] += t.disp[d];
    int shift[3] = {0, 0, 0};
    sys.wrap(trial, shift);
    const double dU = sys.move_energy_change(i, trial);
    counts.trials++;
    if (accept_translation(rng, m, beta, dU)) {
      sys.move_atom(i, trial, shift);
      energy += dU;
      counts.accepted++;
    }
  }
  return counts;
}

}    // namespace gpumc
