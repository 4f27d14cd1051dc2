// Estimators shared by the styles: block averages with standard errors, and the Widom
// excess chemical potential.
#pragma once

#include <cmath>

namespace gpumc {

// Mean of equally weighted blocks and the standard error of that mean from the spread of the
// block means (blocks are taken as independent: make them long enough).
struct BlockAverage {
  double sum = 0.0, sumsq = 0.0;
  long nblocks = 0;

  void add_block(double block_mean)
  {
    sum += block_mean;
    sumsq += block_mean * block_mean;
    nblocks++;
  }
  double mean() const { return nblocks ? sum / nblocks : 0.0; }
  double standard_error() const
  {
    if (nblocks < 2) return 0.0;
    const double m = mean();
    const double var = (sumsq - nblocks * m * m) / (nblocks - 1);
    return var > 0.0 ? std::sqrt(var / nblocks) : 0.0;
  }
};

// Ratio of block sums R = sum a_b / sum v_b with its standard error (delta method over blocks).
// Widom in NPT: a_b = V_b <exp(-dU/kT)>_b, v_b = V_b, so that R = <V exp(-dU/kT)> / <V>;
// in NVT, V is constant and R is the plain mean Boltzmann factor.
struct RatioAverage {
  double sa = 0.0, sv = 0.0, saa = 0.0, svv = 0.0, sav = 0.0;
  long nblocks = 0;

  void add_block(double a, double v)
  {
    sa += a;
    sv += v;
    saa += a * a;
    svv += v * v;
    sav += a * v;
    nblocks++;
  }
  double ratio() const { return sv != 0.0 ? sa / sv : 0.0; }
  double standard_error() const
  {
    if (nblocks < 2 || sv == 0.0) return 0.0;
    const double n = (double) nblocks, r = ratio(), vbar = sv / n;
    // sum over blocks of (a_b - r v_b)^2
    const double ss = saa - 2.0 * r * sav + r * r * svv;
    return ss > 0.0 ? std::sqrt(ss / (n * (n - 1.0))) / vbar : 0.0;
  }
};

// mu_ex from a mean Boltzmann factor; +inf when every insertion overlapped.
inline double widom_mu_ex(double kT, double mean_boltzmann_factor)
{
  return mean_boltzmann_factor > 0.0 ? -kT * std::log(mean_boltzmann_factor) : INFINITY;
}

// Standard error of mu_ex by error propagation: d mu = kT d<w> / <w>.
inline double widom_mu_ex_error(double kT, double mean_boltzmann_factor, double error_of_mean)
{
  return mean_boltzmann_factor > 0.0 ? kT * error_of_mean / mean_boltzmann_factor : INFINITY;
}

}    // namespace gpumc
