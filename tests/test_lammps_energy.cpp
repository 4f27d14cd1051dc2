// GPUMC energies against LAMMPS's own `compute pe` (the thermo keyword pe): random
// multi-type configurations, every supported pair style (charged atoms for the Coulomb ones),
// hybrid and hybrid/overlay, per-pair cutoffs, mixing, shift and tail, and exact Ewald sums.

#include "gpumc_lammps.h"
#include "lammps_session.h"

#include "fmt/format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <ostream>
#include <string>

namespace {

struct Case {
  const char *name;
  const char *pair;    // pair_style, pair_coeff and pair_modify lines
  const char *units;
  double box;          // cubic box side
  double overlap;      // closest approach of the random atoms
  bool charged = false;    // atom_style charge, a charge per type
};

// pair styles of real atomistic decks, in metal units (charges of types 1, 2, 3: 1.2, -0.9, 0.3)
#define BORN_COEFF "pair_coeff 1 1 0.02 0.35 2.9 1.0 0.5\npair_coeff 2 2 0.1 0.3 2.5 2.0 1.0\n" \
                   "pair_coeff 3 3 0.05 0.25 2.0 0.5 0.2\npair_coeff 1 2 0.3 0.28 2.2 1.5 0.8\n" \
                   "pair_coeff 1 3 0.2 0.3 2.0 1.0 0.4\npair_coeff 2 3 0.1 0.3 2.3 0.8 0.3\n"
#define BUCK_COEFF "pair_coeff 1 1 1388.77 0.3623 175.0\npair_coeff 1 2 18003.76 0.2052 133.54\n" \
                   "pair_coeff 2 2 100.0 0.3 10.0\npair_coeff 1 3 500.0 0.3 20.0\npair_coeff 2 3 300.0 0.28 15.0\n" \
                   "pair_coeff 3 3 200.0 0.25 5.0\n"
#define LJ_METAL_COEFF "pair_coeff 1 1 0.01 2.5\npair_coeff 2 2 0.005 3.0 7.0\npair_coeff 3 3 0.002 2.8\n"

const Case CASES[] = {
    {"lj_plain", "pair_style lj/cut 2.5\n"
                 "pair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.7 1.2 2.2\npair_coeff 3 3 0.4 0.9 1.8\n"
                 "pair_coeff 1 2 0.5 1.1 2.4\npair_coeff 2 3 0.3 1.0 1.5\n",
     "lj", 9.0, 0.85},
    {"lj_shift", "pair_style lj/cut 2.5\n"
                 "pair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.7 1.2 2.2\npair_coeff 3 3 0.4 0.9 1.8\n"
                 "pair_coeff 1 2 0.5 1.1 2.4\npair_modify shift yes\n",
     "lj", 9.0, 0.85},
    {"lj_tail_arithmetic", "pair_style lj/cut 3.0\n"
                           "pair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.7 1.2 2.2\npair_coeff 3 3 0.4 0.9\n"
                           "pair_modify tail yes mix arithmetic\n",
     "lj", 9.5, 0.85},
    {"morse_plain", "pair_style morse 9.0\n"
                    "pair_coeff 1 1 0.023272 1.3731 3.791\npair_coeff 1 2 1.99597 2.6518 1.628\n"
                    "pair_coeff 2 2 0.007695 2.0446 3.7598\npair_coeff 3 3 0.05 1.5 3.0 6.0\n"
                    "pair_coeff 1 3 0.5 2.0 2.0 7.5\npair_coeff 2 3 0.2 1.8 2.5\n",
     "metal", 21.0, 1.4},
    {"morse_shift", "pair_style morse 9.0\n"
                    "pair_coeff 1 1 0.023272 1.3731 3.791\npair_coeff 1 2 1.99597 2.6518 1.628\n"
                    "pair_coeff 2 2 0.007695 2.0446 3.7598\npair_coeff 3 3 0.05 1.5 3.0 6.0\n"
                    "pair_coeff 1 3 0.5 2.0 2.0 7.5\npair_coeff 2 3 0.2 1.8 2.5\npair_modify shift yes\n",
     "metal", 21.0, 1.4},
    {"born_tail", "pair_style born 8.0\n" BORN_COEFF "pair_modify tail yes\n", "metal", 21.0, 1.4},
    {"buck_shift", "pair_style buck 8.0\n" BUCK_COEFF "pair_modify shift yes\n", "metal", 21.0, 1.4},
    {"mie_tail", "pair_style mie/cut 2.5\npair_coeff 1 1 1.0 1.0 12 6\npair_coeff 2 2 0.7 1.2 14 7 2.2\n"
                       "pair_coeff 3 3 0.4 0.9 10 5\npair_modify tail yes\n",
     "lj", 9.0, 0.85},
    {"yukawa_shift", "pair_style yukawa 2.0 2.5\npair_coeff * * 10.0\npair_coeff 2 3 5.0 2.0\npair_modify shift yes\n",
     "lj", 9.0, 0.85},
    {"soft", "pair_style soft 1.2\npair_coeff * * 10.0\npair_coeff 1 2 20.0 1.5\n", "lj", 9.0, 0.5},
    {"coul_cut", "pair_style coul/cut 8.0\npair_coeff * *\npair_coeff 2 3 9.0\n", "metal", 21.0, 1.4, true},
    {"coul_dsf", "pair_style coul/dsf 0.2 9.0\npair_coeff * *\n", "metal", 21.0, 1.4, true},
    {"coul_wolf", "pair_style coul/wolf 0.25 8.5\npair_coeff * *\n", "metal", 21.0, 1.4, true},
    {"lj_cut_coul_cut", "pair_style lj/cut/coul/cut 8.0 9.0\n" LJ_METAL_COEFF "pair_coeff 1 2 0.007 2.7 6.0 7.5\n"
                        "pair_modify shift yes\n",
     "metal", 21.0, 1.4, true},
    {"lj_cut_coul_dsf", "pair_style lj/cut/coul/dsf 0.2 8.0 9.0\n" LJ_METAL_COEFF "pair_modify tail yes\n",
     "metal", 21.0, 1.4, true},
    {"lj_cut_coul_wolf", "pair_style lj/cut/coul/wolf 0.2 8.0 9.0\n" LJ_METAL_COEFF "pair_modify shift yes\n",
     "metal", 21.0, 1.4, true},
    {"buck_coul_cut", "pair_style buck/coul/cut 8.0 9.0\n" BUCK_COEFF "pair_modify tail yes\n", "metal", 21.0,
     1.4, true},
    {"born_coul_dsf", "pair_style born/coul/dsf 0.2 8.0 9.0\n" BORN_COEFF "pair_modify shift yes\n", "metal", 21.0, 1.4,
     true},
    {"born_coul_wolf", "pair_style born/coul/wolf 0.25 8.0 9.0\n" BORN_COEFF, "metal", 21.0, 1.4, true},
    // a BKS-like silica deck: Buckingham, DSF Coulomb and a short-range repulsive correction
    {"hybrid_overlay", "pair_style hybrid/overlay buck 8.0 coul/dsf 0.2 9.0 lj/cut 4.0\n"
                       "pair_coeff * * buck 100.0 0.3 10.0\npair_coeff 1 2 buck 18003.76 0.2052 133.54\n"
                       "pair_coeff * * coul/dsf\npair_coeff 1 2 lj/cut 0.01 1.3\npair_modify shift yes\n",
     "metal", 21.0, 1.4, true},
    // a sub-style switched off with pair_modify compute no is left out, as LAMMPS leaves it out
    {"hybrid_overlay_compute_no", "pair_style hybrid/overlay lj/cut 8.0 morse 9.0\npair_coeff * * lj/cut 0.01 2.5\n"
                                  "pair_coeff * * morse 0.05 1.5 3.0\npair_modify pair morse compute no\n",
     "metal", 21.0, 1.4},
    // exact Ewald: the coul/long family with kspace_style ewald (the charges are not neutral, so
    // the neutralising background counts); a box of three different sides, so three kmax
    {"coul_long_ewald", "pair_style coul/long 9.0\npair_coeff * *\npair_modify table 0\nkspace_style ewald 1e-5\n",
     "metal", 21.0, 1.4, true},
    {"lj_cut_coul_long_ewald", "pair_style lj/cut/coul/long 8.0 9.0\n" LJ_METAL_COEFF
                               "pair_modify table 0 shift yes\nkspace_style ewald 1e-6\n",
     "metal", 21.0, 1.4, true},
    {"buck_coul_long_ewald", "pair_style buck/coul/long 8.0 9.0\n" BUCK_COEFF
                             "pair_modify table 0 tail yes\nkspace_style ewald 1e-5\n",
     "metal", 21.0, 1.4, true},
    {"born_coul_long_kmax", "pair_style born/coul/long 8.0 9.0\n" BORN_COEFF
                            "pair_modify table 0\nkspace_style ewald 1e-5\nkspace_modify kmax/ewald 5 7 4\n",
     "metal", 21.0, 1.4, true},
    {"hybrid_overlay_ewald", "pair_style hybrid/overlay buck 8.0 coul/long 9.0 lj/cut 4.0\n"
                             "pair_coeff * * buck 100.0 0.3 10.0\npair_coeff 1 2 buck 18003.76 0.2052 133.54\n"
                             "pair_coeff * * coul/long\npair_coeff 1 2 lj/cut 0.01 1.3\npair_modify table 0\n"
                             "kspace_style ewald 1e-5\n",
     "metal", 21.0, 1.4, true},
    // sub-styles for some pairs only: type 3 has no Wolf term, so no Wolf self energy
    {"hybrid", "pair_style hybrid morse 9.0 coul/wolf 0.25 8.5 lj/cut 8.0\n"
               "pair_coeff 1 1 coul/wolf\npair_coeff 1 2 coul/wolf\npair_coeff 2 2 morse 0.05 1.5 3.0\n"
               "pair_coeff 1 3 lj/cut 0.01 2.5\npair_coeff 2 3 none\npair_coeff 3 3 morse 0.02 1.3 3.5 7.0\n",
     "metal", 21.0, 1.4, true},
};

std::string setup_lines(const Case &c, int natoms_per_type, int seed)
{
  return fmt::format("units {}\natom_style {}\nregion box block 0 {} 0 {} 0 {}\ncreate_box 3 box\n"
                     "create_atoms 1 random {} {} NULL overlap {} maxtry 200\n"
                     "create_atoms 2 random {} {} NULL overlap {} maxtry 200\n"
                     "create_atoms 3 random {} {} NULL overlap {} maxtry 200\n"
                     "set group all type/ratio 3 0.3 {}\nset type 1 type/ratio 2 0.4 {}\n"    // types not in ID order
                     "mass * 1.0\n{}{}thermo_modify norm no\n",
                     c.units, c.charged ? "charge" : "atomic", c.box, 1.1 * c.box, 0.9 * c.box, natoms_per_type, seed,
                     c.overlap, natoms_per_type, seed + 1, c.overlap, natoms_per_type, seed + 2, c.overlap, seed + 3,
                     seed + 4, c.charged ? "set type 1 charge 1.2\nset type 2 charge -0.9\nset type 3 charge 0.3\n" : "", c.pair);
}

// readable names in test listings (not byte dumps)
void PrintTo(const Case &c, std::ostream *os)
{
  *os << c.name;
}

class EnergyVsComputePe : public ::testing::TestWithParam<Case> {};

}    // namespace

