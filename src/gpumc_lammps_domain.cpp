/* ----------------------------------------------------------------------
   GPUMC: checkerboard sweeps on several MPI ranks, driven through LAMMPS's own Comm
   (gpumc_lammps.h: DomainSweeps, the driver every backend shares, and DomainSweepsHost, the host
   styles' backend with the engine of gpumc_domain_host.h).
------------------------------------------------------------------------- */

#include "gpumc_lammps.h"

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"

using namespace LAMMPS_NS;

GPUMC::DomainSweeps::DomainSweeps(LAMMPS *lmp, const gpumc::PairTable &table, int groupbit,
                                  const std::string &who, Ghosts ghosts) :
    lmp_(lmp), table_(table), groupbit_(groupbit), who_(who), ghosts_(ghosts)
{
  Comm *comm = lmp->comm;
  if (comm->style != Comm::BRICK || comm->layout != Comm::LAYOUT_UNIFORM)
    lmp->error->all(FLERR, "{} on several MPI processes needs equal subdomains (comm_style brick, no balance or "
                    "fix balance), so that the checkerboard's cells fall on the subdomain walls", who);
  std::vector<long> mine(table.ntypes + 1, 0);
  Atom *atom = lmp->atom;
  for (int i = 0; i < atom->nlocal; i++) mine[atom->type[i]]++;
  type_count_.resize(mine.size());
  MPI_Allreduce(mine.data(), type_count_.data(), (int) mine.size(), MPI_LONG, MPI_SUM, lmp->world);
}

void GPUMC::DomainSweeps::wrap_atoms()
{
  lmp_->domain->pbc();
}

void GPUMC::DomainSweeps::exchange_atoms()
{
  lmp_->comm->exchange();
}

void GPUMC::DomainSweeps::copy_ghosts()
{
  lmp_->comm->borders();
}

// Translate the owned atoms; the callers then let Comm move them to their ranks.
void GPUMC::DomainSweeps::translate(const double delta[3])
{
  translate_atoms(delta);
  for (int d = 0; d < 3; d++) offset_[d] += delta[d];
}

void GPUMC::DomainSweeps::sweep(const gpumc::CounterRNG &rng, uint64_t sweep, double beta, double dmax)
{
  Comm *comm = lmp_->comm;
  if (!block_current_) {
    const gpumc::Box box = GPUMC::box(lmp_);
    gpumc::CheckerGrid g;
    if (!gpumc::checker_grid(rng, sweep, box.lo, box.len, gpumc::checker_min_width(table_.cut_max), g,
                             comm->procgrid))
      grid_error(box);
    // the grid's shift becomes a translation of the system, the grid's origin the box's corner;
    // with one grid (frozen or alternating ghosts), by up to one whole cell more (less than two
    // cells in all, within a block of at least two, so that exchange still moves atoms one
    // subdomain at most)
    int cells[3] = {0, 0, 0};
    if (one_grid()) {
      for (int d = 0; d < 3; d++) frozen_cells_check(g, d);
      gpumc::domain_extra_cells(rng, sweep, cells);
    }
    double delta[3];
    for (int d = 0; d < 3; d++) {
      delta[d] = -(g.origin[d] - g.lo[d]) - cells[d] * g.w[d] - offset_[d];
      g.origin[d] = g.lo[d];
    }
    double start = comm_start();
    if (!first_exchange_prepared_) prepare_first_exchange(delta);
    translate(delta);
    exchange_atoms();
    comm_end(start, exchange_seconds_);
    start = comm_start();
    copy_ghosts();
    comm_end(start, borders_seconds_);
    build(g, true);
    // no trial takes an atom out of its cell, so with one grid the cells (and with frozen ghosts
    // the ghosts that trials read) stay as they are for the next sweep
    block_current_ = one_grid();
  }
  if (ghosts_ == Ghosts::ALTERNATE) alternate_still_layer(sweep);
  int order[8];
  gpumc::checker_colour_order(rng, sweep, order);
  sweep_colours(order, rng, sweep, beta, dmax);
  if (one_grid()) ghosts_stale_ = true;
}

