// Pair potentials GPUMC samples with, written term for term as LAMMPS evaluates them (the pair
// styles' compute()), so that energies agree with `compute pe`. The one definition of each
// potential for every style and backend. Adding a LAMMPS pair style: a PairKind and its energy
// here, and a reader of the style's coefficients in gpumc_pair_readers.cpp.
#pragma once

#include "gpumc_ewald.h"
#include "gpumc_portability.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

namespace gpumc {

// The kinds of pair terms. Coulomb terms carry the charge product of their type pair (GPUMC
// requires one charge per atom type), so every term depends on the two types and r alone.
enum PairKind : int {
  PAIR_NONE = 0,
  PAIR_LJ_CUT = 1,      // a = lj3 (4 eps sigma^12), b = lj4 (4 eps sigma^6)
  PAIR_MORSE = 2,       // a = D0, b = alpha, c = r0
  PAIR_BORN = 3,        // a = A, b = 1/rho, c = sigma, d = C, e = D
  PAIR_BUCK = 4,        // a = A, b = 1/rho, c = C
  PAIR_MIE = 5,         // a = mie3, b = mie4, c = gamma_rep / 2, d = gamma_att / 2
  PAIR_YUKAWA = 6,      // a = A, b = kappa
  PAIR_SOFT = 7,        // a = A, b = cutoff
  PAIR_COUL_CUT = 8,    // a = qqrd2e q_i q_j (times coul/cut's scale)
  PAIR_COUL_DSF = 9,    // a = qqrd2e q_i q_j, b = alpha, c = e_shift, d = f_shift; erfc by the
                        // polynomial of coul/dsf and lj/cut/coul/dsf
  PAIR_COUL_ERFC = 10,  // the same with the math library's erfc: coul/wolf and its kin (d = 0),
                        // born/coul/dsf
  PAIR_COUL_LONG = 11,  // a = qqrd2e q_i q_j, b = g_ewald: the real-space part of an Ewald sum, with
                        // the polynomial erfc of the coul/long styles (pair_modify table 0)
  // pair_style table, its lookup, linear and spline interpolations: a = where the table's values
  // are (PairTableValues), b = inner cutoff^2, c = 1 / delta (in r^2), d = delta^2 / 6, e = last
  // interval (tablength - 1)
  PAIR_TABLE_LOOKUP = 12,
  PAIR_TABLE_LINEAR = 13,
  PAIR_TABLE_SPLINE = 14,
};

// One term of a type pair's interaction, with the parameters listed at its kind. offset is what
// LAMMPS subtracts from the term (the energy at the cutoff under `pair_modify shift yes`, else
// 0). Real is double, or float for the pair terms of the mixed precision kernels (converted from
// the double table, so both evaluate the same formula). 16-byte aligned, so that a GPU loads a
// term as whole vectors (32 bytes in float); d and e last, so that lj/cut and morse terms load
// from the first 48 bytes in double, as before the other kinds came.
template <class Real>
struct alignas(16) PairCoeffT {
  int kind = PAIR_NONE;
  Real cutsq = 0, a = 0, b = 0, c = 0;
  Real offset = 0;
  Real d = 0, e = 0;

