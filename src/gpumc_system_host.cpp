// Host engine: the configuration of atoms in the box, and single-atom moves.

#include "gpumc_system_host.h"

#include <algorithm>
#include <stdexcept>

namespace gpumc {

HostSystem::HostSystem(PairTable table)
{
  table.finalize();
  row_cutsq_.assign(table.ntypes + 1, 0.0);
  for (int i = 1; i <= table.ntypes; i++) row_cutsq_[i] = table.row_cutsq(i);
  table_ = std::make_shared<const PairTable>(std::move(table));
}

void HostSystem::set_configuration(const std::vector<double> &x, const std::vector<int> &type,
                                   const Box &box)
{
  if (x.size() != 3 * type.size()) throw std::invalid_argument("positions and types differ in length");
  for (int d = 0; d < 3; d++)
    if (!(box.len[d] >= min_side()))
      throw std::invalid_argument("box side shorter than twice the largest cutoff");
  box_ = box;
  type_ = type;
  image_shift_.assign(x.size(), 0);
  type_count_.assign(table_->ntypes + 1, 0);
  for (int t : type_) {
    if (t < 1 || t > table_->ntypes) throw std::invalid_argument("atom type out of range");
    type_count_[t]++;
  }
  std::vector<double> wrapped(x);
  for (int i = 0; i < natoms(); i++) wrap(&wrapped[3 * i], &image_shift_[3 * i]);
  build_cells(wrapped);
  ewald_setup();
}

void HostSystem::wrap(double pos[3], int shift[3]) const
{
  wrap_position(pos, box_.lo, box_.len, shift);
}

void HostSystem::position(int i, double pos[3]) const
{
  const int k = slot_of_[i];
  pos[0] = xs_[k];
  pos[1] = ys_[k];
  pos[2] = zs_[k];
}

std::vector<double> HostSystem::positions() const
{
  std::vector<double> x(3 * (size_t) natoms());
  for (int i = 0; i < natoms(); i++) position(i, &x[3 * i]);
  return x;
}

void HostSystem::move_atom(int i, const double pos[3], const int shift[3])
{
  if (!kvec_.empty()) {
    double old_pos[3];
    position(i, old_pos);
    ewald_apply_move(type_[i], old_pos, pos);
  }
  for (int d = 0; d < 3; d++) image_shift_[3 * i + d] += shift[d];
  int c[3];
  cell_coords(pos, c);
  const int cell = cell_index(c);
  if (cell != cell_of_[i]) relocate(i, cell);
  const int k = slot_of_[i];
  xs_[k] = pos[0];
  ys_[k] = pos[1];
  zs_[k] = pos[2];
}

}    // namespace gpumc