TEST_P(EnergyVsComputePe, SetupAndAfterMoves)
{
  const Case &c = GetParam();
  for (int seed : {101, 202}) {
    LammpsSession s;
    s.cmd(setup_lines(c, 70, seed));
    s.cmd("fix mc all gpumc/nvt 2 " + std::string(c.units[0] == 'l' ? "1.5" : "4000.0") + " 4711\nrun 0");
    const double pe = s.thermo("pe");
    EXPECT_NEAR(s.fix_scalar("mc"), pe, 1e-10 * std::fabs(pe)) << c.name;
    // after Monte Carlo sweeps the running energy still equals LAMMPS's
    s.cmd("thermo 5\nrun 10");
    const double pe2 = s.thermo("pe");
    EXPECT_NE(pe2, pe);
    EXPECT_NEAR(s.fix_scalar("mc"), pe2, 1e-10 * std::fabs(pe2)) << c.name;
    EXPECT_GT(s.fix_vector("mc", 1), 0.0);    // some moves accepted
  }
}

TEST_P(EnergyVsComputePe, MoveEnergyIsTheDifferenceOfFullEnergies)
{
  const Case &c = GetParam();
  LammpsSession s;
  s.cmd(setup_lines(c, 70, 303));
  s.cmd("run 0");
  LAMMPS_NS::LAMMPS *lmp = s.lmp();
  gpumc::HostSystem sys(LAMMPS_NS::GPUMC::pair_table(lmp, "test"));
  const auto conf = LAMMPS_NS::GPUMC::gather(lmp);
  sys.set_configuration(conf.x, conf.type, LAMMPS_NS::GPUMC::box(lmp));
  const double pe0 = s.thermo("pe");
  const double scale = 0.1 * c.box;
  for (int k = 0; k < 5; k++) {
    const int id = 1 + 37 * k;    // atoms are stored in ID order: index id-1
    double p[3];
    sys.position(id - 1, p);
    const double target[3] = {p[0] + scale * 0.31 * (k + 1), p[1] - scale * 0.17, p[2] + scale * 0.05 * k};
    double wrapped[3] = {target[0], target[1], target[2]};
    int shift[3] = {0, 0, 0};
    sys.wrap(wrapped, shift);
    const double dE = sys.move_energy_change(id - 1, wrapped);
    s.cmd(fmt::format("set atom {} x {:.17g} y {:.17g} z {:.17g}\nrun 0", id, target[0], target[1], target[2]));
    const double pe1 = s.thermo("pe");
    EXPECT_NEAR(dE, pe1 - pe0, 1e-10 * (std::fabs(pe0) + std::fabs(pe1))) << c.name << " atom " << id;
    s.cmd(fmt::format("set atom {} x {:.17g} y {:.17g} z {:.17g}\nrun 0", id, p[0], p[1], p[2]));
  }
}

