// The host styles on several MPI ranks (run with mpirun -np 4): checkerboard sweeps over LAMMPS's
// spatial decomposition make the single-process chain's decisions on 1, 2 and 4 ranks, restarts
// move between rank counts, Widom splits its insertions, and setups that cannot run on several
// ranks stop with an error. Each case runs LAMMPS on the first 1, 2 or 4 ranks of the world;
// rank 0 takes part in every run and compares.
#include "mpi_support.h"

#include "gpumc_lammps.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

using namespace mpi_support;

// The same trials and decisions on 1, 2 and 4 ranks: 1 rank runs the single-process sweep, 2 and 4
// the decomposed one. Positions agree to round-off (the decomposed sweep works in the frame
// translated by the grid shift), the counts exactly; the running energy equals compute pe. NVT,
// and NPT (volume moves decided once for all ranks).
class MpiChain : public ::testing::TestWithParam<const char *> {};

TEST_P(MpiChain, IsTheSameOnOneTwoAndFourRanks)
{
  ASSERT_EQ(world_size(), 4) << "run with mpirun -np 4";
  const std::string ensemble = GetParam();
  const bool npt = ensemble == "npt", part = ensemble == "nvt_group";
  std::map<int, ChainResult> runs;
  std::vector<double> start;
  for (int nranks : {1, 2, 4}) {
    RankGroup group(nranks);
    if (!group.member()) continue;
    LammpsSession s({}, &group.comm);
    s.cmd(lj_setup());
    if (nranks == 1) start = s.gathered_positions();
    runs[nranks] = checkerboard_run(s, npt ? LJ_NPT_FIX : (part ? LJ_GROUP_FIX : LJ_FIX), 10);
  }
  if (world_rank() != 0) return;
  const ChainResult &one = runs[1];
  if (part) {
    // atoms outside the group (x >= 6.7 at the start) have not moved: on one rank at all, on
    // several up to the round-off of the sweeps' translations and their undoing (which can put an
    // atom on a wall at the opposite wall, its periodic image)
    for (int nranks : {1, 2, 4})
      for (size_t i = 0; i < start.size() / 3; i++)
        if (start[3 * i] >= 6.7)
          for (int d = 0; d < 3; d++)
            ASSERT_NEAR(std::remainder(runs[nranks].x[3 * i + d] - start[3 * i + d], LJ_SIDE), 0.0,
                        nranks == 1 ? 0.0 : 1e-12) << nranks << " ranks";
    EXPECT_GT(one.trials, 0.4 * 20.0 * 2048);
    EXPECT_LT(one.trials, 0.6 * 20.0 * 2048);
  } else {
    EXPECT_EQ(one.trials, 20.0 * 2048);
  }
  EXPECT_GT(one.accepted, 0.2 * one.trials);
  if (npt) EXPECT_GT(one.vaccepted, 3.0);
  for (int nranks : {2, 4}) {
    const ChainResult &r = runs[nranks];
    EXPECT_EQ(r.trials, one.trials) << nranks << " ranks";
    EXPECT_EQ(r.accepted, one.accepted) << nranks << " ranks";
    EXPECT_EQ(r.vaccepted, one.vaccepted) << nranks << " ranks";
    EXPECT_NEAR(r.volume, one.volume, 1e-10 * one.volume) << nranks << " ranks";
    EXPECT_LT(max_difference(r.x, one.x, npt ? std::cbrt(one.volume) : LJ_SIDE), 1e-9) << nranks << " ranks";
    EXPECT_NEAR(r.energy, r.pe, 1e-10 * std::fabs(r.pe)) << nranks << " ranks";
    EXPECT_LT(r.drift, 1e-9 * std::fabs(r.pe)) << nranks << " ranks";
  }
  // 2 and 4 ranks run the same arithmetic: identical positions
  EXPECT_EQ(max_difference(runs[2].x, runs[4].x), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Ensembles, MpiChain, ::testing::Values("nvt", "npt", "nvt_group"),
                         [](const ::testing::TestParamInfo<const char *> &info) { return std::string(info.param); });

// A restart written on 2 ranks continues on 4 ranks as the unbroken chain does.
// run_style gpumc on 4 ranks: the chain of run_style verlet, LAMMPS's energy on the steps with
// output (thermo every 3) equal to the running energy, with the force work of the others left out
TEST(MpiCheckerboard, RunStyleGpumcMakesTheVerletChain)
{
  ASSERT_EQ(world_size(), 4) << "run with mpirun -np 4";
  // (invoked every 2 steps, thermo on steps 3 and 9 comes after an invocation without neighbor lists)
  std::string every2 = LJ_NPT_FIX;
  every2.replace(every2.find("check 3"), 7, "check 3 every 2");
  every2 += "neigh_modify every 1000 delay 0 check no\n";    // (LAMMPS's own check would rebuild them)
  for (const std::string &fix : {std::string(LJ_FIX), std::string(LJ_NPT_FIX), every2}) {
    std::map<std::string, ChainResult> runs;
    std::vector<double> sampled_pe, sampled_energy;    // steps 3, 6, 9 of run_style gpumc
    for (const std::string run_style : {"verlet", "gpumc"}) {
      LammpsSession s({}, nullptr);
      s.cmd(lj_setup());
      runs[run_style] = checkerboard_run(s, fix + "thermo 3\nvariable pe equal pe\nvariable e equal f_mc\n"
                                         "fix v all vector 3 v_pe v_e\nrun_style " + run_style + "\n", 10);
      for (int row = 0; row < 3 && run_style == "gpumc"; row++) {
        sampled_pe.push_back(s.fix_array("v", row, 0));
        sampled_energy.push_back(s.fix_array("v", row, 1));
      }
    }
    if (world_rank() != 0) continue;
    for (int row = 0; row < 3; row++)
      EXPECT_NEAR(sampled_pe[row], sampled_energy[row], 1e-10 * std::fabs(sampled_pe[row])) << "row " << row;
    const ChainResult &verlet = runs["verlet"], &gpumc = runs["gpumc"];
    SCOPED_TRACE(fix);
    EXPECT_GT(verlet.accepted, 0.2 * verlet.trials);
    EXPECT_EQ(gpumc.trials, verlet.trials);
    EXPECT_EQ(gpumc.accepted, verlet.accepted);
    EXPECT_EQ(gpumc.vaccepted, verlet.vaccepted);
    EXPECT_NEAR(gpumc.volume, verlet.volume, 1e-12 * verlet.volume);
    EXPECT_LT(max_difference(gpumc.x, verlet.x, std::cbrt(verlet.volume)), 1e-9);
    EXPECT_NEAR(gpumc.energy, gpumc.pe, 1e-10 * std::fabs(gpumc.pe));
  }
}

namespace {
// A chain of `fix` run for 4 timesteps on `first` ranks and written to a restart file, read and
// run for 6 more on `second` ranks (continued), and run for 10 unbroken on `second` ranks.
void restart_runs(int first, int second, const std::string &fix, ChainResult &continued, ChainResult &unbroken)
{
  const std::string file = shared_file("restart");
  {
    RankGroup group(first);
    if (group.member()) {
      LammpsSession s({}, &group.comm);
      s.cmd(lj_setup());
      checkerboard_run(s, fix, 4);
      s.cmd("write_restart " + file);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  {
    RankGroup group(second);
    if (group.member()) {
      LammpsSession s({}, &group.comm);
      s.cmd("read_restart " + file + "\n" + LJ_PAIRS);
      continued = checkerboard_run(s, fix, 6);
    }
  }
  {
    RankGroup group(second);
    if (group.member()) {
      LammpsSession s({}, &group.comm);
      s.cmd(lj_setup());
      unbroken = checkerboard_run(s, fix, 10);
    }
  }
  if (world_rank() == 0) std::remove(file.c_str());
}
}    // namespace

TEST(MpiCheckerboard, RestartFromTwoRanksContinuesOnFour)
{
  ChainResult continued, unbroken;
  restart_runs(2, 4, LJ_FIX, continued, unbroken);
  if (world_rank() != 0) return;
  EXPECT_EQ(continued.trials, unbroken.trials);
  EXPECT_EQ(continued.accepted, unbroken.accepted);
  EXPECT_EQ(max_difference(continued.x, unbroken.x), 0.0);
}

// Ghosts frozen on 2 and 4 ranks: every trial reads ghosts that their owners hold still, or the
// rank's own periodic images, moved with their atoms, so the running energy stays compute pe's
// and the energy checks find no drift (a trial that read a ghost another rank had moved, or a
// stale image, would break both). The trials are those of the cells below each block's upper
// layer along the sides that several ranks split: blocks of 2 x 4 x 4 cells on 2 ranks (processors
// 2 1 1: 16 of 32 cells move), 2 x 2 x 4 on 4 ranks (2 2 1: 4 of 16), about 32 atoms a cell. NVT
// (one grid per invocation) and NPT (a grid after each volume move).
TEST(MpiFrozenGhosts, KeepTheEnergyAndTryTheCellsBelowTheStillLayers)
{
  ASSERT_EQ(world_size(), 4) << "run with mpirun -np 4";
  for (const char *fix : {LJ_FIX, LJ_NPT_FIX}) {
    std::map<int, ChainResult> runs;
    for (int nranks : {2, 4}) {
      RankGroup group(nranks);
      if (!group.member()) continue;
      LammpsSession s({}, &group.comm);
      s.cmd(lj_setup());
      runs[nranks] = checkerboard_run(s, with_frozen_ghosts(fix), 10);
    }
    if (world_rank() != 0) continue;
    SCOPED_TRACE(fix);
    const double sweeps_trials = 20.0 * 2048;
    for (int nranks : {2, 4}) {
      const ChainResult &r = runs[nranks];
      const double moving = nranks == 2 ? 16.0 / 32.0 : 4.0 / 16.0;
      EXPECT_GT(r.trials, 0.85 * moving * sweeps_trials) << nranks << " ranks";
      EXPECT_LT(r.trials, 1.15 * moving * sweeps_trials) << nranks << " ranks";
      EXPECT_GT(r.accepted, 0.2 * r.trials) << nranks << " ranks";
      EXPECT_NEAR(r.energy, r.pe, 1e-10 * std::fabs(r.pe)) << nranks << " ranks";
      EXPECT_LT(r.drift, 1e-9 * std::fabs(r.pe)) << nranks << " ranks";
    }
  }
}

// Alternating ghosts on 2 and 4 ranks: the still layers at the upper or lower walls, side by side
// in turn, the ghosts refreshed between sweeps. The running energy stays compute pe's, with no
// drift, the same share of cells is tried per sweep as with frozen ghosts, and every cell moves
// in one sweep of two (2 ranks, one side split) or four (4 ranks, two): after one invocation of 20
// sweeps almost every atom has moved (each was tried 10 or 5 times), while with frozen ghosts
// those of the still layers (half the atoms on 2 ranks, three quarters on 4) end where they began.
TEST(MpiAlternateGhosts, KeepTheEnergyAndMoveEveryAtomInAnInvocation)
{
  ASSERT_EQ(world_size(), 4) << "run with mpirun -np 4";
  std::string fix = LJ_FIX;
  fix.replace(fix.find("gpumc/nvt 2 "), 12, "gpumc/nvt 20 ");
  std::map<std::string, double> unmoved;
  std::map<std::string, ChainResult> runs;
  for (int nranks : {2, 4})
    for (const char *setting : {"frozen", "alternate"}) {
      const std::string key = std::to_string(nranks) + " ranks, ghosts " + setting;
      RankGroup group(nranks);
      if (!group.member()) continue;
      LammpsSession s({}, &group.comm);
      s.cmd(lj_setup());
      const std::vector<double> before = s.gathered_positions();
      runs[key] = checkerboard_run(s, with_frozen_ghosts(fix.c_str(), setting), 1);
      int still = 0;
      for (size_t a = 0; a < before.size() / 3; a++) {
        double moved = 0.0;
        for (int d = 0; d < 3; d++)
          moved = std::max(moved, std::fabs(std::remainder(runs[key].x[3 * a + d] - before[3 * a + d], LJ_SIDE)));
        still += moved < 1e-9;
      }
      unmoved[key] = still / (before.size() / 3.0);
    }
  if (world_rank() != 0) return;
  for (int nranks : {2, 4}) {
    const std::string frozen = std::to_string(nranks) + " ranks, ghosts frozen",
                      alternate = std::to_string(nranks) + " ranks, ghosts alternate";
    const ChainResult &r = runs[alternate];
    const double moving = nranks == 2 ? 16.0 / 32.0 : 4.0 / 16.0, trials = 20.0 * 2048;
    EXPECT_GT(r.trials, 0.85 * moving * trials) << alternate;
    EXPECT_LT(r.trials, 1.15 * moving * trials) << alternate;
    EXPECT_NEAR(r.energy, r.pe, 1e-10 * std::fabs(r.pe)) << alternate;
    EXPECT_LT(r.drift, 1e-9 * std::fabs(r.pe)) << alternate;
    EXPECT_GT(unmoved[frozen], nranks == 2 ? 0.45 : 0.7) << frozen;
    EXPECT_LT(unmoved[alternate], nranks == 2 ? 0.06 : 0.2) << alternate;
    std::printf("%s: %.3f of the atoms unmoved; %s: %.3f\n", frozen.c_str(), unmoved[frozen], alternate.c_str(),
                unmoved[alternate]);
  }
}

// With ghosts frozen the chain depends on the decomposition, not on where runs and restarts split it.
TEST(MpiFrozenGhosts, RestartContinuesTheChain)
{
  ChainResult continued, unbroken;
  restart_runs(4, 4, with_frozen_ghosts(LJ_FIX), continued, unbroken);
  if (world_rank() != 0) return;
  EXPECT_GT(unbroken.accepted, 0.0);
  EXPECT_EQ(continued.trials, unbroken.trials);
  EXPECT_EQ(continued.accepted, unbroken.accepted);
  EXPECT_EQ(max_difference(continued.x, unbroken.x), 0.0);
}

// Widom's insertions shared among the ranks: the block's mean Boltzmann factor of 1 rank.
TEST(MpiWidom, InsertionsSplitAcrossRanksGiveTheOneRankValue)
{
  std::map<int, double> factor;
  for (int nranks : {1, 2, 4}) {
    RankGroup group(nranks);
    if (!group.member()) continue;
    LammpsSession s({}, &group.comm);
    s.cmd(lj_setup());
    s.cmd("displace_atoms all random 0.1 0.1 0.1 99\ncompute w all widom 2 3000 1.2 1001\nrun 0");
    factor[nranks] = s.compute_vector("w", 3);
  }
  if (world_rank() != 0) return;
  EXPECT_GT(factor[1], 0.0);
  for (int nranks : {2, 4}) EXPECT_NEAR(factor[nranks], factor[1], 1e-12 * factor[1]) << nranks << " ranks";
}

// Three ranks along x: the grid is a multiple of 6 (rc 2.2: six cells of 2.24), not the one
// process's (also 6 here, so the chain must still be the one process's); energies stay pe's.
TEST(MpiCheckerboard, ThreeRanksAlongOneSide)
{
  std::map<int, ChainResult> runs;
  for (int nranks : {1, 3}) {
    RankGroup group(nranks);
    if (!group.member()) continue;
    LammpsSession s({}, &group.comm);
    s.cmd(std::string(nranks == 3 ? "processors 3 1 1\n" : "") + lj_setup() +
          "pair_style lj/cut 2.2\npair_coeff * * 1.0 1.0\npair_modify shift yes\n");
    runs[nranks] = checkerboard_run(s, LJ_FIX, 5);
  }
  if (world_rank() != 0) return;
  EXPECT_EQ(runs[3].accepted, runs[1].accepted);
  EXPECT_LT(max_difference(runs[3].x, runs[1].x, LJ_SIDE), 1e-9);
  EXPECT_NEAR(runs[3].energy, runs[3].pe, 1e-10 * std::fabs(runs[3].pe));
}

// Where LAMMPS's exchange (one subdomain per dimension) can take an atom: from the rank at place
// loc of procs equal subdomains of [0, 8), its own subdomain and its two neighbours' (periodic),
// every place along 3 processes or fewer.
TEST(MpiCheckerboard, OneExchangeReachesTheNeighbouringSubdomainsOnly)
{
  using LAMMPS_NS::GPUMC::within_one_subdomain;
  if (world_rank() != 0) return;
  // 4 subdomains 2 wide; rank at place 0 owns [0, 2), its neighbours [2, 4) and [6, 8)
  EXPECT_TRUE(within_one_subdomain(0.5, 0.0, 8.0, 4, 0));
  EXPECT_TRUE(within_one_subdomain(3.9, 0.0, 8.0, 4, 0));
  EXPECT_TRUE(within_one_subdomain(6.1, 0.0, 8.0, 4, 0));
  EXPECT_FALSE(within_one_subdomain(4.1, 0.0, 8.0, 4, 0));
  EXPECT_FALSE(within_one_subdomain(5.9, 0.0, 8.0, 4, 0));
  // the rank at place 2 ([4, 6)): [2, 8) reachable, [0, 2) not
  EXPECT_TRUE(within_one_subdomain(2.1, 0.0, 8.0, 4, 2));
  EXPECT_TRUE(within_one_subdomain(7.9, 0.0, 8.0, 4, 2));
  EXPECT_FALSE(within_one_subdomain(1.0, 0.0, 8.0, 4, 2));
  // a box not at the origin; walls within the margin count as out of reach
  EXPECT_TRUE(within_one_subdomain(-7.0, -10.0, 16.0, 8, 0));
  EXPECT_FALSE(within_one_subdomain(-6.0 + 1e-12, -10.0, 16.0, 8, 0));
  EXPECT_FALSE(within_one_subdomain(4.0 - 1e-12, -10.0, 16.0, 8, 0));
  EXPECT_TRUE(within_one_subdomain(4.0 + 1e-3, -10.0, 16.0, 8, 0));
  // periodic images: one box length up is the rank's own subdomain, one subdomain down its neighbour's
  EXPECT_TRUE(within_one_subdomain(8.5, 0.0, 8.0, 4, 0));
  EXPECT_TRUE(within_one_subdomain(-1.0, 0.0, 8.0, 4, 0));
  EXPECT_FALSE(within_one_subdomain(-3.0, 0.0, 8.0, 4, 0));
  // 3 or fewer along a dimension: every subdomain is a neighbour's
  EXPECT_TRUE(within_one_subdomain(5.0, 0.0, 8.0, 3, 0));
  EXPECT_TRUE(within_one_subdomain(5.0, 0.0, 8.0, 1, 0));
}

// Four ranks along x, ghosts frozen, and a fix that moves every atom by -0.75 along x between
// invocations (fix move, 50 timesteps; the skin of 2.0 keeps LAMMPS from reneighboring before the
// next invocation). An invocation's translation (up to two cells, -3.36, in blocks of two cells)
// then takes atoms that left their subdomains through the lower wall two subdomains away, beyond
// LAMMPS's exchange (here in 2 of the 50 invocations; without the fix sending the atoms home first,
// 393 atoms were lost).
// A lost atom would stop the run (thermo_modify lost error, LAMMPS's default); the running energy
// stays compute pe's.
TEST(MpiCheckerboard, FourRanksAlongOneSideKeepEveryAtomThatAnotherFixMoved)
{
  RankGroup group(4);
  LammpsSession s({}, &group.comm);
  s.cmd(std::string("processors 4 1 1\n") + lj_setup() +
        "pair_style lj/cut 1.6\npair_coeff * * 1.0 1.0\npair_modify shift yes\nneighbor 2.0 bin\n"
        "fix drift all move linear -3.0 0.0 0.0\n");
  const std::string fix = with_frozen_ghosts("comm_modify cutoff 3.5\nthermo_modify norm no\n"
                                             "fix mc all gpumc/nvt 10 1.2 4321 algorithm checkerboard displace 0.15 "
                                             "tune no check 3 every 50\n");
  const ChainResult r = checkerboard_run(s, fix, 2500);
  if (world_rank() != 0) return;
  EXPECT_GT(r.accepted, 0.0);
  EXPECT_NEAR(r.energy, r.pe, 1e-10 * std::fabs(r.pe));
}

// What cannot run on several ranks says so, and what to do.
TEST(MpiErrors, UnsupportedSetupsNameTheProblem)
{
  RankGroup group(4);
  const std::string setup = lj_setup();
  struct Case {
    const char *lines, *expected;
  };
  const Case cases[] = {
      {"fix mc all gpumc/nvt 1 1.2 5 algorithm sequential\nrun 1", "algorithm checkerboard runs on several"},
      {"fix mc all gpumc/npt 1 1.2 1.0 5\nrun 1", "algorithm checkerboard runs on several"},
      {"fix mc all gpumc/nvt 1 1.2 5 algorithm checkerboard\nrun 1", "comm_modify cutoff"},
      {"comm_modify cutoff 3.5\ncomm_style tiled\nfix mc all gpumc/nvt 1 1.2 5 algorithm checkerboard\nrun 1",
       "equal subdomains"},
  };
  for (const auto &c : cases) {
    LammpsSession s({}, &group.comm);
    s.cmd(setup);
    const std::string err = s.error_of(c.lines);
    if (world_rank() == 0) EXPECT_NE(err.find(c.expected), std::string::npos) << c.lines << "\n -> " << err;
  }
  {
    // ghosts frozen on blocks one cell wide (4 ranks along x, 4 cells per side): nothing could move
    LammpsSession s({}, &group.comm);
    s.cmd(std::string("processors 4 1 1\n") + setup);
    const std::string err = s.error_of(with_frozen_ghosts(LJ_FIX) + "run 1");
    if (world_rank() == 0) EXPECT_NE(err.find("at least 2 checkerboard cells per process"), std::string::npos) << err;
  }
  {
    LammpsSession s({}, &group.comm);
    s.cmd(std::string("processors 4 1 1\n") + setup);
    const std::string err = s.error_of(with_frozen_ghosts(LJ_FIX, "alternate") + "run 1");
    if (world_rank() == 0)
      EXPECT_NE(err.find("ghosts alternate needs at least 2 checkerboard cells per process"), std::string::npos) << err;
  }
  {
    // MD that blows up one atom between two invocations: LAMMPS's message on every rank, the
    // others stopped by the one that owns it
    LammpsSession s({}, &group.comm);
    s.cmd(setup);
    const std::string err = s.error_of(
        "comm_modify cutoff 3.5\nvariable inf atom 1e300*1e300\ngroup bad id 1\nset group bad vx v_inf\n"
        "fix md all nve\nneigh_modify delay 0 every 100 check no\n"
        "fix mc all gpumc/nvt 1 1.2 5 algorithm checkerboard every 2 velocities keep\nrun 4");
    EXPECT_NE(err.find("fix gpumc/nvt: Non-numeric atom coords"), std::string::npos) << "rank " << world_rank() << ": " << err;
  }
  // four ranks along x: the cells per side (at least rc = 4 wide, box 13.4) would have to be a
  // multiple of 4; one rank still runs (two cells)
  LammpsSession s({}, &group.comm);
  s.cmd(std::string("processors 4 1 1\n") + setup + "pair_style lj/cut 4.0\npair_coeff * * 1.0 1.0\ncomm_modify cutoff 7\n");
  const std::string err = s.error_of("fix mc all gpumc/nvt 1 1.2 5 algorithm checkerboard\nrun 1");
  if (world_rank() == 0) EXPECT_NE(err.find("multiple of the processor grid"), std::string::npos) << err;
}

int main(int argc, char **argv)
{
  return run_mpi_tests(argc, argv);
}
