#include "lammps_session.h"

#include <mpi.h>    // LAMMPS's STUBS library in a build without MPI
#define LAMMPS_LIB_MPI
#include "library.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <stdexcept>

LammpsSession::LammpsSession() : LammpsSession(std::vector<std::string>()) {}

namespace {
// MPI, if a session started it (lammps_open_no_mpi), ends with the test program
struct MpiFinalizer {
  ~MpiFinalizer() { lammps_mpi_finalize(); }
} mpi_finalizer;

// Kokkos, if a session with KOKKOS started it, ends after the last test: before MPI ends, and
// before static destruction, where Kokkos's CUDA backend reports that it was never finalized.
// (Kokkos cannot start again: a test program runs its tests once, without --gtest_repeat.)
class KokkosFinalizer : public ::testing::Environment {
  void TearDown() override { lammps_kokkos_finalize(); }
};
const auto *kokkos_finalizer = ::testing::AddGlobalTestEnvironment(new KokkosFinalizer);
}    // namespace

LammpsSession::LammpsSession(const std::vector<std::string> &extra_args) : LammpsSession(extra_args, nullptr) {}

LammpsSession::LammpsSession(const std::vector<std::string> &extra_args, const void *mpi_comm)
{
  const bool verbose = std::getenv("GPUMC_TEST_VERBOSE") != nullptr;
  std::vector<const char *> args = {"gpumc_tests", "-log", "none", "-echo", "none", "-nocite"};
  if (!verbose) {
    args.push_back("-screen");
    args.push_back("none");
  }
  for (const auto &a : extra_args) args.push_back(a.c_str());
  if (mpi_comm)
    handle_ = lammps_open((int) args.size(), (char **) args.data(), *(const MPI_Comm *) mpi_comm, nullptr);
  else
    handle_ = lammps_open_no_mpi((int) args.size(), (char **) args.data(), nullptr);
  if (!handle_) throw std::runtime_error("cannot create a LAMMPS instance");
}

LammpsSession::~LammpsSession()
{
  lammps_close(handle_);
}

std::string LammpsSession::error_of(const std::string &lines)
{
  lammps_commands_string(handle_, lines.c_str());
  if (!lammps_has_error(handle_)) return "";
  char buf[2048];
  lammps_get_last_error_message(handle_, buf, sizeof(buf));
  return buf;
}

void LammpsSession::cmd(const std::string &lines)
{
  const std::string err = error_of(lines);
  if (!err.empty()) throw std::runtime_error("LAMMPS: " + err);
}

double LammpsSession::thermo(const char *keyword)
{
  return lammps_get_thermo(handle_, keyword);
}

static double take(void *ptr, const char *what)
{
  if (!ptr) throw std::runtime_error(std::string("cannot extract ") + what);
  const double v = *(double *) ptr;
  return v;
}

double LammpsSession::fix_scalar(const char *id)
{
  void *p = lammps_extract_fix(handle_, id, LMP_STYLE_GLOBAL, LMP_TYPE_SCALAR, 0, 0);
  const double v = take(p, id);
  lammps_free(p);
  return v;
}

double LammpsSession::fix_vector(const char *id, int index0)
{
  void *p = lammps_extract_fix(handle_, id, LMP_STYLE_GLOBAL, LMP_TYPE_VECTOR, index0, 0);
  const double v = take(p, id);
  lammps_free(p);
  return v;
}

double LammpsSession::fix_array(const char *id, int row0, int col0)
{
  void *p = lammps_extract_fix(handle_, id, LMP_STYLE_GLOBAL, LMP_TYPE_ARRAY, row0, col0);
  const double v = take(p, id);
  lammps_free(p);
  return v;
}

double LammpsSession::compute_scalar(const char *id)
{
  return take(lammps_extract_compute(handle_, id, LMP_STYLE_GLOBAL, LMP_TYPE_SCALAR), id);
}

double LammpsSession::compute_vector(const char *id, int index0)
{
  auto *v = (double *) lammps_extract_compute(handle_, id, LMP_STYLE_GLOBAL, LMP_TYPE_VECTOR);
  if (!v) throw std::runtime_error(std::string("cannot extract ") + id);
  return v[index0];
}

double LammpsSession::variable(const char *name)
{
  void *p = lammps_extract_variable(handle_, name, nullptr);
  const double v = take(p, name);
  lammps_free(p);
  return v;
}

long LammpsSession::natoms()
{
  return (long) lammps_get_natoms(handle_);
}

int LammpsSession::nprocs()
{
  return lammps_extract_setting(handle_, "world_size");
}

static std::vector<int> order_by_id(void *handle, int nlocal)
{
  auto *tag = (int *) lammps_extract_atom(handle, "id");
  std::vector<int> order(nlocal);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [tag](int a, int b) { return tag[a] < tag[b]; });
  return order;
}

std::vector<double> LammpsSession::positions_by_id()
{
  const int nlocal = *(int *) lammps_extract_global(handle_, "nlocal");
  auto **x = (double **) lammps_extract_atom(handle_, "x");
  std::vector<double> out;
  for (int i : order_by_id(handle_, nlocal))
    for (int d = 0; d < 3; d++) out.push_back(x[i][d]);
  return out;
}

std::vector<double> LammpsSession::gathered_positions()
{
  std::vector<double> out(3 * (size_t) natoms());
  lammps_gather_atoms(handle_, (char *) "x", 1, 3, out.data());
  return out;
}

std::vector<int> LammpsSession::types_by_id()
{
  const int nlocal = *(int *) lammps_extract_global(handle_, "nlocal");
  auto *type = (int *) lammps_extract_atom(handle_, "type");
  std::vector<int> out;
  for (int i : order_by_id(handle_, nlocal)) out.push_back(type[i]);
  return out;
}

std::vector<int> LammpsSession::images_by_id()
{
  const int nlocal = *(int *) lammps_extract_global(handle_, "nlocal");
  auto *image = (int *) lammps_extract_atom(handle_, "image");
  std::vector<int> out;
  for (int i : order_by_id(handle_, nlocal)) out.push_back(image[i]);
  return out;
}

std::vector<double> LammpsSession::box()
{
  double lo[3], hi[3], xy, yz, xz;
  int periodicity[3], changed;
  lammps_extract_box(handle_, lo, hi, &xy, &yz, &xz, periodicity, &changed);
  return {lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]};
}

double Blocks::mean() const
{
  return values.empty() ? 0.0 : std::accumulate(values.begin(), values.end(), 0.0) / values.size();
}

double Blocks::standard_error() const
{
  const size_t n = values.size();
  if (n < 2) return 0.0;
  const double m = mean();
  double ss = 0.0;
  for (double v : values) ss += (v - m) * (v - m);
  return std::sqrt(ss / (n - 1) / n);
}
