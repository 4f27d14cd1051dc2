// Trial moves of GPUMC: how each one is drawn from the counter-based random numbers and how it
// is accepted. The one definition for every style and backend, so that a host chain and a
// device chain with the same seed make the same proposals.
//
// Balance. Every move is its own inverse with a symmetric proposal (a uniform displacement in
// a cube of half-width d; a uniform step in ln V, or in each box side), so Metropolis acceptance
// min(1, pi(new)/pi(old)) gives detailed balance with respect to
//   NVT: pi(x) ~ exp(-U(x)/kT)
//   NPT: pi(s, V) ~ V^N exp(-(U + P V)/kT) in scaled coordinates s,
// with the Jacobian of the volume proposal folded in (volume_log_ratio). Proposals that leave
// the allowed region (a box side shorter than twice the cutoff) are rejected: pi = 0 there.
// The step sizes d and dV adapt only while tuning is on (equilibration): a step size that
// depends on the chain's history breaks balance.
#pragma once

#include "gpumc_portability.h"
#include "gpumc_rng.h"

#include <cmath>
#include <cstdint>

namespace gpumc {

// Trials and accepted moves of a run of moves (every backend's sums).
struct MoveCounts {
  uint64_t trials = 0, accepted = 0;
};

// ---- translations: draw (move, 0) picks the atom and the displacement, (move, 1) the test

struct Translation {
  uint64_t pick;      // index into the list of movable atoms
  double disp[3];     // displacement, each coordinate uniform in [-dmax, dmax]
};

// Periodic wrap of a position into [lo, lo + len), counting the images crossed; positions on
// the far side of a face by rounding end up on the face.
GPUMC_INLINE void wrap_position(double pos[3], const double lo[3], const double len[3], int shift[3])
{
  for (int d = 0; d < 3; d++) {
    const double images = floor((pos[d] - lo[d]) / len[d]);
    if (images != 0.0) {
      pos[d] -= images * len[d];
      shift[d] += (int) images;
    }
    if (pos[d] < lo[d]) {
      pos[d] += len[d];
      shift[d]--;
    } else if (pos[d] >= lo[d] + len[d]) {
      pos[d] -= len[d];
      shift[d]++;
    }
    if (pos[d] < lo[d] || pos[d] >= lo[d] + len[d]) pos[d] = lo[d];
  }
}

GPUMC_INLINE Translation propose_translation(const CounterRNG &rng, uint64_t move,
                                             uint64_t nmobile, double dmax)
{
  const auto r = rng.bits(move, 0);
  Translation t;
  t.pick = uniform_index(r[0], nmobile);
  t.disp[0] = dmax * (2.0 * uniform01(r[1]) - 1.0);
  t.disp[1] = dmax * (2.0 * uniform01(r[2]) - 1.0);
  t.disp[2] = dmax * (2.0 * uniform01(r[3]) - 1.0);
  return t;
}

// Metropolis test of a translation with energy change dU at inverse temperature beta. The
// uniform number is drawn only when the move is not accepted outright. NaN or +inf dU
// (an overlap) is rejected.
GPUMC_INLINE bool accept_translation(const CounterRNG &rng, uint64_t move, double beta, double dU)
{
  const double log_ratio = -beta * dU;
  if (log_ratio >= 0.0) return true;
  return uniform01(rng.bits(move, 1)[0]) < exp(log_ratio);
}

// ---- volume moves: draw (move, 0) gives the step (words 0-2) and the test (word 3)

enum VolumeScheme : int {
  VOLUME_LOGV = 0,     // isotropic scaling, uniform step in ln V (default)
  VOLUME_SIDES = 1     // each box side stepped independently, uniform in L (the seed study's)
};

// New box sides for volume trial `move`; returns the uniform number of its acceptance test.
GPUMC_INLINE double propose_volume(const CounterRNG &rng, uint64_t move, int scheme, double step,
                                   const double len[3], double new_len[3])
{
  const auto r = rng.bits(move, 0);
  if (scheme == VOLUME_LOGV) {
    const double scale = exp(step * (2.0 * uniform01(r[0]) - 1.0) / 3.0);
    for (int d = 0; d < 3; d++) new_len[d] = len[d] * scale;
  } else {
    for (int d = 0; d < 3; d++) new_len[d] = len[d] + step * (2.0 * uniform01(r[d]) - 1.0);
  }
  return uniform01(r[3]);
}

// log of the acceptance ratio of a volume move: -[dU + P dV]/kT + n_jacobian ln(V'/V), with
// n_jacobian = N for a walk uniform in the box sides (scaled coordinates bring V^N) and N + 1
// for a walk uniform in ln V (dV = V d ln V adds one power of V). pressure_energy is P in
// energy/volume units (LAMMPS: P / nktv2p). dU includes the change of the tail correction.
GPUMC_INLINE double volume_log_ratio(double beta, double dU, double pressure_energy, double v_old,
                                     double v_new, double natoms, int scheme)
{
  const double n_jacobian = scheme == VOLUME_LOGV ? natoms + 1.0 : natoms;
  return -beta * (dU + pressure_energy * (v_new - v_old)) + n_jacobian * log(v_new / v_old);
}

// log of the acceptance ratio of exchanging the configurations (energies u_a, u_b) of two replicas
// at inverse temperatures beta_a and beta_b (parallel tempering: the product of the two
// Boltzmann factors after the exchange over that before).
GPUMC_INLINE double replica_swap_log_ratio(double beta_a, double beta_b, double u_a, double u_b)
{
  return (beta_a - beta_b) * (u_a - u_b);
}

GPUMC_INLINE bool metropolis_accept(double log_ratio, double u)
{
  return log_ratio >= 0.0 || u < exp(log_ratio);
}

// The decision of metropolis_accept(log_ratio, u) when log u is known too (drawn ahead of the
// move): u < exp(log_ratio) is log u < log_ratio, so the exponential is only needed when the two
// are within a margin far above the round-off of exp and log.
GPUMC_INLINE bool metropolis_accept_log(double log_ratio, double u, double log_u)
{
  if (log_ratio >= 0.0) return true;
  const double margin = 1e-9 * (1.0 + fabs(log_u));    // infinite for u = 0: decided exactly
  if (log_ratio < log_u - margin) return false;
  if (log_ratio > log_u + margin) return true;
  return metropolis_accept(log_ratio, u);
}

// ---- Widom test insertions: draw (block, k) places insertion k of a block

GPUMC_INLINE void widom_point(const CounterRNG &rng, uint64_t block, uint64_t k, const double lo[3],
                              const double len[3], double pos[3])
{
  const auto r = rng.bits(block, k);
  for (int d = 0; d < 3; d++) pos[d] = lo[d] + len[d] * uniform01(r[d]);
}

// ---- step-size adaptation (equilibration only)

inline double tuned_step(double step, double ratio, double target, double step_max)
{
  double factor = (ratio + 0.01) / (target + 0.01);
  if (factor < 0.5) factor = 0.5;
  if (factor > 1.5) factor = 1.5;
  const double next = step * factor;
  return next < step_max ? next : step_max;
}

}    // namespace gpumc
