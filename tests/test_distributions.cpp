// Exact small cases: distributions the chains must sample, known in closed form or by
// quadrature of the same truncated potential, checked with fixed seeds and tolerances of
// several standard errors.

#include "lammps_session.h"
#include "virial.h"

#include "fmt/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using virial::integrate;
using virial::lj;

// Upper 0.1 % point of chi-square with k degrees of freedom (Wilson-Hilferty).
double chi2_critical_999(int k)
{
  const double z = 3.0902, c = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - c + z * std::sqrt(c), 3.0);
}

double morse(double r, double d0, double alpha, double r0)
{
  const double e = std::exp(-alpha * (r - r0));
  return d0 * (e * e - 2.0 * e);
}

// Jackknife over blocks of the variance <V^2> - <V>^2.
void variance_with_error(const Blocks &v, const Blocks &v2, double &var, double &err)
{
  const size_t n = v.values.size();
  const double m1 = v.mean(), m2 = v2.mean();
  var = m2 - m1 * m1;
  std::vector<double> jack(n);
  double jm = 0.0;
  for (size_t k = 0; k < n; k++) {
    const double a = (m1 * n - v.values[k]) / (n - 1), b = (m2 * n - v2.values[k]) / (n - 1);
    jack[k] = b - a * a;
    jm += jack[k] / n;
  }
  double ss = 0.0;
  for (double j : jack) ss += (j - jm) * (j - jm);
  err = std::sqrt(ss * (n - 1) / n);
}

struct TwoBody {
  const char *name;
  const char *pair;
  std::function<double(double)> u;
  double temperature;
  double charge = 0.0;    // of both particles (atom_style charge), if not 0
};

// Damped shifted force Coulomb (Fennell and Gezelter, J. Chem. Phys. 124 (2006) 234104) of
// charges with product qq: the potential and its force shifted to zero at the cutoff
double dsf(double r, double qq, double alpha, double rc)
{
  const double f_shift = -(std::erfc(alpha * rc) / (rc * rc) + 2.0 / std::sqrt(M_PI) * alpha *
                           std::exp(-alpha * alpha * rc * rc) / rc);
  const double e_shift = std::erfc(alpha * rc) / rc - f_shift * rc;
  return qq * (std::erfc(alpha * r) / r - e_shift - r * f_shift);
}

// The translation algorithms: every exact-distribution test below runs with each. On several MPI
// ranks (tests/CMakeLists.txt) the checkerboard runs decomposed, with its ghosts refreshed after
// every colour, frozen, or alternating (one grid per invocation both).
class ByAlgorithm : public ::testing::TestWithParam<const char *> {};

std::string algorithm_keywords(const std::string &name)
{
  if (name == "checkerboard_frozen") return "algorithm checkerboard ghosts frozen";
  if (name == "checkerboard_alternate") return "algorithm checkerboard ghosts alternate";
  return "algorithm " + name;
}

// one grid per invocation: a decomposed setting with no meaning on one process
bool one_grid(const std::string &name)
{
  return name == "checkerboard_frozen" || name == "checkerboard_alternate";
}

}    // namespace

