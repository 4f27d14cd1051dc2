// The host engine against brute force: all-pairs minimum-image sums, for boxes from two to
// several cells wide, several types and both potentials; moves, rescaling and restoration.

#include "gpumc_system_host.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gpumc;

namespace {

// Three types: lj/cut between like types, morse between unlike ones, per-pair cutoffs.
PairTable mixed_table(bool shift, bool tail)
{
  PairTable t(3);
  t.at(1, 1) = make_lj_cut(1.0, 1.0, 2.5, shift);
  t.at(2, 2) = make_lj_cut(0.7, 1.2, 2.2, shift);
  t.at(3, 3) = make_lj_cut(0.4, 0.9, 1.8, shift);
  t.at(1, 2) = t.at(2, 1) = make_morse(0.5, 1.7, 1.1, 2.4, shift);
  t.at(1, 3) = t.at(3, 1) = make_morse(1.2, 2.1, 1.0, 2.0, shift);
  t.at(2, 3) = t.at(3, 2) = make_lj_cut(0.3, 1.0, 1.5, shift);
  if (tail) {
    t.tail.assign(16, 0.0);
    for (int i = 1; i <= 3; i++)
      for (int j = 1; j <= 3; j++) t.tail[i * 4 + j] = 0.01 * (i + j);    // any numbers will do
  }
  t.finalize();
  return t;
}

struct Config {
  std::vector<double> x;
  std::vector<int> type;
  Box box;
};

// n atoms, uniformly placed but not closer than rmin (so energies stay finite)
Config random_config(int n, const double len[3], unsigned seed, double rmin = 0.8)
{
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Config c;
  for (int d = 0; d < 3; d++) {
    c.box.lo[d] = -0.3 * len[d];
    c.box.len[d] = len[d];
  }
  while ((int) c.type.size() < n) {
    double p[3];
    for (int d = 0; d < 3; d++) p[d] = c.box.lo[d] + len[d] * u(gen);
    bool ok = true;
    for (size_t j = 0; j < c.type.size() && ok; j++) {
      double rsq = 0.0;
      for (int d = 0; d < 3; d++) {
        double dd = p[d] - c.x[3 * j + d];
        dd -= len[d] * std::round(dd / len[d]);
        rsq += dd * dd;
      }
      ok = rsq > rmin * rmin;
    }
    if (!ok) continue;
    c.x.insert(c.x.end(), p, p + 3);
    c.type.push_back(1 + (int) (3 * u(gen)));
  }
  return c;
}

double brute_pair(const PairTable &t, const Box &b, int ti, const double *p, int tj, const double *q)
{
  double rsq = 0.0;
  for (int d = 0; d < 3; d++) {
    double dd = p[d] - q[d];
    dd -= b.len[d] * std::round(dd / b.len[d]);
    rsq += dd * dd;
  }
  return pair_energy(t.at(ti, tj), rsq);
}

double brute_total(const PairTable &t, const Box &b, const std::vector<double> &x, const std::vector<int> &type)
{
  double e = 0.0;
  for (size_t i = 0; i < type.size(); i++)
    for (size_t j = i + 1; j < type.size(); j++) e += brute_pair(t, b, type[i], &x[3 * i], type[j], &x[3 * j]);
  if (!t.tail.empty()) {
    long count[4] = {0, 0, 0, 0};
    for (int ty : type) count[ty]++;
    double s = 0.0;
    for (int i = 1; i <= 3; i++)
      for (int j = 1; j <= 3; j++) s += count[i] * count[j] * t.tail_coeff(i, j);
    e += s / b.volume();
  }
  return e;
}

double brute_particle(const PairTable &t, const Box &b, const std::vector<double> &x, const std::vector<int> &type,
                      int skip, int ti, const double *p)
{
  double e = 0.0;
  for (size_t j = 0; j < type.size(); j++)
    if ((int) j != skip) e += brute_pair(t, b, ti, p, type[j], &x[3 * j]);
  return e;
}

// box shapes from barely two cutoffs (cells of one or two per side) to several cells
const double SHAPES[][3] = {{5.0, 5.0, 5.0}, {5.3, 6.9, 8.2}, {7.6, 7.6, 7.6}, {12.5, 5.1, 10.0}};

}    // namespace

TEST(Engine, TotalEnergyMatchesBruteForce)
{
  for (bool shift : {false, true})
    for (bool tail : {false, true})
      for (const auto &len : SHAPES) {
        const PairTable t = mixed_table(shift, tail);
        const Config c = random_config(120, len, 7);
        HostSystem sys(t);
        sys.set_configuration(c.x, c.type, c.box);
        const double ref = brute_total(t, c.box, c.x, c.type);
        EXPECT_NEAR(sys.total_energy(), ref, 1e-11 * std::fabs(ref)) << "box " << len[0] << " " << len[1] << " " << len[2];
      }
}

