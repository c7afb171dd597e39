# risk_linkage() against a double loop over dist() (Euclidean on the
# variables standardised by the original means and SDs) and over
# stats::mahalanobis() (original covariance), ties within 1e-12 relative.

plain_linkage <- function(x, y, distance = "euclidean") {
  n <- nrow(x)
  if (distance == "euclidean") {
    m <- colMeans(x)
    s <- apply(x, 2, sd)
    s[s == 0] <- 1
    xs <- sweep(sweep(x, 2, m), 2, s, "/")
    ys <- sweep(sweep(y, 2, m), 2, s, "/")
    D <- as.matrix(dist(rbind(xs, ys)))[seq_len(n), n + seq_len(n), drop = FALSE]
  } else {
    S <- cov(x)
    D <- t(vapply(seq_len(n), function(i) sqrt(mahalanobis(y, x[i, ], S)), numeric(n)))
  }
  weight <- ties <- numeric(n)
  for (i in seq_len(n)) {
    cut <- min(D[i, ]) * (1 + 1e-12)
    ties[i] <- sum(D[i, ] <= cut)
    weight[i] <- if (D[i, i] <= cut) 1 / ties[i] else 0
  }
  list(weight = weight, ties = ties)
}

test_that("tree and exhaustive search give the weights of the plain double loop", {
  set.seed(3)
  for (rep in 1:12) {
    n <- sample(c(2, 5, 40, 300, 700), 1)
    d <- sample(1:3, 1)
    x <- matrix(round(rnorm(n * d, 50, 10)), n, d)
    y <- switch(rep %% 4 + 1,
                x + matrix(rnorm(n * d, 0, 3), n, d),          # noise
                round(x / 5) * 5,                                # rounding: many ties
                x[sample(n), , drop = FALSE],                    # shuffled
                x + matrix(sample(-1:1, n * d, TRUE), n, d))     # integer noise: exact ties
    if (rep %% 3 == 0) { x <- rbind(x, x[1:2, , drop = FALSE]); y <- rbind(y, y[1:2, , drop = FALSE]) }
    if (rep %% 5 == 0 && d > 1) { x[, 2] <- 7; y[, 2] <- 7 }    # a constant variable
    colnames(x) <- colnames(y) <- paste0("v", seq_len(d))
    ref <- plain_linkage(x, y)
    tree <- risk_linkage(x, y, colnames(x), method = "tree")
    loop <- risk_linkage(x, y, colnames(x), method = "exhaustive")
    expect_identical(tree$per_record, loop$per_record)
    expect_identical(tree$ties, loop$ties)
    expect_equal(tree$per_record, ref$weight, info = paste("rep", rep))
    expect_equal(tree$ties, ref$ties)
    expect_equal(tree$risk, mean(ref$weight))
    expect_equal(tree$linked, sum(ref$weight))
  }
})

test_that("the weights do not depend on the number of threads", {
  set.seed(9)
  n <- 3000
  x <- data.frame(a = round(rnorm(n), 1), b = round(runif(n), 2))
  y <- x + data.frame(a = rnorm(n, 0, 0.05), b = 0)
  one <- risk_linkage(x, y, c("a", "b"), method = "tree", threads = 1)
  two <- risk_linkage(x, y, c("a", "b"), method = "tree", threads = 2)
  expect_identical(one$per_record, two$per_record)
  expect_identical(one$ties, two$ties)
})

test_that("Mahalanobis distance matches stats::mahalanobis()", {
  set.seed(8)
  n <- 250
  z <- matrix(rnorm(n * 3), n, 3)
  x <- cbind(a = z[, 1], b = z[, 1] + 0.3 * z[, 2], c = round(10 * z[, 3]))
  y <- x + matrix(rnorm(n * 3, 0, 0.2), n, 3)
  y[, "c"] <- round(y[, "c"])
  ref <- plain_linkage(x, y, "mahalanobis")
  for (method in c("tree", "exhaustive")) {
    l <- risk_linkage(as.data.frame(x), as.data.frame(y), c("a", "b", "c"),
                      distance = "mahalanobis", method = method)
    expect_equal(l$per_record, ref$weight)
    expect_equal(l$ties, ref$ties)
  }
})

test_that("identical releases tie every record; tiny noise is re-linked", {
  d <- data.frame(v = c(1, 2, 3, 4))
  all_same <- data.frame(v = rep(2.5, 4))
  l <- risk_linkage(d, all_same, "v", method = "tree")
  expect_equal(l$per_record, rep(1 / 4, 4))
  expect_equal(l$ties, rep(4, 4))
  expect_equal(risk_linkage(d, d, "v")$risk, 1)
  # dose_cohort with 0.001 Gy of noise: most records re-linked (records
  # sharing their original values can only be re-linked one per group)
  noisy <- dose_cohort
  set.seed(1)
  noisy$dose <- noisy$dose + runif(nrow(noisy), -0.001, 0.001)
  l <- risk_linkage(dose_cohort, noisy, c("dose", "age_end"))
  distinct <- nrow(unique(dose_cohort[c("dose", "age_end")]))
  expect_gt(l$risk, 0.5)
  expect_lte(l$linked, distinct)
})

