/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: adapter between LAMMPS and the shared GPUMC physics.
   Reads the interactions of the active pair style, stops with a clear error for setups that
   GPUMC does not sample correctly, and copies the configuration in and out in atom-ID order,
   so that a Monte Carlo chain never depends on how LAMMPS happens to store its atoms.
------------------------------------------------------------------------- */

#ifndef LMP_GPUMC_LAMMPS_H
#define LMP_GPUMC_LAMMPS_H

#include "pointers.h"

#include "gpumc_domain_host.h"
#include "gpumc_portability.h"
#include "gpumc_system_host.h"

#include <cmath>
#include <string>
#include <vector>

namespace LAMMPS_NS {
namespace GPUMC {

  // Interactions of the active pair style (gpumc_pair_styles.cpp, with the readers of
  // gpumc_pair_readers.h: the supported styles, their accelerator variants, hybrid and
  // hybrid/overlay of them), with its cutoffs, its `pair_modify shift` and `pair_modify tail`
  // settings and, for Coulomb terms, the charge of each type. Stops with an error naming `who`
  // for anything else.
  gpumc::PairTable pair_table(LAMMPS *lmp, const std::string &who);

  // Stops with a clear error for setups GPUMC does not sample correctly.
  void check_system(LAMMPS *lmp, const std::string &who);
  // Stops with an error naming `who` on more than one MPI process; `instead` says what runs there.
  void check_one_process(LAMMPS *lmp, const std::string &who, const std::string &instead);

  // Value of the `precision` keyword: true for mixed, false for double; anything else is an error.
  bool parse_precision(LAMMPS *lmp, const std::string &who, const char *value);

  // Box of the LAMMPS domain.
  gpumc::Box box(LAMMPS *lmp);

  // The configuration in atom-ID order: positions, types, and the local index of each atom.
  // On several MPI ranks every rank gets the whole configuration; local is then -1 for the atoms
  // other ranks own.
  struct Configuration {
    std::vector<double> x;
    std::vector<int> type;
    std::vector<int> local;    // local[k] = LAMMPS local index of the k-th atom by ID
  };
  Configuration gather(LAMMPS *lmp);

  // Domain::pbc's check, which the sweeps' wrap into the box and their cells need as well: an
  // error on every rank, with LAMMPS's message after the style's name (who), when any rank owns
  // atoms at non-numeric coordinates (mine: how many this rank owns; non_finite_owned counts them
  // in the host arrays). Collective: an MPI_Allreduce on world, so every rank calls it alike.
  void stop_on_non_finite(LAMMPS *lmp, const std::string &who, long mine);
  long non_finite_owned(LAMMPS *lmp);

  // Positions and image flags back into LAMMPS, and the box if it changed.
  void scatter(LAMMPS *lmp, const Configuration &conf, const gpumc::HostSystem &sys, bool box_changed);

  // Fingerprint of everything the energy depends on: positions (atom-ID order), types, the
  // LAMMPS box and the interactions. Equal fingerprints: the running energy is still valid.
  uint64_t fingerprint(LAMMPS *lmp, const std::vector<double> &x, const std::vector<int> &type,
                       const gpumc::PairTable &table);
  // The same for a configuration spread over several MPI ranks, without gathering it: a sum over
  // the atoms of a hash of each one's ID, type and position (equal on any number of ranks, but
  // not to the single-process fingerprint).
  uint64_t fingerprint_ranks(LAMMPS *lmp, const gpumc::PairTable &table);
  // fingerprint_ranks's parts, which the Kokkos styles compute on the device: FNV-1a over bytes,
  // an atom's hash, and the fingerprint from this rank's sums of the hashes' two halves.
  GPUMC_INLINE void fnv1a(uint64_t &h, const void *data, size_t nbytes)
  {
    const auto *b = (const unsigned char *) data;
    for (size_t k = 0; k < nbytes; k++) {
      h ^= b[k];
      h *= 1099511628211ULL;
    }
  }
  GPUMC_INLINE uint64_t atom_hash(int64_t tag, int type, const double x[3])
  {
    uint64_t h = 1469598103934665603ULL;
    fnv1a(h, &tag, sizeof(tag));
    fnv1a(h, &type, sizeof(int));
    fnv1a(h, x, 3 * sizeof(double));
    return h;
  }
  uint64_t fingerprint_of_sums(LAMMPS *lmp, const long long mine[2], const gpumc::PairTable &table);

