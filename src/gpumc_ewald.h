// The reciprocal-space part of an Ewald sum, as LAMMPS's `kspace_style ewald` evaluates it for
// an orthogonal box (KSPACE/ewald.cpp: setup(), coeffs(), compute()), so that energies agree with
// `compute pe`. The one definition for every backend:
//
//   E_recip = qqrd2e sum_k ug(k) |S(k)|^2,   S(k) = sum_j q_j exp(2 pi i m.s_j)
//
// over LAMMPS's half set of wave vectors k = 2 pi (m_x / L_x, m_y / L_y, m_z / L_z), with
// ug = (4 pi / V) exp(-k^2 / (4 g^2)) / k^2 and s_j the fractional coordinates of atom j,
// (x_j - lo) / L. |S(k)| does not depend on the origin, so S over fractional coordinates is
// LAMMPS's, and a volume move (which scales positions with the box) leaves S unchanged: only the
// wave vectors and their weights change. The self term, -qqrd2e g / sqrt(pi) sum_j q_j^2, and the
// neutralising background, -qqrd2e pi / (2 g^2 V) (sum_j q_j)^2, depend only on the type counts
// and the volume: they are part of the pair table's count energy (gpumc_pair_potential.h), which
// makes them part of volume moves and Widom insertions as well.
#pragma once

#include "gpumc_portability.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace gpumc {

// What LAMMPS's Ewald solver was set up with; enabled only under `kspace_style ewald`.
struct EwaldSettings {
  bool enabled = false;
  double g_ewald = 0.0;     // the splitting parameter (1/distance)
  double accuracy = 0.0;    // absolute force accuracy (force units) that sets kmax
  double q2 = 0.0;          // qqrd2e times the sum of q^2 over all atoms
  double qqrd2e = 0.0;
  long natoms = 0;
  int kmax_fixed[3] = {0, 0, 0};    // `kspace_modify kmax/ewald`; 0: from the accuracy
  bool g_ewald_fixed = false;       // `kspace_modify gewald` (else LAMMPS sets it at each run's init)
};

// A wave vector of the sum: its integer multiples of the reciprocal box vectors, and ug.
struct EwaldVector {
  int m[3];
  double ug;
};

namespace ewald_detail {
// Ewald::rms(): the RMS force error of the k-space sum truncated at km along a side prd
inline double rms(const EwaldSettings &s, int km, double prd)
{
  const double pi = 3.14159265358979323846;
  const double natoms = s.natoms > 0 ? (double) s.natoms : 1.0;
  return 2.0 * s.q2 * s.g_ewald / prd * std::sqrt(1.0 / (pi * km * natoms)) *
      std::exp(-pi * pi * km * km / (s.g_ewald * s.g_ewald * prd * prd));
}
}    // namespace ewald_detail

