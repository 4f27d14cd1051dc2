/* ----------------------------------------------------------------------
   GPUMC: fix gpumc/nvt and fix gpumc/npt, their output: the end-of-run summary, and the running
   energy and chain statistics as thermo output (fix_gpumc_nvt.cpp has the rest).
------------------------------------------------------------------------- */

#include "fix_gpumc_nvt.h"

#include "gpumc_lammps.h"

#include "comm.h"
#include "domain.h"
#include "update.h"
#include "utils.h"

using namespace LAMMPS_NS;

void FixGpumcNVT::post_run()
{
  const double ratio = trans_trials ? (double) trans_accepted / (double) trans_trials : 0.0;
  std::string msg = fmt::format("{} {}: {} translation trials, acceptance {:.4f}, displacement {:.6g}, "
                                "max |energy drift| {:.6g}\n",
                                style_name(), id, trans_trials, ratio, dmax, max_drift);
  if (npt) {
    const double vratio = vol_trials ? (double) vol_accepted / (double) vol_trials : 0.0;
    msg += fmt::format("{} {}: {} volume trials, acceptance {:.4f}, step {:.6g}\n", style_name(), id,
                       vol_trials, vratio, vstep);
  }
  if (comm->nprocs > 1 && run_domain_seconds > 0.0) {
    const double comm_seconds = run_domain_exchange_seconds + run_domain_borders_seconds + run_domain_ghost_seconds;
    msg += fmt::format("{} {}: {:.4g} s of sweeps on {} MPI processes (rank 0), {:.4g} s ({:.1f}%) of them in "
                       "communication: {:.4g} s moving atoms between ranks, {:.4g} s copying ghosts, {:.4g} s "
                       "refreshing ghosts ({})\n",
                       style_name(), id, run_domain_seconds, comm->nprocs, comm_seconds,
                       100.0 * comm_seconds / run_domain_seconds, run_domain_exchange_seconds,
                       run_domain_borders_seconds, run_domain_ghost_seconds,
                       ghosts == GPUMC::Ghosts::REFRESH  ? "after each colour"
                       : ghosts == GPUMC::Ghosts::FROZEN ? "for energy checks: ghosts frozen"
                                                         : "after each sweep: ghosts alternate");
  }
  if (comm->me == 0) utils::logmesg(lmp, msg);
}

// The running energy belongs to the configuration of the fix's last invocation; if something else
// moved the atoms since (another gpumc fix, a minimization, displace_atoms), a full recomputation
// for the current one, so that the output always equals pe. (Output between invocations may follow
// an MD blow-up: the stop on non-numeric coordinates first.)
void FixGpumcNVT::refresh_energy()
{
  if (!table) return;
  GPUMC::stop_on_non_finite(lmp, style_name(), non_finite_owned());
  setup_energy();
}

double FixGpumcNVT::compute_scalar()
{
  refresh_energy();
  return energy;
}

double FixGpumcNVT::compute_vector(int n)
{
  switch (n) {
    case 0: return (double) trans_trials;
    case 1: return (double) trans_accepted;
    case 2: return last_ratio;
    case 3: return trans_trials ? (double) trans_accepted / (double) trans_trials : 0.0;
    case 4: return dmax;
    case 5: refresh_energy(); return energy;
    case 6: return last_drift;
    case 7: return max_drift;
    case 8: return (double) vol_trials;
    case 9: return (double) vol_accepted;
    case 10: return last_vratio;
    case 11: return vol_trials ? (double) vol_accepted / (double) vol_trials : 0.0;
    case 12: return npt ? vstep : 0.0;
    case 13: return domain->xprd * domain->yprd * domain->zprd;
    default: return 0.0;
  }
}
