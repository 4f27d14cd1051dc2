/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: the timestep loop of run_style gpumc and gpumc/kk. Every timestep the GPUMC fixes make
   their sweeps; LAMMPS's force and neighbor work, which Monte Carlo does not need, is done only on
   the timesteps whose output or fixes read forces, energies or the virial. Base is the integrator
   whose run(1) makes one such timestep: Verlet, or VerletKokkos for the KOKKOS package.
------------------------------------------------------------------------- */

#ifndef LMP_INTEGRATE_GPUMC_STEPS_H
#define LMP_INTEGRATE_GPUMC_STEPS_H

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "fix.h"
#include "modify.h"
#include "neighbor.h"
#include "output.h"
#include "timer.h"
#include "update.h"
#include "utils.h"

#include <mpi.h>
#include <vector>

namespace LAMMPS_NS {

template <class Base> class MonteCarloTimesteps : public Base {
 public:
  MonteCarloTimesteps(LAMMPS *lmp, int narg, char **arg) : Base(lmp, narg, arg)
  {
    if (narg > 0) this->error->all(FLERR, "run_style gpumc takes no arguments, not {}", arg[0]);
  }

  void init() override
  {
    Base::init();
    monte_carlo_fixes.clear();
    end_of_step_fixes.clear();
    // what a timestep without forces leaves out: integration, force computation and (outside the
    // GPUMC fixes' own invocations) neighbor list builds
    constexpr int SKIPPED = FixConst::INITIAL_INTEGRATE | FixConst::POST_INTEGRATE | FixConst::PRE_NEIGHBOR |
        FixConst::POST_NEIGHBOR | FixConst::PRE_FORCE | FixConst::PRE_REVERSE | FixConst::POST_FORCE |
        FixConst::FINAL_INTEGRATE;
    Modify *modify = this->modify;
    for (int i = 0; i < modify->nfix; i++) {
      Fix *fix = modify->fix[i];
      if (utils::strmatch(fix->style, "^gpumc/n[vp]t")) {
        monte_carlo_fixes.push_back(fix);
        continue;
      }
      if (modify->fmask[i] & SKIPPED)
        this->error->all(FLERR, "run_style gpumc: fix {} ({}) acts on every timestep's integration or force "
                         "computation, which run_style gpumc makes only on timesteps with output; use run_style "
                         "verlet", fix->id, fix->style);
      if (modify->fmask[i] & FixConst::PRE_EXCHANGE)
        this->error->all(FLERR, "run_style gpumc: fix {} ({}) changes atoms before neighbor list builds, which "
                         "run_style gpumc makes only on timesteps with output; use run_style verlet", fix->id,
                         fix->style);
      if (modify->fmask[i] & FixConst::END_OF_STEP) end_of_step_fixes.push_back(fix);
    }
    if (monte_carlo_fixes.empty())
      this->error->all(FLERR, "run_style gpumc: no fix gpumc/nvt or gpumc/npt is defined; it is the run style of "
                       "Monte Carlo runs (molecular dynamics: run_style verlet)");
  }

  void run(int n) override
  {
    enter_monte_carlo_steps();
    for (int i = 0; i < n; i++) {
      if (timed_out()) {
        this->update->nsteps = i;
        break;
      }
      const bigint step = this->update->ntimestep + 1;
      this->ev_set(step);
      if (forces_due(step, i == n - 1)) {
        // the neighbor lists of the last build no longer hold atoms moved since: LAMMPS's own
        // check may miss that (atoms reordered between processes, neigh_modify every/delay/check)
        if (moved_since_build && !invocation_due(step)) rebuild_neighbor_lists();
        Base::run(1);    // (an invocation on this step forces a build)
        enter_monte_carlo_steps();
        moved_since_build = false;
      } else {
        if (invocation_due(step)) moved_since_build = true;
        this->update->ntimestep = step;
        this->timer->stamp();
        this->modify->pre_exchange();
        this->timer->stamp(Timer::MODIFY);
      }
    }
    leave_monte_carlo_steps();
  }

 protected:
  // around the timesteps without forces, as the integrator sets up its own (KOKKOS: data sync)
  virtual void enter_monte_carlo_steps() {}
  virtual void leave_monte_carlo_steps() {}

 private:
  std::vector<Fix *> monte_carlo_fixes, end_of_step_fixes;
  bool moved_since_build = false;

  // Forces, energies and virial on the run's last timestep, on those whose computes ask for them
  // (ev_set: thermo, dumps, fix ave/* ...), whose output is due, or where a fix acts at the end.
  bool forces_due(bigint step, bool last_step) const
  {
    if (last_step || this->eflag || this->vflag || this->output->next == step) return true;
    for (Fix *fix : end_of_step_fixes)
      if (step % fix->nevery == 0) return true;
    return false;
  }

  // a GPUMC fix moves atoms on this timestep (it asks LAMMPS for a neighbor list build then)
  bool invocation_due(bigint step) const
  {
    for (Fix *fix : monte_carlo_fixes)
      if (fix->next_reneighbor == step) return true;
    return false;
  }

  // LAMMPS's own timeout check counts steps from the start of each Base::run(1); this one is
  // made every timestep, which costs little beside a timestep of sweeps
  bool timed_out() const
  {
    Timer *timer = this->timer;
    if (timer->is_timeout()) return true;
    if (!timer->has_timeout()) return false;
    double remain = timer->get_timeout_remain();
    MPI_Bcast(&remain, 1, MPI_DOUBLE, 0, this->world);
    if (remain > 0.0) return false;
    if (this->comm->me == 0) this->error->warning(FLERR, "Wall time limit reached");
    timer->force_timeout();
    return true;
  }

  // as the integrator does when its neighbor lists are due (Verlet::run)
  void rebuild_neighbor_lists()
  {
    Domain *domain = this->domain;
    Atom *atom = this->atom;
    Timer *timer = this->timer;
    if (this->triclinic) domain->x2lamda(atom->nlocal);
    domain->pbc();
    if (domain->box_change) {
      domain->reset_box();
      this->comm->setup();
      if (this->neighbor->style) this->neighbor->setup_bins();
    }
    timer->stamp();
    this->comm->exchange();
    if (atom->sortfreq > 0 && this->update->ntimestep >= atom->nextsort) atom->sort();
    this->comm->borders();
    if (this->triclinic) domain->lamda2x(atom->nlocal + atom->nghost);
    timer->stamp(Timer::COMM);
    this->neighbor->build(1);
    timer->stamp(Timer::NEIGH);
  }
};

}    // namespace LAMMPS_NS

#endif