// The wave vectors LAMMPS uses for box sides len (Ewald::setup() then coeffs(), in its order).
inline std::vector<EwaldVector> ewald_vectors(const EwaldSettings &s, const double len[3])
{
  const double pi = 3.14159265358979323846;
  std::vector<EwaldVector> out;
  if (!s.enabled) return out;
  double unitk[3];
  int kmax_d[3];
  double gsqmx = 0.0;
  for (int d = 0; d < 3; d++) {
    unitk[d] = 2.0 * pi / len[d];
    int km = s.kmax_fixed[d];
    if (km <= 0) {
      km = 1;
      while (ewald_detail::rms(s, km, len[d]) > s.accuracy) km++;
    }
    kmax_d[d] = km;
    gsqmx = std::max(gsqmx, unitk[d] * unitk[d] * km * km);
  }
  gsqmx *= 1.00001;
  const int kmax = std::max(kmax_d[0], std::max(kmax_d[1], kmax_d[2]));
  const double preu = 4.0 * pi / (len[0] * len[1] * len[2]);
  const double g_inv_sq = 1.0 / (s.g_ewald * s.g_ewald);
  auto add = [&](int mx, int my, int mz) {
    const double kx = unitk[0] * mx, ky = unitk[1] * my, kz = unitk[2] * mz;
    const double sqk = kx * kx + ky * ky + kz * kz;
    if (sqk <= gsqmx) out.push_back({{mx, my, mz}, preu * std::exp(-0.25 * sqk * g_inv_sq) / sqk});
  };
  // (k,0,0), (0,l,0), (0,0,m)
  for (int m = 1; m <= kmax; m++) {
    add(m, 0, 0);
    add(0, m, 0);
    add(0, 0, m);
  }
  // (k,l,0), (k,-l,0)
  for (int k = 1; k <= kmax_d[0]; k++)
    for (int l = 1; l <= kmax_d[1]; l++) {
      const double sqk = std::pow(unitk[0] * k, 2) + std::pow(unitk[1] * l, 2);
      if (sqk <= gsqmx) {
        add(k, l, 0);
        add(k, -l, 0);
      }
    }
  // (0,l,m), (0,l,-m)
  for (int l = 1; l <= kmax_d[1]; l++)
    for (int m = 1; m <= kmax_d[2]; m++) {
      const double sqk = std::pow(unitk[1] * l, 2) + std::pow(unitk[2] * m, 2);
      if (sqk <= gsqmx) {
        add(0, l, m);
        add(0, l, -m);
      }
    }
  // (k,0,m), (k,0,-m)
  for (int k = 1; k <= kmax_d[0]; k++)
    for (int m = 1; m <= kmax_d[2]; m++) {
      const double sqk = std::pow(unitk[0] * k, 2) + std::pow(unitk[2] * m, 2);
      if (sqk <= gsqmx) {
        add(k, 0, m);
        add(k, 0, -m);
      }
    }
  // (k,l,m), (k,-l,m), (k,l,-m), (k,-l,-m)
  for (int k = 1; k <= kmax_d[0]; k++)
    for (int l = 1; l <= kmax_d[1]; l++)
      for (int m = 1; m <= kmax_d[2]; m++) {
        const double sqk = std::pow(unitk[0] * k, 2) + std::pow(unitk[1] * l, 2) + std::pow(unitk[2] * m, 2);
        if (sqk <= gsqmx) {
          add(k, l, m);
          add(k, -l, m);
          add(k, l, -m);
          add(k, -l, -m);
        }
      }
  return out;
}

// Whether two sets hold the same wave vectors in the same order (S can then be kept).
inline bool same_wave_vectors(const std::vector<EwaldVector> &a, const std::vector<EwaldVector> &b)
{
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); k++)
    if (a[k].m[0] != b[k].m[0] || a[k].m[1] != b[k].m[1] || a[k].m[2] != b[k].m[2]) return false;
  return true;
}

// q exp(2 pi i m.s) for a position pos in the box (lo, len): the term of one charge in S.
GPUMC_INLINE void ewald_term(const int m[3], double q, const double pos[3], const double lo[3], const double len[3],
                             double &re, double &im)
{
  const double two_pi = 6.28318530717958647692;
  const double phase = two_pi * (m[0] * ((pos[0] - lo[0]) / len[0]) + m[1] * ((pos[1] - lo[1]) / len[1]) +
                                 m[2] * ((pos[2] - lo[2]) / len[2]));
  re = q * cos(phase);
  im = q * sin(phase);
}

// The largest |m_d| of a set of wave vectors along each dimension
inline void ewald_kmax(const std::vector<EwaldVector> &kvec, int kmax[3])
{
  for (int d = 0; d < 3; d++) kmax[d] = 0;
  for (const auto &v : kvec)
    for (int d = 0; d < 3; d++) kmax[d] = std::max(kmax[d], std::abs(v.m[d]));
}

// exp(2 pi i m s_d) of a position's coordinate s_d (fractional) for one m along one dimension
GPUMC_INLINE void ewald_phase(int m, double s, double &re, double &im)
{
  const double two_pi = 6.28318530717958647692;
  re = cos(two_pi * m * s);
  im = sin(two_pi * m * s);
}

