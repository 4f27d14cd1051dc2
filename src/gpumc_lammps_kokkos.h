/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: adapter between LAMMPS's KOKKOS package and the Kokkos engine (gpumc_system_kokkos.h).
   Copies the configuration from atomKK's views into atom-ID order and back, on the device: the
   Kokkos counterpart of gpumc_lammps.h's gather and scatter.
------------------------------------------------------------------------- */

#ifndef LMP_GPUMC_LAMMPS_KOKKOS_H
#define LMP_GPUMC_LAMMPS_KOKKOS_H

#include "atom_kokkos.h"
#include "atom_masks.h"
#include "domain.h"
#include "error.h"
#include "fix.h"
#include "force.h"
#include "kspace.h"
#include "kokkos_type.h"

#include "gpumc_lammps.h"
#include "gpumc_lammps_comm_kokkos.h"
#include "gpumc_system_kokkos.h"
#include "gpumc_velocities.h"

#include <string>

namespace LAMMPS_NS {
namespace GPUMC {

  // Atom IDs must be 1..N on the one process: the engine stores atom ID-1 at index ID-1.
  inline void check_kokkos_system(LAMMPS *lmp, const std::string &who)
  {
    if (lmp->atom->tag_consecutive() == 0)
      lmp->error->all(FLERR, "{} requires consecutive atom IDs 1..N (use reset_atoms id)", who);
  }

  // Kernels of the configuration copies, as functors (like the KOKKOS package's own kernels:
  // nvcc's wrappers of device lambdas in class templates misbehave on the host).
  template <class DeviceType>
  struct GatherFunctor {
    using AT = ArrayTypes<DeviceType>;
    typename AT::t_x_array x_lmp;
    typename AT::t_tagint_1d tag;
    typename AT::t_int_1d type_lmp;
    Kokkos::View<double *[3], DeviceType> x;
    Kokkos::View<int *, DeviceType> type, local;
    KOKKOS_INLINE_FUNCTION void operator()(const int i) const
    {
      const int id = (int) tag(i) - 1;
      for (int d = 0; d < 3; d++) x(id, d) = x_lmp(i, d);
      type(id) = type_lmp(i);
      local(id) = i;
    }
  };

  // Atoms (by ID - 1) of a group in ID order: counted, then listed by a prefix sum.
  template <class DeviceType>
  struct GroupListFunctor {
    using AT = ArrayTypes<DeviceType>;
    struct TagCount {};
    struct TagList {};
    typename AT::t_int_1d mask;
    Kokkos::View<int *, DeviceType> local, mobile;
    int groupbit;
    KOKKOS_INLINE_FUNCTION void operator()(TagCount, const int id, int &n) const
    {
      n += (mask(local(id)) & groupbit) ? 1 : 0;
    }
    KOKKOS_INLINE_FUNCTION void operator()(TagList, const int id, int &offset, const bool final) const
    {
      const bool in = (mask(local(id)) & groupbit) != 0;
      if (final && in) mobile(offset) = id;
      offset += in ? 1 : 0;
    }
  };

  template <class DeviceType>
  struct ScatterFunctor {
    using AT = ArrayTypes<DeviceType>;
    typename AT::t_x_array x_lmp;
    typename AT::t_imageint_1d image;
    Kokkos::View<int *, DeviceType> local;
    Kokkos::View<double *[3], DeviceType> pos;
    Kokkos::View<int *[3], DeviceType> shift;
    KOKKOS_INLINE_FUNCTION void operator()(const int id) const
    {
      const int i = local(id);
      for (int d = 0; d < 3; d++) x_lmp(i, d) = pos(id, d);
      if (shift(id, 0) || shift(id, 1) || shift(id, 2))
        image(i) = shifted_image(image(i), shift(id, 0), shift(id, 1), shift(id, 2));
    }
  };

  template <class DeviceType>
  struct KokkosConfiguration {
    using ExecSpace = typename DeviceType::execution_space;
    Kokkos::View<double *[3], DeviceType> x;     // by atom ID - 1
    Kokkos::View<int *, DeviceType> type;
    Kokkos::View<int *, DeviceType> local;       // LAMMPS local index of each atom
    Kokkos::View<int *, DeviceType> mobile;      // atoms (by ID - 1) of the group, in ID order

