// Kernels of the Kokkos engine's checkerboard sweeps: per colour, one kernel evaluates every trial
// and its corrections, another decides each cell's trials in order.
#pragma once

#include "gpumc_checkerboard_cells_kokkos.h"
#include "gpumc_team_kokkos.h"

namespace gpumc {
namespace kk {

// The cells of one colour. Each cell tries every one of its atoms once, in a random order
// (gpumc_checkerboard.h), and because no atom is tried twice the trials need not be evaluated one
// after another. Two kernels per colour:
//  - CheckerTrialFunctor evaluates every trial of the colour at once, each against its cell's
//    starting configuration, and the correction that each pair of trials of a cell makes to the
//    other's energy change if that one is accepted first (four pair terms: the two atoms' old and
//    new positions against each other; symmetric in the two trials). Its teams take a chunk of a
//    cell's trials each, so a colour launches about N / (8 x trials per team) teams, not one per
//    cell: the cells of a colour (216 at N = 74088) are too few to fill a GPU on their own.
//  - CheckerDecideFunctor, a team per cell, decides the trials in order, each with its evaluated
//    energy change plus the corrections of the trials accepted before it: the energy change of the
//    strictly sequential visit, up to round-off in the order of the sums. It then writes the
//    accepted moves back.
// Moves of different cells are independent (gpumc_checkerboard.h), so the result does not depend
// on the order the teams run in.

// Energy changes and corrections of a colour's trials: active cell a (the a-th of the colour), slot
// s at a * cap + s; the correction between slots t < s at a * corr_cap + s (s - 1) / 2 + t.
KOKKOS_INLINE_FUNCTION int checker_pair_entry(int s, int t)
{
  return s > t ? s * (s - 1) / 2 + t : t * (t - 1) / 2 + s;
}

// per trial slot: the trial's state
enum CheckerTrialState : int { NOT_A_TRIAL = 0, LEAVES_CELL = 1, EVALUATED = 2 };

// A team of the first kernel: active cell a's trials first .. first + per_team - 1.
//  1. The team stages the atoms of the 27 cells around the cell in scratch memory, in the cell's
//     own frame (cell offset times width plus the position in the neighbour's frame: exact
//     periodic images whatever the grid shift), the cell's own atoms first in ascending order,
//     and draws the trials of all the cell's atoms (their new positions enter the corrections).
//  2. Groups of threads (a CUDA warp, elsewhere one thread) take the team's trials. A group
//     evaluates a trial in two passes: it lists the staged atoms that may be within the cutoff
//     of the old or the new position (lanes append in candidate order, so the list and the sum's
//     order are the same in every run), then sums their pair terms, lanes in parallel. Its lanes
//     then compute the trial's corrections with the cell's lower slots.
//
// Real: the precision of the staged cell-frame positions, the distances and the pair terms
// (float in mixed precision); the stay-in-cell test and all sums are double. Launched with
// WarpPolicy (TagWarp), the kernel takes the CUDA path with the hot scratch on chip and a warp per
// trial, both known to the compiler (shared-memory loads, no run-time group size); with Policy,
// any group size and scratch level. Pairs: the pair kinds compiled in (gpumc_pair_potential.h).
template <class DeviceType, class Real, class Pairs>
struct CheckerTrialFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  // teams of at most 256 threads, at most 80 registers each: registers allow 6 default teams of
  // 128 per multiprocessor (the shared memory of a SiO2 neighbourhood in double precision, 4).
  // (128 registers in double, without spills, made double 5-19 % slower on the H200.)
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 3>>;
  struct TagWarp {};
  using WarpPolicy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 3>, TagWarp>;
  using Member = typename Policy::member_type;
  template <class T>
  using Scratch = ScratchView<ExecSpace, T>;
  using ScratchR = Scratch<Real>;
  using ScratchD = Scratch<double>;
  using ScratchI = Scratch<int>;
  // lists of 16-bit indices of the staged atoms
  static constexpr int MAX_WINDOW = 65535;
  CheckerData<DeviceType> d;
  Kokkos::View<PairCoeffT<Real> *, DeviceType> coeff;
  Kokkos::View<double *, DeviceType> row_cutsq;
  int nt1, nterms, colour, window_cap, team;
  int group;                   // threads that evaluate a trial together: 32 (a CUDA warp) or 1
  int per_team, teams_per_cell;    // trials per team, teams per active cell
  // a group's list of candidates holds list_rounds rounds of them: the candidates of a trial and
  // a block of rounds more, so that its pair terms are summed once (every lane busy but in the
  // last round), in a list small enough to leave room for more teams per multiprocessor
  int list_rounds = 4 * CANDIDATE_ROUNDS;
  int hot_level, cold_level;   // scratch levels (0: on chip) of hot_bytes and of cold_bytes
  CounterRNG rng{0, 0};
  uint64_t sweep;
  double dmax;

