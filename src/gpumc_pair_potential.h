// Pair potentials GPUMC samples with, written term for term as LAMMPS evaluates them
// (pair_lj_cut.cpp, pair_morse.cpp) so that energies agree with `compute pe`.
// The one definition of each potential for every style and backend.
#pragma once

#include "gpumc_portability.h"

#include <cmath>
#include <vector>

namespace gpumc {

enum PairKind : int { PAIR_NONE = 0, PAIR_LJ_CUT = 1, PAIR_MORSE = 2 };

// One (itype, jtype) interaction. lj/cut: a = 4 eps sigma^12, b = 4 eps sigma^6.
// morse: a = D0, b = alpha, c = r0. offset is the energy at the cutoff under
// `pair_modify shift yes`, else 0. Real is double, or float for the pair terms of the mixed
// precision kernels (converted from the double table, so both evaluate the same formula).
// 16-byte aligned, so that a GPU loads a pair's coefficients as whole vectors.
template <class Real>
struct alignas(16) PairCoeffT {
  int kind = PAIR_NONE;
  Real cutsq = 0, a = 0, b = 0, c = 0;
  Real offset = 0;

  PairCoeffT() = default;
  template <class Other>
  explicit PairCoeffT(const PairCoeffT<Other> &o) :
      kind(o.kind), cutsq((Real) o.cutsq), a((Real) o.a), b((Real) o.b), c((Real) o.c), offset((Real) o.offset)
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

template <class Real>
GPUMC_INLINE Real pair_energy_unshifted(const PairCoeffT<Real> &p, Real rsq)
{
  if (p.kind == PAIR_LJ_CUT) {
    const Real r2inv = Real(1) / rsq;
    const Real r6inv = r2inv * r2inv * r2inv;
    return r6inv * (p.a * r6inv - p.b);
  }
  if (p.kind == PAIR_MORSE) {
    const Real dexp = real_exp(-p.b * (real_sqrt(rsq) - p.c));
    return p.a * (dexp * dexp - Real(2) * dexp);
  }
  return Real(0);
}

// Energy of a pair at squared distance rsq; zero at and beyond the cutoff.
template <class Real>
GPUMC_INLINE Real pair_energy(const PairCoeffT<Real> &p, Real rsq)
{
#ifdef __CUDA_ARCH__
  // on a GPU the term is evaluated and then selected: no branch on the cutoff, so the coefficients
  // are loaded together up front rather than one dependent load after the test (a warp whose
  // lanes straddle the cutoff would run both sides of a branch anyway). The same value.
  const Real e = pair_energy_unshifted(p, rsq) - p.offset;
  return rsq < p.cutsq ? e : Real(0);
#else
  return rsq < p.cutsq ? pair_energy_unshifted(p, rsq) - p.offset : Real(0);
#endif
}

// The correction that an accepted move of one atom (from was to now) makes to the energy change
// of a move of another (from p_old to p_new): the pair terms of the first atom's new position
// replace those of its old one in both of the second's energies. Pair terms in precision Real,
// summed in double; rsq(p, q) is the squared distance of two positions (the nearest image in the
// periodic box for the sequential chain, the plain distance in a checkerboard cell's frame). The
// one definition for every kernel that corrects evaluated moves.
template <class Real, class Rsq>
GPUMC_INLINE double move_correction(const PairCoeffT<Real> &pc, const Real was[3], const Real now[3], const Real p_old[3],
                                    const Real p_new[3], const Rsq &rsq)
{
  return (double) pair_energy(pc, rsq(p_new, now)) - (double) pair_energy(pc, rsq(p_new, was)) -
      (double) pair_energy(pc, rsq(p_old, now)) + (double) pair_energy(pc, rsq(p_old, was));
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

// Long-range (tail) correction of lj/cut as `pair_modify tail yes` applies it:
// E_tail = (1/V) sum over ordered type pairs (i,j) of N_i N_j tail_ij.
// LAMMPS's morse style has none.
inline double lj_cut_tail_coeff(double epsilon, double sigma, double cut)
{
  const double sig6 = std::pow(sigma, 6.0);
  const double rc3 = cut * cut * cut;
  const double rc6 = rc3 * rc3;
  const double rc9 = rc3 * rc6;
  return 8.0 * M_PI * epsilon * sig6 * (sig6 - 3.0 * rc6) / (9.0 * rc9);
}

// Interactions of all type pairs in LAMMPS numbering (1..ntypes; row and column 0 unused).
struct PairTable {
  int ntypes = 0;
  std::vector<PairCoeff> coeff;    // (ntypes+1)^2
  std::vector<double> tail;        // (ntypes+1)^2 tail_ij; empty: no tail correction
  double cut_max = 0.0;            // largest cutoff of any pair

  explicit PairTable(int ntypes_ = 0) : ntypes(ntypes_), coeff((ntypes_ + 1) * (ntypes_ + 1)) {}
  PairCoeff &at(int i, int j) { return coeff[i * (ntypes + 1) + j]; }
  const PairCoeff &at(int i, int j) const { return coeff[i * (ntypes + 1) + j]; }
  double tail_coeff(int i, int j) const { return tail.empty() ? 0.0 : tail[i * (ntypes + 1) + j]; }

  void finalize()
  {
    cut_max = 0.0;
    for (const auto &c : coeff)
      if (c.kind != PAIR_NONE && c.cutsq > cut_max * cut_max) cut_max = std::sqrt(c.cutsq);
  }
};

}    // namespace gpumc
