# A mask type added in one file, as an extension package would: a
# constructor calling new_mask_scheme() and its methods. The package's own
# calls find the methods through the S3 registry (a package registers them
# with S3method() in its NAMESPACE; here registerS3method()).

register <- function(generic, class, fun) {
  registerS3method(generic, class, fun, envir = asNamespace("epimask"))
}

# "pairswap": the values of records 1 and 2, 3 and 4, ... (in row order)
# exchanged within each masked column; with `every` > 1 only every
# `every`-th pair. Deterministic.
mask_pairswap <- function(every = 1) {
  if (!is.numeric(every) || length(every) != 1L || is.na(every) || every < 1 ||
      every != round(every))
    epimask:::abort_value("every", "a whole number >= 1")
  new_mask_scheme("pairswap", every = as.integer(every), degree = 1 / every,
                  label = sprintf("pairswap %d", as.integer(every)))
}
register("mask_values", "mask_pairswap", function(scheme, x, data, ...) {
  n <- nrow(x)
  pairs <- seq(1L, n - 1L, by = 2L)
  pairs <- pairs[((pairs + 1L) / 2L - 1L) %% scheme$every == 0L]
  idx <- seq_len(n)
  idx[pairs] <- pairs + 1L
  idx[pairs + 1L] <- pairs
  x[idx, , drop = FALSE]
})
register("mask_validate", "mask_pairswap", function(scheme, ...) mask_pairswap(scheme$every))
register("format", "mask_pairswap", function(x, ...) {
  sprintf("swapping of neighbouring records, every %d pair(s)", x$every)
})
register("scheme_label", "mask_pairswap", function(scheme, short = TRUE, ...) {
  if (short) sprintf("pairs/%d", scheme$every) else format(scheme)
})
register("mask_generator", "mask_pairswap", function(scheme, ...) "pair swapping")
# more pairs swapped is stronger
register("mask_strength", "mask_pairswap", function(scheme, ...) 1 / scheme$every)

# "mult": multiplicative noise x * (1 + U(-amount, amount)), drawn column by
# column; only mask_values() and the traits of a randomized mask.
mask_mult <- function(amount) {
  new_mask_scheme("mult", amount = amount, degree = amount, random = TRUE,
                  label = sprintf("mult %s", format(amount)))
}
register("mask_values", "mask_mult", function(scheme, x, data, ...) {
  for (j in seq_len(ncol(x)))
    x[, j] <- x[, j] * (1 + stats::runif(nrow(x), -scheme$amount, scheme$amount))
  x
})
register("mask_traits", "mask_mult", function(scheme, ...) {
  list(promises_change = TRUE, exact_match_blind = TRUE)
})

ext_data <- function() {
  set.seed(11)
  n <- 40
  x <- round(rnorm(n), 2)
  data.frame(id = seq_len(n), x = x, z = round(runif(n, 1, 5), 1),
             y = rpois(n, exp(0.2 + 0.5 * x)))
}

test_that("a new type is a classed scheme that apply_mask() applies", {
  d <- ext_data()
  s <- mask_pairswap()
  expect_s3_class(s, c("mask_pairswap", "mask_scheme"), exact = TRUE)
  expect_identical(s$type, "pairswap")
  expect_identical(s$method, "pairswap")
  expect_identical(format(s), "swapping of neighbouring records, every 1 pair(s)")
  expect_identical(scheme_label(s), "pairs/1")
  expect_identical(scheme_label(s, short = FALSE), format(s))
  expect_output(print(s), "<mask_scheme> swapping of neighbouring records", fixed = TRUE)
  out <- apply_mask(d, s, c("x", "z"))
  swap <- as.vector(rbind(seq(2, 40, by = 2), seq(1, 39, by = 2)))
  expect_identical(out$x, d$x[swap])
  expect_identical(out$z, d$z[swap])
  expect_identical(out$id, d$id)
  # every other pair: records 1-2, 5-6, 9-10, ... exchanged, 3-4, 7-8, ... kept
  out2 <- apply_mask(d, mask_pairswap(2), "x")
  hand <- d$x
  for (i in seq(1, 39, by = 4)) hand[c(i, i + 1)] <- d$x[c(i + 1, i)]
  expect_identical(out2$x, hand)
  # not random, does not promise change (a pair of equal values stays)
  expect_false(epimask:::is_random_scheme(s))
  expect_no_warning(apply_mask(data.frame(x = c(1, 1, 2, 3)), s))
})

