#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <R_ext/Visibility.h>
#include "r_epimask.h"

#define CALLDEF(name, n) {"C_" #name, (DL_FUNC) &r_##name, n}

static const R_CallMethodDef call_methods[] = {
    /* freq */
    CALLDEF(freq_group, 1),
    CALLDEF(freq_match, 2),
    /* err: linear excess-relative-risk model (r_err.c) */
    CALLDEF(err_fit, 1),
    CALLDEF(err_derivs, 1),
    /* kernel masking (mask) */
    CALLDEF(kernel_smooth, 6),
    /* risk: record-matching probability (r_risk.c) */
    CALLDEF(risk_match, 8),
    CALLDEF(risk_triangle_normal, 4),
    /* irls (GLM fitting core, r_irls.c) */
    CALLDEF(glm_codes, 0),
    CALLDEF(irls_fit, 1),
    CALLDEF(irls_stat_many, 1),
    CALLDEF(irls_family_eval, 1),
    CALLDEF(irls_nonfinite, 2),
    CALLDEF(irls_aic_loglik, 1),
    CALLDEF(irls_support, 1),
    CALLDEF(irls_initialize, 1),
    CALLDEF(irls_null_deviance, 1),
    CALLDEF(irls_separation, 1),
    CALLDEF(irls_ones_column, 1),
    {NULL, NULL, 0}
};

void attribute_visible R_init_epimask(DllInfo *dll)
{
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);
}