  // The staged atoms are padded with atoms out of every trial's reach to whole blocks of
  // CANDIDATE_ROUNDS rounds of a group, so that the candidate test has no bounds check.
  KOKKOS_INLINE_FUNCTION static int padded_window(int nstage, int group)
  {
    const int block = CANDIDATE_ROUNDS * group;
    return (nstage + block - 1) / block * block;
  }
  // scratch read in every candidate test: the staged atoms (padded for the largest group, a warp)
  // and the groups' candidate lists (and the 27 cells' offsets, indices and counts)
  KOKKOS_INLINE_FUNCTION static size_t hot_bytes(int window_cap, int team, int list_rounds)
  {
    using C = ScratchCarver;
    return StagedAtoms<Real>::bytes(padded_window(window_cap, 32)) + C::bytes<int>(28) + 2 * C::bytes<int>(27) +
           C::bytes<unsigned short>((size_t) list_rounds * team);
  }
  // List rounds for a quarter of the staged atoms and a block (a trial's candidates, within
  // rc + h of a point of the cell, are about 4 pi / 81 = 16 % of its 27 cells' atoms), within
  // 16 KiB of lists per team; `requested` (EngineOptions::checker_list_rounds) > 0 sets them.
  static int list_rounds_for(int window_cap, int team, int group, int requested)
  {
    int rounds = requested > 0 ? requested : (window_cap / 4 + group - 1) / group + CANDIDATE_ROUNDS;
    rounds = std::min(rounds, 8192 / team);
    return std::max(CANDIDATE_ROUNDS, (rounds + CANDIDATE_ROUNDS - 1) / CANDIDATE_ROUNDS * CANDIDATE_ROUNDS);
  }
  // scratch read a few times per trial: the trial positions, states and order keys of the cell's
  // atoms, the neighbour cells' shifts
  static size_t cold_bytes(int cell_cap)
  {
    return 3 * ScratchR::shmem_size(cell_cap) + ScratchI::shmem_size(cell_cap) + ScratchD::shmem_size(3 * 27) +
           Scratch<uint64_t>::shmem_size(cell_cap);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &tm) const { trials<false>(tm); }
  KOKKOS_INLINE_FUNCTION void operator()(TagWarp, const Member &tm) const { trials<true>(tm); }