TEST(Engine, ParticleMoveAndInsertionEnergiesMatchBruteForce)
{
  const PairTable t = mixed_table(true, true);
  for (const auto &len : SHAPES) {
    const Config c = random_config(100, len, 11);
    HostSystem sys(t);
    sys.set_configuration(c.x, c.type, c.box);
    std::mt19937_64 gen(3);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int k = 0; k < 200; k++) {
      const int i = (int) (u(gen) * c.type.size());
      double p[3];
      for (int d = 0; d < 3; d++) p[d] = c.box.lo[d] + c.box.len[d] * u(gen);
      const double e_new = brute_particle(t, c.box, c.x, c.type, i, c.type[i], p);
      const double e_old = brute_particle(t, c.box, c.x, c.type, i, c.type[i], &c.x[3 * i]);
      EXPECT_NEAR(sys.particle_energy(i, p), e_new, 1e-11 * (1.0 + std::fabs(e_new)));
      EXPECT_NEAR(sys.move_energy_change(i, p), e_new - e_old, 1e-11 * (1.0 + std::fabs(e_new - e_old)));
      // a small move usually stays in the same cell: the one-pass path
      double q[3];
      for (int d = 0; d < 3; d++) q[d] = c.x[3 * i + d] + 0.05 * (u(gen) - 0.5);
      int shift[3] = {0, 0, 0};
      sys.wrap(q, shift);
      const double dq = brute_particle(t, c.box, c.x, c.type, i, c.type[i], q) - e_old;
      EXPECT_NEAR(sys.move_energy_change(i, q), dq, 1e-11 * (1.0 + std::fabs(dq)));
      // insertion: pair energy with all atoms plus the change of the tail correction
      const int ti = 1 + k % 3;
      std::vector<double> x2 = c.x;
      std::vector<int> t2 = c.type;
      x2.insert(x2.end(), p, p + 3);
      t2.push_back(ti);
      const double dins = brute_total(t, c.box, x2, t2) - brute_total(t, c.box, c.x, c.type);
      EXPECT_NEAR(sys.insertion_energy(ti, p), dins, 1e-10 * (1.0 + std::fabs(dins)));
    }
  }
}

TEST(Engine, RunningEnergyOfAcceptedMovesMatchesRecomputation)
{
  const PairTable t = mixed_table(false, false);
  for (const auto &len : SHAPES) {
    const Config c = random_config(150, len, 5);
    HostSystem sys(t);
    sys.set_configuration(c.x, c.type, c.box);
    std::vector<int> mobile(c.type.size());
    for (size_t i = 0; i < mobile.size(); i++) mobile[i] = (int) i;
    double energy = sys.total_energy();
    const CounterRNG rng(12345, RNG_TRANSLATION);
    const MoveCounts counts = translation_moves(sys, mobile, 1.0, 0.4, rng, 0, 20000, energy);
    EXPECT_GT(counts.accepted, 1000u);
    EXPECT_LT(counts.accepted, counts.trials);
    const std::vector<double> x = sys.positions();
    const double ref = brute_total(t, sys.box(), x, sys.types());
    EXPECT_NEAR(energy, ref, 1e-9 * std::fabs(ref));
    EXPECT_NEAR(sys.total_energy(), ref, 1e-11 * std::fabs(ref));
    EXPECT_NEAR(sys.canonical_total_energy(), ref, 1e-11 * std::fabs(ref));
    for (int i = 0; i < sys.natoms(); i++)
      for (int d = 0; d < 3; d++) {
        EXPECT_GE(x[3 * i + d], sys.box().lo[d]);
        EXPECT_LT(x[3 * i + d], sys.box().lo[d] + sys.box().len[d]);
      }
    // unwrapped displacement = wrapped displacement + images crossed
    const auto &img = sys.image_shifts();
    for (int i = 0; i < sys.natoms(); i++)
      for (int d = 0; d < 3; d++) {
        const double unwrapped = x[3 * i + d] + img[3 * i + d] * sys.box().len[d];
        EXPECT_LT(std::fabs(unwrapped - c.x[3 * i + d]), 0.4 * 20000);    // finite, consistent
      }
  }
}

TEST(Engine, SameSeedSameChain)
{
  const PairTable t = mixed_table(false, false);
  const double len[3] = {7.6, 7.6, 7.6};
  const Config c = random_config(100, len, 9);
  std::vector<int> mobile(100);
  for (int i = 0; i < 100; i++) mobile[i] = i;
  std::vector<double> finals[2];
  for (int rep = 0; rep < 2; rep++) {
    HostSystem sys(t);
    sys.set_configuration(c.x, c.type, c.box);
    double e = sys.total_energy();
    const CounterRNG rng(77, RNG_TRANSLATION);
    // the same 3000 moves, split differently, give the same chain
    if (rep == 0) {
      translation_moves(sys, mobile, 1.0, 0.3, rng, 0, 3000, e);
    } else {
      translation_moves(sys, mobile, 1.0, 0.3, rng, 0, 1000, e);
      translation_moves(sys, mobile, 1.0, 0.3, rng, 1000, 2000, e);
    }
    finals[rep] = sys.positions();
  }
  EXPECT_EQ(finals[0], finals[1]);
}

