# Cluster (household) risk of risk_individual() (methods vignette section 22): r_h = 1 -
# prod(1 - r_i) over the members, given to every member; checked against the
# product written out per cluster.

test_that("cluster risk is 1 - prod(1 - r_i) over the members, for every member", {
  set.seed(5)
  d <- data.frame(a = sample(1:4, 300, TRUE), b = sample(c("x", "y", "z"), 300, TRUE),
                  hh = sample(1:90, 300, TRUE), w = runif(300, 1, 30))
  r <- risk_individual(d, c("a", "b"), weights = "w", cluster = "hh")
  ri <- risk_individual(d, c("a", "b"), weights = "w")$per_record
  ref <- numeric(300)
  for (h in unique(d$hh)) {
    members <- which(d$hh == h)
    ref[members] <- 1 - prod(1 - ri[members])
  }
  expect_equal(r$cluster_risk, ref, tolerance = tol_exact)
  expect_equal(r$per_record, ri)   # the individual risks are unchanged
  expect_equal(r$cluster_expected, sum(ref), tolerance = tol_exact)
  expect_equal(r$cluster_global, sum(ref) / 300, tolerance = tol_exact)
  expect_equal(r$n_clusters, length(unique(d$hh)))
  # a cluster of one keeps its individual risk; clusters never lower a risk
  single <- as.integer(names(which(table(d$hh) == 1)))
  s <- d$hh %in% single
  expect_equal(r$cluster_risk[s], ri[s], tolerance = tol_exact)
  expect_true(all(r$cluster_risk >= ri - 1e-15))
  # a vector works as the column does
  r2 <- risk_individual(d, c("a", "b"), weights = "w", cluster = d$hh)
  expect_equal(r2$cluster_risk, r$cluster_risk)
})

test_that("a census member who is unique makes the whole cluster certain", {
  d <- data.frame(k = c("u", "p", "p", "q", "q", "q"), fam = c(1, 1, 2, 2, 3, 3))
  r <- risk_individual(d, "k", cluster = "fam")
  # r_i = 1/f: 1, 1/2, 1/2, 1/3, 1/3, 1/3
  expect_equal(r$cluster_risk, c(1, 1, 1 - (1/2) * (2/3), 1 - (1/2) * (2/3),
                                 1 - (2/3)^2, 1 - (2/3)^2), tolerance = tol_exact)
})

test_that("methods show the cluster risk; the risk_spec entry uses it", {
  d <- dose_cohort[1:200, ]
  fam <- (seq_len(200) - 1) %/% 4
  r <- risk_individual(d, c("city", "sex"), weights = rep(10, 200), cluster = fam)
  expect_match(format(r)[4], "50 clusters")
  expect_equal(as.data.frame(r)$cluster_risk, r$cluster_risk)
  expect_equal(glance(r)$cluster_expected, r$cluster_expected)
  d$fam <- fam
  v <- deprecated(risk_value(risk_spec("individual", keys = c("city", "sex"), weights = rep(10, 200),
                            cluster = "fam"), d, d))
  expect_equal(v, r$cluster_global, tolerance = tol_exact)
})

test_that("bad cluster input: classed errors", {
  d <- data.frame(k = c(1, 1, 2, 3), h = c(1, NA, 2, 2))
  expect_error(risk_individual(d, "k", cluster = "h"), class = "epimask_error_missing")
  expect_error(risk_individual(d, "k", cluster = c(1, 2)), class = "epimask_error_type")
  expect_error(risk_individual(d, "k", cluster = "nope"), class = "epimask_error")
  expect_error(risk_individual(d, "k", cluster = list(1, 2, 3, 4)), class = "epimask_error_type")
})