  PairCoeffT() = default;
  template <class Other>
  explicit PairCoeffT(const PairCoeffT<Other> &o) :
      kind(o.kind), cutsq((Real) o.cutsq), a((Real) o.a), b((Real) o.b), c((Real) o.c), offset((Real) o.offset),
      d((Real) o.d), e((Real) o.e)
  {
  }
};
using PairCoeff = PairCoeffT<double>;

// exp and sqrt of the precision asked for (float stays float on host and device). On a CUDA
// device the float ones are the hardware approximations (exp2 and reciprocal square root units,
// errors of a few ulp): a fraction of the cost of the correctly rounded ones, and well inside the
// error that mixed precision's float positions already bring.
GPUMC_INLINE double real_exp(double x) { return exp(x); }
GPUMC_INLINE double real_sqrt(double x) { return sqrt(x); }
GPUMC_INLINE float real_exp(float x)
{
#ifdef __CUDA_ARCH__
  return __expf(x);
#else
  return expf(x);
#endif
}
GPUMC_INLINE float real_sqrt(float x)
{
#ifdef __CUDA_ARCH__
  return x > 0.0f ? x * rsqrtf(x) : 0.0f;
#else
  return sqrtf(x);
#endif
}
GPUMC_INLINE double real_pow(double x, double y) { return pow(x, y); }
GPUMC_INLINE float real_pow(float x, float y) { return powf(x, y); }
GPUMC_INLINE double real_cos(double x) { return cos(x); }
GPUMC_INLINE float real_cos(float x) { return cosf(x); }
GPUMC_INLINE double real_erfc(double x) { return erfc(x); }
GPUMC_INLINE float real_erfc(float x) { return erfcf(x); }

// The complementary error function of LAMMPS's coul/dsf (ewald_const.h: Abramowitz and Stegun
// 7.1.26, relative error about 1e-7), which its energies contain.
template <class Real>
GPUMC_INLINE Real dsf_erfc(Real x, Real erfcd)
{
  const Real t = Real(1) / (Real(1) + Real(0.3275911) * x);
  return t * (Real(0.254829592) +
              t * (Real(-0.284496736) + t * (Real(1.421413741) + t * (Real(-1.453152027) + t * Real(1.061405429))))) *
      erfcd;
}

// Which kinds a kernel is compiled for. A table of one lj/cut or morse term per pair (the
// classic decks, and the benchmark's SiO2) runs kernels instantiated for PairsLJMorse, which
// hold no code for the other kinds: on the H100 the kernels that could evaluate every kind ran
// Morse SiO2 up to a fifth slower (registers, code size). The checkerboard's trial kernel also has
// PairsAnalytic, without the rare kinds of rare_pair_energy_unshifted, for the tables that have
// none of them (the charged decks): their code made the double-precision kernel spill registers
// (H200, BKS silica: 8-12 % slower). Every other table runs PairsAny.
struct PairsAny {
  static constexpr bool any_kind = true;
  static constexpr bool rare_kinds = true;
  GPUMC_INLINE static int terms(int nterms) { return nterms; }
};
struct PairsAnalytic {
  static constexpr bool any_kind = true;
  static constexpr bool rare_kinds = false;
  GPUMC_INLINE static int terms(int nterms) { return nterms; }
};
struct PairsLJMorse {
  static constexpr bool any_kind = false;
  static constexpr bool rare_kinds = false;
  GPUMC_INLINE static constexpr int terms(int) { return 1; }
};

// A table's values (pair_style table) are kept in the pair table's coefficient array itself, after
// the pair terms, seven to an entry (in the fields cutsq .. e): the values of point i at 3 i (r^2),
// 3 i + 1 (e) and 3 i + 2 (de for linear, e2 for spline). A table term finds its first entry p.a
// entries after itself, so every kernel that has the terms has the tables (on any device, and in
// float for mixed precision).
template <class Real>
GPUMC_INLINE Real table_value(const PairCoeffT<Real> *base, int j)
{
  const PairCoeffT<Real> &v = base[j / 7];
  switch (j % 7) {
    case 0: return v.cutsq;
    case 1: return v.a;
    case 2: return v.b;
    case 3: return v.c;
    case 4: return v.offset;
    case 5: return v.d;
    default: return v.e;
  }
}

// LAMMPS's pair_style table energy (PairTable::compute), infinite inside the table's inner cutoff
// (where LAMMPS stops with an error; a move there is rejected, a start there refused)
template <class Real>
GPUMC_INLINE Real table_energy(const PairCoeffT<Real> &p, Real rsq)
{
  if (!(rsq >= p.b)) return Real(INFINITY);    // (and a NaN distance: no index from it)
  const PairCoeffT<Real> *values = &p + (long) p.a;
  int i = (int) ((rsq - p.b) * p.c);
  const int last = (int) p.e;
  if (i >= last) i = last - 1;    // (LAMMPS: beyond the outer cutoff, an error)
  if (p.kind == PAIR_TABLE_LOOKUP) return table_value(values, 3 * i + 1);
  const Real r0 = table_value(values, 3 * i);
  if (p.kind == PAIR_TABLE_LINEAR) {
    const Real fraction = (rsq - r0) * p.c;
    return table_value(values, 3 * i + 1) + fraction * table_value(values, 3 * i + 2);
  }
  const Real b = (rsq - r0) * p.c, a = Real(1) - b;
  return a * table_value(values, 3 * i + 1) + b * table_value(values, 3 * i + 4) +
      ((a * a * a - a) * table_value(values, 3 * i + 2) + (b * b * b - b) * table_value(values, 3 * i + 5)) * p.d;
}

// The distances a pair's terms are written in: r^2, r and 1/r, worked out once per pair for all of
// its terms (a sqrt and a division in double precision cost as much as an exp on a GPU). On the
// host r and 1/r are the correctly rounded sqrt(r^2) and 1 / r; on a CUDA device 1/r is the
// reciprocal square root (rsqrt, within an ulp or two) and r is r^2 times it: fewer instructions
// than a sqrt and a division (BKS silica's checkerboard 1.02x in double, 1.05x in mixed precision).
template <class Real>
struct PairDistance {
  Real rsq, r, rinv;
};
template <class Real>
GPUMC_INLINE PairDistance<Real> pair_distance(Real rsq)
{
  PairDistance<Real> d;
  d.rsq = rsq;
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same<Real, float>::value)
    d.rinv = rsqrtf(rsq);
  else
    d.rinv = rsqrt(rsq);
  d.r = rsq > Real(0) ? rsq * d.rinv : Real(0);    // (r = 0, 1/r = inf at r^2 = 0, as on the host)
#else
  d.r = real_sqrt(rsq);
  d.rinv = Real(1) / d.r;
#endif
  return d;
}

