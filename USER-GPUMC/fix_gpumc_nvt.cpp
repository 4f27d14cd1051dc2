/* ----------------------------------------------------------------------
   GPUMC: fix gpumc/nvt and fix gpumc/npt (host versions).
   Physics (potentials, proposals, acceptance rules, random numbers) lives in the shared
   gpumc_*.h files and is used unchanged by the Kokkos styles; this file is the LAMMPS side:
   arguments, invocation, bookkeeping and restart (fix_gpumc_nvt_output.cpp: the output).
------------------------------------------------------------------------- */

#include "fix_gpumc_nvt.h"

#include "gpumc_lammps.h"
#include "gpumc_moves.h"

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "force.h"
#include "group.h"
#include "modify.h"
#include "neighbor.h"
#include "update.h"
#include "utils.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

using namespace LAMMPS_NS;
using namespace FixConst;

static constexpr bigint TUNE_FIRST_RUN = -1;    // tune until the end of the next run
static constexpr bigint TUNE_ALWAYS = MAXBIGINT;
static constexpr int RESTART_VERSION = 2;
static constexpr int NVECTOR = 14;
// a full recomputation costs about half a sweep: every 100 sweeps it adds under 1 %
static constexpr bigint DEFAULT_CHECK_SWEEPS = 100;
// global vector entries that scale with the number of atoms (energies)
static constexpr int EXTENSIVE[NVECTOR] = {0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0};

FixGpumcNVT::FixGpumcNVT(LAMMPS *lmp, int narg, char **arg) : FixGpumcNVT(lmp, narg, arg, false) {}

FixGpumcNVT::FixGpumcNVT(LAMMPS *lmp, int narg, char **arg, bool with_volume_moves) :
    Fix(lmp, narg, arg), npt(with_volume_moves), nsweeps(0), temperature(0.0), pressure(0.0), seed(0),
    target(0.5), vtarget(0.5), tune_until(TUNE_FIRST_RUN), check_every(DEFAULT_CHECK_SWEEPS),
    volume_scheme(gpumc::VOLUME_LOGV), vmoves(1), team_size(0), algorithm(ALGORITHM_SEQUENTIAL), mixed_precision(false), dmax(-1.0), vstep(-1.0), energy(0.0), last_drift(0.0),
    max_drift(0.0), last_ratio(0.0), last_vratio(0.0), trans_trials(0), trans_accepted(0), vol_trials(0),
    vol_accepted(0), total_sweeps(0), fingerprint(0), beta(0.0), pressure_energy(0.0)
{
  parse(narg, arg);

  scalar_flag = 1;
  extscalar = 1;
  vector_flag = 1;
  size_vector = NVECTOR;
  extvector = -1;
  extlist = new int[NVECTOR];
  std::copy(EXTENSIVE, EXTENSIVE + NVECTOR, extlist);
  global_freq = 1;
  restart_global = 1;
  // the fix moves atoms: no "atoms won't move" warning from the integrator (see init())
  time_integrate = 1;
  force_reneighbor = 1;
  next_reneighbor = -1;
  if (npt) {
    box_change |= BOX_CHANGE_SIZE;
    no_change_box = 1;
  }
}

FixGpumcNVT::~FixGpumcNVT()
{
  delete[] extlist;
}

std::string FixGpumcNVT::style_name() const
{
  return std::string("fix ") + style;
}

bigint FixGpumcNVT::parse_tune(const char *value) const
{
  if (strcmp(value, "yes") == 0) return TUNE_FIRST_RUN;
  if (strcmp(value, "no") == 0) return 0;
  if (strcmp(value, "always") == 0) return TUNE_ALWAYS;
  if (!utils::is_integer(value) || utils::bnumeric(FLERR, value, false, lmp) < 0)
    error->all(FLERR, "{}: tune takes yes, no, always or a timestep >= 0, not {}", style_name(), value);
  return utils::bnumeric(FLERR, value, false, lmp);
}

