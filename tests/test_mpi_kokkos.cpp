// The /kk styles on several MPI ranks (run with mpirun -np 2 or -np 4; on a GPU machine the ranks
// share the GPU): the Kokkos engine sweeps each rank's block of LAMMPS's decomposition, with CommKokkos
// moving the atoms, and makes the host styles' decisions on the same ranks (double precision);
// in mixed precision it tracks the one-process /kk chain. Rank 0 takes part in every run and
// compares.
#include "kokkos_support.h"
#include "mpi_support.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace mpi_support;

namespace {

// the Kokkos arguments for a run on several ranks: one thread per rank off the GPU
std::vector<std::string> kokkos_rank_args()
{
  std::vector<std::string> a = kokkos_args(true);
  for (size_t k = 0; k + 1 < a.size(); k++)
    if (a[k] == "t") a[k + 1] = "1";
  return a;
}

}    // namespace

// The host style and the /kk style on 2 or 4 ranks (4 split two sides): the same trials and
// decisions, positions equal to round-off, the running energy equal to compute pe. NVT, NPT and a
// group, and NVT and NPT with ghosts frozen and alternating, also in a box whose blocks are 3 cells
// deep (_wide: an odd first cell, two cells tried beside the still layer).
class MpiKokkosChain : public ::testing::TestWithParam<const char *> {};

TEST_P(MpiKokkosChain, MakesTheHostDecisions)
{
  ASSERT_GE(world_size(), 2) << "run with mpirun -np 2 or more";
  const std::string ensemble = GetParam();
  const bool npt = ensemble.rfind("npt", 0) == 0;
  std::string fix = npt ? LJ_NPT_FIX : (ensemble == "nvt_group" ? LJ_GROUP_FIX : LJ_FIX);
  if (ensemble.find("frozen") != std::string::npos) fix = with_frozen_ghosts(fix.c_str());
  if (ensemble.find("alternate") != std::string::npos) fix = with_frozen_ghosts(fix.c_str(), "alternate");
  const bool wide = ensemble.find("wide") != std::string::npos;
  const std::string setup = wide ? lj_wide_setup() : lj_setup();
  ChainResult host, kk;
  {
    LammpsSession s({}, nullptr);
    s.cmd(setup);
    host = checkerboard_run(s, fix, 10);
  }
  {
    LammpsSession s(kokkos_rank_args(), nullptr);
    s.cmd(setup);
    kk = checkerboard_run(s, fix, 10);
  }
  if (world_rank() != 0) return;
  EXPECT_GT(host.accepted, 0.2 * host.trials);
  if (npt) EXPECT_GT(host.vaccepted, 3.0);
  EXPECT_EQ(kk.trials, host.trials);
  EXPECT_EQ(kk.accepted, host.accepted);
  EXPECT_EQ(kk.vaccepted, host.vaccepted);
  EXPECT_NEAR(kk.volume, host.volume, 1e-10 * host.volume);
  EXPECT_LT(max_difference(kk.x, host.x, npt ? std::cbrt(host.volume) : (wide ? 9.0 : 8.0) / 8.0 * LJ_SIDE), 1e-9);
  EXPECT_NEAR(kk.energy, kk.pe, 1e-10 * std::fabs(kk.pe));
  EXPECT_LT(kk.drift, 1e-9 * std::fabs(kk.pe));
}

INSTANTIATE_TEST_SUITE_P(Ensembles, MpiKokkosChain,
                         ::testing::Values("nvt", "npt", "nvt_group", "nvt_frozen", "npt_frozen", "nvt_alternate",
                                           "npt_alternate", "nvt_frozen_wide", "nvt_alternate_wide"),
                         [](const ::testing::TestParamInfo<const char *> &info) { return std::string(info.param); });

// Mixed precision (pair terms in float, relative to each cell): on 2 ranks the chain of the
// one-process /kk sweeps, but for the rare decision that float round-off tips; the running energy
// stays within float round-off of compute pe.
TEST(MpiKokkos, MixedPrecisionTracksTheOneProcessChain)
{
  std::map<int, ChainResult> runs;
  for (int nranks : {1, 2}) {
    RankGroup group(nranks);
    if (!group.member()) continue;
    LammpsSession s(kokkos_rank_args(), &group.comm);
    s.cmd(lj_setup());
    s.cmd("comm_modify cutoff 3.5\nthermo_modify norm no\nfix mc all gpumc/nvt 2 1.2 4321 algorithm checkerboard "
          "displace 0.15 tune no check 3 precision mixed");
    runs[nranks] = checkerboard_run(s, "", 10);
  }
  if (world_rank() != 0) return;
  const ChainResult &one = runs[1], &two = runs[2];
  EXPECT_EQ(two.trials, one.trials);
  EXPECT_NEAR(two.accepted, one.accepted, 1e-3 * one.accepted);
  EXPECT_NEAR(two.energy, two.pe, 1e-5 * std::fabs(two.pe));
}

// A restart written by the /kk style on 2 ranks continues on 1 rank (the single-process engine)
// as the unbroken 2-rank chain does.
TEST(MpiKokkos, RestartFromTwoRanksContinuesOnOne)
{
  const std::string file = shared_file("restart");
  ChainResult unbroken, continued;
  {
    LammpsSession s(kokkos_rank_args(), nullptr);
    s.cmd(lj_setup());
    checkerboard_run(s, LJ_FIX, 4);
    s.cmd("write_restart " + file);
  }
  {
    RankGroup group(1);
    if (group.member()) {
      LammpsSession s(kokkos_rank_args(), &group.comm);
      s.cmd("read_restart " + file + "\n" + LJ_PAIRS);
      continued = checkerboard_run(s, LJ_FIX, 6);
    }
  }
  {
    LammpsSession s(kokkos_rank_args(), nullptr);
    s.cmd(lj_setup());
    unbroken = checkerboard_run(s, LJ_FIX, 10);
  }
  if (world_rank() != 0) return;
  std::remove(file.c_str());
  EXPECT_EQ(continued.trials, unbroken.trials);
  EXPECT_EQ(continued.accepted, unbroken.accepted);
  EXPECT_LT(max_difference(continued.x, unbroken.x, LJ_SIDE), 1e-9);
  EXPECT_NEAR(continued.energy, continued.pe, 1e-10 * std::fabs(continued.pe));
}

