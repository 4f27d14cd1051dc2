// Kernels of the Kokkos engine's volume moves: propose, accept and commit (the trial's energy is
// the energy kernel's, gpumc_energy_kokkos.h).
#pragma once

#include "gpumc_device_state_kokkos.h"

namespace gpumc {
namespace kk {

// A volume trial in four kernels around the trial's energy: propose (one thread), then the energy
// of the scaled positions (PairEnergyFunctor, which scales them as it gathers its copy of them),
// accept (one thread), commit (every atom). Each reads the trial's state from device memory.
template <class DeviceType>
struct VolumeFunctor {
  struct TagPropose {};
  struct TagAccept {};
  struct TagCommit {};
  CellData<DeviceType> c;
  CounterRNG rng{0, 0};
  uint64_t move;
  int scheme;
  double step, min_side, beta, pressure_energy, natoms;
  double tail, self;    // tail correction times V, and the self energies (PairTable)

  KOKKOS_INLINE_FUNCTION void operator()(TagPropose, const int) const
  {
    c.counter(DC_TRIAL_ACTIVE) = 0;
    c.counter(DC_TRIAL_ACCEPTED) = 0;
    if (c.counter(DC_STOPPED)) return;
    const double len[3] = {c.scalar(DS_LEN), c.scalar(DS_LEN + 1), c.scalar(DS_LEN + 2)};
    double new_len[3];
    c.scalar(DS_TRIAL_U) = propose_volume(rng, move, scheme, step, len, new_len);
    bool inside = true, fits = true;
    for (int d = 0; d < 3; d++) {
      inside = inside && new_len[d] >= min_side;
      fits = fits && new_len[d] / c.g.n[d] >= c.g.min_width;
      c.scalar(DS_TRIAL_LEN + d) = new_len[d];
      // the same arithmetic as the host engine: scaled about the box centre
      const double centre = c.scalar(DS_LO + d) + 0.5 * len[d];
      c.scalar(DS_TRIAL_LO + d) = centre - 0.5 * new_len[d];
    }
    if (inside && !fits) {    // stop before this trial: the host regrids and resumes
      c.counter(DC_STOPPED) = 1;
      c.counter(DC_STOP_MOVE) = (long) move;
      c.counter(DC_STOP_KIND) = 1;
    } else {
      c.counter(DC_TRIAL_ACTIVE) = inside ? 1 : 0;    // outside: rejected, pi = 0 there
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(TagAccept, const int) const
  {
    if (!c.counter(DC_TRIAL_ACTIVE)) return;
    const double v_old = c.scalar(DS_LEN) * c.scalar(DS_LEN + 1) * c.scalar(DS_LEN + 2);
    const double v_new = c.scalar(DS_TRIAL_LEN) * c.scalar(DS_TRIAL_LEN + 1) * c.scalar(DS_TRIAL_LEN + 2);
    const double e_new = c.scalar(DS_TRIAL_ENERGY) + tail / v_new + self;
    const double lr =
        volume_log_ratio(beta, e_new - c.scalar(DS_ENERGY), pressure_energy, v_old, v_new, natoms, scheme);
    if (metropolis_accept(lr, c.scalar(DS_TRIAL_U))) {
      c.counter(DC_TRIAL_ACCEPTED) = 1;
      c.counter(DC_VOL_ACCEPTED) += 1;
      c.scalar(DS_ENERGY) = e_new;
      for (int d = 0; d < 3; d++) {
        c.scalar(DS_LO + d) = c.scalar(DS_TRIAL_LO + d);
        c.scalar(DS_LEN + d) = c.scalar(DS_TRIAL_LEN + d);
      }
    }
  }

  // Slot k: the trial's position, from the energy's copy (PairEnergyFunctor scaled it there). The
  // cells scale with the box, so every atom keeps its cell and slot.
  KOKKOS_INLINE_FUNCTION void operator()(TagCommit, const int k) const
  {
    if (!c.counter(DC_TRIAL_ACCEPTED)) return;
    const int cell = k / c.g.cap, s = k % c.g.cap;
    if (s >= c.count(cell)) return;
    const int e = c.pad_start(c.padded_of(cell)) + s;
    c.sx(k) = c.ox(e);
    c.sy(k) = c.oy(e);
    c.sz(k) = c.oz(e);
  }
};

}    // namespace kk
}    // namespace gpumc