INSTANTIATE_TEST_SUITE_P(PairStyles, EnergyVsComputePe, ::testing::ValuesIn(CASES),
                         [](const ::testing::TestParamInfo<Case> &info) { return std::string(info.param.name); });

TEST(EnergyVsComputePe, NpteEnergyWithTailFollowsTheVolume)
{
  // volume moves change the tail correction; the running energy must follow LAMMPS's pe
  LammpsSession s;
  s.cmd(setup_lines(CASES[2], 60, 17));
  s.cmd("fix mc all gpumc/npt 2 1.5 0.5 99\nthermo 5\nrun 20");
  const double pe = s.thermo("pe");
  EXPECT_GT(s.fix_vector("mc", 9), 0.0);    // some volume moves accepted
  EXPECT_NEAR(s.fix_scalar("mc"), pe, 1e-10 * std::fabs(pe));
  EXPECT_NEAR(s.fix_vector("mc", 13), s.thermo("vol"), 1e-12 * s.thermo("vol"));
}

TEST(EnergyVsComputePe, ChargesChangedBetweenRunsAreSeen)
{
  // the Coulomb terms hold the charges: a `set charge` between runs must reach the running energy
  const Case &c = *std::find_if(std::begin(CASES), std::end(CASES),
                                [](const Case &k) { return std::string(k.name) == "coul_dsf"; });
  LammpsSession s;
  s.cmd(setup_lines(c, 70, 19));
  s.cmd("fix mc all gpumc/nvt 2 4000.0 4712\nthermo 5\nrun 10");
  const double pe = s.thermo("pe");
  s.cmd("set type 2 charge -0.5\nset type 3 charge 0.7\nrun 10");
  const double pe2 = s.thermo("pe");
  EXPECT_GT(std::fabs(pe2 - pe), 0.01 * std::fabs(pe));
  EXPECT_NEAR(s.fix_scalar("mc"), pe2, 1e-10 * std::fabs(pe2));
}

