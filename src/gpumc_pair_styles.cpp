/* ----------------------------------------------------------------------
   GPUMC: the interactions of LAMMPS's pair styles as GPUMC's pair terms (gpumc_pair_potential.h).
   One reader per style takes the coefficients the style holds after init_one(), so that cutoffs,
   mixing and `pair_modify shift` are as LAMMPS applies them. Adding a style: its PairKind and
   energy in gpumc_pair_potential.h, a reader here, and its name in STYLES.
------------------------------------------------------------------------- */

#include "gpumc_lammps.h"

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "force.h"
#include "info.h"
#include "kspace.h"
#include "pair.h"
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

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

using namespace LAMMPS_NS;
using gpumc::PairCoeff;

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

// What a reader is given and fills for one type pair (i <= j) of one style.
struct Reader {
  LAMMPS *lmp;
  const std::string &who;
  const std::string &style;      // the style's name without accelerator suffix
  const std::vector<double> &charge;    // per type; NaN: no atom of the type, so unknown
  int i, j;
  std::vector<PairCoeff> terms;  // the pair's terms so far
  double tail = 0.0;             // the pair's tail_ij (pair_modify tail yes)
  // pair_style table terms: their index among the pair's terms, and their values (PairTableValues)
  std::vector<std::pair<size_t, std::vector<double>>> tables;
  // a Coulomb sum with a self energy per atom (DSF, Wolf): its e_shift and alpha
  bool self = false;
  double self_shift = 0.0, self_alpha = 0.0;

  void add(int kind, double cutsq, double a, double b = 0.0, double c = 0.0, double d = 0.0, double e = 0.0,
           double offset = 0.0)
  {
    PairCoeff p;
    p.kind = kind;
    p.cutsq = cutsq;
    p.a = a;
    p.b = b;
    p.c = c;
    p.d = d;
    p.e = e;
    p.offset = offset;
    terms.push_back(p);
  }
  // qqrd2e q_i q_j: zero where a type has no atoms (its charge is unknown and no energy has it)
  double qq() const
  {
    const double qi = charge[i], qj = charge[j];
    return std::isnan(qi) || std::isnan(qj) ? 0.0 : lmp->force->qqrd2e * qi * qj;
  }
  void add_dsf(int kind, double cut_coulsq, double alpha, double e_shift, double f_shift)
  {
    add(kind, cut_coulsq, qq(), alpha, e_shift, f_shift);
    self = true;
    self_shift = e_shift;
    self_alpha = alpha;
  }
  // Wolf: LAMMPS computes e_shift in compute(), from alpha and the cutoff
  void add_wolf(double cut_coul, double alpha)
  {
    add_dsf(gpumc::PAIR_COUL_ERFC, cut_coul * cut_coul, alpha, std::erfc(alpha * cut_coul) / cut_coul, 0.0);
  }
  // the real-space Coulomb term of an Ewald sum; LAMMPS's Coulomb tables (the default) interpolate
  // erfc(g r) / r beyond r = 2^(1/2), so GPUMC requires them off to give LAMMPS's energies
  void add_long(Pair *pair, double cut_coulsq, double g_ewald, double scale = 1.0)
  {
    if (pair->ncoultablebits)
      lmp->error->all(FLERR, "{}: pair style {} with Coulomb tables (pair_modify table {}); GPUMC evaluates erfc as "
                      "LAMMPS does without them: add 'pair_modify table 0'", who, style, pair->ncoultablebits);
    add(gpumc::PAIR_COUL_LONG, cut_coulsq, qq() * scale, g_ewald);
  }
  // the Lennard-Jones term of lj/cut and of its Coulomb kin, with its tail
  void add_lj(Pair *pair, double cut_ljsq, double **lj3, double **lj4, double **offset, double **epsilon,
              double **sigma)
  {
    add(gpumc::PAIR_LJ_CUT, cut_ljsq, lj3[i][j], lj4[i][j], 0, 0, 0, offset[i][j]);
    const double cut = std::sqrt(cut_ljsq);
    set_tail(pair, gpumc::lj_cut_tail_coeff(epsilon[i][j], sigma[i][j], cut), cut);
  }
  // the Buckingham term of buck and buck/coul/cut, with its tail
  void add_buck(Pair *pair, double cutsq, double **a, double **rho, double **rhoinv, double **c, double **offset)
  {
    add(gpumc::PAIR_BUCK, cutsq, a[i][j], rhoinv[i][j], c[i][j], 0, 0, offset[i][j]);
    const double cut = std::sqrt(cutsq);
    set_tail(pair, gpumc::born_tail_coeff(a[i][j], rho[i][j], 0.0, c[i][j], 0.0, cut), cut);
  }
  // the Born term of born and born/coul/* (the tail is born's alone)
  void add_born(double cutsq, double **a, double **rhoinv, double **sigma, double **c, double **d, double **offset)
  {
    add(gpumc::PAIR_BORN, cutsq, a[i][j], rhoinv[i][j], sigma[i][j], c[i][j], d[i][j], offset[i][j]);
  }
  // tail_ij of the pair's term of cutoff cut, where the style has `pair_modify tail yes`
  void set_tail(Pair *pair, double value, double cut)
  {
    if (!pair->tail_flag) return;
    if (!std::isfinite(value))
      lmp->error->all(FLERR, "{}: pair_modify tail yes with a cutoff of {} for types {} {} (pair style {}): the tail "
                      "correction is infinite", who, cut, i, j, style);
    tail += value;
  }
};

