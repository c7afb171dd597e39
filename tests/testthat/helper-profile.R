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
