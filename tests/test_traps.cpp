// Traps a LAMMPS user could fall into: restarts, repeated output at one timestep, volume steps,
// warnings and output that followed LAMMPS's defaults rather than Monte Carlo's. Each test
// fails without the behaviour it names.

#include "lammps_session.h"

#include "error.h"
#include "fmt/format.h"
#include "lammps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

namespace {

const char *LJ = "units lj\natom_style atomic\nlattice fcc 0.8\nregion box block 0 4 0 4 0 4\ncreate_box 2 box\n"
                 "create_atoms 1 box\nset type 1 type/ratio 2 0.5 99\nmass * 1.0\n"
                 "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.8 1.1\nthermo 10\n";

int warnings(LammpsSession &s)
{
  return s.lmp()->error->get_numwarn();
}

}    // namespace

// A fix redefined after read_restart takes displace, vstep and tune from its command where the
// command gives them (here: a chain written with tune always, continued with tune no), and the
// file's values where it does not.
TEST(Traps, ExplicitKeywordsWinOverTheRestartFile)
{
  const std::string file = testing::TempDir() + "gpumc_traps.restart";
  double tuned = 0.0;
  {
    LammpsSession s;
    s.cmd(std::string(LJ) + "fix mc all gpumc/nvt 5 1.2 5 tune always displace 0.05\nrun 20\nwrite_restart " + file);
    tuned = s.fix_vector("mc", 4);
    EXPECT_NE(tuned, 0.05);
  }
  {
    LammpsSession s;
    s.cmd("read_restart " + file + "\nfix mc all gpumc/nvt 5 1.2 5 tune no displace 0.3\nrun 20");
    EXPECT_EQ(s.fix_vector("mc", 4), 0.3);    // neither the file's step nor tuned further
  }
  {
    LammpsSession s;
    s.cmd("read_restart " + file + "\nfix mc all gpumc/nvt 5 1.2 5\nrun 0");
    EXPECT_EQ(s.fix_vector("mc", 4), tuned);
  }
  std::remove(file.c_str());
}

// compute widom makes one block of insertions per timestep however often output asks; a
// configuration changed within the timestep (delete_atoms between two run 0) gets a block of its
// own, which replaces the first: the same values as a fresh run on the changed system.
TEST(Traps, WidomFollowsAConfigurationChangedWithinATimestep)
{
  const std::string compute = "compute w all widom 1 2000 1.2 77\nthermo_style custom step c_w[1]\n";
  const std::string remove = "group gone id 1:40\ndelete_atoms group gone\n";
  LammpsSession s;
  s.cmd(std::string(LJ) + compute + "run 0");
  const double before = s.compute_vector("w", 0);
  s.cmd(remove + "run 0");
  const double after = s.compute_vector("w", 0);
  LammpsSession fresh;
  fresh.cmd(std::string(LJ) + remove + compute + "run 0");
  EXPECT_NE(before, after);
  EXPECT_EQ(after, fresh.compute_vector("w", 0));
  EXPECT_EQ(s.compute_vector("w", 1), fresh.compute_vector("w", 1));
  EXPECT_EQ(s.compute_vector("w", 5), 1.0);    // one block: the first one replaced
}

// vstep is capped as documented (0.5 in ln V, a quarter of the shortest side), with a warning: a
// step of 1000 in ln V had every volume move rejected.
TEST(Traps, VolumeStepIsCapped)
{
  for (const char *scheme : {"logv", "sides"}) {
    LammpsSession s;
    s.cmd(std::string(LJ) + fmt::format("fix mc all gpumc/npt 2 1.2 1.0 5 volume {} vstep 1000 tune no\nrun 20", scheme));
    const double side = 4.0 * std::cbrt(4.0 / 0.8);
    EXPECT_NEAR(s.fix_vector("mc", 12), std::string(scheme) == "logv" ? 0.5 : 0.25 * side, 1e-9) << scheme;
    if (std::string(scheme) == "logv") EXPECT_GT(s.fix_vector("mc", 9), 0.0);    // accepted volume moves
    EXPECT_GE(warnings(s), 1) << scheme;
  }
}

// A gas at P = 0 expands without bound: the fix stops with the cause before LAMMPS's neighbor
// binning fails with a message that names neither.
TEST(Traps, UnboundedExpansionStopsWithItsCause)
{
  LammpsSession s;
  const std::string err = s.error_of("units lj\natom_style atomic\nregion box block 0 20 0 20 0 20\ncreate_box 1 box\n"
                                     "create_atoms 1 random 30 5 NULL\nmass 1 1.0\npair_style lj/cut 2.5\n"
                                     "pair_coeff 1 1 1.0 1.0\nfix mc all gpumc/npt 1 1.0 0.0 5 vstep 0.5 tune no\n"
                                     "run 2000");
  EXPECT_NE(err.find("fix gpumc/npt: the volume moves have grown the box"), std::string::npos) << err;
  EXPECT_NE(err.find("at pressure 0"), std::string::npos) << err;
}

