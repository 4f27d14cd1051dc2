/* ----------------------------------------------------------------------
   GPUMC: temper/gpumc. Parallel tempering of Monte Carlo replicas: each processor partition runs
   one replica with its fix gpumc/nvt (host or /kk); every M timesteps neighbouring temperatures of
   the ladder try to exchange their configurations (in practice: their temperatures), accepted
   with probability min(1, exp[(1/kT_a - 1/kT_b)(U_a - U_b)]). The argument list, the status lines
   and the restart index are those of LAMMPS's temper command.
------------------------------------------------------------------------- */

#include "temper_gpumc.h"

#include "fix_gpumc_nvt.h"
#include "gpumc_moves.h"
#include "gpumc_rng.h"

#include "comm.h"
#include "domain.h"
#include "error.h"
#include "finish.h"
#include "force.h"
#include "integrate.h"
#include "modify.h"
#include "timer.h"
#include "universe.h"
#include "update.h"
#include "utils.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace LAMMPS_NS;

static constexpr int NBLOCKS = 20;    // blocks of the energy averages' standard errors

void TemperGpumc::command(int narg, char **arg)
{
  // one world: an ordinary error (a universe error ends the LAMMPS instance)
  if (universe->nworlds == 1)
    error->all(FLERR, "temper/gpumc needs more than one processor partition (lmp -partition)");
  if (domain->box_exist == 0) error->universe_all(FLERR, "temper/gpumc command before the simulation box is defined");
  if (narg != 6 && narg != 7) error->universe_all(FLERR, "Illegal temper/gpumc command: temper/gpumc N M T fix-ID seed1 seed2 [index]");

  const bigint nsteps = utils::bnumeric(FLERR, arg[0], false, lmp);
  const int nevery = utils::inumeric(FLERR, arg[1], false, lmp);
  double temp = utils::numeric(FLERR, arg[2], false, lmp);    // (not const: LAMMPS's MPI stubs take void *)
  if (nevery <= 0 || nsteps < 0) error->universe_all(FLERR, "temper/gpumc: N must be >= 0 and M > 0");
  if (nsteps % nevery) error->universe_all(FLERR, "temper/gpumc: N must be a multiple of M");
  if (temp <= 0.0) error->universe_all(FLERR, "temper/gpumc: the temperature must be > 0");
  const bigint nswaps = nsteps / nevery;

  auto *fix = dynamic_cast<FixGpumcNVT *>(modify->get_fix_by_id(arg[3]));
  if (!fix) error->universe_all(FLERR, fmt::format("temper/gpumc: fix {} is not a fix gpumc/nvt", arg[3]));
  if (utils::strmatch(fix->style, "^gpumc/npt"))
    error->universe_all(FLERR, "temper/gpumc: fix gpumc/npt is not supported (the exchange test would need the "
                               "volumes and pressures); use fix gpumc/nvt");
  if (fix->tunes_after(update->ntimestep))
    error->universe_all(FLERR, fmt::format("temper/gpumc: fix {} would tune its displacement during tempering (a "
                                           "step size that adapts breaks balance); tune before, then fix_modify {} "
                                           "tune no", fix->id, fix->id));
  const int seed_swap = utils::inumeric(FLERR, arg[4], false, lmp);
  const int seed_boltz = utils::inumeric(FLERR, arg[5], false, lmp);
  if (seed_swap < 0 || seed_boltz <= 0)
    error->universe_all(FLERR, "temper/gpumc: seed1 must be >= 0 (0: pairs alternate) and seed2 > 0");

  nworlds = universe->nworlds;
  me_universe = universe->me;
  MPI_Comm_rank(world, &me);
  my_set_temp = narg == 7 ? utils::inumeric(FLERR, arg[6], false, lmp) : universe->iworld;
  if (my_set_temp < 0 || my_set_temp >= nworlds) error->universe_one(FLERR, "temper/gpumc: invalid temperature index");

  MPI_Comm_split(universe->uworld, me == 0 ? 0 : 1, 0, &roots);
  set_temp.assign(nworlds, 0.0);
  world2temp.assign(nworlds, 0);
  temp2world.assign(nworlds, 0);
  std::vector<int> seeds(nworlds, 0);
  int my_seed = fix->chain_seed();
  if (me == 0) {
    MPI_Allgather(&temp, 1, MPI_DOUBLE, set_temp.data(), 1, MPI_DOUBLE, roots);
    MPI_Allgather(&my_seed, 1, MPI_INT, seeds.data(), 1, MPI_INT, roots);
    MPI_Allgather(&my_set_temp, 1, MPI_INT, world2temp.data(), 1, MPI_INT, roots);
    for (int w = 0; w < nworlds; w++) temp2world[world2temp[w]] = w;
  }
  MPI_Bcast(set_temp.data(), nworlds, MPI_DOUBLE, 0, world);
  MPI_Bcast(temp2world.data(), nworlds, MPI_INT, 0, world);
  MPI_Bcast(world2temp.data(), nworlds, MPI_INT, 0, world);
  MPI_Bcast(seeds.data(), nworlds, MPI_INT, 0, world);
  std::sort(seeds.begin(), seeds.end());
  if (std::adjacent_find(seeds.begin(), seeds.end()) != seeds.end())
    error->universe_all(FLERR, "temper/gpumc: the replicas' fixes must have different seeds (with one seed they "
                               "make the same proposals and draw the same numbers); use a world-style variable");
  for (int t = 1; t < nworlds; t++)
    if (!(set_temp[t] > set_temp[t - 1]))
      error->universe_all(FLERR, "temper/gpumc: the temperatures must rise with the partition (or index) order");
  for (int t = 0; t < nworlds; t++)
    if (std::count(world2temp.begin(), world2temp.end(), t) != 1)
      error->universe_all(FLERR, "temper/gpumc: every temperature index must be held by exactly one partition");
  fix->reset_target(set_temp[my_set_temp]);

  update->whichflag = 1;
  timer->init_timeout();
  update->nsteps = nsteps;
  update->beginstep = update->firststep = update->ntimestep;
  update->endstep = update->laststep = update->firststep + nsteps;
  if (update->laststep < 0) error->all(FLERR, "Too many timesteps");
  lmp->init();
  if (me_universe == 0 && universe->uscreen) fprintf(universe->uscreen, "Setting up tempering ...\n");
  update->integrate->setup(1);
  if (me_universe == 0) {
    std::string head = "Step";
    for (int w = 0; w < nworlds; w++) head += fmt::format(" T{}", w);
    if (universe->uscreen) fprintf(universe->uscreen, "%s\n", head.c_str());
    if (universe->ulogfile) fprintf(universe->ulogfile, "%s\n", head.c_str());
    print_status();
  }

  const double boltz = force->boltz;
  const gpumc::CounterRNG rng(seed_boltz, gpumc::RNG_TEMPER);
  const gpumc::CounterRNG pairing(seed_swap, gpumc::RNG_TEMPER);
  // the universe root's statistics: energies by temperature, swaps by pair (t, t+1)
  std::vector<std::vector<double>> energies(nworlds);
  std::vector<long> attempts(nworlds, 0), accepts(nworlds, 0);
  std::vector<double> pe_of_world(nworlds);

  timer->init();
  timer->barrier_start();
  for (bigint iswap = 0; iswap < nswaps; iswap++) {
    timer->init_timeout();
    update->integrate->run(nevery);
    int my_timeout = timer->is_timeout() ? 1 : 0, any_timeout = 0;
    MPI_Allreduce(&my_timeout, &any_timeout, 1, MPI_INT, MPI_SUM, universe->uworld);
    if (any_timeout) {
      timer->force_timeout();
      break;
    }
    // the replica's energy: the fix's running energy (equal to compute pe)
    double pe = fix->compute_scalar();
    // every root learns every energy and makes the same decisions (counter-based random numbers)
    int new_temp = my_set_temp;
    if (me == 0) {
      MPI_Allgather(&pe, 1, MPI_DOUBLE, pe_of_world.data(), 1, MPI_DOUBLE, roots);
      if (me_universe == 0)
        for (int w = 0; w < nworlds; w++) energies[world2temp[w]].push_back(pe_of_world[w]);
      // numbered by the attempt's timestep, so that a continued run draws new numbers
      const uint64_t step = (uint64_t) update->ntimestep;
      const int which = seed_swap ? (int) (pairing.bits(step, 0)[0] & 1) : (int) ((step / nevery) % 2);
      for (int t = which; t + 1 < nworlds; t += 2) {
        const int wa = temp2world[t], wb = temp2world[t + 1];
        const double log_ratio = gpumc::replica_swap_log_ratio(1.0 / (boltz * set_temp[t]),
                                                               1.0 / (boltz * set_temp[t + 1]), pe_of_world[wa],
                                                               pe_of_world[wb]);
        attempts[t]++;
        if (gpumc::metropolis_accept(log_ratio, gpumc::uniform01(rng.bits(step, t, 1)[0]))) {
          accepts[t]++;
          world2temp[wa] = t + 1;
          world2temp[wb] = t;
        }
      }
      for (int w = 0; w < nworlds; w++) temp2world[world2temp[w]] = w;
      new_temp = world2temp[universe->iworld];
    }
    MPI_Bcast(&new_temp, 1, MPI_INT, 0, world);
    MPI_Bcast(temp2world.data(), nworlds, MPI_INT, 0, world);
    if (new_temp != my_set_temp) {
      my_set_temp = new_temp;
      fix->reset_target(set_temp[my_set_temp]);
    }
    if (me_universe == 0) print_status();
  }
  timer->barrier_stop();
  if (me_universe == 0) print_summary(energies, attempts, accepts);
  update->integrate->cleanup();
  Finish finish(lmp);
  finish.end(1);
  update->whichflag = 0;
  update->firststep = update->laststep = 0;
  update->beginstep = update->endstep = 0;
  MPI_Comm_free(&roots);
}

