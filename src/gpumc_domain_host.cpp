// Host engine: checkerboard sweeps over a spatial decomposition (gpumc_domain_host.h).

#include "gpumc_domain_host.h"

#include <algorithm>
#include <cmath>

namespace gpumc {

DomainCheckerboard::DomainCheckerboard(const PairTable &table) : table_(&table)
{
  row_cutsq_.assign(table.ntypes + 1, 0.0);
  for (int i = 1; i <= table.ntypes; i++) row_cutsq_[i] = table.row_cutsq(i);
}

void DomainCheckerboard::build(const DomainBlock &block, int nowned, int nall, const double *const *x,
                               const int *type, const int64_t *tag, const int *mobile)
{
  block_ = block;
  for (int d = 0; d < 3; d++) ext_[d] = block.count[d] + 2;
  const int ncells = ext_[0] * ext_[1] * ext_[2];
  std::vector<int> cell_of(nall, -1);
  for (int i = 0; i < nall; i++) {
    int l[3];
    if (domain_cell(block, i < nowned, x[i], l)) cell_of[i] = local_cell(l);
  }
  std::vector<int> order;
  order.reserve(nall);
  for (int i = 0; i < nall; i++)
    if (cell_of[i] >= 0) order.push_back(i);
  // by cell, owned before ghosts, then by ID
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (cell_of[a] != cell_of[b]) return cell_of[a] < cell_of[b];
    const bool ga = a >= nowned, gb = b >= nowned;
    if (ga != gb) return gb;
    return tag[a] < tag[b];
  });
  start_.assign(ncells + 1, 0);
  owned_count_.assign(ncells, 0);
  const size_t n = order.size();
  entries_.resize(n);
  xs_.resize(n);
  ys_.resize(n);
  zs_.resize(n);
  ts_.resize(n);
  for (size_t k = 0; k < n; k++) {
    const int i = order[k];
    Entry &e = entries_[k];
    xs_[k] = x[i][0];
    ys_[k] = x[i][1];
    zs_[k] = x[i][2];
    ts_[k] = type[i];
    e.local = i;
    e.tag = tag[i];
    e.owned = i < nowned;
    e.mobile = e.owned && mobile[i];
    start_[cell_of[i] + 1]++;
    if (e.owned) owned_count_[cell_of[i]]++;
  }
  for (int c = 0; c < ncells; c++) start_[c + 1] += start_[c];
  find_images();
}

int DomainCheckerboard::owned_entry_near(int64_t tag, const int l[3]) const
{
  for (int w = 0; w < 27; w++) {
    int n[3];
    if (!domain_block_neighbour(block_, l, w, n)) continue;
    const int c = local_cell(n);
    const auto first = entries_.begin() + start_[c], last = first + owned_count_[c];    // by ID
    const auto at = std::lower_bound(first, last, tag, [](const Entry &e, int64_t t) { return e.tag < t; });
    if (at != last && at->tag == tag) return (int) (at - entries_.begin());
  }
  return -1;
}

void DomainCheckerboard::find_images()
{
  images_.clear();
  int l[3];
  for (l[2] = 0; l[2] < ext_[2]; l[2]++)
    for (l[1] = 0; l[1] < ext_[1]; l[1]++)
      for (l[0] = 0; l[0] < ext_[0]; l[0]++) {
        int shifts[7][3];
        const int nshifts = domain_image_shifts(block_, l, shifts);
        const int c = local_cell(l);
        for (int k = start_[c] + owned_count_[c]; k < start_[c + 1] && nshifts > 0; k++)    // the ghosts
          for (int s = 0; s < nshifts; s++) {
            const double at[3] = {xs_[k], ys_[k], zs_[k]};
            double owner_at[3];
            domain_owner_position(block_, shifts[s], at, owner_at);
            int owner_cell[3];
            domain_cell(block_, true, owner_at, owner_cell);
            const int owner = owned_entry_near(entries_[k].tag, owner_cell);
            if (owner < 0) continue;
            images_.push_back(Image{k, owner, {shifts[s][0], shifts[s][1], shifts[s][2]}});
            break;
          }
      }
}