// lj/cut's energy from 1/r^2, morse's from r: LAMMPS's expressions.
template <class Real>
GPUMC_INLINE Real lj_energy_unshifted(const PairCoeffT<Real> &p, Real r2inv)
{
  const Real r6inv = r2inv * r2inv * r2inv;
  return r6inv * (p.a * r6inv - p.b);
}
template <class Real>
GPUMC_INLINE Real morse_energy_unshifted(const PairCoeffT<Real> &p, Real r)
{
  const Real dexp = real_exp(-p.b * (r - p.c));
  return p.a * (dexp * dexp - Real(2) * dexp);
}

// The two kinds of the classic decks, from r^2 alone (PairsLJMorse kernels).
template <class Real>
GPUMC_INLINE Real lj_morse_energy_unshifted(const PairCoeffT<Real> &p, Real rsq)
{
  if (p.kind == PAIR_LJ_CUT) return lj_energy_unshifted(p, Real(1) / rsq);
  if (p.kind == PAIR_MORSE) return morse_energy_unshifted(p, real_sqrt(rsq));
  return Real(0);
}

// The kinds that few decks use, whose code (pow, cos, the math library's erfc, table lookups) is
// long. (Out of line on a GPU they made the other kinds spill more registers around the call.)
template <class Real>
GPUMC_INLINE Real rare_pair_energy_unshifted(const PairCoeffT<Real> &p, Real rsq, Real r)
{
  switch (p.kind) {
    case PAIR_MIE: {
      const Real r2inv = Real(1) / rsq;
      return p.a * real_pow(r2inv, p.c) - p.b * real_pow(r2inv, p.d);
    }
    case PAIR_SOFT: {
      const Real arg = Real(M_PI) * r / p.b;
      return p.a * (Real(1) + real_cos(arg));
    }
    case PAIR_COUL_ERFC: {
      const Real prefactor = p.a / r;
      return prefactor * (real_erfc(p.b * r) - r * p.c - rsq * p.d);
    }
    case PAIR_TABLE_LOOKUP:
    case PAIR_TABLE_LINEAR:
    case PAIR_TABLE_SPLINE: return table_energy(p, rsq);
    default: return Real(0);
  }
}

// A term's kind as a type, for code written once for every kind (PAIR_RARE: any kind of
// rare_pair_energy_unshifted, told apart there at run time).
constexpr int PAIR_RARE = -1;
template <int KIND>
struct PairKindTag {
  static constexpr int kind = KIND;
};

