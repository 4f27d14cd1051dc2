// Kernels of the Kokkos engine's sequential translation chain: batches of moves evaluated in
// parallel, their pairwise corrections, and the team that decides them in order.
#pragma once

#include "gpumc_batch_kokkos.h"
#include "gpumc_ewald_kokkos.h"
#include "gpumc_team_kokkos.h"

namespace gpumc {
namespace kk {

// ---- the sequential translation chain, evaluated speculatively in batches ----
//
// Moves first.. of the chain run in batches of B. A first kernel evaluates every move of a batch
// at once (a team per move) against the configuration at the start of the batch; a second works
// out, for each pair of moves a < m of the batch, the correction that move a, if accepted, makes to
// move m's energy change: the pair terms between the two atoms' old and new positions (four terms,
// zero beyond the cutoff), or NaN when they move the same atom (with an Ewald sum the kernel that
// adds the coupling through S works these out: EwaldBatchFinishFunctor); a third, one team, then
// decides.
// A move's energy change differs from its evaluation only through the moves of the batch accepted
// before it: a move that no earlier one may change is decided as evaluated, any other with the
// corrections of the earlier accepted ones added (once those are decided), and a move whose atom
// moved earlier in the batch (NaN) is evaluated again from the current configuration. Every
// decision is therefore the strictly sequential chain's, made with energy changes equal to it up
// to round-off in the order of the sums (as between host and device anyway), and the chain does
// not depend on B.

// A trial translation of the chain: the atom, its old and new position (wrapped into the box) and
// the periodic images the move crosses.
struct ChainTrial {
  int atom, type;
  int slot;    // the atom's slot in the cell list when drawn
  double p_old[3], p_new[3];
  int shift[3];
};

// Trial `move` of the chain drawn against the positions held in the cell list.
template <class DeviceType>
KOKKOS_INLINE_FUNCTION ChainTrial chain_trial(const CellData<DeviceType> &c,
                                              const Kokkos::View<int *, DeviceType> &mobile, const CounterRNG &rng,
                                              uint64_t move, uint64_t nmobile, double dmax, const double lo[3],
                                              const double len[3])
{
  const Translation t = propose_translation(rng, move, nmobile, dmax);
  ChainTrial tr;
  tr.atom = mobile(t.pick);
  tr.type = c.type(tr.atom);
  const int k = tr.slot = c.cell_of(tr.atom) * c.g.cap + c.slot_of(tr.atom);
  tr.p_old[0] = c.sx(k);
  tr.p_old[1] = c.sy(k);
  tr.p_old[2] = c.sz(k);
  for (int d = 0; d < 3; d++) {
    tr.p_new[d] = tr.p_old[d] + t.disp[d];
    tr.shift[d] = 0;
  }
  wrap_position(tr.p_new, lo, len, tr.shift);
  return tr;
}

// Energy change of a trial translation, summed by a team over the cells around the old and new
// positions: one pass over the union of their windows when the two cells are adjacent, else the
// new window and then the old one. Threads share the window's cells, several per cell when the
// team outnumbers them (each thread's loop over atoms is then shorter). Every thread of the team
// gets the sum.
template <class Pairs, class DeviceType, class Member>
KOKKOS_INLINE_FUNCTION double team_energy_change(const Member &team, const CellData<DeviceType> &c,
                                                 const double lo[3], const double len[3], const ChainTrial &tr)
{
  const Grid &g = c.g;
  int c_old[3], c_new[3], c_lo[3], span[3];
  cell_coords(g, lo, len, tr.p_old, c_old);
  cell_coords(g, lo, len, tr.p_new, c_new);
  bool adjacent = true;
  for (int d = 0; d < 3; d++) {
    c_lo[d] = c_old[d] < c_new[d] ? c_old[d] : c_new[d];
    span[d] = c_old[d] < c_new[d] ? c_new[d] - c_old[d] : c_old[d] - c_new[d];
    adjacent = adjacent && span[d] <= 1;
  }
  const int nterms = Pairs::terms(c.nterms);
  const PairCoeff *row = c.coeff.data() + tr.type * c.nt1 * nterms;
  const double cutsq = c.row_cutsq(tr.type);
  const int i = tr.atom;
  double dU = 0.0;
  for (int pass = 0; pass < (adjacent ? 1 : 2); pass++) {
    const int *c0 = adjacent ? c_lo : (pass == 0 ? c_new : c_old);
    const int zero[3] = {0, 0, 0};
    const int *sp = adjacent ? span : zero;
    const int nw[3] = {2 * REACH + 1 + sp[0], 2 * REACH + 1 + sp[1], 2 * REACH + 1 + sp[2]};
    const int ncells = nw[0] * nw[1] * nw[2];
    const int per_cell = team.team_size() > ncells ? team.team_size() / ncells : 1;
    const bool with_new = adjacent || pass == 0, with_old = adjacent || pass == 1;
    double part = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, ncells * per_cell),
        [&](const int item, double &acc) {
          double sh[3];
          const int cell = window_cell_flat(g, len, c0, nw, item / per_cell, sh);
          const int base = cell * g.cap;
          for (int s = item % per_cell; s < c.count(cell); s += per_cell) {
            const int k = base + s;
            if (c.sid(k) == i) continue;
            const double xj = c.sx(k) + sh[0], yj = c.sy(k) + sh[1], zj = c.sz(k) + sh[2];
            const PairCoeff *pc = row + c.stype(k) * nterms;
            if (with_new) {
              const double dx = tr.p_new[0] - xj, dy = tr.p_new[1] - yj, dz = tr.p_new[2] - zj;
              const double rsq = dx * dx + dy * dy + dz * dz;
              if (rsq < cutsq) acc += pair_energy<Pairs>(pc, nterms, rsq);
            }
            if (with_old) {
              const double dx = tr.p_old[0] - xj, dy = tr.p_old[1] - yj, dz = tr.p_old[2] - zj;
              const double rsq = dx * dx + dy * dy + dz * dz;
              if (rsq < cutsq) acc -= pair_energy<Pairs>(pc, nterms, rsq);
            }
          }
        },
        part);
    dU += part;
  }
  return dU;
}

