// What the threads of a team share in the Kokkos engine's kernels: team scratch memory carved into
// arrays, atoms staged in it, and groups of threads (a CUDA warp, elsewhere one thread) that
// list candidates and sum energies together.
#pragma once

#include "gpumc_device_state_kokkos.h"

namespace gpumc {
namespace kk {

// rounds of candidates a thread tests before listing them: independent work to hide latency
constexpr int CANDIDATE_ROUNDS = 4;

// A team's scratch memory viewed as an array of T (the kernels' on-chip or level-1 arrays).
template <class ExecSpace, class T>
using ScratchView = Kokkos::View<T *, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

// Arrays carved one after another out of a block of team scratch (16-byte aligned, as is each
// array, for vector loads). bytes<T>(n) is what take<T>(n) uses.
struct ScratchCarver {
  static constexpr int ALIGN = 16;
  char *next;
  template <class T>
  KOKKOS_INLINE_FUNCTION static size_t bytes(size_t n)
  {
    return (n * sizeof(T) + ALIGN - 1) / ALIGN * ALIGN;
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION T *take(size_t n)
  {
    T *p = reinterpret_cast<T *>(next);
    next += bytes<T>(n);
    return p;
  }
};

// On a CUDA device, p (an address in the block's shared memory) as a pointer the compiler knows to
// be shared: 32-bit shared-memory loads and stores instead of generic ones, which need 64-bit
// address arithmetic (Kokkos's team scratch pointers are generic). Elsewhere p itself.
template <class T>
KOKKOS_INLINE_FUNCTION T *as_shared(T *p)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  extern __shared__ double gpumc_dynamic_shared[];
  char *base = reinterpret_cast<char *>(gpumc_dynamic_shared);
  return reinterpret_cast<T *>(base + (__cvta_generic_to_shared(p) - __cvta_generic_to_shared(base)));
#else
  return p;
#endif
}

// ---- a warp's FP64 tensor-core product (CUDA, compute capability 8.0 and later) ----

// GPUMC_FP64_MMA: the CUDA architecture Kokkos was built for has full-rate FP64 tensor cores (the
// data-centre parts A100, H100/H200, B200; measured on the H200 only)
#if defined(KOKKOS_ENABLE_CUDA) &&                                                                          \
    (defined(KOKKOS_ARCH_AMPERE80) || defined(KOKKOS_ARCH_HOPPER) || defined(KOKKOS_ARCH_BLACKWELL100))
#define GPUMC_FP64_MMA 1
#else
#define GPUMC_FP64_MMA 0
#endif

// A loop the CUDA compiler unrolls, so that its index is a constant wherever it selects a
// register (arrays indexed at run time live in local memory)
// (GPUMC_NO_UNROLL: one that it keeps)
#ifdef __CUDA_ARCH__
#define GPUMC_UNROLL _Pragma("unroll")
#define GPUMC_NO_UNROLL _Pragma("unroll 1")
#else
#define GPUMC_UNROLL
#define GPUMC_NO_UNROLL
#endif

// C += A B for an 8 x 4 A and a 4 x 8 B, all 32 lanes of a warp together (PTX mma.m8n8k4.f64):
// lane l holds a = A(l / 4, l % 4), b = B(l % 4, l / 4), and c0, c1 = C(l / 4, 2 (l % 4) + 0, 1).
// In double precision throughout.
KOKKOS_INLINE_FUNCTION void warp_mma_8x8x4(double a, double b, double &c0, double &c1)
{
#if GPUMC_FP64_MMA && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
               : "+d"(c0), "+d"(c1)
               : "d"(a), "d"(b));
#else
  (void) a;
  (void) b;
  (void) c0;
  (void) c1;
  Kokkos::abort("GPUMC: warp_mma_8x8x4 without FP64 tensor cores");
#endif
}

// ---- groups of threads that share one energy: a CUDA warp (32 lanes), elsewhere one thread ----

// Bits of the group's lanes whose `hit` is set, lane 0 lowest (one thread: bit 0).
KOKKOS_INLINE_FUNCTION unsigned group_ballot(bool hit, int group)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (group == 32) return __ballot_sync(0xffffffffu, hit);
#endif
  (void) group;
  return hit ? 1u : 0u;
}

// Index of the lowest set bit of a nonzero mask.
KOKKOS_INLINE_FUNCTION int lowest_bit(unsigned mask)
{
#ifdef __CUDA_ARCH__
  return __ffs(mask) - 1;
#else
  return __builtin_ctz(mask);
#endif
}

