/* ----------------------------------------------------------------------
   GPUMC: the readers of LAMMPS's pair styles (gpumc_pair_readers.h). One reader per style takes
   the coefficients the style holds after init_one(), so that cutoffs, mixing and `pair_modify
   shift` are as LAMMPS applies them. Adding a style: its PairKind and energy in
   gpumc_pair_potential.h, a reader here, and its name in pair_style_readers().
------------------------------------------------------------------------- */

#include "gpumc_pair_readers.h"

#include "atom.h"
#include "kspace.h"
#include "pair_born.h"
#include "pair_buck.h"
#include "pair_buck_coul_cut.h"
#include "pair_coul_cut.h"
#include "pair_coul_dsf.h"
#include "pair_coul_wolf.h"
#include "pair_hybrid.h"
#include "pair_lj_cut.h"
#include "pair_lj_cut_coul_cut.h"
#include "pair_morse.h"
#include "pair_soft.h"
#include "pair_table.h"
#include "pair_yukawa.h"
// styles of LAMMPS's EXTRA-PAIR package
#if __has_include("pair_mie_cut.h")
#define GPUMC_EXTRA_PAIR
#include "pair_born_coul_dsf.h"
#include "pair_born_coul_wolf.h"
#include "pair_lj_cut_coul_dsf.h"
#include "pair_lj_cut_coul_wolf.h"
#include "pair_mie_cut.h"
#endif
// styles of LAMMPS's KSPACE package
#if __has_include("ewald.h")
#define GPUMC_KSPACE
#include "ewald.h"
#include "pair_born_coul_long.h"
#include "pair_buck_coul_long.h"
#include "pair_coul_long.h"
#include "pair_lj_cut_coul_long.h"
#endif

using namespace LAMMPS_NS;

