#include "gpumc_host_engine.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace gpumc {

// Cells are made this much wider than the cutoff so that an atom a rounding error outside
// its cell (after a box rescale) is still found by the stencil of every cell within range.
static constexpr double CELL_MARGIN = 1e-10;

HostSystem::HostSystem(PairTable table)
{
  table.finalize();
  row_cutsq_.assign(table.ntypes + 1, 0.0);
  for (int i = 1; i <= table.ntypes; i++)
    for (int j = 1; j <= table.ntypes; j++)
      row_cutsq_[i] = std::max(row_cutsq_[i], table.at(i, j).cutsq);
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
}

void HostSystem::wrap(double pos[3], int shift[3]) const
{
  for (int d = 0; d < 3; d++) {
    const double lo = box_.lo[d], len = box_.len[d];
    // moves are shorter than a box side, so one shift suffices; the loop is for safety
    while (pos[d] < lo) {
      pos[d] += len;
      shift[d]--;
    }
    while (pos[d] >= lo + len) {
      pos[d] -= len;
      shift[d]++;
    }
    // lo + len - tiny + len may round up to lo + len: keep the half-open interval
    if (pos[d] >= lo + len) pos[d] = lo;
  }
}

void HostSystem::cell_coords(const double pos[3], int c[3]) const
{
  for (int d = 0; d < 3; d++) {
    c[d] = (int) ((pos[d] - box_.lo[d]) * cell_inv_[d]);
    c[d] = std::min(std::max(c[d], 0), ncell_[d] - 1);
  }
}

void HostSystem::build_stencil()
{
  for (int d = 0; d < 3; d++) {
    const int n = ncell_[d];
    nb_index_[d].resize(3 * n);
    nb_shift_[d].resize(3 * n);
    for (int c = 0; c < n; c++)
      for (int k = 0; k < 3; k++) {
        int nc = c + k - 1;
        double shift = 0.0;
        if (nc < 0) {
          nc += n;
          shift = -box_.len[d];
        } else if (nc >= n) {
          nc -= n;
          shift = box_.len[d];
        }
        nb_index_[d][3 * c + k] = nc;
        nb_shift_[d][3 * c + k] = shift;
      }
  }
}

void HostSystem::choose_grid(const Box &box, int grid[3]) const
{
  const double width = table_->cut_max * (1.0 + CELL_MARGIN);
  for (int d = 0; d < 3; d++)
    grid[d] = width > 0.0 ? std::max(1, (int) std::min(box.len[d] / width, 1e6)) : 1;
  // sparse systems (a small cutoff in a large box) need no more cells than about 2 per atom
  const long max_cells = std::max(27L, 2L * natoms());
  while ((long) grid[0] * grid[1] * grid[2] > max_cells) {
    int big = 0;
    for (int d = 1; d < 3; d++)
      if (grid[d] > grid[big]) big = d;
    grid[big] = std::max(1, (int) (grid[big] * 0.9));
  }
}

void HostSystem::build_cells(const std::vector<double> &x)
{
  const int n = natoms();
  choose_grid(box_, ncell_);
  const long ncells = (long) ncell_[0] * ncell_[1] * ncell_[2];
  for (int d = 0; d < 3; d++) cell_inv_[d] = ncell_[d] / box_.len[d];
  build_stencil();

  cell_of_.resize(n);
  slot_of_.resize(n);
  count_.assign(ncells, 0);
  for (int i = 0; i < n; i++) {
    int c[3];
    cell_coords(&x[3 * i], c);
    cell_of_[i] = cell_index(c);
    slot_of_[i] = count_[cell_of_[i]]++;
  }
  const int fullest = count_.empty() ? 0 : *std::max_element(count_.begin(), count_.end());
  cap_ = fullest + 4;
  slots_.assign((size_t) ncells * cap_, Slot{0.0, 0.0, 0.0, 0, -1});
  for (int i = 0; i < n; i++)
    slots_[(size_t) cell_of_[i] * cap_ + slot_of_[i]] = Slot{x[3 * i], x[3 * i + 1], x[3 * i + 2], type_[i], i};
}

void HostSystem::grow_capacity()
{
  const int new_cap = 2 * cap_;
  const size_t ncells = count_.size();
  std::vector<Slot> grown(ncells * new_cap, Slot{0.0, 0.0, 0.0, 0, -1});
  for (size_t c = 0; c < ncells; c++)
    std::copy(slots_.begin() + c * cap_, slots_.begin() + c * cap_ + count_[c], grown.begin() + c * new_cap);
  slots_.swap(grown);
  cap_ = new_cap;
}

