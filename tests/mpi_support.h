// What the MPI tests share (test_mpi.cpp, test_mpi_kokkos.cpp): LAMMPS sessions on the first ranks
// of the world, an LJ liquid that every rank count splits alike, and a checkerboard run's results.
#pragma once

#include "lammps_session.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace mpi_support {

inline int world_rank()
{
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size()
{
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// LAMMPS on the first `nranks` ranks of the world; the others get no session.
struct RankGroup {
  MPI_Comm comm = MPI_COMM_NULL;
  explicit RankGroup(int nranks)
  {
    MPI_Comm_split(MPI_COMM_WORLD, world_rank() < nranks ? 0 : MPI_UNDEFINED, world_rank(), &comm);
  }
  ~RankGroup()
  {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
  bool member() const { return comm != MPI_COMM_NULL; }
};

// LJ liquid, 2048 atoms, rc 2.5 in a box of 13.4: four checkerboard cells per side (3.36 wide),
// which 1, 2 and 4 ranks split alike; the ghost cutoff must cover a cell. The atoms are created
// once, on one rank, and read by every run: create_atoms numbers them by rank.
inline const char *LJ_PAIRS = "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.8 1.1\n"
                       "pair_coeff 1 2 0.9 1.05\npair_modify shift yes\n";

// a file name all ranks share (rank 0's process ID in it)
inline std::string shared_file(const char *suffix)
{
  long pid = (long) getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return fmt::format("/tmp/gpumc_test_mpi_{}.{}", pid, suffix);
}

inline const std::string &lj_data()
{
  static const std::string file = [] {
    const std::string name = shared_file("data");
    RankGroup group(1);
    if (group.member()) {
      LammpsSession s({}, &group.comm);
      s.cmd("units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 8 0 8 0 8\ncreate_box 2 box\n"
            "create_atoms 1 box\nmass * 1.0\nset type 1 type/fraction 2 0.25 8\nwrite_data " + name);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return name;
  }();
  return file;
}

// the LJ mixture in a box of 9 fcc cells: 6 checkerboard cells per side, so 3 per rank where 2
// ranks split a side (a block whose first cell is odd, and still layers that leave 2 cells)
inline std::string lj_wide_setup()
{
  return "units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 9 0 9 0 9\ncreate_box 2 box\n"
         "create_atoms 1 box\nmass * 1.0\nset type 1 type/fraction 2 0.25 8\n" + std::string(LJ_PAIRS);
}

inline std::string lj_setup()
{
  return "units lj\natom_style atomic\nread_data " + lj_data() + "\n" + LJ_PAIRS;
}

struct ChainResult {
  std::vector<double> x;
  double trials = 0, accepted = 0, energy = 0, pe = 0, drift = 0, vaccepted = 0, volume = 0;
};

inline ChainResult checkerboard_run(LammpsSession &s, const std::string &extra, int steps)
{
  s.cmd(extra);
  s.cmd(fmt::format("run {}", steps));
  ChainResult r;
  r.x = s.gathered_positions();
  r.trials = s.fix_vector("mc", 0);
  r.accepted = s.fix_vector("mc", 1);
  r.energy = s.fix_scalar("mc");
  r.pe = s.thermo("pe");
  r.drift = s.fix_vector("mc", 7);
  r.vaccepted = s.fix_vector("mc", 9);
  r.volume = s.fix_vector("mc", 13);
  return r;
}

inline const char *LJ_FIX = "comm_modify cutoff 3.5\nthermo_modify norm no\n"
                     "fix mc all gpumc/nvt 2 1.2 4321 algorithm checkerboard displace 0.15 tune no check 3\n";
// volume moves too: the ghost cutoff leaves room for the box to grow
inline const char *LJ_NPT_FIX = "comm_modify cutoff 4.0\nthermo_modify norm no\n"
                         "fix mc all gpumc/npt 2 1.2 1.0 4321 algorithm checkerboard displace 0.15 vstep 0.02 "
                         "tune no check 3\n";

// a group of about half the atoms: the others stay where they are
inline const char *LJ_GROUP_FIX = "comm_modify cutoff 3.5\nthermo_modify norm no\nregion half block INF 6.7 INF INF INF INF\n"
                           "group half region half\n"
                           "fix mc half gpumc/nvt 2 1.2 4321 algorithm checkerboard displace 0.15 tune no check 3\n";

// a fix line of the above with ghosts frozen (one grid per invocation, the layer of cells at each
// subdomain's upper walls held still, no ghost refresh between colours), or another ghosts setting
inline std::string with_frozen_ghosts(const char *fix, const char *setting = "frozen")
{
  std::string f = fix;
  f.insert(f.rfind('\n'), std::string(" ghosts ") + setting);
  return f;
}

// largest difference of two position lists, as periodic images in a cubic box of side `side`
// (round-off can put an atom on a wall at the opposite wall), or plain differences if side is 0
inline double max_difference(const std::vector<double> &a, const std::vector<double> &b, double side = 0.0)
{
  double m = 0.0;
  for (size_t k = 0; k < a.size(); k++)
    m = std::max(m, std::fabs(side > 0.0 ? std::remainder(a[k] - b[k], side) : a[k] - b[k]));
  return m;
}

// side of the LJ data file's cubic box (8 fcc cells at rho* 0.8442)
inline const double LJ_SIDE = 8.0 * std::cbrt(4.0 / 0.8442);


// main() of an MPI test: rank 0 reports; the LJ data file is made before any test splits the ranks.
inline int run_mpi_tests(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (world_rank() != 0) delete ::testing::UnitTest::GetInstance()->listeners().Release(
      ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
  const std::string data = lj_data();
  const int failed = RUN_ALL_TESTS();
  if (world_rank() == 0) std::remove(data.c_str());
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}

}    // namespace mpi_support