template <class Style>
Style *style_of(Pair *pair, Reader &r)
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
  static void read(Pair *pair, Reader &r)
  {
    auto *s = style_of<PairLJCut>(pair, r);
    r.add_lj(pair, pair->cutsq[r.i][r.j], s->*&LJCutReader::lj3, s->*&LJCutReader::lj4, s->*&LJCutReader::offset,
             s->*&LJCutReader::epsilon, s->*&LJCutReader::sigma);
  }
};

struct MorseReader : PairMorse {
  static void read(Pair *pair, Reader &r)
  {
    auto *s = style_of<PairMorse>(pair, r);
    const int i = r.i, j = r.j;
    r.add(gpumc::PAIR_MORSE, pair->cutsq[i][j], (s->*&MorseReader::d0)[i][j], (s->*&MorseReader::alpha)[i][j],
          (s->*&MorseReader::r0)[i][j], 0, 0, (s->*&MorseReader::offset)[i][j]);
  }
};

struct BornReader : PairBorn {
  static void read(Pair *pair, Reader &r)
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
  static void read(Pair *pair, Reader &r)
  {
    auto *s = style_of<PairBuck>(pair, r);
    r.add_buck(pair, pair->cutsq[r.i][r.j], s->*&BuckReader::a, s->*&BuckReader::rho, s->*&BuckReader::rhoinv,
               s->*&BuckReader::c, s->*&BuckReader::offset);
  }
};

struct YukawaReader : PairYukawa {
  static void read(Pair *pair, Reader &r)
  {
    auto *s = style_of<PairYukawa>(pair, r);
    const int i = r.i, j = r.j;
    r.add(gpumc::PAIR_YUKAWA, pair->cutsq[i][j], (s->*&YukawaReader::a)[i][j], s->*&YukawaReader::kappa, 0, 0, 0,
          (s->*&YukawaReader::offset)[i][j]);
  }
};

struct SoftReader : PairSoft {
  static void read(Pair *pair, Reader &r)
  {
    auto *s = style_of<PairSoft>(pair, r);
    const int i = r.i, j = r.j;
    r.add(gpumc::PAIR_SOFT, pair->cutsq[i][j], (s->*&SoftReader::prefactor)[i][j], (s->*&SoftReader::cut)[i][j]);
  }
};

struct CoulCutReader : PairCoulCut {
  static void read(Pair *pair, Reader &r)
  {
    auto *s = style_of<PairCoulCut>(pair, r);
    r.add(gpumc::PAIR_COUL_CUT, pair->cutsq[r.i][r.j], r.qq() * (s->*&CoulCutReader::scale)[r.i][r.j]);
  }
};

struct CoulDSFReader : PairCoulDSF {
  static void read(Pair *pair, Reader &r)
  {
    auto *s = style_of<PairCoulDSF>(pair, r);
    r.add_dsf(gpumc::PAIR_COUL_DSF, s->*&CoulDSFReader::cut_coulsq, s->*&CoulDSFReader::alpha,
              s->*&CoulDSFReader::e_shift, s->*&CoulDSFReader::f_shift);
  }
};

struct CoulWolfReader : PairCoulWolf {
  static void read(Pair *pair, Reader &r)
  {
    auto *s = style_of<PairCoulWolf>(pair, r);
    r.add_wolf(s->*&CoulWolfReader::cut_coul, s->*&CoulWolfReader::alf);
  }
};

