// Prototype for issue 4's option 3: how fast can a colour's checkerboard trials be evaluated from
// per-atom neighbour lists (kept across sweeps with a skin, as MD keeps them) instead of from the
// 27 cells that the trial kernel of the engine stages per team?
//
// Standalone CUDA (no Kokkos, no LAMMPS): the benchmark's SiO2 Morse system (a simple cubic lattice
// of n^3 sites at 0.053679 atoms/A^3, one third Si, every atom displaced uniformly by up to
// --jitter per axis), atoms ordered by checkerboard cell, full neighbour lists within rc + skin.
// It evaluates the energy change of every trial of one colour (cell_trial's displacements,
// moves that leave their cell skipped, as the engine rejects them), with the shared pair terms
// (gpumc_pair_potential.h), and checks them against a brute-force double-precision sum over all
// atoms; and, as a kernel of its own, the corrections between the trials of each cell
// (move_correction), checked against nearest-image double-precision terms. It does not decide or
// write moves, and does not build the lists on the GPU: its rates bound the trial kernel of such a
// design from above, they are not sweep rates.
//
// Kernels (each for float and double terms):
//   group_pred   G lanes per trial (32: a warp, 16, 8, 4, 2, 1: a thread), lanes over the atom's
//                list, both terms of every entry (selected to zero beyond the cutoff)
//   warp_list    a warp per trial, lanes first list the entries within the cutoff of the old or the
//                new position (ballot, in shared memory, with their two squared distances), then
//                sum their terms with every lane busy
//   cell_corrections  a block per active cell, a thread per pair of its trials
// Each is timed as the median of three batches of --launches launches (CUDA events).
// Positions are gathered as float4 (x, y, z, type) or double4_32a; "mixed" is double positions and
// differences with float pair terms (as the engine's mixed precision would need for absolute
// coordinates).
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -I src -I <Random123 include dir> -Xcompiler -fopenmp
// Run:   nlist_trials --n 42 --out DIR   (writes DIR/nlist-<n>.json and prints a table row per kernel;
//        --skin, --jitter, --dmax, --launches)

#define GPUMC_INLINE __host__ __device__ inline
#include "gpumc_checkerboard.h"
#include "gpumc_pair_potential.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using namespace gpumc;

#define CHECK(x)                                                                                    \
  do {                                                                                              \
    cudaError_t e_ = (x);                                                                           \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));               \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

constexpr int NT1 = 3;    // types 1 (Si) and 2 (O), row and column 0 unused

struct Setup {
  int ntrials;
  double L, dmax;
  CheckerGrid g;
  CounterRNG rng{7741, RNG_CHECKERBOARD};
  uint64_t sweep = 3;
};

struct TrialRef {
  int atom, cell, slot;
};

// The trial's old position, displacement and whether it stays in its cell (the engine's test in
// the cell frame, without its round-off fallback near a face).
struct TrialGeom {
  double p[3], disp[3];
  int itype;
  bool stays;
};

__host__ __device__ inline TrialGeom trial_geom(const Setup &s, const double4_32a *pos, const TrialRef &t)
{
  TrialGeom tg;
  const double4_32a q = pos[t.atom];
  tg.p[0] = q.x;
  tg.p[1] = q.y;
  tg.p[2] = q.z;
  tg.itype = (int) q.w;
  const CellTrial ct = cell_trial(s.rng, s.sweep, t.cell, t.slot, s.dmax);
  int c[3];
  double u[3];
  checker_cell(s.g, tg.p, c, u);
  tg.stays = true;
  for (int d = 0; d < 3; d++) {
    tg.disp[d] = ct.disp[d];
    const double un = u[d] + ct.disp[d];
    tg.stays = tg.stays && un >= 0.0 && un < s.g.w[d];
  }
  return tg;
}

// Minimum-image difference q - p in precision Real (positions of precision P).
template <class Real, class P>
__device__ inline void min_image(const P &q, const double p[3], double L, double invL, Real dx[3])
{
  using C = decltype(P::x);    // float or double coordinates
  const C diff[3] = {q.x - (C) p[0], q.y - (C) p[1], q.z - (C) p[2]};
  for (int d = 0; d < 3; d++) dx[d] = (Real) (diff[d] - (C) L * rint(diff[d] * (C) invL));
}