namespace {

// Accelerator variants compute the same energies from the same coefficients.
const char *const ACCELERATOR_SUFFIXES[] = {"/kk/device", "/kk/host", "/kk", "/omp", "/opt", "/gpu", "/intel"};

using GPUMC::PairReader;

template <class Style>
Style *style_of(Pair *pair, PairReader &r)
{
  auto *s = dynamic_cast<Style *>(pair);
  if (!s) r.lmp->error->all(FLERR, "{}: pair style {} is not the class GPUMC reads", r.who, r.style);
  return s;
}

// LAMMPS's pair styles keep their coefficients in protected members and export only a few
// through extract(). Each reader is a member of a class derived from its style, where a pointer
// to a member may be named (C++ checks access where a member is named); the pointer then reads
// the member of the style's object.

struct LJCutReader : PairLJCut {
  static void read(Pair *pair, PairReader &r)
  {
    auto *s = style_of<PairLJCut>(pair, r);
    r.add_lj(pair, pair->cutsq[r.i][r.j], s->*&LJCutReader::lj3, s->*&LJCutReader::lj4, s->*&LJCutReader::offset,
             s->*&LJCutReader::epsilon, s->*&LJCutReader::sigma);
  }
};

struct MorseReader : PairMorse {
  static void read(Pair *pair, PairReader &r)
  {
    auto *s = style_of<PairMorse>(pair, r);
    const int i = r.i, j = r.j;
    r.add(gpumc::PAIR_MORSE, pair->cutsq[i][j], (s->*&MorseReader::d0)[i][j], (s->*&MorseReader::alpha)[i][j],
          (s->*&MorseReader::r0)[i][j], 0, 0, (s->*&MorseReader::offset)[i][j]);
  }
};

struct BornReader : PairBorn {
  static void read(Pair *pair, PairReader &r)
  {
    auto *s = style_of<PairBorn>(pair, r);
    const int i = r.i, j = r.j;
    double **a = s->*&BornReader::a, **rho = s->*&BornReader::rho, **sigma = s->*&BornReader::sigma;
    double **c = s->*&BornReader::c, **d = s->*&BornReader::d;
    r.add_born(pair->cutsq[i][j], a, s->*&BornReader::rhoinv, sigma, c, d, s->*&BornReader::offset);
    const double cut = std::sqrt(pair->cutsq[i][j]);
    r.set_tail(pair, gpumc::born_tail_coeff(a[i][j], rho[i][j], sigma[i][j], c[i][j], d[i][j], cut), cut);
  }
};

struct BuckReader : PairBuck {
  static void read(Pair *pair, PairReader &r)
  {
    auto *s = style_of<PairBuck>(pair, r);
    r.add_buck(pair, pair->cutsq[r.i][r.j], s->*&BuckReader::a, s->*&BuckReader::rho, s->*&BuckReader::rhoinv,
               s->*&BuckReader::c, s->*&BuckReader::offset);
  }
};

struct YukawaReader : PairYukawa {
  static void read(Pair *pair, PairReader &r)
  {
    auto *s = style_of<PairYukawa>(pair, r);
    const int i = r.i, j = r.j;
    r.add(gpumc::PAIR_YUKAWA, pair->cutsq[i][j], (s->*&YukawaReader::a)[i][j], s->*&YukawaReader::kappa, 0, 0, 0,
          (s->*&YukawaReader::offset)[i][j]);
  }
};

struct SoftReader : PairSoft {
  static void read(Pair *pair, PairReader &r)
  {
    auto *s = style_of<PairSoft>(pair, r);
    const int i = r.i, j = r.j;
    r.add(gpumc::PAIR_SOFT, pair->cutsq[i][j], (s->*&SoftReader::prefactor)[i][j], (s->*&SoftReader::cut)[i][j]);
  }
};

struct CoulCutReader : PairCoulCut {
  static void read(Pair *pair, PairReader &r)
  {
    auto *s = style_of<PairCoulCut>(pair, r);
    r.add(gpumc::PAIR_COUL_CUT, pair->cutsq[r.i][r.j], r.qq() * (s->*&CoulCutReader::scale)[r.i][r.j]);
  }
};

struct CoulDSFReader : PairCoulDSF {
  static void read(Pair *pair, PairReader &r)
  {
    auto *s = style_of<PairCoulDSF>(pair, r);
    r.add_dsf(gpumc::PAIR_COUL_DSF, s->*&CoulDSFReader::cut_coulsq, s->*&CoulDSFReader::alpha,
              s->*&CoulDSFReader::e_shift, s->*&CoulDSFReader::f_shift);
  }
};

struct CoulWolfReader : PairCoulWolf {
  static void read(Pair *pair, PairReader &r)
  {
    auto *s = style_of<PairCoulWolf>(pair, r);
    r.add_wolf(s->*&CoulWolfReader::cut_coul, s->*&CoulWolfReader::alf);
  }
};

struct LJCutCoulCutReader : PairLJCutCoulCut {
  static void read(Pair *pair, PairReader &r)
  {
    using R = LJCutCoulCutReader;
    auto *s = style_of<PairLJCutCoulCut>(pair, r);
    r.add_lj(pair, (s->*&R::cut_ljsq)[r.i][r.j], s->*&R::lj3, s->*&R::lj4, s->*&R::offset, s->*&R::epsilon,
             s->*&R::sigma);
    r.add(gpumc::PAIR_COUL_CUT, (s->*&R::cut_coulsq)[r.i][r.j], r.qq());
  }
};

struct BuckCoulCutReader : PairBuckCoulCut {
  static void read(Pair *pair, PairReader &r)
  {
    using R = BuckCoulCutReader;
    auto *s = style_of<PairBuckCoulCut>(pair, r);
    r.add_buck(pair, (s->*&R::cut_ljsq)[r.i][r.j], s->*&R::a, s->*&R::rho, s->*&R::rhoinv, s->*&R::c,
               s->*&R::offset);
    r.add(gpumc::PAIR_COUL_CUT, (s->*&R::cut_coulsq)[r.i][r.j], r.qq());
  }
};

#ifdef GPUMC_EXTRA_PAIR
struct MieCutReader : PairMIECut {
  static void read(Pair *pair, PairReader &r)
  {
    auto *s = style_of<PairMIECut>(pair, r);
    const int i = r.i, j = r.j;
    double **gam_rep = s->*&MieCutReader::gamR, **gam_att = s->*&MieCutReader::gamA;
    r.add(gpumc::PAIR_MIE, pair->cutsq[i][j], (s->*&MieCutReader::mie3)[i][j], (s->*&MieCutReader::mie4)[i][j],
          gam_rep[i][j] / 2.0, gam_att[i][j] / 2.0, 0, (s->*&MieCutReader::offset)[i][j]);
    const double cut = std::sqrt(pair->cutsq[i][j]);
    r.set_tail(pair,
               gpumc::mie_tail_coeff((s->*&MieCutReader::Cmie)[i][j], (s->*&MieCutReader::epsilon)[i][j],
                                     (s->*&MieCutReader::sigma)[i][j], gam_rep[i][j], gam_att[i][j], cut),
               cut);
  }
};

struct LJCutCoulDSFReader : PairLJCutCoulDSF {
  static void read(Pair *pair, PairReader &r)
  {
    using R = LJCutCoulDSFReader;
    auto *s = style_of<PairLJCutCoulDSF>(pair, r);
    r.add_lj(pair, (s->*&R::cut_ljsq)[r.i][r.j], s->*&R::lj3, s->*&R::lj4, s->*&R::offset, s->*&R::epsilon,
             s->*&R::sigma);
    r.add_dsf(gpumc::PAIR_COUL_DSF, s->*&R::cut_coulsq, s->*&R::alpha, s->*&R::e_shift, s->*&R::f_shift);
  }
};

struct LJCutCoulWolfReader : PairLJCutCoulWolf {
  static void read(Pair *pair, PairReader &r)
  {
    using R = LJCutCoulWolfReader;
    auto *s = style_of<PairLJCutCoulWolf>(pair, r);
    r.add_lj(pair, (s->*&R::cut_ljsq)[r.i][r.j], s->*&R::lj3, s->*&R::lj4, s->*&R::offset, s->*&R::epsilon,
             s->*&R::sigma);
    r.add_wolf(s->*&R::cut_coul, s->*&R::alf);
  }
};

// born/coul/dsf evaluates erfc with the math library's accuracy (MathSpecial::my_erfcx), not
// coul/dsf's polynomial; neither Born style has a tail correction in LAMMPS
struct BornCoulDSFReader : PairBornCoulDSF {
  static void read(Pair *pair, PairReader &r)
  {
    using R = BornCoulDSFReader;
    auto *s = style_of<PairBornCoulDSF>(pair, r);
    r.add_born((s->*&R::cut_ljsq)[r.i][r.j], s->*&R::a, s->*&R::rhoinv, s->*&R::sigma, s->*&R::c, s->*&R::d,
               s->*&R::offset);
    r.add_dsf(gpumc::PAIR_COUL_ERFC, s->*&R::cut_coulsq, s->*&R::alpha, s->*&R::e_shift, s->*&R::f_shift);
  }
};

struct BornCoulWolfReader : PairBornCoulWolf {
  static void read(Pair *pair, PairReader &r)
  {
    using R = BornCoulWolfReader;
    auto *s = style_of<PairBornCoulWolf>(pair, r);
    r.add_born((s->*&R::cut_ljsq)[r.i][r.j], s->*&R::a, s->*&R::rhoinv, s->*&R::sigma, s->*&R::c, s->*&R::d,
               s->*&R::offset);
    r.add_wolf(s->*&R::cut_coul, s->*&R::alf);
  }
};
#endif

#ifdef GPUMC_KSPACE
struct CoulLongReader : PairCoulLong {
  static void read(Pair *pair, PairReader &r)
  {
    using R = CoulLongReader;
    auto *s = style_of<PairCoulLong>(pair, r);
    r.add_long(pair, s->*&R::cut_coulsq, s->*&R::g_ewald, (s->*&R::scale)[r.i][r.j]);
  }
};

struct LJCutCoulLongReader : PairLJCutCoulLong {
  static void read(Pair *pair, PairReader &r)
  {
    using R = LJCutCoulLongReader;
    auto *s = style_of<PairLJCutCoulLong>(pair, r);
    r.add_lj(pair, (s->*&R::cut_ljsq)[r.i][r.j], s->*&R::lj3, s->*&R::lj4, s->*&R::offset, s->*&R::epsilon,
             s->*&R::sigma);
    r.add_long(pair, s->*&R::cut_coulsq, s->*&R::g_ewald);
  }
};

struct BuckCoulLongReader : PairBuckCoulLong {
  static void read(Pair *pair, PairReader &r)
  {
    using R = BuckCoulLongReader;
    auto *s = style_of<PairBuckCoulLong>(pair, r);
    r.add_buck(pair, (s->*&R::cut_ljsq)[r.i][r.j], s->*&R::a, s->*&R::rho, s->*&R::rhoinv, s->*&R::c,
               s->*&R::offset);
    r.add_long(pair, s->*&R::cut_coulsq, s->*&R::g_ewald);
  }
};

// born/coul/long has no tail correction in LAMMPS
struct BornCoulLongReader : PairBornCoulLong {
  static void read(Pair *pair, PairReader &r)
  {
    using R = BornCoulLongReader;
    auto *s = style_of<PairBornCoulLong>(pair, r);
    r.add_born((s->*&R::cut_ljsq)[r.i][r.j], s->*&R::a, s->*&R::rhoinv, s->*&R::sigma, s->*&R::c, s->*&R::d,
               s->*&R::offset);
    r.add_long(pair, s->*&R::cut_coulsq, s->*&R::g_ewald);
  }
};

// What `kspace_style ewald` was set up with (after its init(): g_ewald, accuracy, q2).
struct EwaldReader : Ewald {
  static gpumc::EwaldSettings read(LAMMPS *lmp, const std::string &who)
  {
    KSpace *k = lmp->force->kspace;
    if (!dynamic_cast<Ewald *>(k))
      lmp->error->all(FLERR, "{}: kspace style {} is not the class GPUMC reads", who, lmp->force->kspace_style);
    gpumc::EwaldSettings s;
    s.enabled = true;
    s.g_ewald = k->g_ewald;
    s.accuracy = k->accuracy;
    s.q2 = k->*&EwaldReader::q2;
    s.qqrd2e = lmp->force->qqrd2e;
    s.natoms = (long) lmp->atom->natoms;
    s.g_ewald_fixed = k->*&EwaldReader::gewaldflag;
    if (k->*&EwaldReader::kewaldflag) {
      s.kmax_fixed[0] = k->*&EwaldReader::kx_ewald;
      s.kmax_fixed[1] = k->*&EwaldReader::ky_ewald;
      s.kmax_fixed[2] = k->*&EwaldReader::kz_ewald;
    }
    return s;
  }
};
#endif

// pair_style table: the interpolation tables LAMMPS built (PairTable::compute_table), copied
struct TableReader : PairTable {
  static void read(Pair *pair, PairReader &r)
  {
    using R = TableReader;
    auto *s = style_of<PairTable>(pair, r);
    const int style = s->*&R::tabstyle, n = s->*&R::tablength;
    static const int kinds[] = {gpumc::PAIR_TABLE_LOOKUP, gpumc::PAIR_TABLE_LINEAR, gpumc::PAIR_TABLE_SPLINE};
    if (style != PairTable::LOOKUP && style != PairTable::LINEAR && style != PairTable::SPLINE)
      r.lmp->error->all(FLERR, "{} supports pair_style table lookup, linear and spline, not bitmap", r.who);
    const Table &tb = (s->*&R::tables)[(s->*&R::tabindex)[r.i][r.j]];
    // per point: r^2, e, and de (linear) or e2 (spline); lookup has e at the bins' midpoints
    std::vector<double> values(3 * (size_t) n, 0.0);
    const double *third = style == PairTable::LINEAR ? tb.de : tb.e2;
    for (int k = 0; k < n; k++) {
      const bool bin = k < n - 1;
      if (tb.rsq) values[3 * k] = tb.rsq[k];
      if (tb.e && (style != PairTable::LOOKUP || bin)) values[3 * k + 1] = tb.e[k];
      if (third && (style != PairTable::LINEAR || bin)) values[3 * k + 2] = third[k];
    }
    r.tables.emplace_back(r.terms.size(), std::move(values));
    // (LAMMPS sets deltasq6 for spline tables only)
    r.add(kinds[style], pair->cutsq[r.i][r.j], 0.0, tb.innersq, tb.invdelta,
          style == PairTable::SPLINE ? tb.deltasq6 : 0.0, (double) (n - 1));
  }
};

// hybrid and hybrid/overlay: the sub-styles of each type pair
struct HybridReader : PairHybrid {
  static std::vector<GPUMC::PairSubStyle> substyles(Pair *pair, int i, int j)
  {
    auto *h = dynamic_cast<PairHybrid *>(pair);
    std::vector<GPUMC::PairSubStyle> subs;
    if (!h) return subs;
    Pair **sub = h->*&HybridReader::styles;
    char **keywords = h->*&HybridReader::keywords;
    for (int k = 0; k < (h->*&HybridReader::nmap)[i][j]; k++) {
      const int m = (h->*&HybridReader::map)[i][j][k];
      if (sub[m]->compute_flag) subs.push_back({sub[m], GPUMC::without_accelerator_suffix(keywords[m])});
    }
    return subs;
  }
};

}    // namespace

