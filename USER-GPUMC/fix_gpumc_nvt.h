/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: Metropolis Monte Carlo in LAMMPS.
   fix gpumc/nvt: single-particle translations at constant N, V, T.
   The same class carries the volume moves of fix gpumc/npt, switched on by that style.
------------------------------------------------------------------------- */

#ifdef FIX_CLASS
// clang-format off
FixStyle(gpumc/nvt,FixGpumcNVT);
// clang-format on
#else

#ifndef LMP_FIX_GPUMC_NVT_H
#define LMP_FIX_GPUMC_NVT_H

#include "fix.h"

#include "gpumc_system_host.h"
#include "gpumc_lammps.h"

#include <cstdint>
#include <memory>
#include <string>

namespace LAMMPS_NS {

class FixGpumcNVT : public Fix {
 public:
  enum { ALGORITHM_SEQUENTIAL = 0, ALGORITHM_CHECKERBOARD = 1 };

  FixGpumcNVT(class LAMMPS *, int, char **);
  ~FixGpumcNVT() override;
  int setmask() override;
  void init() override;
  void setup(int) override;
  void setup_pre_exchange() override;
  void pre_exchange() override;
  void post_run() override;
  double compute_scalar() override;
  double compute_vector(int) override;
  void write_restart(FILE *) override;
  void restart(char *) override;
  int modify_param(int, char **) override;
  // a new temperature (temper/gpumc's exchanges)
  void reset_target(double) override;
  int chain_seed() const { return seed; }
  // whether the displacement still adapts during the next run (tune yes) or after `step`
  bool tunes_after(bigint step) const { return tune_until < 0 || tune_until > step; }

 protected:
  FixGpumcNVT(class LAMMPS *, int, char **, bool with_volume_moves);

  // settings
  bool npt;                // volume moves on (gpumc/npt)
  bigint nsweeps;          // sweeps per invocation; a sweep = one trial per atom of the group
  double temperature;      // T (temperature units)
  double pressure;         // P (pressure units), npt only
  int seed;
  double target, vtarget;  // target acceptance ratios while tuning
  bigint tune_until;       // step sizes adapt while ntimestep < tune_until
  bigint check_every;      // full energy recomputation every this many sweeps
  int volume_scheme;       // gpumc::VolumeScheme
  int vmoves;              // volume trials per sweep
  int team_size;           // threads cooperating on one trial move (/kk styles; 0 = default)
  int algorithm;           // ALGORITHM_SEQUENTIAL or ALGORITHM_CHECKERBOARD
  bool mixed_precision;    // checkerboard pair terms in float (/kk styles)
  GPUMC::Ghosts ghosts = GPUMC::Ghosts::REFRESH;    // several ranks: how ghosts follow (keyword ghosts)
  bool given_displace = false, given_vstep = false, given_tune = false;    // in the command: win over a restart file
  bool velocities_draw = true;         // velocities: draw (true) or keep
  bool drawing_velocities = false;     // draw them this run (no other fix integrates)
  bool velocities_announced = false;

  // chain state (all of it in the restart file)
  double dmax;             // max displacement per coordinate
  double vstep;            // max volume step (of ln V, or of a side for the sides scheme)
  double energy;           // running energy: pair + tail, updated by accepted moves
  double last_drift, max_drift;    // running minus recomputed energy at the checks
  double last_ratio, last_vratio;  // acceptance ratios of the latest invocation
  uint64_t trans_trials, trans_accepted, vol_trials, vol_accepted;
  bigint total_sweeps;
  uint64_t fingerprint;     // of the configuration the running energy belongs to (0: none)
  // this run's sweeps on several MPI ranks: wall time, and the parts in communication (rank 0's)
  double run_domain_seconds = 0.0, run_domain_exchange_seconds = 0.0, run_domain_borders_seconds = 0.0,
         run_domain_ghost_seconds = 0.0;

  std::unique_ptr<gpumc::PairTable> table;
  double beta;             // 1/kT
  double pressure_energy;  // P in energy/volume units

  // One invocation: nsweeps sweeps on the current configuration. Backends override this.
  virtual void run_invocation();
  // Checkerboard sweeps on several MPI ranks, with a backend's engine (make_domain_sweeps).
  void run_domain_invocation();
  virtual std::unique_ptr<GPUMC::DomainSweeps> make_domain_sweeps();
  // GPUMC::fingerprint_ranks of the configuration, where the backend keeps it.
  virtual uint64_t fingerprint_ranks();
  // GPUMC::non_finite_owned, where the backend keeps the positions.
  virtual long non_finite_owned();
  // The running energy at the start of a run (see synchronise_energy). Backends override this.
  virtual void setup_energy();
  virtual void draw_velocities();
  // Bookkeeping shared by the backends after an invocation.
  void finish_invocation(uint64_t trials, uint64_t accepted, uint64_t vtrials, uint64_t vaccepted);
  // Record a full recomputation of the energy: drift, then resynchronise.
  void record_check(double full_energy);
  void synchronise_energy(const GPUMC::Configuration &conf, gpumc::HostSystem &sys);
  // A full recomputation (of the configuration with fingerprint now) starts the running energy.
  void start_energy(double full_energy, uint64_t now);
  void start_energy_gathered(const GPUMC::Configuration &conf, uint64_t now);
  bool check_due() const { return total_sweeps % check_every == 0; }
  bool tuning_active() const;
  double max_displacement_cap() const;
  double max_volume_step() const;
  void check_box_binnable();
  void refresh_energy();
  double default_displacement() const;
  std::string style_name() const;

 private:
  void parse(int narg, char **arg);
  bigint parse_tune(const char *value) const;
};

}    // namespace LAMMPS_NS

#endif
#endif
