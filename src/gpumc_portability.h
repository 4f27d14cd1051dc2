// Marks the shared physics so that it compiles for host code and, in a LAMMPS build with the
// KOKKOS package (which defines LMP_KOKKOS for every source), for device kernels as well.
#pragma once

#if defined(GPUMC_INLINE)
// set by a standalone CUDA program (bench/proto) that uses the shared physics without Kokkos
#elif defined(LMP_KOKKOS)
#include <Kokkos_Macros.hpp>
#define GPUMC_INLINE KOKKOS_INLINE_FUNCTION
#else
#define GPUMC_INLINE inline
#endif