    // Configuration of atomKK's device views (which the caller has synced), into the arrays of the
    // previous gather where the sizes allow (fresh device allocations cost more than the copies).
    void gather(LAMMPS *lmp, int groupbit)
    {
      auto *atomKK = (AtomKokkos *) lmp->atom;
      const int n = atomKK->nlocal;
      gpumc::kk::reuse_or_allocate(x, "gpumc:x", n);
      gpumc::kk::reuse_or_allocate(type, "gpumc:type", n);
      gpumc::kk::reuse_or_allocate(local, "gpumc:local", n);
      GatherFunctor<DeviceType> g{atomKK->k_x.view<DeviceType>(), atomKK->k_tag.view<DeviceType>(),
                                  atomKK->k_type.view<DeviceType>(), x, type, local};
      Kokkos::parallel_for("gpumc:gather", Kokkos::RangePolicy<ExecSpace>(0, n), g);
      using L = GroupListFunctor<DeviceType>;
      L list{atomKK->k_mask.view<DeviceType>(), local, mobile, groupbit};
      int nmobile = 0;
      Kokkos::parallel_reduce("gpumc:count_group", Kokkos::RangePolicy<ExecSpace, typename L::TagCount>(0, n), list,
                              nmobile);
      gpumc::kk::reuse_or_allocate(mobile, "gpumc:mobile", nmobile);
      list.mobile = mobile;
      Kokkos::parallel_scan("gpumc:list_group", Kokkos::RangePolicy<ExecSpace, typename L::TagList>(0, n), list);
    }

    // The whole configuration gathered on the host (GPUMC::gather, in ID order), onto the device
    // (positions and types; no local indices or group: nothing is scattered back).
    void load(const Configuration &all)
    {
      const int n = (int) all.type.size();
      gpumc::kk::reuse_or_allocate(x, "gpumc:x", n);
      gpumc::kk::reuse_or_allocate(type, "gpumc:type", n);
      auto hx = Kokkos::create_mirror_view(x);
      auto ht = Kokkos::create_mirror_view(type);
      for (int k = 0; k < n; k++) {
        for (int d = 0; d < 3; d++) hx(k, d) = all.x[3 * k + d];
        ht(k) = all.type[k];
      }
      Kokkos::deep_copy(x, hx);
      Kokkos::deep_copy(type, ht);
    }

    // Positions and image flags back into atomKK's device views; the caller marks them modified.
    void scatter(LAMMPS *lmp, Kokkos::View<double *[3], DeviceType> pos, Kokkos::View<int *[3], DeviceType> shift)
    {
      auto *atomKK = (AtomKokkos *) lmp->atom;
      ScatterFunctor<DeviceType> f{atomKK->k_x.view<DeviceType>(), atomKK->k_image.view<DeviceType>(), local, pos,
                                   shift};
      Kokkos::parallel_for("gpumc:scatter", Kokkos::RangePolicy<ExecSpace>(0, (int) local.extent(0)), f);
    }
  };

  // Maxwell-Boltzmann velocities of a group's atoms (gpumc_velocities.h) and their momentum (sum of
  // m v, and of m), an array reduction; then the momentum removed by VelocityShiftFunctor.
  template <class DeviceType>
  struct VelocityDrawFunctor {
    using AT = ArrayTypes<DeviceType>;
    using value_type = double[];
    using size_type = int;
    typename AT::t_v_array v;
    typename AT::t_int_1d mask, type;
    typename AT::t_tagint_1d tag;
    typename AT::t_float_1d mass, rmass;    // per type; per atom where the atom style has it
    int groupbit;
    bool per_atom_mass;
    gpumc::CounterRNG rng;
    uint64_t draw;
    double kT, mvv2e;
    const unsigned value_count = 4;
    KOKKOS_INLINE_FUNCTION void operator()(const int i, value_type p) const
    {
      if (!(mask(i) & groupbit)) return;
      const double m = per_atom_mass ? rmass(i) : mass(type(i));
      double u[3];
      gpumc::maxwell_velocity(rng, draw, (uint64_t) tag(i), gpumc::maxwell_sigma(kT, m, mvv2e), u);
      for (int d = 0; d < 3; d++) {
        v(i, d) = u[d];
        p[d] += m * u[d];
      }
      p[3] += m;
    }
    KOKKOS_INLINE_FUNCTION void init(value_type p) const
    {
      for (unsigned k = 0; k < value_count; k++) p[k] = 0.0;
    }
    KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const
    {
      for (unsigned k = 0; k < value_count; k++) dst[k] += src[k];
    }
  };