TEST(EnergyVsComputePe, NptEwaldFollowsTheVolume)
{
  // volume moves change the wave vectors and their weights (and kmax where the box grows or
  // shrinks enough); LAMMPS sets its Ewald sum up again for the new box at the next run
  const Case &c = *std::find_if(std::begin(CASES), std::end(CASES),
                                [](const Case &k) { return std::string(k.name) == "lj_cut_coul_long_ewald"; });
  LammpsSession s;
  s.cmd(setup_lines(c, 60, 23));
  s.cmd("fix mc all gpumc/npt 2 4000.0 20000.0 99 vstep 0.03\nthermo 5\nrun 20");
  const double pe = s.thermo("pe");
  EXPECT_GT(s.fix_vector("mc", 9), 0.0);    // some volume moves accepted
  EXPECT_NEAR(s.fix_scalar("mc"), pe, 1e-10 * std::fabs(pe));
  EXPECT_NEAR(s.fix_vector("mc", 13), s.thermo("vol"), 1e-12 * s.thermo("vol"));
}

TEST(EnergyVsComputePe, EwaldInsertionIsTheDifferenceOfFullEnergies)
{
  // Widom's insertion energy of a charged atom: the change of LAMMPS's energy when the atom is
  // added, with g_ewald and the wave vectors fixed (set explicitly, so that LAMMPS keeps them for
  // the larger system) and the neutralising background of the new net charge
  LammpsSession s;
  const std::string pair = "pair_style lj/cut/coul/long 8.0 9.0\n" LJ_METAL_COEFF
                           "pair_modify table 0\nkspace_style ewald 1e-5\nkspace_modify gewald 0.3 kmax/ewald 6 7 5\n";
  const Case c{"insertion", pair.c_str(), "metal", 21.0, 1.4, true};
  s.cmd(setup_lines(c, 60, 29));
  s.cmd("run 0");
  LAMMPS_NS::LAMMPS *lmp = s.lmp();
  gpumc::HostSystem sys(LAMMPS_NS::GPUMC::pair_table(lmp, "test"));
  const auto conf = LAMMPS_NS::GPUMC::gather(lmp);
  sys.set_configuration(conf.x, conf.type, LAMMPS_NS::GPUMC::box(lmp));
  const double pe0 = s.thermo("pe");
  EXPECT_NEAR(sys.total_energy(), pe0, 1e-10 * std::fabs(pe0));
  for (int type : {1, 2}) {
    const double pos[3] = {3.7 + type, 11.3, 2.9 * type};
    const double dE = sys.insertion_energy(type, pos);
    s.cmd(fmt::format("create_atoms {} single {:.17g} {:.17g} {:.17g}\nset atom {} charge {}\nrun 0", type, pos[0],
                      pos[1], pos[2], s.natoms() + 1, type == 1 ? 1.2 : -0.9));
    const double pe1 = s.thermo("pe");
    EXPECT_NEAR(dE, pe1 - pe0, 1e-10 * (std::fabs(pe0) + std::fabs(pe1))) << "type " << type;
    s.cmd(fmt::format("group added id {}\ndelete_atoms group added\ngroup added delete\nrun 0", s.natoms()));
  }
}