// Take atom i out of its cell (the last atom of that cell fills the hole) and append it to
// new_cell.
void HostSystem::relocate(int i, int new_cell)
{
  const int old_cell = cell_of_[i];
  Slot moving = slots_[(size_t) old_cell * cap_ + slot_of_[i]];
  const int last = --count_[old_cell];
  if (slot_of_[i] != last) {
    Slot &hole = slots_[(size_t) old_cell * cap_ + slot_of_[i]];
    hole = slots_[(size_t) old_cell * cap_ + last];
    slot_of_[hole.id] = slot_of_[i];
  }
  if (count_[new_cell] == cap_) grow_capacity();
  cell_of_[i] = new_cell;
  slot_of_[i] = count_[new_cell]++;
  slots_[(size_t) new_cell * cap_ + slot_of_[i]] = moving;
}

void HostSystem::position(int i, double pos[3]) const
{
  const Slot &s = slots_[(size_t) cell_of_[i] * cap_ + slot_of_[i]];
  pos[0] = s.x;
  pos[1] = s.y;
  pos[2] = s.z;
}

std::vector<double> HostSystem::positions() const
{
  std::vector<double> x(3 * (size_t) natoms());
  for (int i = 0; i < natoms(); i++) position(i, &x[3 * i]);
  return x;
}

// Energy of a particle of type itype at p (and, when TWO, at q in the same cell) with every
// atom but `skip`.
template <bool TWO>
void HostSystem::stencil_energy(int skip, int itype, const double p[3], const double q[3], double &ep,
                                double &eq) const
{
  const PairCoeff *row = &table_->coeff[itype * (table_->ntypes + 1)];
  const double cutsq = row_cutsq_[itype];
  int c[3];
  cell_coords(p, c);
  double sum_p = 0.0, sum_q = 0.0;
  for (int kz = 0; kz < 3; kz++) {
    const int cz = nb_index_[2][3 * c[2] + kz];
    const double pz = p[2] - nb_shift_[2][3 * c[2] + kz];
    const double qz = TWO ? q[2] - nb_shift_[2][3 * c[2] + kz] : 0.0;
    for (int ky = 0; ky < 3; ky++) {
      const int cy = nb_index_[1][3 * c[1] + ky];
      const double py = p[1] - nb_shift_[1][3 * c[1] + ky];
      const double qy = TWO ? q[1] - nb_shift_[1][3 * c[1] + ky] : 0.0;
      for (int kx = 0; kx < 3; kx++) {
        const int cx = nb_index_[0][3 * c[0] + kx];
        const double px = p[0] - nb_shift_[0][3 * c[0] + kx];
        const double qx = TWO ? q[0] - nb_shift_[0][3 * c[0] + kx] : 0.0;
        const int cell = (cz * ncell_[1] + cy) * ncell_[0] + cx;
        const Slot *s = &slots_[(size_t) cell * cap_];
        const int n = count_[cell];
        for (int k = 0; k < n; k++) {
          const double dx = px - s[k].x, dy = py - s[k].y, dz = pz - s[k].z;
          const double rsq = dx * dx + dy * dy + dz * dz;
          if (rsq < cutsq && s[k].id != skip) sum_p += pair_energy(row[s[k].type], rsq);
          if (TWO) {
            const double ex = qx - s[k].x, ey = qy - s[k].y, ez = qz - s[k].z;
            const double qsq = ex * ex + ey * ey + ez * ez;
            if (qsq < cutsq && s[k].id != skip) sum_q += pair_energy(row[s[k].type], qsq);
          }
        }
      }
    }
  }
  ep = sum_p;
  eq = sum_q;
}

double HostSystem::particle_energy(int i, const double pos[3]) const
{
  double e, unused;
  stencil_energy<false>(i, type_[i], pos, nullptr, e, unused);
  return e;
}

double HostSystem::move_energy_change(int i, const double new_pos[3]) const
{
  double old_pos[3];
  position(i, old_pos);
  int c_old[3], c_new[3];
  cell_coords(old_pos, c_old);
  cell_coords(new_pos, c_new);
  double e_old, e_new;
  if (cell_index(c_old) == cell_index(c_new)) {
    // one pass over the shared neighbourhood for both positions
    stencil_energy<true>(i, type_[i], new_pos, old_pos, e_new, e_old);
  } else {
    double unused;
    stencil_energy<false>(i, type_[i], new_pos, nullptr, e_new, unused);
    stencil_energy<false>(i, type_[i], old_pos, nullptr, e_old, unused);
  }
  return e_new - e_old;
}

double HostSystem::insertion_energy(int type, const double pos[3]) const
{
  double e, unused;
  stencil_energy<false>(-1, type, pos, nullptr, e, unused);
  if (!table_->tail.empty()) {
    // E_tail(N_type + 1) - E_tail(N_type) = (2 sum_j N_j tail_tj + tail_tt) / V
    double sum = table_->tail_coeff(type, type);
    for (int j = 1; j <= table_->ntypes; j++) sum += 2.0 * (double) type_count_[j] * table_->tail_coeff(type, j);
    e += sum / box_.volume();
  }
  return e;
}

