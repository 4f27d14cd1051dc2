// The /kk styles (Kokkos engine): energies against LAMMPS's compute pe computed by the pair
// styles' own /kk versions; the device chain and checkerboard sweeps against the host chain with the
// same seed (the same accept/reject sequence); volume moves, restarts, velocities and refused
// setups. Widom insertions: test_kokkos_widom.cpp.

#include "kokkos_support.h"

#include "update.h"
#include "virial.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

TEST(Kokkos, EnergiesEqualComputePeOfTheKokkosPairStyles)
{
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"lj", fmt::format(LJ_MIX, "")},
      {"lj shift", fmt::format(LJ_MIX, "pair_modify shift yes\n")},
      {"lj tail", fmt::format(LJ_MIX, "pair_modify tail yes\n")},
      {"morse sio2", fmt::format(SIO2, "")},
      {"morse sio2 shift", fmt::format(SIO2, "pair_modify shift yes\n")},
      {"charged hybrid/overlay", fmt::format(CHARGED, "")},
      // few atoms: a grid of 3 x 3 x 3 cells, so windows of 5 x 5 x 5 cells meet cells twice (the
      // energy kernel's rows of 5 cells wrap round the box in pieces)
      {"lj sparse", "units lj\natom_style atomic\nregion box block 0 6 0 7 0 9\ncreate_box 1 box\n"
                    "create_atoms 1 random 14 31 NULL overlap 0.9 maxtry 200\nmass * 1.0\n"
                    "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\nthermo_modify norm no\n"},
  };
  // the energy kernel splits a cell's candidates (its half window: 13 rows of cells) into parts in
  // small systems (by default 13 in these): several splits
  for (const int parts : {0, 1, 2, 3}) {    // 0: the engine's choice
    for (const auto &c : cases) {
      for (const char *fix : {"gpumc/nvt 2 {} 4711", "gpumc/npt 2 {} 1.0 4711"}) {
        LammpsSession s(kokkos_args(true));
        s.cmd(c.second);
        const bool metal = c.first.rfind("morse", 0) == 0 || c.first.rfind("charged", 0) == 0;
        // LAMMPS 4Feb2025's morse/kk ignores pair_modify shift (lammps/lammps#5182): there the
        // reference is LAMMPS's plain morse, switched in for one evaluation
        const bool plain_reference = c.first == "morse sio2 shift";
        auto reference_pe = [&]() {
          if (!plain_reference) return s.thermo("pe");
          s.cmd("suffix off\npair_style morse 9.0\npair_coeff 1 1 0.007695 2.0446 3.7598\n"
                "pair_coeff 1 2 1.99597 2.6518 1.628\npair_coeff 2 2 0.023272 1.3731 3.791\npair_modify shift yes\n"
                "run 0 post no");
          const double pe = s.thermo("pe");
          s.cmd("suffix on\npair_style morse 9.0\npair_coeff 1 1 0.007695 2.0446 3.7598\n"
                "pair_coeff 1 2 1.99597 2.6518 1.628\npair_coeff 2 2 0.023272 1.3731 3.791\npair_modify shift yes");
          return pe;
        };
        s.cmd("fix mc all " + fmt::format(fix, metal ? "4000.0" : "1.5"));
        engine_options(s, "mc").energy_parts = parts;
        s.cmd("run 0");
        const double e0 = s.fix_scalar("mc"), pe = reference_pe();
        EXPECT_NEAR(e0, pe, 1e-10 * std::fabs(pe)) << c.first << " " << fix << " parts " << parts;
        s.cmd("thermo 5\nrun 10");
        const double e1 = s.fix_scalar("mc"), pe2 = reference_pe();
        EXPECT_NE(pe2, pe);
        EXPECT_NEAR(e1, pe2, 1e-10 * std::fabs(pe2)) << c.first << " " << fix << " parts " << parts;
        EXPECT_GT(s.fix_vector("mc", 1), 0.0);
      }
    }
  }
}

