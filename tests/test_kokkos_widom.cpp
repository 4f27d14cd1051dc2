// compute widom/kk: the ideal and dilute gas, the staged kernel against one that walks every cell,
// and mixed against double precision at the same insertion points.

#include "kokkos_support.h"
#include "virial.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

TEST(Kokkos, WidomIdealGasAndDiluteGas)
{
  {
    LammpsSession s(kokkos_args(true));
    s.cmd("units lj\natom_style atomic\nregion box block 0 8 0 8 0 8\ncreate_box 2 box\n"
          "create_atoms 1 random 200 5 NULL\ncreate_atoms 2 random 100 6 NULL\nmass * 1.0\n"
          "pair_style lj/cut 2.5\npair_coeff * * 0.0 1.0\ncompute w all widom 2 5000 1.3 77\n"
          "thermo_style custom step c_w[2]\nrun 0");
    EXPECT_EQ(s.compute_vector("w", 1), 0.0);
    EXPECT_EQ(s.compute_vector("w", 3), 1.0);
    EXPECT_GE(s.compute_vector("w", 4), 5000.0);
  }
  const int natoms = 100;
  const double rho = 0.005, T = 2.0, rc = 3.0, L = std::cbrt(natoms / rho);
  LammpsSession s(kokkos_args(true));
  s.cmd(fmt::format("units lj\natom_style atomic\nregion box block 0 {0} 0 {0} 0 {0}\ncreate_box 1 box\n"
                    "create_atoms 1 random {1} 8 NULL overlap 1.0\nmass 1 1.0\npair_style lj/cut {2}\n"
                    "pair_coeff 1 1 1.0 1.0\nfix mc all gpumc/nvt 2 {3} 13\nthermo 100000\nrun 200\n"
                    "compute w all widom 1 100000 {3} 21\nthermo_style custom step c_w[2] c_w[3]\nthermo 5\nrun 400",
                    L, natoms, rc, T));
  const auto mayer = virial::lj_mayer(1.0 / T, rc);
  const double rho_actual = natoms / (L * L * L);
  const double expected =
      (2.0 * virial::b2(mayer, rc) * rho_actual + 1.5 * virial::b3(mayer, rc) * rho_actual * rho_actual) * T;
  const double mu = s.compute_vector("w", 1), err = s.compute_vector("w", 2);
  std::printf("kk dilute LJ: mu_ex = %.6f +- %.6f, virial %.6f\n", mu, err, expected);
  EXPECT_LT(err, 0.02 * std::fabs(expected));
  EXPECT_NEAR(mu, expected, 4.0 * err);
}

// The default Widom kernel stages, per insertion box (a cell of the cell list, or 1/8 or 1/27 of
// one: EngineOptions::widom_split 1 to 3; by default the engine chooses), only the atoms within
// the cutoff of the box; the simple one (EngineOptions::widom_walk_cells) lets each insertion walk every
// cell of its window. Both draw the same points, so in double precision their mean Boltzmann
// factors agree to round-off.
TEST(Kokkos, WidomStagedKernelMatchesTheSimpleOne)
{
  struct Case {
    std::string setup;
    int type;
    double temperature;
  };
  const Case cases[] = {{fmt::format(SIO2, ""), 2, 4000.0},
                        {fmt::format(LJ_MIX, ""), 3, 1.2},
                        {fmt::format(CHARGED, ""), 2, 4000.0}};
  for (const auto &c : cases) for (const int split : {0, 1, 2, 3}) {    // 0: the engine's choice
    double factor[2];
    for (int simple = 0; simple < 2; simple++) {
      LammpsSession s(kokkos_args(true));
      s.cmd(c.setup + fmt::format("displace_atoms all random 0.3 0.3 0.3 71 units box\n"
                                  "compute w all widom {} 100000 {} 77\nthermo_style custom step c_w[4]",
                                  c.type, c.temperature));
      engine_options(s, "w").widom_walk_cells = simple;
      engine_options(s, "w").widom_split = split;
      s.cmd("run 0");
      factor[simple] = s.compute_vector("w", 3);
    }
    std::printf("type %d, split %d: <exp(-beta dU)> staged %.15g, simple %.15g\n", c.type, split, factor[0],
                factor[1]);
    EXPECT_GT(factor[0], 0.0);
    EXPECT_NEAR(factor[0], factor[1], 1e-12 * factor[1]) << "type " << c.type << ", split " << split;
  }
}

// precision mixed: the same insertion points as double precision (the same random numbers), pair
// terms in float. The mean Boltzmann factor agrees to well within float round-off of the pair
// energies (about 1e-6 eV here against kT = 0.34 eV), for Morse and for three LJ types.
TEST(Kokkos, MixedPrecisionWidomMatchesDouble)
{
  struct Case {
    std::string name, setup;
    int type;
    double temperature;
  };
  const Case cases[] = {{"sio2 O", fmt::format(SIO2, ""), 2, 4000.0},
                        {"sio2 Si", fmt::format(SIO2, ""), 1, 4000.0},
                        {"lj mix type 3", fmt::format(LJ_MIX, ""), 3, 1.2}};
  for (const auto &c : cases) {
    double factor[2];
    for (int mixed = 0; mixed < 2; mixed++) {
      LammpsSession s(kokkos_args(true));
      s.cmd(c.setup + fmt::format("displace_atoms all random 0.3 0.3 0.3 71 units box\n"
                                  "compute w all widom {} 200000 {} 77 precision {}\n"
                                  "thermo_style custom step c_w[4]\nrun 0",
                                  c.type, c.temperature, mixed ? "mixed" : "double"));
      factor[mixed] = s.compute_vector("w", 3);
    }
    SCOPED_TRACE(c.name);
    std::printf("%s: <exp(-beta dU)> double %.10g, mixed %.10g, relative difference %.2e\n", c.name.c_str(),
                factor[0], factor[1], std::fabs(factor[1] / factor[0] - 1.0));
    EXPECT_GT(factor[0], 0.0);
    EXPECT_NEAR(factor[1], factor[0], 1e-5 * factor[0]);
  }
}
