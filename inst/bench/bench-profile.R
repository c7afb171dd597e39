# Risk-utility profile of simulation example I of Zhou, Dominici and Louis
# (methods vignette section 10): n = 1000 locations, Poisson outcome log(mu) = 1 + 2 x with
# x = exp(-2 d), 500 outcome replicates, kernels "ring" (source (0, 0)) and
# "exponential" at 20 lambdas, matching risk (known x, unknown y) on the
# first replicate of each scheme.
#
# 1. The full study with ru_profile() on 2 future workers (target < 60 s).
# 2. A reduced study (2 kernels x 2 lambdas x 500 replicates), serial, with
#    ru_profile() and with a straightforward R loop: dense A built in R from
#    methods vignette section 1.1, A %*% cbind(x, y) and glm() for every replicate, the same
#    risk_match() on the first replicate of each scheme. The estimates of
#    both are compared, and the ratio of run times printed (target >= 20).
# Run: Rscript inst/bench/bench-profile.R   (after installing epimask)

library(epimask)

n <- 1000
nrep_full <- 500
lambdas <- exp(seq(log(0.002), log(0.5), length.out = 20))
sim <- simulate_zdl(1, n = n, seed = 2010)
coords <- cbind(sim$s1, sim$s2)
redraw <- zdl_simulator(sim)

profile_study <- function(lambda, nrep, parallel, simulate = redraw) {
  schemes <- mask_grid(c("ring", "exponential"), lambda, coords, source = c(0, 0))
  ru_profile(sim, schemes, y ~ x, family = poisson(), vars = c("x", "y"), term = "x",
             risk = "match", known = "x", unknown = "y", nrep = nrep,
             simulate = simulate, truth = 2, seed = 1, parallel = parallel,
             aggregate = zdl_aggregate(sim)$estimate,
             progress = FALSE, threads = if (parallel) 1L else NULL)
}

# ---- 1. the full study on 2 workers ---------------------------------------------
have_future <- requireNamespace("future.apply", quietly = TRUE) &&
  requireNamespace("future", quietly = TRUE)
if (have_future) {
  future::plan("multisession", workers = 2)
  full_time <- system.time(full <- profile_study(lambdas, nrep_full, TRUE))[["elapsed"]]
  future::plan("sequential")
} else {
  full_time <- system.time(full <- profile_study(lambdas, nrep_full, FALSE))[["elapsed"]]
}
cat(sprintf("Full study: 2 kernels x %d lambdas x %d replicates, n = %d, matching risk\n",
            length(lambdas), nrep_full, n))
cat(sprintf("  ru_profile (%s): %.1f s   [target < 60 s]\n",
            if (have_future) "future multisession, 2 workers" else "serial", full_time))
print(full)

# ---- 2. reduced study: ru_profile vs a straightforward loop ----------------------
lambda_small <- lambdas[c(8, 16)]
nrep_small <- 500

ring_radius <- sqrt(rowSums(coords^2))
dense_A <- function(kernel, lambda) {
  delta <- switch(kernel,
    ring = abs(outer(ring_radius, ring_radius, "-")),
    exponential = as.matrix(stats::dist(coords)))
  W <- exp(-delta / lambda)
  W / rowSums(W)
}

# The same outcome replicates for both, so their estimates must agree.
set.seed(1)
outcomes <- lapply(seq_len(nrep_small), function(r) redraw(sim)$y)
replay <- function() {
  draw <- 0
  function(data) {
    draw <<- draw + 1
    data$y <- outcomes[[draw]]
    data
  }
}

straightforward_study <- function(lambda, nrep) {
  grid <- rbind(data.frame(kernel = "none", lambda = 0),
                expand.grid(lambda = lambda, kernel = c("ring", "exponential"),
                            stringsAsFactors = FALSE)[, c("kernel", "lambda")])
  rows <- lapply(seq_len(nrow(grid)), function(g) {
    A <- if (grid$kernel[g] == "none") diag(n) else dense_A(grid$kernel[g], grid$lambda[g])
    est <- vapply(seq_len(nrep), function(r) {
      masked <- data.frame(x = drop(A %*% sim$x), y = drop(A %*% outcomes[[r]]))
      fit <- suppressWarnings(glm(y ~ x, family = poisson(), data = masked))
      c(coef(fit)[["x"]], sqrt(vcov(fit)["x", "x"]))
    }, numeric(2))
    first <- data.frame(x = drop(A %*% sim$x), y = drop(A %*% outcomes[[1]]))
    risk <- risk_match(data.frame(x = sim$x, y = outcomes[[1]]), first,
                       known = "x", unknown = "y")$percent_correct / 100
    data.frame(kernel = grid$kernel[g], lambda = grid$lambda[g],
               estimate = mean(est[1, ]), se = mean(est[2, ]), risk = risk)
  })
  do.call(rbind, rows)
}

fast_time <- system.time(
  fast <- profile_study(lambda_small, nrep_small, FALSE, simulate = replay()))[["elapsed"]]
loop_time <- system.time(loop <- straightforward_study(lambda_small, nrep_small))[["elapsed"]]
cat(sprintf("\nReduced study: 2 kernels x %d lambdas x %d replicates (+ unmasked), serial\n",
            length(lambda_small), nrep_small))
cat(sprintf("  ru_profile: %.2f s   straightforward loop (dense A, glm): %.2f s   ratio %.1fx   [target >= 20x]\n",
            fast_time, loop_time, loop_time / fast_time))
per_replicate <- loop_time / (nrow(loop) * nrep_small)
cat(sprintf("  loop extrapolated to the full study: %.0f s (ratio %.0fx against the full run)\n",
            per_replicate * (2 * length(lambdas) + 1) * nrep_full,
            per_replicate * (2 * length(lambdas) + 1) * nrep_full / full_time))
cmp <- data.frame(scheme = fast$scheme, ru_profile = fast$estimate, loop = loop$estimate,
                  se_ru = fast$se, se_loop = loop$se, risk_ru = fast$risk, risk_loop = loop$risk)
print(cmp, digits = 6)
cat(sprintf("  largest difference: estimate %.1e, SE %.1e, risk %.1e\n",
            max(abs(cmp$ru_profile - cmp$loop)), max(abs(cmp$se_ru - cmp$se_loop)),
            max(abs(cmp$risk_ru - cmp$risk_loop))))