// The strictly sequential device chain makes the same decisions as the host chain with the
// same seed: the same proposals (shared counter-based random numbers and proposal code), the same
// energies up to round-off in the order of the sums.
TEST(Kokkos, SameChainAsTheHostStyle)
{
  struct Case {
    std::string name, setup, style, args;
    int steps;
  };
  const std::string lj = fmt::format(LJ_MIX, ""), sio2 = fmt::format(SIO2, "");
  const Case cases[] = {
      {"lj nvt", lj, "gpumc/nvt", "10 1.2 777 tune no displace 0.2", 10},           // 21000 moves
      {"sio2 nvt", sio2, "gpumc/nvt", "2 4000.0 778 tune no displace 0.3", 2},      // 2916 moves
      {"lj npt tail", lj + "pair_modify tail yes\n", "gpumc/npt", "5 1.2 0.8 779 tune no vmoves 2", 4},
      {"charged npt", fmt::format(CHARGED, ""), "gpumc/npt", "2 4000.0 1000.0 784 tune no displace 0.1 vmoves 2", 2},
  };
  for (const auto &c : cases) {
    State host, device;
    for (int kk = 0; kk < 2; kk++) {
      // the same Kokkos run in both; the host style (suffix off for the fix) is the reference
      LammpsSession s(kokkos_args(true));
      s.cmd(c.setup + fmt::format("{}fix mc all {} {}\nsuffix on\nrun {}", kk ? "" : "suffix off\n", c.style, c.args,
                                  c.steps));
      (kk ? device : host) = capture(s);
    }
    SCOPED_TRACE(c.name);
    EXPECT_GT(host.fix[0], 2000.0);
    EXPECT_EQ(host.fix[0], device.fix[0]);    // trials
    EXPECT_EQ(host.fix[1], device.fix[1]);    // acceptances: the same decisions
    EXPECT_EQ(host.fix[9], device.fix[9]);    // volume acceptances
    EXPECT_EQ(host.image, device.image);
    EXPECT_LT(max_difference(host.x, device.x), 1e-9);
    EXPECT_LT(max_difference(host.box, device.box), 1e-9);
    EXPECT_NEAR(host.fix[5], device.fix[5], 1e-9 * std::fabs(host.fix[5]));    // energy
    std::printf("%s: %.0f trials, %.0f accepted on both; largest position difference %.2e\n", c.name.c_str(),
                host.fix[0], host.fix[1], max_difference(host.x, device.x));
  }
}

// The device evaluates the sequential chain in batches of moves at once and decides them in
// order, correcting each energy change for the moves accepted before it in the batch (or
// evaluating it again when its atom moved). The chain is the host's for every batch size: one
// move (strictly serial), a few, and more moves than an invocation makes (on a GPU, as many as
// the deciding team's scratch holds; EngineOptions::chain_batch). Two systems: SiO2, where
// nearly every move of a batch is near an earlier one, and a dilute gas with long steps, where
// most are not and an atom moved twice in a batch lands far from where its second move was
// evaluated (that move's actual positions then change later moves that its evaluated ones did not).
TEST(Kokkos, BatchedChainIsTheHostChainForEveryBatch)
{
  const std::string gas = "units lj\natom_style atomic\nregion box block 0 40 0 40 0 40\ncreate_box 1 box\n"
                          "create_atoms 1 random 500 515 NULL overlap 0.9 maxtry 100\nmass 1 1.0\n"
                          "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\nthermo_modify norm no\n";
  struct Case {
    std::string setup, fix, run;
  };
  const Case cases[] = {
      {fmt::format(SIO2, ""), "fix mc all gpumc/nvt 3 4000.0 4321 tune no displace 0.4\nsuffix on\n", "run 2"},
      {gas, "fix mc all gpumc/nvt 5 1.0 4322 tune no displace 6.0\nsuffix on\n", "run 4"},
  };
  for (const auto &c : cases) {
    State host;
    {
      LammpsSession s(kokkos_args(true));
      s.cmd(c.setup + "suffix off\n" + c.fix + c.run);
      host = capture(s);
    }
    for (const int batch : {1, 3, 64, 5000}) {
      LammpsSession s(kokkos_args(true));
      s.cmd(c.setup + c.fix);
      engine_options(s, "mc").chain_batch = batch;
      s.cmd(c.run);
      const State device = capture(s);
      SCOPED_TRACE(c.fix + ", batch " + std::to_string(batch));
      EXPECT_EQ(host.fix[0], device.fix[0]);
      EXPECT_EQ(host.fix[1], device.fix[1]);
      EXPECT_EQ(host.image, device.image);
      EXPECT_LT(max_difference(host.x, device.x), 1e-9);
      EXPECT_NEAR(host.fix[5], device.fix[5], 1e-9 * std::fabs(host.fix[5]));
      EXPECT_LT(device.fix[7], 1e-9 * std::fabs(device.fix[5]));    // running energy against a recomputation
    }
    EXPECT_GT(host.fix[1], 0.3 * host.fix[0]);
  }
}

