# Re-validating a kernel scheme (every apply_mask(), ru_profile(), format())
# and moving it to another lambda (scheme_at(), the bias derivative) reuse
# the spatial set-up made at construction. Reference, in the same run: the
# full construction by mask_kernel(), which is what every re-validation cost
# before the set-up was kept with the scheme.
# Run: Rscript inst/bench/bench-kernel-revalidate.R
library(epimask)
cat("machine:", Sys.info()[["nodename"]], R.version.string, "\n")
cat("load:", system("uptime", intern = TRUE), "\n")
set.seed(1)
n <- 2e5
xy <- matrix(runif(2 * n), ncol = 2)
reps <- 20
for (k in c("ring_angle", "bvn", "exponential")) {
  build <- function(lambda = 0.01) {
    mask_kernel(k, lambda, xy, source = if (k == "ring_angle") c(0.5, 0.5),
                direction = if (k == "ring_angle") c(1, 0), rho = if (k == "bvn") 0.3 else 0)
  }
  s <- build()
  t_ref <- system.time(for (i in seq_len(reps)) build(0.02))[["elapsed"]]
  t_val <- system.time(for (i in seq_len(reps)) epimask:::revalidate_scheme(s))[["elapsed"]]
  t_at <- system.time(for (i in seq_len(reps)) epimask:::scheme_at(s, 0.02))[["elapsed"]]
  stopifnot(identical(kernel_matrix(epimask:::scheme_at(mask_kernel(k, 0.5, xy[1:50, ],
    source = if (k == "ring_angle") c(0.5, 0.5), direction = if (k == "ring_angle") c(1, 0),
    rho = if (k == "bvn") 0.3 else 0), 0.02)), kernel_matrix(mask_kernel(k, 0.02, xy[1:50, ],
    source = if (k == "ring_angle") c(0.5, 0.5), direction = if (k == "ring_angle") c(1, 0),
    rho = if (k == "bvn") 0.3 else 0))))
  cat(sprintf("%-12s n = %d, %d calls: construction %.3f s, re-validation %.3f s (%.0fx), scheme_at %.3f s (%.0fx)\n",
              k, n, reps, t_ref, t_val, t_ref / max(t_val, 1e-3), t_at, t_ref / max(t_at, 1e-3)))
}