// Evaluation of moves first..first+count-1, a team per move.
template <class DeviceType, class Pairs>
struct ChainEvaluateFunctor {
  using Member = typename Kokkos::TeamPolicy<typename DeviceType::execution_space>::member_type;
  CellData<DeviceType> c;
  Kokkos::View<int *, DeviceType> mobile;
  BatchData<DeviceType> b;
  CounterRNG rng{0, 0};
  double dmax;
  uint64_t launched_first, nmobile;
  int launched_count = 0;
  int64_t end = -1;    // >= 0: the batch starts where the last one ended (BatchData::span)
  EwaldData<DeviceType> ew;    // nk 0: no Ewald sum

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    if (c.counter(DC_STOPPED)) return;
    const int k = team.league_rank();
    uint64_t first;
    int count;
    b.span(launched_first, launched_count, end, first, count);
    if (k >= count) return;
    double lo[3], len[3];
    c.box(DS_LO, DS_LEN, lo, len);
    const ChainTrial tr = chain_trial(c, mobile, rng, first + k, nmobile, dmax, lo, len);
    const double dU = team_energy_change<Pairs>(team, c, lo, len, tr);    // (E_recip's: EwaldBatchFunctor)
    if (ew.nk) team_phases(team, ew, k, tr.p_old, tr.p_new, lo, len);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      int cc[3];
      cell_coords(c.g, lo, len, tr.p_new, cc);
      b.index(k, 0) = tr.atom;
      b.index(k, 1) = tr.type;
      b.index(k, 2) = tr.slot;
      b.index(k, 3) = cell_index(c.g, cc);
      for (int d = 0; d < 3; d++) {
        b.positions(k, d) = tr.p_old[d];
        b.positions(k, 3 + d) = tr.p_new[d];
        b.shift(k, d) = tr.shift[d];
      }
      const double u = uniform01(rng.bits(first + k, 1)[0]);    // accept_translation's test number
      b.du_u(k, 0) = dU;
      b.du_u(k, 1) = u;
      b.du_u(k, 2) = log(u);
    });
  }
};