__device__ inline int pos_type(const float4 &q) { return __float_as_int(q.w); }
__device__ inline int pos_type(const double4_32a &q) { return (int) q.w; }

template <class Real>
__device__ inline void load_coeff(const PairCoeffT<Real> *coeff, PairCoeffT<Real> *sc)
{
  if (threadIdx.x < NT1 * NT1) sc[threadIdx.x] = coeff[threadIdx.x];
  __syncthreads();
}

__device__ inline double warp_sum(double v)
{
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// G lanes per trial (G = 32: a warp, G = 1: a thread), lanes over the atom's list, both terms of
// every entry (selected to zero beyond the cutoff), summed over the G lanes with shuffles. G = 1
// reads the transposed list (entry m of atom i at m * natoms + i: consecutive trials' atoms are
// consecutive), the others the atom's row.
template <int G, class Real, class P>
__global__ void group_pred(Setup s, const TrialRef *trials, const double4_32a *posd, const P *pos, const int *nnb,
                           const int *nbr, int maxnb, int natoms, const PairCoeffT<Real> *coeff, double *du)
{
  __shared__ PairCoeffT<Real> sc[NT1 * NT1];
  load_coeff<Real>(coeff, sc);
  const int gid = blockIdx.x * blockDim.x + threadIdx.x, t = gid / G, lane = gid % G;
  // every lane stays to the shuffles (a group that has no trial, or whose move leaves its cell,
  // sums nothing): lanes that exited would make the full-warp shuffles undefined
  double part = 0.0;
  if (t < s.ntrials) {
    const TrialRef tr = trials[t];
    const TrialGeom tg = trial_geom(s, posd, tr);
    const Real disp[3] = {(Real) tg.disp[0], (Real) tg.disp[1], (Real) tg.disp[2]};
    const PairCoeffT<Real> *row = sc + tg.itype * NT1;
    const double invL = 1.0 / s.L;
    const int n = tg.stays ? nnb[tr.atom] : 0;
    for (int k = lane; k < n; k += G) {
      const int j = G == 1 ? nbr[(size_t) k * natoms + tr.atom] : nbr[(size_t) tr.atom * maxnb + k];
      const P q = pos[j];
      Real dx[3];
      min_image<Real>(q, tg.p, s.L, invL, dx);
      const PairCoeffT<Real> pc = row[pos_type(q)];
      const Real rsq_old = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2];
      const Real ex = dx[0] - disp[0], ey = dx[1] - disp[1], ez = dx[2] - disp[2];
      part += (double) pair_energy(pc, ex * ex + ey * ey + ez * ez);
      part -= (double) pair_energy(pc, rsq_old);
    }
  }
  for (int o = G / 2; o > 0; o >>= 1) part += __shfl_xor_sync(0xffffffffu, part, o);
  if (t < s.ntrials && lane == 0) du[t] = part;
}