// Two particles in a periodic cube of side L: for r < L/2 the pair distance has density
// proportional to r^2 exp(-u(r)/kT). Histogram by LAMMPS's fix ave/histo; chi-square test.
//
// With frozen (or alternating) ghosts each block needs two cells per side (also on 4 ranks, which
// split two sides), so the box holds four cells of 2.6. With frozen ghosts an atom in a still layer
// does not move in an invocation (one grid per invocation), and a bound pair can stay still for
// several: samples are taken 50 invocations of 5 sweeps apart. (10 apart, the Morse case on 4 ranks
// gave chi2 = 83.4, and 80.5 with three times the samples: correlated samples, not a bias, which
// would have grown; 50 apart, 41.0 for 42 degrees of freedom.) Its seed is its own: at 2024, 10
// apart, the Lennard-Jones case on 2 ranks gave 77.3 against 76.2, and seeds 11, 12, 13 gave 33.7,
// 39.0, 46.9. With alternating ghosts on 2 ranks every cell moves in every other sweep: samples 25
// sweeps apart, as on one process.
TEST_P(ByAlgorithm, TwoParticlePairDistance)
{
  const bool grid_per_invocation = one_grid(GetParam());
  if (grid_per_invocation && LammpsSession().nprocs() == 1)
    GTEST_SKIP() << "ghosts frozen or alternate act on several processes";
  const double L = grid_per_invocation ? 10.4 : 6.0, rlo = 0.85, rhi = L / 2;
  const bool frozen = std::string(GetParam()) == "checkerboard_frozen";
  const int sweeps = frozen ? 5 : 25, every = frozen ? 50 : 1, samples = 60000;
  const int nbins = 43;
  const TwoBody cases[] = {
      {"lj", "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\n", [](double r) { return r < 2.5 ? lj(r, 1.0, 1.0) : 0.0; }, 0.7},
      {"morse", "pair_style morse 2.5\npair_coeff 1 1 1.0 2.0 1.2\n",
       [](double r) { return r < 2.5 ? morse(r, 1.0, 2.0, 1.2) : 0.0; }, 0.5},
      // two like charges: DSF Coulomb repulsion against the Lennard-Jones attraction
      {"lj_coul_dsf", "pair_style lj/cut/coul/dsf 0.3 2.5 2.5\npair_coeff 1 1 1.0 1.0\n",
       [](double r) { return r < 2.5 ? lj(r, 1.0, 1.0) + dsf(r, 0.25, 0.3, 2.5) : 0.0; }, 0.7, 0.5},
  };
  for (const auto &c : cases) {
    LammpsSession s;
    s.cmd(fmt::format("units lj\natom_style {2}\natom_modify map array\nregion box block 0 {0} 0 {0} 0 {0}\n"
                      "create_box 1 box\ncreate_atoms 1 single 1.0 1.0 1.0\ncreate_atoms 1 single 2.3 1.0 1.0\n"
                      "mass 1 1.0\n{1}"
                      // on several MPI ranks (tests/CMakeLists.txt) the ghosts must cover a cell, 3 wide
                      "comm_modify cutoff 3.1\n",
                      L, c.pair, c.charge != 0.0 ? "charge" : "atomic"));
    if (c.charge != 0.0) s.cmd(fmt::format("set type 1 charge {}", c.charge));
    s.cmd(fmt::format("fix mc all gpumc/nvt {} {} {} tune 2000 {}\n"
                      "variable dx equal x[2]-x[1]-lx*round((x[2]-x[1])/lx)\n"
                      "variable dy equal y[2]-y[1]-ly*round((y[2]-y[1])/ly)\n"
                      "variable dz equal z[2]-z[1]-lz*round((z[2]-z[1])/lz)\n"
                      "variable r equal sqrt(v_dx*v_dx+v_dy*v_dy+v_dz*v_dz)\n"
                      "thermo 100000\nrun 2000",
                      sweeps, c.temperature, grid_per_invocation ? 2025 : 2024, algorithm_keywords(GetParam())));
    // samples 25 sweeps (50 trial moves) apart, 250 with frozen ghosts
    s.cmd(fmt::format("fix h all ave/histo {0} 1 {0} {1} {2} {3} v_r mode scalar ave running beyond ignore\nrun {4}",
                      every, rlo, rhi, nbins, every * samples));
    const double beta = 1.0 / c.temperature;
    auto density = [&](double r) { return r * r * std::exp(-beta * c.u(r)); };
    const double norm = integrate(density, rlo, rhi);
    std::vector<double> counts(nbins);
    double total = 0.0;
    for (int b = 0; b < nbins; b++) {
      counts[b] = s.fix_array("h", b, 1);
      total += counts[b];
    }
    ASSERT_GT(total, 20000.0);
    double chi2 = 0.0;
    const double w = (rhi - rlo) / nbins;
    for (int b = 0; b < nbins; b++) {
      const double expected = total * integrate(density, rlo + b * w, rlo + (b + 1) * w, 200) / norm;
      chi2 += (counts[b] - expected) * (counts[b] - expected) / expected;
    }
    std::printf("%s: %.0f samples, chi2 = %.1f for %d degrees of freedom (0.1%% critical value %.1f)\n", c.name,
                total, chi2, nbins - 1, chi2_critical_999(nbins - 1));
    EXPECT_LT(chi2, chi2_critical_999(nbins - 1)) << c.name;
  }
}