test_that("an edited scheme of a new type fails through the type's own validator", {
  s <- mask_pairswap(2)
  s$every <- 0
  e <- expect_error(apply_mask(ext_data(), s, "x"), class = "epimask_error_value")
  expect_identical(e$arg, "scheme$every")
  s <- mask_pairswap(2)
  s$type <- "round"
  expect_error(apply_mask(ext_data(), s, "x"), class = "epimask_error_value")
  expect_error(new_mask_scheme("bad type", label = "x"), class = "epimask_error_type")
  expect_error(new_mask_scheme("ok", 1, label = "x"), class = "epimask_error_type")
})

test_that("mask_sweep() orders a new type by its strength method", {
  sw <- mask_sweep(mask_pairswap, every = c(1, 4, 2))
  expect_identical(unname(vapply(sw, function(s) s$every, integer(1))), c(4L, 2L, 1L))
  expect_identical(unname(vapply(sw, function(s) s$strength, numeric(1))), c(0.25, 0.5, 1))
  expect_identical(unique(unname(vapply(sw, function(s) s$generator, ""))), "pair swapping")
  expect_identical(scheme_generator(mask_pairswap()), "pair swapping")
  expect_identical(scheme_strength(mask_pairswap(4)), 0.25)
  # a type without a strength method: positions in the sweep
  swm <- mask_sweep(mask_mult, amount = c(0.3, 0.1))
  expect_identical(unname(vapply(swm, function(s) s$amount, 1)), c(0.3, 0.1))
  expect_identical(unname(vapply(swm, function(s) s$strength, 1)), c(1, 2))
  expect_identical(scheme_generator(mask_mult(0.1)), "mult")
})

test_that("ru_profile() runs a new type: estimates equal fits to the hand-masked data", {
  d <- ext_data()
  schemes <- c(mask_none(), mask_sweep(mask_pairswap, every = c(1, 2)))
  ru <- ru_profile(d, schemes, y ~ x, family = poisson(), vars = "x", term = "x",
                   risk = "none", seed = 1, progress = FALSE)
  fit <- function(x) unname(coef(glm(d$y ~ x, family = poisson()))[2L])
  swap1 <- as.vector(rbind(seq(2, 40, by = 2), seq(1, 39, by = 2)))
  swap2 <- seq_len(40)
  for (i in seq(1, 39, by = 4)) swap2[c(i, i + 1)] <- c(i + 1, i)
  rows <- match(c("no masking", format(mask_pairswap(2)), format(mask_pairswap(1))), ru$scheme)
  expect_false(anyNA(rows))
  expect_equal(ru$estimate[rows], c(fit(d$x), fit(d$x[swap2]), fit(d$x[swap1])),
               tolerance = 1e-8)
  expect_identical(ru$generator[rows[2:3]], c("pair swapping", "pair swapping"))
  expect_identical(ru$strength[rows[2:3]], c(0.5, 1))
  # a randomized new type: one masked data set per replicate, from R's
  # generator (the replicates differ)
  ru2 <- ru_profile(d, list(mask_none(), mask_mult(0.2)), y ~ x, family = poisson(),
                    vars = "x", term = "x", risk = "none", nrep = 3, seed = 2, progress = FALSE)
  reps <- attr(ru2, "replicates")
  est <- reps$estimate[reps$scheme == format(mask_mult(0.2))]
  expect_length(est, 3L)
  expect_gt(stats::sd(est), 0)
  # exact-match identifiability is told it cannot see the type
  expect_warning(deprecated(ru_profile(d, list(mask_none(), mask_mult(0.2)), y ~ x, family = poisson(),
                            vars = "x", term = "x", risk = "identifiability", known = "x",
                            seed = 2, progress = FALSE)),
                 "cannot see")
})

test_that("a randomized new type's release equals the hand computation", {
  d <- ext_data()
  set.seed(5)
  out <- apply_mask(d, mask_mult(0.1), c("x", "z"))
  set.seed(5)
  ux <- runif(40, -0.1, 0.1)
  uz <- runif(40, -0.1, 0.1)
  expect_identical(out$x, d$x * (1 + ux))
  expect_identical(out$z, d$z * (1 + uz))
  expect_true(epimask:::is_random_scheme(mask_mult(0.1)))
})

