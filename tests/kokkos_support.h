// Shared by the Kokkos test files: LAMMPS sessions with the /kk styles on whatever backend
// LAMMPS's KOKKOS package was built for (a GPU through CUDA, else OpenMP threads), test systems,
// and the engine options of a /kk style.
#pragma once

#include "lammps_session.h"

#include "compute_widom_kokkos.h"
#include "fix_gpumc_nvt_kokkos.h"
#include "fmt/format.h"
#include "library.h"
#include "modify.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

inline bool on_gpu()
{
  return lammps_config_accelerator("KOKKOS", "api", "cuda") || lammps_config_accelerator("KOKKOS", "api", "hip") ||
      lammps_config_accelerator("KOKKOS", "api", "sycl");
}

// Kokkos on, and the /kk styles chosen by the suffix.
inline std::vector<std::string> kokkos_args(bool suffix)
{
  std::vector<std::string> a = {"-k", "on"};
  if (on_gpu()) {
    a.insert(a.end(), {"g", "1"});
  } else {
    a.insert(a.end(), {"t", "2"});
  }
  if (suffix) a.insert(a.end(), {"-sf", "kk"});
  a.insert(a.end(), {"-pk", "kokkos", "neigh", "half", "newton", "on"});
  return a;
}

inline const char *LJ_MIX = "units lj\natom_style atomic\nregion box block 0 9 0 9.9 0 8.1\ncreate_box 3 box\n"
                     "create_atoms 1 random 210 101 NULL overlap 0.85 maxtry 200\n"
                     "set group all type/ratio 3 0.3 5\nset type 1 type/ratio 2 0.4 6\nmass * 1.0\n"
                     "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.7 1.2 2.2\n"
                     "pair_coeff 3 3 0.4 0.9 1.8\npair_coeff 1 2 0.5 1.1 2.4\n{}thermo_modify norm no\n";

inline const char *SIO2 = "units metal\natom_style atomic\nvariable a equal (1.0/0.053679)^(1.0/3.0)\nlattice sc $(v_a)\n"
                   "region box block 0 9 0 9 0 9\ncreate_box 2 box\ncreate_atoms 1 box\n"
                   "set type 1 type/ratio 2 0.6666667 4928\nmass 1 28.0855\nmass 2 15.9994\n"
                   "pair_style morse 9.0\npair_coeff 1 1 0.007695 2.0446 3.7598\n"
                   "pair_coeff 1 2 1.99597 2.6518 1.628\npair_coeff 2 2 0.023272 1.3731 3.791\n{}"
                   "thermo_modify norm no\n";

// A charged silica-like deck of the SiO2 lattice: Buckingham (BKS's coefficients), DSF Coulomb
// and a short-range Si-O and O-O repulsion that keeps insertions and moves out of the Buckingham
// collapse (the benchmark's sio2-bks system), over hybrid/overlay (several terms per pair, a self
// energy per atom)
inline const char *CHARGED = "units metal\natom_style charge\nvariable a equal (1.0/0.053679)^(1.0/3.0)\n"
                      "lattice sc $(v_a)\nregion box block 0 9 0 9 0 9\ncreate_box 2 box\ncreate_atoms 1 box\n"
                      "set type 1 type/ratio 2 0.6666667 4928\nset type 1 charge 2.4\nset type 2 charge -1.2\n"
                      "mass 1 28.0855\nmass 2 15.9994\n"
                      "pair_style hybrid/overlay buck 8.0 coul/dsf 0.25 9.0 lj/cut 3.0\n"
                      "pair_coeff 1 1 buck 0.0 1.0 0.0\npair_coeff 1 2 buck 18003.7572 0.205205 133.5381\n"
                      "pair_coeff 2 2 buck 1388.7730 0.362319 175.0\npair_coeff * * coul/dsf\n"
                      "pair_coeff 1 2 lj/cut 0.1 1.5\npair_coeff 2 2 lj/cut 0.1 2.0\n{}thermo_modify norm no\n";

struct State {
  std::vector<double> x, box, fix;
  std::vector<int> image;
};

inline State capture(LammpsSession &s, int nvec = 14)
{
  State st;
  st.x = s.positions_by_id();
  st.box = s.box();
  st.image = s.images_by_id();
  for (int i = 0; i < nvec; i++) st.fix.push_back(s.fix_vector("mc", i));
  return st;
}

// The Kokkos engine's options (gpumc::EngineOptions: settings that only tests change) of the /kk
// fix or compute `id`; the engine takes them at the next run's init.
inline gpumc::EngineOptions &engine_options(LammpsSession &s, const char *id)
{
  using namespace LAMMPS_NS;
  if (auto *fix = dynamic_cast<FixGpumcNVTKokkos<LMPDeviceType> *>(s.lmp()->modify->get_fix_by_id(id)))
    return fix->engine_options;
  if (auto *compute = dynamic_cast<ComputeWidomKokkos<LMPDeviceType> *>(s.lmp()->modify->get_compute_by_id(id)))
    return compute->engine_options;
  throw std::runtime_error(std::string("no /kk fix or compute ") + id);
}

inline double max_difference(const std::vector<double> &a, const std::vector<double> &b)
{
  double m = 0.0;
  for (size_t k = 0; k < a.size(); k++) m = std::max(m, std::fabs(a[k] - b[k]));
  return m;
}