  template <class DeviceType>
  struct VelocityShiftFunctor {
    using AT = ArrayTypes<DeviceType>;
    typename AT::t_v_array v;
    typename AT::t_int_1d mask;
    int groupbit;
    double dv[3];
    KOKKOS_INLINE_FUNCTION void operator()(const int i) const
    {
      if (mask(i) & groupbit)
        for (int d = 0; d < 3; d++) v(i, d) -= dv[d];
    }
  };

  // As GPUMC::draw_velocities (gpumc_lammps.h), on atomKK's device views: the caller syncs
  // V, MASK, TAG, TYPE (and RMASS) and marks V modified.
  template <class DeviceType>
  void draw_velocities_kokkos(LAMMPS *lmp, int groupbit, const gpumc::CounterRNG &rng, uint64_t draw,
                              double temperature)
  {
    using ExecSpace = typename DeviceType::execution_space;
    auto *atomKK = (AtomKokkos *) lmp->atom;
    atomKK->k_mass.template sync<DeviceType>();
    const bool per_atom_mass = atomKK->rmass_flag != 0;
    VelocityDrawFunctor<DeviceType> f{atomKK->k_v.view<DeviceType>(),
                                      atomKK->k_mask.view<DeviceType>(),
                                      atomKK->k_type.view<DeviceType>(),
                                      atomKK->k_tag.view<DeviceType>(),
                                      atomKK->k_mass.view<DeviceType>(),
                                      per_atom_mass ? atomKK->k_rmass.view<DeviceType>()
                                                    : typename ArrayTypes<DeviceType>::t_float_1d(),
                                      groupbit,
                                      per_atom_mass,
                                      rng,
                                      draw,
                                      lmp->force->boltz * temperature,
                                      lmp->force->mvv2e};
    double local[4], total[4];
    Kokkos::View<double *, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> sums(local, 4);
    Kokkos::parallel_reduce("gpumc:draw_velocities", Kokkos::RangePolicy<ExecSpace>(0, atomKK->nlocal), f, sums);
    MPI_Allreduce(local, total, 4, MPI_DOUBLE, MPI_SUM, lmp->world);
    if (total[3] <= 0.0) return;
    VelocityShiftFunctor<DeviceType> shift{atomKK->k_v.view<DeviceType>(), atomKK->k_mask.view<DeviceType>(),
                                           groupbit, {total[0] / total[3], total[1] / total[3], total[2] / total[3]}};
    Kokkos::parallel_for("gpumc:velocity_momentum", Kokkos::RangePolicy<ExecSpace>(0, atomKK->nlocal), shift);
  }

  // GPUMC::non_finite_owned where the /kk styles read the positions (atomKK's view in DeviceType's
  // space, synced there first), without copying them to the host.
  template <class DeviceType>
  struct NonFiniteFunctor {
    using AT = ArrayTypes<DeviceType>;
    typename AT::t_x_array x;
    KOKKOS_INLINE_FUNCTION void operator()(const int i, long &bad) const
    {
      for (int d = 0; d < 3; d++)
        if (!Kokkos::isfinite(x(i, d))) bad++;
    }
  };

