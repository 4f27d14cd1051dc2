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
  wrap_position(pos, box_.lo, box_.len, shift);
}

void HostSystem::cell_coords(const double pos[3], int c[3]) const
{
  for (int d = 0; d < 3; d++) {
    c[d] = (int) ((pos[d] - box_.lo[d]) * cell_inv_[d]);
    c[d] = std::min(std::max(c[d], 0), ncell_[d] - 1);
  }
}

void HostSystem::build_windows()
{
  for (int d = 0; d < 3; d++) {
    const int n = ncell_[d];
    window_[d].resize(n);
    for (int c = 0; c < n; c++) {
      Window &w = window_[d][c];
      for (int k = 0; k < WINDOW; k++) {
        // coordinate c - REACH + k is cell `target - wrap n` in the image `wrap` boxes away
        const int target = c - REACH + k;
        const int wrap = target >= 0 ? target / n : -((-target + n - 1) / n);
        w.cell[k] = target - wrap * n;
        w.shift[k] = wrap * box_.len[d];
      }
      for (int u = 0; u < 2; u++) {
        int nr = 0;
        for (int k = 0; k < 2 * REACH + 1 + u; k++) {
          if (nr > 0) {
            Run &last = w.runs[u][nr - 1];
            if (w.shift[k] == last.shift && w.cell[k] == last.first + last.length) {
              last.length++;
              continue;
            }
          }
          w.runs[u][nr++] = Run{w.cell[k], 1, w.shift[k]};
        }
        w.nruns[u] = nr;
      }
    }
  }
}

