// LJ liquid against the NIST Standard Reference Simulation Website (SRSW): Monte Carlo NVT,
// N = 500, LJ truncated at 3 sigma with the analytic long-range correction, T* = 0.85,
// rho* = 0.776: U/N = -5.5121 +- 0.0004 (https://mmlapps.nist.gov/srs/LJ_PURE/mc.htm).

#include "lammps_session.h"

#include "fmt/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

class LJLiquid : public ::testing::TestWithParam<const char *> {};

TEST_P(LJLiquid, MeanEnergyMatchesNistSrsw)
{
  const double nist_u = -5.5121, nist_err = 0.0004;
  LammpsSession s;
  s.cmd("units lj\natom_style atomic\nlattice fcc 0.776\nregion box block 0 5 0 5 0 5\ncreate_box 1 box\n"
        "create_atoms 1 box\nmass 1 1.0\npair_style lj/cut 3.0\npair_coeff 1 1 1.0 1.0\npair_modify tail yes\n"
        "thermo 100000");
  // on several MPI ranks (tests/CMakeLists.txt runs the checkerboard case so) the ghosts must cover
  // a checkerboard cell, 4.32 wide
  s.cmd("comm_modify cutoff 4.4");
  s.cmd(fmt::format("fix mc all gpumc/nvt 10 0.85 2718 tune 300 algorithm {}\nrun 300", GetParam()));    // melt, tune
  ASSERT_EQ(s.natoms(), 500);
  const int nblocks = 20, block = 100;    // blocks of 1000 sweeps
  s.cmd(fmt::format("fix av all ave/time 1 {0} {0} f_mc", block));
  Blocks u;
  for (int b = 0; b < nblocks; b++) {
    s.cmd(fmt::format("run {} {}", block, b == 0 ? "post no" : "pre no post no"));    // new fix: set up once
    u.add(s.fix_scalar("av") / 500.0);
  }
  std::printf("%s: LJ T*=0.85 rho*=0.776: U/N = %.5f +- %.5f (NIST SRSW %.4f +- %.4f), acceptance %.3f\n", GetParam(), u.mean(),
              u.standard_error(), nist_u, nist_err, s.fix_vector("mc", 2));
  const double err = std::sqrt(u.standard_error() * u.standard_error() + nist_err * nist_err);
  EXPECT_LT(u.standard_error(), 0.005);
  EXPECT_NEAR(u.mean(), nist_u, 4.0 * err) << "U/N = " << u.mean() << " +- " << u.standard_error();
  // the running energy never drifted from the recomputed one
  EXPECT_LT(s.fix_vector("mc", 7), 1e-8 * 500 * 5.5);
  EXPECT_NEAR(s.fix_vector("mc", 2), 0.5, 0.05);    // tuned acceptance, then frozen
}

// The checkerboard algorithm with N = 500: two cells per side, one active cell at a time.
INSTANTIATE_TEST_SUITE_P(Algorithms, LJLiquid, ::testing::Values("sequential", "checkerboard"),
                         [](const ::testing::TestParamInfo<const char *> &info) { return std::string(info.param); });