// compute widom/kk on 2 ranks: each makes the insertions of its share of the insertion boxes, and
// together they make those of one process (the result equal to round-off), in both precisions.
TEST(MpiKokkos, WidomInsertionsSplitAcrossRanksGiveTheOneRankValue)
{
  for (const char *precision : {"double", "mixed"}) {
    std::map<int, double> factor;
    for (int nranks : {1, 2}) {
      RankGroup group(nranks);
      if (!group.member()) continue;
      LammpsSession s(kokkos_rank_args(), &group.comm);
      s.cmd(lj_setup());
      s.cmd(fmt::format("displace_atoms all random 0.1 0.1 0.1 99\ncompute w all widom 2 3000 1.2 1001 precision {}\n"
                        "run 0", precision));
      factor[nranks] = s.compute_vector("w", 3);
    }
    if (world_rank() != 0) continue;
    EXPECT_GT(factor[1], 0.0) << precision;
    EXPECT_NEAR(factor[2], factor[1], 1e-12 * factor[1]) << precision;
  }
}

// On several ranks the sequential chain stops with an error that names the checkerboard.
TEST(MpiKokkos, SequentialChainNamesTheCheckerboard)
{
  LammpsSession s(kokkos_rank_args(), nullptr);
  s.cmd(lj_setup());
  const std::string err = s.error_of("fix mc all gpumc/nvt 1 1.2 5 algorithm sequential\nrun 1");
  if (world_rank() == 0) EXPECT_NE(err.find("algorithm checkerboard runs on several"), std::string::npos) << err;
}

// The host style with the KOKKOS package enabled (-k on; the fix defined after `suffix off`) runs
// on one process: its sweeps would move atoms on the host while CommKokkos works on the device's
// copies.
TEST(MpiKokkos, HostStyleWithKokkosEnabledNamesTheKkStyle)
{
  LammpsSession s(kokkos_rank_args(), nullptr);
  s.cmd(lj_setup());
  const std::string err = s.error_of("comm_modify cutoff 3.5\nsuffix off\n"
                                     "fix mc all gpumc/nvt 1 1.2 5 algorithm checkerboard\nrun 1");
  if (world_rank() == 0)
    EXPECT_NE(err.find("without -k on the host style runs on several"), std::string::npos) << err;
}

// compute widom/kk with an Ewald sum runs on one process; on more it says what does run there.
TEST(MpiKokkos, WidomWithEwaldNamesTheHostStyle)
{
  LammpsSession s(kokkos_rank_args(), nullptr);
  s.cmd("units lj\natom_style charge\nlattice fcc 0.8442\nregion box block 0 6 0 6 0 6\ncreate_box 2 box\n"
        "create_atoms 1 box\nmass * 1.0\nset type 1 type/ratio 2 0.5 8\nset type 1 charge 1.0\n"
        "set type 2 charge -1.0\npair_style lj/cut/coul/long 2.5\npair_coeff * * 1.0 1.0\npair_modify table 0\n"
        "kspace_style ewald 1e-4");
  const std::string err = s.error_of("compute w all widom 2 100 1.2 5\nthermo_style custom step c_w\nrun 0");
  if (world_rank() == 0) EXPECT_NE(err.find("the host style runs on several"), std::string::npos) << err;
}

// Non-numeric coordinates stop the /kk sweeps with LAMMPS's own message on every rank, the rank
// that owns the atom stopping the others: MD that blows up one atom between two invocations, with
// the staged exchange (the default without GPU-aware MPI) and with LAMMPS's (`comm host`), instead
// of a wrap into the box that would never end; and coordinates set between runs, at the next
// run's setup (before DomainKokkos's pbc, which has no such check, and the exchange).
TEST(MpiKokkos, NonFiniteCoordinatesStopTheSweeps)
{
  const std::string fix = "comm_modify cutoff 3.5\nvariable inf atom 1e300*1e300\ngroup bad id 1\n"
                          "fix mc all gpumc/nvt 1 1.2 4321 algorithm checkerboard every 2 velocities keep\n";
  for (const char *package : {"", "package kokkos neigh half newton on comm host\n"}) {
    LammpsSession s(kokkos_rank_args(), nullptr);
    s.cmd(std::string(package) + lj_setup());
    const std::string err = s.error_of(fix + "set group bad vx v_inf\nfix md all nve\n"
                                             "neigh_modify delay 0 every 100 check no\nrun 4");
    EXPECT_NE(err.find("fix gpumc/nvt/kk: Non-numeric atom coords"), std::string::npos)
        << package << "rank " << world_rank() << ": " << err;
  }
  LammpsSession s(kokkos_rank_args(), nullptr);
  s.cmd(lj_setup());
  const std::string err = s.error_of(fix + "run 0\nset group bad x v_inf\nrun 1");
  EXPECT_NE(err.find("fix gpumc/nvt/kk: Non-numeric atom coords"), std::string::npos)
      << "rank " << world_rank() << ": " << err;
}

int main(int argc, char **argv)
{
  return run_mpi_tests(argc, argv);
}