struct LJCutCoulCutReader : PairLJCutCoulCut {
  static void read(Pair *pair, Reader &r)
  {
    using R = LJCutCoulCutReader;
    auto *s = style_of<PairLJCutCoulCut>(pair, r);
    r.add_lj(pair, (s->*&R::cut_ljsq)[r.i][r.j], s->*&R::lj3, s->*&R::lj4, s->*&R::offset, s->*&R::epsilon,
             s->*&R::sigma);
    r.add(gpumc::PAIR_COUL_CUT, (s->*&R::cut_coulsq)[r.i][r.j], r.qq());
  }
};

struct BuckCoulCutReader : PairBuckCoulCut {
  static void read(Pair *pair, Reader &r)
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
  static void read(Pair *pair, Reader &r)
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
  static void read(Pair *pair, Reader &r)
  {
    using R = LJCutCoulDSFReader;
    auto *s = style_of<PairLJCutCoulDSF>(pair, r);
    r.add_lj(pair, (s->*&R::cut_ljsq)[r.i][r.j], s->*&R::lj3, s->*&R::lj4, s->*&R::offset, s->*&R::epsilon,
             s->*&R::sigma);
    r.add_dsf(gpumc::PAIR_COUL_DSF, s->*&R::cut_coulsq, s->*&R::alpha, s->*&R::e_shift, s->*&R::f_shift);
  }
};

struct LJCutCoulWolfReader : PairLJCutCoulWolf {
  static void read(Pair *pair, Reader &r)
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
  static void read(Pair *pair, Reader &r)
  {
    using R = BornCoulDSFReader;
    auto *s = style_of<PairBornCoulDSF>(pair, r);
    r.add_born((s->*&R::cut_ljsq)[r.i][r.j], s->*&R::a, s->*&R::rhoinv, s->*&R::sigma, s->*&R::c, s->*&R::d,
               s->*&R::offset);
    r.add_dsf(gpumc::PAIR_COUL_ERFC, s->*&R::cut_coulsq, s->*&R::alpha, s->*&R::e_shift, s->*&R::f_shift);
  }
};

struct BornCoulWolfReader : PairBornCoulWolf {
  static void read(Pair *pair, Reader &r)
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
  static void read(Pair *pair, Reader &r)
  {
    using R = CoulLongReader;
    auto *s = style_of<PairCoulLong>(pair, r);
    r.add_long(pair, s->*&R::cut_coulsq, s->*&R::g_ewald, (s->*&R::scale)[r.i][r.j]);
  }
};

struct LJCutCoulLongReader : PairLJCutCoulLong {
  static void read(Pair *pair, Reader &r)
  {
    using R = LJCutCoulLongReader;
    auto *s = style_of<PairLJCutCoulLong>(pair, r);
    r.add_lj(pair, (s->*&R::cut_ljsq)[r.i][r.j], s->*&R::lj3, s->*&R::lj4, s->*&R::offset, s->*&R::epsilon,
             s->*&R::sigma);
    r.add_long(pair, s->*&R::cut_coulsq, s->*&R::g_ewald);
  }
};

