// The checkerboard algorithm (gpumc_checkerboard.h): its geometry exactly, and its statistics
// against the sequential chain, which samples the same Boltzmann distribution by a different
// route (detailed balance, one move at a time): LJ liquid energy, pressure, radial distribution
// function and NPT volume; SiO2 Morse energies. Fixed seeds; differences within 4 combined
// standard errors of block averages.

#include "lammps_session.h"

#include "gpumc_checkerboard.h"

#include "fmt/format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace gpumc;

// Positions in the frame of a cell (offset times width plus the position in the neighbour's own
// frame) differ by exactly the minimum-image separation, for any grid shift, including cells that
// wrap round the box and grids only two cells wide.
TEST(CheckerboardGeometry, CellFramesGiveMinimumImageSeparations)
{
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const double lo[3] = {-3.0, 1.5, 0.0}, len[3] = {20.0, 9.1, 13.7};
  const double rc = 4.5;
  for (uint64_t sweep = 0; sweep < 200; sweep++) {
    CheckerGrid g;
    ASSERT_TRUE(checker_grid(CounterRNG(7, RNG_CHECKERBOARD), sweep, lo, len, checker_min_width(rc), g));
    EXPECT_EQ(g.n[0], 4);
    EXPECT_EQ(g.n[1], 2);
    EXPECT_EQ(g.n[2], 2);
    for (int pair = 0; pair < 50; pair++) {
      double p[3], q[3], up[3], uq[3];
      int cp[3], cq[3];
      for (int d = 0; d < 3; d++) {
        p[d] = lo[d] + len[d] * u01(gen);
        q[d] = lo[d] + len[d] * u01(gen);
      }
      checker_cell(g, p, cp, up);
      checker_cell(g, q, cq, uq);
      for (int d = 0; d < 3; d++) {
        ASSERT_GE(up[d], 0.0);
        ASSERT_LT(up[d], g.w[d] * (1 + 1e-12));
        // minimum-image separation of q from p
        double mi = q[d] - p[d];
        mi -= len[d] * std::round(mi / len[d]);
        // q's cell is one of p's neighbours (offset -1, 0 or 1, periodic) if within a cell width
        int found = 0;
        for (int off = -1; off <= 1; off++) {
          if ((cp[d] + off + g.n[d]) % g.n[d] != cq[d]) continue;
          const double framed = off * g.w[d] + uq[d] - up[d];
          // the frame gives one periodic image of q; if it is within a cell width, it is the nearest
          if (std::fabs(framed) < g.w[d]) {
            EXPECT_NEAR(framed, mi, 1e-12);
            found++;
          }
        }
        // every image within a cell width (so every one within the cutoff) is seen exactly once
        if (std::fabs(mi) < g.w[d] * (1 - 1e-12)) EXPECT_EQ(found, 1) << "dimension " << d;
      }
    }
  }
}

// Every colour order is a permutation, and each colour is equally likely in each position.
TEST(CheckerboardGeometry, ColourOrdersAreUniformPermutations)
{
  const CounterRNG rng(11, RNG_CHECKERBOARD);
  const int nsweeps = 80000;
  std::vector<std::vector<int>> hits(8, std::vector<int>(8, 0));
  for (int s = 0; s < nsweeps; s++) {
    int order[8];
    checker_colour_order(rng, s, order);
    std::vector<int> sorted(order, order + 8);
    std::sort(sorted.begin(), sorted.end());
    for (int k = 0; k < 8; k++) ASSERT_EQ(sorted[k], k);
    for (int k = 0; k < 8; k++) hits[k][order[k]]++;
  }
  double chi2 = 0.0;
  const double expected = nsweeps / 8.0;
  for (auto &row : hits)
    for (int h : row) chi2 += (h - expected) * (h - expected) / expected;
  EXPECT_LT(chi2, 102.0);    // 49 degrees of freedom: 0.1 % critical value 85.4; margin for dependence
}

TEST(CheckerboardGeometry, BoxTooSmallForTwoCells)
{
  const double lo[3] = {0, 0, 0}, len[3] = {6.0, 10.0, 10.0};
  CheckerGrid g;
  EXPECT_FALSE(checker_grid(CounterRNG(1, RNG_CHECKERBOARD), 0, lo, len, checker_min_width(3.0), g));
  const double len_ok[3] = {6.01, 10.0, 10.0};
  EXPECT_TRUE(checker_grid(CounterRNG(1, RNG_CHECKERBOARD), 0, lo, len_ok, checker_min_width(3.0), g));
  EXPECT_EQ(checker_cells(17.9, 3.0), 4);    // 5 fit, an even number is needed
}