// Ideal gas (no interactions) at pressure P, isotropic walk in ln V: P(V) ~ V^N exp(-PV/kT), a
// Gamma distribution. Mean and variance from one long chain.
TEST_P(ByAlgorithm, IdealGasVolumeLogV)
{
  const int natoms = 20;
  const double T = 1.0, P = 0.021, beta = 1.0 / T;
  LammpsSession s;
  if (one_grid(GetParam()) && s.nprocs() == 1) GTEST_SKIP() << "ghosts frozen or alternate act on several processes";
  s.cmd(fmt::format("units lj\natom_style atomic\nregion box block 0 10 0 10 0 10\ncreate_box 1 box\n"
                    "create_atoms 1 random {} 5 NULL\nmass 1 1.0\npair_style lj/cut 0.5\npair_coeff 1 1 0.0 1.0\n"
                    "fix mc all gpumc/npt 1 {} {} 31 volume logv vmoves 20 tune 2500 {}\n"
                    "variable V equal vol\nvariable V2 equal vol*vol\nthermo 100000\nrun 2500",
                    natoms, T, P, algorithm_keywords(GetParam())));
  const int nblocks = 40, block = 2500;    // equilibration above is one block: fix ave/time aligns
  s.cmd(fmt::format("fix av all ave/time 1 {0} {0} v_V v_V2", block));
  Blocks v, v2;
  for (int b = 0; b < nblocks; b++) {
    s.cmd(fmt::format("run {} {}", block, b == 0 ? "post no" : "pre no post no"));    // new fix: set up once
    v.add(s.fix_vector("av", 0));
    v2.add(s.fix_vector("av", 1));
  }
  const double mean_exact = (natoms + 1) / (beta * P), var_exact = (natoms + 1) / (beta * P * beta * P);
  double var, var_err;
  variance_with_error(v, v2, var, var_err);
  std::printf("logv: <V> = %.2f +- %.2f (exact %.2f), var V = %.0f +- %.0f (exact %.0f)\n", v.mean(),
              v.standard_error(), mean_exact, var, var_err, var_exact);
  EXPECT_NEAR(v.mean(), mean_exact, 4.0 * v.standard_error());
  EXPECT_NEAR(var, var_exact, 4.0 * var_err);
  // the test has power: errors well below the quantities tested
  EXPECT_LT(v.standard_error(), 0.01 * mean_exact);
  EXPECT_LT(var_err, 0.1 * var_exact);
}

INSTANTIATE_TEST_SUITE_P(ExactDistributions, ByAlgorithm,
                         ::testing::Values("sequential", "checkerboard", "checkerboard_frozen", "checkerboard_alternate"),
                         [](const ::testing::TestParamInfo<const char *> &info) { return std::string(info.param); });

