// Kokkos Monte Carlo engine of the /kk styles: the counterpart of gpumc_host_engine.h for any
// Kokkos execution space (CUDA, OpenMP, Serial). Potentials, proposals, wrapping and acceptance
// rules are the shared ones (gpumc_pair_potential.h, gpumc_moves.h), so that a device chain and a
// host chain with the same seed make the same proposals and, up to round-off in the sums, the
// same decisions.
//
// Data stay in the execution space's memory for a whole invocation: atoms in atom-ID order, a cell
// list of fixed capacity per cell whose slots hold the positions (so a team reads neighbouring
// atoms contiguously), the box, the running energy and the counters. The host launches kernels
// and reads per-invocation totals only.
//
// Translations run as one strictly sequential Metropolis chain: a single team executes the moves
// one after another, its threads sharing the energy change of each move over the cells around
// the old and new positions (the union of their windows). Volume moves are proposed, evaluated
// and accepted by device kernels. A move that cannot be carried out with the current cell list (a
// full cell, or cells that a compression made narrower than allowed) stops the chain before that
// move; the host rebuilds the cell list and resumes at the same move, so the chain is unchanged.
#pragma once

#include "gpumc_moves.h"
#include "gpumc_pair_potential.h"
#include "gpumc_rng.h"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <stdexcept>
#include <vector>

namespace gpumc {

// Indices into the engine's small device array of doubles.
enum DeviceScalar : int {
  DS_LO = 0,              // box lo (3)
  DS_LEN = 3,             // box side lengths (3)
  DS_ENERGY = 6,          // running energy (pair + tail)
  DS_TRIAL_LO = 7,        // volume trial: box (3 + 3)
  DS_TRIAL_LEN = 10,
  DS_TRIAL_ENERGY = 13,   // volume trial: energy
  DS_TRIAL_U = 14,        // volume trial: uniform number of its test
  DS_COUNT = 15
};

// Indices into the engine's small device array of counters.
enum DeviceCounter : int {
  DC_TRANS_ACCEPTED = 0,
  DC_VOL_ACCEPTED = 1,
  DC_STOPPED = 2,          // 1 when the chain stopped before a move it could not carry out
  DC_STOP_MOVE = 3,        // translation or volume move at which it stopped
  DC_STOP_KIND = 4,        // 0: translation, 1: volume
  DC_TRIAL_ACTIVE = 5,     // the current volume trial is inside the allowed region
  DC_TRIAL_ACCEPTED = 6,   // the current volume trial was accepted
  DC_COUNT = 7
};

template <class DeviceType>
class DeviceSystem {
 public:
  using ExecSpace = typename DeviceType::execution_space;
  template <class T>
  using View = Kokkos::View<T, DeviceType>;
  using TeamPolicy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename TeamPolicy::member_type;

  static constexpr int REACH = 2;    // cells per cutoff

  // Grid and slot layout passed to kernels by value.
  struct Grid {
    int n[3];                // cells per side
    int cap;                 // slots per cell
    double min_width;        // narrowest cell that still covers the cutoff
  };

  DeviceSystem(const PairTable &table, int team_size) : team_size_(team_size)
  {
    ntypes_ = table.ntypes;
    cut_max_ = table.cut_max;
    d_coeff_ = View<PairCoeff *>("gpumc:coeff", table.coeff.size());
    auto h_coeff = Kokkos::create_mirror_view(d_coeff_);
    for (size_t k = 0; k < table.coeff.size(); k++) h_coeff(k) = table.coeff[k];
    Kokkos::deep_copy(d_coeff_, h_coeff);
    d_row_cutsq_ = View<double *>("gpumc:row_cutsq", ntypes_ + 1);
    auto h_row = Kokkos::create_mirror_view(d_row_cutsq_);
    for (int i = 0; i <= ntypes_; i++) {
      h_row(i) = 0.0;
      for (int j = 1; j <= ntypes_ && i > 0; j++) h_row(i) = std::max(h_row(i), table.at(i, j).cutsq);
    }
    Kokkos::deep_copy(d_row_cutsq_, h_row);
    tail_ = table.tail;
    d_scalar_ = View<double *>("gpumc:scalars", DS_COUNT);
    d_counter_ = View<long *>("gpumc:counters", DC_COUNT);
  }