// Decisions of moves first..first+count-1 in chain order (see above), by one team: a CUDA warp or
// one thread, holding the batch in scratch memory. A move's energy change is its evaluated one
// plus the corrections of the earlier moves linked to it (ChainCorrectionFunctor) that were
// accepted as evaluated, so it can be decided as soon as those are decided, not only in turn:
//  1. Rounds decide, in chunks of a lane per move in chain order, every undecided move whose
//     linked moves are decided. The first round decides every move without links (the usual case
//     in a large system) and the moves linked only to moves of earlier chunks; rounds repeat until
//     the lowest undecided move is one that may need evaluating again.
//  2. Such a move (an earlier move of the batch moves its atom, or its energy change is NaN) is
//     decided alone once every move before it is decided. A NaN (its atom moved) has it evaluated
//     again from the current configuration, after the accepted moves before it are written; if it
//     is then accepted, its corrections to the later moves come from its actual positions, and the
//     later moves decided so far are decided again.
//  3. The accepted moves are written to the cell list in chain order: between two moves that
//     change cells (which move another atom's slot: lane 0 alone) the lanes write the others at
//     once. A move into a full cell stops the chain before it (the host makes room and resumes).
// Every decision is the one of the strictly sequential chain: a move is decided with the energy
// change it has after every earlier move, whatever the order in which the moves are decided.
template <class DeviceType, class Pairs>
struct ChainCommitFunctor {
  using ExecSpace = typename DeviceType::execution_space;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  template <class T>
  using Scratch = ScratchView<ExecSpace, T>;
  // moves of an Ewald batch per lane of the deciding team (a warp on a GPU, one thread on a host)
  static constexpr int EWALD_SLOTS =
      Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible ? EWALD_BATCH_MAX : EWALD_BATCH_MAX / 32;
  CellData<DeviceType> c;
  Kokkos::View<int *, DeviceType> mobile;
  BatchData<DeviceType> b;
  CounterRNG rng{0, 0};
  double beta, dmax;
  uint64_t launched_first, nmobile;
  int launched_count;
  EwaldData<DeviceType> ew;    // nk 0: no Ewald sum
  // >= 0 (with an Ewald sum): the batch starts where the last one ended, and ends before a move
  // that must be evaluated again (BatchData::span)
  int64_t end = -1;

  // per move: not decided yet, rejected, accepted as evaluated, accepted after evaluating it again
  // (positions as then)
  enum : int { UNDECIDED = -1, REJECTED = 0, ACCEPTED = 1, ACCEPTED_AGAIN = 2 };

