// Kernels of the Kokkos engine's total energy: the energy's padded copy of the positions and the
// pair energy of the whole system (also of a volume trial's scaled configuration).
#pragma once

#include "gpumc_team_kokkos.h"

namespace gpumc {
namespace kk {

// First entries of the padded cells in the energy's copy of the positions (see CellData): a scan
// of their counts over padded cells 0..npadded, the last entry the copy's length.
template <class DeviceType>
struct RowPaddingFunctor {
  CellData<DeviceType> c;
  int npadded;
  KOKKOS_INLINE_FUNCTION void operator()(const int p, int &part, const bool final) const
  {
    if (final) c.pad_start(p) = part;
    int image;
    if (p < npadded) part += c.count(c.padded_cell(p, image));
  }
};

// Pair energy of the whole system, of the current positions or of a volume trial's (then skipped
// unless the trial is active). Each pair is summed once: an atom takes the atoms after it in its
// own cell and those of the forward half of its window (flat window indices above the centre's),
// since a pair at window offset o from one atom's cell is at -o from the other's (cells are at
// least half a cutoff wide, so the nearest image of a pair within the cutoff is at one offset).
//
// That half window is the own cell, the two cells after it in its grid row and 12 whole rows of 5
// cells (flat window indices 63..124: rows 13..24 of the 25), the same for every atom of a cell.
// The kernel reads a copy of the positions (TagGather fills it) that holds every grid row padded
// with the periodic images of REACH cells at either end (CellData), so a row's 5 cells are one
// range of it, whatever the wrap along x; rows that wrap along y or z are shifted as a whole.
// A group of threads (a CUDA warp, elsewhere one thread) takes a cell: it lists the cell's half
// window once, as a table of 14 ranges (the 13 rows and the own cell), and its lanes take one
// candidate each, which they test against every atom of the cell (staged in scratch), so that a
// candidate is loaded once per cell rather than once per atom. Pairs within the cutoff go to the
// group's list and are evaluated `group` at a time, every lane busy. In small systems a cell's
// candidates are split into parts, so that a GPU has enough groups to hide latency.
// Pairs: the pair kinds compiled in (gpumc_pair_potential.h).
template <class DeviceType, class Pairs>
struct PairEnergyFunctor {
  static constexpr int W = 2 * REACH + 1, ROWS = 13;
  // parts per cell: enough groups for a GPU; `requested` (EngineOptions::energy_parts) > 0 sets them
  static int parts_for(int ncells, int requested)
  {
    if (requested > 0) return std::min(requested, ROWS);
    return std::min(std::max(1, 2048 / std::max(ncells, 1)), ROWS);
  }
  struct TagGather {};
  struct TagCells {};
  using TeamMember = typename Kokkos::TeamPolicy<typename DeviceType::execution_space>::member_type;
  using ScratchD = ScratchView<typename DeviceType::execution_space, double>;
  using ScratchI = ScratchView<typename DeviceType::execution_space, int>;

  CellData<DeviceType> c;
  bool trial;
  int parts;
  int nitems;    // cells times parts

  // The energy's copy of the positions, thread t for slot t % cap of padded cell t / cap: the
  // current positions, or the volume trial's (scaled with the box, the positions that
  // VolumeFunctor commits if the trial is accepted).
  KOKKOS_INLINE_FUNCTION void operator()(TagGather, const int t) const
  {
    if (trial && !c.counter(DC_TRIAL_ACTIVE)) return;
    const int p = t / c.g.cap, s = t % c.g.cap;
    int image;
    const int cell = c.padded_cell(p, image);
    if (s >= c.count(cell)) return;
    const int k = cell * c.g.cap + s, e = c.pad_start(p) + s;
    const double shift = image * c.scalar(trial ? DS_TRIAL_LEN : DS_LEN);
    c.ox(e) = (trial ? c.trial_scaled(0, c.sx(k)) : c.sx(k)) + shift;
    c.oy(e) = trial ? c.trial_scaled(1, c.sy(k)) : c.sy(k);
    c.oz(e) = trial ? c.trial_scaled(2, c.sz(k)) : c.sz(k);
    c.otype(e) = c.stype(k);
  }

