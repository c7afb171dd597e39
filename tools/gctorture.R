# Every .Call entry point of epimask under gctorture(TRUE), on tiny inputs:
# a missing PROTECT shows up as a crash or a corrupted result. Each call's
# result is compared with the same call made without gctorture.
library(epimask)

set.seed(1)
n <- 12
coords <- cbind(runif(n), runif(n))
dat <- data.frame(x = runif(n), y = rpois(n, 3), z = rnorm(n), g = rep(1:2, 6),
                  k1 = sample(c("a", "b"), n, TRUE), k2 = sample(1:3, n, TRUE),
                  id = seq_len(n))
cohort <- data.frame(case = rep(0:1, 6), dose = c(0, 0, 0.1, 0.5, 1, 2, 0, 0.3, 0.2, 1.5, 2.5, 0),
                     sex = rep(c("f", "m"), each = 6))

calls <- list(
  freq_group = function() epimask:::key_groups(dat, c("k1", "k2")),
  freq_match = function() epimask:::key_match_count(dat, dat, c("k1", "k2")),
  irls_fit = function() irls_fit(cbind(1, dat$x), dat$y, poisson())$coefficients,
  fit_glm = function() coef(fit_glm(y ~ x + z, data = dat, family = poisson())),
  err_fit = function() coef(fit_err(case ~ sex, data = cohort, dose = "dose")),
  kernel_exponential = function() apply_mask(dat, mask_kernel("exponential", 0.3, coords), c("x", "z")),
  kernel_ring = function() apply_mask(dat, mask_kernel("ring", 0.3, coords, source = c(0.5, 0.5)), "x"),
  kernel_shrink = function() apply_mask(dat, mask_kernel("shrink", 0.3, coords, bandwidth = 0.2, groups = dat$g), "x"),
  kernel_matrix = function() kernel_matrix(mask_kernel("bvn", 0.3, coords, rho = 0.5)),
  risk_match = function() risk_match(dat, apply_mask(dat, mask_noise(0.1), c("x", "z")), "x", "z")$per_target,
  risk_identifiability = function() risk_identifiability(dat, dat, keys = c("k1", "k2"), id = "id")$score,
  risk_kanon = function() risk_kanon(dat, c("k1", "k2"), k = 2)$record_risk,
  # further paths through the same entry points (other kernels, modes, options)
  kernel_gaussian_2cols = function() apply_mask(dat, mask_kernel("gaussian", 0.05, coords), c("x", "y", "z")),
  kernel_ring_angle = function() apply_mask(dat, mask_kernel("ring_angle", 0.3, coords, source = c(0.5, 0.5),
                                                             direction = c(1, 0)), "x"),
  kernel_ring_block = function() apply_mask(dat, mask_kernel("ring_block", 0.3, coords, source = c(0.5, 0.5),
                                                             groups = dat$g), "x"),
  kernel_deriv = function() bias_first_order(cbind(1, dat$x), c(0.5, 0.2), poisson(),
                                             mask_kernel("shrink", 0.1, coords, bandwidth = 0.3)),
  kernel_two_threads = function() { old <- options(epimask.threads = 2L); on.exit(options(old))
                                    apply_mask(dat, mask_kernel("exponential", 0.3, coords), "x") },
  risk_match_targets = function() risk_match(dat, apply_mask(dat, mask_noise(0.1), c("x", "y", "z")),
                                             c("x", "k2"), c("y", "z"), targets = c(2, 5, 7),
                                             threads = 2)$per_target,
  risk_match_no_unknown = function() risk_match(dat, apply_mask(dat, mask_round(1), "x"), "x")$per_target,
  freq_na_keys = function() epimask:::key_groups(transform(dat, k1 = replace(k1, 3, NA)), c("k1", "k2")),
  irls_binomial = function() irls_fit(cbind(1, dat$x), as.double(dat$y > 2), binomial())$coefficients,
  fit_glm_gamma = function() coef(fit_glm(y + 1 ~ x, data = dat, family = Gamma(link = "log"))),
  # entry points not reached through the calls above with these inputs
  risk_triangle_normal = function() .Call(epimask:::C_risk_triangle_normal, dat$x, 0.4, 0.5, 1),
  err_derivs = function() .Call(epimask:::C_err_derivs, cbind(1, cohort$sex == "m"), cohort$dose,
                               as.double(cohort$case), rep(1, n), rep(1, n), NULL, c(-1, 0.2, 0.5), FALSE)
)

failed <- character()
for (nm in names(calls)) {
  set.seed(2); want <- calls[[nm]]()
  set.seed(2)
  gctorture(TRUE)
  got <- tryCatch(calls[[nm]](), error = function(e) e)
  gctorture(FALSE)
  ok <- !inherits(got, "error") && isTRUE(all.equal(got, want, tolerance = 0))
  cat(sprintf("%-22s %s\n", nm, if (ok) "ok" else "FAILED"))
  if (!ok) failed <- c(failed, nm)
}
cat(sprintf("gctorture: %d entry-point calls, %d failed\n", length(calls), length(failed)))
if (length(failed)) quit(status = 1)