test_that("short labels are built from the fields for every type of the package", {
  xy <- cbind(1:6, c(2, 1, 4, 3, 6, 5))
  schemes <- list(mask_none(), mask_round(2), mask_round(1, "decimal"), mask_round(-2, "decimal"),
                  mask_truncate(1), mask_truncate(-3), mask_group(c(0, 1, 2)),
                  mask_group(c(0, 1, 2), "midpoint"), mask_noise(0.5, lower = 0),
                  mask_noise(2, "normal"), mask_kernel("ring", 0.05, xy, source = c(0, 0)),
                  mask_kernel("bvn", 0.5, xy, rho = 0.3),
                  mask_kernel("shrink", 0.1, xy, bandwidth = 2, groups = rep(1:2, 3)))
  expect_identical(vapply(schemes, scheme_label, "")[c(1, 2, 3, 4, 6, 8, 9, 11)],
                   c("none", "round 2 sig", "round 1 dec", "round to 100", "trunc to 1,000",
                     "2 groups (mid)", "uniform noise 0.5", "ring 0.05"))
  others <- list(mask_noise(0.5, "correlated"), mask_microagg(3), mask_microagg(4, "univariate"),
                 mask_pram(0.8), mask_pram(0.8, invariant = FALSE), mask_swap(5),
                 mask_topcode(upper = 90), mask_topcode(upper = 4, lower = 1, value = "mean"),
                 mask_matrix(diag(3)),
                 mask_matrix(function(lambda) diag(3) * (1 - lambda), lambda = 0.5))
  expect_identical(vapply(others, scheme_label, ""),
                   c("correlated noise 0.5", "mdav 3", "microagg 4", "inv. pram 0.8", "pram 0.8",
                     "swap 5%", "top 90", "top 4, bottom 1 (mean)", "matrix", "matrix 0.5"))
  expect_identical(vapply(others, scheme_label, "", short = FALSE), vapply(others, format, ""))
})

test_that("every type of the package has its strength and generator for sweeps", {
  field <- function(l, f) unname(vapply(l, function(s) as.double(s[[f]]), 1))
  expect_identical(field(mask_sweep(mask_microagg, k = c(5, 3, 10)), "strength"),
                   c(3, 5, 10))
  expect_identical(field(mask_sweep(mask_pram, pd = c(0.9, 0.6, 0.8)), "pd"),
                   c(0.9, 0.8, 0.6))
  expect_identical(field(mask_sweep(mask_swap, p = c(10, 1, 5)), "strength"),
                   c(1, 5, 10))
  expect_identical(field(mask_sweep(mask_topcode, upper = c(80, 95, 90)), "upper"),
                   c(95, 90, 80))
  # with the recorded fields removed, the methods give the same
  strip <- function(s) {
    s$generator <- NULL
    s$strength <- NULL
    s
  }
  for (s in list(mask_microagg(3), mask_microagg(3, "univariate"), mask_pram(0.7),
                 mask_pram(0.7, invariant = FALSE), mask_swap(5), mask_topcode(90),
                 mask_topcode(lower = 1), mask_topcode(90, 1))) {
    expect_identical(scheme_generator(strip(s)), s$generator)
    expect_equal(scheme_strength(strip(s)), s$strength)
  }
})

# "scramble": a type whose parameters must not be shown (like a kernel's),
# with its own words for the report and its own family name; its degree is
# a bandwidth. Defined here alone: nothing in the package knows it.
mask_scramble <- function(width) {
  new_mask_scheme("scramble", width = width, degree = width,
                  label = sprintf("scramble width %s", format(width)))
}
register("mask_values", "mask_scramble", function(scheme, x, data, ...) {
  x + scheme$width * sin(seq_len(nrow(x)))
})
register("mask_traits", "mask_scramble", function(scheme, ...) {
  list(withheld = TRUE, bandwidth = TRUE)
})
register("mask_strength", "mask_scramble", function(scheme, ...) scheme$width)
register("mask_report_label", "mask_scramble", function(scheme, ...) "scrambling scheme")
register("mask_family", "mask_scramble", function(scheme, ...) "sine scramble")