  static constexpr int SLOTS = ROWS + 1;    // the rows' ranges and the own cell's
  static constexpr int IBATCH = 32;         // atoms of the cell staged at a time
  // threads per cell: a warp on CUDA, one thread elsewhere (known at compile time, so that the
  // group operations in the candidate loop are single instructions)
  static constexpr int GROUP =
#ifdef KOKKOS_ENABLE_CUDA
      std::is_same<typename DeviceType::execution_space, Kokkos::Cuda>::value ? 32 :
#endif
                                                                                1;
  static constexpr int TEAM = GROUP == 32 ? 128 : 1;    // 4 cells per team on CUDA
  double filter_cutsq = 0.0;    // the largest cutoff^2 of any pair (pair_energy applies each pair's)
  static size_t scratch_bytes()
  {
    constexpr int ngroups = TEAM / GROUP;
    return ScratchI::shmem_size(2 * ngroups * SLOTS) + ScratchD::shmem_size(2 * ngroups * SLOTS) +
           ScratchD::shmem_size(3 * ngroups * IBATCH) + ScratchI::shmem_size(ngroups * IBATCH) +
           ScratchD::shmem_size(2 * TEAM) + ScratchI::shmem_size(2 * TEAM);
  }
  KOKKOS_INLINE_FUNCTION void operator()(TagCells, const TeamMember &tm, double &acc) const
  {
    if (trial && !c.counter(DC_TRIAL_ACTIVE)) return;
    constexpr int group = GROUP, ngroups = TEAM / GROUP;
    const int my = tm.team_rank() / group, lane = tm.team_rank() % group;
    const int nterms = Pairs::terms(c.nterms);
    const auto &mem = tm.team_scratch(0);
    ScratchI slot_base(mem, ngroups * SLOTS), slot_end(mem, ngroups * SLOTS);
    ScratchD slot_shift(mem, 2 * ngroups * SLOTS), staged(mem, 3 * ngroups * IBATCH);
    ScratchI staged_row(mem, ngroups * IBATCH);
    ScratchD list_rsq(mem, 2 * TEAM);
    ScratchI list_pc(mem, 2 * TEAM);
    const int item = tm.league_rank() * ngroups + my;
    if (item >= nitems) return;    // the whole group
    const int cell = item / parts, part = item % parts;
    int *base = slot_base.data() + my * SLOTS, *end = slot_end.data() + my * SLOTS;
    double *shift = slot_shift.data() + 2 * my * SLOTS, *ip = staged.data() + 3 * my * IBATCH;
    int *irow = staged_row.data() + my * IBATCH;
    double *lrsq = list_rsq.data() + 2 * group * my;
    int *lpc = list_pc.data() + 2 * group * my;

    const int len_at = trial ? DS_TRIAL_LEN : DS_LEN;    // the box's sides: the rows' periodic shifts
    const int c0[3] = {cell % c.g.n[0], (cell / c.g.n[0]) % c.g.n[1], cell / (c.g.n[0] * c.g.n[1])};
    // The slot table: slot s holds candidates end[s-1]..end[s]-1 of the cell (in this order), at
    // copy positions base[s] + k, shifted by shift[2s], shift[2s+1] along y and z. Lane r lists
    // row r (0: the centre row, x offsets 1..2; 1..12: whole rows, x offsets -2..2); the own
    // cell's atoms (slot ROWS) follow the rows.
    const int own_begin = c.pad_start(c.padded_of(cell)), ni = c.count(cell);
    int total = 0;
    for (int r0 = 0; r0 <= ROWS; r0 += group) {
      const int r = r0 + lane;
      int row_len = 0, b = 0;
      double sy = 0.0, sz = 0.0;
      if (r < ROWS) {
        int cy, cz;
        window_cell(c.g.n[1], c.scalar(len_at + 1), c0[1], (12 + r) % W, cy, sy);
        window_cell(c.g.n[2], c.scalar(len_at + 2), c0[2], (12 + r) / W, cz, sz);
        const int row_cell = (cz * c.g.n[1] + cy) * c.row_padded() + c0[0] + REACH;    // x offset 0
        b = c.pad_start(row_cell + (r == 0 ? 1 : -REACH));
        row_len = c.pad_start(row_cell + REACH + 1) - b;
      } else if (r == ROWS) {
        b = own_begin;
        row_len = ni;
      }
      const int upto = group_inclusive_scan(row_len, group, lane);
      if (r <= ROWS) {
        base[r] = b - (total + upto - row_len);    // candidate k of the slot is at base[r] + k
        end[r] = total + upto;
        shift[2 * r] = sy;
        shift[2 * r + 1] = sz;
      }
      total += group_broadcast(upto, group - 1, group);
    }

    double e = 0.0;
    int count = 0;    // entries in the group's list (the same on every lane)
    for (int i0 = 0; i0 < ni; i0 += IBATCH) {
      const int nb = ni - i0 < IBATCH ? ni - i0 : IBATCH;
      group_sync(group);
      for (int b = lane; b < nb; b += group) {
        const int i = own_begin + i0 + b;
        ip[3 * b] = c.ox(i);
        ip[3 * b + 1] = c.oy(i);
        ip[3 * b + 2] = c.oz(i);
        irow[b] = c.otype(i) * c.nt1;
      }
      group_sync(group);
      int s = 0;
      for (int k0 = part * group; k0 < total; k0 += parts * group) {
        const int k = k0 + lane;
        // a lane past the end tests a point far outside the box (no hits)
        double q[3] = {1e100, 1e100, 1e100};
        int jtype = 0, below = nb;    // the staged atoms b < below pair with this candidate
        if (k < total) {
          while (end[s] <= k) s++;
          const int j = base[s] + k;
          q[0] = c.ox(j);
          q[1] = c.oy(j) + shift[2 * s];
          q[2] = c.oz(j) + shift[2 * s + 1];
          jtype = c.otype(j);
          if (s == ROWS) below = j - own_begin - i0;    // own cell: pairs i < j only
        }
        for (int b = 0; b < nb; b++) {
          const double dx = ip[3 * b] - q[0], dy = ip[3 * b + 1] - q[1], dz = ip[3 * b + 2] - q[2];
          const double rsq = dx * dx + dy * dy + dz * dz;
          const bool hit = rsq < filter_cutsq && b < below;
          int added;
          const int at = group_append(hit, group, lane, added);
          if (hit) {
            lrsq[count + at] = rsq;
            lpc[count + at] = irow[b] + jtype;
          }
          count += added;
          if (count >= group) {
            group_sync(group);
            e += pair_energy<Pairs>(&c.coeff(lpc[lane] * nterms), nterms, lrsq[lane]);
            group_sync(group);
            if (lane < count - group) {
              lrsq[lane] = lrsq[group + lane];
              lpc[lane] = lpc[group + lane];
            }
            group_sync(group);
            count -= group;
          }
        }
      }
    }
    group_sync(group);
    if (lane < count) e += pair_energy<Pairs>(&c.coeff(lpc[lane] * nterms), nterms, lrsq[lane]);
    acc += e;
  }
};

}    // namespace kk
}    // namespace gpumc