TEST(Engine, RescaleMatchesBruteForceAndRejectionRestoresExactly)
{
  const PairTable t = mixed_table(false, true);
  const double len[3] = {9.0, 8.0, 7.5};
  const Config c = random_config(150, len, 21);
  HostSystem sys(t);
  sys.set_configuration(c.x, c.type, c.box);
  const std::vector<double> x0 = sys.positions();
  // scaled configuration: energy against brute force, including a change of the cell grid
  for (double s : {1.02, 0.97, 1.3, 0.7}) {
    HostSystem scaled = sys;
    const double nl[3] = {len[0] * s, len[1] * s, len[2] * s};
    if (nl[2] < scaled.min_side()) continue;
    scaled.rescale_box(nl);
    const double ref = brute_total(t, scaled.box(), scaled.positions(), scaled.types());
    EXPECT_NEAR(scaled.total_energy(), ref, 1e-11 * std::fabs(ref)) << "scale " << s;
  }
  // a rejected volume move leaves everything bit for bit (a large pressure rejects expansions)
  VolumeMoveParams p;
  p.scheme = VOLUME_SIDES;
  p.step = 0.5;
  p.beta = 1.0;
  p.pressure_energy = 1e3;
  double energy = sys.total_energy();
  const CounterRNG rng(3, RNG_VOLUME);
  int rejected = 0;
  for (int m = 0; m < 40; m++) {
    const Box before = sys.box();
    const std::vector<double> xb = sys.positions();
    const double e0 = energy;
    if (!volume_move(sys, p, rng, m, energy)) {
      rejected++;
      EXPECT_EQ(sys.positions(), xb);
      for (int d = 0; d < 3; d++) {
        EXPECT_EQ(sys.box().lo[d], before.lo[d]);
        EXPECT_EQ(sys.box().len[d], before.len[d]);
      }
      EXPECT_EQ(energy, e0);
    } else {
      EXPECT_NEAR(energy, brute_total(t, sys.box(), sys.positions(), sys.types()), 1e-9 * std::fabs(energy));
    }
  }
  EXPECT_GT(rejected, 5);
}

TEST(Engine, BoxesBelowTwiceTheCutoffAreRefused)
{
  const PairTable t = mixed_table(false, false);
  const double len[3] = {4.9, 6.0, 6.0};    // largest cutoff 2.5
  Config c = random_config(10, (const double[3]){6.0, 6.0, 6.0}, 1);
  for (int d = 0; d < 3; d++) c.box.len[d] = len[d];
  HostSystem sys(t);
  EXPECT_THROW(sys.set_configuration(c.x, c.type, c.box), std::invalid_argument);
}

// The Metropolis test from a precomputed log u (the checkerboard kernel's) decides exactly as
// the plain one: random ratios and numbers, numbers within an ulp of the threshold, u = 0, and
// ratios so small that exp underflows.
TEST(Moves, MetropolisFromLogUDecidesAsThePlainTest)
{
  std::mt19937_64 gen(2024);
  std::uniform_real_distribution<double> ratio(-60.0, 1.0), unit(0.0, 1.0);
  long disagreements = 0, near_threshold = 0;
  for (int n = 0; n < 1000000; n++) {
    const double lr = ratio(gen);
    double u = unit(gen);
    if (n % 4 == 1) {    // u next to exp(lr), on either side
      u = std::exp(lr);
      for (int k = (int) (gen() % 5); k > 0; k--) u = std::nextafter(u, (n % 8 == 1) ? 0.0 : 1.0);
      near_threshold++;
    }
    if (n % 1000 == 3) u = 0.0;
    const double log_u = std::log(u);
    disagreements += metropolis_accept(lr, u) != metropolis_accept_log(lr, u, log_u);
  }
  for (double lr : {-700.0, -745.2, -800.0, -1e300})
    for (double u : {0.0, 1e-320, 1.1e-16, 0.5}) disagreements += metropolis_accept(lr, u) != metropolis_accept_log(lr, u, std::log(u));
  EXPECT_EQ(disagreements, 0);
  EXPECT_GT(near_threshold, 200000);
}

