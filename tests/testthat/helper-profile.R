# Hand-made replicate tables for the profile-class, plot, curve and
# recommendation tests. They stand in for what ru_profile() collects.

# Cologne et al. (2012) Table 2, deterministic rows: ERR per Gray and SE.
cologne_table2 <- data.frame(
  scheme = c("None", "Rounded to three decimal digits", "Rounded to two decimal digits",
             "Rounded to nearest centiGray", "Rounded to nearest deciGray", "Stratified"),
  estimate = c(0.5235, 0.5237, 0.5235, 0.5235, 0.5228, 0.5320),
  se = c(0.1548, 0.1548, 0.1547, 0.1548, 0.1547, 0.1553),
  # Printed columns: relative bias (%) and MSE.
  rel_bias = c(NA, 0.038, 0, 0, 0.13, 1.6),
  mse = c(0.0240, 0.0240, 0.0239, 0.0240, 0.0239, 0.0242),
  stringsAsFactors = FALSE
)

cologne_reference <- list(truth = 0.5235, se = 0.1548, type = "original")

# A Cologne-like profile: five schemes, the uniform noise one with 500
# replicates, identifiability risks in the spirit of Table 1.
cologne_like_replicates <- function(seed = 1) {
  set.seed(seed)
  det <- data.frame(
    scheme = c("none", "round 3 sig", "round 0.1", "group"),
    replicate = 1L,
    estimate = c(0.5235, 0.5237, 0.5228, 0.5320),
    se = c(0.1548, 0.1548, 0.1547, 0.1553),
    risk = c(0.575, 0, 0.02, 0.40),
    kernel = c("none", "round", "round", "group"),
    stringsAsFactors = FALSE
  )
  noise <- data.frame(
    scheme = "noise 0.1", replicate = seq_len(500),
    estimate = 0.5271 + stats::rnorm(500, sd = 0.008),
    se = 0.155 + stats::runif(500, -0.001, 0.001),
    risk = 0, kernel = "noise", stringsAsFactors = FALSE
  )
  rbind(det, noise)
}

cologne_like_profile <- function() {
  epimask:::ru_profile_from_replicates(
    cologne_like_replicates(), cologne_reference,
    list(term = "dose", family = "err", risk = "identifiability"))
}

# A Zhou-like profile: the unmasked fit plus two kernels x 6 lambdas, 40
# simulated replicates each; bias and risk fall / rise smoothly with lambda.
zhou_like_replicates <- function(seed = 2, nrep = 40L) {
  set.seed(seed)
  lambdas <- c(0.001, 0.01, 0.05, 0.1, 0.5, 1)
  design <- rbind(data.frame(kernel = "none", degree = 0),
                  expand.grid(kernel = c("ring", "exponential"), degree = lambdas,
                              stringsAsFactors = FALSE))
  design$scheme <- ifelse(design$kernel == "none", "none",
                          sprintf("%s, lambda = %g", design$kernel, design$degree))
  attenuation <- c(none = 0, ring = 0.25, exponential = 0.1)
  do.call(rbind, lapply(seq_len(nrow(design)), function(i) {
    d <- design$degree[i]
    k <- design$kernel[i]
    data.frame(
      scheme = design$scheme[i], replicate = seq_len(nrep),
      estimate = 2 * (1 - attenuation[[k]] * d / (d + 0.1)) +
        stats::rnorm(nrep, sd = 0.1),
      se = 0.1 * (1 - 0.2 * d / (d + 0.1)) * exp(stats::rnorm(nrep, sd = 0.02)),
      risk = 0.8 * exp(-(if (k == "ring") 3 else 6) * sqrt(d)),
      degree = d, kernel = k, stringsAsFactors = FALSE)
  }))
}

zhou_like_profile <- function(aggregate = 1.8) {
  epimask:::ru_profile_from_replicates(
    zhou_like_replicates(), list(truth = 2, se = 0.1, type = "truth"),
    list(term = "race", family = "binomial", risk = "match", aggregate = aggregate))
}

# Brute-force risk-utility frontier (written with matrices, not the loops of
# ru_pareto()): scheme i is dominated when some j is at least as good on the
# point estimates, risk_j <= risk_i and U_j >= U_i - u_tol, and better on one
# beyond the uncertainty: risk_j < risk_i - tie_r or U_j > U_i + max(tie_u,
# u_tol), with tie = z sqrt(se_i^2 + se_j^2) + 1e-9 (NA SEs count as 0).
# U above 1 counts as 1. NA where risk or U is NA.
brute_frontier <- function(risk, u, risk_se = NA, u_se = NA, u_tol = 0.01) {
  n <- length(risk)
  u <- pmin(u, 1)
  risk_se <- rep_len(risk_se, n)
  u_se <- rep_len(u_se, n)
  risk_se[is.na(risk_se)] <- 0
  u_se[is.na(u_se)] <- 0
  z <- qnorm(0.975)
  tie_r <- z * sqrt(outer(risk_se^2, risk_se^2, "+")) + 1e-9   # [i, j]
  tie_u <- pmax(z * sqrt(outer(u_se^2, u_se^2, "+")) + 1e-9, u_tol)
  Rj <- matrix(risk, n, n, byrow = TRUE)
  Ri <- t(Rj)
  Uj <- matrix(u, n, n, byrow = TRUE)
  Ui <- t(Uj)
  dom <- Rj <= Ri & Uj >= Ui - u_tol & (Rj < Ri - tie_r | Uj > Ui + tie_u)
  diag(dom) <- FALSE
  out <- rowSums(dom, na.rm = TRUE) == 0
  out[is.na(risk) | is.na(u)] <- NA
  out
}

# The capped analysis potential by its formula (methods vignette section 3 / recommend()):
# MSE_ref / (max(MSE - bias^2, SE_ref^2) + bias^2), at most 1, and its SE as
# the SE of U scaled by capped / U.
capped_by_hand <- function(ru) {
  ref <- attr(ru, "reference")
  ref_mse <- if (is.null(ref$mse)) ref$se^2 else ref$mse
  capped <- pmin(ref_mse / (pmax(ru$mse - ru$bias^2, ref$se^2) + ru$bias^2), 1)
  list(u = capped, se = ru$analysis_potential_se * capped / ru$analysis_potential)
}

# A profile as objects made before the decision columns existed.
strip_decision_columns <- function(ru) {
  for (col in c("bias_se", "mse_se", "analysis_potential_se", "risk_se",
                "analysis_potential_capped", "pareto", "generator", "strength", "unmasked"))
    ru[[col]] <- NULL
  ru
}