  template <bool WARP>
  KOKKOS_INLINE_FUNCTION void trials(const Member &tm) const
  {
    const CheckerGrid &g = d.g;
    const int a = tm.league_rank() / teams_per_cell, first = (tm.league_rank() % teams_per_cell) * per_team;
    int c0[3], key;    // key: the global cell, which keys the trials
    const int cell = d.active_cell(colour, a, c0, key);
    if (cell < 0) return;
    const int n = d.count(cell);
    if (first >= n) return;
    const int last = first + per_team < n ? first + per_team : n;
    ScratchCarver carve{(char *) tm.team_scratch(hot_level)
                            .get_shmem_aligned(hot_bytes(window_cap, team, list_rounds), ScratchCarver::ALIGN)};
    StagedAtoms<Real> atoms;
    atoms.carve(carve, padded_window(window_cap, 32));
    int *offset = carve.take<int>(28), *ncell = carve.take<int>(27), *cell_count = carve.take<int>(27);
    unsigned short *list = carve.take<unsigned short>((size_t) list_rounds * team);
    if constexpr (WARP) {
      atoms.to_shared();
      offset = as_shared(offset);
      ncell = as_shared(ncell);
      cell_count = as_shared(cell_count);
      list = as_shared(list);
    }
    const auto &mem = tm.team_scratch(cold_level);
    ScratchR nx(mem, d.cap), ny(mem, d.cap), nz(mem, d.cap);    // trial positions in the cell frame
    ScratchI state(mem, d.cap);
    Scratch<uint64_t> order(mem, d.cap);    // per slot: the key of its place in the decision order
    ScratchD shift(mem, 3 * 27);    // per neighbour cell: its offset times the cell width

    // 1. the 27 cells, the offsets of their atoms in scratch (each thread sums the counts before
    // its cell: a team scan of 27 numbers costs more); the staged atoms; the cell's trials
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, 27), [&](const int w) {
      int off[3];
      const int nc = checker_neighbour(g, c0, w, off);
      ncell[w] = nc;
      cell_count[w] = d.count(nc);
      for (int k = 0; k < 3; k++) shift(3 * w + k) = off[k] * g.w[k];
    });
    tm.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, 28), [&](const int w) {
      int sum = 0;
      for (int v = 0; v < w; v++) sum += cell_count[v];
      offset[w] = sum;
    });
    tm.team_barrier();
    const int group = WARP ? 32 : this->group;
    const int nstage = offset[27];
    // one staged atom per thread (independent loads), its cell found among the 27 offsets
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, padded_window(nstage, group)), [&](const int o) {
      if (o >= nstage) {    // padding: far beyond any trial's reach (its squared distance finite)
        const Real far = Real(1e18);
        atoms.set(o, far, far, far, 0);
        return;
      }
      int w = 0;    // the last cell whose offset is <= o (binary search: 5 steps)
      for (int step = 16; step > 0; step >>= 1)
        if (w + step < 27 && offset[w + step] <= o) w += step;
      const int s = o - offset[w], k = ncell[w] * d.cap + s;
      const double u[3] = {d.sux(k), d.suy(k), d.suz(k)};
      atoms.set(o, (Real) (shift(3 * w) + u[0]), (Real) (shift(3 * w + 1) + u[1]), (Real) (shift(3 * w + 2) + u[2]),
                d.stype(k));
      if (w != 0) return;
      // one of the cell's own atoms (slot s = o): its trial, and whether it stays in the cell. In
      // the cell's frame u_old + disp answers, unless it lies within round-off of a face: then the
      // host's own test (wrapped position, its cell) does.
      const int i = d.atom(k);
      int st = d.mobile(i) ? EVALUATED : NOT_A_TRIAL;
      double u_new[3] = {u[0], u[1], u[2]};
      const CellTrial t = cell_trial(rng, sweep, key, s, dmax);
      order(s) = t.key;    // (every slot has a place in the order, a trial or not)
      if (st == EVALUATED) {
        bool outside = false, near_face = false;
        for (int k = 0; k < 3; k++) {
          u_new[k] = u[k] + t.disp[k];
          const double tol = 1e-9 * g.w[k];
          outside = outside || u_new[k] < -tol || u_new[k] >= g.w[k] + tol;
          near_face = near_face || u_new[k] < tol || u_new[k] >= g.w[k] - tol;
        }
        if (!outside && near_face) {
          double p_new[3] = {d.x(i, 0) + t.disp[0], d.x(i, 1) + t.disp[1], d.x(i, 2) + t.disp[2]};
          if (d.domain) {
            const int global[3] = {d.block.first[0] + c0[0] - 1, d.block.first[1] + c0[1] - 1,
                                   d.block.first[2] + c0[2] - 1};
            outside = !domain_stays(d.block.grid, p_new, global);
          } else {
            int shift[3] = {0, 0, 0}, cn[3];
            wrap_position(p_new, g.lo, g.len, shift);
            outside = checker_cell(g, p_new, cn, u_new) != cell;
          }
        }
        if (outside) st = LEAVES_CELL;
      }
      nx(s) = (Real) u_new[0];
      ny(s) = (Real) u_new[1];
      nz(s) = (Real) u_new[2];
      state(s) = st;
      if (s >= first && s < last) d.trial_state(a * d.cap + s) = st;
    });
    tm.team_barrier();
    // the team of the cell's first trials: each slot's place in the decision order, and by place
    // the slot, its Metropolis uniform and its displacement, so that the decisions read them in
    // order (the displacement drawn again here rather than kept in every team's scratch)
    if (first == 0)
      Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, n), [&](const int s) {
        int b = 0;
        for (int t = 0; t < n; t++) b += cell_trial_before(order(t), t, order(s), s);
        const size_t at = (size_t) a * d.cap + b;
        const double u = cell_acceptance_uniform(rng, sweep, key, s);
        const CellTrial t = cell_trial(rng, sweep, key, s, dmax);
        d.trial_slot(at) = s;
        d.trial_u(at) = u;
        d.trial_log_u(at) = log(u);
        for (int k = 0; k < 3; k++) d.trial_disp(3 * at + k) = t.disp[k];
      });

    // 2. the team's trials against the starting configuration, a group per trial
    const int ngroups = team / group;
    const int my_group = tm.team_rank() / group, lane = tm.team_rank() % group;
    const int list_cap = list_rounds * group, block = CANDIDATE_ROUNDS * group;
    for (int s = first + my_group; s < last; s += ngroups) {
      const Real un[3] = {nx(s), ny(s), nz(s)};
      Real uo[3];
      int itype;
      atoms.load(s, uo, itype);
      double part = 0.0;
      if (state(s) == EVALUATED) {
        const Real cutsq = (Real) row_cutsq(itype);
        const int nt = Pairs::terms(nterms);
        const PairCoeffT<Real> *row = coeff.data() + itype * nt1 * nt;
        // Candidates: the staged atoms within rc + h of the midpoint of the old and new positions
        // (h: half the displacement), which holds every atom within rc of either (triangle
        // inequality), at the cost of one distance instead of two. The margin covers rounding;
        // pair terms beyond the cutoff are zero.
        const Real mid[3] = {(un[0] + uo[0]) / 2, (un[1] + uo[1]) / 2, (un[2] + uo[2]) / 2};
        const Real half_step = real_sqrt(frame_rsq(un, uo)) / 2;
        const Real reach = real_sqrt(cutsq) + half_step;
        const Real reach_sq = reach * reach * (Real(1) + Real(64) * Kokkos::Experimental::epsilon<Real>::value);
        unsigned short *my_list = list + my_group * list_cap;
        int nlisted = 0;
        // pass 2: the listed pair terms, lanes in parallel, each pair's coefficients loaded once
        auto sum_listed = [&]() {
          group_sync(group);
          for (int q = lane; q < nlisted; q += group) {
            const int j = my_list[q];
            if (j == s) continue;
            Real p[3];
            int jtype;
            atoms.load(j, p, jtype);
            const Real rsq_new = frame_rsq(un, p), rsq_old = frame_rsq(uo, p);
            if constexpr (Pairs::any_kind) {
              // in place: a table term finds its values at an offset from itself
              Real e_new, e_old;
              pair_energies<Pairs>(row + jtype * nt, nt, rsq_new, rsq_old, e_new, e_old);
              part += (double) e_new;
              part -= (double) e_old;
            } else {
              const PairCoeffT<Real> pc = row[jtype * nt];
              part += (double) pair_energy<false>(pc, rsq_new);
              part -= (double) pair_energy<false>(pc, rsq_old);
            }
          }
          group_sync(group);    // the list is refilled from its start
          nlisted = 0;
        };
        // pass 1: list the candidates (the trial's own atom too: it is left out above), a block of
        // rounds at once (independent loads and arithmetic). The padding makes every round's
        // atoms staged ones: no bounds test. A list that might not hold the next block is summed
        // first (rarely: it holds a neighbourhood's candidates with room to spare).
        for (int j_block = 0; j_block < nstage; j_block += block) {
          if (nlisted + block > list_cap) sum_listed();
          const int j0 = j_block + lane;
          bool near[CANDIDATE_ROUNDS];
          for (int u = 0; u < CANDIDATE_ROUNDS; u++) {
            Real q[3];
            atoms.position(j0 + u * group, q);
            near[u] = frame_rsq(mid, q) < reach_sq;
          }
          for (int u = 0; u < CANDIDATE_ROUNDS; u++) {
            int added;
            const int slot = group_append(near[u], group, lane, added);
            if (near[u]) my_list[nlisted + slot] = (unsigned short) (j0 + u * group);
            nlisted += added;
          }
        }
        sum_listed();
        part = group_sum(part, group);
      }
      if (lane == 0) d.trial_du(a * d.cap + s) = part;
      // the corrections between this trial and those of the cell's lower slots
      for (int t = lane; t < s; t += group) {
        double corr = 0.0;
        if (state(s) == EVALUATED && state(t) == EVALUATED) {
          Real was_t[3];
          int ttype;
          atoms.load(t, was_t, ttype);
          const Real now_t[3] = {nx(t), ny(t), nz(t)};
          corr = move_correction<Pairs>(&coeff((itype * nt1 + ttype) * Pairs::terms(nterms)), nterms, was_t, now_t,
                                        uo, un, FrameRsq<Real>{});
        }
        d.trial_corr((size_t) a * d.corr_cap + checker_pair_entry(s, t)) = corr;
      }
    }
  }
};

