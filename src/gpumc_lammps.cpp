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
#include "info.h"
#include "neighbor.h"
#include "pair.h"
#include "utils.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace LAMMPS_NS;

namespace {

// Accelerator variants compute the same energies from the same coefficients.
const char *const ACCELERATOR_SUFFIXES[] = {"/kk/device", "/kk/host", "/kk", "/omp", "/opt", "/gpu", "/intel"};

std::string base_style(const std::string &style)
{
  for (const char *suffix : ACCELERATOR_SUFFIXES) {
    const std::string s(suffix);
    if (style.size() > s.size() && style.compare(style.size() - s.size(), s.size(), s) == 0)
      return style.substr(0, style.size() - s.size());
  }
  return style;
}

double **extract_2d(Pair *pair, const char *name, const std::string &who, Error *error)
{
  int dim = 0;
  auto *ptr = (double **) pair->extract(name, dim);
  if (!ptr || dim != 2) error->all(FLERR, "{}: cannot read coefficient '{}' from the pair style", who, name);
  return ptr;
}

}    // namespace

gpumc::PairTable GPUMC::pair_table(LAMMPS *lmp, const std::string &who)
{
  Error *error = lmp->error;
  Force *force = lmp->force;
  Pair *pair = force->pair;
  if (!pair || !force->pair_style || strcmp(force->pair_style, "none") == 0 || strcmp(force->pair_style, "zero") == 0)
    error->all(FLERR, "{} requires pair style morse or lj/cut", who);
  const std::string style = base_style(force->pair_style);
  const bool is_morse = style == "morse";
  const bool is_lj = style == "lj/cut";
  if (!is_morse && !is_lj)
    error->all(FLERR, "{} supports pair styles morse and lj/cut (and their /kk, /omp, /opt, /gpu, /intel variants), not {}",
               who, force->pair_style);

  const int ntypes = lmp->atom->ntypes;
  gpumc::PairTable table(ntypes);
  // Pair::offset_flag is protected; Info::is_active is LAMMPS's public query for it
  const bool shift = Info(lmp).is_active("pair", "shift");
  if (pair->tail_flag && is_lj) table.tail.assign((ntypes + 1) * (ntypes + 1), 0.0);
  const std::string full_style = force->pair_style;
  if (shift && is_morse && full_style.find("/kk") != std::string::npos && lmp->comm->me == 0)
    error->warning(FLERR, "{}: pair style {} of LAMMPS 4Feb2025 ignores pair_modify shift (fixed upstream in "
                   "lammps/lammps#5182): thermo pe omits the offsets, while GPUMC's energies include them as pair "
                   "style morse does", who, full_style);
  if (pair->tail_flag && is_morse && lmp->comm->me == 0)
    error->warning(FLERR, "{}: pair style morse has no tail correction in LAMMPS; 'pair_modify tail yes' adds nothing", who);

  // The styles keep their coefficients for i <= j only (lj/cut never mirrors epsilon and sigma
  // to [j][i]), so read the upper triangle and mirror it.
  auto set_pair = [&](int i, int j, const gpumc::PairCoeff &c, double tail) {
    table.at(i, j) = table.at(j, i) = c;
    if (!table.tail.empty()) table.tail[i * (ntypes + 1) + j] = table.tail[j * (ntypes + 1) + i] = tail;
  };
  if (is_lj) {
    double **eps = extract_2d(pair, "epsilon", who, error);
    double **sig = extract_2d(pair, "sigma", who, error);
    for (int i = 1; i <= ntypes; i++)
      for (int j = i; j <= ntypes; j++) {
        const double cut = std::sqrt(pair->cutsq[i][j]);
        const double tail = gpumc::lj_cut_tail_coeff(eps[i][j], sig[i][j], cut);
        if (!table.tail.empty() && !std::isfinite(tail))
          error->all(FLERR, "{}: pair_modify tail yes with a cutoff of {} for types {} {}: the tail correction is "
                     "infinite", who, cut, i, j);
        set_pair(i, j, gpumc::make_lj_cut(eps[i][j], sig[i][j], cut, shift), tail);
      }
  } else {
    double **d0 = extract_2d(pair, "d0", who, error);
    double **alpha = extract_2d(pair, "alpha", who, error);
    double **r0 = extract_2d(pair, "r0", who, error);
    for (int i = 1; i <= ntypes; i++)
      for (int j = i; j <= ntypes; j++)
        set_pair(i, j, gpumc::make_morse(d0[i][j], alpha[i][j], r0[i][j], std::sqrt(pair->cutsq[i][j]), shift), 0.0);
  }
  table.finalize();
  return table;
}

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
  if (lmp->comm->nprocs != 1)
    error->all(FLERR, "{} runs on a single MPI process (found {}); run it with one process", who, lmp->comm->nprocs);
  if (lmp->atom->molecular != Atom::ATOMIC)
    error->all(FLERR, "{} requires an atomic system (no bonds, angles or molecules)", who);
  if (lmp->force->kspace) error->all(FLERR, "{} does not support kspace styles", who);
  if (lmp->domain->triclinic) error->all(FLERR, "{} does not support triclinic boxes", who);
  if (!lmp->domain->xperiodic || !lmp->domain->yperiodic || !lmp->domain->zperiodic)
    error->all(FLERR, "{} requires a box periodic in x, y and z", who);
  if (lmp->atom->natoms > (bigint) INT32_MAX / 2) error->all(FLERR, "{} supports at most 2^30 atoms", who);
  if (lmp->atom->tag_enable == 0) error->all(FLERR, "{} requires atom IDs", who);
  // Neighbor::exclude itself is only set in Neighbor::init(), after the fixes' init()
  const Neighbor *nb = lmp->neighbor;
  if (nb->nex_type || nb->nex_group || nb->nex_mol)
    error->all(FLERR, "{} does not support neigh_modify exclude (excluded pairs would still interact)", who);
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
    if (shift[3 * k] || shift[3 * k + 1] || shift[3 * k + 2]) {
      imageint xbox = (image[i] & IMGMASK) - IMGMAX;
      imageint ybox = (image[i] >> IMGBITS & IMGMASK) - IMGMAX;
      imageint zbox = (image[i] >> IMG2BITS) - IMGMAX;
      xbox += shift[3 * k];
      ybox += shift[3 * k + 1];
      zbox += shift[3 * k + 2];
      image[i] = ((imageint) (xbox + IMGMAX) & IMGMASK) | (((imageint) (ybox + IMGMAX) & IMGMASK) << IMGBITS) |
          (((imageint) (zbox + IMGMAX) & IMGMASK) << IMG2BITS);
    }
  }
  if (box_changed) {
    const gpumc::Box &b = sys.box();
    for (int d = 0; d < 3; d++) {
      domain->boxlo[d] = b.lo[d];
      domain->boxhi[d] = b.lo[d] + b.len[d];
    }
    domain->set_global_box();
    domain->set_local_box();
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

namespace {
// FNV-1a over raw bytes
void fnv1a(uint64_t &h, const void *data, size_t nbytes)
{
  const auto *b = (const unsigned char *) data;
  for (size_t k = 0; k < nbytes; k++) {
    h ^= b[k];
    h *= 1099511628211ULL;
  }
}
}    // namespace

uint64_t GPUMC::fingerprint(LAMMPS *lmp, const std::vector<double> &x, const std::vector<int> &type,
                            const gpumc::PairTable &table)
{
  uint64_t h = 1469598103934665603ULL;
  fnv1a(h, x.data(), x.size() * sizeof(double));
  fnv1a(h, type.data(), type.size() * sizeof(int));
  return fingerprint(lmp, h, table);
}

uint64_t GPUMC::fingerprint(LAMMPS *lmp, uint64_t configuration, const gpumc::PairTable &table)
{
  uint64_t h = 1469598103934665603ULL;
  fnv1a(h, &configuration, sizeof(configuration));
  fnv1a(h, lmp->domain->boxlo, 3 * sizeof(double));
  fnv1a(h, lmp->domain->boxhi, 3 * sizeof(double));
  for (const auto &c : table.coeff) {
    const double v[6] = {(double) c.kind, c.cutsq, c.a, c.b, c.c, c.offset};
    fnv1a(h, v, sizeof(v));
  }
  fnv1a(h, table.tail.data(), table.tail.size() * sizeof(double));
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