void FixGpumcNVT::parse(int narg, char **arg)
{
  const std::string who = style_name();
  const int nfixed = npt ? 7 : 6;
  if (narg < nfixed) utils::missing_cmd_args(FLERR, who, error);

  nsweeps = utils::bnumeric(FLERR, arg[3], false, lmp);
  temperature = utils::numeric(FLERR, arg[4], false, lmp);
  if (npt) pressure = utils::numeric(FLERR, arg[5], false, lmp);
  seed = utils::inumeric(FLERR, arg[nfixed - 1], false, lmp);
  if (nsweeps <= 0) error->all(FLERR, "{}: number of sweeps must be > 0", who);
  if (temperature <= 0.0) error->all(FLERR, "{}: temperature must be > 0", who);
  if (!std::isfinite(pressure)) error->all(FLERR, "{}: pressure must be finite", who);
  if (seed <= 0) error->all(FLERR, "{}: seed must be a positive integer", who);

  nevery = 1;
  // a number where a keyword stands is an extra positional argument, not a keyword missing its value
  auto unknown_keyword = [&](const std::string &kw) {
    error->all(FLERR, "{}: unknown keyword {}{}", who, kw,
               utils::is_double(kw) ? fmt::format(" (it takes {} numbers before its keywords)", nfixed - 3) : "");
  };
  int iarg = nfixed;
  while (iarg < narg) {
    const std::string kw = arg[iarg];
    if (iarg + 2 > narg) {
      if (utils::is_double(kw)) unknown_keyword(kw);
      utils::missing_cmd_args(FLERR, who + " " + kw, error);
    }
    const char *val = arg[iarg + 1];
    if (kw == "every") {
      nevery = utils::inumeric(FLERR, val, false, lmp);
      if (nevery <= 0) error->all(FLERR, "{}: every must be > 0", who);
    } else if (kw == "displace") {
      dmax = utils::numeric(FLERR, val, false, lmp);
      if (dmax <= 0.0) error->all(FLERR, "{}: displace must be > 0", who);
      given_displace = true;
    } else if (kw == "target") {
      target = utils::numeric(FLERR, val, false, lmp);
      if (target <= 0.0 || target >= 1.0) error->all(FLERR, "{}: target must be between 0 and 1", who);
    } else if (kw == "tune") {
      tune_until = parse_tune(val);
      given_tune = true;
    } else if (kw == "check") {
      check_every = utils::bnumeric(FLERR, val, false, lmp);
      if (check_every <= 0) error->all(FLERR, "{}: check must be > 0", who);
    } else if (kw == "team") {
      team_size = utils::inumeric(FLERR, val, false, lmp);
      if (team_size < 0) error->all(FLERR, "{}: team must be >= 0", who);
    } else if (kw == "algorithm") {
      if (strcmp(val, "sequential") == 0)
        algorithm = ALGORITHM_SEQUENTIAL;
      else if (strcmp(val, "checkerboard") == 0)
        algorithm = ALGORITHM_CHECKERBOARD;
      else
        error->all(FLERR, "{}: algorithm takes sequential or checkerboard, not {}", who, val);
    } else if (kw == "ghosts") {
      if (strcmp(val, "refresh") == 0)
        ghosts = GPUMC::Ghosts::REFRESH;
      else if (strcmp(val, "frozen") == 0)
        ghosts = GPUMC::Ghosts::FROZEN;
      else if (strcmp(val, "alternate") == 0)
        ghosts = GPUMC::Ghosts::ALTERNATE;
      else
        error->all(FLERR, "{}: ghosts takes refresh, frozen or alternate, not {}", who, val);
    } else if (kw == "precision") {
      mixed_precision = GPUMC::parse_precision(lmp, who, val);
    } else if (kw == "velocities") {
      if (strcmp(val, "draw") == 0)
        velocities_draw = true;
      else if (strcmp(val, "keep") == 0)
        velocities_draw = false;
      else
        error->all(FLERR, "{}: velocities takes draw or keep, not {}", who, val);
    } else if (npt && kw == "volume") {
      if (strcmp(val, "logv") == 0)
        volume_scheme = gpumc::VOLUME_LOGV;
      else if (strcmp(val, "sides") == 0)
        volume_scheme = gpumc::VOLUME_SIDES;
      else
        error->all(FLERR, "{}: volume takes logv or sides, not {}", who, val);
    } else if (npt && kw == "vstep") {
      vstep = utils::numeric(FLERR, val, false, lmp);
      if (vstep <= 0.0) error->all(FLERR, "{}: vstep must be > 0", who);
      given_vstep = true;
    } else if (npt && kw == "vtarget") {
      vtarget = utils::numeric(FLERR, val, false, lmp);
      if (vtarget <= 0.0 || vtarget >= 1.0) error->all(FLERR, "{}: vtarget must be between 0 and 1", who);
    } else if (npt && kw == "vmoves") {
      vmoves = utils::inumeric(FLERR, val, false, lmp);
      if (vmoves <= 0) error->all(FLERR, "{}: vmoves must be > 0", who);
    } else {
      unknown_keyword(kw);
    }
    iarg += 2;
  }
}

