// Second and third virial coefficients of a truncated pair potential by quadrature of the Mayer
// function f = exp(-u/kT) - 1 (f = 0 beyond the cutoff):
//   B2 = -2 pi int f(r) r^2 dr,
//   B3 = -(8 pi^2 / 3) int int f(r) f(s) r s [F(min(r + s, rc)) - F(|r - s|)] dr ds,
// F(x) = int_0^x f(t) t dt (bipolar coordinates). Dilute gas: mu_ex/kT = 2 B2 rho + 3/2 B3 rho^2.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace virial {

// Simpson's rule with n (even) intervals.
inline double integrate(const std::function<double(double)> &f, double a, double b, int n = 20000)
{
  const double h = (b - a) / n;
  double s = f(a) + f(b);
  for (int i = 1; i < n; i++) s += (i % 2 ? 4.0 : 2.0) * f(a + i * h);
  return s * h / 3.0;
}

inline double lj(double r, double eps, double sigma)
{
  const double sr6 = std::pow(sigma / r, 6.0);
  return 4.0 * eps * (sr6 * sr6 - sr6);
}

// Mayer function of LJ (epsilon = sigma = 1) truncated at rc, at inverse temperature beta.
inline std::function<double(double)> lj_mayer(double beta, double rc)
{
  return [beta, rc](double r) {
    if (r >= rc) return 0.0;
    return r <= 0.3 ? -1.0 : std::exp(-beta * lj(r, 1.0, 1.0)) - 1.0;
  };
}

inline double b2(const std::function<double(double)> &mayer, double rc)
{
  return -2.0 * M_PI * integrate([&](double r) { return mayer(r) * r * r; }, 0.0, rc, 200000);
}

inline double b3(const std::function<double(double)> &mayer, double rc)
{
  const int ng = 60000;
  const double h = rc / ng;
  std::vector<double> F(ng + 1, 0.0);
  for (int k = 1; k <= ng; k++) {
    const double a = (k - 1) * h, m = a + 0.5 * h, b = k * h;
    F[k] = F[k - 1] + h / 6.0 * (mayer(a) * a + 4.0 * mayer(m) * m + mayer(b) * b);
  }
  auto Fx = [&](double x) {
    if (x >= rc) return F[ng];
    const double g = x / h;
    const int k = (int) g;
    return F[k] + (g - k) * (F[k + 1] - F[k]);
  };
  return -(8.0 * M_PI * M_PI / 3.0) * integrate([&](double r) {
           return integrate([&](double q) { return mayer(r) * mayer(q) * r * q * (Fx(std::min(r + q, rc)) - Fx(std::fabs(r - q))); },
                            0.0, rc, 600);
         }, 0.0, rc, 600);
}

}    // namespace virial
