// Host engine: the cell list and its windows of cells.

#include "gpumc_system_host.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gpumc {

// Cells are made this much wider than the cutoff so that an atom a rounding error outside
// its cell (after a box rescale) is still found by the stencil of every cell within range.
static constexpr double CELL_MARGIN = 1e-10;

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

}    // namespace gpumc
