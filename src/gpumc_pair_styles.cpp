/* ----------------------------------------------------------------------
   GPUMC: the interactions of LAMMPS's pair styles (and an Ewald sum) as GPUMC's pair table: the
   terms of each type pair from the styles' readers (gpumc_pair_readers.h), hybrid sub-styles
   combined, the types' charges, Coulomb self energies and the Ewald sum's count energy.
------------------------------------------------------------------------- */

#include "gpumc_pair_readers.h"

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "force.h"
#include "info.h"
#include "kspace.h"
#include "pair.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace LAMMPS_NS;
using GPUMC::PairReader;

namespace {

// Per type: the charge its atoms share (NaN: no atom of the type). Atoms of one type with
// different charges are an error: GPUMC's Coulomb terms are per type pair.
std::vector<double> type_charges(LAMMPS *lmp, const std::string &who)
{
  Atom *atom = lmp->atom;
  const int ntypes = atom->ntypes;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> lo(ntypes + 1, inf), hi(ntypes + 1, -inf), glo(ntypes + 1), ghi(ntypes + 1);
  if (!atom->q) lmp->error->all(FLERR, "{}: the pair style has Coulomb terms but the atoms have no charges", who);
  for (int k = 0; k < atom->nlocal; k++) {
    const int t = atom->type[k];
    lo[t] = std::min(lo[t], atom->q[k]);
    hi[t] = std::max(hi[t], atom->q[k]);
  }
  MPI_Allreduce(lo.data(), glo.data(), ntypes + 1, MPI_DOUBLE, MPI_MIN, lmp->world);
  MPI_Allreduce(hi.data(), ghi.data(), ntypes + 1, MPI_DOUBLE, MPI_MAX, lmp->world);
  std::vector<double> charge(ntypes + 1, std::numeric_limits<double>::quiet_NaN());
  for (int t = 1; t <= ntypes; t++) {
    if (glo[t] > ghi[t]) continue;    // no atoms
    if (glo[t] != ghi[t])
      lmp->error->all(FLERR, "{} requires one charge per atom type: type {} has charges from {} to {}", who, t, glo[t],
                      ghi[t]);
    charge[t] = glo[t];
  }
  return charge;
}

// The k-space solver: exact Ewald alone. Its self and background terms go into the table's count
// energy (self energies, and tail coefficients times N_i N_j / V).
void add_ewald(LAMMPS *lmp, const std::string &who, gpumc::PairTable &table)
{
  Force *force = lmp->force;
  const std::string kstyle = GPUMC::without_accelerator_suffix(force->kspace_style);
  if (kstyle == "ewald") {
    KSpace *k = force->kspace;
    if (!k->compute_flag)
      lmp->error->all(FLERR, "{} does not support kspace_modify compute no (the energy would lack its k-space part)",
                      who);
    if (table.charge.empty())
      lmp->error->all(FLERR, "{}: kspace_style ewald needs a coul/long pair style (coul/long, lj/cut/coul/long, "
                      "buck/coul/long, born/coul/long)", who);
    table.ewald = GPUMC::read_ewald(lmp, who);
    const gpumc::EwaldSettings &s = table.ewald;
    const int n1 = table.ntypes + 1;
    if (table.self.empty()) table.self.assign(n1, 0.0);
    if (table.tail.empty()) table.tail.assign((size_t) n1 * n1, 0.0);
    for (int i = 1; i <= table.ntypes; i++) {
      const double qi = std::isnan(table.charge[i]) ? 0.0 : table.charge[i];
      table.self[i] += gpumc::ewald_self_energy(s, qi);
      for (int j = 1; j <= table.ntypes; j++) {
        const double qj = std::isnan(table.charge[j]) ? 0.0 : table.charge[j];
        table.tail[i * n1 + j] += gpumc::ewald_background_coeff(s, qi, qj);
      }
    }
    return;
  }
  lmp->error->all(FLERR, "{} supports kspace_style ewald only (the exact Ewald sum), not {}", who, force->kspace_style);
}

}    // namespace