// The second kernel, a team per active cell (on a GPU four warps, which all load the cell's
// trials and write its accepted moves while the first alone walks; elsewhere one thread): the
// cell's decisions, in order, then the accepted moves. Each trial's energy change is its
// evaluated one plus the corrections of the trials accepted before it. The trial kernel has put
// the cell's order, uniforms and displacements by place in the decision order, so that no draw,
// sort or logarithm is left here, and the walk in order is short: place b belongs to lane
// b % group, which alone keeps its running energy change (in scratch, or on CUDA for cells of at
// most 64 trials in two registers per lane; no other lane touches it: no barrier in the walk);
// at place b that lane hands the energy change to the group (a shuffle), every lane makes the
// same decision, and if the trial is accepted each lane adds the corrections to its own later
// places.
template <class DeviceType>
struct CheckerDecideFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  struct TagWarp {};
  using WarpPolicy = Kokkos::TeamPolicy<ExecSpace, TagWarp>;    // whole CUDA warps, known to the compiler
  using Member = typename Policy::member_type;
  template <class T>
  using Scratch = ScratchView<ExecSpace, T>;
  using ScratchD = Scratch<double>;
  using ScratchI = Scratch<int>;
  CheckerData<DeviceType> d;
  Kokkos::View<int *[3], DeviceType> image;
  int colour, group;
  int hot_level, cold_level;   // scratch levels of hot_bytes (the trials) and cold_bytes (corrections)
  double beta;
  // room for the sweep's fullest cell: the scratch arrays' length (the host's room, a smaller
  // margin than the cells' capacity, so that more teams share a multiprocessor)
  int fullest = 0;

  static size_t hot_bytes(int cell_cap)
  {
    return 3 * ScratchD::shmem_size(cell_cap) + 3 * ScratchI::shmem_size(cell_cap);
  }
  static size_t cold_bytes(int cell_cap) { return ScratchD::shmem_size(pair_entries(cell_cap)); }
  KOKKOS_INLINE_FUNCTION static int pair_entries(int n) { return n * (n - 1) / 2; }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &tm) const { decide<false>(tm); }
  KOKKOS_INLINE_FUNCTION void operator()(TagWarp, const Member &tm) const { decide<true>(tm); }

  template <bool WARP>
  KOKKOS_INLINE_FUNCTION void decide(const Member &tm) const
  {
    const CheckerGrid &g = d.g;
    const int group = WARP ? 32 : this->group;
    const int a = tm.league_rank();
    int c0[3], key;
    const int cell = d.active_cell(colour, a, c0, key);
    if (cell < 0) return;
    const int n = d.count(cell);
    if (n == 0) {    // (a cell's sums are set where it is active; those of a domain block's cells that
                     // are not, in its still layers, are cleared by domain_build and domain_set_tried_cells)
      Kokkos::single(Kokkos::PerTeam(tm), [&]() {
        d.du(cell) = 0.0;
        d.accepted(cell) = d.trials(cell) = 0;
      });
      return;
    }
    const auto &hot = tm.team_scratch(hot_level);
    const int m = fullest;
    ScratchD du_run(hot, m), test_u(hot, m), test_log_u(hot, m);    // by place
    ScratchI state(hot, m), slot(hot, m), accepted(hot, m);
    ScratchD corr(tm.team_scratch(cold_level), pair_entries(m));

    const size_t base = (size_t) a * d.cap;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, n), [&](const int b) {
      const int s = d.trial_slot(base + b);
      slot(b) = s;
      du_run(b) = d.trial_du(base + s);
      state(b) = d.trial_state(base + s);
      test_u(b) = d.trial_u(base + b);
      test_log_u(b) = d.trial_log_u(base + b);
      accepted(b) = 0;
    });
    // the corrections, several independent loads per thread in flight
    constexpr int LOADS = 8;
    const int ncorr = n * (n - 1) / 2, nrounds = (ncorr + LOADS - 1) / LOADS;
    const double *from = d.trial_corr.data() + (size_t) a * d.corr_cap;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, nrounds), [&](const int r) {
      double v[LOADS];
      for (int u = 0; u < LOADS; u++) {
        const int e = r + u * nrounds;
        v[u] = e < ncorr ? from[e] : 0.0;
      }
      for (int u = 0; u < LOADS; u++)
        if (r + u * nrounds < ncorr) corr(r + u * nrounds) = v[u];
    });
    tm.team_barrier();

    // the walk: the team's first group (the other threads of a larger team only load and write)
    const int lane = tm.team_rank();
    double du_sum = 0.0;
    long naccepted = 0, trials = 0;
    bool walked = lane >= group;
    if constexpr (WARP) {
      if (!walked && n <= 64) {
        // the same walk with a lane's two places (lane, lane + 32) in registers
        const bool has0 = lane < n, has1 = lane + 32 < n;
        double run0 = has0 ? du_run(lane) : 0.0, run1 = has1 ? du_run(lane + 32) : 0.0;
        const int slot0 = has0 ? slot(lane) : 0, slot1 = has1 ? slot(lane + 32) : 0;
        for (int b = 0; b < n; b++) {
          const int st = state(b);
          if (st == NOT_A_TRIAL) continue;
          trials++;
          if (st == LEAVES_CELL) continue;    // rejected
          const double dU = group_broadcast(b < 32 ? run0 : run1, b & 31, 32);
          if (!metropolis_accept_log(-beta * dU, test_u(b), test_log_u(b))) continue;
          if (lane == (b & 31)) accepted(b) = 1;
          naccepted++;
          du_sum += dU;
          const int sb = slot(b);
          if (has0 && lane > b) run0 += corr(checker_pair_entry(sb, slot0));
          if (has1 && lane + 32 > b) run1 += corr(checker_pair_entry(sb, slot1));
        }
        walked = true;
      }
    }
    // place b's lane (owner), and this lane's first place after b (later)
    for (int b = 0, owner = 0, later = lane; !walked && b < n; b++, owner = owner + 1 == group ? 0 : owner + 1) {
      if (later == b) later += group;
      const int st = state(b);
      if (st == NOT_A_TRIAL) continue;
      trials++;
      if (st == LEAVES_CELL) continue;    // rejected
      const double dU = group_broadcast(lane == owner ? du_run(b) : 0.0, owner, group);
      if (!metropolis_accept_log(-beta * dU, test_u(b), test_log_u(b))) continue;
      if (lane == owner) accepted(b) = 1;
      naccepted++;
      du_sum += dU;
      const int sb = slot(b);
      for (int c = later; c < n; c += group) du_run(c) += corr(checker_pair_entry(sb, slot(c)));
    }
    if (lane == 0) {
      d.du(cell) = du_sum;
      d.accepted(cell) = naccepted;
      d.trials(cell) = trials;
    }
    tm.team_barrier();

    // the accepted moves
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, n), [&](const int b) {
      if (!accepted(b)) return;
      const int s = slot(b);
      const int i = d.atom(cell * d.cap + s);
      const double *disp = d.trial_disp.data() + 3 * (base + b);
      double p_new[3] = {d.x(i, 0) + disp[0], d.x(i, 1) + disp[1], d.x(i, 2) + disp[2]};
      double u[3];
      if (d.domain) {    // a cell of the block, inside the box: LAMMPS wraps what round-off leaves on its face
        for (int k = 0; k < 3; k++) d.x(i, k) = p_new[k];
        d.domain_frame(cell, p_new, u);
      } else {
        int shift[3] = {0, 0, 0};
        wrap_position(p_new, g.lo, g.len, shift);
        for (int k = 0; k < 3; k++) {
          d.x(i, k) = p_new[k];
          if (shift[k]) image(i, k) += shift[k];    // (rare: no load of the image otherwise)
        }
        int c[3];
        checker_cell(g, p_new, c, u);    // the same cell: moves that leave it are rejected
      }
      d.sux(cell * d.cap + s) = u[0];
      d.suy(cell * d.cap + s) = u[1];
      d.suz(cell * d.cap + s) = u[2];
    });
  }
};

}    // namespace kk
}    // namespace gpumc
