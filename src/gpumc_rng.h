// Counter-based random numbers (Random123 Philox4x64). A stream is keyed by (seed, purpose);
// each draw is addressed by a counter made of indices of the move it serves, so the numbers a
// move uses never depend on thread count, launch order or how a run was split by restarts.
#pragma once

#include "gpumc_portability.h"

#include <Random123/philox.h>
#include <Random123/uniform.hpp>

#include <cstdint>

namespace gpumc {

enum RngPurpose : uint64_t {
  RNG_TRANSLATION = 1,
  RNG_VOLUME = 2,
  RNG_WIDOM = 3,           // + 16 * type: one stream per inserted type
  RNG_CHECKERBOARD = 4,    // grid shifts, colour orders and moves of checkerboard sweeps
  RNG_VELOCITY = 5,        // Maxwell-Boltzmann velocities (gpumc_velocities.h)
  RNG_TEMPER = 6           // replica exchange: which pairs swap, and their tests (temper/gpumc)
};

struct CounterRNG {
  r123::Philox4x64::key_type key;

  GPUMC_INLINE CounterRNG(uint64_t seed, uint64_t purpose)
  {
    key[0] = seed;
    key[1] = purpose;
  }

  // Four independent 64-bit words for draw (a, b, c).
  GPUMC_INLINE r123::Philox4x64::ctr_type bits(uint64_t a, uint64_t b, uint64_t c = 0) const
  {
    r123::Philox4x64::ctr_type ctr = {{a, b, c, 0}};
    r123::Philox4x64 philox;
    return philox(ctr, key);
  }
};

// Uniform double in the open interval (0,1) from 64 random bits (53 of them used).
GPUMC_INLINE double uniform01(uint64_t bits)
{
  return r123::u01fixedpt<double>(bits);
}

// Uniform integer in [0, n): the high word of bits * n (bias below n / 2^64).
GPUMC_INLINE uint64_t uniform_index(uint64_t bits, uint64_t n)
{
#if defined(__CUDA_ARCH__)
  return __umul64hi(bits, n);
#else
  return (uint64_t) (((unsigned __int128) bits * n) >> 64);
#endif
}

}    // namespace gpumc
