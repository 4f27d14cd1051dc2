// The /kk styles with an exact Ewald sum (kspace_style ewald): energies against LAMMPS's compute
// pe, the device's sequential chain against the host chain with the same seed for several batch
// sizes (every pair of moves of a batch is coupled through the structure factors, and small
// systems move one atom twice in a batch often), volume moves that change the wave vectors, and
// Widom insertions of a charged type against the host style's.

#include "kokkos_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace {

// a Lennard-Jones melt of +1 and -1 charges with Ewald Coulomb (216 atoms)
const char *IONIC = "units lj\natom_style charge\nlattice sc 0.7\nregion box block 0 6 0 6 0 6\ncreate_box 2 box\n"
                    "create_atoms 1 box\nset type 1 type/ratio 2 0.5 77\nset type 1 charge 1.0\n"
                    "set type 2 charge -1.0\nmass * 1.0\npair_style lj/cut/coul/long 2.5 3.0\npair_coeff * * 1.0 1.0\n"
                    "pair_modify table 0\nkspace_style ewald 1e-5\nthermo_modify norm no\n";

}    // namespace

TEST(KokkosEwald, EnergiesEqualComputePe)
{
  for (const char *fix : {"gpumc/nvt 2 2.0 4711", "gpumc/npt 2 2.0 3.0 4711 vstep 0.05"}) {
    LammpsSession s(kokkos_args(true));
    s.cmd(std::string(IONIC) + "fix mc all " + fix + "\nrun 0");
    const double pe = s.thermo("pe");
    EXPECT_NEAR(s.fix_scalar("mc"), pe, 1e-10 * std::fabs(pe)) << fix;
    s.cmd("thermo 5\nrun 10");
    const double pe2 = s.thermo("pe");
    EXPECT_NE(pe2, pe);
    EXPECT_NEAR(s.fix_scalar("mc"), pe2, 1e-10 * std::fabs(pe2)) << fix;
    EXPECT_GT(s.fix_vector("mc", 1), 0.0);
  }
}

TEST(KokkosEwald, SameChainAsTheHostStyleForEveryBatch)
{
  struct Case {
    std::string fix, run;
  };
  const Case cases[] = {
      {"fix mc all gpumc/nvt 3 2.0 4321 tune no displace 0.15\nsuffix on\n", "run 3"},
      // large volume steps: the wave vectors change with the box (kmax follows it)
      {"fix mc all gpumc/npt 2 2.0 3.0 4322 tune no displace 0.15 vstep 0.1 vmoves 3\nsuffix on\n", "run 4"},
  };
  for (const auto &c : cases) {
    State host;
    {
      LammpsSession s(kokkos_args(true));
      s.cmd(std::string(IONIC) + "suffix off\n" + c.fix + c.run);
      host = capture(s);
    }
    // (batch -1: the default batch with no free slots in the cells, so that the chain stops at
    // full cells in the middle of batches and resumes after the cell list is rebuilt)
    for (const int batch : {1, 5, 64, 0, -1}) {
      LammpsSession s(kokkos_args(true));
      s.cmd(std::string(IONIC) + c.fix);
      engine_options(s, "mc").chain_batch = std::max(batch, 0);
      if (batch < 0) engine_options(s, "mc").cell_slack = 0;
      s.cmd(c.run);
      const State device = capture(s);
      SCOPED_TRACE(c.fix + ", batch " + std::to_string(batch));
      EXPECT_EQ(host.fix[0], device.fix[0]);
      EXPECT_EQ(host.fix[1], device.fix[1]);    // the same decisions
      EXPECT_EQ(host.fix[9], device.fix[9]);    // volume acceptances
      EXPECT_EQ(host.image, device.image);
      EXPECT_LT(max_difference(host.x, device.x), 1e-9);
      EXPECT_LT(max_difference(host.box, device.box), 1e-9);
      EXPECT_NEAR(host.fix[5], device.fix[5], 1e-9 * std::fabs(host.fix[5]));
      EXPECT_LT(device.fix[7], 1e-9 * std::fabs(device.fix[5]));    // running energy against a recomputation
    }
    EXPECT_GT(host.fix[1], 0.3 * host.fix[0]);
    if (c.fix.find("npt") != std::string::npos) EXPECT_GT(host.fix[9], 0.0);
  }
}

TEST(KokkosEwald, WidomOfAChargedTypeMatchesTheHostStyle)
{
  // one configuration of a dilute ionic gas, independent insertion points: the two estimates agree
  // within their standard errors (blocks: 8 invocations on the same configuration)
  double mu[2], err[2];
  for (int kk = 0; kk < 2; kk++) {
    LammpsSession s(kokkos_args(true));
    std::string deck = IONIC;
    deck.replace(deck.find("sc 0.7"), 6, "sc 0.2");
    s.cmd(deck + "set type 1 charge 0.4\nset type 2 charge -0.4\n" + (kk ? "" : "suffix off\n") +
          "compute w all widom 1 20000 2.0 91\nthermo_style custom step c_w[1]\nthermo 1\nrun 8");
    mu[kk] = s.compute_vector("w", 1);
    err[kk] = s.compute_vector("w", 2);
  }
  std::printf("Ewald Widom: host %.5f +- %.5f, kk %.5f +- %.5f\n", mu[0], err[0], mu[1], err[1]);
  EXPECT_GT(err[0], 0.0);
  EXPECT_LT(err[0], 0.05 * std::fabs(mu[0]));
  EXPECT_NEAR(mu[0], mu[1], 4.0 * std::hypot(err[0], err[1]));
}

TEST(KokkosEwald, MixedPrecisionWidomIsRefused)
{
  LammpsSession s(kokkos_args(true));
  s.cmd(IONIC);
  EXPECT_NE(s.error_of("compute w all widom 1 100 2.0 5 precision mixed\nthermo_style custom step c_w[1]\nrun 0")
                .find("precision mixed does not support kspace_style ewald"),
            std::string::npos);
}