// Checkerboard sweeps: the device runs the cells of a colour as parallel teams, the host one
// after another; the same proposals (shared geometry and random numbers) give the same decisions,
// whatever order the teams ran in. Grids of two cells per side (each cell its own neighbour on
// both sides) and of four (eight parallel cells per colour), NVT and NPT, teams of whole warps and
// not; also with one trial per group of threads and short candidate lists (engine options), so that a
// host backend too splits a cell's trials over several teams and lists candidates in several passes.
TEST(Kokkos, CheckerboardSameChainAsTheHostStyle)
{
  struct Case {
    std::string name, setup, style, args;
    int steps;
  };
  const std::string lj_big = "units lj\natom_style atomic\nlattice fcc 0.8\nregion box block 0 8 0 8 0 7\n"
                             "create_box 2 box\ncreate_atoms 1 box\nset type 1 type/ratio 2 0.3 17\nmass * 1.0\n"
                             "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\npair_coeff 2 2 0.8 0.9 2.2\n"
                             "thermo_modify norm no\n";
  const std::string sio2_big = "units metal\natom_style atomic\nvariable a equal (1.0/0.053679)^(1.0/3.0)\n"
                               "lattice sc $(v_a)\nregion box block 0 14 0 14 0 14\ncreate_box 2 box\n"
                               "create_atoms 1 box\nset type 1 type/ratio 2 0.6666667 4928\nmass 1 28.0855\n"
                               "mass 2 15.9994\npair_style morse 9.0\npair_coeff 1 1 0.007695 2.0446 3.7598\n"
                               "pair_coeff 1 2 1.99597 2.6518 1.628\npair_coeff 2 2 0.023272 1.3731 3.791\n"
                               "thermo_modify norm no\n";
  const Case cases[] = {
      {"lj mix, 2 cells", fmt::format(LJ_MIX, ""), "gpumc/nvt", "10 1.2 777 tune no displace 0.2", 5},
      {"lj, 4 cells", lj_big, "gpumc/nvt", "2 1.0 778 tune no displace 0.15", 5},
      {"sio2, 4 cells", sio2_big, "gpumc/nvt", "2 4000.0 779 tune no displace 0.3", 2},
      // teams of a size that is not a whole number of warps list candidates thread by thread (on a
      // GPU the kernel's generic path; teams of whole warps take its warp path)
      {"lj, 4 cells, team of no whole warps", lj_big, "gpumc/nvt",
       fmt::format("2 1.0 781 tune no displace 0.15 team {}", on_gpu() ? 48 : 2), 3},
      {"lj npt tail", fmt::format(LJ_MIX, "") + "pair_modify tail yes\n", "gpumc/npt",
       "5 1.2 0.8 780 tune no vmoves 2", 4},
      {"charged, 2 cells", fmt::format(CHARGED, ""), "gpumc/nvt", "3 4000.0 785 tune no displace 0.1", 2},
  };
  for (const auto &c : cases) for (const bool split : {false, true}) {
    State host, device;
    for (int kk = 0; kk < 2; kk++) {
      LammpsSession s(kokkos_args(true));
      s.cmd(c.setup + fmt::format("{}fix mc all {} {} algorithm checkerboard\nsuffix on",
                                  kk ? "" : "suffix off\n", c.style, c.args));
      if (kk && split) {
        engine_options(s, "mc").checker_trials = 1;
        engine_options(s, "mc").checker_list_rounds = 4;
      }
      s.cmd(fmt::format("run {}", c.steps));
      (kk ? device : host) = capture(s);
    }
    SCOPED_TRACE(c.name + (split ? ", trials split" : ""));
    EXPECT_GT(host.fix[0], 2000.0);
    EXPECT_EQ(host.fix[0], device.fix[0]);    // trials (picks of group atoms)
    EXPECT_EQ(host.fix[1], device.fix[1]);    // acceptances
    EXPECT_GT(host.fix[1], 0.2 * host.fix[0]);
    EXPECT_EQ(host.fix[9], device.fix[9]);
    EXPECT_EQ(host.image, device.image);
    EXPECT_LT(max_difference(host.x, device.x), 1e-9);
    EXPECT_LT(max_difference(host.box, device.box), 1e-9);
    EXPECT_NEAR(host.fix[5], device.fix[5], 1e-9 * std::fabs(host.fix[5]));
    EXPECT_LT(device.fix[7], 1e-8 * std::fabs(device.fix[5]));    // device running energy: no drift
    std::printf("checkerboard %s%s: %.0f trials, %.0f accepted on both; largest position difference %.2e\n",
                c.name.c_str(), split ? ", trials split" : "", host.fix[0], host.fix[1],
                max_difference(host.x, device.x));
  }
}