double HostSystem::pair_energy_total() const
{
  const int ntp1 = table_->ntypes + 1;
  double e = 0.0;
  for (int cz = 0; cz < ncell_[2]; cz++)
    for (int cy = 0; cy < ncell_[1]; cy++)
      for (int cx = 0; cx < ncell_[0]; cx++) {
        const int c[3] = {cx, cy, cz};
        const int cell = cell_index(c);
        for (int a = 0; a < count_[cell]; a++) {
          const Slot &si = slots_[(size_t) cell * cap_ + a];
          const PairCoeff *row = &table_->coeff[si.type * ntp1];
          const double cutsq = row_cutsq_[si.type];
          // each pair once: from the atom with the smaller index (one image is within range)
          for (int kz = 0; kz < 3; kz++) {
            const int nz = nb_index_[2][3 * cz + kz];
            const double pz = si.z - nb_shift_[2][3 * cz + kz];
            for (int ky = 0; ky < 3; ky++) {
              const int ny = nb_index_[1][3 * cy + ky];
              const double py = si.y - nb_shift_[1][3 * cy + ky];
              for (int kx = 0; kx < 3; kx++) {
                const int nx = nb_index_[0][3 * cx + kx];
                const double px = si.x - nb_shift_[0][3 * cx + kx];
                const int ncell = (nz * ncell_[1] + ny) * ncell_[0] + nx;
                const Slot *s = &slots_[(size_t) ncell * cap_];
                for (int k = 0; k < count_[ncell]; k++) {
                  if (s[k].id <= si.id) continue;
                  const double dx = px - s[k].x, dy = py - s[k].y, dz = pz - s[k].z;
                  const double rsq = dx * dx + dy * dy + dz * dz;
                  if (rsq < cutsq) e += pair_energy(row[s[k].type], rsq);
                }
              }
            }
          }
        }
      }
  return e;
}

double HostSystem::tail_energy() const
{
  if (table_->tail.empty()) return 0.0;
  double sum = 0.0;
  for (int i = 1; i <= table_->ntypes; i++)
    for (int j = 1; j <= table_->ntypes; j++)
      sum += (double) type_count_[i] * (double) type_count_[j] * table_->tail_coeff(i, j);
  return sum / box_.volume();
}

double HostSystem::canonical_total_energy()
{
  build_cells(positions());
  return total_energy();
}

void HostSystem::move_atom(int i, const double pos[3], const int shift[3])
{
  for (int d = 0; d < 3; d++) image_shift_[3 * i + d] += shift[d];
  int c[3];
  cell_coords(pos, c);
  const int cell = cell_index(c);
  if (cell != cell_of_[i]) relocate(i, cell);
  Slot &s = slots_[(size_t) cell_of_[i] * cap_ + slot_of_[i]];
  s.x = pos[0];
  s.y = pos[1];
  s.z = pos[2];
}

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
  std::vector<double> x = positions();
  for (int i = 0; i < natoms(); i++) {
    double *xi = &x[3 * i];
    for (int d = 0; d < 3; d++) xi[d] = box_.lo[d] + (xi[d] - old.lo[d]) * scale[d];
    wrap(xi, &image_shift_[3 * i]);    // only rounding at the upper face can need this
  }
  // The cell grid scales with the box: keep it, and the atoms' order in it, unless the number
  // of cells changes; atoms that rounding put into a neighbouring cell are moved there.
  int grid[3];
  choose_grid(box_, grid);
  const bool same_grid = grid[0] == ncell_[0] && grid[1] == ncell_[1] && grid[2] == ncell_[2];
  if (!same_grid) {
    build_cells(x);
    return;
  }
  for (int d = 0; d < 3; d++) cell_inv_[d] = ncell_[d] / box_.len[d];
  build_stencil();
  for (int i = 0; i < natoms(); i++) {
    int c[3];
    cell_coords(&x[3 * i], c);
    const int cell = cell_index(c);
    if (cell != cell_of_[i]) relocate(i, cell);
    Slot &s = slots_[(size_t) cell_of_[i] * cap_ + slot_of_[i]];
    s.x = x[3 * i];
    s.y = x[3 * i + 1];
    s.z = x[3 * i + 2];
  }
}

// ---- move kernels ----

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

double widom_insertions(const HostSystem &sys, int type, double beta, const CounterRNG &rng,
                        uint64_t block, uint64_t n)
{
  const Box &box = sys.box();
  double sum = 0.0;
  for (uint64_t k = 0; k < n; k++) {
    double pos[3];
    widom_point(rng, block, k, box.lo, box.len, pos);
    sum += std::exp(-beta * sys.insertion_energy(type, pos));
  }
  return n ? sum / (double) n : 0.0;
}

}    // namespace gpumc