// After a colour, not during it: the image of an atom of an active cell lies next to cells of the
// other parity along the image's side (a side one rank spans has an even number of cells), so no
// trial of the colour reads it.
void DomainCheckerboard::move_images()
{
  for (const Image &image : images_) {
    const int o = image.owner, k = image.entry;
    const double owner_at[3] = {xs_[o], ys_[o], zs_[o]};
    double at[3];
    domain_image_position(block_, image.shift, owner_at, at);
    xs_[k] = at[0];
    ys_[k] = at[1];
    zs_[k] = at[2];
  }
}

void DomainCheckerboard::set_tried_cells(const int lowest[3], const int moving[3])
{
  for (int d = 0; d < 3; d++) {
    block_.lowest[d] = lowest[d];
    block_.moving[d] = moving[d];
  }
}

void DomainCheckerboard::refresh_ghosts(const double *const *x)
{
  for (size_t k = 0; k < entries_.size(); k++)
    if (!entries_[k].owned) {
      const int i = entries_[k].local;
      xs_[k] = x[i][0];
      ys_[k] = x[i][1];
      zs_[k] = x[i][2];
    }
}

// Candidates within range are collected without branches (whether one is in range is
// unpredictable), then their pair energies summed in entry order.
void DomainCheckerboard::energies_at(int skip, int itype, const int l[3], const double p[3], const double q[3],
                                     double &ep, double &eq) const
{
  const PairCoeff *row = table_->terms(itype, 0);
  const int nterms = table_->nterms;
  const double cutsq = row_cutsq_[itype];
  const double skip_x = xs_[skip];
  xs_[skip] = INFINITY;
  // a neighbour cell farther than the cutoff from both positions holds no candidate: skipped, it
  // leaves the sums as they are (a margin covers atoms a round-off outside their cell)
  const CheckerGrid &g = block_.grid;
  const double reach_sq = cutsq * (1.0 + 1e-9);
  int np = 0, nq = 0;
  for (int w = 0; w < 27; w++) {
    int off[3], n[3];
    checker_neighbour_offset(w, off);
    double gap_p = 0.0, gap_q = 0.0;
    for (int d = 0; d < 3; d++) {
      n[d] = l[d] + off[d];
      if (off[d] != 0) {
        const double wall = g.origin[d] + (block_.first[d] + l[d] - 1 + (off[d] > 0)) * g.w[d];
        const double dp = off[d] > 0 ? wall - p[d] : p[d] - wall, dq = off[d] > 0 ? wall - q[d] : q[d] - wall;
        if (dp > 0.0) gap_p += dp * dp;
        if (dq > 0.0) gap_q += dq * dq;
      }
    }
    if (gap_p > reach_sq && gap_q > reach_sq) continue;
    const int c = local_cell(n);
    const int b = start_[c], e = start_[c + 1];
    if ((size_t) (np + e - b) > near_p_.size()) near_p_.resize(2 * (np + e - b));
    if ((size_t) (nq + e - b) > near_q_.size()) near_q_.resize(2 * (nq + e - b));
    Candidate *cp = near_p_.data(), *cq = near_q_.data();
    for (int k = b; k < e; k++) {
      const double px = p[0] - xs_[k], py = p[1] - ys_[k], pz = p[2] - zs_[k];
      const double qx = q[0] - xs_[k], qy = q[1] - ys_[k], qz = q[2] - zs_[k];
      const double rp = px * px + py * py + pz * pz, rq = qx * qx + qy * qy + qz * qz;
      cp[np] = Candidate{rp, ts_[k]};
      np += rp < cutsq;
      cq[nq] = Candidate{rq, ts_[k]};
      nq += rq < cutsq;
    }
  }
  xs_[skip] = skip_x;
  double sum_p = 0.0, sum_q = 0.0;
  for (int m = 0; m < np; m++) sum_p += pair_energy(row + near_p_[m].type * nterms, nterms, near_p_[m].rsq);
  for (int m = 0; m < nq; m++) sum_q += pair_energy(row + near_q_[m].type * nterms, nterms, near_q_[m].rsq);
  ep = sum_p;
  eq = sum_q;
}