namespace {

struct Averages {
  std::map<std::string, Blocks> scalar;
  std::vector<Blocks> rdf;
};

// Block averages of the named equal-style variables and of g(r) of all pairs.
Averages sample(LammpsSession &s, const std::vector<std::string> &vars, int nblocks, int block, int rdf_bins)
{
  std::string names;
  for (const auto &v : vars) names += " v_" + v;
  s.cmd(fmt::format("fix av all ave/time 5 {0} {1} {2}", block / 5, block, names));
  if (rdf_bins)    // g(r) needs a neighbour list build each time: every 10 steps
    s.cmd(fmt::format("compute rdf all rdf {0}\nfix ar all ave/time 10 {1} {2} c_rdf[2] mode vector", rdf_bins,
                      block / 10, block));
  Averages a;
  a.rdf.resize(rdf_bins);
  for (int b = 0; b < nblocks; b++) {
    s.cmd(fmt::format("run {} {}", block, b == 0 ? "post no" : "pre no post no"));
    // fix ave/time makes a scalar of one value and a vector of several, or of one vector
    for (size_t k = 0; k < vars.size(); k++)
      a.scalar[vars[k]].add(vars.size() == 1 ? s.fix_scalar("av") : s.fix_vector("av", (int) k));
    for (int k = 0; k < rdf_bins; k++) a.rdf[k].add(s.fix_vector("ar", k));
  }
  return a;
}

double z_score(const Blocks &a, const Blocks &b)
{
  const double se = std::sqrt(a.standard_error() * a.standard_error() + b.standard_error() * b.standard_error());
  return (a.mean() - b.mean()) / se;
}

const char *LJ_SETUP = "units lj\natom_style atomic\nlattice fcc 0.776\nregion box block 0 8 0 8 0 8\n"
                       "create_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\npair_style lj/cut 3.0\n"
                       "pair_coeff 1 1 1.0 1.0\npair_modify tail yes\nthermo 100000\n"
                       "compute pvir all pressure NULL virial\n"
                       "variable u equal pe\nvariable p equal c_pvir+atoms/vol*0.85\nvariable v equal vol/atoms\n";

}    // namespace

// LJ liquid, N = 2048 (4 cells of 3.4 sigma per side), T* = 0.85, rho* = 0.776.
TEST(CheckerboardStatistics, LjLiquidMatchesSequential)
{
  std::map<std::string, Averages> runs;
  for (const char *algorithm : {"sequential", "checkerboard"}) {
    LammpsSession s;
    s.cmd(LJ_SETUP);
    s.cmd(fmt::format("fix mc all gpumc/nvt 2 0.85 {} tune 150 algorithm {}\nrun 500", 4242, algorithm));
    // blocks of 100 sweeps: block means of 50 sweeps are still correlated (250-sweep means scatter
    // about 1.5x more than 50-sweep blocks predict), which understates the error bars
    runs[algorithm] = sample(s, {"u", "p"}, 20, 100, 60);
    std::printf("%-12s U/N = %.5f +- %.5f, P = %.4f +- %.4f, acceptance %.3f, max drift %.2g\n", algorithm,
                runs[algorithm].scalar["u"].mean(), runs[algorithm].scalar["u"].standard_error(),
                runs[algorithm].scalar["p"].mean(), runs[algorithm].scalar["p"].standard_error(),
                s.fix_vector("mc", 3), s.fix_vector("mc", 7));
    EXPECT_LT(s.fix_vector("mc", 7), 1e-8);    // running energy = recomputed energy
  }
  auto &a = runs["sequential"], &b = runs["checkerboard"];
  for (const char *v : {"u", "p"}) {
    const double z = z_score(a.scalar[v], b.scalar[v]);
    std::printf("%s: difference %.2f combined standard errors\n", v, z);
    EXPECT_LT(std::fabs(z), 4.0) << v;
  }
  EXPECT_LT(a.scalar["u"].standard_error(), 0.005);    // the comparison resolves the energy
  // g(r) bin by bin (60 bins to 3 sigma): the largest deviation, and chi-square over the bins
  double zmax = 0.0, chi2 = 0.0;
  int nbins = 0;
  for (size_t k = 0; k < a.rdf.size(); k++) {
    if (a.rdf[k].standard_error() == 0.0 && b.rdf[k].standard_error() == 0.0) continue;    // core: g = 0
    const double z = z_score(a.rdf[k], b.rdf[k]);
    zmax = std::max(zmax, std::fabs(z));
    chi2 += z * z;
    nbins++;
  }
  std::printf("g(r): %d bins, largest difference %.2f combined standard errors, chi2 %.1f\n", nbins, zmax, chi2);
  EXPECT_GT(nbins, 40);
  EXPECT_LT(zmax, 4.5);
  EXPECT_LT(chi2, nbins + 4.0 * std::sqrt(2.0 * nbins));
}