  // An image flag moved by dx, dy, dz periodic images, packed as LAMMPS packs it (Domain::remap).
  GPUMC_INLINE imageint shifted_image(imageint image, int dx, int dy, int dz)
  {
    const imageint xbox = (image & IMGMASK) - IMGMAX + dx;
    const imageint ybox = (image >> IMGBITS & IMGMASK) - IMGMAX + dy;
    const imageint zbox = (image >> IMG2BITS) - IMGMAX + dz;
    return ((imageint) (xbox + IMGMAX) & IMGMASK) | (((imageint) (ybox + IMGMAX) & IMGMASK) << IMGBITS) |
        (((imageint) (zbox + IMGMAX) & IMGMASK) << IMG2BITS);
  }
  // The same from a hash of the configuration made elsewhere (the Kokkos engine's, on the device).
  uint64_t fingerprint(LAMMPS *lmp, uint64_t configuration, const gpumc::PairTable &table);

  // Whether LAMMPS's exchange (CommBrick's, one hop to each side) takes an atom at coordinate x
  // (anywhere: a periodic image counts as the atom) to the subdomain that holds it from the rank at
  // place `loc` of `procs` equal subdomains along a dimension: x lies in that rank's subdomain or a
  // neighbour's, with a margin for rounding. Along 3 processes or fewer every subdomain is a
  // neighbour's. (A non-numeric x is not.)
  GPUMC_INLINE bool within_one_subdomain(double x, double boxlo, double prd, int procs, int loc)
  {
    if (procs <= 3) return true;
    // in subdomains from the rank's lower wall, wrapped into [0, procs)
    double rel = fmod((x - boxlo) / prd * procs - loc, (double) procs);
    if (rel < 0.0) rel += procs;
    const double margin = 1e-6;
    return rel < 2.0 - margin || rel >= procs - 1.0 + margin;
  }

  // Indices (in atom-ID order) of the atoms of a group.
  std::vector<int> group_members(LAMMPS *lmp, const Configuration &conf, int groupbit);

  // How the ghosts follow their owners' moves on several ranks (the fixes' keyword ghosts).
  enum class Ghosts { REFRESH, FROZEN, ALTERNATE };
  // The keyword's value for a setting, as the error messages name it.
  inline const char *ghosts_name(Ghosts g)
  {
    return g == Ghosts::REFRESH ? "refresh" : (g == Ghosts::FROZEN ? "frozen" : "alternate");
  }