gpumc::PairTable GPUMC::pair_table(LAMMPS *lmp, const std::string &who)
{
  Error *error = lmp->error;
  Force *force = lmp->force;
  Pair *pair = force->pair;
  if (!pair || !force->pair_style || strcmp(force->pair_style, "none") == 0 || strcmp(force->pair_style, "zero") == 0)
    error->all(FLERR, "{} requires a pair style ({})", who, supported_pair_styles());
  const std::string full_style = force->pair_style;
  const std::string style = without_accelerator_suffix(full_style);
  if (style == "hybrid/scaled") error->all(FLERR, "{} does not support pair style hybrid/scaled", who);
  const bool hybrid = style == "hybrid" || style == "hybrid/overlay";
  const int ntypes = lmp->atom->ntypes;

  // the styles of each type pair (i <= j): the pair style, or hybrid's sub-styles for the pair
  auto styles_of = [&](int i, int j) {
    if (hybrid) return hybrid_substyles(pair, i, j);
    return std::vector<PairSubStyle>{{pair, style}};
  };
  bool coulomb = false;
  for (int i = 1; i <= ntypes; i++)
    for (int j = i; j <= ntypes; j++)
      for (const auto &sub : styles_of(i, j)) {
        const auto it = pair_style_readers().find(sub.style);
        if (it == pair_style_readers().end())
          error->all(FLERR, "{} does not support pair style {}{}; it supports {}", who, sub.style,
                     hybrid ? " (a sub-style of " + full_style + ")" : "", supported_pair_styles());
        coulomb = coulomb || it->second.coulomb;
      }
  const std::vector<double> charge =
      coulomb ? type_charges(lmp, who) : std::vector<double>(ntypes + 1, std::numeric_limits<double>::quiet_NaN());

  if (without_accelerator_suffix(full_style) == "morse" && lmp->comm->me == 0) {
    if (full_style.find("/kk") != std::string::npos && Info(lmp).is_active("pair", "shift"))
      error->warning(FLERR, "{}: pair style {} of LAMMPS 4Feb2025 ignores pair_modify shift (fixed upstream in "
                     "lammps/lammps#5182): thermo pe omits the offsets, while GPUMC's energies include them as pair "
                     "style morse does", who, full_style);
    if (pair->tail_flag)
      error->warning(FLERR,
                     "{}: pair style morse has no tail correction in LAMMPS; 'pair_modify tail yes' adds nothing", who);
  }

  // The styles keep their coefficients for i <= j only (lj/cut never mirrors epsilon and sigma
  // to [j][i]), so read the upper triangle and mirror it.
  std::vector<PairReader> pairs;
  size_t nterms = 1;
  bool any_tail = false;
  // DSF and Wolf Coulomb tally a self energy for each atom of the types they act on (a hybrid
  // sub-style, those of the pairs mapped to it); their settings, and the types
  bool self = false;
  double self_shift = 0.0, self_alpha = 0.0;
  std::vector<bool> self_type(ntypes + 1, false);
  for (int i = 1; i <= ntypes; i++)
    for (int j = i; j <= ntypes; j++) {
      PairReader r{lmp, who, style, charge, i, j};
      for (const auto &sub : styles_of(i, j)) {
        PairReader s{lmp, who, sub.style, charge, i, j};
        pair_style_readers().at(sub.style).read(sub.pair, s);
        for (auto &t : s.tables) r.tables.emplace_back(r.terms.size() + t.first, std::move(t.second));
        r.terms.insert(r.terms.end(), s.terms.begin(), s.terms.end());
        r.tail += s.tail;
        any_tail = any_tail || sub.pair->tail_flag;
        if (s.self) {
          if (self && (self_shift != s.self_shift || self_alpha != s.self_alpha))
            error->all(FLERR, "{} supports one setting of DSF or Wolf Coulomb sub-styles, not two", who);
          self = true;
          self_shift = s.self_shift;
          self_alpha = s.self_alpha;
          self_type[i] = self_type[j] = true;
        }
      }
      nterms = std::max(nterms, r.terms.size());
      pairs.push_back(std::move(r));
    }

  gpumc::PairTable table(ntypes, (int) nterms);
  if (any_tail) table.tail.assign((ntypes + 1) * (ntypes + 1), 0.0);
  for (const PairReader &r : pairs) {
    for (size_t t = 0; t < r.terms.size(); t++) table.at(r.i, r.j, (int) t) = table.at(r.j, r.i, (int) t) = r.terms[t];
    if (any_tail) table.tail[r.i * (ntypes + 1) + r.j] = table.tail[r.j * (ntypes + 1) + r.i] = r.tail;
  }
  for (const PairReader &r : pairs)
    for (const auto &t : r.tables) table.add_table_values(t.second, {r.i, r.j, (int) t.first, r.j, r.i, (int) t.first});
  if (self) {
    table.self.assign(ntypes + 1, 0.0);
    for (int t = 1; t <= ntypes; t++)
      if (self_type[t] && !std::isnan(charge[t]))
        table.self[t] = gpumc::coul_self_energy(self_shift, self_alpha, charge[t], force->qqrd2e);
  }
  if (coulomb) table.charge = charge;
  if (force->kspace) add_ewald(lmp, who, table);
  table.finalize();
  return table;
}