// NPT LJ liquid (T* = 0.85, P* = 1): the mean volume per atom of both algorithms agrees.
TEST(CheckerboardStatistics, LjNptVolumeMatchesSequential)
{
  std::map<std::string, Blocks> volume;
  for (const char *algorithm : {"sequential", "checkerboard"}) {
    LammpsSession s;
    s.cmd(LJ_SETUP);
    s.cmd(fmt::format("fix mc all gpumc/npt 2 0.85 1.0 {} tune 150 algorithm {}\nrun 250", 99, algorithm));
    volume[algorithm] = sample(s, {"v"}, 20, 50, 0).scalar["v"];
    std::printf("%-12s V/N = %.5f +- %.5f\n", algorithm, volume[algorithm].mean(), volume[algorithm].standard_error());
  }
  const double z = z_score(volume["sequential"], volume["checkerboard"]);
  std::printf("V/N: difference %.2f combined standard errors\n", z);
  EXPECT_LT(std::fabs(z), 4.0);
  EXPECT_LT(volume["sequential"].standard_error(), 0.002);
}

// SiO2 Morse (the seed's model, 4000 K, 0.053679 atoms/A^3), N = 648: two cells per side, so each
// active cell sees its own periodic images as neighbours on both sides. The energy decorrelates
// over about a hundred sweeps: blocks of 250.
TEST(CheckerboardStatistics, Sio2MorseEnergyMatchesSequential)
{
  std::map<std::string, Blocks> energy, pressure;
  for (const char *algorithm : {"sequential", "checkerboard"}) {
    LammpsSession s;
    s.cmd("units metal\natom_style atomic\nvariable L equal (648/0.053679)^(1.0/3.0)\n"
          "region box block 0 ${L} 0 ${L} 0 ${L} units box\ncreate_box 2 box\n"
          "create_atoms 1 random 216 4928 NULL overlap 1.4 maxtry 1000\n"
          "create_atoms 2 random 432 4929 NULL overlap 1.4 maxtry 1000\nmass 1 28.0855\nmass 2 15.9994\n"
          "pair_style morse 9.0\npair_coeff 1 1 0.007695 2.0446 3.7598\npair_coeff 1 2 1.99597 2.6518 1.628\n"
          "pair_coeff 2 2 0.023272 1.3731 3.791\nthermo 100000\ncompute pvir all pressure NULL virial\n"
          "variable u equal pe/atoms\nvariable p equal c_pvir\n");
    s.cmd(fmt::format("fix mc all gpumc/nvt 5 4000.0 {} tune 100 algorithm {}\nrun 100", 31, algorithm));
    auto a = sample(s, {"u", "p"}, 16, 50, 0);
    energy[algorithm] = a.scalar["u"];
    pressure[algorithm] = a.scalar["p"];
    std::printf("%-12s U/N = %.5f +- %.5f eV, P_virial = %.0f +- %.0f bar\n", algorithm, energy[algorithm].mean(),
                energy[algorithm].standard_error(), pressure[algorithm].mean(), pressure[algorithm].standard_error());
  }
  const double zu = z_score(energy["sequential"], energy["checkerboard"]);
  const double zp = z_score(pressure["sequential"], pressure["checkerboard"]);
  std::printf("U: %.2f, P: %.2f combined standard errors apart\n", zu, zp);
  EXPECT_LT(std::fabs(zu), 4.0);
  EXPECT_LT(std::fabs(zp), 4.0);
  EXPECT_LT(energy["sequential"].standard_error(), 0.01);
}
