#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <R_ext/Visibility.h>
#include "r_epimask.h"

#define CALLDEF(name, n) {"C_" #name, (DL_FUNC) &r_##name, n}

/* Every entry takes one named list `spec` read with the r_field_* helpers of
 * r_util.h (glm_codes takes nothing: it only reports the C enums), and every
 * R call goes through call_c() of R/utils-call.R, which classes the two errors
 * the glue raises (r_field_error, r_nomem_error). Entries marked TEST ONLY are
 * called by no R function of the package: tests (and tools/gctorture.R) reach
 * them with .Call(epimask:::C_..., spec) to check a C formula against an
 * independent R reference. BENCH ONLY entries measure the machine for a
 * script of inst/bench. */

static const R_CallMethodDef call_methods[] = {
    /* freq */
    CALLDEF(freq_group, 1),
    CALLDEF(freq_match, 1),
    /* lattice: class counts of the generalization lattice (r_lattice.c) */
    CALLDEF(lattice_group, 1),
    CALLDEF(lattice_rollup, 1),
    CALLDEF(lattice_tag, 1),
    /* l-diversity and t-closeness of the classes (r_diversity.c) */
    CALLDEF(diversity, 1),
    /* err: linear excess-relative-risk model (r_err.c) */
    CALLDEF(err_fit, 1),
    CALLDEF(err_derivs, 1),             /* TEST ONLY */
    /* kernel masking (mask) */
    CALLDEF(kernel_smooth, 1),
    /* masking forms of methods vignette section 15 (r_mask.c) */
    CALLDEF(mdav_groups, 1),
    CALLDEF(rank_swap, 1),
    /* risk: record-matching probability (r_risk.c) */
    CALLDEF(risk_match, 1),
    CALLDEF(risk_match_index, 1),
    CALLDEF(risk_triangle_normal, 1),   /* TEST ONLY */
    CALLDEF(risk_match_sweep, 1),       /* TEST ONLY */
    /* Cox proportional hazards core (r_cox.c) */
    CALLDEF(cox_fit, 1),
    /* irls (GLM fitting core, r_irls.c) */
    CALLDEF(glm_codes, 0),
    CALLDEF(irls_fit, 1),
    CALLDEF(irls_stat_many, 1),
    CALLDEF(irls_family_eval, 1),       /* TEST ONLY */
    CALLDEF(irls_nonfinite, 1),
    CALLDEF(irls_aic_loglik, 1),
    CALLDEF(irls_support, 1),
    CALLDEF(irls_initialize, 1),
    CALLDEF(irls_null_deviance, 1),
    CALLDEF(irls_separation, 1),
    CALLDEF(machine_rates, 1),          /* BENCH ONLY (inst/bench/bench-irls.R) */
    CALLDEF(par_force_threads, 1),      /* TEST ONLY (threads as asked, par_rows.h) */
    CALLDEF(irls_ones_column, 1),
    /* risk measures of the second round (r_individual.c, r_suda.c, r_linkage.c) */
    CALLDEF(individual_risk, 1),
    CALLDEF(suda_search, 1),
    CALLDEF(linkage_run, 1),
    /* log-linear risk (r_loglinear.c) */
    CALLDEF(loglinear_match, 1),
    /* the three attacks: Gower nearest neighbours, predicate counts (r_attack.c) */
    CALLDEF(gower_knn, 1),
    CALLDEF(predicate_count, 1),
    /* cell-level local suppression (r_suppress.c) */
    CALLDEF(suppress_run, 1),
    CALLDEF(suppress_class_sizes, 1),
    /* donor sampling of sequential synthesis (r_synth.c) */
    CALLDEF(synth_donors, 1),
    CALLDEF(synth_tree_leaves, 1),
    /* count tables: cells and the parts of a suppression pattern (r_table.c) */
    CALLDEF(table_aggregate, 1),
    CALLDEF(table_parts, 1),
    {NULL, NULL, 0}
};

void attribute_visible R_init_epimask(DllInfo *dll)
{
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);
}