// Energy of a term of kind KIND, without its shift.
template <int KIND, class Real>
GPUMC_INLINE Real kind_energy_unshifted(const PairCoeffT<Real> &p, const PairDistance<Real> &d)
{
  if constexpr (KIND == PAIR_LJ_CUT) {
    // (1/r^2 from the distance's 1/r: no second division beside the other terms of a pair; the
    // host's shortcut for a lone lj/cut term below divides, the same to round-off)
    return lj_energy_unshifted(p, d.rinv * d.rinv);
  } else if constexpr (KIND == PAIR_MORSE) {
    return morse_energy_unshifted(p, d.r);
  } else if constexpr (KIND == PAIR_BORN) {
    const Real r2inv = d.rinv * d.rinv;
    const Real r6inv = r2inv * r2inv * r2inv;
    const Real rexp = real_exp((p.c - d.r) * p.b);
    return p.a * rexp - p.d * r6inv + p.e * r6inv * r2inv;
  } else if constexpr (KIND == PAIR_BUCK) {
    const Real r2inv = d.rinv * d.rinv;
    const Real r6inv = r2inv * r2inv * r2inv;
    return p.a * real_exp(-d.r * p.b) - p.c * r6inv;
  } else if constexpr (KIND == PAIR_YUKAWA) {
    return p.a * real_exp(-p.b * d.r) * d.rinv;
  } else if constexpr (KIND == PAIR_COUL_CUT) {
    return p.a * d.rinv;
  } else if constexpr (KIND == PAIR_COUL_DSF) {
    const Real erfcc = dsf_erfc(p.b * d.r, real_exp(-p.b * p.b * d.rsq));
    return p.a * d.rinv * (erfcc - d.r * p.c - d.rsq * p.d);
  } else if constexpr (KIND == PAIR_COUL_LONG) {
    return p.a * d.rinv * dsf_erfc(p.b * d.r, real_exp(-p.b * p.b * d.rsq));
  } else if constexpr (KIND == PAIR_RARE) {
    return rare_pair_energy_unshifted(p, d.rsq, d.r);
  } else {
    return Real(0);
  }
}

// The dispatch on a term's kind of pair_energy_unshifted and pair_energies:
// visit(PairKindTag<kind>{}) (RARE false: no rare kind, which then count as PAIR_NONE, 0).
template <bool RARE, class Visit>
GPUMC_INLINE void visit_pair_kind(int kind, const Visit &visit)
{
  switch (kind) {
    case PAIR_NONE: visit(PairKindTag<PAIR_NONE>{}); return;
    case PAIR_LJ_CUT: visit(PairKindTag<PAIR_LJ_CUT>{}); return;
    case PAIR_MORSE: visit(PairKindTag<PAIR_MORSE>{}); return;
    case PAIR_BORN: visit(PairKindTag<PAIR_BORN>{}); return;
    case PAIR_BUCK: visit(PairKindTag<PAIR_BUCK>{}); return;
    case PAIR_YUKAWA: visit(PairKindTag<PAIR_YUKAWA>{}); return;
    case PAIR_COUL_CUT: visit(PairKindTag<PAIR_COUL_CUT>{}); return;
    case PAIR_COUL_DSF: visit(PairKindTag<PAIR_COUL_DSF>{}); return;
    case PAIR_COUL_LONG: visit(PairKindTag<PAIR_COUL_LONG>{}); return;
    default:
      if constexpr (RARE)
        visit(PairKindTag<PAIR_RARE>{});
      else
        visit(PairKindTag<PAIR_NONE>{});
  }
}

// Energy of a term of any kind, without its shift.
template <bool RARE = true, class Real>
GPUMC_INLINE Real pair_energy_unshifted(const PairCoeffT<Real> &p, const PairDistance<Real> &d)
{
  Real e = Real(0);
  visit_pair_kind<RARE>(p.kind, [&](auto kind) { e = kind_energy_unshifted<decltype(kind)::kind>(p, d); });
  return e;
}