std::string GPUMC::without_accelerator_suffix(const std::string &style)
{
  for (const char *suffix : ACCELERATOR_SUFFIXES) {
    const std::string s(suffix);
    if (style.size() > s.size() && style.compare(style.size() - s.size(), s.size(), s) == 0)
      return style.substr(0, style.size() - s.size());
  }
  return style;
}

const std::map<std::string, GPUMC::PairStyleInfo> &GPUMC::pair_style_readers()
{
  static const std::map<std::string, PairStyleInfo> table = {
      {"lj/cut", {LJCutReader::read, false}},
      {"morse", {MorseReader::read, false}},
      {"born", {BornReader::read, false}},
      {"buck", {BuckReader::read, false}},
      {"yukawa", {YukawaReader::read, false}},
      {"soft", {SoftReader::read, false}},
      {"table", {TableReader::read, false}},
      {"coul/cut", {CoulCutReader::read, true}},
      {"coul/dsf", {CoulDSFReader::read, true}},
      {"coul/wolf", {CoulWolfReader::read, true}},
      {"lj/cut/coul/cut", {LJCutCoulCutReader::read, true}},
      {"buck/coul/cut", {BuckCoulCutReader::read, true}},
#ifdef GPUMC_EXTRA_PAIR
      {"mie/cut", {MieCutReader::read, false}},
      {"lj/cut/coul/dsf", {LJCutCoulDSFReader::read, true}},
      {"lj/cut/coul/wolf", {LJCutCoulWolfReader::read, true}},
      {"born/coul/dsf", {BornCoulDSFReader::read, true}},
      {"born/coul/wolf", {BornCoulWolfReader::read, true}},
#endif
#ifdef GPUMC_KSPACE
      {"coul/long", {CoulLongReader::read, true}},
      {"lj/cut/coul/long", {LJCutCoulLongReader::read, true}},
      {"buck/coul/long", {BuckCoulLongReader::read, true}},
      {"born/coul/long", {BornCoulLongReader::read, true}},
#endif
  };
  return table;
}

std::string GPUMC::supported_pair_styles()
{
  std::string s;
  for (const auto &kv : pair_style_readers()) s += (s.empty() ? "" : ", ") + kv.first;
  return s + ", hybrid and hybrid/overlay of these";
}

std::vector<GPUMC::PairSubStyle> GPUMC::hybrid_substyles(Pair *pair, int i, int j)
{
  return HybridReader::substyles(pair, i, j);
}

gpumc::EwaldSettings GPUMC::read_ewald(LAMMPS *lmp, const std::string &who)
{
#ifdef GPUMC_KSPACE
  return EwaldReader::read(lmp, who);
#else
  lmp->error->all(FLERR, "{}: this LAMMPS was built without the KSPACE package", who);
  return {};
#endif
}