  // Atoms in atom-ID order: positions (n x 3) and types, and the box. Positions are wrapped into
  // the box; image shifts count from zero.
  void set_configuration(View<double *[3]> x, View<int *> type, const double lo[3], const double len[3])
  {
    natoms_ = (int) type.extent(0);
    for (int d = 0; d < 3; d++)
      if (!(len[d] >= 2.0 * cut_max_)) throw std::invalid_argument("box side shorter than twice the largest cutoff");
    d_type_ = type;
    d_image_ = View<int *[3]>("gpumc:image", natoms_);
    d_cell_ = View<int *>("gpumc:cell", natoms_);
    d_slot_ = View<int *>("gpumc:slot", natoms_);
    auto h_scalar = Kokkos::create_mirror_view(d_scalar_);
    Kokkos::deep_copy(h_scalar, d_scalar_);
    for (int d = 0; d < 3; d++) {
      h_scalar(DS_LO + d) = lo[d];
      h_scalar(DS_LEN + d) = len[d];
    }
    Kokkos::deep_copy(d_scalar_, h_scalar);
    for (int d = 0; d < 3; d++) {
      box_lo_[d] = lo[d];
      box_len_[d] = len[d];
    }
    // type counts for the tail correction
    type_count_.assign(ntypes_ + 1, 0);
    auto h_type = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), type);
    for (int i = 0; i < natoms_; i++) type_count_[h_type(i)]++;
    // wrap into the box
    auto image = d_image_;
    double blo[3] = {lo[0], lo[1], lo[2]}, blen[3] = {len[0], len[1], len[2]};
    Kokkos::parallel_for(
        "gpumc:wrap", Kokkos::RangePolicy<ExecSpace>(0, natoms_), KOKKOS_LAMBDA(const int i) {
          double p[3] = {x(i, 0), x(i, 1), x(i, 2)};
          int s[3] = {0, 0, 0};
          wrap_position(p, blo, blen, s);
          for (int d = 0; d < 3; d++) {
            x(i, d) = p[d];
            image(i, d) = s[d];
          }
        });
    build_cells(x);
  }

  int natoms() const { return natoms_; }
  const double *box_lo() const { return box_lo_; }
  const double *box_len() const { return box_len_; }
  View<int *[3]> image_shifts() const { return d_image_; }
  View<double *> scalars() const { return d_scalar_; }

  // Positions in atom-ID order (n x 3), gathered from the cell slots.
  View<double *[3]> positions() const
  {
    View<double *[3]> x("gpumc:x", natoms_);
    auto cell = d_cell_, slot = d_slot_;
    auto sx = d_sx_, sy = d_sy_, sz = d_sz_;
    const int cap = grid_.cap;
    Kokkos::parallel_for(
        "gpumc:positions", Kokkos::RangePolicy<ExecSpace>(0, natoms_), KOKKOS_LAMBDA(const int i) {
          const int k = cell(i) * cap + slot(i);
          x(i, 0) = sx(k);
          x(i, 1) = sy(k);
          x(i, 2) = sz(k);
        });
    return x;
  }

  // ---- energies ----

  double tail_energy(double volume) const
  {
    if (tail_.empty()) return 0.0;
    return tail_sum() / volume;
  }

  // Total energy (pair + tail) of the current configuration, also stored as the running energy
  // when `store` is set. Summed in a fixed order (atoms by ID, their cells' slots sorted by ID
  // after every rebuild), so that it is reproducible.
  double total_energy(bool store)
  {
    double lo[3], len[3];
    fetch_box(lo, len);
    double e = 0.0;
    pair_energy_total(false, Kokkos::View<double, Kokkos::HostSpace>(&e));
    Kokkos::fence();
    e += tail_energy(len[0] * len[1] * len[2]);
    if (store) set_running_energy(e);
    return e;
  }

  // Total energy summed in an order that depends only on the positions: cells rebuilt (each
  // sorted by atom ID) first, so that a chain split by restarts sums exactly as an unbroken one.
  double canonical_total_energy()
  {
    double lo[3], len[3];
    fetch_box(lo, len);
    auto x = positions();
    choose_grid(box_len_, grid_);
    fill_cells(x, grid_.cap);
    return total_energy(false);
  }

  void set_running_energy(double e)
  {
    Kokkos::deep_copy(Kokkos::subview(d_scalar_, (int) DS_ENERGY), e);
  }

  double running_energy() const
  {
    double e;
    Kokkos::deep_copy(e, Kokkos::subview(d_scalar_, (int) DS_ENERGY));
    return e;
  }

  // ---- moves ----

  // One sweep's worth of the chain: nmoves translations numbered first_move.. of atoms drawn from
  // `mobile` (atom indices), then nvol volume trials numbered first_vol... Everything runs on the
  // device; the host reads the counters once at the end to learn whether the chain stopped before
  // a move it could not carry out (see the header), and if so rebuilds and resumes at that move.
  void sweep(View<int *> mobile, double beta, double dmax, const CounterRNG &trans_rng, uint64_t first_move,
             uint64_t nmoves, int nvol, int scheme, double vstep, double pressure_energy,
             const CounterRNG &vol_rng, uint64_t first_vol)
  {
    uint64_t t_done = 0;
    int v_done = 0;
    long last_stop = -1, repeats = 0;
    for (;;) {
      if (t_done < nmoves && mobile.extent(0) > 0)
        launch_translations(mobile, beta, dmax, trans_rng, first_move + t_done, nmoves - t_done);
      for (int v = v_done; v < nvol; v++) launch_volume(scheme, vstep, beta, pressure_energy, vol_rng, first_vol + v);
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d_counter_);
      if (!h(DC_STOPPED)) return;
      const long kind = h(DC_STOP_KIND), move = h(DC_STOP_MOVE);
      // a stop fixed by a rebuild never recurs at the same move: guard against a logic error
      repeats = (move == last_stop) ? repeats + 1 : 0;
      last_stop = move;
      if (repeats > 2) throw std::runtime_error("GPUMC Kokkos engine: the chain stopped repeatedly at one move");
      if (kind == 0) {
        t_done = (uint64_t) move - first_move;
        v_done = 0;
        rebuild_cells(false);    // a cell was full: more room per cell
      } else {
        t_done = nmoves;
        v_done = (int) ((uint64_t) move - first_vol);
        rebuild_cells(true);     // cells too narrow for the proposed box: a coarser grid
      }
    }
  }

  // Mean Boltzmann factor of test insertions of `type`, ninsert or more of them: the same number
  // in every cell (cells have equal volumes, so the mean over cells is the mean over the box),
  // insertion g at a uniform point of cell g mod ncells, numbered (block, g) in the stream.
  // Two kernels compute the same insertions: by default one team per cell stages the atoms of the
  // cell's window in team scratch memory once and evaluates all of the cell's insertions against
  // it; GPUMC_WIDOM_KERNEL=simple gives each insertion its own walk through the cell list.
  double widom(int type, double beta, const CounterRNG &rng, uint64_t block, uint64_t ninsert, uint64_t &done)
  {
    const Grid g = grid_;
    const long ncells = (long) g.n[0] * g.n[1] * g.n[2];
    const uint64_t per_cell = (ninsert + ncells - 1) / ncells;
    done = per_cell * ncells;
    WidomArgs a;
    for (int d = 0; d < 3; d++) {
      a.lo[d] = box_lo_[d];
      a.len[d] = box_len_[d];
      a.width[d] = a.len[d] / g.n[d];
    }
    a.tail_shift = 0.0;
    if (!tail_.empty()) {
      double sum = tail_coeff(type, type);
      for (int j = 1; j <= ntypes_; j++) sum += 2.0 * (double) type_count_[j] * tail_coeff(type, j);
      a.tail_shift = sum / (a.len[0] * a.len[1] * a.len[2]);
    }
    a.type = type;
    a.beta = beta;
    a.block = block;
    a.per_cell = per_cell;
    a.ncells = ncells;
    const char *kernel = std::getenv("GPUMC_WIDOM_KERNEL");
    const double sum = (kernel && std::string(kernel) == "simple") ? widom_simple(a, rng) : widom_tiled(a, rng);
    return sum / (double) done;
  }

  struct WidomArgs {
    double lo[3], len[3], width[3], tail_shift, beta;
    int type;
    uint64_t block, per_cell;
    long ncells;
  };

  // Uniform point of insertion g (in cell g mod ncells).
  KOKKOS_INLINE_FUNCTION static void widom_point_in_cell(const Grid &g, const WidomArgs &a, const CounterRNG &rng,
                                                         uint64_t gidx, double p[3], int c[3])
  {
    const auto r = rng.bits(a.block, gidx);
    const long cell = (long) (gidx % (uint64_t) a.ncells);
    c[0] = (int) (cell % g.n[0]);
    c[1] = (int) ((cell / g.n[0]) % g.n[1]);
    c[2] = (int) (cell / ((long) g.n[0] * g.n[1]));
    for (int d = 0; d < 3; d++) {
      p[d] = a.lo[d] + (c[d] + uniform01(r[d])) * a.width[d];
      if (p[d] >= a.lo[d] + a.len[d]) p[d] = a.lo[d] + a.len[d] * (1.0 - 1e-16);
    }
  }

  double widom_simple(const WidomArgs &a, const CounterRNG &rng)
  {
    const Grid g = grid_;
    const auto coeff = d_coeff_;
    const auto row_cutsq = d_row_cutsq_;
    const auto count = d_count_;
    const auto sx = d_sx_, sy = d_sy_, sz = d_sz_;
    const auto stype = d_stype_;
    const int nt1 = ntypes_ + 1;
    double sum = 0.0;
    Kokkos::parallel_reduce(
        "gpumc:widom_simple",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>(0, (int64_t) (a.per_cell * a.ncells)),
        KOKKOS_LAMBDA(const int64_t k, double &acc) {
          double p[3];
          int c[3];
          widom_point_in_cell(g, a, rng, (uint64_t) k, p, c);
          const int span[3] = {0, 0, 0};
          const double e = window_energy_serial(g, a.lo, a.len, c, span, p, -1, a.type, coeff.data() + a.type * nt1,
                                                row_cutsq(a.type), count, sx, sy, sz, stype, nullptr);
          acc += exp(-a.beta * (e + a.tail_shift));
        },
        sum);
    return sum;
  }

  double widom_tiled(const WidomArgs &a, const CounterRNG &rng)
  {
    const Grid g = grid_;
    const auto coeff = d_coeff_;
    const auto row_cutsq = d_row_cutsq_;
    const auto count = d_count_;
    const auto sx = d_sx_, sy = d_sy_, sz = d_sz_;
    const auto stype = d_stype_;
    const int nt1 = ntypes_ + 1;
    constexpr int W = 2 * REACH + 1, NW = W * W * W;
    // the fullest window bounds the scratch space of every team
    int most = 0;
    Kokkos::parallel_reduce(
        "gpumc:widom_window_max", Kokkos::RangePolicy<ExecSpace>(0, a.ncells),
        KOKKOS_LAMBDA(const long cell, int &m) {
          const int c0[3] = {(int) (cell % g.n[0]), (int) ((cell / g.n[0]) % g.n[1]),
                             (int) (cell / ((long) g.n[0] * g.n[1]))};
          const int nw[3] = {W, W, W};
          int n = 0;
          for (int w = 0; w < NW; w++) {
            double sh[3];
            n += count(window_cell_flat(g, a.len, c0, nw, w, sh));
          }
          m = n > m ? n : m;
        },
        Kokkos::Max<int>(most));
    using ScratchD = Kokkos::View<double *, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
    using ScratchI = Kokkos::View<int *, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
    const int cap = std::max(most, 1);
    const size_t bytes = 3 * ScratchD::shmem_size(cap) + ScratchI::shmem_size(cap) + ScratchI::shmem_size(NW + 1);
    const int team = team_size_ > 0 ? team_size_ : (on_host() ? 1 : 128);
    double sum = 0.0;
    Kokkos::parallel_reduce(
        "gpumc:widom_tiled", TeamPolicy((int) a.ncells, team).set_scratch_size(0, Kokkos::PerTeam(bytes)),
        KOKKOS_LAMBDA(const Member &tm, double &acc) {
          const long cell = tm.league_rank();
          const int c0[3] = {(int) (cell % g.n[0]), (int) ((cell / g.n[0]) % g.n[1]),
                             (int) (cell / ((long) g.n[0] * g.n[1]))};
          ScratchD px(tm.team_scratch(0), cap), py(tm.team_scratch(0), cap), pz(tm.team_scratch(0), cap);
          ScratchI pt(tm.team_scratch(0), cap), offset(tm.team_scratch(0), NW + 1);
          // offsets of the window cells' atoms in scratch
          const int nw[3] = {W, W, W};
          Kokkos::parallel_scan(Kokkos::TeamThreadRange(tm, NW), [&](const int w, int &part, const bool final) {
            double sh[3];
            const int n = count(window_cell_flat(g, a.len, c0, nw, w, sh));
            if (final) offset(w) = part;
            part += n;
            if (final && w == NW - 1) offset(NW) = part;
          });
          tm.team_barrier();
          // stage the window's atoms, shifted next to this cell
          Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, NW), [&](const int w) {
            double sh[3];
            const int c = window_cell_flat(g, a.len, c0, nw, w, sh);
            for (int s = 0; s < count(c); s++) {
              const int k = c * g.cap + s, o = offset(w) + s;
              px(o) = sx(k) + sh[0];
              py(o) = sy(k) + sh[1];
              pz(o) = sz(k) + sh[2];
              pt(o) = stype(k);
            }
          });
          tm.team_barrier();
          const int natoms_w = offset(NW);
          const PairCoeff *row = coeff.data() + a.type * nt1;
          const double cutsq = row_cutsq(a.type);
          double team_sum = 0.0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(tm, (int) a.per_cell),
              [&](const int j, double &part) {
                double p[3];
                int c[3];
                widom_point_in_cell(g, a, rng, (uint64_t) j * (uint64_t) a.ncells + (uint64_t) cell, p, c);
                double e = 0.0;
                for (int o = 0; o < natoms_w; o++) {
                  const double dx = p[0] - px(o), dy = p[1] - py(o), dz = p[2] - pz(o);
                  const double rsq = dx * dx + dy * dy + dz * dz;
                  if (rsq < cutsq) e += pair_energy(row[pt(o)], rsq);
                }
                part += exp(-a.beta * (e + a.tail_shift));
              },
              team_sum);
          Kokkos::single(Kokkos::PerTeam(tm), [&]() { acc += team_sum; });
        },
        sum);
    return sum;
  }

  static bool on_host() { return std::is_same<ExecSpace, Kokkos::DefaultHostExecutionSpace>::value; }

  // ---- output ----

  // Box after the invocation (from the device).
  void fetch_box(double lo[3], double len[3])
  {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d_scalar_);
    for (int d = 0; d < 3; d++) {
      lo[d] = box_lo_[d] = h(DS_LO + d);
      len[d] = box_len_[d] = h(DS_LEN + d);
    }
  }

  long counter(int which) const
  {
    long v;
    Kokkos::deep_copy(v, Kokkos::subview(d_counter_, which));
    return v;
  }

  void reset_counters() { Kokkos::deep_copy(d_counter_, 0L); }

  // Order-independent fingerprint of positions and box (not the host's: compare within a
  // backend only).
  uint64_t fingerprint()
  {
    double blo[3], blen[3];
    fetch_box(blo, blen);
    auto cell = d_cell_, slot = d_slot_;
    auto sx = d_sx_, sy = d_sy_, sz = d_sz_;
    auto type = d_type_;
    const int cap = grid_.cap;
    uint64_t h = 0;
    Kokkos::parallel_reduce(
        "gpumc:fingerprint", Kokkos::RangePolicy<ExecSpace>(0, natoms_),
        KOKKOS_LAMBDA(const int i, uint64_t &acc) {
          const int k = cell(i) * cap + slot(i);
          const double v[3] = {sx(k), sy(k), sz(k)};
          uint64_t m = 0x9e3779b97f4a7c15ULL * (uint64_t) (i + 1) ^ (uint64_t) type(i);
          for (int d = 0; d < 3; d++) {
            uint64_t bits;
            memcpy(&bits, &v[d], sizeof(bits));
            m ^= bits + 0x9e3779b97f4a7c15ULL + (m << 6) + (m >> 2);
            m *= 0xff51afd7ed558ccdULL;
            m ^= m >> 33;
          }
          acc += m;
        },
        h);
    for (int d = 0; d < 3; d++) {
      uint64_t a, b;
      memcpy(&a, &box_lo_[d], sizeof(a));
      memcpy(&b, &box_len_[d], sizeof(b));
      h = h * 1099511628211ULL + a;
      h = h * 1099511628211ULL + b;
    }
    return h;
  }

 private:
  int natoms_ = 0, ntypes_ = 0, team_size_ = 0;
  double cut_max_ = 0.0;
  double box_lo_[3] = {0, 0, 0}, box_len_[3] = {0, 0, 0};
  std::vector<double> tail_;
  std::vector<long> type_count_;
  Grid grid_{};

  View<PairCoeff *> d_coeff_;
  View<double *> d_row_cutsq_;
  View<double *> d_scalar_;
  View<long *> d_counter_;
  View<int *> d_type_;
  View<int *[3]> d_image_;
  View<int *> d_cell_, d_slot_;    // per atom: its cell and slot
  View<int *> d_count_;            // atoms per cell
  View<double *> d_sx_, d_sy_, d_sz_;
  View<int *> d_sid_, d_stype_;    // per slot: atom and type
  // volume trials: scaled slot positions
  View<double *> d_tx_, d_ty_, d_tz_;

  // Everything below is public only because CUDA does not allow device lambdas in private or
  // protected member functions; it is the engine's implementation, not its interface.
 public:
  double tail_coeff(int i, int j) const { return tail_[i * (ntypes_ + 1) + j]; }
  double tail_sum() const
  {
    double s = 0.0;
    for (int i = 1; i <= ntypes_; i++)
      for (int j = 1; j <= ntypes_; j++) s += (double) type_count_[i] * (double) type_count_[j] * tail_coeff(i, j);
    return s;
  }

  // Cells per side for a box: as many as fit while at least min_width wide, and no more than
  // about two per atom (sparse systems). A small margin keeps rounding out of the coverage.
  void choose_grid(const double len[3], Grid &g) const
  {
    g.min_width = cut_max_ * (1.0 + 1e-10) / REACH;
    for (int d = 0; d < 3; d++)
      g.n[d] = g.min_width > 0.0 ? std::max(1, (int) std::min(len[d] / g.min_width, 1e6)) : 1;
    const long max_cells = std::max(27L, 2L * natoms_);
    while ((long) g.n[0] * g.n[1] * g.n[2] > max_cells) {
      int big = 0;
      for (int d = 1; d < 3; d++)
        if (g.n[d] > g.n[big]) big = d;
      g.n[big] = std::max(1, (int) (g.n[big] * 0.9));
    }
  }

  // Cell coordinates of a position (clamped into the grid).
  KOKKOS_INLINE_FUNCTION static void cell_coords(const Grid &g, const double lo[3], const double len[3],
                                                  const double p[3], int c[3])
  {
    for (int d = 0; d < 3; d++) {
      int k = (int) ((p[d] - lo[d]) * (g.n[d] / len[d]));
      c[d] = k < 0 ? 0 : (k >= g.n[d] ? g.n[d] - 1 : k);
    }
  }

  KOKKOS_INLINE_FUNCTION static int cell_index(const Grid &g, const int c[3])
  {
    return (c[2] * g.n[1] + c[1]) * g.n[0] + c[0];
  }

  // Cell and periodic shift of window offset k along dimension d from cell coordinate c0.
  KOKKOS_INLINE_FUNCTION static void window_cell(int n, double len, int c0, int k, int &cell, double &shift)
  {
    const int t = c0 - REACH + k;
    const int w = t >= 0 ? t / n : -((-t + n - 1) / n);
    cell = t - w * n;
    shift = w * len;
  }

  // Cell index and periodic shifts of cell w (x fastest) of a window nw[0] x nw[1] x nw[2] cells
  // wide that starts REACH cells below c0.
  KOKKOS_INLINE_FUNCTION static int window_cell_flat(const Grid &g, const double len[3], const int c0[3],
                                                     const int nw[3], int w, double shift[3])
  {
    const int k[3] = {w % nw[0], (w / nw[0]) % nw[1], w / (nw[0] * nw[1])};
    int c[3];
    for (int d = 0; d < 3; d++) window_cell(g.n[d], len[d], c0[d], k[d], c[d], shift[d]);
    return (c[2] * g.n[1] + c[1]) * g.n[0] + c[0];
  }

  // Pair energy of a particle of type itype at p with all atoms but `skip`, over the window of
  // cells starting REACH cells below `lo_cell` and 2 REACH + 1 + span cells wide, by one thread.
  // With q non-null, returns the difference energy(p) - energy(q) over the same window.
  template <class CountView, class PosView, class TypeView>
  KOKKOS_INLINE_FUNCTION static double window_energy_serial(const Grid &g, const double lo[3], const double len[3],
                                                            const int lo_cell[3], const int span[3], const double p[3],
                                                            int skip, int itype, const PairCoeff *row, double cutsq,
                                                            const CountView &count, const PosView &sx, const PosView &sy,
                                                            const PosView &sz, const TypeView &stype, const double *q)
  {
    (void) itype;
    (void) skip;    // insertions only: there is no atom to skip
    double e = 0.0;
    const int nw[3] = {2 * REACH + 1 + span[0], 2 * REACH + 1 + span[1], 2 * REACH + 1 + span[2]};
    for (int w = 0; w < nw[0] * nw[1] * nw[2]; w++) {
      double sh[3];
      const int cell = window_cell_flat(g, len, lo_cell, nw, w, sh);
      const int base = cell * g.cap;
      for (int s = 0; s < count(cell); s++) {
        const int k = base + s;
        const double xj = sx(k) + sh[0], yj = sy(k) + sh[1], zj = sz(k) + sh[2];
        const double dx = p[0] - xj, dy = p[1] - yj, dz = p[2] - zj;
        const double rsq = dx * dx + dy * dy + dz * dz;
        if (rsq < cutsq) e += pair_energy(row[stype(k)], rsq);
        if (q) {
          const double ex = q[0] - xj, ey = q[1] - yj, ez = q[2] - zj;
          const double qsq = ex * ex + ey * ey + ez * ez;
          if (qsq < cutsq) e -= pair_energy(row[stype(k)], qsq);
        }
      }
    }
    return e;
  }

  // ---- cell list ----

  void build_cells(View<double *[3]> x)
  {
    choose_grid(box_len_, grid_);
    fill_cells(x, 0);
  }

  // Rebuild after a stop. After a full cell: the same grid with twice the room per cell. After a
  // volume trial whose box would make the cells too narrow: a grid that fits both the current and
  // the proposed box (each side the smaller of the two), so the trial can go ahead either way.
  void rebuild_cells(bool for_volume_trial)
  {
    double lo[3], len[3];
    fetch_box(lo, len);
    auto x = positions();
    int cap = 2 * grid_.cap;
    if (for_volume_trial) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d_scalar_);
      for (int d = 0; d < 3; d++) len[d] = std::min(len[d], h(DS_TRIAL_LEN + d));
      cap = 0;
    }
    choose_grid(len, grid_);
    fill_cells(x, cap);
    Kokkos::deep_copy(Kokkos::subview(d_counter_, (int) DC_STOPPED), 0L);
  }

  // Sort atoms into cells: count (atomically), size the slots, fill, then order each cell's
  // slots by atom ID so that every sum over a cell is reproducible.
  void fill_cells(View<double *[3]> x, int min_cap)
  {
    const Grid g0 = grid_;
    const long ncells = (long) g0.n[0] * g0.n[1] * g0.n[2];
    d_count_ = View<int *>("gpumc:count", ncells);
    auto count = d_count_;
    auto cell = d_cell_, slot = d_slot_;
    double lo[3] = {box_lo_[0], box_lo_[1], box_lo_[2]}, len[3] = {box_len_[0], box_len_[1], box_len_[2]};
    Kokkos::parallel_for(
        "gpumc:count_cells", Kokkos::RangePolicy<ExecSpace>(0, natoms_), KOKKOS_LAMBDA(const int i) {
          const double p[3] = {x(i, 0), x(i, 1), x(i, 2)};
          int c[3];
          cell_coords(g0, lo, len, p, c);
          cell(i) = cell_index(g0, c);
          slot(i) = Kokkos::atomic_fetch_add(&count(cell(i)), 1);
        });
    int fullest = 0;
    Kokkos::parallel_reduce(
        "gpumc:fullest", Kokkos::RangePolicy<ExecSpace>(0, ncells),
        KOKKOS_LAMBDA(const long c, int &m) { m = count(c) > m ? count(c) : m; }, Kokkos::Max<int>(fullest));
    // room for atoms moving in; GPUMC_CELL_SLACK (a test hook) sets it, 0 forcing frequent stops
    const char *slack_env = std::getenv("GPUMC_CELL_SLACK");
    const int slack = slack_env ? std::max(0, std::atoi(slack_env)) : std::max(4, fullest / 2);
    grid_.cap = std::max({min_cap, fullest + slack, 1});
    const Grid g = grid_;
    const size_t nslots = (size_t) ncells * g.cap;
    d_sx_ = View<double *>("gpumc:sx", nslots);
    d_sy_ = View<double *>("gpumc:sy", nslots);
    d_sz_ = View<double *>("gpumc:sz", nslots);
    d_sid_ = View<int *>("gpumc:sid", nslots);
    d_stype_ = View<int *>("gpumc:stype", nslots);
    auto sx = d_sx_, sy = d_sy_, sz = d_sz_;
    auto sid = d_sid_, stype = d_stype_;
    auto type = d_type_;
    Kokkos::parallel_for(
        "gpumc:fill_cells", Kokkos::RangePolicy<ExecSpace>(0, natoms_), KOKKOS_LAMBDA(const int i) {
          const int k = cell(i) * g.cap + slot(i);
          sid(k) = i;
        });
    // insertion sort of each cell's atoms by ID, then positions and types in that order
    Kokkos::parallel_for(
        "gpumc:sort_cells", Kokkos::RangePolicy<ExecSpace>(0, ncells), KOKKOS_LAMBDA(const long c) {
          const int base = (int) c * g.cap, n = count(c);
          for (int a = 1; a < n; a++) {
            const int v = sid(base + a);
            int b = a - 1;
            while (b >= 0 && sid(base + b) > v) {
              sid(base + b + 1) = sid(base + b);
              b--;
            }
            sid(base + b + 1) = v;
          }
          for (int a = 0; a < n; a++) {
            const int i = sid(base + a);
            slot(i) = a;
            sx(base + a) = x(i, 0);
            sy(base + a) = x(i, 1);
            sz(base + a) = x(i, 2);
            stype(base + a) = type(i);
          }
        });
  }

  // ---- kernels ----

  int team_size() const
  {
    if (team_size_ > 0) return team_size_;
    return on_host() ? 1 : 128;
  }

  void launch_translations(View<int *> mobile, double beta, double dmax, const CounterRNG &rng, uint64_t first,
                           uint64_t nmoves)
  {
    const Grid g = grid_;
    const auto coeff = d_coeff_;
    const auto row_cutsq = d_row_cutsq_;
    const auto scalar = d_scalar_;
    const auto counter = d_counter_;
    const auto count = d_count_;
    const auto sx = d_sx_, sy = d_sy_, sz = d_sz_;
    const auto sid = d_sid_, stype = d_stype_;
    const auto cell_of = d_cell_, slot_of = d_slot_;
    const auto type = d_type_;
    const auto image = d_image_;
    const int nt1 = ntypes_ + 1;
    const uint64_t nmobile = mobile.extent(0);
    Kokkos::parallel_for(
        "gpumc:translations", TeamPolicy(1, team_size()), KOKKOS_LAMBDA(const Member &team) {
          if (counter(DC_STOPPED)) return;
          const double lo[3] = {scalar(DS_LO), scalar(DS_LO + 1), scalar(DS_LO + 2)};
          const double len[3] = {scalar(DS_LEN), scalar(DS_LEN + 1), scalar(DS_LEN + 2)};
          for (uint64_t m = first; m < first + nmoves; m++) {
            const Translation t = propose_translation(rng, m, nmobile, dmax);
            const int i = mobile(t.pick);
            const int k_old = cell_of(i) * g.cap + slot_of(i);
            const double p_old[3] = {sx(k_old), sy(k_old), sz(k_old)};
            double p_new[3] = {p_old[0] + t.disp[0], p_old[1] + t.disp[1], p_old[2] + t.disp[2]};
            int shift[3] = {0, 0, 0};
            wrap_position(p_new, lo, len, shift);
            int c_old[3], c_new[3], c_lo[3], span[3];
            cell_coords(g, lo, len, p_old, c_old);
            cell_coords(g, lo, len, p_new, c_new);
            bool adjacent = true;
            for (int d = 0; d < 3; d++) {
              c_lo[d] = c_old[d] < c_new[d] ? c_old[d] : c_new[d];
              span[d] = c_old[d] < c_new[d] ? c_new[d] - c_old[d] : c_old[d] - c_new[d];
              adjacent = adjacent && span[d] <= 1;
            }
            const int cell_new = cell_index(g, c_new);
            // a full destination cell: stop before this move (the host makes room and resumes)
            if (cell_new != cell_of(i) && count(cell_new) >= g.cap) {
              Kokkos::single(Kokkos::PerTeam(team), [&]() {
                counter(DC_STOPPED) = 1;
                counter(DC_STOP_MOVE) = (long) m;
                counter(DC_STOP_KIND) = 0;
              });
              return;
            }
            const int itype = type(i);
            const PairCoeff *row = coeff.data() + itype * nt1;
            const double cutsq = row_cutsq(itype);
            // adjacent cells: one pass over the union of the two windows, summing u(new) - u(old);
            // otherwise (a displacement of several cells) the new window, then the old one
            double dU = 0.0;
            for (int pass = 0; pass < (adjacent ? 1 : 2); pass++) {
              const int *c0 = adjacent ? c_lo : (pass == 0 ? c_new : c_old);
              const int zero[3] = {0, 0, 0};
              const int *sp = adjacent ? span : zero;
              const int nw[3] = {2 * REACH + 1 + sp[0], 2 * REACH + 1 + sp[1], 2 * REACH + 1 + sp[2]};
              const bool with_new = adjacent || pass == 0, with_old = adjacent || pass == 1;
              double part = 0.0;
              Kokkos::parallel_reduce(
                  Kokkos::TeamThreadRange(team, nw[0] * nw[1] * nw[2]),
                  [&](const int w, double &acc) {
                    double sh[3];
                    const int cell = window_cell_flat(g, len, c0, nw, w, sh);
                    const int base = cell * g.cap;
                    for (int s = 0; s < count(cell); s++) {
                      const int k = base + s;
                      if (sid(k) == i) continue;
                      const double xj = sx(k) + sh[0], yj = sy(k) + sh[1], zj = sz(k) + sh[2];
                      const PairCoeff &pc = row[stype(k)];
                      if (with_new) {
                        const double dx = p_new[0] - xj, dy = p_new[1] - yj, dz = p_new[2] - zj;
                        const double rsq = dx * dx + dy * dy + dz * dz;
                        if (rsq < cutsq) acc += pair_energy(pc, rsq);
                      }
                      if (with_old) {
                        const double dx = p_old[0] - xj, dy = p_old[1] - yj, dz = p_old[2] - zj;
                        const double rsq = dx * dx + dy * dy + dz * dz;
                        if (rsq < cutsq) acc -= pair_energy(pc, rsq);
                      }
                    }
                  },
                  part);
              dU += part;
            }
            if (accept_translation(rng, m, beta, dU)) {
              Kokkos::single(Kokkos::PerTeam(team), [&]() {
                int k = k_old;
                const int c_from = cell_of(i);
                if (cell_new != c_from) {
                  // leave the old cell (its last atom fills the hole), join the new one
                  const int last = c_from * g.cap + count(c_from) - 1;
                  if (k != last) {
                    const int j = sid(last);
                    sx(k) = sx(last);
                    sy(k) = sy(last);
                    sz(k) = sz(last);
                    sid(k) = j;
                    stype(k) = stype(last);
                    slot_of(j) = slot_of(i);
                  }
                  count(c_from) -= 1;
                  const int s = count(cell_new);
                  count(cell_new) = s + 1;
                  cell_of(i) = cell_new;
                  slot_of(i) = s;
                  k = cell_new * g.cap + s;
                  sid(k) = i;
                  stype(k) = itype;
                }
                sx(k) = p_new[0];
                sy(k) = p_new[1];
                sz(k) = p_new[2];
                for (int d = 0; d < 3; d++) image(i, d) += shift[d];
                scalar(DS_ENERGY) += dU;
                counter(DC_TRANS_ACCEPTED) += 1;
              });
            }
            team.team_barrier();
          }
        });
  }

  // Pair energy of the whole system (each pair once, from the atom with the smaller ID), reduced
  // into `result` (a scalar view on the host or the device); skipped when `only_if` is given and
  // holds 0 on the device.
  template <class ResultView>
  void pair_energy_total(bool trial, ResultView result, View<long *> only_if = View<long *>(), int flag = 0)
  {
    const Grid g = grid_;
    const auto coeff = d_coeff_;
    const auto row_cutsq = d_row_cutsq_;
    const auto count = d_count_;
    const auto sx = trial ? d_tx_ : d_sx_, sy = trial ? d_ty_ : d_sy_, sz = trial ? d_tz_ : d_sz_;
    const auto sid = d_sid_, stype = d_stype_;
    const auto cell_of = d_cell_, slot_of = d_slot_;
    const auto type = d_type_;
    const auto scalar = d_scalar_;
    const int nt1 = ntypes_ + 1;
    const int lo_at = trial ? DS_TRIAL_LO : DS_LO, len_at = trial ? DS_TRIAL_LEN : DS_LEN;
    const bool conditional = only_if.extent(0) > 0;
    Kokkos::parallel_reduce(
        "gpumc:pair_energy", Kokkos::RangePolicy<ExecSpace>(0, natoms_),
        KOKKOS_LAMBDA(const int i, double &acc) {
          if (conditional && !only_if(flag)) return;
          const double lo[3] = {scalar(lo_at), scalar(lo_at + 1), scalar(lo_at + 2)};
          const double len[3] = {scalar(len_at), scalar(len_at + 1), scalar(len_at + 2)};
          const int ki = cell_of(i) * g.cap + slot_of(i);
          const double p[3] = {sx(ki), sy(ki), sz(ki)};
          const int c = cell_of(i);
          const int c0[3] = {c % g.n[0], (c / g.n[0]) % g.n[1], c / (g.n[0] * g.n[1])};
          const int itype = type(i);
          const PairCoeff *row = coeff.data() + itype * nt1;
          const double cutsq = row_cutsq(itype);
          double e_i = 0.0;
          const int nw[3] = {2 * REACH + 1, 2 * REACH + 1, 2 * REACH + 1};
          for (int w = 0; w < nw[0] * nw[1] * nw[2]; w++) {
            double sh[3];
            const int cell = window_cell_flat(g, len, c0, nw, w, sh);
            const int base = cell * g.cap;
            for (int s = 0; s < count(cell); s++) {
              const int k = base + s;
              if (sid(k) <= i) continue;
              const double dx = p[0] - sx(k) - sh[0], dy = p[1] - sy(k) - sh[1], dz = p[2] - sz(k) - sh[2];
              const double rsq = dx * dx + dy * dy + dz * dz;
              if (rsq < cutsq) e_i += pair_energy(row[stype(k)], rsq);
            }
          }
          acc += e_i;
        },
        result);
  }

  void launch_volume(int scheme, double step, double beta, double pressure_energy, const CounterRNG &rng,
                     uint64_t move)
  {
    const Grid g = grid_;
    const auto scalar = d_scalar_;
    const auto counter = d_counter_;
    const double min_side = 2.0 * cut_max_;
    // 1. propose the new box; is it inside the allowed region, are the cells still wide enough?
    Kokkos::parallel_for(
        "gpumc:volume_propose", Kokkos::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(const int) {
          counter(DC_TRIAL_ACTIVE) = 0;
          counter(DC_TRIAL_ACCEPTED) = 0;
          if (counter(DC_STOPPED)) return;
          double len[3] = {scalar(DS_LEN), scalar(DS_LEN + 1), scalar(DS_LEN + 2)}, new_len[3];
          scalar(DS_TRIAL_U) = propose_volume(rng, move, scheme, step, len, new_len);
          bool inside = true, fits = true;
          for (int d = 0; d < 3; d++) {
            inside = inside && new_len[d] >= min_side;
            fits = fits && new_len[d] / g.n[d] >= g.min_width;
            scalar(DS_TRIAL_LEN + d) = new_len[d];
            // the same arithmetic as the host engine: scaled about the box centre
            const double centre = scalar(DS_LO + d) + 0.5 * len[d];
            scalar(DS_TRIAL_LO + d) = centre - 0.5 * new_len[d];
          }
          if (inside && !fits) {    // stop before this trial: the host regrids and resumes
            counter(DC_STOPPED) = 1;
            counter(DC_STOP_MOVE) = (long) move;
            counter(DC_STOP_KIND) = 1;
          } else {
            counter(DC_TRIAL_ACTIVE) = inside ? 1 : 0;    // outside: rejected, pi = 0 there
          }
        });
    // 2. scaled positions (the cells scale with the box: every atom keeps its cell and slot)
    const size_t nslots = d_sx_.extent(0);
    if (d_tx_.extent(0) != nslots) {
      d_tx_ = View<double *>("gpumc:tx", nslots);
      d_ty_ = View<double *>("gpumc:ty", nslots);
      d_tz_ = View<double *>("gpumc:tz", nslots);
    }
    const auto sx = d_sx_, sy = d_sy_, sz = d_sz_;
    const auto tx = d_tx_, ty = d_ty_, tz = d_tz_;
    Kokkos::parallel_for(
        "gpumc:volume_scale", Kokkos::RangePolicy<ExecSpace>(0, (long) nslots), KOKKOS_LAMBDA(const long k) {
          if (!counter(DC_TRIAL_ACTIVE)) return;
          const double src[3] = {sx(k), sy(k), sz(k)};
          double v[3];
          for (int d = 0; d < 3; d++) {
            const double lo = scalar(DS_LO + d), len = scalar(DS_LEN + d);
            const double nlo = scalar(DS_TRIAL_LO + d), nlen = scalar(DS_TRIAL_LEN + d);
            v[d] = nlo + (src[d] - lo) * (nlen / len);
            // rounding at the upper face: stay inside (the atom keeps its cell)
            if (v[d] >= nlo + nlen) v[d] = nlo + nlen * (1.0 - 1e-16);
          }
          tx(k) = v[0];
          ty(k) = v[1];
          tz(k) = v[2];
        });
    // 3. pair energy of the trial configuration, into device memory
    pair_energy_total(true, Kokkos::subview(d_scalar_, (int) DS_TRIAL_ENERGY), d_counter_, DC_TRIAL_ACTIVE);
    // 4. decide on the device
    const double natoms = natoms_;
    const double tail = tail_.empty() ? 0.0 : tail_sum();
    Kokkos::parallel_for(
        "gpumc:volume_accept", Kokkos::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(const int) {
          if (!counter(DC_TRIAL_ACTIVE)) return;
          const double v_old = scalar(DS_LEN) * scalar(DS_LEN + 1) * scalar(DS_LEN + 2);
          const double v_new = scalar(DS_TRIAL_LEN) * scalar(DS_TRIAL_LEN + 1) * scalar(DS_TRIAL_LEN + 2);
          const double e_new = scalar(DS_TRIAL_ENERGY) + tail / v_new;
          const double lr =
              volume_log_ratio(beta, e_new - scalar(DS_ENERGY), pressure_energy, v_old, v_new, natoms, scheme);
          if (metropolis_accept(lr, scalar(DS_TRIAL_U))) {
            counter(DC_TRIAL_ACCEPTED) = 1;
            counter(DC_VOL_ACCEPTED) += 1;
            scalar(DS_ENERGY) = e_new;
            for (int d = 0; d < 3; d++) {
              scalar(DS_LO + d) = scalar(DS_TRIAL_LO + d);
              scalar(DS_LEN + d) = scalar(DS_TRIAL_LEN + d);
            }
          }
        });
    // 5. accepted: the scaled positions become the configuration
    Kokkos::parallel_for(
        "gpumc:volume_commit", Kokkos::RangePolicy<ExecSpace>(0, (long) nslots), KOKKOS_LAMBDA(const long k) {
          if (!counter(DC_TRIAL_ACCEPTED)) return;
          sx(k) = tx(k);
          sy(k) = ty(k);
          sz(k) = tz(k);
        });
  }
};

}    // namespace gpumc