  // Checkerboard sweeps on several MPI ranks, over LAMMPS's own spatial decomposition
  // (gpumc_lammps_domain.cpp). Each sweep translates the system by its grid shift and lets
  // LAMMPS's Comm move the atoms to the ranks whose subdomains hold them (exchange) and copy the
  // layer around each subdomain (borders); the ghosts are refreshed (forward communication) after
  // each colour. With frozen ghosts the grid of an invocation's first sweep serves all its sweeps
  // (until a volume move), the layer of cells at each block's upper walls is not tried (along the
  // sides that several ranks split), and the ghosts are not refreshed: every ghost that a trial
  // reads lies in another rank's still layer or is one of the rank's own periodic images, which
  // its engine moves with their atoms. Alternating ghosts are frozen ghosts whose still
  // layers move between the upper and the lower walls from sweep to sweep, the ghosts refreshed
  // between sweeps (alternate_still_layer).
  // The system is translated back by finish(). This class is the driver that every backend
  // shares; the engine that sweeps a rank's block and the atoms' storage are a backend's
  // (DomainSweepsHost below, DomainSweepsKokkos in gpumc_lammps_kokkos.h).
  class DomainSweeps {
   public:
    DomainSweeps(LAMMPS *lmp, const gpumc::PairTable &table, int groupbit, const std::string &who,
                 Ghosts ghosts);
    virtual ~DomainSweeps() = default;
    // Sweep `sweep` (gpumc_checkerboard.h's trials); its counts and energy change stay pending on
    // each rank (no rank waits for another) until settle().
    void sweep(const gpumc::CounterRNG &rng, uint64_t sweep, double beta, double dmax);
    // The counts of all ranks' sweeps since the last settle(); energy gets their energy change.
    gpumc::MoveCounts settle(double &energy);
    // Energy of the configuration after a sweep or volume move: pair terms of all ranks and the
    // count energy.
    double total_energy();
    // Volume trial `move` (gpumc_moves.h), decided once for all ranks: every subdomain scales with
    // the box; a rejected trial restores the positions and the box exactly.
    bool volume_move(const gpumc::VolumeMoveParams &p, const gpumc::CounterRNG &rng, uint64_t move, double &energy);
    // Undo the translation: the atoms where the first sweep found them, up to the moves.
    void finish();
    // Wall time spent so far in communication: atoms moved between ranks (exchange), ghosts copied
    // (borders), and ghosts refreshed (after each colour, after each sweep with alternating ghosts,
    // or for energy checks with frozen ghosts).
    double exchange_seconds() const { return exchange_seconds_; }
    double borders_seconds() const { return borders_seconds_; }
    double ghost_seconds() const { return ghost_seconds_; }

   protected:
    LAMMPS *lmp_;
    const gpumc::PairTable &table_;
    int groupbit_;
    std::string who_;

    // ---- a backend's part: its atoms' storage and its engine ----
    // Owned atoms translated by delta, wrapped into the box (image flags follow).
    virtual void translate_atoms(const double delta[3]) = 0;
    // Whether every owned atom, translated by delta and wrapped, lies in this rank's subdomain or a
    // neighbour's (GPUMC::within_one_subdomain along each dimension).
    virtual bool owned_within_one_subdomain(const double delta[3]) = 0;
    // Owned atoms scaled with the box from old_lo to lo (factor scale per dimension), wrapped.
    virtual void scale_atoms(const double old_lo[3], const double lo[3], const double scale[3]) = 0;
    // Owned atoms' positions and image flags kept, and put back (a rejected volume move).
    virtual void save_atoms() = 0;
    virtual void restore_atoms() = 0;
    // The engine's cells of this rank's block from the current atoms and ghosts.
    virtual void build_engine(const gpumc::DomainBlock &block) = 0;
    // The cells the engine tries from now on (block.lowest, block.moving; the cells unchanged).
    virtual void set_tried_cells(const gpumc::DomainBlock &block) = 0;
    // The 8 colours (in `order`) of sweep `sweep`, calling colour_done() after each; the counts and
    // energy change are this rank's until take_pending() returns them (dU) and starts again from 0.
    virtual void sweep_colours(const int order[8], const gpumc::CounterRNG &rng, uint64_t sweep, double beta,
                               double dmax) = 0;
    virtual gpumc::MoveCounts take_pending(double &dU) = 0;
    // The ghosts' positions into the engine (after the forward communication).
    virtual void refresh_ghosts() = 0;
    // Pair energy of the owned atoms with the atoms of higher ID.
    virtual double owned_pair_energy() = 0;
    // Waits for the backend's work in flight (a device's kernels), so that times are its own.
    virtual void wait() {}
    // The owned atoms' positions to the other ranks' ghosts (LAMMPS's forward communication).
    virtual void forward_ghosts();
    // LAMMPS's pbc (owned atoms wrapped into the periodic box),
    // exchange (owned atoms that left their subdomains to their new ranks) and borders (the ghosts
    // anew): Domain's and Comm's own unless a backend does them itself.
    virtual void wrap_atoms();
    virtual void exchange_atoms();
    virtual void copy_ghosts();
    // The moves of a colour to the other ranks' ghosts (forward communication), and the ghosts'
    // new positions into the engine; nothing with frozen or alternating ghosts.
    void colour_done();
    // frozen or alternating ghosts: one grid per invocation, no refresh between colours
    bool one_grid() const { return ghosts_ != Ghosts::REFRESH; }