// Alternating ghosts: along each side that several ranks split, the still layer at the upper or
// the lower walls, the k-th such side taking the side of bit k of the sweep's number (every
// combination in 2, 4 or 8 sweeps), with the ghosts refreshed in between. A trial then reads only
// ghosts of the other ranks' still layers and the rank's own images (moved after each colour), as
// with frozen ghosts, and every cell moves in one sweep of 2, 4 or 8 at least. (The sides depend
// on the sweep's number alone, not on the configuration: each sweep leaves the Boltzmann
// distribution invariant.)
void GPUMC::DomainSweeps::alternate_still_layer(uint64_t sweep)
{
  if (ghosts_stale_) ghosts_anew();
  bool changed = false;
  int bit = 0;
  for (int d = 0; d < 3; d++)
    if (block_.moving[d] < block_.count[d]) {
      const int lowest = (sweep >> bit++) & 1 ? 2 : 1;
      changed = changed || block_.lowest[d] != lowest;
      block_.lowest[d] = lowest;
    }
  if (changed) set_tried_cells(block_);
}

// The invocation's first translation: LAMMPS's exchange moves an atom by one subdomain at most,
// so the atoms are first put with the ranks whose subdomains hold them (the previous invocation
// left them where its translation had them, less that translation: up to two cells away; other
// fixes may have moved them since) unless every atom is within one subdomain of its place after
// this translation, as along a dimension of at most 3 processes always. One exchange instead of two.
void GPUMC::DomainSweeps::prepare_first_exchange(const double delta[3])
{
  first_exchange_prepared_ = true;
  wrap_atoms();
  const int *procgrid = lmp_->comm->procgrid;
  if (procgrid[0] <= 3 && procgrid[1] <= 3 && procgrid[2] <= 3) return;
  int mine = owned_within_one_subdomain(delta) ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, lmp_->world);
  if (!all) exchange_atoms();
}

gpumc::MoveCounts GPUMC::DomainSweeps::settle(double &energy)
{
  double dU = 0.0;
  gpumc::MoveCounts counts = take_pending(dU);
  double local[3] = {dU, (double) counts.trials, (double) counts.accepted};
  double total[3];
  MPI_Allreduce(local, total, 3, MPI_DOUBLE, MPI_SUM, lmp_->world);
  energy += total[0];
  counts.trials = (uint64_t) total[1];
  counts.accepted = (uint64_t) total[2];
  return counts;
}

void GPUMC::DomainSweeps::colour_done()
{
  if (!one_grid()) ghosts_anew();
}

void GPUMC::DomainSweeps::ghosts_anew()
{
  const double start = comm_start();
  forward_ghosts();
  refresh_ghosts();
  comm_end(start, ghost_seconds_);
  ghosts_stale_ = false;
}

void GPUMC::DomainSweeps::forward_ghosts()
{
  lmp_->comm->forward_comm();
}

double GPUMC::DomainSweeps::comm_start()
{
  wait();
  return MPI_Wtime();
}

void GPUMC::DomainSweeps::comm_end(double start, double &total)
{
  wait();
  total += MPI_Wtime() - start;
}

// The grid of the current box, its origin at the box's corner (energies need no shift).
gpumc::CheckerGrid GPUMC::DomainSweeps::unshifted_grid() const
{
  const gpumc::Box box = GPUMC::box(lmp_);
  gpumc::CheckerGrid g;
  if (!gpumc::checker_grid(gpumc::CounterRNG(1, 0), 0, box.lo, box.len, gpumc::checker_min_width(table_.cut_max), g,
                           lmp_->comm->procgrid))
    grid_error(box);
  for (int d = 0; d < 3; d++) g.origin[d] = g.lo[d];
  return g;
}

void GPUMC::DomainSweeps::grid_error(const gpumc::Box &box) const
{
  const Comm *comm = lmp_->comm;
  lmp_->error->all(FLERR,
                   "{}: the box ({} x {} x {}) cannot be cut into checkerboard cells at least {} wide whose number "
                   "along each side is even and a multiple of the processor grid's {} x {} x {}; use fewer "
                   "processes or set the grid with the processors command",
                   who_, box.len[0], box.len[1], box.len[2], table_.cut_max, comm->procgrid[0], comm->procgrid[1],
                   comm->procgrid[2]);
}