// Ideal gas, walk in each box side (sides >= a, twice the cutoff): the target is
// pi(Lx,Ly,Lz) ~ V^N exp(-PV/kT), whose volume marginal is V^N exp(-PV/kT) ln^2(V/a^3) / 2. Under
// this walk the box shape diffuses slowly, so a long-chain average is no sound test. Instead:
// boxes drawn exactly from pi (V by inverse CDF of its marginal, the shape uniform on the simplex
// of ln(L_i/a) summing to ln(V/a^3)) must still follow pi after a few hundred volume trials
// each, as they do if and only if the move leaves pi invariant. Kolmogorov-Smirnov on V.
TEST(ExactDistributions, IdealGasVolumeSidesPreservesTheTarget)
{
  const int natoms = 20, nchains = 1500;
  const double T = 1.0, P = 0.021, beta = 1.0 / T, a = 1.0;
  // marginal CDF of V on a fine grid
  const double vmax = 8.0 * (natoms + 1) / (beta * P);
  const int ng = 100000;
  std::vector<double> vgrid(ng + 1), cdf(ng + 1, 0.0);
  auto logp = [&](double V) { return natoms * std::log(V / 1000.0) - beta * P * (V - 1000.0); };
  auto pdf = [&](double V) { return V <= a * a * a ? 0.0 : std::exp(logp(V)) * std::pow(std::log(V / (a * a * a)), 2); };
  for (int k = 0; k <= ng; k++) vgrid[k] = a * a * a + (vmax - a * a * a) * k / ng;
  for (int k = 1; k <= ng; k++) cdf[k] = cdf[k - 1] + 0.5 * (pdf(vgrid[k - 1]) + pdf(vgrid[k])) * (vgrid[k] - vgrid[k - 1]);
  for (double &c : cdf) c /= cdf[ng];
  auto cdf_at = [&](double V) {
    if (V >= vmax) return 1.0;
    const double g = (V - vgrid[0]) / (vgrid[1] - vgrid[0]);
    const int k = std::max(0, std::min(ng - 1, (int) g));
    return cdf[k] + (g - k) * (cdf[k + 1] - cdf[k]);
  };
  auto inverse_cdf = [&](double u) {
    const int k = (int) (std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    if (k == 0) return vgrid[0];
    return vgrid[k - 1] + (u - cdf[k - 1]) / (cdf[k] - cdf[k - 1]) * (vgrid[k] - vgrid[k - 1]);
  };
  auto ks = [&](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    double d = 0.0;
    for (size_t k = 0; k < v.size(); k++) {
      const double c = cdf_at(v[k]);
      d = std::max({d, c - (double) k / v.size(), (double) (k + 1) / v.size() - c});
    }
    return d;
  };

  std::mt19937_64 gen(2718);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  std::exponential_distribution<double> expo(1.0);
  LammpsSession s;
  s.cmd(fmt::format("units lj\natom_style atomic\nregion box block 0 10 0 10 0 10\ncreate_box 1 box\n"
                    "create_atoms 1 random {} 5 NULL\nmass 1 1.0\npair_style lj/cut {}\npair_coeff 1 1 0.0 1.0\n"
                    "fix mc all gpumc/npt 1 {} {} 31 volume sides vstep 2.0 vmoves 20 tune no\nthermo 100000",
                    natoms, a / 2, T, P));
  std::vector<double> v_start, v_end;
  for (int c = 0; c < nchains; c++) {
    const double V = inverse_cdf(u01(gen));
    const double e[3] = {expo(gen), expo(gen), expo(gen)}, esum = e[0] + e[1] + e[2];
    double len[3];
    for (int d = 0; d < 3; d++) len[d] = a * std::exp(std::log(V / (a * a * a)) * e[d] / esum);
    s.cmd(fmt::format("change_box all x final 0 {:.17g} y final 0 {:.17g} z final 0 {:.17g} remap\n"
                      "run 10 post no",    // 200 volume trials
                      len[0], len[1], len[2]));
    v_start.push_back(len[0] * len[1] * len[2]);
    v_end.push_back(s.thermo("vol"));
  }
  const double crit = 1.95 / std::sqrt((double) nchains);    // KS, 0.1 %
  const double d_start = ks(v_start), d_end = ks(v_end);
  const double acc = s.fix_vector("mc", 11);
  std::printf("sides: KS distance of the exact draws %.4f, after 200 volume trials each %.4f (0.1%% critical "
              "%.4f); acceptance %.3f\n",
              d_start, d_end, crit, acc);
  EXPECT_LT(d_start, crit);    // the exact sampler itself
  EXPECT_LT(d_end, crit);
  EXPECT_GT(acc, 0.2);    // the chains really moved
}

// Widom insertion into an ideal gas: every Boltzmann factor is exactly 1.
TEST(Widom, IdealGasHasZeroExcessChemicalPotential)
{
  LammpsSession s;
  s.cmd("units lj\natom_style atomic\nregion box block 0 8 0 8 0 8\ncreate_box 2 box\n"
        "create_atoms 1 random 200 5 NULL\ncreate_atoms 2 random 100 6 NULL\nmass * 1.0\n"
        "pair_style lj/cut 2.5\npair_coeff * * 0.0 1.0\n"
        "compute w all widom 2 5000 1.3 77\nfix mc all gpumc/nvt 1 1.3 5\n"
        "thermo_style custom step c_w[1] c_w[2]\nthermo 2\nrun 10");
  EXPECT_EQ(s.compute_vector("w", 1), 0.0);
  EXPECT_EQ(s.compute_vector("w", 3), 1.0);
  EXPECT_EQ(s.compute_vector("w", 4), 6.0 * 5000);    // steps 0, 2, ..., 10
}

// Dilute LJ gas: mu_ex/kT = 2 B2 rho + (3/2) B3 rho^2 + O(rho^3), with the virial coefficients of
// the same truncated potential by quadrature (virial.h).
TEST(Widom, DiluteGasMatchesVirialExpansion)
{
  const int natoms = 100;
  const double rho = 0.005, T = 2.0, rc = 3.0;
  const double L = std::cbrt(natoms / rho);
  LammpsSession s;
  s.cmd(fmt::format("units lj\natom_style atomic\nregion box block 0 {0} 0 {0} 0 {0}\ncreate_box 1 box\n"
                    "create_atoms 1 random {1} 8 NULL overlap 1.0\nmass 1 1.0\n"
                    "pair_style lj/cut {2}\npair_coeff 1 1 1.0 1.0\n"
                    "fix mc all gpumc/nvt 2 {3} 13\nthermo 100000\nrun 200\n"
                    "compute w all widom 1 100000 {3} 21\nthermo_style custom step c_w[2] c_w[3]\nthermo 5\n"
                    "run 400",
                    L, natoms, rc, T));
  const auto mayer = virial::lj_mayer(1.0 / T, rc);
  const double b2 = virial::b2(mayer, rc), b3 = virial::b3(mayer, rc);
  const double rho_actual = natoms / (L * L * L);
  const double expected = (2.0 * b2 * rho_actual + 1.5 * b3 * rho_actual * rho_actual) * T;
  const double mu = s.compute_vector("w", 1), err = s.compute_vector("w", 2);
  std::printf("dilute LJ: mu_ex = %.6f +- %.6f, (2 B2 rho + 1.5 B3 rho^2) kT = %.6f (B2 = %.5f, B3 = %.4f)\n", mu, err,
              expected, b2, b3);
  EXPECT_LT(err, 0.02 * std::fabs(expected));    // the test resolves the value
  EXPECT_NEAR(mu, expected, 4.0 * err);
}