// A Monte Carlo run moves atoms: LAMMPS's "No fixes with time integration, atoms won't move" is
// wrong for it, and so is "atoms are time integrated more than once" beside fix nve (MD and MC).
TEST(Traps, NoIntegratorWarnings)
{
  {
    LammpsSession s;
    s.cmd(std::string(LJ) + "fix mc all gpumc/nvt 1 1.2 5\nrun 2");
    EXPECT_EQ(warnings(s), 0);
  }
  {
    LammpsSession s;
    s.cmd(std::string(LJ) + "fix md all nve\nfix mc all gpumc/nvt 1 1.2 5 every 5\nrun 10");
    EXPECT_EQ(warnings(s), 0);
  }
}

// The fix's energy output equals pe after other commands moved the atoms: a minimization, or a
// second gpumc fix on other atoms.
TEST(Traps, EnergyOutputEqualsPeAfterOtherMoves)
{
  {
    LammpsSession s;
    s.cmd(std::string(LJ) + "displace_atoms all random 0.1 0.1 0.1 7 units box\n"
                            "fix mc all gpumc/nvt 1 1.2 5\nthermo_style custom step pe f_mc\n"
                            "thermo_modify norm no\nminimize 0 0 20 200");
    const double pe = s.thermo("pe");
    EXPECT_NEAR(s.fix_scalar("mc"), pe, 1e-10 * std::fabs(pe));
    EXPECT_NEAR(s.fix_vector("mc", 5), pe, 1e-10 * std::fabs(pe));
  }
  {
    LammpsSession s;
    s.cmd(std::string(LJ) + "group one type 1\ngroup two type 2\nfix a one gpumc/nvt 1 1.2 5\n"
                            "fix b two gpumc/nvt 1 1.2 6\nthermo_style custom step pe f_a f_b\nthermo_modify norm no\nrun 5");
    const double pe = s.thermo("pe");
    EXPECT_GT(s.fix_vector("b", 1), 0.0);    // b accepted moves after a's invocation
    EXPECT_NEAR(s.fix_scalar("a"), pe, 1e-10 * std::fabs(pe));
    EXPECT_NEAR(s.fix_scalar("b"), pe, 1e-10 * std::fabs(pe));
  }
}

// tune yes tunes until the end of the next run that makes moves: a run 0 first does not use it up.
TEST(Traps, RunZeroKeepsTheTuningWindow)
{
  LammpsSession s;
  s.cmd(std::string(LJ) + "fix mc all gpumc/nvt 2 1.2 5 tune yes displace 0.05\nrun 0\nrun 20");
  EXPECT_NE(s.fix_vector("mc", 4), 0.05);
  s.cmd("run 20");    // the window ended with the first run that moved
  const double after_window = s.fix_vector("mc", 4);
  s.cmd("run 20");
  EXPECT_EQ(s.fix_vector("mc", 4), after_window);
}

// Atoms that carry velocities of another temperature (from an MD data file, or a velocity command)
// get velocities drawn at the Monte Carlo temperature after every invocation, so that temp averages
// T and press is the pressure at T; they were left frozen, and temp and press reported them.
TEST(Traps, VelocitiesAtTheMonteCarloTemperature)
{
  LammpsSession s;
  s.cmd(std::string(LJ) + "velocity all create 2.5 87 mom yes\nfix mc all gpumc/nvt 2 1.0 5\n"
                          "thermo_style custom step temp ke press\nthermo_modify norm no\nrun 0");
  Blocks temp;
  for (int k = 0; k < 200; k++) {
    s.cmd("run 1");
    temp.add(s.thermo("temp"));
  }
  std::printf("temp under MC at T = 1: %.4f +- %.4f\n", temp.mean(), temp.standard_error());
  EXPECT_LT(temp.standard_error(), 0.01);
  EXPECT_NEAR(temp.mean(), 1.0, 4.0 * temp.standard_error());

  // velocities keep: left as they were
  LammpsSession kept;
  kept.cmd(std::string(LJ) + "velocity all create 2.5 87 mom yes\nfix mc all gpumc/nvt 2 1.0 5 velocities keep\n"
                             "run 5");
  EXPECT_NEAR(kept.thermo("temp"), 2.5, 1e-9);
}

// The velocities drawn do not depend on how the chain is split by runs and restarts (a draw of
// its own would change ke by about a percent).
TEST(Traps, VelocitiesContinueAcrossRestarts)
{
  const std::string file = testing::TempDir() + "gpumc_traps_v.restart";
  const std::string fix = "fix mc all gpumc/nvt 2 1.0 5 tune no\nthermo_style custom step ke\n";
  LammpsSession whole;
  whole.cmd(std::string(LJ) + fix + "run 10");
  {
    LammpsSession s;
    s.cmd(std::string(LJ) + fix + "run 5\nwrite_restart " + file);
  }
  LammpsSession split;
  split.cmd("read_restart " + file + "\n" + fix + "run 5");
  std::remove(file.c_str());
  EXPECT_GT(whole.thermo("ke"), 0.0);
  // the same draws; sums over atoms in LAMMPS's local order, which a restart changes, round apart
  EXPECT_NEAR(whole.thermo("ke"), split.thermo("ke"), 1e-12 * whole.thermo("ke"));
  EXPECT_EQ(whole.positions_by_id(), split.positions_by_id());
}