void GPUMC::DomainSweeps::build(gpumc::CheckerGrid g, bool for_sweeps)
{
  Comm *comm = lmp_->comm;
  gpumc::DomainBlock &block = block_;
  block.grid = g;
  for (int d = 0; d < 3; d++) {
    block.count[d] = g.n[d] / comm->procgrid[d];
    block.first[d] = comm->myloc[d] * block.count[d];
    // one grid: along a side of one rank the ghosts are the rank's own periodic images, which its
    // engine moves with their atoms; along the others the upper layer is still
    const bool frozen = one_grid() && for_sweeps, own_images = comm->procgrid[d] == 1;
    block.lowest[d] = 1;
    block.moving[d] = frozen && !own_images ? block.count[d] - 1 : block.count[d];
    block.images[d] = frozen && own_images ? 1 : 0;
    block.sublo[d] = lmp_->domain->sublo[d];
    block.subhi[d] = lmp_->domain->subhi[d];
    // every atom of the cells next to the subdomain must be a ghost: they can move anywhere in them
    if (comm->cutghost[d] < g.w[d])
      lmp_->error->all(FLERR, "{}: the ghost cutoff {} is shorter than the checkerboard's cells ({} wide); set it "
                       "with comm_modify cutoff {} (twice the largest pair cutoff, {}, covers the cells of any box, "
                       "as volume moves need)", who_, comm->cutghost[d], g.w[d], g.w[d] * (1.0 + 1e-6),
                       2.0 * table_.cut_max);
  }
  build_engine(block);
  ghosts_stale_ = false;
}

void GPUMC::DomainSweeps::frozen_cells_check(const gpumc::CheckerGrid &g, int d) const
{
  const int count = g.n[d] / lmp_->comm->procgrid[d];
  if (count < 2)
    lmp_->error->all(FLERR, "{}: ghosts {} needs at least 2 checkerboard cells per process along each side "
                     "(here {} along dimension {}, cells {} wide); use fewer processes or ghosts refresh",
                     who_, ghosts_name(ghosts_), count, "xyz"[d], g.w[d]);
}

void GPUMC::DomainSweeps::refresh_borders()
{
  Atom *atom = lmp_->atom;
  lmp_->comm->setup();
  // the old ghosts' map entries go with them, as Comm::exchange clears them
  if (atom->map_style != Atom::MAP_NONE) atom->map_clear();
  atom->nghost = 0;
  copy_ghosts();
}

bool GPUMC::DomainSweeps::volume_move(const gpumc::VolumeMoveParams &p, const gpumc::CounterRNG &rng,
                                      uint64_t move, double &energy)
{
  Domain *domain = lmp_->domain;
  const gpumc::Box old = GPUMC::box(lmp_);
  double len[3];
  const double u = gpumc::propose_volume(rng, move, p.scheme, p.step, old.len, len);
  for (int d = 0; d < 3; d++)
    if (!(len[d] >= 2.0 * table_.cut_max)) return false;    // outside the allowed region: pi = 0

  // in the frame of the box, as on one process: positions scaled about the box's centre
  const double back[3] = {-offset_[0], -offset_[1], -offset_[2]};
  translate(back);
  block_current_ = false;
  exchange_atoms();
  save_atoms();
  double saved_lo[3], saved_hi[3];
  for (int d = 0; d < 3; d++) {
    saved_lo[d] = domain->boxlo[d];
    saved_hi[d] = domain->boxhi[d];
  }
  auto set_box = [&](const double lo[3], const double hi[3]) {
    for (int d = 0; d < 3; d++) {
      domain->boxlo[d] = lo[d];
      domain->boxhi[d] = hi[d];
    }
    domain->set_global_box();
    domain->set_local_box();
  };
  double lo[3], hi[3], scale[3];
  for (int d = 0; d < 3; d++) {
    lo[d] = old.lo[d] + 0.5 * old.len[d] - 0.5 * len[d];
    hi[d] = lo[d] + len[d];
    scale[d] = len[d] / old.len[d];
  }
  set_box(lo, hi);
  // each subdomain scales with the box, so every atom stays with its rank (up to round-off at a
  // wall, which the engine allows for and LAMMPS's next exchange settles)
  scale_atoms(old.lo, lo, scale);
  refresh_borders();
  const gpumc::Box trial = GPUMC::box(lmp_);
  build(unshifted_grid(), false);
  const double e_new = total_energy();
  int accept = gpumc::metropolis_accept(gpumc::volume_log_ratio(p.beta, e_new - energy, p.pressure_energy,
                                                                old.volume(), trial.volume(),
                                                                (double) lmp_->atom->natoms, p.scheme),
                                        u);
  // one decision for all ranks, whatever the reduction's rounding on each
  MPI_Bcast(&accept, 1, MPI_INT, 0, lmp_->world);
  if (accept) {
    energy = e_new;
  } else {
    set_box(saved_lo, saved_hi);    // exactly the old box
    restore_atoms();
    refresh_borders();
    build(unshifted_grid(), false);
  }
  return accept != 0;
}

double GPUMC::DomainSweeps::total_energy()
{
  if (ghosts_stale_) ghosts_anew();
  double mine = owned_pair_energy();
  double pair = 0.0;
  MPI_Allreduce(&mine, &pair, 1, MPI_DOUBLE, MPI_SUM, lmp_->world);
  return pair + table_.count_energy(type_count_, GPUMC::box(lmp_).volume());
}

