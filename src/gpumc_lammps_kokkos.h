/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: adapter between LAMMPS's KOKKOS package and the Kokkos engine (gpumc_engine_kokkos.h).
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

#include "gpumc_engine_kokkos.h"

#include <string>

namespace LAMMPS_NS {
namespace GPUMC {

  // Atom IDs must be 1..N on the one process: the engine stores atom ID-1 at index ID-1.
  inline void check_kokkos_system(LAMMPS *lmp, const std::string &who)
  {
    if (lmp->atom->tag_consecutive() == 0)
      lmp->error->all(FLERR, "{} requires consecutive atom IDs 1..N (use reset_atoms id)", who);
  }

  template <class DeviceType>
  struct KokkosConfiguration {
    Kokkos::View<double *[3], DeviceType> x;     // by atom ID - 1
    Kokkos::View<int *, DeviceType> type;
    Kokkos::View<int *, DeviceType> local;       // LAMMPS local index of each atom
    Kokkos::View<int *, DeviceType> mobile;      // atoms (by ID - 1) of the group, in ID order

    // Configuration of atomKK's device views (which the caller has synced).
    void gather(LAMMPS *lmp, int groupbit)
    {
      auto *atomKK = (AtomKokkos *) lmp->atom;
      const int n = atomKK->nlocal;
      auto k_x = atomKK->k_x.view<DeviceType>();
      auto k_tag = atomKK->k_tag.view<DeviceType>();
      auto k_type = atomKK->k_type.view<DeviceType>();
      auto k_mask = atomKK->k_mask.view<DeviceType>();
      x = Kokkos::View<double *[3], DeviceType>("gpumc:x", n);
      type = Kokkos::View<int *, DeviceType>("gpumc:type", n);
      local = Kokkos::View<int *, DeviceType>("gpumc:local", n);
      auto vx = x;
      auto vtype = type;
      auto vlocal = local;
      Kokkos::parallel_for(
          "gpumc:gather", Kokkos::RangePolicy<typename DeviceType::execution_space>(0, n), KOKKOS_LAMBDA(const int i) {
            const int id = (int) k_tag(i) - 1;
            for (int d = 0; d < 3; d++) vx(id, d) = k_x(i, d);
            vtype(id) = k_type(i);
            vlocal(id) = i;
          });
      // the group's atoms in ID order, by a prefix sum (deterministic)
      int nmobile = 0;
      Kokkos::parallel_reduce(
          "gpumc:count_group", Kokkos::RangePolicy<typename DeviceType::execution_space>(0, n),
          KOKKOS_LAMBDA(const int id, int &c) { c += (k_mask(vlocal(id)) & groupbit) ? 1 : 0; }, nmobile);
      mobile = Kokkos::View<int *, DeviceType>("gpumc:mobile", nmobile);
      auto vmobile = mobile;
      Kokkos::parallel_scan(
          "gpumc:list_group", Kokkos::RangePolicy<typename DeviceType::execution_space>(0, n),
          KOKKOS_LAMBDA(const int id, int &offset, const bool final) {
            const bool in = (k_mask(vlocal(id)) & groupbit) != 0;
            if (final && in) vmobile(offset) = id;
            offset += in ? 1 : 0;
          });
    }

    // Positions and image flags back into atomKK's device views; the caller marks them modified.
    void scatter(LAMMPS *lmp, Kokkos::View<double *[3], DeviceType> pos, Kokkos::View<int *[3], DeviceType> shift)
    {
      auto *atomKK = (AtomKokkos *) lmp->atom;
      auto k_x = atomKK->k_x.view<DeviceType>();
      auto k_image = atomKK->k_image.view<DeviceType>();
      auto vlocal = local;
      Kokkos::parallel_for(
          "gpumc:scatter", Kokkos::RangePolicy<typename DeviceType::execution_space>(0, (int) local.extent(0)),
          KOKKOS_LAMBDA(const int id) {
            const int i = vlocal(id);
            for (int d = 0; d < 3; d++) k_x(i, d) = pos(id, d);
            if (shift(id, 0) || shift(id, 1) || shift(id, 2)) {
              const imageint img = k_image(i);
              const imageint xbox = (img & IMGMASK) - IMGMAX + shift(id, 0);
              const imageint ybox = (img >> IMGBITS & IMGMASK) - IMGMAX + shift(id, 1);
              const imageint zbox = (img >> IMG2BITS) - IMGMAX + shift(id, 2);
              k_image(i) = ((imageint) (xbox + IMGMAX) & IMGMASK) | (((imageint) (ybox + IMGMAX) & IMGMASK) << IMGBITS) |
                  (((imageint) (zbox + IMGMAX) & IMGMASK) << IMG2BITS);
            }
          });
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