void HostSystem::choose_grid(const Box &box, int grid[3]) const
{
  const double width = table_->cut_max * (1.0 + CELL_MARGIN) / REACH;
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

// Counting sort of the atoms into cells, in atom order within each cell.
void HostSystem::build_cells(const std::vector<double> &x)
{
  const int n = natoms();
  choose_grid(box_, ncell_);
  const int ncells = ncell_[0] * ncell_[1] * ncell_[2];
  for (int d = 0; d < 3; d++) cell_inv_[d] = ncell_[d] / box_.len[d];
  build_windows();

  cell_of_.resize(n);
  slot_of_.resize(n);
  start_.assign(ncells + 1, 0);
  for (int i = 0; i < n; i++) {
    int c[3];
    cell_coords(&x[3 * i], c);
    cell_of_[i] = cell_index(c);
    start_[cell_of_[i] + 1]++;
  }
  for (int c = 0; c < ncells; c++) start_[c + 1] += start_[c];
  std::vector<int> fill(start_.begin(), start_.end() - 1);
  xs_.resize(n);
  ys_.resize(n);
  zs_.resize(n);
  ts_.resize(n);
  ids_.resize(n);
  for (int i = 0; i < n; i++) {
    const int k = fill[cell_of_[i]]++;
    slot_of_[i] = k;
    xs_[k] = x[3 * i];
    ys_[k] = x[3 * i + 1];
    zs_[k] = x[3 * i + 2];
    ts_[k] = type_[i];
    ids_[k] = i;
  }
}

void HostSystem::swap_entries(int a, int b)
{
  if (a == b) return;
  std::swap(xs_[a], xs_[b]);
  std::swap(ys_[a], ys_[b]);
  std::swap(zs_[a], zs_[b]);
  std::swap(ts_[a], ts_[b]);
  std::swap(ids_[a], ids_[b]);
  slot_of_[ids_[a]] = a;
  slot_of_[ids_[b]] = b;
}

// Move atom i's entry into cell `to`, shifting the boundaries of the cells in between by one
// each (a swap per boundary), so that every cell stays contiguous.
void HostSystem::relocate(int i, int to)
{
  const int from = cell_of_[i];
  if (to > from) {
    swap_entries(slot_of_[i], start_[from + 1] - 1);    // last of `from`
    for (int c = from + 1; c <= to; c++) {
      start_[c]--;                                                  // now the first of cell c
      if (c < to) swap_entries(start_[c], start_[c + 1] - 1);    // on to the last of cell c
    }
  } else if (to < from) {
    swap_entries(slot_of_[i], start_[from]);    // first of `from`
    for (int c = from; c > to; c--) {
      start_[c]++;                                                      // now the last of cell c-1
      if (c - 1 > to) swap_entries(start_[c] - 1, start_[c - 1]);    // on to the first of c-1
    }
  }
  cell_of_[i] = to;
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

// Energy of a particle of type itype at p (and, when TWO, at q) with every atom but `skip`,
// over the window of cells that holds the stencils of both. Candidates in range are first
// collected without branches (whether a candidate is in range is unpredictable), then their
// pair energies summed.
template <bool TWO>
void HostSystem::window_energy(int skip, int itype, const int lo[3], const int span[3], const double p[3],
                               const double q[3], double &ep, double &eq) const
{
  const PairCoeff *row = &table_->coeff[itype * (table_->ntypes + 1)];
  const double cutsq = row_cutsq_[itype];
  const Window &wz = window_[2][lo[2]], &wy = window_[1][lo[1]], &wx = window_[0][lo[0]];
  const int nz = 2 * REACH + 1 + span[2], ny = 2 * REACH + 1 + span[1];
  const int nruns = wx.nruns[span[0]];
  const Run *runs = wx.runs[span[0]];
  std::vector<Candidate> &bp = scratch_.p, &bq = scratch_.q;
  int np = 0, nq = 0;
  // the skipped atom is parked out of range (infinitely far) rather than tested per candidate
  const int skip_slot = skip >= 0 ? slot_of_[skip] : -1;
  double skip_x = 0.0;
  if (skip_slot >= 0) {
    skip_x = xs_[skip_slot];
    xs_[skip_slot] = INFINITY;
  }
  for (int kz = 0; kz < nz; kz++) {
    const double pz = p[2] - wz.shift[kz], qz = TWO ? q[2] - wz.shift[kz] : 0.0;
    for (int ky = 0; ky < ny; ky++) {
      const double py = p[1] - wy.shift[ky], qy = TWO ? q[1] - wy.shift[ky] : 0.0;
      const int base = (wz.cell[kz] * ncell_[1] + wy.cell[ky]) * ncell_[0];
      for (int r = 0; r < nruns; r++) {
        const int b = start_[base + runs[r].first], e = start_[base + runs[r].first + runs[r].length];
        if ((size_t) (np + e - b) > bp.size()) bp.resize(2 * (np + e - b));
        if (TWO && (size_t) (nq + e - b) > bq.size()) bq.resize(2 * (nq + e - b));
        const double px = p[0] - runs[r].shift;
        Candidate *cp = bp.data();
        for (int k = b; k < e; k++) {
          const double dx = px - xs_[k], dy = py - ys_[k], dz = pz - zs_[k];
          const double rsq = dx * dx + dy * dy + dz * dz;
          cp[np] = Candidate{rsq, ts_[k]};
          np += rsq < cutsq;
        }
        if (TWO) {
          const double qx = q[0] - runs[r].shift;
          Candidate *cq = bq.data();
          for (int k = b; k < e; k++) {
            const double dx = qx - xs_[k], dy = qy - ys_[k], dz = qz - zs_[k];
            const double rsq = dx * dx + dy * dy + dz * dz;
            cq[nq] = Candidate{rsq, ts_[k]};
            nq += rsq < cutsq;
          }
        }
      }
    }
  }
  if (skip_slot >= 0) xs_[skip_slot] = skip_x;
  double sum_p = 0.0, sum_q = 0.0;
  for (int m = 0; m < np; m++) sum_p += pair_energy(row[bp[m].type], bp[m].rsq);
  if (TWO)
    for (int m = 0; m < nq; m++) sum_q += pair_energy(row[bq[m].type], bq[m].rsq);
  ep = sum_p;
  eq = sum_q;
}

double HostSystem::particle_energy(int i, const double pos[3]) const
{
  int c[3];
  cell_coords(pos, c);
  const int span[3] = {0, 0, 0};
  double e, unused;
  window_energy<false>(i, type_[i], c, span, pos, nullptr, e, unused);
  return e;
}

double HostSystem::move_energy_change(int i, const double new_pos[3]) const
{
  double old_pos[3];
  position(i, old_pos);
  int c_old[3], c_new[3], lo[3], span[3];
  cell_coords(old_pos, c_old);
  cell_coords(new_pos, c_new);
  bool adjacent = true;
  for (int d = 0; d < 3; d++) {
    lo[d] = std::min(c_old[d], c_new[d]);
    span[d] = std::abs(c_old[d] - c_new[d]);
    adjacent = adjacent && span[d] <= 1;
  }
  double e_old, e_new;
  if (adjacent) {
    // one pass over the union of the two neighbourhoods
    window_energy<true>(i, type_[i], lo, span, new_pos, old_pos, e_new, e_old);
  } else {
    const int zero[3] = {0, 0, 0};
    double unused;
    window_energy<false>(i, type_[i], c_new, zero, new_pos, nullptr, e_new, unused);
    window_energy<false>(i, type_[i], c_old, zero, old_pos, nullptr, e_old, unused);
  }
  return e_new - e_old;
}

double HostSystem::insertion_energy(int type, const double pos[3]) const
{
  int c[3];
  cell_coords(pos, c);
  const int span[3] = {0, 0, 0};
  double e, unused;
  window_energy<false>(-1, type, c, span, pos, nullptr, e, unused);
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
        const Window &wz = window_[2][cz], &wy = window_[1][cy], &wx = window_[0][cx];
        const int cell = (cz * ncell_[1] + cy) * ncell_[0] + cx;
        for (int a = start_[cell]; a < start_[cell + 1]; a++) {
          const int ia = ids_[a];
          const PairCoeff *row = &table_->coeff[ts_[a] * ntp1];
          const double cutsq = row_cutsq_[ts_[a]];
          // each pair once: from the atom with the smaller index (one image is within range)
          for (int kz = 0; kz < 2 * REACH + 1; kz++) {
            const double pz = zs_[a] - wz.shift[kz];
            for (int ky = 0; ky < 2 * REACH + 1; ky++) {
              const double py = ys_[a] - wy.shift[ky];
              const int base = (wz.cell[kz] * ncell_[1] + wy.cell[ky]) * ncell_[0];
              for (int r = 0; r < wx.nruns[0]; r++) {
                const Run &run = wx.runs[0][r];
                const double px = xs_[a] - run.shift;
                for (int k = start_[base + run.first]; k < start_[base + run.first + run.length]; k++) {
                  if (ids_[k] <= ia) continue;
                  const double dx = px - xs_[k], dy = py - ys_[k], dz = pz - zs_[k];
                  const double rsq = dx * dx + dy * dy + dz * dz;
                  if (rsq < cutsq) e += pair_energy(row[ts_[k]], rsq);
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
  const int k = slot_of_[i];
  xs_[k] = pos[0];
  ys_[k] = pos[1];
  zs_[k] = pos[2];
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
      // every atom of the cell once, in the order of the trials' keys
      std::vector<CellTrial> trials(natoms_in_cell);
      std::vector<int> order(natoms_in_cell);
      for (int s = 0; s < natoms_in_cell; s++) {
        trials[s] = cell_trial(rng, sweep, cell, s, dmax);
        order[s] = s;
      }
      std::sort(order.begin(), order.end(),
                [&](int a, int b) { return cell_trial_before(trials[a].key, a, trials[b].key, b); });
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