int FixGpumcNVT::setmask()
{
  return PRE_EXCHANGE;
}

int FixGpumcNVT::modify_param(int narg, char **arg)
{
  if (strcmp(arg[0], "tune") == 0) {
    if (narg < 2) utils::missing_cmd_args(FLERR, "fix_modify tune", error);
    tune_until = parse_tune(arg[1]);
    return 2;
  }
  return 0;
}

void FixGpumcNVT::reset_target(double t_new)
{
  temperature = t_new;
  beta = 1.0 / (force->boltz * temperature);
}

void FixGpumcNVT::init()
{
  const std::string who = style_name();
  GPUMC::check_system(lmp, who);
  if (algorithm == ALGORITHM_SEQUENTIAL)
    GPUMC::check_one_process(lmp, who + " with algorithm sequential",
                             " (one chain of moves, one after another); algorithm checkerboard runs on several");
  // the decomposed sweeps move atoms on the host and call LAMMPS's Comm themselves, which with
  // the KOKKOS package enabled is CommKokkos, working on the device's copies
  if (lmp->kokkos && !kokkosable)
    GPUMC::check_one_process(lmp, who + " with the KOKKOS package enabled (-k on)",
                             "; without -k on the host style runs on several");
  table = std::make_unique<gpumc::PairTable>(GPUMC::pair_table(lmp, who));
  const gpumc::Box box = GPUMC::box(lmp);
  for (int d = 0; d < 3; d++)
    if (box.len[d] < 2.0 * table->cut_max)
      error->all(FLERR, "{}: box side {} is shorter than twice the largest pair cutoff {}", who, box.len[d],
                 table->cut_max);
  if (npt && table->ewald.enabled && comm->me == 0 && !table->ewald.g_ewald_fixed)
    error->warning(FLERR, "{}: LAMMPS sets g_ewald from the box at the start of every run, so an NPT simulation "
                   "split over several runs samples slightly different energies in each; fix it with "
                   "'kspace_modify gewald'", who);
  if (algorithm == ALGORITHM_CHECKERBOARD && table->ewald.enabled)
    error->all(FLERR, "{}: algorithm checkerboard does not support kspace_style ewald (every move changes the "
               "structure factors all atoms share, so cells cannot move independently); use algorithm sequential",
               who);
  if (algorithm == ALGORITHM_CHECKERBOARD)
    for (int d = 0; d < 3; d++)
      if (gpumc::checker_cells(box.len[d], gpumc::checker_min_width(table->cut_max)) < 2)
        error->all(FLERR,
                   "{}: box side {} is too short for algorithm checkerboard: it must hold two cells at least as "
                   "wide as the largest pair cutoff {}; use algorithm sequential",
                   who, box.len[d], table->cut_max);
  if (ghosts != GPUMC::Ghosts::REFRESH && algorithm != ALGORITHM_CHECKERBOARD)
    error->all(FLERR, "{}: ghosts {} is an option of algorithm checkerboard on several processes", who,
               GPUMC::ghosts_name(ghosts));
  if (mixed_precision && !kokkosable)
    error->all(FLERR, "{}: precision mixed is an option of the Kokkos style {}/kk", who, style);
  if (mixed_precision && algorithm != ALGORITHM_CHECKERBOARD)
    error->all(FLERR, "{}: precision mixed requires algorithm checkerboard (the sequential chain is double "
               "precision, move for move the host's)", who);
  if (group->count(igroup) == 0) error->all(FLERR, "{}: group {} has no atoms", who, group->names[igroup]);
  // with a fix that integrates equations of motion as well (MD and MC combined), that fix moves the
  // atoms between invocations: LAMMPS then warns of atoms "integrated more than once" unless this
  // fix stops claiming to integrate
  time_integrate = 1;
  for (const auto &other : modify->get_fix_list())
    if (other != this && other->time_integrate) time_integrate = 0;
  // the velocities are the Monte Carlo's to set unless another fix integrates them
  drawing_velocities = velocities_draw && time_integrate;

  beta = 1.0 / (force->boltz * temperature);
  pressure_energy = pressure / force->nktv2p;
  if (dmax < 0.0) dmax = default_displacement();
  dmax = std::min(dmax, max_displacement_cap());
  if (npt && vstep < 0.0)
    vstep = volume_scheme == gpumc::VOLUME_LOGV ? 0.01 : 0.01 * std::min({box.len[0], box.len[1], box.len[2]});
  if (npt && vstep > max_volume_step()) {
    if (comm->me == 0)
      error->warning(FLERR, "{}: vstep {} capped at {} ({})", who, vstep, max_volume_step(),
                     volume_scheme == gpumc::VOLUME_LOGV ? "the largest step of ln V"
                                                         : "a quarter of the shortest box side");
    vstep = max_volume_step();
  }
}

