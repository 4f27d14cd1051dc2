/* ----------------------------------------------------------------------
   GPUMC: compute widom (host version).
------------------------------------------------------------------------- */

#include "compute_widom.h"

#include "gpumc_lammps.h"
#include "gpumc_moves.h"

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "force.h"
#include "update.h"
#include "utils.h"

#include <cmath>

using namespace LAMMPS_NS;

static constexpr int NVECTOR = 6;

ComputeWidom::ComputeWidom(LAMMPS *lmp, int narg, char **arg) :
    Compute(lmp, narg, arg), itype(0), ninsert(0), temperature(0.0), kT(0.0), beta(0.0), seed(0), mixed_precision(false),
    block_factor(0.0), insertions_total(0.0), last_step(-1), last_fingerprint(0), insertions_before_last(0.0)
{
  const std::string who = "compute widom";
  if (narg < 7) utils::missing_cmd_args(FLERR, who, error);
  if (igroup != 0) error->all(FLERR, "{}: requires group all (a test particle interacts with every atom)", who);
  itype = utils::inumeric(FLERR, arg[3], false, lmp);
  ninsert = utils::bnumeric(FLERR, arg[4], false, lmp);
  temperature = utils::numeric(FLERR, arg[5], false, lmp);
  seed = utils::inumeric(FLERR, arg[6], false, lmp);
  if (itype < 1 || itype > atom->ntypes) error->all(FLERR, "{}: atom type {} out of range", who, arg[3]);
  if (ninsert <= 0) error->all(FLERR, "{}: number of insertions must be > 0", who);
  if (temperature <= 0.0) error->all(FLERR, "{}: temperature must be > 0", who);
  if (seed <= 0) error->all(FLERR, "{}: seed must be a positive integer", who);
  for (int iarg = 7; iarg < narg; iarg += 2) {
    const std::string kw = arg[iarg];
    if (kw != "precision") error->all(FLERR, "{}: unknown keyword {}", who, kw);
    if (iarg + 2 > narg) utils::missing_cmd_args(FLERR, who + " " + kw, error);
    mixed_precision = GPUMC::parse_precision(lmp, who, arg[iarg + 1]);
  }

  scalar_flag = vector_flag = 1;
  size_vector = NVECTOR;
  extscalar = extvector = 0;
  vector = new double[NVECTOR]();
}

ComputeWidom::~ComputeWidom()
{
  delete[] vector;
}

void ComputeWidom::init()
{
  GPUMC::check_system(lmp, "compute widom");
  if (mixed_precision && !kokkosable)
    error->all(FLERR, "compute widom: precision mixed is an option of the Kokkos style compute widom/kk");
  table = std::make_unique<gpumc::PairTable>(GPUMC::pair_table(lmp, "compute widom"));
  if (mixed_precision && table->has_tables())
    error->all(FLERR, "compute widom: precision mixed does not support pair_style table; use precision double");
  if (mixed_precision && table->ewald.enabled)
    error->all(FLERR, "compute widom: precision mixed does not support kspace_style ewald; use precision double");
  if (!table->charge.empty() && std::isnan(table->charge[itype]))
    error->all(FLERR, "compute widom: type {} has no atoms, so its charge is unknown and its Coulomb terms cannot be "
               "evaluated", itype);
  const gpumc::Box box = GPUMC::box(lmp);
  for (int d = 0; d < 3; d++)
    if (box.len[d] < 2.0 * table->cut_max)
      error->all(FLERR, "compute widom: box side {} is shorter than twice the largest pair cutoff {}",
                 box.len[d], table->cut_max);
  kT = force->boltz * temperature;
  beta = 1.0 / kT;
}

uint64_t ComputeWidom::load_configuration()
{
  GPUMC::stop_on_non_finite(lmp, "compute widom", GPUMC::non_finite_owned(lmp));    // (the cells need numbers)
  conf = GPUMC::gather(lmp);
  return GPUMC::fingerprint(lmp, conf.x, conf.type, *table);
}

double ComputeWidom::insertion_block(uint64_t block, uint64_t &done)
{
  done = ninsert;
  gpumc::HostSystem sys(*table);
  sys.set_configuration(conf.x, conf.type, GPUMC::box(lmp));
  const gpumc::CounterRNG rng(seed, gpumc::RNG_WIDOM + 16 * (uint64_t) itype);
  if (comm->nprocs == 1) return gpumc::widom_insertions(sys, itype, beta, rng, block, ninsert);
  // on several MPI ranks each rank makes a share of the block's insertions (every rank has the
  // whole configuration: GPUMC::gather)
  const uint64_t first = ninsert * (uint64_t) comm->me / (uint64_t) comm->nprocs;
  const uint64_t last = ninsert * (uint64_t) (comm->me + 1) / (uint64_t) comm->nprocs;
  double mine = gpumc::widom_insertion_sum(sys, itype, beta, rng, block, first, last);
  double sum = 0.0;
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, world);
  return sum / (double) ninsert;
}

// One block of insertions per timestep, however many times output asks for the values; a
// configuration changed within the timestep (delete_atoms between two run 0, say) replaces it.
void ComputeWidom::invoke()
{
  const uint64_t now = load_configuration();
  if (last_step == update->ntimestep) {
    if (now == last_fingerprint) return;
    blocks = blocks_before_last;
    insertions_total = insertions_before_last;
  }
  last_step = update->ntimestep;
  last_fingerprint = now;
  blocks_before_last = blocks;
  insertions_before_last = insertions_total;
  uint64_t done = 0;
  block_factor = insertion_block((uint64_t) update->ntimestep, done);
  insertions_total += (double) done;
  const double volume = domain->xprd * domain->yprd * domain->zprd;
  blocks.add_block(volume * block_factor, volume);
}

double ComputeWidom::compute_scalar()
{
  invoked_scalar = update->ntimestep;
  invoke();
  scalar = gpumc::widom_mu_ex(kT, blocks.ratio());
  return scalar;
}

void ComputeWidom::compute_vector()
{
  invoked_vector = update->ntimestep;
  invoke();
  const double mean = blocks.ratio();
  vector[0] = gpumc::widom_mu_ex(kT, block_factor);
  vector[1] = gpumc::widom_mu_ex(kT, mean);
  vector[2] = gpumc::widom_mu_ex_error(kT, mean, blocks.standard_error());
  vector[3] = mean;
  vector[4] = insertions_total;
  vector[5] = (double) blocks.nblocks;
}