struct BuckCoulLongReader : PairBuckCoulLong {
  static void read(Pair *pair, Reader &r)
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
  static void read(Pair *pair, Reader &r)
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
  static void read(Pair *pair, Reader &r)
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

using ReadFn = void (*)(Pair *, Reader &);
struct StyleInfo {
  ReadFn read;
  bool coulomb;    // needs charges
};
const std::map<std::string, StyleInfo> &styles()
{
  static const std::map<std::string, StyleInfo> table = {
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

std::string supported_list()
{
  std::string s;
  for (const auto &kv : styles()) s += (s.empty() ? "" : ", ") + kv.first;
  return s + ", hybrid and hybrid/overlay of these";
}

// hybrid and hybrid/overlay: the sub-styles of each type pair
struct HybridReader : PairHybrid {
  struct Sub {
    Pair *pair;
    std::string style;
  };
  static std::vector<Sub> substyles(Pair *pair, int i, int j)
  {
    auto *h = dynamic_cast<PairHybrid *>(pair);
    std::vector<Sub> subs;
    if (!h) return subs;
    Pair **sub = h->*&HybridReader::styles;
    char **keywords = h->*&HybridReader::keywords;
    for (int k = 0; k < (h->*&HybridReader::nmap)[i][j]; k++) {
      const int m = (h->*&HybridReader::map)[i][j][k];
      if (sub[m]->compute_flag) subs.push_back({sub[m], base_style(keywords[m])});
    }
    return subs;
  }
};

// Per type: the charge its atoms share (NaN: no atom of the type). Atoms of one type with
// different charges are an error: GPUMC's Coulomb terms are per type pair.
std::vector<double> type_charges(LAMMPS *lmp, const std::string &who)
{
  Atom *atom = lmp->atom;
  const int ntypes = atom->ntypes;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> lo(ntypes + 1, inf), hi(ntypes + 1, -inf), glo(ntypes + 1), ghi(ntypes + 1);
  if (!atom->q) lmp->error->all(FLERR, "{}: the pair style has Coulomb terms but the atoms have no charges", who);
  for (int k = 0; k < atom->nlocal; k++) {
    const int t = atom->type[k];
    lo[t] = std::min(lo[t], atom->q[k]);
    hi[t] = std::max(hi[t], atom->q[k]);
  }
  MPI_Allreduce(lo.data(), glo.data(), ntypes + 1, MPI_DOUBLE, MPI_MIN, lmp->world);
  MPI_Allreduce(hi.data(), ghi.data(), ntypes + 1, MPI_DOUBLE, MPI_MAX, lmp->world);
  std::vector<double> charge(ntypes + 1, std::numeric_limits<double>::quiet_NaN());
  for (int t = 1; t <= ntypes; t++) {
    if (glo[t] > ghi[t]) continue;    // no atoms
    if (glo[t] != ghi[t])
      lmp->error->all(FLERR, "{} requires one charge per atom type: type {} has charges from {} to {}", who, t, glo[t],
                      ghi[t]);
    charge[t] = glo[t];
  }
  return charge;
}

// The k-space solver: exact Ewald alone. Its self and background terms go into the table's count
// energy (self energies, and tail coefficients times N_i N_j / V).
void add_ewald(LAMMPS *lmp, const std::string &who, gpumc::PairTable &table)
{
  Force *force = lmp->force;
  const std::string kstyle = base_style(force->kspace_style);
#ifdef GPUMC_KSPACE
  if (kstyle == "ewald") {
    KSpace *k = force->kspace;
    if (!k->compute_flag)
      lmp->error->all(FLERR, "{} does not support kspace_modify compute no (the energy would lack its k-space part)",
                      who);
    if (table.charge.empty())
      lmp->error->all(FLERR, "{}: kspace_style ewald needs a coul/long pair style (coul/long, lj/cut/coul/long, "
                      "buck/coul/long, born/coul/long)", who);
    table.ewald = EwaldReader::read(lmp, who);
    const gpumc::EwaldSettings &s = table.ewald;
    const int n1 = table.ntypes + 1;
    if (table.self.empty()) table.self.assign(n1, 0.0);
    if (table.tail.empty()) table.tail.assign((size_t) n1 * n1, 0.0);
    for (int i = 1; i <= table.ntypes; i++) {
      const double qi = std::isnan(table.charge[i]) ? 0.0 : table.charge[i];
      table.self[i] += gpumc::ewald_self_energy(s, qi);
      for (int j = 1; j <= table.ntypes; j++) {
        const double qj = std::isnan(table.charge[j]) ? 0.0 : table.charge[j];
        table.tail[i * n1 + j] += gpumc::ewald_background_coeff(s, qi, qj);
      }
    }
    return;
  }
#endif
  lmp->error->all(FLERR, "{} supports kspace_style ewald only (the exact Ewald sum), not {}", who, force->kspace_style);
}

}    // namespace

gpumc::PairTable GPUMC::pair_table(LAMMPS *lmp, const std::string &who)
{
  Error *error = lmp->error;
  Force *force = lmp->force;
  Pair *pair = force->pair;
  if (!pair || !force->pair_style || strcmp(force->pair_style, "none") == 0 || strcmp(force->pair_style, "zero") == 0)
    error->all(FLERR, "{} requires a pair style ({})", who, supported_list());
  const std::string full_style = force->pair_style;
  const std::string style = base_style(full_style);
  if (style == "hybrid/scaled") error->all(FLERR, "{} does not support pair style hybrid/scaled", who);
  const bool hybrid = style == "hybrid" || style == "hybrid/overlay";
  const int ntypes = lmp->atom->ntypes;

  // the styles of each type pair (i <= j): the pair style, or hybrid's sub-styles for the pair
  auto styles_of = [&](int i, int j) {
    if (hybrid) return HybridReader::substyles(pair, i, j);
    return std::vector<HybridReader::Sub>{{pair, style}};
  };
  bool coulomb = false;
  for (int i = 1; i <= ntypes; i++)
    for (int j = i; j <= ntypes; j++)
      for (const auto &sub : styles_of(i, j)) {
        const auto it = styles().find(sub.style);
        if (it == styles().end())
          error->all(FLERR, "{} does not support pair style {}{}; it supports {}", who, sub.style,
                     hybrid ? " (a sub-style of " + full_style + ")" : "", supported_list());
        coulomb = coulomb || it->second.coulomb;
      }
  const std::vector<double> charge =
      coulomb ? type_charges(lmp, who) : std::vector<double>(ntypes + 1, std::numeric_limits<double>::quiet_NaN());

  if (base_style(full_style) == "morse" && lmp->comm->me == 0) {
    if (full_style.find("/kk") != std::string::npos && Info(lmp).is_active("pair", "shift"))
      error->warning(FLERR, "{}: pair style {} of LAMMPS 4Feb2025 ignores pair_modify shift (fixed upstream in "
                     "lammps/lammps#5182): thermo pe omits the offsets, while GPUMC's energies include them as pair "
                     "style morse does", who, full_style);
    if (pair->tail_flag)
      error->warning(FLERR,
                     "{}: pair style morse has no tail correction in LAMMPS; 'pair_modify tail yes' adds nothing", who);
  }

  // The styles keep their coefficients for i <= j only (lj/cut never mirrors epsilon and sigma
  // to [j][i]), so read the upper triangle and mirror it.
  std::vector<Reader> pairs;
  size_t nterms = 1;
  bool any_tail = false;
  // DSF and Wolf Coulomb tally a self energy for each atom of the types they act on (a hybrid
  // sub-style, those of the pairs mapped to it); their settings, and the types
  bool self = false;
  double self_shift = 0.0, self_alpha = 0.0;
  std::vector<bool> self_type(ntypes + 1, false);
  for (int i = 1; i <= ntypes; i++)
    for (int j = i; j <= ntypes; j++) {
      Reader r{lmp, who, style, charge, i, j};
      for (const auto &sub : styles_of(i, j)) {
        Reader s{lmp, who, sub.style, charge, i, j};
        styles().at(sub.style).read(sub.pair, s);
        for (auto &t : s.tables) r.tables.emplace_back(r.terms.size() + t.first, std::move(t.second));
        r.terms.insert(r.terms.end(), s.terms.begin(), s.terms.end());
        r.tail += s.tail;
        any_tail = any_tail || sub.pair->tail_flag;
        if (s.self) {
          if (self && (self_shift != s.self_shift || self_alpha != s.self_alpha))
            error->all(FLERR, "{} supports one setting of DSF or Wolf Coulomb sub-styles, not two", who);
          self = true;
          self_shift = s.self_shift;
          self_alpha = s.self_alpha;
          self_type[i] = self_type[j] = true;
        }
      }
      nterms = std::max(nterms, r.terms.size());
      pairs.push_back(std::move(r));
    }

  gpumc::PairTable table(ntypes, (int) nterms);
  if (any_tail) table.tail.assign((ntypes + 1) * (ntypes + 1), 0.0);
  for (const Reader &r : pairs) {
    for (size_t t = 0; t < r.terms.size(); t++) table.at(r.i, r.j, (int) t) = table.at(r.j, r.i, (int) t) = r.terms[t];
    if (any_tail) table.tail[r.i * (ntypes + 1) + r.j] = table.tail[r.j * (ntypes + 1) + r.i] = r.tail;
  }
  for (const Reader &r : pairs)
    for (const auto &t : r.tables) table.add_table_values(t.second, {r.i, r.j, (int) t.first, r.j, r.i, (int) t.first});
  if (self) {
    table.self.assign(ntypes + 1, 0.0);
    for (int t = 1; t <= ntypes; t++)
      if (self_type[t] && !std::isnan(charge[t]))
        table.self[t] = gpumc::coul_self_energy(self_shift, self_alpha, charge[t], force->qqrd2e);
  }
  if (coulomb) table.charge = charge;
  if (force->kspace) add_ewald(lmp, who, table);
  table.finalize();
  return table;
}
