/* -*- c++ -*- ----------------------------------------------------------
   GPUMC: the readers of LAMMPS's pair styles (gpumc_pair_readers.cpp): for each supported style,
   the pair terms (gpumc_pair_potential.h) of one type pair from the coefficients the style holds
   after init_one(); the sub-styles of hybrid and hybrid/overlay; the settings of kspace_style
   ewald. gpumc_pair_styles.cpp's pair_table() assembles them into a PairTable.
------------------------------------------------------------------------- */

#ifndef LMP_GPUMC_PAIR_READERS_H
#define LMP_GPUMC_PAIR_READERS_H

#include "gpumc_lammps.h"

#include "error.h"
#include "force.h"
#include "pair.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace LAMMPS_NS {
namespace GPUMC {

  // A pair or kspace style's name without its accelerator suffix (/kk, /omp, ...): accelerator
  // variants compute the same energies from the same coefficients.
  std::string without_accelerator_suffix(const std::string &style);

  // What a reader is given and fills for one type pair (i <= j) of one style.
  struct PairReader {
    LAMMPS *lmp;
    const std::string &who;
    const std::string &style;                // the style's name without accelerator suffix
    const std::vector<double> &charge;       // per type; NaN: no atom of the type, so unknown
    int i, j;
    std::vector<gpumc::PairCoeff> terms;     // the pair's terms so far
    double tail = 0.0;                       // the pair's tail_ij (pair_modify tail yes)
    // pair_style table terms: their index among the pair's terms, and their values (PairTableValues)
    std::vector<std::pair<size_t, std::vector<double>>> tables;
    // a Coulomb sum with a self energy per atom (DSF, Wolf): its e_shift and alpha
    bool self = false;
    double self_shift = 0.0, self_alpha = 0.0;

    void add(int kind, double cutsq, double a, double b = 0.0, double c = 0.0, double d = 0.0, double e = 0.0,
             double offset = 0.0)
    {
      terms.push_back(gpumc::make_pair_term(kind, cutsq, a, b, c, d, e, offset));
    }
    // qqrd2e q_i q_j: zero where a type has no atoms (its charge is unknown and no energy has it)
    double qq() const
    {
      const double qi = charge[i], qj = charge[j];
      return std::isnan(qi) || std::isnan(qj) ? 0.0 : lmp->force->qqrd2e * qi * qj;
    }
    void add_dsf(int kind, double cut_coulsq, double alpha, double e_shift, double f_shift)
    {
      add(kind, cut_coulsq, qq(), alpha, e_shift, f_shift);
      self = true;
      self_shift = e_shift;
      self_alpha = alpha;
    }
    // Wolf: LAMMPS computes e_shift in compute(), from alpha and the cutoff
    void add_wolf(double cut_coul, double alpha)
    {
      add_dsf(gpumc::PAIR_COUL_ERFC, cut_coul * cut_coul, alpha, std::erfc(alpha * cut_coul) / cut_coul, 0.0);
    }
    // the real-space Coulomb term of an Ewald sum; LAMMPS's Coulomb tables (the default) interpolate
    // erfc(g r) / r beyond r = 2^(1/2), so GPUMC requires them off to give LAMMPS's energies
    void add_long(Pair *pair, double cut_coulsq, double g_ewald, double scale = 1.0)
    {
      if (pair->ncoultablebits)
        lmp->error->all(FLERR, "{}: pair style {} with Coulomb tables (pair_modify table {}); GPUMC evaluates erfc as "
                        "LAMMPS does without them: add 'pair_modify table 0'", who, style, pair->ncoultablebits);
      add(gpumc::PAIR_COUL_LONG, cut_coulsq, qq() * scale, g_ewald);
    }
    // the Lennard-Jones term of lj/cut and of its Coulomb kin, with its tail
    void add_lj(Pair *pair, double cut_ljsq, double **lj3, double **lj4, double **offset, double **epsilon,
                double **sigma)
    {
      add(gpumc::PAIR_LJ_CUT, cut_ljsq, lj3[i][j], lj4[i][j], 0, 0, 0, offset[i][j]);
      const double cut = std::sqrt(cut_ljsq);
      set_tail(pair, gpumc::lj_cut_tail_coeff(epsilon[i][j], sigma[i][j], cut), cut);
    }
    // the Buckingham term of buck and buck/coul/cut, with its tail
    void add_buck(Pair *pair, double cutsq, double **a, double **rho, double **rhoinv, double **c, double **offset)
    {
      add(gpumc::PAIR_BUCK, cutsq, a[i][j], rhoinv[i][j], c[i][j], 0, 0, offset[i][j]);
      const double cut = std::sqrt(cutsq);
      set_tail(pair, gpumc::born_tail_coeff(a[i][j], rho[i][j], 0.0, c[i][j], 0.0, cut), cut);
    }
    // the Born term of born and born/coul/* (the tail is born's alone)
    void add_born(double cutsq, double **a, double **rhoinv, double **sigma, double **c, double **d, double **offset)
    {
      add(gpumc::PAIR_BORN, cutsq, a[i][j], rhoinv[i][j], sigma[i][j], c[i][j], d[i][j], offset[i][j]);
    }
    // tail_ij of the pair's term of cutoff cut, where the style has `pair_modify tail yes`
    void set_tail(Pair *pair, double value, double cut)
    {
      if (!pair->tail_flag) return;
      if (!std::isfinite(value))
        lmp->error->all(FLERR, "{}: pair_modify tail yes with a cutoff of {} for types {} {} (pair style {}): the tail "
                        "correction is infinite", who, cut, i, j, style);
      tail += value;
    }
  };

  using PairReadFn = void (*)(Pair *, PairReader &);
  struct PairStyleInfo {
    PairReadFn read;
    bool coulomb;    // needs charges
  };
  // The supported styles by name (without accelerator suffix), and their list for messages.
  const std::map<std::string, PairStyleInfo> &pair_style_readers();
  std::string supported_pair_styles();

  // hybrid and hybrid/overlay: the sub-styles that compute the type pair i j
  struct PairSubStyle {
    Pair *pair;
    std::string style;    // without accelerator suffix
  };
  std::vector<PairSubStyle> hybrid_substyles(Pair *pair, int i, int j);

  // What `kspace_style ewald` was set up with (after its init(): g_ewald, accuracy, q2).
  gpumc::EwaldSettings read_ewald(LAMMPS *lmp, const std::string &who);

}    // namespace GPUMC
}    // namespace LAMMPS_NS

#endif
