// Host engine: volume moves (box rescaling and the move).

#include "gpumc_system_host.h"

#include <algorithm>
#include <cmath>

namespace gpumc {

void HostSystem::rescale_box(const double len[3])
{
  const Box old = box_;
  double scale[3];
  for (int d = 0; d < 3; d++) {
    const double centre = old.lo[d] + 0.5 * old.len[d];
    box_.len[d] = len[d];
    box_.lo[d] = centre - 0.5 * len[d];
    scale[d] = len[d] / old.len[d];
  }
  for (size_t k = 0; k < xs_.size(); k++) {
    double xk[3] = {box_.lo[0] + (xs_[k] - old.lo[0]) * scale[0], box_.lo[1] + (ys_[k] - old.lo[1]) * scale[1],
                    box_.lo[2] + (zs_[k] - old.lo[2]) * scale[2]};
    wrap(xk, &image_shift_[3 * ids_[k]]);    // only rounding at the upper face can need this
    xs_[k] = xk[0];
    ys_[k] = xk[1];
    zs_[k] = xk[2];
  }
  // The cell grid scales with the box: keep it, and the atoms' order in it, unless the number
  // of cells changes; atoms that rounding put into a neighbouring cell are moved there.
  int grid[3];
  choose_grid(box_, grid);
  if (grid[0] != ncell_[0] || grid[1] != ncell_[1] || grid[2] != ncell_[2]) {
    build_cells(positions());
    ewald_rescale();
    return;
  }
  for (int d = 0; d < 3; d++) cell_inv_[d] = ncell_[d] / box_.len[d];
  build_windows();
  for (int i = 0; i < natoms(); i++) {
    double xi[3];
    position(i, xi);
    int c[3];
    cell_coords(xi, c);
    const int cell = cell_index(c);
    if (cell != cell_of_[i]) relocate(i, cell);
  }
  ewald_rescale();
}

bool volume_move(HostSystem &sys, const VolumeMoveParams &p, const CounterRNG &rng, uint64_t move,
                 double &energy)
{
  const double v_old = sys.box().volume();
  double len[3];
  const double u = propose_volume(rng, move, p.scheme, p.step, sys.box().len, len);
  for (int d = 0; d < 3; d++)
    if (!(len[d] >= sys.min_side())) return false;    // outside the allowed region: pi = 0

  HostSystem saved = sys;
  sys.rescale_box(len);
  const double e_new = sys.total_energy();
  const double log_ratio = volume_log_ratio(p.beta, e_new - energy, p.pressure_energy, v_old,
                                            sys.box().volume(), sys.natoms(), p.scheme);
  if (metropolis_accept(log_ratio, u)) {
    energy = e_new;
    return true;
  }
  sys = std::move(saved);
  return false;
}

}    // namespace gpumc