  template <class DeviceType>
  long non_finite_owned_kokkos(LAMMPS *lmp)
  {
    using ExecSpace = typename DeviceType::execution_space;
    auto *atomKK = (AtomKokkos *) lmp->atom;
    atomKK->sync(ExecutionSpaceFromDevice<DeviceType>::space, X_MASK);
    long bad = 0;
    Kokkos::parallel_reduce("gpumc:non_finite", Kokkos::RangePolicy<ExecSpace>(0, atomKK->nlocal),
                            NonFiniteFunctor<DeviceType>{atomKK->k_x.view<DeviceType>()}, bad);
    return bad;
  }

  // GPUMC::fingerprint_ranks from atomKK's device views (each atom's hash; sums of its halves).
  template <class DeviceType>
  struct FingerprintFunctor {
    using AT = ArrayTypes<DeviceType>;
    using value_type = long long[];
    using size_type = int;
    typename AT::t_x_array x;
    typename AT::t_int_1d type;
    typename AT::t_tagint_1d tag;
    const unsigned value_count = 2;
    KOKKOS_INLINE_FUNCTION void operator()(const int i, value_type sums) const
    {
      const double p[3] = {x(i, 0), x(i, 1), x(i, 2)};
      const uint64_t h = atom_hash((int64_t) tag(i), type(i), p);
      sums[0] += (long long) (h & 0xffffffffULL);
      sums[1] += (long long) (h >> 32);
    }
    KOKKOS_INLINE_FUNCTION void init(value_type sums) const { sums[0] = sums[1] = 0; }
    KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const
    {
      dst[0] += src[0];
      dst[1] += src[1];
    }
  };

  template <class DeviceType>
  uint64_t fingerprint_ranks_kokkos(LAMMPS *lmp, const gpumc::PairTable &table)
  {
    using ExecSpace = typename DeviceType::execution_space;
    auto *atomKK = (AtomKokkos *) lmp->atom;
    atomKK->sync(ExecutionSpaceFromDevice<DeviceType>::space, X_MASK | TYPE_MASK | TAG_MASK);
    FingerprintFunctor<DeviceType> f{atomKK->k_x.view<DeviceType>(), atomKK->k_type.view<DeviceType>(),
                                     atomKK->k_tag.view<DeviceType>()};
    long long mine[2] = {0, 0};
    Kokkos::View<long long *, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> sums(mine, 2);
    Kokkos::parallel_reduce("gpumc:fingerprint_ranks", Kokkos::RangePolicy<ExecSpace>(0, atomKK->nlocal), f, sums);
    return fingerprint_of_sums(lmp, mine, table);
  }

  // The positions of the atoms in a forward communication's send list (with the swap's periodic
  // shift) packed into its buffer on the device, and unpacked into the ghosts: what a /kk fix's
  // pack_forward_comm_kokkos and unpack_forward_comm_kokkos do for CommKokkos, so that only the
  // buffers cross to the host when MPI cannot read device memory (LAMMPS's own forward
  // communication of positions then copies all positions to the host and back).
  template <class DeviceType>
  struct GhostPositionsComm {
    using AT = ArrayTypes<DeviceType>;
    struct TagPack {};
    struct TagUnpack {};
    typename AT::t_x_array x;
    typename AT::t_int_1d list;
    typename AT::t_xfloat_1d buf;
    double shift[3] = {0.0, 0.0, 0.0};
    int first = 0;
    KOKKOS_INLINE_FUNCTION void operator()(TagPack, const int i) const
    {
      const int j = list(i);
      for (int d = 0; d < 3; d++) buf(3 * i + d) = x(j, d) + shift[d];
    }
    KOKKOS_INLINE_FUNCTION void operator()(TagUnpack, const int i) const
    {
      for (int d = 0; d < 3; d++) x(first + i, d) = buf(3 * i + d);
    }