// Energy of one term at distance d; zero at and beyond its cutoff.
template <bool RARE = true, class Real>
GPUMC_INLINE Real pair_energy(const PairCoeffT<Real> &p, const PairDistance<Real> &d)
{
#ifdef __CUDA_ARCH__
  // on a GPU the term is evaluated and then selected: no branch on the cutoff, so the coefficients
  // are loaded together up front rather than one dependent load after the test (a warp whose
  // lanes straddle the cutoff would run both sides of a branch anyway). The same value.
  const Real e = pair_energy_unshifted<RARE>(p, d) - p.offset;
  return d.rsq < p.cutsq ? e : Real(0);
#else
  return d.rsq < p.cutsq ? pair_energy_unshifted<RARE>(p, d) - p.offset : Real(0);
#endif
}
// The same at two distances (a moved atom's new and old ones) in one dispatch on the kind, so that
// the two evaluations are independent work (on a GPU their exps and divisions overlap): each
// equals pair_energy(p, d), evaluated and then selected.
template <bool RARE = true, class Real>
GPUMC_INLINE void pair_energies(const PairCoeffT<Real> &p, const PairDistance<Real> &d_a,
                                const PairDistance<Real> &d_b, Real &e_a, Real &e_b)
{
  visit_pair_kind<RARE>(p.kind, [&](auto kind) {
    constexpr int KIND = decltype(kind)::kind;
    e_a = kind_energy_unshifted<KIND>(p, d_a) - p.offset;
    e_b = kind_energy_unshifted<KIND>(p, d_b) - p.offset;
  });
  e_a = d_a.rsq < p.cutsq ? e_a : Real(0);
  e_b = d_b.rsq < p.cutsq ? e_b : Real(0);
}
// The same at squared distance rsq; ANY_KIND false: an lj/cut or morse term (PairsLJMorse).
template <bool ANY_KIND = true, class Real>
GPUMC_INLINE Real pair_energy(const PairCoeffT<Real> &p, Real rsq)
{
  if constexpr (ANY_KIND) {
    return pair_energy(p, pair_distance(rsq));
  } else {
#ifdef __CUDA_ARCH__
    const Real e = lj_morse_energy_unshifted(p, rsq) - p.offset;
    return rsq < p.cutsq ? e : Real(0);
#else
    return rsq < p.cutsq ? lj_morse_energy_unshifted(p, rsq) - p.offset : Real(0);
#endif
  }
}

// Energy of a type pair: the sum of its nterms terms (a pair style's, such as the Lennard-Jones
// and the Coulomb term of lj/cut/coul/cut, or those of hybrid/overlay's sub-styles). Most tables
// have one term per pair. On the host, a lone lj/cut or morse term (most host decks) needs no 1/r.
template <class Pairs = PairsAny, class Real>
GPUMC_INLINE Real pair_energy(const PairCoeffT<Real> *terms, int nterms, Real rsq)
{
  if constexpr (!Pairs::any_kind) {
    return pair_energy<false>(terms[0], rsq);
  } else {
#ifndef __CUDA_ARCH__
    if (nterms == 1 && (terms[0].kind == PAIR_LJ_CUT || terms[0].kind == PAIR_MORSE))
      return pair_energy<false>(terms[0], rsq);
#endif
    const PairDistance<Real> d = pair_distance(rsq);
    Real e = pair_energy<Pairs::rare_kinds>(terms[0], d);
    for (int t = 1; t < nterms; t++) e += pair_energy<Pairs::rare_kinds>(terms[t], d);
    return e;
  }
}

// The energies of a type pair at two squared distances (a moved atom's new and old ones), term by
// term: the same values, summed in the same order, as two calls of pair_energy.
template <class Pairs = PairsAny, class Real>
GPUMC_INLINE void pair_energies(const PairCoeffT<Real> *terms, int nterms, Real rsq_a, Real rsq_b, Real &e_a,
                                Real &e_b)
{
  if constexpr (!Pairs::any_kind) {
    e_a = pair_energy<false>(terms[0], rsq_a);
    e_b = pair_energy<false>(terms[0], rsq_b);
  } else {
#ifndef __CUDA_ARCH__
    if (nterms == 1 && (terms[0].kind == PAIR_LJ_CUT || terms[0].kind == PAIR_MORSE)) {
      e_a = pair_energy<false>(terms[0], rsq_a);
      e_b = pair_energy<false>(terms[0], rsq_b);
      return;
    }
#endif
    const PairDistance<Real> d_a = pair_distance(rsq_a), d_b = pair_distance(rsq_b);
    pair_energies<Pairs::rare_kinds>(terms[0], d_a, d_b, e_a, e_b);
    for (int t = 1; t < nterms; t++) {
      Real term_a, term_b;
      pair_energies<Pairs::rare_kinds>(terms[t], d_a, d_b, term_a, term_b);
      e_a += term_a;
      e_b += term_b;
    }
  }
}