TEST(EnergyVsComputePe, TableStyles)
{
  // pair_style table with LAMMPS's lookup, linear and spline interpolations of tables that
  // pair_write makes from a Morse potential (per type pair), alone and under hybrid/overlay with
  // charges; energies and the running energy after moves against compute pe
  const std::string file = testing::TempDir() + "gpumc_morse.table";
  const char *morse = "pair_style morse 9.0\npair_coeff 1 1 0.023272 1.3731 3.791\npair_coeff 1 2 1.99597 2.6518 1.628\n"
                      "pair_coeff 2 2 0.007695 2.0446 3.7598\npair_coeff 3 3 0.05 1.5 3.0\n"
                      "pair_coeff 1 3 0.5 2.0 2.0\npair_coeff 2 3 0.2 1.8 2.5\n";
  struct Variant {
    const char *style;
    bool charged;
  };
  for (const Variant v : {Variant{"table lookup 2000", false}, Variant{"table linear 1500", false},
                          Variant{"table spline 1000", false}, Variant{"hybrid/overlay table spline 1000 coul/dsf 0.2 9.0", true}}) {
    SCOPED_TRACE(v.style);
    const Case c{"table", morse, "metal", 21.0, 1.4, v.charged};
    LammpsSession s;
    s.cmd(setup_lines(c, 70, 404));
    std::string coeffs;
    const bool hybrid = std::string(v.style).rfind("hybrid", 0) == 0;
    for (int i = 1; i <= 3; i++)
      for (int j = i; j <= 3; j++) {
        s.cmd(fmt::format("pair_write {} {} 4000 r 1.2 9.0 {} M{}{}", i, j, file, i, j));
        coeffs += fmt::format("pair_coeff {} {} {}{} M{}{}\n", i, j, hybrid ? "table " : "", file, i, j);
      }
    s.cmd(fmt::format("pair_style {}\n{}{}", v.style, coeffs, hybrid ? "pair_coeff * * coul/dsf\n" : ""));
    s.cmd("fix mc all gpumc/nvt 2 4000.0 4711\nrun 0");
    const double pe = s.thermo("pe");
    EXPECT_NEAR(s.fix_scalar("mc"), pe, 1e-10 * std::fabs(pe));
    s.cmd("thermo 5\nrun 10");
    const double pe2 = s.thermo("pe");
    EXPECT_NE(pe2, pe);
    EXPECT_NEAR(s.fix_scalar("mc"), pe2, 1e-10 * std::fabs(pe2));
    EXPECT_GT(s.fix_vector("mc", 1), 0.0);
    std::remove(file.c_str());
  }
}
