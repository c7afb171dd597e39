#ifndef EPIMASK_R_H
#define EPIMASK_R_H

#include <Rinternals.h>

/* .Call entry points, one block per concern; each is registered in init.c. */

/* r_freq.c */
SEXP r_freq_group(SEXP spec);
SEXP r_freq_match(SEXP spec);

/* r_lattice.c: class counts of the generalization lattice */
SEXP r_lattice_group(SEXP spec);
SEXP r_lattice_rollup(SEXP spec);
SEXP r_lattice_tag(SEXP spec);

/* r_diversity.c: l-diversity and t-closeness of equivalence classes */
SEXP r_diversity(SEXP spec);

/* r_err.c: linear excess-relative-risk model (named-list specs) */
SEXP r_err_fit(SEXP spec);
SEXP r_err_derivs(SEXP spec);

/* r_kernel.c (kernel masking) */
SEXP r_kernel_smooth(SEXP spec);

/* r_mask.c: microaggregation and rank swapping (methods vignette section 15) */
SEXP r_mdav_groups(SEXP spec);
SEXP r_rank_swap(SEXP spec);

/* r_risk.c: record-matching probability */
SEXP r_risk_match(SEXP spec);
SEXP r_risk_match_index(SEXP spec);
SEXP r_risk_triangle_normal(SEXP spec);
SEXP r_risk_match_sweep(SEXP spec);

/* r_irls.c (GLM fitting core; named-list specs) */
SEXP r_glm_codes(void);
SEXP r_cox_fit(SEXP spec);
SEXP r_irls_fit(SEXP spec);
SEXP r_irls_stat_many(SEXP spec);
SEXP r_irls_family_eval(SEXP spec);
SEXP r_irls_nonfinite(SEXP spec);
SEXP r_irls_aic_loglik(SEXP spec);
SEXP r_irls_support(SEXP spec);
SEXP r_irls_initialize(SEXP spec);
SEXP r_irls_null_deviance(SEXP spec);
SEXP r_irls_separation(SEXP spec);
SEXP r_machine_rates(SEXP spec);
SEXP r_par_force_threads(SEXP spec);
SEXP r_irls_ones_column(SEXP spec);

/* r_individual.c, r_suda.c, r_linkage.c: sample-based, special-unique and
 * linkage risk */
SEXP r_individual_risk(SEXP spec);
SEXP r_suda_search(SEXP spec);
SEXP r_linkage_run(SEXP spec);

/* r_loglinear.c: log-linear risk */
SEXP r_loglinear_match(SEXP spec);

/* r_attack.c: the three attacks (Gower nearest neighbours, singling-out
 * predicate counts) */
SEXP r_gower_knn(SEXP spec);
SEXP r_predicate_count(SEXP spec);

/* r_suppress.c: cell-level local suppression */
SEXP r_suppress_run(SEXP spec);
SEXP r_suppress_class_sizes(SEXP spec);

/* r_synth.c: donor sampling of sequential synthesis */
SEXP r_synth_donors(SEXP spec);
SEXP r_synth_tree_leaves(SEXP spec);

/* r_table.c: count tables */
SEXP r_table_aggregate(SEXP spec);
SEXP r_table_parts(SEXP spec);

#endif
