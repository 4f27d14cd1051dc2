/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: compute widom: Widom test-particle insertion, excess chemical potential of one atom
   type, mu_ex = -kT ln( <V exp(-dU/kT)> / <V> ) (in NVT simply -kT ln <exp(-dU/kT)>).
------------------------------------------------------------------------- */

#ifdef COMPUTE_CLASS
// clang-format off
ComputeStyle(widom,ComputeWidom);
// clang-format on
#else

#ifndef LMP_COMPUTE_WIDOM_H
#define LMP_COMPUTE_WIDOM_H

#include "compute.h"

#include "gpumc_estimators.h"
#include "gpumc_lammps.h"

#include <cstdint>
#include <memory>

namespace LAMMPS_NS {

class ComputeWidom : public Compute {
 public:
  ComputeWidom(class LAMMPS *, int, char **);
  ~ComputeWidom() override;
  void init() override;
  double compute_scalar() override;
  void compute_vector() override;

 protected:
  int itype;
  bigint ninsert;          // insertions per invocation
  double temperature, kT, beta;
  int seed;
  bool mixed_precision;    // pair terms in float (compute widom/kk)
  std::unique_ptr<gpumc::PairTable> table;

  gpumc::RatioAverage blocks;    // one block per invocation: (V <w>, V)
  double block_factor;           // mean Boltzmann factor <w> of the latest invocation
  double insertions_total;       // insertions so far
  bigint last_step;              // timestep of the latest invocation
  uint64_t last_fingerprint;     // of the configuration the latest invocation saw
  // the estimators before the latest block, which a changed configuration at the same timestep replaces
  gpumc::RatioAverage blocks_before_last;
  double insertions_before_last;

  void invoke();
  // Loads the current configuration and returns its fingerprint (equal: nothing changed).
  // Backends override this.
  virtual uint64_t load_configuration();
  // Mean Boltzmann factor of (at least) ninsert insertions in the loaded configuration, and the
  // number actually made. Backends override this.
  virtual double insertion_block(uint64_t block, uint64_t &done);

 private:
  GPUMC::Configuration conf;
};

}    // namespace LAMMPS_NS

#endif
#endif