test_that("outside types run through apply_mask, mask_sweep, ru_profile, plot, recommend and the report", {
  d <- ext_data()
  mults <- mask_sweep(mask_mult, amount = c(0.05, 0.2))
  # mult has no strength method: a sweep orders by position
  expect_identical(unname(vapply(mults, function(s) s$strength, 1)), c(1, 2))
  set.seed(4)
  m <- apply_mask(d, mults[[1L]], vars = "x")
  expect_identical(names(m), names(d))
  ru <- ru_profile(d, c(mask_none(), mults, mask_round(1, "decimal")), y ~ x, family = poisson(),
                   vars = "x", term = "x", risk = "none", nrep = 2, seed = 3, progress = FALSE)
  # the profile says what the scheme's methods say: family by type
  rows <- match(vapply(mults, format, ""), ru$scheme)
  expect_identical(ru$mask_family[rows], c("mult", "mult"))
  expect_identical(ru$bandwidth[rows], c(FALSE, FALSE))
  expect_true(all(is.na(ru$report_label)))
  # the old column name still reads, with a deprecation warning
  expect_warning(k <- ru$kernel, class = "epimask_warning_deprecated")
  expect_identical(k, ru$mask_family)
  # plots: one series per generator, on the step axis (not a lambda axis)
  pd <- epimask:::ru_panel_data(ru, "estimate")
  expect_true("mult" %in% levels(pd$data$group))
  expect_false(grepl("lambda", pd$xaxis$title))
  png(tempfile(fileext = ".png"))
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_no_error(plot(ru, type = "estimate"))
  # recommend: a risk that sees every scheme, so the outside type can be chosen
  ru_r <- ru_profile(d, c(mask_none(), mults), y ~ x, family = poisson(), vars = "x",
                     term = "x", risk = function(original, masked) 0.1, nrep = 2, seed = 3,
                     progress = FALSE)
  rec <- recommend(ru_r, max_risk = 0.5)
  expect_true(rec$scheme %in% c(format(mults[[1L]]), format(mults[[2L]]), "no masking"))
  # the report prints the outside type's own label, not "smoothing scheme A"
  content <- epimask:::report_content(ru_r)
  expect_true(all(vapply(mults, format, "") %in% content$table$scheme))
  expect_false(any(grepl("withheld", content$table$scheme)))
  expect_false(content$withheld)
  skip_if_not(rmarkdown::pandoc_available())
  skip_if_not_installed("knitr")
  html <- paste(readLines(release_report(ru_r, tempfile(fileext = ".html")), warn = FALSE),
                collapse = "\n")
  expect_match(html, format(mults[[2L]]), fixed = TRUE)
  expect_false(grepl("smoothing scheme", html, fixed = TRUE))
})

test_that("an outside type that withholds its parameters gets its own words in the report, and a lambda axis", {
  d <- ext_data()
  scr <- mask_sweep(mask_scramble, width = c(0.1, 0.3))
  ru <- ru_profile(d, c(mask_none(), scr), y ~ x, family = poisson(), vars = "x", term = "x",
                   risk = "none", seed = 1, progress = FALSE)
  rows <- match(vapply(scr, format, ""), ru$scheme)
  expect_identical(ru$mask_family[rows], c("sine scramble", "sine scramble"))
  expect_identical(ru$bandwidth[rows], c(TRUE, TRUE))
  pd <- epimask:::ru_panel_data(ru, "estimate")
  expect_match(pd$xaxis$title, "lambda")
  labels <- epimask:::report_labels(ru)
  expect_identical(labels[rows], c("scrambling scheme A (parameters withheld)",
                                   "scrambling scheme B (parameters withheld)"))
  content <- epimask:::report_content(ru, call = quote(ru_profile(d, scr)))
  expect_false(any(grepl("scramble width", c(content$table$scheme, content$profile$label))))
  expect_match(content$call, "^Withheld")
  # the package's own withheld types say their own words
  expect_identical(mask_report_label(mask_kernel("exponential", 0.1, cbind(1:3, 1:3))), "smoothing scheme")
  expect_identical(mask_report_label(mask_matrix(diag(3))), "matrix mask")
  expect_identical(mask_report_label(mask_round(2)), NA_character_)
})