void GPUMC::DomainSweeps::finish()
{
  const double back[3] = {-offset_[0], -offset_[1], -offset_[2]};
  translate(back);
  block_current_ = false;
}

/* ---------------------------------------------------------------------- */

GPUMC::DomainSweepsHost::DomainSweepsHost(LAMMPS *lmp, const gpumc::PairTable &table, int groupbit,
                                          const std::string &who, Ghosts ghosts) :
    DomainSweeps(lmp, table, groupbit, who, ghosts), engine_(table)
{
}

void GPUMC::DomainSweepsHost::translate_atoms(const double delta[3])
{
  Atom *atom = lmp_->atom;
  for (int i = 0; i < atom->nlocal; i++) {
    for (int d = 0; d < 3; d++) atom->x[i][d] += delta[d];
    lmp_->domain->remap(atom->x[i], atom->image[i]);
  }
}

bool GPUMC::DomainSweepsHost::owned_within_one_subdomain(const double delta[3])
{
  const Atom *atom = lmp_->atom;
  const Domain *domain = lmp_->domain;
  const Comm *comm = lmp_->comm;
  for (int i = 0; i < atom->nlocal; i++)
    for (int d = 0; d < 3; d++) {
      if (!GPUMC::within_one_subdomain(atom->x[i][d] + delta[d], domain->boxlo[d], domain->prd[d],
                                       comm->procgrid[d], comm->myloc[d]))
        return false;
    }
  return true;
}

void GPUMC::DomainSweepsHost::scale_atoms(const double old_lo[3], const double lo[3], const double scale[3])
{
  Atom *atom = lmp_->atom;
  for (int i = 0; i < atom->nlocal; i++) {
    for (int d = 0; d < 3; d++) atom->x[i][d] = lo[d] + (atom->x[i][d] - old_lo[d]) * scale[d];
    lmp_->domain->remap(atom->x[i], atom->image[i]);
  }
}

void GPUMC::DomainSweepsHost::save_atoms()
{
  Atom *atom = lmp_->atom;
  const int nlocal = atom->nlocal;
  saved_x_.resize(3 * (size_t) nlocal);
  saved_image_.assign(atom->image, atom->image + nlocal);
  for (int i = 0; i < nlocal; i++)
    for (int d = 0; d < 3; d++) saved_x_[3 * i + d] = atom->x[i][d];
}

void GPUMC::DomainSweepsHost::restore_atoms()
{
  Atom *atom = lmp_->atom;
  for (int i = 0; i < atom->nlocal; i++) {
    for (int d = 0; d < 3; d++) atom->x[i][d] = saved_x_[3 * i + d];
    atom->image[i] = saved_image_[i];
  }
}

void GPUMC::DomainSweepsHost::build_engine(const gpumc::DomainBlock &block)
{
  Atom *atom = lmp_->atom;
  const int nlocal = atom->nlocal, nall = atom->nlocal + atom->nghost;
  tag_.resize(nall);
  mobile_.resize(nall);
  for (int i = 0; i < nall; i++) {
    tag_[i] = atom->tag[i];
    mobile_[i] = (atom->mask[i] & groupbit_) != 0;
  }
  engine_.build(block, nlocal, nall, atom->x, atom->type, tag_.data(), mobile_.data());
}

void GPUMC::DomainSweepsHost::set_tried_cells(const gpumc::DomainBlock &block)
{
  engine_.set_tried_cells(block.lowest, block.moving);
}

void GPUMC::DomainSweepsHost::sweep_colours(const int order[8], const gpumc::CounterRNG &rng, uint64_t sweep,
                                            double beta, double dmax)
{
  for (int k = 0; k < 8; k++) {
    const gpumc::MoveCounts c = engine_.colour(order[k], rng, sweep, beta, dmax, lmp_->atom->x, pending_du_);
    pending_.trials += c.trials;
    pending_.accepted += c.accepted;
    colour_done();
  }
}

gpumc::MoveCounts GPUMC::DomainSweepsHost::take_pending(double &dU)
{
  const gpumc::MoveCounts counts = pending_;
  dU = pending_du_;
  pending_ = gpumc::MoveCounts();
  pending_du_ = 0.0;
  return counts;
}

void GPUMC::DomainSweepsHost::refresh_ghosts()
{
  engine_.refresh_ghosts(lmp_->atom->x);
}

double GPUMC::DomainSweepsHost::owned_pair_energy()
{
  return engine_.owned_pair_energy();
}