// q x y z of the phases x, y, z of a position along the three dimensions: its term in S for the
// wave vector whose phases they are. In two steps, x y and then q (x y) z, so that wave vectors
// with the same m along x and y can share the first.
GPUMC_INLINE void ewald_phase_xy(double x_re, double x_im, double y_re, double y_im, double &xy_re, double &xy_im)
{
  xy_re = x_re * y_re - x_im * y_im;
  xy_im = x_re * y_im + x_im * y_re;
}
GPUMC_INLINE void ewald_phase_xyz(double xy_re, double xy_im, double z_re, double z_im, double q, double &t_re,
                                  double &t_im)
{
  t_re = q * (xy_re * z_re - xy_im * z_im);
  t_im = q * (xy_re * z_im + xy_im * z_re);
}
GPUMC_INLINE void ewald_phase_product(double x_re, double x_im, double y_re, double y_im, double z_re, double z_im,
                                      double q, double &t_re, double &t_im)
{
  double xy_re, xy_im;
  ewald_phase_xy(x_re, x_im, y_re, y_im, xy_re, xy_im);
  ewald_phase_xyz(xy_re, xy_im, z_re, z_im, q, t_re, t_im);
}

// exp(2 pi i m s_d) of one position for m = -kmax_d..kmax_d along each dimension, from which the
// term of every wave vector is a product of three (ewald_phase_product: a few sine and cosine
// pairs per position instead of one per wave vector; the products differ from ewald_term by
// round-off only)
struct EwaldPhases {
  int kmax[3] = {0, 0, 0};
  std::vector<double> re[3], im[3];    // index m + kmax[d]

  void set_kmax(const std::vector<EwaldVector> &kvec)
  {
    ewald_kmax(kvec, kmax);
    for (int d = 0; d < 3; d++) {
      re[d].assign(2 * kmax[d] + 1, 0.0);
      im[d].assign(2 * kmax[d] + 1, 0.0);
    }
  }
  void compute(const double pos[3], const double lo[3], const double len[3])
  {
    for (int d = 0; d < 3; d++) {
      const double s = (pos[d] - lo[d]) / len[d];
      for (int m = -kmax[d]; m <= kmax[d]; m++) ewald_phase(m, s, re[d][m + kmax[d]], im[d][m + kmax[d]]);
    }
  }
  // q exp(2 pi i m.s) of the position last computed
  void term(const int m[3], double q, double &t_re, double &t_im) const
  {
    const int ix = m[0] + kmax[0], iy = m[1] + kmax[1], iz = m[2] + kmax[2];
    ewald_phase_product(re[0][ix], im[0][ix], re[1][iy], im[1][iy], re[2][iz], im[2][iz], q, t_re, t_im);
  }
};

// ug (|S + delta|^2 - |S|^2): a wave vector's part of the change in E_recip / qqrd2e when S
// changes by delta (a move: q (term at new - term at old); an insertion: the new charge's term).
GPUMC_INLINE double ewald_change(double ug, double s_re, double s_im, double d_re, double d_im)
{
  return ug * (2.0 * (s_re * d_re + s_im * d_im) + d_re * d_re + d_im * d_im);
}

// ug 2 Re(conj(a) b): a wave vector's part of the correction (over qqrd2e) that an accepted change
// a of S makes to the change of another move b.
GPUMC_INLINE double ewald_cross(double ug, double a_re, double a_im, double b_re, double b_im)
{
  return 2.0 * ug * (a_re * b_re + a_im * b_im);
}

// The parts of the Ewald sum in the count energy (per atom of charge q, per pair of charges)
inline double ewald_self_energy(const EwaldSettings &s, double q)
{
  const double sqrt_pi = 1.77245385090551602729;    // LAMMPS's MY_PIS
  return -s.qqrd2e * s.g_ewald * q * q / sqrt_pi;
}
// times N_i N_j / V: LAMMPS's (pi / 2) qsum^2 / (g^2 V), split over ordered pairs of types
inline double ewald_background_coeff(const EwaldSettings &s, double qi, double qj)
{
  const double half_pi = 1.57079632679489661923;    // LAMMPS's MY_PI2
  return -s.qqrd2e * half_pi * qi * qj / (s.g_ewald * s.g_ewald);
}

}    // namespace gpumc