// The correction that an accepted move of one atom (from was to now) makes to the energy change
// of a move of another (from p_old to p_new): the pair terms of the first atom's new position
// replace those of its old one in both of the second's energies. Pair terms in precision Real,
// summed in double; rsq(p, q) is the squared distance of two positions (the nearest image in the
// periodic box for the sequential chain, the plain distance in a checkerboard cell's frame). With
// correction_of_terms (the four terms combined, wherever they are computed: the Ewald chain's
// finish kernel takes them on four threads), the one definition for every kernel that corrects
// evaluated moves.
GPUMC_INLINE double correction_of_terms(double new_now, double new_was, double old_now, double old_was)
{
  return new_now - new_was - old_now + old_was;
}
template <class Pairs = PairsAny, class Real, class Rsq>
GPUMC_INLINE double move_correction(const PairCoeffT<Real> *terms, int nterms, const Real was[3], const Real now[3],
                                    const Real p_old[3], const Real p_new[3], const Rsq &rsq)
{
  Real new_now, new_was, old_now, old_was;
  pair_energies<Pairs>(terms, nterms, rsq(p_new, now), rsq(p_new, was), new_now, new_was);
  pair_energies<Pairs>(terms, nterms, rsq(p_old, now), rsq(p_old, was), old_now, old_was);
  return correction_of_terms((double) new_now, (double) new_was, (double) old_now, (double) old_was);
}
template <class Real, class Rsq>
GPUMC_INLINE double move_correction(const PairCoeffT<Real> &pc, const Real was[3], const Real now[3],
                                    const Real p_old[3], const Real p_new[3], const Rsq &rsq)
{
  return move_correction(&pc, 1, was, now, p_old, p_new, rsq);
}

// Squared distance within one frame (a checkerboard cell's, which holds every pair in range as it
// is), and as a distance function for move_correction.
template <class Real>
GPUMC_INLINE Real frame_rsq(const Real p[3], const Real q[3])
{
  const Real dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
  return dx * dx + dy * dy + dz * dz;
}
template <class Real>
struct FrameRsq {
  GPUMC_INLINE Real operator()(const Real p[3], const Real q[3]) const { return frame_rsq(p, q); }
};

// A term of a kind from its squared cutoff and the parameters listed at its PairKind.
inline PairCoeff make_pair_term(int kind, double cutsq, double a, double b = 0.0, double c = 0.0, double d = 0.0,
                                double e = 0.0, double offset = 0.0)
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
  return p;
}

// Coefficients from the parameters LAMMPS's pair styles hold after mixing (init_one).
inline PairCoeff make_lj_cut(double epsilon, double sigma, double cut, bool shift)
{
  PairCoeff p;
  p.kind = PAIR_LJ_CUT;
  p.cutsq = cut * cut;
  p.a = 4.0 * epsilon * std::pow(sigma, 12.0);
  p.b = 4.0 * epsilon * std::pow(sigma, 6.0);
  if (shift && cut > 0.0) {
    const double ratio = sigma / cut;
    p.offset = 4.0 * epsilon * (std::pow(ratio, 12.0) - std::pow(ratio, 6.0));
  }
  return p;
}

inline PairCoeff make_morse(double d0, double alpha, double r0, double cut, bool shift)
{
  PairCoeff p;
  p.kind = PAIR_MORSE;
  p.cutsq = cut * cut;
  p.a = d0;
  p.b = alpha;
  p.c = r0;
  if (shift) {
    const double alpha_dr = -alpha * (cut - r0);
    p.offset = d0 * (std::exp(2.0 * alpha_dr) - 2.0 * std::exp(alpha_dr));
  }
  return p;
}