  // (ewald: the batch's corrections too, for decisions in order)
  static size_t scratch_bytes(int batch, bool ewald)
  {
    const int pairs = batch * (batch - 1) / 2;
    return Scratch<int>::shmem_size(4 * batch) + Scratch<int>::shmem_size(3 * batch) +
        2 * Scratch<int>::shmem_size(batch) + Scratch<unsigned>::shmem_size(CHAIN_WORDS * batch) +
        Scratch<unsigned>::shmem_size(2 * CHAIN_WORDS) + Scratch<double>::shmem_size(6 * batch) +
        5 * Scratch<double>::shmem_size(batch) + (ewald ? Scratch<double>::shmem_size(pairs > 0 ? pairs : 1) : 0);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &team) const
  {
    const int lane = team.team_rank(), group = team.team_size();    // (group divides 32)
    if (c.counter(DC_STOPPED)) return;    // (the last batch decided stays pending: EwaldData)
    // the moves whose change of S is to be applied (EwaldData::applied): none unless written here
    if (ew.nk) {
      for (int k = lane; k < b.size(); k += group) ew.applied(ew.buffer, k) = 0.0;
      if (lane == 0) ew.pending() = 1 + ew.buffer;
    }
    uint64_t first;
    int count;
    b.span(launched_first, launched_count, end, first, count);
    const Grid &g = c.g;
    const auto &mem = team.team_scratch(0);
    // the batch as evaluated (a move evaluated again: as then); the slot (index 2) follows the
    // atom when a move between cells makes it fill the slot that move's atom left
    Scratch<int> index(mem, 4 * count), sh(mem, 3 * count);
    Scratch<int> alone(mem, count), accepted(mem, count);    // alone: decided by itself (step 2)
    Scratch<unsigned> links(mem, CHAIN_WORDS * count);
    // sets of moves (as links): words 0.. decided, words CHAIN_WORDS.. accepted as evaluated
    Scratch<unsigned> sets(mem, 2 * CHAIN_WORDS);
    Scratch<double> pos(mem, 6 * count);
    // evaluated energy change (a move evaluated again: as then), decided energy change, extra
    // corrections (from moves evaluated again), uniform number of the test and its log
    Scratch<double> du(mem, count), decided(mem, count), extra(mem, count), u(mem, count), log_u(mem, count);
    double lo[3], len[3];
    c.box(DS_LO, DS_LEN, lo, len);
    // (every load of a move before any store: scratch and global memory may alias for the
    // compiler, which would otherwise wait for each load in turn)
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int k) {
      int ix[4], shift[3];
      double p[6], d[3];
      unsigned lk[2 * CHAIN_WORDS];
      for (int i = 0; i < 4; i++) ix[i] = b.index(k, i);
      for (int i = 0; i < 6; i++) p[i] = b.positions(k, i);
      for (int i = 0; i < 3; i++) shift[i] = b.shift(k, i);
      for (int i = 0; i < 3; i++) d[i] = b.du_u(k, i);
      // (with an Ewald sum the links are not written, and not used: every pair is coupled)
      for (int w = 0; w < 2 * CHAIN_WORDS; w++) lk[w] = b.links(k, w);
      for (int i = 0; i < 4; i++) index(4 * k + i) = ix[i];
      for (int i = 0; i < 6; i++) pos(6 * k + i) = p[i];
      for (int i = 0; i < 3; i++) sh(3 * k + i) = shift[i];
      unsigned same = 0;
      for (int w = 0; w < CHAIN_WORDS; w++) {
        links(CHAIN_WORDS * k + w) = lk[w];
        same |= lk[CHAIN_WORDS + w];
      }
      alone(k) = same != 0;
      du(k) = d[0];
      extra(k) = 0.0;
      u(k) = d[1];
      log_u(k) = d[2];
      accepted(k) = UNDECIDED;
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * CHAIN_WORDS), [&](const int w) { sets(w) = 0u; });
    team.team_barrier();
    unsigned *const done = &sets(0), *const as_evaluated = &sets(CHAIN_WORDS);

    // the first of moves from..to-1 for which pred holds (to if none), on every lane
    auto first_where = [&](int from, int to, auto pred) {
      for (int base = from; base < to; base += group) {
        const int k = base + lane;
        const unsigned hits = group_ballot(k < to && pred(k), group);
        if (hits) return base + lowest_bit(hits);
      }
      return to;
    };
    auto undecided = [&](int k) { return accepted(k) == UNDECIDED; };
    // marks move k decided (and accepted as evaluated if it was), on one lane
    auto mark = [&](int k, int state) {
      done[k / 32] |= 1u << (k % 32);
      if (state == ACCEPTED) as_evaluated[k / 32] |= 1u << (k % 32);
    };
    // move m's energy change after the earlier moves, into dU; false if a move linked to it is
    // undecided. The corrections are summed in chain order, loaded four at a time.
    auto energy_change = [&](int m, double &dU) {
      for (int w = 0; w < CHAIN_WORDS; w++)
        if (links(CHAIN_WORDS * m + w) & ~done[w]) return false;
      double sum = 0.0;
      for (int w = 0; w < CHAIN_WORDS; w++)
        for (unsigned bits = links(CHAIN_WORDS * m + w) & as_evaluated[w]; bits;) {
          double x[4];
          int n = 0;
          for (; n < 4 && bits; n++, bits &= bits - 1u) x[n] = b.correction(32 * w + lowest_bit(bits), m);
          for (int j = 0; j < n; j++) sum += x[j];
        }
      dU = du(m) + extra(m) + sum;
      return true;
    };
    // energy change and count of the accepted moves before `end`, on every lane
    auto totals = [&](int end, double &energy, double &naccepted) {
      energy = naccepted = 0.0;
      for (int a = lane; a < end; a += group)
        if (accepted(a) > REJECTED) {
          energy += decided(a);
          naccepted += 1.0;
        }
      energy = group_sum(energy, group);
      naccepted = group_sum(naccepted, group);
    };
    // whether move a changes cells: its new cell against the cell of its slot
    auto changes_cell = [&](int a) { return index(4 * a + 3) != index(4 * a + 2) / g.cap; };
    // move a's atom at its new position in the cell list's slot `slot`, its images updated
    auto place = [&](int a, int slot) {
      c.sx(slot) = pos(6 * a + 3);
      c.sy(slot) = pos(6 * a + 4);
      c.sz(slot) = pos(6 * a + 5);
      for (int d = 0; d < 3; d++)
        if (sh(3 * a + d)) c.image(index(4 * a), d) += sh(3 * a + d);
    };
    // the accepted moves before `end` are written: their changes of S are to be applied
    auto record_written = [&](int end) {
      if (ew.nk)
        for (int a = lane; a < end; a += group)
          ew.applied(ew.buffer, a) = accepted(a) > REJECTED ? ew.charge(index(4 * a + 1)) : 0.0;
    };
    // writes the accepted moves from..to-1 (all decided) to the cell list in chain order; false if
    // the chain stopped before one of them (its counters then hold the moves before it)
    auto write_moves = [&](int from, int to) {
      for (int next = from;;) {
        // the first accepted move at or after next that changes cells (to if none)
        const int cross = first_where(next, to, [&](int a) { return accepted(a) > REJECTED && changes_cell(a); });
        // the moves within their cells before it, at their slots
        for (int a = next + lane; a < cross; a += group)
          if (accepted(a) > REJECTED) place(a, index(4 * a + 2));
        group_sync(group);
        if (cross == to) return true;
        const int i = index(4 * cross), slot_from = index(4 * cross + 2), cell_from = slot_from / g.cap;
        // (both counts loaded at once: the cells differ)
        const int cell_new = index(4 * cross + 3), count_new = c.count(cell_new), count_from = c.count(cell_from);
        if (count_new >= g.cap) {    // a full destination cell: stop before this move
          double energy, naccepted;
          totals(cross, energy, naccepted);
          record_written(cross);
          if (lane == 0) {
            c.counter(DC_STOPPED) = 1;
            c.counter(DC_STOP_MOVE) = (long) (first + cross);
            c.counter(DC_STOP_KIND) = 0;
            c.scalar(DS_ENERGY) += energy;
            c.counter(DC_TRANS_ACCEPTED) += (long) naccepted;
          }
          return false;
        }
        int filler = -1;    // the atom that fills the slot atom i leaves
        if (lane == 0) {
          // leave the old cell (its last atom fills the hole), join the new one
          const int last = cell_from * g.cap + count_from - 1;
          if (slot_from != last) {
            filler = c.sid(last);
            c.sx(slot_from) = c.sx(last);
            c.sy(slot_from) = c.sy(last);
            c.sz(slot_from) = c.sz(last);
            c.sid(slot_from) = filler;
            c.stype(slot_from) = c.stype(last);
            c.slot_of(filler) = slot_from - cell_from * g.cap;
          }
          c.count(cell_from) = last - cell_from * g.cap;
          c.count(cell_new) = count_new + 1;
          c.cell_of(i) = cell_new;
          c.slot_of(i) = count_new;
          const int slot = cell_new * g.cap + count_new;
          c.sid(slot) = i;
          c.stype(slot) = index(4 * cross + 1);
          place(cross, slot);
        }
        filler = group_broadcast(filler, 0, group);
        for (int m = cross + 1 + lane; m < count; m += group)
          if (index(4 * m) == filler) index(4 * m + 2) = slot_from;
        group_sync(group);
        next = cross + 1;
      }
    };

    // the batch's moves before `stop` are decided and written: their totals, and where the next
    // batch starts
    auto finish = [&](int stop) {
      record_written(stop);
      double energy, naccepted;
      totals(stop, energy, naccepted);
      if (lane == 0) {
        c.scalar(DS_ENERGY) += energy;
        c.counter(DC_TRANS_ACCEPTED) += (long) naccepted;
        if (end >= 0) b.next() = (long) (first + stop);
      }
    };

    // With an Ewald sum every pair of moves is linked through S: the moves are decided one after
    // another, each accepted one adding its corrections (EwaldData::pair_correction, copied to
    // scratch) to the energy changes of the later ones, in chain order as energy_change sums
    // them. A NaN (an earlier accepted move moved its atom, or atoms put on top of each other)
    // ends the batch before its move, which starts the next one. A lane holds the energy changes
    // of moves lane, lane + group, ... in registers: a decision is the owner's broadcast, the same
    // test on every lane and the lanes' additions.
    if (ew.nk && end >= 0) {
      const int pairs = count * (count - 1) / 2;
      Scratch<double> corr(mem, pairs > 0 ? pairs : 1);
      // (LOADS loads per lane before their stores)
      constexpr int LOADS = 32;
      for (int base = 0; base < pairs; base += LOADS * group) {
        double v[LOADS];
        for (int i = 0; i < LOADS; i++) {
          const int p = base + lane + i * group;
          v[i] = p < pairs ? ew.pair_correction(p) : 0.0;
        }
        for (int i = 0; i < LOADS; i++) {
          const int p = base + lane + i * group;
          if (p < pairs) corr(p) = v[i];
        }
      }
      if (group * EWALD_SLOTS < count || group > 32) Kokkos::abort("GPUMC: an Ewald batch larger than its deciding team holds");
      // per slot s of the lane (move lane + group s): the energy change as evaluated, and the
      // corrections of the accepted earlier moves summed in chain order
      double evaluated[EWALD_SLOTS], corrections[EWALD_SLOTS];
      for (int s = 0; s < EWALD_SLOTS; s++) {
        const int m = lane + group * s;
        evaluated[s] = m < count ? du(m) + extra(m) : 0.0;
        corrections[s] = 0.0;
      }
      group_sync(group);
      unsigned accepted_lanes[EWALD_SLOTS] = {};    // per slot: bit `owner` if move group s + owner was accepted
      int stop = count;    // the move before which the batch ends
GPUMC_UNROLL
      for (int s = 0; s < EWALD_SLOTS; s++)
        for (int owner = 0; owner < group && stop == count; owner++) {
          const int k = group * s + owner;
          if (k >= count) break;
          // the later moves' corrections from move k, loaded before its test
          double from_k[EWALD_SLOTS];
GPUMC_UNROLL
          for (int r = 0; r < EWALD_SLOTS; r++) {
            const int m = lane + group * r;
            from_k[r] = m > k && m < count ? corr(m * (m - 1) / 2 + k) : 0.0;
          }
          // move k's energy change from its owner; every lane tests it alike (no divergence)
          const double dU = group_broadcast(evaluated[s] + corrections[s], owner, group);
          const int verdict = dU != dU && k > 0 ? 2 : (metropolis_accept_log(-beta * dU, u(k), log_u(k)) ? 1 : 0);
          if (verdict == 2) {
            stop = k;
          } else if (verdict == 1) {
            accepted_lanes[s] |= 1u << owner;
GPUMC_UNROLL
            for (int r = 0; r < EWALD_SLOTS; r++)
              if (lane + group * r > k) corrections[r] += from_k[r];
          }
        }
      for (int s = 0; s < EWALD_SLOTS; s++) {
        const int m = lane + group * s;
        if (m < stop) {
          accepted(m) = (accepted_lanes[s] >> lane) & 1u ? ACCEPTED : REJECTED;
          decided(m) = evaluated[s] + corrections[s];
        }
      }
      group_sync(group);
      if (!write_moves(0, stop)) return;
      finish(stop);
      return;
    }

    int written = 0;    // the accepted moves before this one are in the cell list
    for (int open = first_where(0, count, undecided); open < count; open = first_where(open, count, undecided)) {
      if (!alone(open)) {
        // a round over the undecided moves up to the next one to be decided alone, in chunks
        // of a lane per move (whole words of the sets)
        const int end = first_where(open + 1, count, [&](int k) { return alone(k) != 0; });
        for (int base = open - open % group; base < end; base += group) {
          const int m = base + lane;
          int state = UNDECIDED;
          double dU = 0.0;
          if (m >= open && m < end && accepted(m) == UNDECIDED && energy_change(m, dU)) {
            if (dU != dU)
              alone(m) = 1;    // (atoms put on top of each other: evaluated again in turn)
            else
              state = metropolis_accept_log(-beta * dU, u(m), log_u(m)) ? ACCEPTED : REJECTED;
          }
          const unsigned now_done = group_ballot(state != UNDECIDED, group) << (base % 32);
          const unsigned now_as_evaluated = group_ballot(state == ACCEPTED, group) << (base % 32);
          group_sync(group);    // (every lane has read the sets)
          if (state != UNDECIDED) {
            accepted(m) = state;
            decided(m) = dU;
          }
          if (lane == 0) {
            done[base / 32] |= now_done;
            as_evaluated[base / 32] |= now_as_evaluated;
          }
          group_sync(group);
        }
        continue;
      }
      // decided alone: every move before it is decided
      const int k = open;
      double dU;
      energy_change(k, dU);
      const bool again = dU != dU;    // (NaN: its atom moved, or atoms were put on top of each other)
      ChainTrial tr;
      if (again) {
        if (!write_moves(written, k)) return;    // the evaluation reads the cell list
        written = k;
        tr = chain_trial(c, mobile, rng, first + k, nmobile, dmax, lo, len);
        dU = team_energy_change<Pairs>(team, c, lo, len, tr);
      }
      const bool accept = metropolis_accept_log(-beta * dU, u(k), log_u(k));
      const int state = accept ? (again ? ACCEPTED_AGAIN : ACCEPTED) : REJECTED;
      group_sync(group);    // (every lane has read this move's entries)
      if (lane == 0) {
        accepted(k) = state;
        decided(k) = dU;
        mark(k, state);
      }
      if (state == ACCEPTED_AGAIN) {
        if (lane == 0) {
          int cc[3];
          cell_coords(g, lo, len, tr.p_new, cc);
          index(4 * k + 2) = tr.slot;
          index(4 * k + 3) = cell_index(g, cc);
          for (int d = 0; d < 3; d++) {
            pos(6 * k + d) = tr.p_old[d];
            pos(6 * k + 3 + d) = tr.p_new[d];
            sh(3 * k + d) = tr.shift[d];
          }
          // the later moves are decided again
          for (int w = 0; w < CHAIN_WORDS; w++) {
            const int keep = k + 1 - 32 * w;    // bits of moves up to k
            const unsigned upto = keep >= 32 ? ~0u : (keep <= 0 ? 0u : (1u << keep) - 1u);
            done[w] &= upto;
            as_evaluated[w] &= upto;
          }
        }
        // its corrections to the later moves, from its actual positions (NaN for its own atom,
        // whose later moves are decided alone anyway)
        const int nterms = Pairs::terms(c.nterms);
        const PairCoeff *row = c.coeff.data() + tr.type * c.nt1 * nterms;
        for (int m = k + 1 + lane; m < count; m += group) {
          extra(m) += index(4 * m) == tr.atom
              ? Kokkos::Experimental::quiet_NaN<double>::value
              : move_correction<Pairs>(row + index(4 * m + 1) * nterms, nterms, tr.p_old, tr.p_new, &pos(6 * m),
                                &pos(6 * m + 3), NearestImageRsq{len});
          accepted(m) = UNDECIDED;
        }
      }
      group_sync(group);
    }
    if (!write_moves(written, count)) return;
    finish(count);
  }
};

}    // namespace kk
}    // namespace gpumc
