// A LAMMPS instance driven through its library interface (library.h), for the tests.
#pragma once

#include <string>
#include <vector>

namespace LAMMPS_NS {
class LAMMPS;
}

class LammpsSession {
 public:
  // screen output on if GPUMC_TEST_VERBOSE is set in the environment
  LammpsSession();
  // with extra command-line arguments, e.g. {"-k", "on", "g", "1", "-sf", "kk"}
  explicit LammpsSession(const std::vector<std::string> &extra_args);
  // on the MPI ranks of a communicator (a pointer to an MPI_Comm), the same arguments
  LammpsSession(const std::vector<std::string> &extra_args, const void *mpi_comm);
  ~LammpsSession();
  LammpsSession(const LammpsSession &) = delete;
  LammpsSession &operator=(const LammpsSession &) = delete;

  // One or more input lines; throws std::runtime_error carrying LAMMPS's error message.
  void cmd(const std::string &lines);
  // Runs the lines and returns LAMMPS's error message, or "" if they ran without error.
  std::string error_of(const std::string &lines);

  double thermo(const char *keyword);
  double fix_scalar(const char *id);
  double fix_vector(const char *id, int index0);
  double fix_array(const char *id, int row0, int col0);
  double compute_scalar(const char *id);
  double compute_vector(const char *id, int index0);
  double variable(const char *name);
  long natoms();
  // MPI processes of the session
  int nprocs();

  // positions (3n) and types ordered by atom ID
  std::vector<double> positions_by_id();
  // the same over all MPI ranks (every rank calls it; atom IDs 1..N)
  std::vector<double> gathered_positions();
  std::vector<int> types_by_id();
  std::vector<double> box();    // xlo xhi ylo yhi zlo zhi

  LAMMPS_NS::LAMMPS *lmp() const { return (LAMMPS_NS::LAMMPS *) handle_; }
  std::vector<int> images_by_id();

 private:
  void *handle_ = nullptr;
};

// Simple statistics over equally weighted blocks.
struct Blocks {
  std::vector<double> values;
  void add(double v) { values.push_back(v); }
  double mean() const;
  double standard_error() const;
};
