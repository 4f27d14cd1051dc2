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
#include "kokkos_type.h"

#include "gpumc_system_kokkos.h"

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
      if (shift(id, 0) || shift(id, 1) || shift(id, 2)) {
        const imageint img = image(i);
        const imageint xbox = (img & IMGMASK) - IMGMAX + shift(id, 0);
        const imageint ybox = (img >> IMGBITS & IMGMASK) - IMGMAX + shift(id, 1);
        const imageint zbox = (img >> IMG2BITS) - IMGMAX + shift(id, 2);
        image(i) = ((imageint) (xbox + IMGMAX) & IMGMASK) | (((imageint) (ybox + IMGMAX) & IMGMASK) << IMGBITS) |
            (((imageint) (zbox + IMGMAX) & IMGMASK) << IMG2BITS);
      }
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

    // Positions and image flags back into atomKK's device views; the caller marks them modified.
    void scatter(LAMMPS *lmp, Kokkos::View<double *[3], DeviceType> pos, Kokkos::View<int *[3], DeviceType> shift)
    {
      auto *atomKK = (AtomKokkos *) lmp->atom;
      ScatterFunctor<DeviceType> f{atomKK->k_x.view<DeviceType>(), atomKK->k_image.view<DeviceType>(), local, pos,
                                   shift};
      Kokkos::parallel_for("gpumc:scatter", Kokkos::RangePolicy<ExecSpace>(0, (int) local.extent(0)), f);
    }
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
  }

}    // namespace GPUMC
}    // namespace LAMMPS_NS

#endif
