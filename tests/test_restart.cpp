// A chain split by write_restart / read_restart continues exactly as the unbroken one:
// 2000 sweeps in one run equal 1000 + restart + 1000, bit for bit.

#include "lammps_session.h"

#include "fmt/format.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

const char *SETUP = "units lj\natom_style atomic\nlattice fcc 0.8\nregion box block 0 4 0 4 0 4\ncreate_box 2 box\n"
                    "create_atoms 1 box\nset type 1 type/ratio 2 0.5 99\nmass * 1.0\n"
                    "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.8 1.1\npair_modify tail yes\n"
                    "thermo 10\n";
// charged: Lennard-Jones with DSF Coulomb (the restart holds the charges and the pair style)
const char *CHARGED_SETUP = "units lj\natom_style charge\nlattice fcc 0.8\nregion box block 0 4 0 4 0 4\n"
                            "create_box 2 box\ncreate_atoms 1 box\nset type 1 type/ratio 2 0.5 99\nmass * 1.0\n"
                            "set type 1 charge 0.5\nset type 2 charge -0.5\npair_style lj/cut/coul/dsf 0.3 2.5 2.5\n"
                            "pair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.8 1.1\nthermo 10\n";

// Ewald: the k-space solver is not in the restart file, and LAMMPS sets g_ewald at each run's
// init from the box of the moment, so NPT fixes it (kspace_modify gewald) to keep one energy
const char *EWALD_SETUP = "units lj\natom_style charge\nlattice fcc 0.8\nregion box block 0 4 0 4 0 4\n"
                          "create_box 2 box\ncreate_atoms 1 box\nset type 1 type/ratio 2 0.5 99\nmass * 1.0\n"
                          "set type 1 charge 0.5\nset type 2 charge -0.5\npair_style lj/cut/coul/long 2.5 2.5\n"
                          "pair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.8 1.1\npair_modify table 0\nthermo 10\n";
const char *EWALD_SOLVER = "kspace_style ewald 1e-4\nkspace_modify gewald 1.2\n";

struct State {
  std::vector<double> x, box, fix;
  double pe;
};

State capture(LammpsSession &s)
{
  State st;
  st.x = s.positions_by_id();
  st.box = s.box();
  for (int i = 0; i < 14; i++) st.fix.push_back(s.fix_vector("mc", i));
  st.pe = s.thermo("pe");
  return st;
}

void expect_same(const State &a, const State &b)
{
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.box, b.box);
  EXPECT_EQ(a.fix, b.fix);
  EXPECT_NEAR(a.pe, b.pe, 1e-12 * std::fabs(a.pe));    // LAMMPS may sum its pairs in another order
}

}    // namespace

TEST(Restart, SplitChainEqualsUnbrokenChain)
{
  const std::string file = testing::TempDir() + "gpumc_restart.bin";
  struct Case {
    const char *setup, *fix, *after_read;
  };
  const Case cases[] = {
      {SETUP, "gpumc/nvt 10 1.2 5 tune 50", ""},
      {SETUP, "gpumc/npt 10 1.2 1.0 5 tune 50", ""},
      {SETUP, "gpumc/npt 10 1.2 1.0 5 volume sides check 3 tune 50", ""},
      {SETUP, "gpumc/nvt 10 1.2 5 tune 50 algorithm checkerboard", ""},
      {SETUP, "gpumc/npt 10 1.2 1.0 5 tune 50 algorithm checkerboard", ""},
      {CHARGED_SETUP, "gpumc/npt 10 1.2 1.0 5 tune 50", ""},
      {CHARGED_SETUP, "gpumc/nvt 10 1.2 5 tune 50 algorithm checkerboard", ""},
      {EWALD_SETUP, "gpumc/npt 2 1.2 1.0 5 tune 50", EWALD_SOLVER},
  };
  for (const auto &[setup, fix, after_read] : cases) {
    const std::string fixline = fmt::format("fix mc all {}\n", fix);
    State whole, split;
    {
      LammpsSession s;
      s.cmd(std::string(setup) + after_read + fixline + "run 200");
      whole = capture(s);
    }
    {
      LammpsSession s;
      s.cmd(std::string(setup) + after_read + fixline + "run 100\nwrite_restart " + file);
    }
    {
      LammpsSession s;
      s.cmd("read_restart " + file + "\n" + after_read + fixline + "thermo 10\nrun 100");
      split = capture(s);
    }
    std::remove(file.c_str());
    SCOPED_TRACE(std::string(fix) + (setup == CHARGED_SETUP ? ", charged" : setup == EWALD_SETUP ? ", Ewald" : ""));
    expect_same(whole, split);
    EXPECT_EQ(whole.fix[0], 200.0 * std::stoi(fix + std::string(fix).find(' ')) * 256);    // the trials really ran
  }
}

TEST(Restart, RunsSplitInTheSameInputEqualOneRun)
{
  State whole, split;
  {
    LammpsSession s;
    s.cmd(std::string(SETUP) + "fix mc all gpumc/npt 3 1.2 1.0 8 tune no\nrun 60");
    whole = capture(s);
  }
  {
    LammpsSession s;
    s.cmd(std::string(SETUP) + "fix mc all gpumc/npt 3 1.2 1.0 8 tune no\nrun 25\nrun 35");
    split = capture(s);
  }
  expect_same(whole, split);
}
