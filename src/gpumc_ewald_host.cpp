// Host engine: the reciprocal-space part of an Ewald sum (gpumc_ewald.h), its structure factors
// kept up to date with every accepted move. A position's term in every S comes from its phase
// tables (EwaldPhases): products of per-dimension factors.

#include "gpumc_system_host.h"

#include <cmath>

namespace gpumc {

double HostSystem::ewald_charge(int type) const
{
  const double q = table_->charge.empty() ? 0.0 : table_->charge[type];
  return std::isnan(q) ? 0.0 : q;
}

void HostSystem::ewald_setup()
{
  kvec_ = ewald_vectors(table_->ewald, box_.len);
  ewald_structure_factors();
}

// S from the positions, summed in atom order
void HostSystem::ewald_structure_factors()
{
  delta_move_.valid = false;
  s_re_.assign(kvec_.size(), 0.0);
  s_im_.assign(kvec_.size(), 0.0);
  if (kvec_.empty()) return;
  phases_old_.set_kmax(kvec_);
  phases_new_.set_kmax(kvec_);
  for (int i = 0; i < natoms(); i++) {
    double pos[3];
    position(i, pos);
    const double q = ewald_charge(type_[i]);
    phases_new_.compute(pos, box_.lo, box_.len);
    for (size_t k = 0; k < kvec_.size(); k++) {
      double re, im;
      phases_new_.term(kvec_[k].m, q, re, im);
      s_re_[k] += re;
      s_im_[k] += im;
    }
  }
}

// Volume moves scale the positions with the box, so S is unchanged where the wave vectors are
void HostSystem::ewald_rescale()
{
  delta_move_.valid = false;    // (a move's change of S depends on the box)
  if (!table_->ewald.enabled) return;
  std::vector<EwaldVector> kvec = ewald_vectors(table_->ewald, box_.len);
  const bool same = same_wave_vectors(kvec, kvec_);
  kvec_ = std::move(kvec);
  if (!same) ewald_structure_factors();
}

double HostSystem::ewald_energy() const
{
  double e = 0.0;
  for (size_t k = 0; k < kvec_.size(); k++) e += kvec_[k].ug * (s_re_[k] * s_re_[k] + s_im_[k] * s_im_[k]);
  return table_->ewald.qqrd2e * e;
}

// the change of S of a move, per wave vector, into delta_re_, delta_im_
void HostSystem::ewald_move_delta(int type, const double old_pos[3], const double new_pos[3]) const
{
  const double q = ewald_charge(type);
  phases_old_.compute(old_pos, box_.lo, box_.len);
  phases_new_.compute(new_pos, box_.lo, box_.len);
  delta_re_.resize(kvec_.size());
  delta_im_.resize(kvec_.size());
  for (size_t k = 0; k < kvec_.size(); k++) {
    double o_re, o_im, n_re, n_im;
    phases_old_.term(kvec_[k].m, q, o_re, o_im);
    phases_new_.term(kvec_[k].m, q, n_re, n_im);
    delta_re_[k] = n_re - o_re;
    delta_im_[k] = n_im - o_im;
  }
  delta_move_.valid = true;
  delta_move_.type = type;
  for (int d = 0; d < 3; d++) {
    delta_move_.old_pos[d] = old_pos[d];
    delta_move_.new_pos[d] = new_pos[d];
  }
}

double HostSystem::ewald_move_change(int type, const double old_pos[3], const double new_pos[3]) const
{
  if (kvec_.empty()) return 0.0;
  ewald_move_delta(type, old_pos, new_pos);
  double e = 0.0;
  for (size_t k = 0; k < kvec_.size(); k++) e += ewald_change(kvec_[k].ug, s_re_[k], s_im_[k], delta_re_[k], delta_im_[k]);
  return table_->ewald.qqrd2e * e;
}

double HostSystem::ewald_insertion_change(int type, const double pos[3]) const
{
  if (kvec_.empty()) return 0.0;
  const double q = ewald_charge(type);
  phases_new_.compute(pos, box_.lo, box_.len);
  double e = 0.0;
  for (size_t k = 0; k < kvec_.size(); k++) {
    double re, im;
    phases_new_.term(kvec_[k].m, q, re, im);
    e += ewald_change(kvec_[k].ug, s_re_[k], s_im_[k], re, im);
  }
  return table_->ewald.qqrd2e * e;
}

void HostSystem::ewald_apply_move(int type, const double old_pos[3], const double new_pos[3])
{
  if (!delta_move_.is(type, old_pos, new_pos)) ewald_move_delta(type, old_pos, new_pos);
  for (size_t k = 0; k < kvec_.size(); k++) {
    s_re_[k] += delta_re_[k];
    s_im_[k] += delta_im_[k];
  }
  delta_move_.valid = false;
}

}    // namespace gpumc