// Per temperature: the mean energy of the replicas that held it at the exchanges, with the
// standard error of NBLOCKS block means; per neighbouring pair: the exchanges accepted.
void TemperGpumc::print_summary(const std::vector<std::vector<double>> &energies, const std::vector<long> &attempts,
                                const std::vector<long> &accepts)
{
  std::string msg;
  for (int t = 0; t < nworlds; t++) {
    const std::vector<double> &e = energies[t];
    const size_t per_block = e.size() / NBLOCKS;
    double mean = 0.0, error = 0.0;
    if (per_block > 0) {
      std::vector<double> blocks(NBLOCKS, 0.0);
      for (int b = 0; b < NBLOCKS; b++) {
        for (size_t k = b * per_block; k < (b + 1) * per_block; k++) blocks[b] += e[k];
        blocks[b] /= (double) per_block;
        mean += blocks[b] / NBLOCKS;
      }
      double var = 0.0;
      for (double b : blocks) var += (b - mean) * (b - mean);
      error = std::sqrt(var / (NBLOCKS * (NBLOCKS - 1.0)));
    }
    msg += fmt::format("temper/gpumc: T[{}] = {}: energy {:.10g} +- {:.4g} ({} samples)\n", t, set_temp[t], mean,
                       error, e.size());
  }
  for (int t = 0; t + 1 < nworlds; t++)
    msg += fmt::format("temper/gpumc: exchanges T[{}] <-> T[{}]: {} of {} accepted ({:.4f})\n", t, t + 1, accepts[t],
                       attempts[t], attempts[t] ? (double) accepts[t] / (double) attempts[t] : 0.0);
  if (universe->uscreen) fputs(msg.c_str(), universe->uscreen);
  if (universe->ulogfile) fputs(msg.c_str(), universe->ulogfile);
}

void TemperGpumc::print_status()
{
  std::string status = std::to_string(update->ntimestep);
  for (int w = 0; w < nworlds; w++) status += " " + std::to_string(world2temp[w]);
  status += "\n";
  if (universe->uscreen) fputs(status.c_str(), universe->uscreen);
  if (universe->ulogfile) {
    fputs(status.c_str(), universe->ulogfile);
    fflush(universe->ulogfile);
  }
}