test_that("risk_spec('linkage') in a profile: 0.001 Gy of noise does not score as safe", {
  d <- dose_cohort[1:2000, ]
  set.seed(2)
  schemes <- list(mask_noise(0.001), mask_noise(0.05), mask_round(1, "decimal"))
  ru <- deprecated(ru_profile(d, schemes, case ~ dose + sex, family = binomial(), vars = "dose",
                   risk = risk_spec("linkage", known = c("dose", "age_end")), seed = 1))
  risk <- as.data.frame(ru)$risk
  expect_gt(risk[1], 0.5)
  expect_true(all(risk >= 0 & risk <= 1))
  expect_gt(risk[1], risk[3])
  # the value the profile reports is risk_linkage()'s risk
  m <- apply_mask(d, mask_round(1, "decimal"), "dose")
  expect_equal(deprecated(risk_value(risk_spec("linkage", known = c("dose", "age_end")), d, m)),
               risk_linkage(d, m, c("dose", "age_end"))$risk)
  # the shorthand beside a spec would be ignored: it is refused, naming it
  spec <- deprecated(risk_spec("match", known = "dose"))
  for (extra in list(list(known = "age_end"), list(unknown = "case"), list(targets = 1:10))) {
    err <- expect_error(do.call(ru_profile, c(list(d, schemes, case ~ dose, family = binomial(),
                                                  risk = spec, seed = 1), extra)),
                        class = "epimask_error_value")
    expect_identical(err$arg, names(extra))
  }
})

test_that("bad input gives classed errors", {
  d <- data.frame(v = c(1, 2, NA), w = c("a", "b", "c"))
  ok <- data.frame(v = 1:3, w = c("a", "b", "c"))
  expect_error(risk_linkage(d, ok, "v"), class = "epimask_error_value")
  expect_error(risk_linkage(ok, ok, "w"), class = "epimask_error_type")
  expect_error(risk_linkage(ok, ok[1:2, ], "v"), class = "epimask_error_length")
  expect_error(risk_linkage(ok, ok, "zz"), class = "epimask_error_name")
  expect_error(risk_linkage(ok, ok, "v", distance = "manhattan"), class = "epimask_error_value")
})

test_that("print, summary, as.data.frame and plot", {
  d <- dose_cohort[1:1000, ]
  m <- apply_mask(d, mask_noise(0.05), c("dose", "age_end"))
  l <- risk_linkage(d, m, c("dose", "age_end"))
  expect_output(print(l), "linkage risk")
  s <- summary(l)
  expect_equal(sum(s$outcomes$records), nrow(d))
  expect_output(print(s), "re-linked alone")
  expect_equal(as.data.frame(l)$weight, l$per_record)
  expect_plot_snapshot("linkage", function() plot(l))
})

test_that("every new measure is a risk value in [0, 1] with its documented meaning", {
  d <- dose_cohort[1:3000, ]
  d$age5 <- 5 * (d$age_exp %/% 5)
  m <- apply_mask(d, mask_round(1, "decimal"), "dose")
  keys <- c("city", "sex", "age5")
  l <- risk_ldiversity(m, keys, "case")
  expect_equal(deprecated(risk_value(risk_spec("ldiversity", keys = keys, sensitive = "case"), d, m)),
               1 / l$entropy_l[["case"]])
  expect_equal(deprecated(risk_value(risk_spec("ldiversity", keys = keys, sensitive = "case",
                                    measure = "distinct"), d, m)), 1 / l$distinct_l[["case"]])
  tc <- risk_tcloseness(m, keys, c("dose", "case"))
  expect_equal(deprecated(risk_value(risk_spec("tcloseness", keys = keys, sensitive = c("dose", "case")), d, m)),
               max(tc$t))
  ind <- risk_individual(m, keys, weights = rep(10, nrow(m)))
  expect_equal(deprecated(risk_value(risk_spec("individual", keys = keys, weights = rep(10, nrow(m))), d, m)),
               ind$global)
  s <- risk_suda(m, c(keys, "case"))
  expect_equal(deprecated(risk_value(risk_spec("suda", keys = c(keys, "case")), d, m)), mean(s$dis))
  expect_equal(deprecated(risk_value(risk_spec("suda", keys = c(keys, "case"), measure = "share",
                                    threshold = 0.01), d, m)), mean(s$dis > 0.01))
  expect_error(deprecated(risk_spec("ldiversity", keys = keys)), class = "epimask_error_value")
  expect_error(deprecated(risk_spec("linkage")), class = "epimask_error_value")
})
