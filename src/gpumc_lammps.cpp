/* ----------------------------------------------------------------------
   GPUMC: adapter between LAMMPS and the shared GPUMC physics.
------------------------------------------------------------------------- */

#include "gpumc_lammps.h"
#include "gpumc_velocities.h"

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "force.h"
#include "fix.h"
#include "kspace.h"
#include "modify.h"
#include "neighbor.h"
#include "utils.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace LAMMPS_NS;

bool GPUMC::parse_precision(LAMMPS *lmp, const std::string &who, const char *value)
{
  if (strcmp(value, "mixed") == 0) return true;
  if (strcmp(value, "double") != 0)
    lmp->error->all(FLERR, "{}: precision takes double or mixed, not {}", who, value);
  return false;
}

void GPUMC::check_system(LAMMPS *lmp, const std::string &who)
{
  Error *error = lmp->error;
  if (lmp->atom->molecular != Atom::ATOMIC)
    error->all(FLERR, "{} requires an atomic system (no bonds, angles or molecules)", who);
  if (lmp->domain->triclinic) error->all(FLERR, "{} does not support triclinic boxes", who);
  if (!lmp->domain->xperiodic || !lmp->domain->yperiodic || !lmp->domain->zperiodic)
    error->all(FLERR, "{} requires a box periodic in x, y and z", who);
  if (lmp->atom->natoms > (bigint) INT32_MAX / 2) error->all(FLERR, "{} supports at most 2^30 atoms", who);
  if (lmp->atom->tag_enable == 0) error->all(FLERR, "{} requires atom IDs", who);
  // GPUMC reads the interactions and charges once per run; fix adapt changes them within one
  for (const Fix *fix : lmp->modify->get_fix_list())
    if (utils::strmatch(fix->style, "^adapt"))
      error->all(FLERR, "{} does not support fix {} (it changes pair coefficients, the k-space scale or charges "
                 "during a run, which GPUMC reads once per run); change them between runs instead", who, fix->style);
  // Neighbor::exclude itself is only set in Neighbor::init(), after the fixes' init()
  const Neighbor *nb = lmp->neighbor;
  if (nb->nex_type || nb->nex_group || nb->nex_mol)
    error->all(FLERR, "{} does not support neigh_modify exclude (excluded pairs would still interact)", who);
}

void GPUMC::check_one_process(LAMMPS *lmp, const std::string &who, const std::string &instead)
{
  if (lmp->comm->nprocs != 1)
    lmp->error->all(FLERR, "{} runs on a single MPI process (found {}){}", who, lmp->comm->nprocs, instead);
}

gpumc::Box GPUMC::box(LAMMPS *lmp)
{
  gpumc::Box b;
  for (int d = 0; d < 3; d++) {
    b.lo[d] = lmp->domain->boxlo[d];
    b.len[d] = lmp->domain->boxhi[d] - lmp->domain->boxlo[d];
  }
  return b;
}