// The table is analytic (kernels for PairsAnalytic) exactly when every term is of a kind with its
// own expression: none, lj/cut, morse, born, buck, yukawa, coul/cut, coul/dsf, coul/long; a term
// of mie/cut, soft, the library erfc or a table makes it need the kernels for every kind.
TEST(Engine, AnalyticOnlyTablesHaveNoRareKind)
{
  for (int kind : {PAIR_NONE, PAIR_LJ_CUT, PAIR_MORSE, PAIR_BORN, PAIR_BUCK, PAIR_YUKAWA, PAIR_COUL_CUT, PAIR_COUL_DSF,
                   PAIR_COUL_LONG, PAIR_MIE, PAIR_SOFT, PAIR_COUL_ERFC, PAIR_TABLE_LOOKUP, PAIR_TABLE_LINEAR,
                   PAIR_TABLE_SPLINE}) {
    PairTable table(2, 2);
    table.at(1, 2, 0).kind = PAIR_BUCK;
    table.at(1, 2, 1).kind = kind;
    const bool rare = kind == PAIR_MIE || kind == PAIR_SOFT || kind == PAIR_COUL_ERFC || kind >= PAIR_TABLE_LOOKUP;
    EXPECT_EQ(table.analytic_only(), !rare) << "kind " << kind;
  }
}

// pair_energies (a type pair's terms at a moved atom's new and old distances, in one dispatch per
// term: the checkerboard trial kernel's evaluation) gives the values of two pair_energy calls, for
// every kind but the tables, in the kernels' three sets of kinds, inside and beyond each cutoff.
TEST(Engine, PairEnergiesAtTwoDistancesAreTwoPairEnergyCalls)
{
  auto term = [](int kind, double cut, double a, double b, double c, double d, double e, double offset) {
    return make_pair_term(kind, cut * cut, a, b, c, d, e, offset);
  };
  const std::vector<PairCoeff> kinds = {
      make_lj_cut(0.1, 1.5, 3.0, true),
      make_morse(1.99597, 2.6518, 1.628, 9.0, true),
      term(PAIR_BORN, 7.0, 0.25, 1.0 / 0.317, 2.34, 1.05, 0.49, 0.001),
      term(PAIR_BUCK, 8.0, 18003.7572, 1.0 / 0.205205, 133.5381, 0.0, 0.0, 0.0),
      term(PAIR_YUKAWA, 6.0, 2.0, 0.8, 0.0, 0.0, 0.0, 0.01),
      term(PAIR_COUL_CUT, 9.0, -41.5, 0.0, 0.0, 0.0, 0.0, 0.0),
      term(PAIR_COUL_DSF, 9.0, -41.5, 0.25, 0.012, 0.0013, 0.0, 0.0),
      term(PAIR_COUL_LONG, 9.0, 20.7, 0.31, 0.0, 0.0, 0.0, 0.0),
      term(PAIR_COUL_ERFC, 8.5, 20.7, 0.2, 0.015, 0.0, 0.0, 0.0),    // rare
      term(PAIR_MIE, 5.0, 3.0, 2.0, 7.0, 3.0, 0.0, 0.0),              // rare
      term(PAIR_SOFT, 2.5, 4.0, 2.5, 0.0, 0.0, 0.0, 0.0),             // rare
      PairCoeff{},
  };
  std::mt19937_64 gen(2911);
  std::uniform_real_distribution<double> r(0.7, 10.0);
  std::uniform_int_distribution<int> pick(0, (int) kinds.size() - 1);
  int compared = 0;
  for (int trial = 0; trial < 2000; trial++) {
    const int nterms = 1 + trial % 3;
    PairCoeff terms[3];
    for (int t = 0; t < nterms; t++) terms[t] = kinds[pick(gen)];
    const double ra = r(gen), rb = r(gen), rsq_a = ra * ra, rsq_b = rb * rb;
    double e_a, e_b;
    pair_energies<PairsAny>(terms, nterms, rsq_a, rsq_b, e_a, e_b);
    EXPECT_EQ(e_a, pair_energy<PairsAny>(terms, nterms, rsq_a));
    EXPECT_EQ(e_b, pair_energy<PairsAny>(terms, nterms, rsq_b));
    pair_energies<PairsAnalytic>(terms, nterms, rsq_a, rsq_b, e_a, e_b);
    EXPECT_EQ(e_a, pair_energy<PairsAnalytic>(terms, nterms, rsq_a));
    EXPECT_EQ(e_b, pair_energy<PairsAnalytic>(terms, nterms, rsq_b));
    if (terms[0].kind == PAIR_LJ_CUT || terms[0].kind == PAIR_MORSE) {
      pair_energies<PairsLJMorse>(terms, 1, rsq_a, rsq_b, e_a, e_b);
      EXPECT_EQ(e_a, pair_energy<PairsLJMorse>(terms, 1, rsq_a));
      EXPECT_EQ(e_b, pair_energy<PairsLJMorse>(terms, 1, rsq_b));
    }
    compared++;
  }
  EXPECT_EQ(compared, 2000);
}