// Checkerboard sweeps are launched without the host waiting for each: a sweep whose cells outgrow
// the room measured before it stops the sweeps after it on the device, and they run again from it
// (EngineOptions::checker_no_room gives them no room, so that every sweep that is not measured
// takes that path). The chain is, to the last bit, the one whose sweeps are each measured before
// they run (EngineOptions::checker_measure_all), and the one of the default room.
TEST(Kokkos, CheckerboardSweepsThatOutgrowTheirRoomRunAgain)
{
  struct Case {
    std::string name, setup, style, args;
    int steps;
  };
  const Case cases[] = {
      {"sio2", fmt::format(SIO2, ""), "gpumc/nvt", "3 4000.0 611 tune no displace 0.3 check 4", 4},
      {"lj mix npt", fmt::format(LJ_MIX, ""), "gpumc/npt", "3 1.2 0.8 612 tune no vmoves 1", 3},
  };
  for (const auto &c : cases) {
    State runs[3];
    for (int mode = 0; mode < 3; mode++) {
      LammpsSession s(kokkos_args(true));
      s.cmd(c.setup + fmt::format("fix mc all {} {} algorithm checkerboard", c.style, c.args));
      engine_options(s, "mc").checker_measure_all = mode == 0;
      engine_options(s, "mc").checker_no_room = mode == 2;
      // two runs: the engine keeps its room from one to the next
      s.cmd(fmt::format("run {}\nrun {}", c.steps, c.steps));
      runs[mode] = capture(s);
    }
    for (int mode = 1; mode < 3; mode++) {
      SCOPED_TRACE(c.name + (mode == 1 ? ", default room" : ", no room"));
      EXPECT_GT(runs[0].fix[1], 0.0);
      EXPECT_EQ(runs[0].fix[0], runs[mode].fix[0]);    // trials
      EXPECT_EQ(runs[0].fix[1], runs[mode].fix[1]);    // acceptances
      EXPECT_EQ(runs[0].fix[5], runs[mode].fix[5]);    // running energy
      EXPECT_EQ(runs[0].x, runs[mode].x);
      EXPECT_EQ(runs[0].box, runs[mode].box);
      EXPECT_EQ(runs[0].image, runs[mode].image);
    }
  }
}

// Strong compression: the device chain has to stop, regrid (cells too narrow) and resume, and
// it still follows the host chain.
TEST(Kokkos, CompressionRegridsWithoutChangingTheChain)
{
  const std::string setup = "units lj\natom_style atomic\nregion box block 0 20 0 20 0 20\ncreate_box 1 box\n"
                            "create_atoms 1 random 300 9 NULL overlap 1.0\nmass 1 1.0\npair_style lj/cut 2.5\n"
                            "pair_coeff 1 1 1.0 1.0\nthermo_modify norm no\n";
  State host, device;
  for (int kk = 0; kk < 2; kk++) {
    LammpsSession s(kokkos_args(true));
    s.cmd(setup + fmt::format("{}fix mc all gpumc/npt 2 1.5 3.0 4242 tune no vmoves 10 vstep 0.3\nsuffix on\nrun 15",
                              kk ? "" : "suffix off\n"));
    (kk ? device : host) = capture(s);
  }
  EXPECT_LT(host.box[1] - host.box[0], 12.0);    // compressed well past the initial grid
  EXPECT_EQ(host.fix[1], device.fix[1]);
  EXPECT_EQ(host.fix[9], device.fix[9]);
  EXPECT_LT(max_difference(host.x, device.x), 1e-9);
}

// Cells without spare room: moves into a full cell stop the chain, which makes room and resumes
// (EngineOptions::cell_slack 0); the chain is still the host chain.
TEST(Kokkos, FullCellsGrowWithoutChangingTheChain)
{
  const std::string setup = fmt::format(LJ_MIX, "");
  State host, device;
  for (int kk = 0; kk < 2; kk++) {
    LammpsSession s(kokkos_args(true));
    s.cmd(setup + fmt::format("{}fix mc all gpumc/nvt 5 1.2 515 tune no displace 0.4\nsuffix on",
                              kk ? "" : "suffix off\n"));
    if (kk) engine_options(s, "mc").cell_slack = 0;
    s.cmd("run 4");
    (kk ? device : host) = capture(s);
  }
  EXPECT_EQ(host.fix[1], device.fix[1]);
  EXPECT_LT(max_difference(host.x, device.x), 1e-9);
}

// A team larger than the backend can run (here: more threads than the host pool, or than a GPU
// block holds) is a clear input error, not a Kokkos abort.
TEST(Kokkos, TeamLargerThanTheBackendIsAnError)
{
  for (const char *algorithm : {"sequential", "checkerboard"}) {
    LammpsSession s(kokkos_args(true));
    const std::string err = s.error_of(fmt::format(LJ_MIX, "") +
                                       fmt::format("fix mc all gpumc/nvt 1 1.0 5 algorithm {} team {}\nrun 1",
                                                   algorithm, on_gpu() ? 4096 : 3));
    EXPECT_NE(err.find("is larger than this Kokkos backend runs"), std::string::npos) << algorithm << ": " << err;
  }
}