// Long-range (tail) corrections as `pair_modify tail yes` applies them:
// E_tail = (1/V) sum over ordered type pairs (i,j) of N_i N_j tail_ij, where tail_ij is LAMMPS's
// etail_ij (init_one) over N_i N_j. LAMMPS's morse, yukawa, soft, born/coul/dsf, born/coul/wolf
// and Coulomb styles have none.
inline double lj_cut_tail_coeff(double epsilon, double sigma, double cut)
{
  const double sig6 = std::pow(sigma, 6.0);
  const double rc3 = cut * cut * cut;
  const double rc6 = rc3 * rc3;
  const double rc9 = rc3 * rc6;
  return 8.0 * M_PI * epsilon * sig6 * (sig6 - 3.0 * rc6) / (9.0 * rc9);
}

// born (d = 0: buck)
inline double born_tail_coeff(double a, double rho, double sigma, double c, double d, double cut)
{
  const double rc2 = cut * cut, rc3 = rc2 * cut, rc5 = rc3 * rc2;
  return 2.0 * M_PI *
      (a * std::exp((sigma - cut) / rho) * rho * (rc2 + 2.0 * rho * cut + 2.0 * rho * rho) - c / (3.0 * rc3) +
       d / (5.0 * rc5));
}

inline double mie_tail_coeff(double cmie, double epsilon, double sigma, double gam_rep, double gam_att, double cut)
{
  const double sig_att = std::pow(sigma, gam_att), sig_rep = std::pow(sigma, gam_rep);
  const double rc_att = std::pow(cut, gam_att - 3.0), rc_rep = std::pow(cut, gam_rep - 3.0);
  return cmie * 2.0 * M_PI * epsilon * (sig_rep / ((gam_rep - 3.0) * rc_rep) - sig_att / ((gam_att - 3.0) * rc_att));
}

// The self energy of an atom of charge q under DSF or Wolf Coulomb (LAMMPS's coul/dsf,
// coul/wolf and their kin tally it for every atom): -(e_shift / 2 + alpha / sqrt(pi)) q^2 qqrd2e.
inline double coul_self_energy(double e_shift, double alpha, double q, double qqrd2e)
{
  const double sqrt_pi = 1.77245385090551602729;    // LAMMPS's MY_PIS
  return -(e_shift / 2.0 + alpha / sqrt_pi) * q * q * qqrd2e;
}

// Interactions of all type pairs in LAMMPS numbering (1..ntypes; row and column 0 unused).
struct PairTable {
  int ntypes = 0;
  int nterms = 1;                  // terms per type pair (PAIR_NONE where a pair has fewer)
  std::vector<PairCoeff> coeff;    // (ntypes+1)^2 * nterms: the terms of pair (i,j) one after another
  std::vector<double> tail;        // (ntypes+1)^2 tail_ij; empty: no tail correction
  std::vector<double> self;        // ntypes+1 self energies of an atom of each type; empty: none
  // ntypes+1 charges of each type, where there are Coulomb terms (else empty); NaN for a type
  // with no atoms, whose charge is unknown (its Coulomb terms are 0)
  std::vector<double> charge;
  double cut_max = 0.0;            // largest cutoff of any pair
  // the reciprocal-space part of an Ewald sum (gpumc_ewald.h), whose self and background terms
  // are in self and tail
  EwaldSettings ewald;

  // the pairs' terms, then the values of tables (pair_style table) if any
  explicit PairTable(int ntypes_ = 0, int nterms_ = 1) :
      ntypes(ntypes_), nterms(nterms_), coeff((size_t) (ntypes_ + 1) * (ntypes_ + 1) * nterms_)
  {
  }
  int pair_index(int i, int j) const { return (i * (ntypes + 1) + j) * nterms; }
  PairCoeff &at(int i, int j, int term = 0) { return coeff[pair_index(i, j) + term]; }
  const PairCoeff &at(int i, int j, int term = 0) const { return coeff[pair_index(i, j) + term]; }
  const PairCoeff *terms(int i, int j) const { return &coeff[pair_index(i, j)]; }
  double tail_coeff(int i, int j) const { return tail.empty() ? 0.0 : tail[i * (ntypes + 1) + j]; }
  double self_energy(int type) const { return self.empty() ? 0.0 : self[type]; }