template <class Real, class P>
__global__ void warp_list(Setup s, const TrialRef *trials, const double4_32a *posd, const P *pos, const int *nnb,
                          const int *nbr, int maxnb, const PairCoeffT<Real> *coeff, double cutsq_max, double *du)
{
  __shared__ PairCoeffT<Real> sc[NT1 * NT1];
  extern __shared__ unsigned char buf[];
  load_coeff<Real>(coeff, sc);
  const int t = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  const int w = threadIdx.x >> 5;
  Real *rso = reinterpret_cast<Real *>(buf) + (size_t) w * 2 * maxnb, *rsn = rso + maxnb;
  unsigned char *jt = buf + (size_t) (blockDim.x >> 5) * 2 * maxnb * sizeof(Real) + (size_t) w * maxnb;
  if (t >= s.ntrials) return;
  const TrialRef tr = trials[t];
  const TrialGeom tg = trial_geom(s, posd, tr);
  if (!tg.stays) {
    if (lane == 0) du[t] = 0.0;
    return;
  }
  const Real disp[3] = {(Real) tg.disp[0], (Real) tg.disp[1], (Real) tg.disp[2]};
  const Real cut = (Real) cutsq_max;
  const double invL = 1.0 / s.L;
  const int *list = nbr + (size_t) tr.atom * maxnb, n = nnb[tr.atom];
  int nlisted = 0;
  for (int k0 = 0; k0 < n; k0 += 32) {
    const int k = k0 + lane;
    Real rsq_old = cut, rsq_new = cut;
    int jtype = 0;
    if (k < n) {
      const P q = pos[list[k]];
      Real dx[3];
      min_image<Real>(q, tg.p, s.L, invL, dx);
      jtype = pos_type(q);
      rsq_old = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2];
      const Real ex = dx[0] - disp[0], ey = dx[1] - disp[1], ez = dx[2] - disp[2];
      rsq_new = ex * ex + ey * ey + ez * ez;
    }
    const bool near = rsq_old < cut || rsq_new < cut;
    const unsigned mask = __ballot_sync(0xffffffffu, near);
    if (near) {
      const int at = nlisted + __popc(mask & ((1u << lane) - 1u));
      rso[at] = rsq_old;
      rsn[at] = rsq_new;
      jt[at] = (unsigned char) jtype;
    }
    nlisted += __popc(mask);
  }
  __syncwarp();
  const PairCoeffT<Real> *row = sc + tg.itype * NT1;
  double part = 0.0;
  for (int k = lane; k < nlisted; k += 32) {
    const PairCoeffT<Real> pc = row[jt[k]];
    part += (double) pair_energy(pc, rsn[k]);
    part -= (double) pair_energy(pc, rso[k]);
  }
  part = warp_sum(part);
  if (lane == 0) du[t] = part;
}

// The corrections between the trials of each active cell (what the engine's trial kernel also
// computes): a block per cell, a thread per pair of its trials (s > t), move_correction's four pair
// terms in the frame of the cell's first atom.
template <class Real>
__global__ void cell_corrections(Setup s, const TrialRef *trials, const int *cell_first, const int *cell_count,
                                 const double4_32a *posd, const PairCoeffT<Real> *coeff, int corr_cap, double *corr)
{
  constexpr int CAP = 96;
  __shared__ PairCoeffT<Real> sc[NT1 * NT1];
  __shared__ Real was[CAP][3], now[CAP][3];
  __shared__ int ty[CAP];
  __shared__ bool stays[CAP];
  load_coeff<Real>(coeff, sc);
  const int a = blockIdx.x, first = cell_first[a], n = min(cell_count[a], CAP);
  const double4_32a base = posd[trials[first].atom];
  for (int k = threadIdx.x; k < n; k += blockDim.x) {
    const TrialGeom tg = trial_geom(s, posd, trials[first + k]);
    const double b[3] = {base.x, base.y, base.z};
    for (int d = 0; d < 3; d++) {
      double v = tg.p[d] - b[d];
      v -= s.L * rint(v / s.L);
      was[k][d] = (Real) v;
      now[k][d] = (Real) (v + tg.disp[d]);
    }
    ty[k] = tg.itype;
    stays[k] = tg.stays;
  }
  __syncthreads();
  const int npairs = n * (n - 1) / 2;
  for (int q = threadIdx.x; q < npairs; q += blockDim.x) {
    int m = (int) ((1.0 + sqrt(1.0 + 8.0 * q)) / 2.0);    // q = m (m - 1) / 2 + t, t < m
    if (m * (m - 1) / 2 > q) m--;
    if ((m + 1) * m / 2 <= q) m++;
    const int t = q - m * (m - 1) / 2;
    double c = 0.0;
    if (stays[m] && stays[t]) {
      c = move_correction(sc[ty[m] * NT1 + ty[t]], was[t], now[t], was[m], now[m], FrameRsq<Real>{});
    }
    corr[(size_t) a * corr_cap + q] = c;
  }
}

static double arg(int argc, char **argv, const char *name, double def)
{
  for (int i = 1; i + 1 < argc; i++)
    if (std::string(argv[i]) == name) return std::atof(argv[i + 1]);
  return def;
}
static std::string sarg(int argc, char **argv, const char *name, const char *def)
{
  for (int i = 1; i + 1 < argc; i++)
    if (std::string(argv[i]) == name) return argv[i + 1];
  return def;
}