    static int pack(LAMMPS *lmp, int n, DAT::tdual_int_1d k_list, DAT::tdual_xfloat_1d &k_buf, int pbc_flag,
                    const int *pbc)
    {
      auto *atomKK = (AtomKokkos *) lmp->atom;
      GhostPositionsComm f{atomKK->k_x.view<DeviceType>(), k_list.view<DeviceType>(), k_buf.view<DeviceType>()};
      if (pbc_flag) {
        f.shift[0] = pbc[0] * lmp->domain->xprd;
        f.shift[1] = pbc[1] * lmp->domain->yprd;
        f.shift[2] = pbc[2] * lmp->domain->zprd;
      }
      Kokkos::parallel_for("gpumc:ghost_pack",
                           Kokkos::RangePolicy<typename DeviceType::execution_space, TagPack>(0, n), f);
      return 3 * n;
    }
    static void unpack(LAMMPS *lmp, int n, int first, DAT::tdual_xfloat_1d &k_buf)
    {
      auto *atomKK = (AtomKokkos *) lmp->atom;
      GhostPositionsComm f{atomKK->k_x.view<DeviceType>(), {}, k_buf.view<DeviceType>()};
      f.first = first;
      Kokkos::parallel_for("gpumc:ghost_unpack",
                           Kokkos::RangePolicy<typename DeviceType::execution_space, TagUnpack>(0, n), f);
    }
  };

  // Checkerboard sweeps of the /kk styles on several MPI ranks (gpumc_lammps.h's DomainSweeps with
  // the Kokkos engine; gpumc_lammps_domain_kokkos.cpp): the atoms stay in atomKK's device views,
  // which CommKokkos exchanges and communicates, and the engine sweeps its copy of the rank's
  // atoms and ghosts, whose owned positions go back to atomKK after each colour (with frozen or
  // alternating ghosts, after each sweep).
  template <class DeviceType>
  class DomainSweepsKokkos : public DomainSweeps {
   public:
    // ghost_fix: the fix whose Kokkos forward communication (GhostPositionsComm) refreshes the
    // ghosts; staged_comm: the fix's, for LAMMPS's communication without GPU-aware MPI
    DomainSweepsKokkos(LAMMPS *lmp, const gpumc::PairTable &table, int groupbit, const std::string &who,
                       Ghosts ghosts, gpumc::DeviceSystem<DeviceType> &engine, Fix *ghost_fix,
                       StagedDeviceComm &staged_comm);

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
    void wait() override { Kokkos::fence(); }
    void forward_ghosts() override;
    void wrap_atoms() override;
    void exchange_atoms() override;
    void copy_ghosts() override;

   private:
    using ExecSpace = typename DeviceType::execution_space;
    AtomKokkos *atomKK_;
    StagedDeviceComm &staged_comm_;
    gpumc::DeviceSystem<DeviceType> &engine_;
    Fix *ghost_fix_;
    Kokkos::View<double *[3], DeviceType> x_;    // the engine's positions: owned atoms, then ghosts
    Kokkos::View<int *, DeviceType> type_, mobile_;
    Kokkos::View<int64_t *, DeviceType> tag_;
    typename ArrayTypes<DeviceType>::t_x_array saved_x_;
    typename ArrayTypes<DeviceType>::t_imageint_1d saved_image_;
    // the engine's owned positions into atomKK
    void store_owned();
    // owned positions scaled by `scale` from old_lo to lo, then moved by delta, then wrapped
    void transform_atoms(const double old_lo[3], const double lo[3], const double scale[3], const double delta[3]);
    // whether staged_comm_ replaces LAMMPS's communication (the first time for the fix, a line in the log)
    bool staged_comm_applies();
  };

  // The LAMMPS box as the engine's lo and side lengths.
  inline void box_of(LAMMPS *lmp, double lo[3], double len[3])
  {
    for (int d = 0; d < 3; d++) {
      lo[d] = lmp->domain->boxlo[d];
      len[d] = lmp->domain->boxhi[d] - lmp->domain->boxlo[d];
    }
  }

  // A new box from the engine into LAMMPS.
  inline void set_box(LAMMPS *lmp, const double lo[3], const double len[3])
  {
    for (int d = 0; d < 3; d++) {
      lmp->domain->boxlo[d] = lo[d];
      lmp->domain->boxhi[d] = lo[d] + len[d];
    }
    lmp->domain->set_global_box();
    lmp->domain->set_local_box();
    // as fix npt does: the k-space solver's wave vectors follow the box
    if (lmp->force->kspace) lmp->force->kspace->setup();
  }

}    // namespace GPUMC
}    // namespace LAMMPS_NS

#endif