   private:
    Ghosts ghosts_;
    gpumc::DomainBlock block_;      // the engine's block
    bool block_current_ = false;    // one grid: the engine's block serves the next sweep
    bool ghosts_stale_ = false;     // one grid: other ranks have moved atoms since the ghosts were copied
    bool first_exchange_prepared_ = false;    // prepare_first_exchange() has run
    double offset_[3] = {0.0, 0.0, 0.0};    // the system's present translation
    double exchange_seconds_ = 0.0, borders_seconds_ = 0.0, ghost_seconds_ = 0.0;
    // the time of a communication step, from its start (the backend's work done first), added to total
    double comm_start();
    void comm_end(double start, double &total);
    std::vector<long> type_count_;          // of all ranks
    void translate(const double delta[3]);
    // Before the invocation's first translation by delta: the atoms with their subdomains' ranks
    // where one exchange after it could not take them to theirs.
    void prepare_first_exchange(const double delta[3]);
    // The engine's cells for grid g (origin at the box's corner) and the current atoms and ghosts;
    // for_sweeps: trials will follow (with one grid, not in the layer at the upper walls),
    // otherwise only energies (a volume trial's box, which the next sweep's grid may still refuse).
    void build(gpumc::CheckerGrid g, bool for_sweeps);
    // alternating ghosts, before sweep `sweep`: the ghosts refreshed, the still layer on its side
    void alternate_still_layer(uint64_t sweep);
    // Ghosts anew for the current box (no atom changes its rank).
    void refresh_borders();
    gpumc::CheckerGrid unshifted_grid() const;
    // The owned positions to the other ranks' ghosts and the ghosts' into the engine, timed.
    void ghosts_anew();
    // with one grid, an error unless grid g gives every block two cells along dimension d
    void frozen_cells_check(const gpumc::CheckerGrid &g, int d) const;
    [[noreturn]] void grid_error(const gpumc::Box &box) const;
  };

  // The host styles' backend: gpumc_domain_host.h's engine on LAMMPS's own arrays.
  class DomainSweepsHost : public DomainSweeps {
   public:
    DomainSweepsHost(LAMMPS *lmp, const gpumc::PairTable &table, int groupbit, const std::string &who,
                     Ghosts ghosts);

   protected:
    void translate_atoms(const double delta[3]) override;
    bool owned_within_one_subdomain(const double delta[3]) override;
    void scale_atoms(const double old_lo[3], const double lo[3], const double scale[3]) override;
    void save_atoms() override;
    void restore_atoms() override;
    void build_engine(const gpumc::DomainBlock &block) override;
    void set_tried_cells(const gpumc::DomainBlock &block) override;
    void sweep_colours(const int order[8], const gpumc::CounterRNG &rng, uint64_t sweep, double beta,
                       double dmax) override;
    gpumc::MoveCounts take_pending(double &dU) override;
    void refresh_ghosts() override;
    double owned_pair_energy() override;

   private:
    gpumc::DomainCheckerboard engine_;
    std::vector<int64_t> tag_;
    std::vector<int> mobile_;
    std::vector<double> saved_x_;
    std::vector<imageint> saved_image_;
    gpumc::MoveCounts pending_;
    double pending_du_ = 0.0;
  };

  // Velocities of the group's atoms drawn from the Maxwell-Boltzmann distribution at temperature
  // T (draw `draw` of the velocity stream, gpumc_velocities.h), then their total momentum removed,
  // as LAMMPS's `velocity ... mom yes` does, so that temp averages T.
  void draw_velocities(LAMMPS *lmp, int groupbit, const gpumc::CounterRNG &rng, uint64_t draw, double temperature);

}    // namespace GPUMC
}    // namespace LAMMPS_NS

#endif