// The checkerboard kernel indexes a cell's staged neighbourhood with 16-bit integers: a
// configuration with more atoms within reach of one cell is refused with a message, not indexed
// wrongly. 20000 atoms in a box of two cells per side put 27/8 of them (67500) in every
// neighbourhood; all but one have a tiny cutoff, so LAMMPS's own neighbour lists stay small.
TEST(Kokkos, CheckerboardRefusesTooManyAtomsWithinReachOfACell)
{
  LammpsSession s(kokkos_args(true));
  const std::string err = s.error_of(
      "units lj\natom_style atomic\nregion box block 0 5.2 0 5.2 0 5.2\ncreate_box 2 box\n"
      "create_atoms 2 random 20000 7 NULL\ncreate_atoms 1 single 1 1 1\nmass * 1.0\n"
      "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.0 0.01 0.05\npair_coeff 1 2 0.0 0.01 0.05\n"
      "neighbor 0.1 bin\nfix mc all gpumc/nvt 1 1.0 5 algorithm checkerboard\nrun 1");
  EXPECT_NE(err.find("more than 65535 atoms within reach of one checkerboard cell"), std::string::npos) << err;
}

TEST(Kokkos, IdealGasVolumeLogV)
{
  const int natoms = 20;
  const double P = 0.021;
  LammpsSession s(kokkos_args(true));
  s.cmd(fmt::format("units lj\natom_style atomic\nregion box block 0 10 0 10 0 10\ncreate_box 1 box\n"
                    "create_atoms 1 random {} 5 NULL\nmass 1 1.0\npair_style lj/cut 0.5\npair_coeff 1 1 0.0 1.0\n"
                    "fix mc all gpumc/npt 1 1.0 {} 31 volume logv vmoves 20 tune 1000\n"
                    "variable V equal vol\nthermo 100000\nrun 1000\nfix av all ave/time 1 1000 1000 v_V",
                    natoms, P));
  Blocks v;
  for (int b = 0; b < 15; b++) {    // on a GPU each volume trial of 20 atoms costs kernel launches
    s.cmd(fmt::format("run 1000 {}", b == 0 ? "post no" : "pre no post no"));
    v.add(s.fix_scalar("av"));
  }
  const double exact = (natoms + 1) / P;
  std::printf("kk logv: <V> = %.2f +- %.2f (exact %.2f)\n", v.mean(), v.standard_error(), exact);
  EXPECT_NEAR(v.mean(), exact, 4.0 * v.standard_error());
  EXPECT_LT(v.standard_error(), 0.02 * exact);
}

TEST(Kokkos, RestartContinuesTheIdenticalChain)
{
  const std::string file = testing::TempDir() + "gpumc_kk_restart.bin";
  const std::string setup = fmt::format(LJ_MIX, "pair_modify tail yes\n");
  for (const char *fix : {"gpumc/nvt/kk 10 1.2 5 tune 5", "gpumc/npt/kk 10 1.2 1.0 5 check 3 tune 5"}) {
    const std::string fixline = fmt::format("fix mc all {}\n", fix);
    State whole, split;
    {
      LammpsSession s(kokkos_args(true));
      s.cmd(setup + fixline + "run 20");
      whole = capture(s);
    }
    {
      LammpsSession s(kokkos_args(true));
      s.cmd(setup + fixline + "run 10\nwrite_restart " + file);
    }
    {
      LammpsSession s(kokkos_args(true));
      s.cmd("read_restart " + file + "\n" + fixline + "run 10");
      split = capture(s);
    }
    std::remove(file.c_str());
    SCOPED_TRACE(fix);
    EXPECT_EQ(whole.x, split.x);
    EXPECT_EQ(whole.box, split.box);
    EXPECT_EQ(whole.fix, split.fix);
  }
}