// the volume step's bound: 0.5 in ln V (a factor 1.65 in volume), a quarter of the shortest side
double FixGpumcNVT::max_volume_step() const
{
  return volume_scheme == gpumc::VOLUME_LOGV ? 0.5 : max_displacement_cap();
}

void FixGpumcNVT::setup(int /*vflag*/)
{
  run_domain_seconds = run_domain_exchange_seconds = run_domain_borders_seconds = run_domain_ghost_seconds = 0.0;
  // tune yes: until the end of the next run that makes steps (a run 0 makes no moves)
  if (tune_until == TUNE_FIRST_RUN && update->endstep > update->beginstep) tune_until = update->endstep;
  // invocations fall on multiples of `every`, whatever the run boundaries
  next_reneighbor = (update->ntimestep / nevery + 1) * nevery;
  // (again: setup_minimal(0), as MDI's, skips setup_pre_exchange)
  GPUMC::stop_on_non_finite(lmp, style_name(), non_finite_owned());
  setup_energy();
  if (drawing_velocities) {
    if (!velocities_announced && comm->me == 0)
      utils::logmesg(lmp, "{} {}: velocities of group {} drawn from the Maxwell-Boltzmann distribution at T = {} "
                     "after every invocation, so that temp and press read as at T (velocities keep: left alone)\n",
                     style_name(), id, group->names[igroup], temperature);
    velocities_announced = true;
    draw_velocities();
  }
}

// Velocities at T for output (temp, press, ke, etotal): draw number total_sweeps, so that a chain
// split by runs or restarts draws the same ones. Backends override this.
void FixGpumcNVT::draw_velocities()
{
  GPUMC::draw_velocities(lmp, groupbit, gpumc::CounterRNG(seed, gpumc::RNG_VELOCITY), total_sweeps, temperature);
}

void FixGpumcNVT::setup_energy()
{
  // on several ranks the configuration is gathered only when it changed
  if (comm->nprocs > 1) {
    const uint64_t now = fingerprint_ranks();
    if (now != fingerprint) start_energy_gathered(GPUMC::gather(lmp), now);
    return;
  }
  const auto conf = GPUMC::gather(lmp);
  const uint64_t now = GPUMC::fingerprint(lmp, conf.x, conf.type, *table);
  if (now != fingerprint) start_energy_gathered(conf, now);
}

// A full recomputation for the whole configuration (of fingerprint now) starts the running energy.
void FixGpumcNVT::start_energy_gathered(const GPUMC::Configuration &conf, uint64_t now)
{
  gpumc::HostSystem sys(*table);
  sys.set_configuration(conf.x, conf.type, GPUMC::box(lmp));
  start_energy(sys.total_energy(), now);    // cells freshly built in atom order: canonical
}