MoveCounts DomainCheckerboard::colour(int colour, const CounterRNG &rng, uint64_t sweep, double beta, double dmax,
                                      double *const *x, double &dU)
{
  MoveCounts counts;
  const CheckerGrid &g = block_.grid;
  std::vector<CellTrial> trials;
  std::vector<int> order;
  int l[3];
  const int *lo = block_.lowest, *n = block_.moving;
  for (l[2] = lo[2]; l[2] < lo[2] + n[2]; l[2]++)
    for (l[1] = lo[1]; l[1] < lo[1] + n[1]; l[1]++)
      for (l[0] = lo[0]; l[0] < lo[0] + n[0]; l[0]++) {
        int c[3];
        for (int d = 0; d < 3; d++) c[d] = block_.first[d] + l[d] - 1;
        if (checker_colour(c) != colour) continue;
        const int cell = (c[2] * g.n[1] + c[1]) * g.n[0] + c[0];
        const int local = local_cell(l), first = start_[local], natoms = owned_count_[local];
        cell_trials_in_order(rng, sweep, cell, natoms, dmax, trials, order);
        for (const int s : order) {
          const int k = first + s;
          if (!entries_[k].mobile) continue;    // not a trial: the atom is not in the group
          counts.trials++;
          const double now[3] = {xs_[k], ys_[k], zs_[k]};
          double trial[3];
          for (int d = 0; d < 3; d++) trial[d] = now[d] + trials[s].disp[d];
          if (!domain_stays(g, trial, c)) continue;    // leaves the cell: rejected
          double e_trial, e_now;
          energies_at(k, ts_[k], l, trial, now, e_trial, e_now);
          const double change = e_trial - e_now;
          if (metropolis_accept(-beta * change, cell_acceptance_uniform(rng, sweep, cell, s))) {
            xs_[k] = trial[0];
            ys_[k] = trial[1];
            zs_[k] = trial[2];
            for (int d = 0; d < 3; d++) x[entries_[k].local][d] = trial[d];
            dU += change;
            counts.accepted++;
          }
        }
      }
  move_images();
  return counts;
}

double DomainCheckerboard::owned_pair_energy() const
{
  double sum = 0.0;
  const int nterms = table_->nterms;
  int l[3];
  for (l[2] = 1; l[2] <= block_.count[2]; l[2]++)
    for (l[1] = 1; l[1] <= block_.count[1]; l[1]++)
      for (l[0] = 1; l[0] <= block_.count[0]; l[0]++) {
        const int local = local_cell(l);
        for (int i = start_[local]; i < start_[local] + owned_count_[local]; i++) {
          const PairCoeff *row = table_->terms(ts_[i], 0);
          for (int w = 0; w < 27; w++) {
            int off[3], n[3];
            checker_neighbour_offset(w, off);
            for (int d = 0; d < 3; d++) n[d] = l[d] + off[d];
            const int c = local_cell(n);
            for (int k = start_[c]; k < start_[c + 1]; k++) {
              if (entries_[k].tag <= entries_[i].tag) continue;
              const double dx = xs_[i] - xs_[k], dy = ys_[i] - ys_[k], dz = zs_[i] - zs_[k];
              const double rsq = dx * dx + dy * dy + dz * dz;
              if (rsq < row_cutsq_[ts_[i]]) sum += pair_energy(row + ts_[k] * nterms, nterms, rsq);
            }
          }
        }
      }
  return sum;
}

}    // namespace gpumc