// run_style gpumc/kk (run_style gpumc with -sf kk): the chain of verlet/kk, with LAMMPS's
// energies on the steps with output (every 4) equal to the running energy
TEST(Kokkos, RunStyleGpumcMakesTheVerletChain)
{
  const std::string setup = fmt::format(LJ_MIX, "pair_modify tail yes\nthermo_modify norm no\nthermo 4\n"
                                        "variable pe equal pe\nvariable e equal f_mc\n");
  for (const char *fix : {"gpumc/nvt 2 1.2 5 tune 5 algorithm checkerboard", "gpumc/npt 3 1.2 1.0 5 tune 5",
                          "gpumc/npt 2 1.2 1.0 5 tune 5 algorithm checkerboard every 3"}) {
    SCOPED_TRACE(fix);
    State verlet, gpumc;
    for (const char *run_style : {"verlet", "gpumc"}) {
      LammpsSession s(kokkos_args(true));
      s.cmd(setup + fmt::format("fix mc all {}\nfix v all vector 4 v_pe v_e\nrun_style {}\nrun 20", fix, run_style));
      EXPECT_STREQ(s.lmp()->update->integrate_style, run_style == std::string("gpumc") ? "gpumc/kk" : "verlet/kk");
      for (int row = 0; row < 5; row++)
        EXPECT_NEAR(s.fix_array("v", row, 0), s.fix_array("v", row, 1), 1e-10 * std::fabs(s.fix_array("v", row, 0)));
      (run_style == std::string("gpumc") ? gpumc : verlet) = capture(s);
    }
    EXPECT_GT(verlet.fix[1], 0.0);
    EXPECT_EQ(verlet.fix, gpumc.fix);
    EXPECT_EQ(verlet.x, gpumc.x);
    EXPECT_EQ(verlet.box, gpumc.box);
  }
}

// Changed interactions (pair_coeff between two runs) start the running energy afresh, as a changed
// configuration does; and compute widom/kk makes the block of a timestep again when the
// configuration changed within it, as the host style does.
TEST(Kokkos, ChangesBetweenRunsAreSeen)
{
  {
    LammpsSession s(kokkos_args(true));
    s.cmd(fmt::format(LJ_MIX, "") + "fix mc all gpumc/nvt/kk 2 1.2 5\nrun 0");
    s.cmd("pair_coeff 1 1 1.3 1.0\nrun 0");
    const double pe = s.thermo("pe");
    EXPECT_NEAR(s.fix_scalar("mc"), pe, 1e-10 * std::fabs(pe));
  }
  const std::string compute = "compute w all widom 1 5000 1.2 77\nthermo_style custom step c_w[1]\n";
  const std::string remove = "group gone id 1:40\ndelete_atoms group gone\n";
  LammpsSession s(kokkos_args(true)), fresh(kokkos_args(true));
  s.cmd(fmt::format(LJ_MIX, "") + compute + "run 0");
  const double before = s.compute_vector("w", 0);
  s.cmd(remove + "run 0");
  fresh.cmd(fmt::format(LJ_MIX, "") + remove + compute + "run 0");
  EXPECT_NE(before, s.compute_vector("w", 0));
  EXPECT_EQ(s.compute_vector("w", 0), fresh.compute_vector("w", 0));
  EXPECT_EQ(s.compute_vector("w", 5), 1.0);
}

// The /kk styles draw the host styles' velocities at T (the same counter-based draws, the same
// momentum removal).
TEST(Kokkos, VelocitiesAreTheHostStyles)
{
  double ke[2];
  for (int kk = 0; kk < 2; kk++) {
    LammpsSession s(kokkos_args(true));
    s.cmd(fmt::format(LJ_MIX, "") + fmt::format("velocity all create 2.5 87 mom yes\n{}fix mc all gpumc/nvt 2 1.2 5\n"
                                                "suffix on\nthermo_style custom step ke\nrun 3",
                                                kk ? "" : "suffix off\n"));
    ke[kk] = s.thermo("ke");
  }
  EXPECT_GT(ke[0], 0.0);
  EXPECT_NEAR(ke[0], ke[1], 1e-12 * ke[0]);
}

TEST(Kokkos, NonConsecutiveAtomIdsAreRefused)
{
  LammpsSession s(kokkos_args(true));
  s.cmd(fmt::format(LJ_MIX, "") + "group gone id 5\ndelete_atoms group gone compress no\n");
  const std::string err = s.error_of("fix mc all gpumc/nvt 1 1.0 5\nrun 0");
  EXPECT_NE(err.find("requires consecutive atom IDs"), std::string::npos) << err;
}

// Two atoms at one place give lj/cut an infinite energy: the /kk styles stop with the host
// styles' message (the engine's energy, not the host's, is checked).
TEST(Kokkos, InfiniteEnergyIsRefused)
{
  for (const char *fix : {"gpumc/nvt 1 1.0 5", "gpumc/nvt 1 1.0 5 algorithm checkerboard", "gpumc/npt 1 1.0 1.0 5"}) {
    LammpsSession s(kokkos_args(true));
    s.cmd(fmt::format(LJ_MIX, "") + "create_atoms 1 single 1 1 1\ncreate_atoms 1 single 1 1 1\n");
    const std::string err = s.error_of(fmt::format("fix mc all {}\nrun 0", fix));
    EXPECT_NE(err.find("the energy of the configuration is inf"), std::string::npos) << fix << ": " << err;
  }
}