// The running energy carries over from the previous invocation, run or restart file if nothing
// changed the configuration or the interactions since (another fix, displace_atoms, pair_coeff
// ...); otherwise a full recomputation, canonically ordered, starts it afresh. Either way a
// chain split by run boundaries or restarts sums exactly like an unbroken one.
void FixGpumcNVT::synchronise_energy(const GPUMC::Configuration &conf, gpumc::HostSystem &sys)
{
  const uint64_t now = GPUMC::fingerprint(lmp, conf.x, conf.type, *table);
  if (now != fingerprint) start_energy(sys.total_energy(), now);    // cells freshly built in atom order: canonical
}

// A Metropolis chain needs a finite energy: from an infinite one (atoms on top of each other with
// lj/cut) every move's dU is -inf or NaN and the running energy NaN for good.
void FixGpumcNVT::start_energy(double full_energy, uint64_t now)
{
  if (!std::isfinite(full_energy))
    error->all(FLERR, "{}: the energy of the configuration is {}; Monte Carlo moves need a finite energy "
               "(are atoms on top of each other?)", style_name(), full_energy);
  energy = full_energy;
  fingerprint = now;
}

// a guess that tuning corrects: a tenth of the mean interatomic spacing
double FixGpumcNVT::default_displacement() const
{
  const gpumc::Box box = GPUMC::box(lmp);
  const double natoms = std::max(1.0, (double) atom->natoms);
  return 0.1 * std::cbrt(box.volume() / natoms);
}

// a quarter of the shortest box side: a trial never crosses more than one periodic image
double FixGpumcNVT::max_displacement_cap() const
{
  const gpumc::Box box = GPUMC::box(lmp);
  return 0.25 * std::min({box.len[0], box.len[1], box.len[2]});
}

bool FixGpumcNVT::tuning_active() const
{
  return update->ntimestep < tune_until;
}

// A run's setup, before LAMMPS's pbc, exchange and binning use the coordinates (DomainKokkos's
// pbc has no check for non-numeric ones, as Domain::pbc has).
void FixGpumcNVT::setup_pre_exchange()
{
  GPUMC::stop_on_non_finite(lmp, style_name(), non_finite_owned());
}

void FixGpumcNVT::pre_exchange()
{
  if (next_reneighbor != update->ntimestep) return;
  // this runs before LAMMPS's pbc and its check: the steps since the last may have made the
  // coordinates non-numeric (an MD fix's blow-up)
  GPUMC::stop_on_non_finite(lmp, style_name(), non_finite_owned());
  run_invocation();
  if (drawing_velocities) draw_velocities();
  next_reneighbor = update->ntimestep + nevery;
}

void FixGpumcNVT::run_invocation()
{
  if (comm->nprocs > 1) {
    run_domain_invocation();
    return;
  }
  const auto conf = GPUMC::gather(lmp);
  gpumc::HostSystem sys(*table);
  sys.set_configuration(conf.x, conf.type, GPUMC::box(lmp));
  const std::vector<int> mobile = GPUMC::group_members(lmp, conf, groupbit);
  synchronise_energy(conf, sys);

  const gpumc::CounterRNG trans_rng(seed, gpumc::RNG_TRANSLATION);
  const gpumc::CounterRNG vol_rng(seed, gpumc::RNG_VOLUME);
  const gpumc::CounterRNG checker_rng(seed, gpumc::RNG_CHECKERBOARD);
  std::vector<char> mobile_flag;
  if (algorithm == ALGORITHM_CHECKERBOARD) {
    mobile_flag.assign(conf.type.size(), 0);
    for (int i : mobile) mobile_flag[i] = 1;
  }
  gpumc::VolumeMoveParams vp;
  vp.scheme = volume_scheme;
  vp.step = vstep;
  vp.beta = beta;
  vp.pressure_energy = pressure_energy;

  uint64_t trials = 0, accepted = 0, vtrials = 0, vaccepted = 0;
  bool box_changed = false;
  for (bigint s = 0; s < nsweeps; s++) {
    gpumc::MoveCounts counts;
    if (algorithm == ALGORITHM_CHECKERBOARD) {
      try {
        counts = gpumc::checkerboard_sweep(sys, mobile_flag, beta, dmax, checker_rng, total_sweeps, energy);
      } catch (std::runtime_error &e) {
        error->one(FLERR, "{}: {}", style_name(), e.what());
      }
    } else {
      counts = gpumc::translation_moves(sys, mobile, beta, dmax, trans_rng, trans_trials + trials, mobile.size(),
                                        energy);
    }
    trials += counts.trials;
    accepted += counts.accepted;
    if (npt)
      for (int v = 0; v < vmoves; v++) {
        if (gpumc::volume_move(sys, vp, vol_rng, vol_trials + vtrials, energy)) {
          vaccepted++;
          box_changed = true;
        }
        vtrials++;
      }
    total_sweeps++;
    if (check_due()) record_check(sys.canonical_total_energy());
  }
  GPUMC::scatter(lmp, conf, sys, box_changed);
  fingerprint = GPUMC::fingerprint(lmp, sys.positions(), conf.type, *table);
  finish_invocation(trials, accepted, vtrials, vaccepted);
}

