// Every wrong or unsupported input stops with its own clear message (never a crash, a hang or
// silently wrong physics).

#include "lammps_session.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace {

const char *LJ = "units lj\natom_style atomic\nregion box block 0 8 0 8 0 8\ncreate_box 2 box\n"
                 "create_atoms 1 random 50 3 NULL\ncreate_atoms 2 random 50 4 NULL\nmass * 1.0\n"
                 "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\n";

struct BadInput {
  const char *name;
  std::string setup;       // runs without error
  std::string commands;    // must fail
  std::string message;     // substring of the error message
};

std::vector<BadInput> bad_inputs()
{
  const std::string lj = LJ;
  // a neutral ionic system with coul/long
  const std::string ionic = "units lj\natom_style charge\nregion box block 0 8 0 8 0 8\ncreate_box 2 box\n"
                            "create_atoms 1 random 50 3 NULL\ncreate_atoms 2 random 50 4 NULL\nmass * 1.0\n"
                            "set type 1 charge 0.5\nset type 2 charge -0.5\npair_style coul/long 2.5\n"
                            "pair_coeff * *\n";
  // two atoms at one place: lj/cut's energy is infinite, and every move's dU -inf or NaN
  const std::string overlap = lj + "create_atoms 1 single 1 1 1\ncreate_atoms 1 single 1 1 1\n";
  // MD that blows up: infinite velocities make the positions non-numeric at the first step, and
  // no neighbor list build (LAMMPS's pbc and its check) comes before the Monte Carlo's next
  const std::string blow_up = "variable inf atom 1e300*1e300\nset group all vx v_inf\nfix md all nve\n"
                              "neigh_modify delay 0 every 100 check no\n";
  return {
      // fix gpumc/nvt and gpumc/npt arguments
      {"nvt_missing_args", lj, "fix mc all gpumc/nvt 1 1.0", "Illegal fix gpumc/nvt command: missing argument"},
      {"npt_missing_args", lj, "fix mc all gpumc/npt 1 1.0 2.0", "Illegal fix gpumc/npt command: missing argument"},
      {"sweeps", lj, "fix mc all gpumc/nvt 0 1.0 5", "number of sweeps must be > 0"},
      {"temperature", lj, "fix mc all gpumc/nvt 1 -1.0 5", "temperature must be > 0"},
      {"seed", lj, "fix mc all gpumc/nvt 1 1.0 0", "seed must be a positive integer"},
      {"seed_not_number", lj, "fix mc all gpumc/nvt 1 1.0 abc", "Expected integer parameter instead of 'abc'"},
      {"unknown_keyword", lj, "fix mc all gpumc/nvt 1 1.0 5 bogus 1", "unknown keyword bogus"},
      {"keyword_without_value", lj, "fix mc all gpumc/nvt 1 1.0 5 every", "missing argument"},
      {"every", lj, "fix mc all gpumc/nvt 1 1.0 5 every 0", "every must be > 0"},
      {"fix_adapt", lj, "variable e equal 1.0\nfix ad all adapt 1 pair lj/cut epsilon 1 1 v_e\n"
       "fix mc all gpumc/nvt 1 1.0 5\nrun 1", "does not support fix adapt"},
      // run_style gpumc: Monte Carlo runs only, with fixes that need no forces between outputs
      {"run_style_arguments", lj, "run_style gpumc 3", "run_style gpumc takes no arguments, not 3"},
      {"run_style_without_monte_carlo", lj, "run_style gpumc\nrun 1",
       "run_style gpumc: no fix gpumc/nvt or gpumc/npt is defined"},
      {"run_style_with_integrator", lj, "fix mc all gpumc/nvt 1 1.0 5 every 10\nfix md all nve\nrun_style gpumc\nrun 1",
       "run_style gpumc: fix md (nve) acts on every timestep's integration or force computation"},
      {"run_style_with_deposit", lj, "fix mc all gpumc/nvt 1 1.0 5\nfix dep all deposit 1 1 10 7 region box\n"
       "run_style gpumc\nrun 1", "run_style gpumc: fix dep (deposit) changes atoms before neighbor list builds"},
      {"temper_one_partition", lj, "fix mc all gpumc/nvt 1 1.0 5\ntemper/gpumc 10 2 1.0 mc 0 7",
       "temper/gpumc needs more than one processor partition"},
      {"displace", lj, "fix mc all gpumc/nvt 1 1.0 5 displace -0.1", "displace must be > 0"},
      {"target", lj, "fix mc all gpumc/nvt 1 1.0 5 target 1.0", "target must be between 0 and 1"},
      {"tune", lj, "fix mc all gpumc/nvt 1 1.0 5 tune -3", "tune takes yes, no, always or a timestep"},
      {"velocities", lj, "fix mc all gpumc/nvt 1 1.0 5 velocities zero", "velocities takes draw or keep, not zero"},
      // non-numeric coordinates: LAMMPS's own message, before the sweeps or insertions use them
      // (before LAMMPS's pbc would say so: the style's name leads the message) at an invocation,
      // at a run's setup, and for thermo output of the running energy
      {"non_finite_coordinates", lj, blow_up + "fix mc all gpumc/nvt 1 1.0 5 every 2 velocities keep\nrun 4",
       "fix gpumc/nvt: Non-numeric atom coords - simulation unstable"},
      {"non_finite_coordinates_setup", lj, "fix mc all gpumc/nvt 1 1.0 5\nrun 0\nvariable inf atom 1e300*1e300\n"
       "set group all x v_inf\nrun 1", "fix gpumc/nvt: Non-numeric atom coords - simulation unstable"},
      {"non_finite_coordinates_thermo", lj, "fix mc all gpumc/npt 1 1.0 1.0 5\nthermo_style custom step f_mc\nrun 0\n"
       "variable inf atom 1e300*1e300\nset group all x v_inf\nrun 0 pre no",
       "fix gpumc/npt: Non-numeric atom coords - simulation unstable"},
      {"widom_non_finite_coordinates", lj, blow_up + "compute w all widom 1 100 1.0 5\nthermo_style custom step c_w\n"
       "thermo 2\nrun 4", "compute widom: Non-numeric atom coords - simulation unstable"},
      {"tune_word", lj, "fix mc all gpumc/nvt 1 1.0 5 tune foo", "tune takes yes, no, always or a timestep >= 0, not foo"},
      // an extra number among the positional arguments is no keyword missing its value
      {"extra_positional", lj, "fix mc all gpumc/nvt 1 1.0 5 7", "unknown keyword 7 (it takes 3 numbers before its keywords)"},
      {"extra_positional_npt", lj, "fix mc all gpumc/npt 1 1.0 1.0 5 7 every 2",
       "unknown keyword 7 (it takes 4 numbers before its keywords)"},
      {"check", lj, "fix mc all gpumc/nvt 1 1.0 5 check 0", "check must be > 0"},
      {"volume_keyword_in_nvt", lj, "fix mc all gpumc/nvt 1 1.0 5 volume logv", "unknown keyword volume"},
      {"volume_scheme", lj, "fix mc all gpumc/npt 1 1.0 1.0 5 volume cube", "volume takes logv or sides, not cube"},
      {"vstep", lj, "fix mc all gpumc/npt 1 1.0 1.0 5 vstep 0", "vstep must be > 0"},
      {"vtarget", lj, "fix mc all gpumc/npt 1 1.0 1.0 5 vtarget 0", "vtarget must be between 0 and 1"},
      {"vmoves", lj, "fix mc all gpumc/npt 1 1.0 1.0 5 vmoves 0", "vmoves must be > 0"},
      {"algorithm", lj, "fix mc all gpumc/nvt 1 1.0 5 algorithm parallel",
       "algorithm takes sequential or checkerboard, not parallel"},
      {"precision", lj, "fix mc all gpumc/nvt 1 1.0 5 precision single", "precision takes double or mixed, not single"},
      {"ghosts", lj, "fix mc all gpumc/nvt 1 1.0 5 algorithm checkerboard ghosts stale",
       "ghosts takes refresh, frozen or alternate, not stale"},
      {"ghosts_frozen_sequential", lj, "fix mc all gpumc/nvt 1 1.0 5 ghosts frozen\nrun 0",
       "ghosts frozen is an option of algorithm checkerboard on several processes"},
      {"ghosts_alternate_sequential", lj, "fix mc all gpumc/nvt 1 1.0 5 ghosts alternate\nrun 0",
       "ghosts alternate is an option of algorithm checkerboard on several processes"},
      {"precision_mixed_host", lj, "fix mc all gpumc/nvt 1 1.0 5 algorithm checkerboard precision mixed\nrun 0",
       "precision mixed is an option of the Kokkos style gpumc/nvt/kk"},
      // a box of exactly twice the cutoff is allowed, but cannot hold two checkerboard cells
      {"checkerboard_box_too_small",
       "units lj\natom_style atomic\nregion box block 0 6 0 8 0 8\ncreate_box 1 box\n"
       "create_atoms 1 random 50 3 NULL\nmass 1 1.0\npair_style lj/cut 3.0\npair_coeff 1 1 1.0 1.0\n",
       "fix mc all gpumc/nvt 1 1.0 5 algorithm checkerboard\nrun 1",
       "box side 6 is too short for algorithm checkerboard"},
      {"fix_modify_tune", lj + "fix mc all gpumc/nvt 1 1.0 5\n", "fix_modify mc tune maybe",
       "tune takes yes, no, always or a timestep >= 0, not maybe"},
      // a zero cutoff makes lj/cut's tail correction infinite, not the configuration's energy
      {"tail_zero_cutoff", lj + "pair_coeff 1 2 1.0 1.0 0.0\npair_modify tail yes\n", "fix mc all gpumc/nvt 1 1.0 5\nrun 0",
       "pair_modify tail yes with a cutoff of 0 for types 1 2 (pair style lj/cut): the tail correction is infinite"},
      // unsupported setups, found at init
      {"pair_style_unsupported", lj + "pair_style zbl 1.0 2.0\npair_coeff * * 1.0 1.0\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "does not support pair style zbl; it supports born, born/coul/dsf"},
      {"pair_style_hybrid", lj + "pair_style hybrid lj/cut 2.5 zbl 1.0 2.0\npair_coeff * * lj/cut 1.0 1.0\n"
                                 "pair_coeff 1 2 zbl 1.0 1.0\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "does not support pair style zbl (a sub-style of hybrid)"},
      {"pair_style_hybrid_scaled", lj + "pair_style hybrid/scaled 0.5 lj/cut 2.5 0.5 lj/cut 2.5\n"
                                        "pair_coeff * * lj/cut 1 1.0 1.0\npair_coeff * * lj/cut 2 1.0 1.0\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "does not support pair style hybrid/scaled"},
      // one self energy per atom: two DSF sub-styles must share their settings
      {"two_dsf_settings", "units lj\natom_style charge\nregion box block 0 8 0 8 0 8\ncreate_box 2 box\n"
                           "create_atoms 1 random 50 3 NULL\ncreate_atoms 2 random 50 4 NULL\nmass * 1.0\n"
                           "pair_style hybrid/overlay coul/dsf 0.2 2.5 coul/dsf 0.3 2.5\npair_coeff 1 1 coul/dsf 1\n"
                           "pair_coeff 2 2 coul/dsf 2\npair_coeff 1 2 coul/dsf 1\nset type 1 charge 0.5\n"
                           "set type 2 charge -0.5\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "supports one setting of DSF or Wolf Coulomb sub-styles, not two"},
      // Coulomb terms are per type pair: one charge per type
      {"charges_within_type", "units lj\natom_style charge\nregion box block 0 8 0 8 0 8\ncreate_box 1 box\n"
                              "create_atoms 1 random 50 3 NULL\nmass 1 1.0\npair_style lj/cut/coul/cut 2.5\n"
                              "pair_coeff * * 1.0 1.0\nset type 1 charge 0.5\nset atom 7 charge -0.5\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "requires one charge per atom type: type 1 has charges from -0.5 to 0.5"},
      {"table_bitmap", lj + "pair_write 1 1 500 r 0.8 2.5 gpumc_errors.table LJ11\n",
       "pair_style table bitmap 10\npair_coeff * * gpumc_errors.table LJ11 2.5\nfix mc all gpumc/nvt 1 1.0 5\nrun 0",
       "supports pair_style table lookup, linear and spline, not bitmap"},
      // Ewald: exact sums only, LAMMPS's erfc without tables, the sequential chain
      {"kspace_pppm", ionic + "pair_modify table 0\nkspace_style pppm 1e-4\n", "fix mc all gpumc/nvt 1 1.0 5\nrun 0",
       "supports kspace_style ewald only (the exact Ewald sum), not pppm"},
      {"coul_long_tables", ionic + "kspace_style ewald 1e-4\n", "fix mc all gpumc/nvt 1 1.0 5\nrun 0",
       "pair style coul/long with Coulomb tables (pair_modify table 12); GPUMC evaluates erfc as LAMMPS does without "
       "them: add 'pair_modify table 0'"},
      {"ewald_checkerboard", ionic + "pair_modify table 0\nkspace_style ewald 1e-4\n",
       "fix mc all gpumc/nvt 1 1.0 5 algorithm checkerboard\nrun 0",
       "algorithm checkerboard does not support kspace_style ewald"},
      {"ewald_compute_no", ionic + "pair_modify table 0\nkspace_style ewald 1e-4\nkspace_modify compute no\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "does not support kspace_modify compute no"},
      {"ewald_slab", "units lj\natom_style charge\nboundary p p f\nregion box block 0 8 0 8 0 8\ncreate_box 2 box\n"
                     "create_atoms 1 random 50 3 NULL\ncreate_atoms 2 random 50 4 NULL\nmass * 1.0\n"
                     "set type 1 charge 0.5\nset type 2 charge -0.5\npair_style coul/long 2.5\npair_coeff * *\n"
                     "pair_modify table 0\nkspace_style ewald 1e-4\nkspace_modify slab 3.0\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "requires a box periodic in x, y and z"},
      {"ewald_widom_mixed", ionic + "pair_modify table 0\nkspace_style ewald 1e-4\n",
       "compute w all widom 1 10 1.0 5 precision mixed\nthermo_style custom step c_w\nrun 0",
       "precision mixed is an option of the Kokkos style compute widom/kk"},
      {"no_pair_style", "units lj\natom_style atomic\nregion box block 0 8 0 8 0 8\ncreate_box 1 box\n"
                        "create_atoms 1 random 50 3 NULL\nmass 1 1.0\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "requires a pair style (born"},
      {"molecular", "units lj\natom_style bond\nregion box block 0 8 0 8 0 8\ncreate_box 1 box bond/types 1 "
                    "extra/bond/per/atom 1\ncreate_atoms 1 random 50 3 NULL\nmass 1 1.0\npair_style lj/cut 2.5\n"
                    "pair_coeff * * 1.0 1.0\nbond_style zero\nbond_coeff 1\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "requires an atomic system"},
      {"triclinic", "units lj\natom_style atomic\nregion box prism 0 8 0 8 0 8 0.5 0 0\ncreate_box 1 box\n"
                    "create_atoms 1 random 50 3 NULL\nmass 1 1.0\npair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "does not support triclinic boxes"},
      {"non_periodic", "units lj\natom_style atomic\nboundary p p f\nregion box block 0 8 0 8 0 8\n"
                       "create_box 1 box\ncreate_atoms 1 random 50 3 NULL\nmass 1 1.0\npair_style lj/cut 2.5\n"
                       "pair_coeff * * 1.0 1.0\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "requires a box periodic in x, y and z"},
      {"box_too_small", "units lj\natom_style atomic\nregion box block 0 4.5 0 8 0 8\ncreate_box 1 box\n"
                        "create_atoms 1 random 20 3 NULL\nmass 1 1.0\npair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\n",
       "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "is shorter than twice the largest pair cutoff 2.5"},
      {"empty_group", lj + "group none empty\n", "fix mc none gpumc/nvt 1 1.0 5\nrun 0", "group none has no atoms"},
      {"neigh_exclude", lj + "neigh_modify exclude type 1 2\n", "fix mc all gpumc/nvt 1 1.0 5\nrun 0",
       "does not support neigh_modify exclude"},
      {"overlap_sequential", overlap, "fix mc all gpumc/nvt 1 1.0 5\nrun 0", "the energy of the configuration is inf"},
      {"overlap_checkerboard", overlap, "fix mc all gpumc/nvt 1 1.0 5 algorithm checkerboard\nrun 0",
       "Monte Carlo moves need a finite energy"},
      {"overlap_npt", overlap, "fix mc all gpumc/npt 1 1.0 1.0 5\nrun 0", "Monte Carlo moves need a finite energy"},
      // ... also when something else puts them there between runs
      {"overlap_between_runs", lj + "create_atoms 1 single 1 1 1\ncreate_atoms 1 single 1.5 1 1\n"
                                    "fix mc all gpumc/nvt 1 1.0 5\nrun 0\n",
       "set atom 102 x 1.0\nrun 1", "Monte Carlo moves need a finite energy"},
      {"two_barostats", lj, "fix mc all gpumc/npt 1 1.0 1.0 5\nfix box all press/berendsen iso 1.0 1.0 1.0\nrun 0",
       "Must not have multiple fixes change box parameter x"},    // LAMMPS's own check
      // compute widom arguments
      {"widom_missing", lj, "compute w all widom 1 100 1.0", "Illegal compute widom command: missing argument"},
      {"widom_type", lj, "compute w all widom 3 100 1.0 5", "atom type 3 out of range"},
      {"widom_ninsert", lj, "compute w all widom 1 0 1.0 5", "number of insertions must be > 0"},
      {"widom_temperature", lj, "compute w all widom 1 100 0.0 5", "temperature must be > 0"},
      {"widom_seed", lj, "compute w all widom 1 100 1.0 -2", "seed must be a positive integer"},
      {"widom_keyword", lj, "compute w all widom 1 100 1.0 5 extra 1", "unknown keyword extra"},
      {"widom_precision", lj, "compute w all widom 1 100 1.0 5 precision half", "precision takes double or mixed, not half"},
      {"widom_precision_host", lj, "compute w all widom 1 100 1.0 5 precision mixed\nrun 0",
       "precision mixed is an option of the Kokkos style compute widom/kk"},
      {"widom_group", lj + "group one type 1\n", "compute w one widom 1 100 1.0 5", "requires group all"},
      {"widom_pair_style", "units lj\natom_style atomic\nregion box block 0 8 0 8 0 8\ncreate_box 1 box\n"
                           "create_atoms 1 random 50 3 NULL\nmass 1 1.0\npair_style zbl 1.0 2.0\npair_coeff * * 1.0 1.0\n",
       "compute w all widom 1 100 1.0 5\nthermo_style custom step c_w\nrun 0", "does not support pair style zbl"},
      // the charge of a type with no atoms is unknown: no Coulomb insertions of it
      {"widom_charge_unknown", "units lj\natom_style charge\nregion box block 0 8 0 8 0 8\ncreate_box 2 box\n"
                               "create_atoms 1 random 50 3 NULL\nmass * 1.0\npair_style lj/cut/coul/cut 2.5\n"
                               "pair_coeff * * 1.0 1.0\nset type 1 charge 0.5\n",
       "compute w all widom 2 100 1.0 5\nthermo_style custom step c_w\nrun 0",
       "compute widom: type 2 has no atoms, so its charge is unknown"},
  };
}

// readable names in test listings (not byte dumps)
void PrintTo(const BadInput &c, std::ostream *os)
{
  *os << c.name;
}

class Errors : public ::testing::TestWithParam<BadInput> {};

}    // namespace

TEST_P(Errors, StopWithAClearMessage)
{
  const BadInput &b = GetParam();
  LammpsSession s;
  s.cmd(b.setup);
  const std::string err = s.error_of(b.commands);
  EXPECT_NE(err.find(b.message), std::string::npos) << "got: '" << err << "'";
}

INSTANTIATE_TEST_SUITE_P(BadInputs, Errors, ::testing::ValuesIn(bad_inputs()),
                         [](const ::testing::TestParamInfo<BadInput> &info) { return std::string(info.param.name); });