GPUMC::Configuration GPUMC::gather(LAMMPS *lmp)
{
  Atom *atom = lmp->atom;
  const int nlocal = atom->nlocal;
  Configuration conf;
  if (lmp->comm->nprocs == 1) {
    conf.local.resize(nlocal);
    std::iota(conf.local.begin(), conf.local.end(), 0);
    tagint *tag = atom->tag;
    std::sort(conf.local.begin(), conf.local.end(), [tag](int a, int b) { return tag[a] < tag[b]; });
    conf.x.resize(3 * (size_t) nlocal);
    conf.type.resize(nlocal);
    double **x = atom->x;
    for (int k = 0; k < nlocal; k++) {
      const int i = conf.local[k];
      for (int d = 0; d < 3; d++) conf.x[3 * k + d] = x[i][d];
      conf.type[k] = atom->type[i];
    }
    return conf;
  }
  // every rank's atoms as (ID, type, x, y, z); IDs and types are exact in doubles (IDs < 2^31)
  constexpr int RECORD = 5;
  std::vector<double> mine(RECORD * (size_t) nlocal);
  for (int i = 0; i < nlocal; i++) {
    double *r = &mine[RECORD * (size_t) i];
    r[0] = (double) atom->tag[i];
    r[1] = (double) atom->type[i];
    for (int d = 0; d < 3; d++) r[2 + d] = atom->x[i][d];
  }
  const int nprocs = lmp->comm->nprocs;
  int count = RECORD * nlocal;
  std::vector<int> counts(nprocs), displs(nprocs, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, lmp->world);
  for (int p = 1; p < nprocs; p++) displs[p] = displs[p - 1] + counts[p - 1];
  const int total = (displs[nprocs - 1] + counts[nprocs - 1]) / RECORD;
  std::vector<double> all(RECORD * (size_t) total);
  MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, lmp->world);
  std::vector<int> order(total);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return all[RECORD * (size_t) a] < all[RECORD * (size_t) b]; });
  conf.x.resize(3 * (size_t) total);
  conf.type.resize(total);
  conf.local.assign(total, -1);
  const int first_mine = displs[lmp->comm->me] / RECORD;
  for (int k = 0; k < total; k++) {
    const double *r = &all[RECORD * (size_t) order[k]];
    conf.type[k] = (int) r[1];
    for (int d = 0; d < 3; d++) conf.x[3 * k + d] = r[2 + d];
    if (order[k] >= first_mine && order[k] < first_mine + nlocal) conf.local[k] = order[k] - first_mine;
  }
  return conf;
}

void GPUMC::scatter(LAMMPS *lmp, const Configuration &conf, const gpumc::HostSystem &sys, bool box_changed)
{
  Atom *atom = lmp->atom;
  Domain *domain = lmp->domain;
  const std::vector<double> pos = sys.positions();
  const std::vector<int> &shift = sys.image_shifts();
  double **x = atom->x;
  imageint *image = atom->image;
  for (size_t k = 0; k < conf.local.size(); k++) {
    const int i = conf.local[k];
    for (int d = 0; d < 3; d++) x[i][d] = pos[3 * k + d];
    if (shift[3 * k] || shift[3 * k + 1] || shift[3 * k + 2])
      image[i] = shifted_image(image[i], shift[3 * k], shift[3 * k + 1], shift[3 * k + 2]);
  }
  if (box_changed) {
    const gpumc::Box &b = sys.box();
    for (int d = 0; d < 3; d++) {
      domain->boxlo[d] = b.lo[d];
      domain->boxhi[d] = b.lo[d] + b.len[d];
    }
    domain->set_global_box();
    domain->set_local_box();
    // as fix npt does: the k-space solver's wave vectors follow the box
    if (lmp->force->kspace) lmp->force->kspace->setup();
  }
}

std::vector<int> GPUMC::group_members(LAMMPS *lmp, const Configuration &conf, int groupbit)
{
  std::vector<int> members;
  int *mask = lmp->atom->mask;
  for (size_t k = 0; k < conf.local.size(); k++)
    if (mask[conf.local[k]] & groupbit) members.push_back((int) k);
  return members;
}

void GPUMC::stop_on_non_finite(LAMMPS *lmp, const std::string &who, long mine)
{
  long all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, lmp->world);
  if (all) lmp->error->all(FLERR, "{}: Non-numeric atom coords - simulation unstable", who);
}

long GPUMC::non_finite_owned(LAMMPS *lmp)
{
  Atom *atom = lmp->atom;
  long bad = 0;
  for (int i = 0; i < atom->nlocal; i++)
    for (int d = 0; d < 3; d++)
      if (!std::isfinite(atom->x[i][d])) bad++;
  return bad;
}

using GPUMC::fnv1a;