// Checkerboard sweeps on several MPI ranks, each sweeping the cells of its subdomain
// (GPUMC::DomainSweeps): the same trials and decisions as the single-process sweeps.
void FixGpumcNVT::run_domain_invocation()
{
  setup_energy();
  const gpumc::CounterRNG checker_rng(seed, gpumc::RNG_CHECKERBOARD);
  const gpumc::CounterRNG vol_rng(seed, gpumc::RNG_VOLUME);
  gpumc::VolumeMoveParams vp;
  vp.scheme = volume_scheme;
  vp.step = vstep;
  vp.beta = beta;
  vp.pressure_energy = pressure_energy;
  const double start = MPI_Wtime();
  const std::unique_ptr<GPUMC::DomainSweeps> domain_sweeps = make_domain_sweeps();
  GPUMC::DomainSweeps &sweeps = *domain_sweeps;
  uint64_t trials = 0, accepted = 0, vtrials = 0, vaccepted = 0;
  // the ranks' counts and energy changes are summed only where the energy is needed
  auto settle = [&]() {
    const gpumc::MoveCounts counts = sweeps.settle(energy);
    trials += counts.trials;
    accepted += counts.accepted;
  };
  for (bigint s = 0; s < nsweeps; s++) {
    sweeps.sweep(checker_rng, total_sweeps, beta, dmax);
    if (npt) {
      settle();
      for (int v = 0; v < vmoves; v++) {
        if (sweeps.volume_move(vp, vol_rng, vol_trials + vtrials, energy)) vaccepted++;
        vtrials++;
      }
    }
    total_sweeps++;
    if (check_due()) {
      settle();
      record_check(sweeps.total_energy());
    }
  }
  settle();
  sweeps.finish();
  run_domain_seconds += MPI_Wtime() - start;
  run_domain_exchange_seconds += sweeps.exchange_seconds();
  run_domain_borders_seconds += sweeps.borders_seconds();
  run_domain_ghost_seconds += sweeps.ghost_seconds();
  fingerprint = fingerprint_ranks();
  finish_invocation(trials, accepted, vtrials, vaccepted);
}

uint64_t FixGpumcNVT::fingerprint_ranks()
{
  return GPUMC::fingerprint_ranks(lmp, *table);
}

long FixGpumcNVT::non_finite_owned()
{
  return GPUMC::non_finite_owned(lmp);
}

std::unique_ptr<GPUMC::DomainSweeps> FixGpumcNVT::make_domain_sweeps()
{
  return std::make_unique<GPUMC::DomainSweepsHost>(lmp, *table, groupbit, style_name(), ghosts);
}

void FixGpumcNVT::record_check(double full_energy)
{
  last_drift = energy - full_energy;
  if (!(std::fabs(last_drift) <= max_drift)) max_drift = std::fabs(last_drift);    // (a NaN drift shows)
  energy = full_energy;
}

void FixGpumcNVT::finish_invocation(uint64_t trials, uint64_t accepted, uint64_t vtrials, uint64_t vaccepted)
{
  if (npt && vaccepted) check_box_binnable();
  trans_trials += trials;
  trans_accepted += accepted;
  vol_trials += vtrials;
  vol_accepted += vaccepted;
  last_ratio = trials ? (double) accepted / (double) trials : 0.0;
  last_vratio = vtrials ? (double) vaccepted / (double) vtrials : 0.0;

  if (tuning_active()) {
    // (an invocation may make no trials: with frozen ghosts every atom can sit in a still layer)
    if (trials) dmax = gpumc::tuned_step(dmax, last_ratio, target, max_displacement_cap());
    if (npt && vtrials) vstep = gpumc::tuned_step(vstep, last_vratio, vtarget, max_volume_step());
  }
}