// Non-numeric coordinates stop the /kk styles with LAMMPS's message, checked on the device's
// positions: MD that blows up between two invocations (before LAMMPS's pbc and its check), and
// coordinates set between runs, at the next run's setup (DomainKokkos's pbc has no such check; on
// one GPU the check in setup_pre_exchange and the one in setup give the same message).
TEST(Kokkos, NonFiniteCoordinatesAreRefused)
{
  const std::string blow_up = "variable inf atom 1e300*1e300\nset group all vx v_inf\nfix md all nve\n"
                              "neigh_modify delay 0 every 100 check no\n";
  const std::pair<std::string, const char *> cases[] = {
      {blow_up + "fix mc all gpumc/nvt 1 1.0 5 every 2 velocities keep\nrun 4",
       "fix gpumc/nvt/kk: Non-numeric atom coords"},
      {blow_up + "fix mc all gpumc/nvt 1 1.0 5 algorithm checkerboard every 2 velocities keep\nrun 4",
       "fix gpumc/nvt/kk: Non-numeric atom coords"},
      {blow_up + "compute w all widom 1 100 1.0 5\nthermo_style custom step c_w\nthermo 2\nrun 4",
       "compute widom/kk: Non-numeric atom coords"},
      {"fix mc all gpumc/nvt 1 1.0 5\nrun 0\nvariable inf atom 1e300*1e300\nset group all x v_inf\nrun 1",
       "fix gpumc/nvt/kk: Non-numeric atom coords"}};
  for (const auto &[commands, expected] : cases) {
    LammpsSession s(kokkos_args(true));
    s.cmd(fmt::format(LJ_MIX, ""));
    const std::string err = s.error_of(commands);
    EXPECT_NE(err.find(expected), std::string::npos) << commands << ": " << err;
  }
}

// precision mixed in checkerboard sweeps: the running energy, summed from float pair terms, stays
// with the double recomputation (drift), and the LJ liquid's energy and pressure agree with
// double-precision sweeps of an independent chain within their error bars.
TEST(Kokkos, MixedPrecisionCheckerboardDriftAndAverages)
{
  {
    LammpsSession s(kokkos_args(true));
    s.cmd(fmt::format(SIO2, "") + "fix mc all gpumc/nvt 1 4000.0 5 algorithm checkerboard precision mixed "
                                  "check 5 tune 10\nthermo 100000\nrun 40");
    const double e = s.fix_vector("mc", 5), drift = s.fix_vector("mc", 7);
    std::printf("sio2 mixed: energy %.6f eV, max |drift| %.3g eV after %.0f accepted moves\n", e, drift,
                s.fix_vector("mc", 1));
    EXPECT_GT(s.fix_vector("mc", 1), 5000.0);
    EXPECT_GT(drift, 0.0);    // float pair terms: some round-off, seen by the check
    EXPECT_LT(drift, 1e-6 * std::fabs(e));
  }
  const std::string lj = "units lj\natom_style atomic\nlattice fcc 0.776\nregion box block 0 7 0 7 0 7\n"
                         "create_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\npair_style lj/cut 3.0\n"
                         "pair_coeff 1 1 1.0 1.0\nthermo 100000\ncompute pvir all pressure NULL virial\n"
                         "variable u equal pe\nvariable p equal c_pvir\n";    // lj units: pe per atom
  Blocks u[2], p[2];
  for (int mixed = 0; mixed < 2; mixed++) {
    LammpsSession s(kokkos_args(true));
    // blocks of 100 sweeps, as in test_checkerboard (shorter blocks are still correlated)
    s.cmd(lj + fmt::format("fix mc all gpumc/nvt 2 0.85 {} tune 150 algorithm checkerboard precision {}\nrun 500\n"
                           "fix av all ave/time 5 20 100 v_u v_p",
                           mixed ? 1234 : 4321, mixed ? "mixed" : "double"));
    for (int b = 0; b < 20; b++) {
      s.cmd(fmt::format("run 100 {}", b == 0 ? "post no" : "pre no post no"));
      u[mixed].add(s.fix_vector("av", 0));
      p[mixed].add(s.fix_vector("av", 1));
    }
    const double e = s.fix_vector("mc", 5), drift = s.fix_vector("mc", 7);
    std::printf("lj %s: U/N = %.5f +- %.5f, P_virial = %.4f +- %.4f, max |drift| %.2g of %.1f\n",
                mixed ? "mixed " : "double", u[mixed].mean(), u[mixed].standard_error(), p[mixed].mean(),
                p[mixed].standard_error(), drift, e);
    EXPECT_LT(drift, (mixed ? 1e-5 : 1e-8) * std::fabs(e));
  }
  for (Blocks *b : {u, p}) {
    const double se = std::sqrt(b[0].standard_error() * b[0].standard_error() +
                                b[1].standard_error() * b[1].standard_error());
    EXPECT_LT(std::fabs(b[0].mean() - b[1].mean()), 4.0 * se);
  }
  EXPECT_LT(u[0].standard_error(), 0.005);    // resolves the energy
}

