// Host engine: checkerboard sweeps, the cells one after another: the reference for the
// parallel Kokkos kernels, which make the same proposals.

#include "gpumc_system_host.h"

#include <algorithm>
#include <stdexcept>

namespace gpumc {

void cell_trials_in_order(const CounterRNG &rng, uint64_t sweep, int cell, int natoms, double dmax,
                          std::vector<CellTrial> &trials, std::vector<int> &order)
{
  trials.resize(natoms);
  order.resize(natoms);
  for (int s = 0; s < natoms; s++) {
    trials[s] = cell_trial(rng, sweep, cell, s, dmax);
    order[s] = s;
  }
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return cell_trial_before(trials[a].key, a, trials[b].key, b); });
}

MoveCounts checkerboard_sweep(HostSystem &sys, const std::vector<char> &mobile, double beta, double dmax,
                              const CounterRNG &rng, uint64_t sweep, double &energy)
{
  MoveCounts counts;
  CheckerGrid g;
  if (!checker_grid(rng, sweep, sys.box().lo, sys.box().len, checker_min_width(sys.table().cut_max), g))
    throw std::runtime_error("box too small for the checkerboard decomposition: each side must hold two cells "
                             "as wide as the largest cutoff");
  // the atoms of each cell in ascending order (a stable counting sort)
  const int n = sys.natoms(), ncells = g.n[0] * g.n[1] * g.n[2];
  std::vector<int> cell_of(n), start(ncells + 1, 0), atoms(n);
  for (int i = 0; i < n; i++) {
    double p[3], u[3];
    int c[3];
    sys.position(i, p);
    cell_of[i] = checker_cell(g, p, c, u);
    start[cell_of[i] + 1]++;
  }
  for (int c = 0; c < ncells; c++) start[c + 1] += start[c];
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (int i = 0; i < n; i++) atoms[fill[cell_of[i]]++] = i;

  int order[8];
  checker_colour_order(rng, sweep, order);
  for (int colour : order)
    for (int a = 0; a < checker_active_count(g); a++) {
      int c[3];
      const int cell = checker_active_cell(g, colour, a, c);
      const int natoms_in_cell = start[cell + 1] - start[cell];
      std::vector<CellTrial> trials;
      std::vector<int> order;
      cell_trials_in_order(rng, sweep, cell, natoms_in_cell, dmax, trials, order);
      for (const int s : order) {
        const int i = atoms[start[cell] + s];
        if (!mobile[i]) continue;    // not a trial: the atom is not in the group
        counts.trials++;
        double trial[3], u[3];
        sys.position(i, trial);
        for (int d = 0; d < 3; d++) trial[d] += trials[s].disp[d];
        int shift[3] = {0, 0, 0}, cn[3];
        sys.wrap(trial, shift);
        if (checker_cell(g, trial, cn, u) != cell) continue;    // leaves the cell: rejected
        const double dU = sys.move_energy_change(i, trial);
        if (metropolis_accept(-beta * dU, cell_acceptance_uniform(rng, sweep, cell, s))) {
          sys.move_atom(i, trial, shift);
          energy += dU;
          counts.accepted++;
        }
      }
    }
  return counts;
}

}    // namespace gpumc