// Number of set bits of a mask.
KOKKOS_INLINE_FUNCTION int bit_count(unsigned mask)
{
#ifdef __CUDA_ARCH__
  return __popc(mask);
#else
  return __builtin_popcount(mask);
#endif
}

// Appends the lanes' candidates (hit) to their group's list: returns the slot that a lane with a
// hit takes after the entries already listed (the hits of the lanes below it), and sets `added`
// to the group's hits this round. Lanes append in lane order, so the list and every sum over it
// are the same in every run. (A lane without a hit writes nothing: a predicated store, no branch.)
KOKKOS_INLINE_FUNCTION int group_append(bool hit, int group, int lane, int &added)
{
  const unsigned mask = group_ballot(hit, group);
  added = bit_count(mask);
  return bit_count(mask & ((1u << lane) - 1u));
}

// The group's lanes have written (or may overwrite) their list.
KOKKOS_INLINE_FUNCTION void group_sync(int group)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (group == 32) __syncwarp();
#endif
  (void) group;
}

// Lane src's value on every lane of the group.
template <class T>
KOKKOS_INLINE_FUNCTION T group_broadcast(T v, int src, int group)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (group == 32) return __shfl_sync(0xffffffffu, v, src);
#endif
  (void) src;
  (void) group;
  return v;
}

// Sum over the group's lanes, the same bits on every lane (a butterfly: partners add the same
// two numbers).
KOKKOS_INLINE_FUNCTION double group_sum(double v, int group)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (group == 32)
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
#endif
  (void) group;
  return v;
}

// Inclusive prefix sum of v over the group's lanes (one thread: v).
KOKKOS_INLINE_FUNCTION int group_inclusive_scan(int v, int group, int lane)
{
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (group == 32)
    for (int d = 1; d < 32; d <<= 1) {
      const int o = __shfl_up_sync(0xffffffffu, v, d);
      if (lane >= d) v += o;
    }
#endif
  (void) group;
  (void) lane;
  return v;
}

// Atoms a team stages in scratch memory, in a frame of its own (positions relative to a corner
// near them): position and type. In single precision one 16-byte record per atom (one load per
// candidate); in double precision separate arrays (records of 32 bytes would not leave a SiO2
// neighbourhood on chip).
template <class Real>
struct StagedAtoms {
  Real *x, *y, *z;
  short *t;
  KOKKOS_INLINE_FUNCTION static size_t bytes(int n)
  {
    return 3 * ScratchCarver::bytes<Real>(n) + ScratchCarver::bytes<short>(n);
  }
  KOKKOS_INLINE_FUNCTION void carve(ScratchCarver &c, int n)
  {
    x = c.take<Real>(n);
    y = c.take<Real>(n);
    z = c.take<Real>(n);
    t = c.take<short>(n);
  }
  KOKKOS_INLINE_FUNCTION void to_shared()
  {
    x = as_shared(x);
    y = as_shared(y);
    z = as_shared(z);
    t = as_shared(t);
  }
  KOKKOS_INLINE_FUNCTION void set(int j, Real px, Real py, Real pz, int type) const
  {
    x[j] = px;
    y[j] = py;
    z[j] = pz;
    t[j] = (short) type;
  }
  KOKKOS_INLINE_FUNCTION void position(int j, Real p[3]) const
  {
    p[0] = x[j];
    p[1] = y[j];
    p[2] = z[j];
  }
  KOKKOS_INLINE_FUNCTION void load(int j, Real p[3], int &type) const
  {
    position(j, p);
    type = t[j];
  }
};

template <>
struct StagedAtoms<float> {
  struct alignas(16) Atom {
    float x, y, z;
    int type;
  };
  Atom *atom;
  KOKKOS_INLINE_FUNCTION static size_t bytes(int n) { return ScratchCarver::bytes<Atom>(n); }
  KOKKOS_INLINE_FUNCTION void carve(ScratchCarver &c, int n) { atom = c.take<Atom>(n); }
  KOKKOS_INLINE_FUNCTION void to_shared() { atom = as_shared(atom); }
  KOKKOS_INLINE_FUNCTION void set(int j, float px, float py, float pz, int type) const
  {
    atom[j] = Atom{px, py, pz, type};
  }
  KOKKOS_INLINE_FUNCTION void position(int j, float p[3]) const
  {
    int type;    // (the record is one load either way)
    load(j, p, type);
  }
  KOKKOS_INLINE_FUNCTION void load(int j, float p[3], int &type) const
  {
    const Atom a = atom[j];
    p[0] = a.x;
    p[1] = a.y;
    p[2] = a.z;
    type = a.type;
  }
};

}    // namespace kk
}    // namespace gpumc