int main(int argc, char **argv)
{
  const int nside = (int) arg(argc, argv, "--n", 42);
  const double rc = 9.0, skin = arg(argc, argv, "--skin", 1.0), jitter = arg(argc, argv, "--jitter", 0.3);
  const int launches = (int) arg(argc, argv, "--launches", 40);
  const std::string out = sarg(argc, argv, "--out", ".");
  const int natoms = nside * nside * nside;
  const double a = std::cbrt(1.0 / 0.053679), L = nside * a;

  // the system: lattice sites, jitter, one third Si (type 1)
  std::mt19937_64 gen(12345);
  std::uniform_real_distribution<double> jit(-jitter, jitter);
  std::vector<double> x(3 * (size_t) natoms);
  std::vector<int> type(natoms, 2);
  for (int i = 0; i < natoms; i++) {
    const int c[3] = {i % nside, (i / nside) % nside, i / (nside * nside)};
    for (int d = 0; d < 3; d++) {
      double v = c[d] * a + jit(gen);
      v -= L * std::floor(v / L);
      x[3 * i + d] = v;
    }
  }
  std::vector<int> perm(natoms);
  for (int i = 0; i < natoms; i++) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), gen);
  for (int i = 0; i < natoms / 3; i++) type[perm[i]] = 1;

  // checkerboard grid (unshifted) and atoms in cell order
  Setup s;
  s.L = L;
  s.dmax = arg(argc, argv, "--dmax", 0.3);
  const double lo[3] = {0, 0, 0}, len[3] = {L, L, L};
  checker_grid(s.rng, s.sweep, lo, len, checker_min_width(rc), s.g);
  for (int d = 0; d < 3; d++) s.g.origin[d] = 0.0;
  std::vector<int> cell_of(natoms), order(natoms);
  for (int i = 0; i < natoms; i++) {
    int c[3];
    double u[3];
    cell_of[i] = checker_cell(s.g, &x[3 * i], c, u);
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](int p, int q) { return cell_of[p] < cell_of[q]; });
  std::vector<double4_32a> posd(natoms);
  std::vector<float4> posf(natoms);
  std::vector<int> cell_sorted(natoms);
  for (int k = 0; k < natoms; k++) {
    const int i = order[k];
    posd[k] = make_double4_32a(x[3 * i], x[3 * i + 1], x[3 * i + 2], (double) type[i]);
    float type_bits;
    std::memcpy(&type_bits, &type[i], sizeof type_bits);
    posf[k] = make_float4((float) x[3 * i], (float) x[3 * i + 1], (float) x[3 * i + 2], type_bits);
    cell_sorted[k] = cell_of[i];
  }
  // trials of colour 0: every atom of its cells, slot = place in the cell
  std::vector<TrialRef> trials;
  for (int k = 0; k < natoms; k++) {
    int c[3];
    double u[3];
    const double p[3] = {posd[k].x, posd[k].y, posd[k].z};
    checker_cell(s.g, p, c, u);
    if (checker_colour(c) != 0) continue;
    const int slot = (k == 0 || cell_sorted[k - 1] != cell_sorted[k]) ? 0 : trials.back().slot + 1;
    trials.push_back({k, cell_sorted[k], slot});
  }
  s.ntrials = (int) trials.size();
  std::vector<int> cell_first, cell_count;
  for (int t = 0; t < s.ntrials; t++) {
    if (trials[t].slot == 0) {
      cell_first.push_back(t);
      cell_count.push_back(0);
    }
    cell_count.back()++;
  }
  const int cell_max = *std::max_element(cell_count.begin(), cell_count.end());

  // full neighbour lists within rc + skin, from bins at least that wide
  const double rl = rc + skin, rlsq = rl * rl;
  const int nb = (int) (L / rl);
  std::vector<std::vector<int>> bin(nb * nb * nb);
  auto bin_of = [&](int k, int c[3]) {
    const double p[3] = {posd[k].x, posd[k].y, posd[k].z};
    for (int d = 0; d < 3; d++) c[d] = std::min(nb - 1, (int) (p[d] / L * nb));
  };
  for (int k = 0; k < natoms; k++) {
    int c[3];
    bin_of(k, c);
    bin[(c[2] * nb + c[1]) * nb + c[0]].push_back(k);
  }
  std::vector<std::vector<int>> nbl(natoms);