// Volume moves at a pressure too low to hold the system (P = 0 for a gas, say) let the box grow
// without bound, until LAMMPS cannot cut it into neighbor bins; stop before that with the cause.
void FixGpumcNVT::check_box_binnable()
{
  // LAMMPS's bins (NBinStandard): 0.5 cutneighmin wide unless set, at most MAXSMALLINT of them; a
  // sixteenth of that leaves room for the growth of one more invocation's volume moves
  const double binsize = neighbor->binsizeflag ? neighbor->binsize_user : 0.5 * neighbor->cutneighmin;
  if (binsize <= 0.0) return;
  const double volume = domain->xprd * domain->yprd * domain->zprd;
  if (volume / (binsize * binsize * binsize) < MAXSMALLINT / 16.0) return;
  error->all(FLERR, "{}: the volume moves have grown the box to {} x {} x {}, too large for LAMMPS's neighbor "
             "bins: nothing holds the system together at pressure {} (a gas at P = 0 expands without bound)",
             style_name(), domain->xprd, domain->yprd, domain->zprd, pressure);
}

/* ----------------------------------------------------------------------
   restart: the whole chain state, so that a restarted run continues the identical chain
------------------------------------------------------------------------- */

void FixGpumcNVT::write_restart(FILE *fp)
{
  // counters are below 2^53 and so exact as doubles
  const double list[] = {(double) RESTART_VERSION, (double) seed, dmax, vstep, energy, last_drift, max_drift,
                         last_ratio, last_vratio, (double) trans_trials, (double) trans_accepted,
                         (double) vol_trials, (double) vol_accepted, (double) total_sweeps,
                         tune_until == TUNE_ALWAYS ? -2.0 : (double) tune_until,
                         (double) (fingerprint >> 32), (double) (fingerprint & 0xffffffffULL)};
  const int n = sizeof(list) / sizeof(list[0]);
  if (comm->me == 0) {
    const int size = n * sizeof(double);
    fwrite(&size, sizeof(int), 1, fp);
    fwrite(list, sizeof(double), n, fp);
  }
}

void FixGpumcNVT::restart(char *buf)
{
  auto *list = (double *) buf;
  if ((int) list[0] != RESTART_VERSION)
    error->all(FLERR, "{}: the restart file holds GPUMC state of another version ({})", style_name(), (int) list[0]);
  if ((int) list[1] != seed && comm->me == 0)
    error->warning(FLERR, "{}: seed {} differs from the restart file's {}; the chain will not continue identically",
                   style_name(), seed, (int) list[1]);
  // displace, vstep and tune given in the command that redefined the fix win over the file's
  const std::string who = style_name();
  auto keep_or_restore = [&](bool given, const char *kw, double &value, double stored) {
    if (!given) {
      value = stored;
    } else if (value != stored && comm->me == 0) {
      utils::logmesg(lmp, "{} {}: {} {} from the command, not the restart file's {}\n", who, id, kw, value, stored);
    }
  };
  keep_or_restore(given_displace, "displace", dmax, list[2]);
  keep_or_restore(given_vstep, "vstep", vstep, list[3]);
  energy = list[4];
  last_drift = list[5];
  max_drift = list[6];
  last_ratio = list[7];
  last_vratio = list[8];
  trans_trials = (uint64_t) list[9];
  trans_accepted = (uint64_t) list[10];
  vol_trials = (uint64_t) list[11];
  vol_accepted = (uint64_t) list[12];
  total_sweeps = (bigint) list[13];
  const bigint stored_tune = list[14] == -2.0 ? TUNE_ALWAYS : (bigint) list[14];
  if (!given_tune)
    tune_until = stored_tune;
  else if (tune_until != stored_tune && comm->me == 0)
    utils::logmesg(lmp, "{} {}: tune from the command, not the restart file's\n", who, id);
  fingerprint = ((uint64_t) list[15] << 32) | (uint64_t) list[16];
}