// precision mixed needs the Kokkos engine's checkerboard kernel.
TEST(Kokkos, MixedPrecisionNeedsCheckerboardAndKokkos)
{
  {
    LammpsSession s(kokkos_args(true));
    const std::string err = s.error_of(fmt::format(LJ_MIX, "") + "fix mc all gpumc/nvt 1 1.0 5 precision mixed\nrun 1");
    EXPECT_NE(err.find("precision mixed requires algorithm checkerboard"), std::string::npos) << err;
  }
  {
    LammpsSession s(kokkos_args(true));
    const std::string err = s.error_of(fmt::format(LJ_MIX, "") + "suffix off\nfix mc all gpumc/nvt 1 1.0 5 "
                                                                 "algorithm checkerboard precision mixed\nrun 1");
    EXPECT_NE(err.find("is an option of the Kokkos style"), std::string::npos) << err;
  }
  {
    LammpsSession s(kokkos_args(true));
    const std::string err = s.error_of(fmt::format(LJ_MIX, "") + "compute w all widom 1 10 1.0 5 precision single");
    EXPECT_NE(err.find("precision takes double or mixed"), std::string::npos) << err;
  }
}

// pair_style table: the tables lie after the pair terms in the coefficient arrays every kernel
// reads (gpumc_pair_potential.h); energies against compute pe, and the device chain and
// checkerboard sweeps against the host's, for the SiO2 deck's Morse pairs written as tables
TEST(Kokkos, TableStylesEqualComputePeAndTheHostChain)
{
  const std::string file = testing::TempDir() + "gpumc_kk_morse.table";
  auto table_deck = [&](LammpsSession &s, const char *style) {
    s.cmd(fmt::format(SIO2, ""));
    std::string coeffs;
    for (int i = 1; i <= 2; i++)
      for (int j = i; j <= 2; j++) {
        s.cmd(fmt::format("pair_write {} {} 4000 r 1.0 9.0 {} M{}{}", i, j, file, i, j));
        coeffs += fmt::format("pair_coeff {} {} {} M{}{}\n", i, j, file, i, j);
      }
    s.cmd(fmt::format("pair_style table {}\n{}", style, coeffs));
  };
  for (const char *style : {"linear 1500", "spline 1000"})
    for (const char *algorithm : {"sequential", "checkerboard"}) {
      State host, device;
      for (int kk = 0; kk < 2; kk++) {
        LammpsSession s(kokkos_args(true));
        table_deck(s, style);
        s.cmd(fmt::format("{}fix mc all gpumc/nvt 2 4000.0 4711 tune no displace 0.3 algorithm {}\nsuffix on\nrun 0",
                          kk ? "" : "suffix off\n", algorithm));
        const double pe = s.thermo("pe");
        EXPECT_NEAR(s.fix_scalar("mc"), pe, 1e-10 * std::fabs(pe)) << style << " " << algorithm;
        s.cmd("thermo 1\nrun 2");
        const double pe2 = s.thermo("pe");
        EXPECT_NEAR(s.fix_scalar("mc"), pe2, 1e-10 * std::fabs(pe2)) << style << " " << algorithm;
        (kk ? device : host) = capture(s);
      }
      SCOPED_TRACE(std::string(style) + " " + algorithm);
      EXPECT_GT(host.fix[1], 0.0);
      EXPECT_EQ(host.fix[1], device.fix[1]);    // the same decisions
      EXPECT_LT(max_difference(host.x, device.x), 1e-9);
    }
  // mixed precision reads the float copy of the tables; Widom's mixed kernel cannot read them
  LammpsSession s(kokkos_args(true));
  table_deck(s, "spline 1000");
  s.cmd("fix mc all gpumc/nvt 2 4000.0 4711 algorithm checkerboard precision mixed\nthermo 1\nrun 2");
  const double pe = s.thermo("pe");
  EXPECT_NEAR(s.fix_scalar("mc"), pe, 1e-4 * std::fabs(pe));
  EXPECT_GT(s.fix_vector("mc", 1), 0.0);
  EXPECT_NE(s.error_of("compute w all widom 1 100 4000.0 5 precision mixed\nthermo_style custom step c_w[1]\nrun 0")
                .find("precision mixed does not support pair_style table"),
            std::string::npos);
  std::remove(file.c_str());
}
