#ifndef EPIMASK_GLM_CODES_H
#define EPIMASK_GLM_CODES_H

/* The integer codes shared by the GLM core and its R side, defined once
 * here. Each table is an X-macro (X(name, CODE, value)) expanded into the C
 * enums below and, by r_irls.c's r_glm_codes(), into named integer vectors
 * that .onLoad (R/zzz.R) compares with the R-side table glm_codes
 * (R/fit-irls.R): a mismatch stops the package from loading. */

/* Families (quasi families share their parent's code). */
#define GLM_FAMILY_TABLE(X) \
    X(gaussian, FAM_GAUSSIAN, 1) \
    X(binomial, FAM_BINOMIAL, 2) \
    X(poisson, FAM_POISSON, 3) \
    X(Gamma, FAM_GAMMA, 4)

#define GLM_LINK_TABLE(X) \
    X(identity, LINK_IDENTITY, 1) \
    X(log, LINK_LOG, 2) \
    X(logit, LINK_LOGIT, 3) \
    X(probit, LINK_PROBIT, 4) \
    X(cloglog, LINK_CLOGLOG, 5) \
    X(inverse, LINK_INVERSE, 6) \
    X(sqrt, LINK_SQRT, 7)

/* Outcome of irls_run(): 0 or the reason it stopped (see glm.fit's errors). */
#define IRLS_STATUS_TABLE(X) \
    X(ok, IRLS_OK, 0) \
    X(no_start, IRLS_ERR_START, 1)          /* no valid starting values */ \
    X(variance, IRLS_ERR_VARIANCE, 2)       /* NA or 0 in V(mu) */ \
    X(mu_eta, IRLS_ERR_MU_ETA, 3)           /* NA in d(mu)/d(eta) */ \
    X(no_valid, IRLS_ERR_NO_VALID, 4)       /* invalid first step, nothing to halve towards */ \
    X(halving, IRLS_ERR_HALVING, 5)         /* step halving did not restore a valid fit */ \
    X(x_nan, IRLS_ERR_X_NAN, 6)             /* NA or NaN in X */ \
    X(x_inf, IRLS_ERR_X_INF, 7)             /* an infinite value in X (and no NA) */

/* Bits of irls_result.warnings. */
#define IRLS_WARNING_TABLE(X) \
    X(divergence, IRLS_WARN_DIVERGENCE, 1)       /* step halved: deviance not finite */ \
    X(out_of_bounds, IRLS_WARN_OUT_OF_BOUNDS, 2) /* step halved: eta or mu invalid */ \
    X(nonfinite_coef, IRLS_WARN_NONFINITE_COEF, 4) /* non-finite coefficients, stopped */ \
    X(no_informative, IRLS_WARN_NO_INFORMATIVE, 8) /* no observation with positive weight */

#define GLM_CODE_ENUM(name, code, value) code = value,

enum glm_family_kind { GLM_FAMILY_TABLE(GLM_CODE_ENUM) };
enum glm_link_kind { GLM_LINK_TABLE(GLM_CODE_ENUM) };
enum irls_status { IRLS_STATUS_TABLE(GLM_CODE_ENUM) };
enum irls_warning { IRLS_WARNING_TABLE(GLM_CODE_ENUM) };

#endif