uint64_t GPUMC::fingerprint(LAMMPS *lmp, const std::vector<double> &x, const std::vector<int> &type,
                            const gpumc::PairTable &table)
{
  uint64_t h = 1469598103934665603ULL;
  fnv1a(h, x.data(), x.size() * sizeof(double));
  fnv1a(h, type.data(), type.size() * sizeof(int));
  return fingerprint(lmp, h, table);
}

uint64_t GPUMC::fingerprint_ranks(LAMMPS *lmp, const gpumc::PairTable &table)
{
  Atom *atom = lmp->atom;
  // sums of the hashes' two halves: the same whichever rank holds which atom, exact below 2^31 atoms
  long long mine[2] = {0, 0};
  for (int i = 0; i < atom->nlocal; i++) {
    const uint64_t h = atom_hash(atom->tag[i], atom->type[i], atom->x[i]);
    mine[0] += (long long) (h & 0xffffffffULL);
    mine[1] += (long long) (h >> 32);
  }
  return fingerprint_of_sums(lmp, mine, table);
}

uint64_t GPUMC::fingerprint_of_sums(LAMMPS *lmp, const long long mine[2], const gpumc::PairTable &table)
{
  long long all[2] = {0, 0};
  MPI_Allreduce((void *) mine, all, 2, MPI_LONG_LONG, MPI_SUM, lmp->world);
  uint64_t h = 1469598103934665603ULL;
  fnv1a(h, all, sizeof(all));
  return fingerprint(lmp, h, table);
}

uint64_t GPUMC::fingerprint(LAMMPS *lmp, uint64_t configuration, const gpumc::PairTable &table)
{
  uint64_t h = 1469598103934665603ULL;
  fnv1a(h, &configuration, sizeof(configuration));
  fnv1a(h, lmp->domain->boxlo, 3 * sizeof(double));
  fnv1a(h, lmp->domain->boxhi, 3 * sizeof(double));
  for (const auto &c : table.coeff) {
    const double v[8] = {(double) c.kind, c.cutsq, c.a, c.b, c.c, c.d, c.e, c.offset};
    fnv1a(h, v, sizeof(v));
  }
  fnv1a(h, table.tail.data(), table.tail.size() * sizeof(double));
  fnv1a(h, table.self.data(), table.self.size() * sizeof(double));
  const gpumc::EwaldSettings &e = table.ewald;
  const double ewald[8] = {(double) e.enabled, e.g_ewald, e.accuracy, e.q2, (double) e.natoms,
                           (double) e.kmax_fixed[0], (double) e.kmax_fixed[1], (double) e.kmax_fixed[2]};
  fnv1a(h, ewald, sizeof(ewald));
  return h;
}

void GPUMC::draw_velocities(LAMMPS *lmp, int groupbit, const gpumc::CounterRNG &rng, uint64_t draw, double temperature)
{
  Atom *atom = lmp->atom;
  const double kT = lmp->force->boltz * temperature;
  double momentum[4] = {0.0, 0.0, 0.0, 0.0};    // sum of m v, and of m
  auto mass_of = [&](int i) { return atom->rmass ? atom->rmass[i] : atom->mass[atom->type[i]]; };
  for (int i = 0; i < atom->nlocal; i++) {
    if (!(atom->mask[i] & groupbit)) continue;
    const double m = mass_of(i);
    gpumc::maxwell_velocity(rng, draw, (uint64_t) atom->tag[i], gpumc::maxwell_sigma(kT, m, lmp->force->mvv2e),
                            atom->v[i]);
    for (int d = 0; d < 3; d++) momentum[d] += m * atom->v[i][d];
    momentum[3] += m;
  }
  double total[4];
  MPI_Allreduce(momentum, total, 4, MPI_DOUBLE, MPI_SUM, lmp->world);
  if (total[3] <= 0.0) return;
  for (int i = 0; i < atom->nlocal; i++)
    if (atom->mask[i] & groupbit)
      for (int d = 0; d < 3; d++) atom->v[i][d] -= total[d] / total[3];
}