#pragma omp parallel for schedule(dynamic, 256)
  for (int k = 0; k < natoms; k++) {
    int c[3];
    bin_of(k, c);
    for (int dz = -1; dz <= 1; dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          const int b = ((((c[2] + dz + nb) % nb) * nb + (c[1] + dy + nb) % nb) * nb) + (c[0] + dx + nb) % nb;
          for (int j : bin[b]) {
            if (j == k) continue;
            double r2 = 0;
            const double dp[3] = {posd[j].x - posd[k].x, posd[j].y - posd[k].y, posd[j].z - posd[k].z};
            for (int d = 0; d < 3; d++) {
              const double v = dp[d] - L * std::rint(dp[d] / L);
              r2 += v * v;
            }
            if (r2 < rlsq) nbl[k].push_back(j);
          }
        }
    std::sort(nbl[k].begin(), nbl[k].end());
  }
  size_t maxnb = 0, total = 0;
  for (auto &l : nbl) {
    maxnb = std::max(maxnb, l.size());
    total += l.size();
  }
  maxnb = (maxnb + 31) / 32 * 32;
  std::vector<int> nnb(natoms), nbr((size_t) natoms * maxnb, 0), nbr_t((size_t) natoms * maxnb, 0);
  for (int k = 0; k < natoms; k++) {
    nnb[k] = (int) nbl[k].size();
    for (size_t m = 0; m < nbl[k].size(); m++) {
      nbr[(size_t) k * maxnb + m] = nbl[k][m];
      nbr_t[m * natoms + k] = nbl[k][m];
    }
  }

  // coefficients (pair_coeff of the benchmark decks), symmetric
  std::vector<PairCoeff> coeff(NT1 * NT1);
  coeff[1 * NT1 + 1] = make_morse(0.007695, 2.0446, 3.7598, rc, false);
  coeff[1 * NT1 + 2] = coeff[2 * NT1 + 1] = make_morse(1.99597, 2.6518, 1.628, rc, false);
  coeff[2 * NT1 + 2] = make_morse(0.023272, 1.3731, 3.791, rc, false);

  // brute-force reference for a sample of trials: double precision, every atom
  std::vector<int> sample;
  std::vector<double> ref;
  int within_old = 0, nstay = 0;
  for (int t = 0; t < s.ntrials; t += std::max(1, s.ntrials / 300)) {
    const TrialGeom tg = trial_geom(s, posd.data(), trials[t]);
    if (!tg.stays) continue;
    double e = 0.0;
    for (int j = 0; j < natoms; j++) {
      if (j == trials[t].atom) continue;
      double ro = 0, rn = 0;
      const double dp[3] = {posd[j].x - tg.p[0], posd[j].y - tg.p[1], posd[j].z - tg.p[2]};
      for (int d = 0; d < 3; d++) {
        const double v = dp[d] - L * std::rint(dp[d] / L), w = v - tg.disp[d];
        ro += v * v;
        rn += w * w;
      }
      const PairCoeff &pc = coeff[tg.itype * NT1 + (int) posd[j].w];
      e += pair_energy(pc, rn) - pair_energy(pc, ro);
      within_old += ro < pc.cutsq;
    }
    sample.push_back(t);
    ref.push_back(e);
  }
  for (int t = 0; t < s.ntrials; t++) nstay += trial_geom(s, posd.data(), trials[t]).stays;

  // device copies
  auto up = [](const auto &v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    T *d;
    CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
  };
  TrialRef *d_trials = up(trials);
  double4_32a *d_posd = up(posd);
  float4 *d_posf = up(posf);
  int *d_nnb = up(nnb), *d_nbr = up(nbr), *d_nbr_t = up(nbr_t);
  std::vector<PairCoeffT<float>> coeff_f(coeff.begin(), coeff.end());
  PairCoeff *d_coeff = up(coeff);
  PairCoeffT<float> *d_coeff_f = up(coeff_f);
  int *d_cell_first = up(cell_first), *d_cell_count = up(cell_count);
  const int corr_cap = cell_max * (cell_max - 1) / 2;
  double *d_corr;
  CHECK(cudaMalloc(&d_corr, (size_t) cell_first.size() * corr_cap * sizeof(double)));
  double *d_du;
  CHECK(cudaMalloc(&d_du, s.ntrials * sizeof(double)));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));

  std::printf("N %d  L %.3f  cells %d^3 (%d trials of colour 0, %d stay)  list rc+%.2f: mean %.1f max %zu  "
              "within rc of old: %.1f\n",
              natoms, L, s.g.n[0], s.ntrials, nstay, skin, (double) total / natoms, maxnb,
              (double) within_old / sample.size());
  // microseconds per launch after a checked warm-up launch: the median of three batches of
  // `launches` launches
  auto time_us = [&](auto launch) {
    launch();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    float ms[3];
    for (float &m : ms) {
      CHECK(cudaEventRecord(e0));
      for (int r = 0; r < launches; r++) launch();
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      CHECK(cudaEventElapsedTime(&m, e0, e1));
    }
    std::sort(ms, ms + 3);
    return 1e3 * ms[1] / launches;
  };
  std::string json = "[";
  auto measure = [&](const char *name, const char *prec, auto launch) {
    const double us = time_us(launch);
    std::vector<double> du(s.ntrials);
    CHECK(cudaMemcpy(du.data(), d_du, du.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double err = 0.0;
    for (size_t m = 0; m < sample.size(); m++) err = std::max(err, std::fabs(du[sample[m]] - ref[m]));
    const double rate = s.ntrials / (us * 1e-6);
    std::printf("| %d | %s | %s | %.1f | %.3g | %.2g |\n", natoms, name, prec, us, rate, err);
    char rec[512];
    std::snprintf(rec, sizeof rec,
                  "%s{\"n_atoms\": %d, \"kernel\": \"%s\", \"precision\": \"%s\", \"trials\": %d, \"us_per_colour\": %.3f, "
                  "\"trials_per_s\": %.4g, \"max_abs_du_error_eV\": %.3g, \"list_mean\": %.2f, \"skin\": %.2f}",
                  json.size() > 1 ? ", " : "", natoms, name, prec, s.ntrials, us, rate, err, (double) total / natoms, skin);
    json += rec;
  };
  const int block = 128;
  const int warp_blocks = (int) ((32L * s.ntrials + block - 1) / block);
  const double cutsq_max = rc * rc;
  std::printf("| N | kernel | precision | us per colour | trials/s | max abs error of dU (eV) |\n|---|---|---|---|---|---|\n");
  const size_t shf = (size_t) (block / 32) * maxnb * (2 * sizeof(float) + 1);
  const size_t shd = (size_t) (block / 32) * maxnb * (2 * sizeof(double) + 1);
  measure("warp_list", "float positions", [&] {
    warp_list<float, float4><<<warp_blocks, block, shf>>>(s, d_trials, d_posd, d_posf, d_nnb, d_nbr, (int) maxnb, d_coeff_f,
                                                          cutsq_max, d_du);
  });
  measure("warp_list", "mixed", [&] {
    warp_list<float, double4_32a><<<warp_blocks, block, shf>>>(s, d_trials, d_posd, d_posd, d_nnb, d_nbr, (int) maxnb, d_coeff_f,
                                                           cutsq_max, d_du);
  });
  measure("warp_list", "double", [&] {
    warp_list<double, double4_32a><<<warp_blocks, block, shd>>>(s, d_trials, d_posd, d_posd, d_nnb, d_nbr, (int) maxnb, d_coeff,
                                                            cutsq_max, d_du);
  });
  auto groups = [&](auto g_tag, const char *name) {
    constexpr int G = decltype(g_tag)::value;
    const int blocks = (int) (((long) G * s.ntrials + block - 1) / block);
    const int *list = G == 1 ? d_nbr_t : d_nbr;
    measure(name, "float positions", [&] {
      group_pred<G, float, float4><<<blocks, block>>>(s, d_trials, d_posd, d_posf, d_nnb, list, (int) maxnb, natoms, d_coeff_f, d_du);
    });
    measure(name, "mixed", [&] {
      group_pred<G, float, double4_32a><<<blocks, block>>>(s, d_trials, d_posd, d_posd, d_nnb, list, (int) maxnb, natoms, d_coeff_f, d_du);
    });
    measure(name, "double", [&] {
      group_pred<G, double, double4_32a><<<blocks, block>>>(s, d_trials, d_posd, d_posd, d_nnb, list, (int) maxnb, natoms, d_coeff, d_du);
    });
  };
  groups(std::integral_constant<int, 32>{}, "warp_pred (32 lanes per trial)");
  groups(std::integral_constant<int, 16>{}, "16 lanes per trial");
  groups(std::integral_constant<int, 8>{}, "8 lanes per trial");
  groups(std::integral_constant<int, 4>{}, "4 lanes per trial");
  groups(std::integral_constant<int, 2>{}, "2 lanes per trial");
  groups(std::integral_constant<int, 1>{}, "thread per trial");
  // the corrections: timed like the trials (rate in trials per second of the colour); no error
  // column (du is not written)
  std::vector<TrialGeom> first_cell;    // the trials of the first cell, whose corrections are checked
  for (int k = 0; k < cell_count[0]; k++) first_cell.push_back(trial_geom(s, posd.data(), trials[k]));
  auto corrections = [&](const char *prec, auto launch) {
    const double us = time_us(launch);
    // check the first cell's corrections against double-precision nearest-image terms
    std::vector<double> c(corr_cap);
    CHECK(cudaMemcpy(c.data(), d_corr, corr_cap * sizeof(double), cudaMemcpyDeviceToHost));
    double err = 0.0;
    for (int m = 1; m < cell_count[0]; m++)
      for (int t = 0; t < m; t++) {
        const TrialGeom &gm = first_cell[m], &gt = first_cell[t];
        double ref = 0.0;
        if (gm.stays && gt.stays) {
          const PairCoeff &pc = coeff[gm.itype * NT1 + gt.itype];
          auto rsq = [&](double om, double ot) {    // om, ot: 0 old, 1 new position
            double r2 = 0.0;
            for (int d = 0; d < 3; d++) {
              double v = gm.p[d] + om * gm.disp[d] - gt.p[d] - ot * gt.disp[d];
              v -= L * std::rint(v / L);
              r2 += v * v;
            }
            return r2;
          };
          ref = pair_energy(pc, rsq(1, 1)) - pair_energy(pc, rsq(1, 0)) - pair_energy(pc, rsq(0, 1)) +
                pair_energy(pc, rsq(0, 0));
        }
        err = std::max(err, std::fabs(c[m * (m - 1) / 2 + t] - ref));
      }
    std::printf("| %d | cell_corrections (%zu cells, at most %d trials) | %s | %.1f | %.3g | %.2g (first cell) |\n",
                natoms, cell_first.size(), cell_max, prec, us, s.ntrials / (us * 1e-6), err);
    char rec[512];
    std::snprintf(rec, sizeof rec,
                  ", {\"n_atoms\": %d, \"kernel\": \"cell_corrections\", \"precision\": \"%s\", \"trials\": %d, "
                  "\"us_per_colour\": %.3f, \"cells\": %zu}",
                  natoms, prec, s.ntrials, us, cell_first.size());
    json += rec;
  };
  const int ncells_active = (int) cell_first.size();
  corrections("mixed", [&] {
    cell_corrections<float><<<ncells_active, 128>>>(s, d_trials, d_cell_first, d_cell_count, d_posd, d_coeff_f, corr_cap, d_corr);
  });
  corrections("double", [&] {
    cell_corrections<double><<<ncells_active, 128>>>(s, d_trials, d_cell_first, d_cell_count, d_posd, d_coeff, corr_cap, d_corr);
  });
  json += "]\n";
  const std::string path = out + "/nlist-" + std::to_string(nside) + ".json";
  FILE *f = std::fopen(path.c_str(), "w");
  if (f) {
    std::fputs(json.c_str(), f);
    std::fclose(f);
  }
  return 0;
}
