// Host engine: energies of one atom, of an insertion, of a move and of the whole system.

#include "gpumc_system_host.h"

#include <algorithm>
#include <cmath>

namespace gpumc {

// Energy of a particle of type itype at p (and, when TWO, at q) with every atom but `skip`,
// over the window of cells that holds the stencils of both. Candidates in range are first
// collected without branches (whether a candidate is in range is unpredictable), then their
// pair energies summed.
template <bool TWO>
void HostSystem::window_energy(int skip, int itype, const int lo[3], const int span[3], const double p[3],
                               const double q[3], double &ep, double &eq) const
{
  const PairCoeff *row = table_->terms(itype, 0);
  const int nterms = table_->nterms;
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
  for (int m = 0; m < np; m++) sum_p += pair_energy(row + bp[m].type * nterms, nterms, bp[m].rsq);
  if (TWO)
    for (int m = 0; m < nq; m++) sum_q += pair_energy(row + bq[m].type * nterms, nterms, bq[m].rsq);
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
  return e_new - e_old + ewald_move_change(type_[i], old_pos, new_pos);
}

double HostSystem::insertion_energy(int type, const double pos[3]) const
{
  int c[3];
  cell_coords(pos, c);
  const int span[3] = {0, 0, 0};
  double e, unused;
  window_energy<false>(-1, type, c, span, pos, nullptr, e, unused);
  return e + table_->insertion_count_energy(type, type_count_, box_.volume()) + ewald_insertion_change(type, pos);
}

double HostSystem::pair_energy_total() const
{
  const int nterms = table_->nterms;
  double e = 0.0;
  for (int cz = 0; cz < ncell_[2]; cz++)
    for (int cy = 0; cy < ncell_[1]; cy++)
      for (int cx = 0; cx < ncell_[0]; cx++) {
        const Window &wz = window_[2][cz], &wy = window_[1][cy], &wx = window_[0][cx];
        const int cell = (cz * ncell_[1] + cy) * ncell_[0] + cx;
        for (int a = start_[cell]; a < start_[cell + 1]; a++) {
          const int ia = ids_[a];
          const PairCoeff *row = table_->terms(ts_[a], 0);
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
                  if (rsq < cutsq) e += pair_energy(row + ts_[k] * nterms, nterms, rsq);
                }
              }
            }
          }
        }
      }
  return e;
}

double HostSystem::canonical_total_energy()
{
  build_cells(positions());
  ewald_structure_factors();
  return total_energy();
}

}    // namespace gpumc