  // Largest cutoff^2 of any term of type i with any type.
  double row_cutsq(int i) const
  {
    double r = 0.0;
    for (int j = 1; j <= ntypes; j++)
      for (int t = 0; t < nterms; t++)
        if (at(i, j, t).kind != PAIR_NONE && at(i, j, t).cutsq > r) r = at(i, j, t).cutsq;
    return r;
  }

  // The energy that depends only on the numbers of atoms of each type (count, ntypes+1) and on
  // the volume: the tail correction, tail_sum / V, and the self energies, self_sum.
  double tail_sum(const std::vector<long> &count) const
  {
    double s = 0.0;
    for (int i = 1; i <= ntypes && !tail.empty(); i++)
      for (int j = 1; j <= ntypes; j++) s += (double) count[i] * (double) count[j] * tail_coeff(i, j);
    return s;
  }
  double self_sum(const std::vector<long> &count) const
  {
    double s = 0.0;
    for (int i = 1; i <= ntypes && !self.empty(); i++) s += (double) count[i] * self[i];
    return s;
  }
  double count_energy(const std::vector<long> &count, double volume) const
  {
    return tail_sum(count) / volume + self_sum(count);
  }
  // Its change when an atom of the given type is added:
  // E_tail(N_type + 1) - E_tail(N_type) = (2 sum_j N_j tail_tj + tail_tt) / V, and one self energy.
  double insertion_count_energy(int type, const std::vector<long> &count, double volume) const
  {
    double sum = tail_coeff(type, type);
    for (int j = 1; j <= ntypes && !tail.empty(); j++) sum += 2.0 * (double) count[j] * tail_coeff(type, j);
    return sum / volume + self_energy(type);
  }
  // Appends a table's values (r^2, e, de or e2 per point: PairTableValues) after the pair terms,
  // and points the term of every pair in `pairs` (i, j, term) at them.
  void add_table_values(const std::vector<double> &values, const std::vector<int> &pairs)
  {
    const size_t first = coeff.size();
    coeff.resize(first + (values.size() + 6) / 7);
    for (size_t j = 0; j < values.size(); j++) {
      PairCoeff &v = coeff[first + j / 7];
      double *field[7] = {&v.cutsq, &v.a, &v.b, &v.c, &v.offset, &v.d, &v.e};
      *field[j % 7] = values[j];
    }
    for (size_t k = 0; k + 2 < pairs.size(); k += 3) {
      const size_t at = (size_t) pair_index(pairs[k], pairs[k + 1]) + pairs[k + 2];
      coeff[at].a = (double) ((long) first - (long) at);
    }
  }
  // Every term of a kind that visit_pair_kind dispatches itself (not to rare_pair_energy_unshifted):
  // kernels for PairsAnalytic evaluate the table.
  bool analytic_only() const
  {
    for (size_t k = 0; k < coeff.size() && k < (size_t) (ntypes + 1) * (ntypes + 1) * nterms; k++) {
      bool rare = false;
      visit_pair_kind<true>(coeff[k].kind, [&](auto kind) { rare = decltype(kind)::kind == PAIR_RARE; });
      if (rare) return false;
    }
    return true;
  }
  // One term per pair, each lj/cut or morse: kernels for PairsLJMorse evaluate it.
  bool lj_morse_only() const
  {
    for (const auto &c : coeff)
      if (nterms != 1 || (c.kind != PAIR_NONE && c.kind != PAIR_LJ_CUT && c.kind != PAIR_MORSE)) return false;
    return true;
  }
  // Whether a term reads a table's values (which lie after the terms: kernels must read terms
  // where they are, not from copies).
  bool has_tables() const
  {
    for (const auto &c : coeff)
      if (c.kind == PAIR_TABLE_LOOKUP || c.kind == PAIR_TABLE_LINEAR || c.kind == PAIR_TABLE_SPLINE) return true;
    return false;
  }
  // Whether any of these depends on the type counts.
  bool counts_matter() const { return !tail.empty() || !self.empty(); }

  void finalize()
  {
    cut_max = 0.0;
    for (int i = 1; i <= ntypes; i++) cut_max = std::max(cut_max, std::sqrt(row_cutsq(i)));
  }
};

}    // namespace gpumc
