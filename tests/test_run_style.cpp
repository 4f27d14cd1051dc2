// run_style gpumc: the same chain, the same output and the same forces as run_style verlet on every
// timestep that has output, with LAMMPS's force and neighbor work left out on the others.

#include "lammps_session.h"

#include "fmt/format.h"
#include "lammps.h"
#include "neighbor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

const char *LJ = "units lj\natom_style atomic\nlattice fcc 0.8\nregion box block 0 4 0 4 0 4\ncreate_box 2 box\n"
                 "create_atoms 1 box\nset type 1 type/ratio 2 0.5 99\nmass * 1.0\n"
                 "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.8 1.1\npair_modify tail yes\n";

struct Outcome {
  std::vector<double> x, fix, sampled;    // positions, the fix's vector, fix vector's rows
  double pe;
  long neighbor_builds;
};

// thermo every 25, a fix vector (end of step) every 10 sampling pe, the pressure and f_mc
Outcome run_with(const std::string &run_style, const std::string &fix, const std::string &extra = "")
{
  LammpsSession s;
  s.cmd(std::string(LJ) + "fix mc all " + fix + "\nthermo 25\nthermo_style custom step pe press f_mc\n" +
        "variable pe equal pe\nvariable p equal press\nvariable e equal f_mc/atoms\nfix v all vector 10 v_pe v_p v_e\n" + extra + "run_style " + run_style + "\nrun 100");
  Outcome o;
  o.x = s.positions_by_id();
  for (int i = 0; i < 14; i++) o.fix.push_back(s.fix_vector("mc", i));
  for (int row = 0; row < 10; row++)
    for (int col = 0; col < 3; col++) o.sampled.push_back(s.fix_array("v", row, col));
  o.pe = s.thermo("pe");
  o.neighbor_builds = s.lmp()->neighbor->ncalls;
  return o;
}

}    // namespace

// One chain whatever the run style: the fixes' invocations do not depend on it. The energies and
// pressures sampled every 10 steps are LAMMPS's own, equal to the fix's running energy.
TEST(RunStyle, SameChainAndOutputAsVerlet)
{
  // (with every 3 the steps with output are not invocation steps, and LAMMPS's own neighbor
  // settings would not rebuild the lists there: run_style gpumc must)
  const std::pair<const char *, const char *> cases[] = {
      {"gpumc/nvt 2 1.2 5 tune 40", ""},
      {"gpumc/nvt 2 1.2 5 tune 40 algorithm checkerboard", ""},
      {"gpumc/npt 2 1.2 1.0 5 tune 40", ""},
      {"gpumc/npt 1 1.2 1.0 5 tune 40 every 3", "neigh_modify every 1000 delay 0 check no\n"}};
  for (const auto &[fix, extra] : cases) {
    SCOPED_TRACE(fix);
    const Outcome verlet = run_with("verlet", fix, extra), gpumc = run_with("gpumc", fix, extra);
    EXPECT_EQ(verlet.x, gpumc.x);
    EXPECT_EQ(verlet.fix, gpumc.fix);
    ASSERT_EQ(verlet.sampled.size(), gpumc.sampled.size());
    for (size_t k = 0; k < verlet.sampled.size(); k++)
      EXPECT_NEAR(verlet.sampled[k], gpumc.sampled[k], 1e-10 * std::fabs(verlet.sampled[k])) << "entry " << k;
    for (size_t row = 0; row < 10; row++)    // pe equals the running energy (per atom: thermo_modify norm)
      EXPECT_NEAR(gpumc.sampled[3 * row], gpumc.sampled[3 * row + 2], 1e-10 * std::fabs(gpumc.sampled[3 * row]));
    EXPECT_NEAR(verlet.pe, gpumc.pe, 1e-10 * std::fabs(verlet.pe));
    // verlet builds lists at every invocation, gpumc only at setup and on the 12 steps with output
    EXPECT_GT(verlet.neighbor_builds, 30);
    EXPECT_LE(gpumc.neighbor_builds, 13);
  }
}

// Forces are current on the steps a dump writes them, though no thermo or fix asks for them there.
TEST(RunStyle, ForcesCurrentOnDumpSteps)
{
  const std::string dir = testing::TempDir();
  auto dumped_forces = [&](const std::string &run_style) {
    const std::string file = dir + "gpumc_run_style_" + run_style + ".dump";
    LammpsSession s;
    s.cmd(std::string(LJ) + "fix mc all gpumc/nvt 1 1.2 5 algorithm checkerboard\nthermo 50\n" +
          "dump d all custom 7 " + file + " id fx fy fz\ndump_modify d sort id format float %.17g\n" +
          "run_style " + run_style + "\nrun 50");
    s.cmd("undump d");
    std::ifstream in(file);
    std::vector<double> f;
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("ITEM", 0) == 0) {
        if (line.rfind("ITEM: ATOMS", 0) != 0) std::getline(in, line);    // the item's value
        continue;
      }
      std::istringstream fields(line);
      double id, fx, fy, fz;
      if (fields >> id >> fx >> fy >> fz) f.insert(f.end(), {fx, fy, fz});
    }
    std::remove(file.c_str());
    return f;
  };
  const std::vector<double> verlet = dumped_forces("verlet"), gpumc = dumped_forces("gpumc");
  ASSERT_EQ(verlet.size(), 8u * 256 * 3);    // steps 0, 7, ..., 49
  ASSERT_EQ(gpumc.size(), verlet.size());
  for (size_t k = 0; k < verlet.size(); k++) ASSERT_NEAR(verlet[k], gpumc[k], 1e-9) << "entry " << k;
}

// The run stops at the wall-time limit (timer timeout) as run_style verlet does.
TEST(RunStyle, StopsAtTheTimeout)
{
  LammpsSession s;
  s.cmd(std::string(LJ) + "fix mc all gpumc/nvt 1 1.2 5\nthermo 1000000\ntimer timeout 0:00:01\nrun_style gpumc\n"
        "run 100000000");
  const double steps = s.thermo("step");
  EXPECT_GT(steps, 0.0);
  EXPECT_LT(steps, 100000000.0);
}
