# ola() with several records per person (methods vignette section 23) under
# the custodian's targets (section 20): the person is the unit counted,
# failed and suppressed. The reference: at EVERY lattice node the records'
# keys are generalized with generalize(), each person's key set is formed by
# hand with unique() over their generalized tuples, and the criteria of
# helper-ola-targets.R are written out on one row per person (built by hand
# with unique() over the records); the node's person classes by key set are
# checked to be those classes. Then ola()'s choice and its release,
# recounted by person, are compared with the optimum.

# Persons of ola_fixture() with 1-4 records each, records shuffled (persons
# interleave); keys, the sensitive `outcome` and the `family` are
# person-level, `y` (the collaborator's outcome) and `visit` record-level.
persons_fixture <- function(P, seed) {
  fx <- ola_fixture(P, seed)
  pf <- fx$data
  pf$pid <- sprintf("p%03d", seq_len(P))
  set.seed(seed + 1000)
  pf$family <- sprintf("f%02d", sample(rep(seq_len(ceiling(P / 3)), 3), P))
  pf$wt <- sample(c(5, 10, 20), P, TRUE)
  m <- sample(1:4, P, TRUE)
  d <- pf[rep(seq_len(P), m), ]
  d$visit <- sequence(m)
  d <- d[sample(nrow(d)), ]
  d$y <- rpois(nrow(d), exp(0.3 + 0.03 * (d$age - 40) + 0.3 * (d$sex == "m")))
  rownames(d) <- NULL
  list(data = d, h = fx$h, keys = fx$keys)
}

# One row per person by hand: unique() over the person-level columns, in the
# order of each person's first record.
person_rows_by_hand <- function(d, cols) {
  pf <- unique(d[c("pid", cols)])
  stopifnot(!anyDuplicated(pf$pid))
  rownames(pf) <- NULL
  pf
}

# Each person's key set at a node, by hand: their records' generalized
# tuples, unique(), sorted, pasted.
key_sets_at <- function(d, keys, h, levels) {
  gen <- lapply(seq_along(keys), function(v)
    as.character(generalize(d[[keys[v]]], h[[keys[v]]], levels[[v]])))
  tuples <- do.call(paste, c(gen, sep = "\r"))
  tapply(tuples, d$pid, function(t) paste(sort(unique(t)), collapse = "\n"))
}

# Key sets of a release (pseudonymised person column: one value per person).
release_sets <- function(rel, keys, id = "pid") {
  tuples <- do.call(paste, c(rel[keys], sep = "\r"))
  tapply(tuples, rel[[id]], function(t) paste(sort(unique(t)), collapse = "\n"))
}

# The exhaustive search on persons: every node, classes of persons checked
# against the key sets, criteria and losses of brute_target_node() on the
# persons, the analysis loss by glm() on the records of the persons kept.
brute_person_optimum <- function(d, qi, h, metric, pf, analysis = NULL, ...) {
  keys <- qi
  nodes <- all_nodes(h, keys)
  best <- NULL
  for (i in seq_len(nrow(nodes))) {
    lv <- unname(nodes[i, ])
    sets <- key_sets_at(d, keys, h, lv)[pf$pid]
    r <- brute_target_node(pf, keys, h, lv, ...)
    cls <- do.call(paste, c(r$gen, sep = "\r"))
    # the persons' classes by key set are the classes of the person rows
    expect_identical(match(sets, unique(sets)), match(cls, unique(cls)))
    if (!r$ok) next
    loss <- if (is.null(analysis)) r$loss[[metric]] else {
      rec_supp <- r$supp[match(d$pid, pf$pid)]
      gen_rec <- lapply(seq_along(keys), function(v)
        as.character(generalize(d[[keys[v]]], h[[keys[v]]], lv[[v]])))
      brute_analysis_loss(d, keys, gen_rec, rec_supp, analysis$formula, analysis$family,
                          analysis$term)
    }
    if (beats(lv, loss, best))
      best <- list(levels = lv, loss = loss, all = r$loss, supp = r$supp)
  }
  best
}

# ola() on the records with id = "pid" against the exhaustive search on
# persons; the release recounted by person. `ola_args` go to ola() only,
# `...` to both.
expect_person_optimum <- function(fx, metric = "entropy", analysis = NULL, ola_args = list(),
                                  ...) {
  d <- fx$data
  pf <- person_rows_by_hand(d, c(fx$keys, "outcome", "family", "wt"))
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  ref <- brute_person_optimum(d, fx$keys, h, metric, pf, analysis = analysis, ...)
  args <- list(...)
  brute_only <- c("charge", "uniqueness", "risks", "population")
  call_args <- c(list(d, fx$keys, fx$h, id = "pid", secret = "s",
                      metric = if (is.null(analysis)) metric
                               else analysis_loss(analysis$formula, analysis$family,
                                                  analysis$term)),
                 args[setdiff(names(args), brute_only)], ola_args)
  if (!is.null(args$charge)) call_args$suppressed_loss <- args$charge
  if (!is.null(args$population)) call_args$population <- args$population
  res <- suppressWarnings(do.call(ola, call_args))
  label <- paste(metric, paste(names(args), vapply(args, function(a)
    paste(format(unlist(a)[seq_len(min(2, length(unlist(a))))]), collapse = " "), ""),
    collapse = ", "), names(ola_args))
  if (is.null(ref)) {
    expect_false(res$acceptable, label = label)
    return(invisible(res))
  }
  expect_true(res$acceptable, label = label)
  expect_identical(unname(res$levels), as.integer(ref$levels), label = label)
  expect_equal(info_loss(res, if (is.null(analysis)) metric else "analysis"), ref$loss,
               tolerance = if (is.null(analysis)) tol_exact else 1e-7, label = label)
  # persons suppressed whole: all their records, and only theirs
  gone <- pf$pid[ref$supp]
  expect_identical(res$suppressed, which(d$pid %in% gone), label = label)
  expect_identical(res$n_persons_suppressed, length(gone), label = label)
  expect_identical(res$n_persons, nrow(pf), label = label)
  # the release recounted by person: every class has at least k persons
  if (nrow(res$data)) {
    sizes <- table(release_sets(res$data, fx$keys))
    expect_gte(min(sizes), args$k, label = label)
    expect_equal(sort(as.vector(sizes)), sort(res$class_sizes), label = label)
  }
  invisible(res)
}

metrics <- c("entropy", "precision", "discernibility", "avg_class_size")

test_that("persons: outliers = 'failing' with l-diversity equals the exhaustive search", {
  fx <- persons_fixture(90, 31)
  for (metric in metrics) {
    for (ms in c(0.05, 0.2)) {
      res <- expect_person_optimum(fx, metric, k = 2, max_suppress = ms, outliers = "failing",
                                   l = 2, sensitive = "outcome")
      # recount: every released class of persons has 2 outcomes among its persons
      rel <- res$data
      sets <- release_sets(rel, fx$keys)
      per_person <- rel[!duplicated(rel$pid), ]
      by_class <- tapply(per_person$outcome, sets[per_person$pid], function(v) length(unique(v)))
      expect_true(all(by_class >= 2))
    }
  }
})

test_that("persons: avg_risk equals the exhaustive search and the release meets it", {
  fx <- persons_fixture(90, 32)
  for (metric in metrics)
    for (ar in c(0.2, 0.35)) {
      res <- expect_person_optimum(fx, metric, k = 1, max_suppress = 0.1, avg_risk = ar)
      sets <- release_sets(res$data, fx$keys)
      expect_lte(length(unique(sets)) / length(sets), ar)
      expect_person_optimum(fx, metric, k = 2, max_suppress = 0.1, avg_risk = ar,
                            outliers = "failing")
    }
})

test_that("persons: k-map against a population of persons equals the exhaustive search", {
  fx <- persons_fixture(90, 33)
  d <- fx$data
  pf <- person_rows_by_hand(d, fx$keys)
  set.seed(33)
  population <- pf[sample(nrow(pf), 600, TRUE), fx$keys]
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  for (metric in metrics) {
    for (km in c(8, 15)) {
      res <- expect_person_optimum(fx, metric, k = 2, max_suppress = 0.1, k_map = km,
                                   population = population)
      # recount: every released class matches >= k_map persons of the population
      lv <- unname(res$levels)
      pg <- do.call(paste, c(lapply(seq_along(fx$keys), function(v)
        as.character(generalize(population[[fx$keys[v]]], h[[fx$keys[v]]], lv[[v]]))),
        sep = "\r"))
      cls <- unique(do.call(paste, c(res$data[fx$keys], sep = "\r")))
      expect_true(all(vapply(cls, function(cl) sum(pg == cl), numeric(1)) >= km))
    }
  }
  # k-map from a sampling fraction: the derived k is capped at the persons
  res <- deprecated(ola(d, fx$keys, fx$h, k = 1, id = "pid", secret = "s", k_map = 1000,
             population = population_model(1)))
  expect_identical(res$criteria$k_map_model$derived_k, nrow(pf))
})

test_that("persons: ARX's charging (node / block) equals the exhaustive search", {
  fx <- persons_fixture(80, 34)
  for (metric in metrics) {
    expect_person_optimum(fx, metric, k = 3, max_suppress = 0.1, charge = "node")
    expect_person_optimum(fx, metric, k = 3, max_suppress = 0.2, charge = "block",
                          outliers = "failing", l = 2, sensitive = "outcome")
  }
})

test_that("persons: population uniqueness equals the exhaustive search", {
  fx <- persons_fixture(100, 35)
  pi <- 0.05
  # Zayatz written out (helper-ola-targets.R) on the released classes of persons
  share <- zayatz_share_by_hand(pi)
  for (metric in c("entropy", "precision"))
    for (mx in c(0.003, 0.02))
      expect_person_optimum(fx, metric, k = 1, max_suppress = 0.1,
                            uniqueness = list(share = share, max = mx),
                            ola_args = list(uniqueness = list(pi = pi, model = "zayatz",
                                                              max = mx)))
})

test_that("persons: the analysis loss is fitted on the records of the persons kept", {
  fx <- persons_fixture(90, 36)
  m <- list(formula = y ~ age + sex, family = poisson(), term = "age")
  expect_person_optimum(fx, analysis = m, k = 3, max_suppress = 0.1)
  expect_person_optimum(fx, analysis = m, k = 2, max_suppress = 0.1, outliers = "failing",
                        l = 2, sensitive = "outcome")
  res <- expect_person_optimum(fx, analysis = m, k = 1, max_suppress = 0.1, avg_risk = 0.3)
  # the release's estimate: glm() on the released records (numeric key at
  # its group means over all records)
  d <- fx$data
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  kept <- !seq_len(nrow(d)) %in% res$suppressed
  dd <- d
  age_g <- as.character(generalize(d$age, h$age, res$levels[["age"]]))
  if (res$levels[["age"]] > 0) dd$age <- ave(d$age, age_g)
  if (res$levels[["sex"]] > 0) dd$sex <- factor(as.character(generalize(d$sex, h$sex, 1)))
  if (length(unique(dd$sex[kept])) > 1 && length(unique(dd$age[kept])) > 1) {
    fit <- glm(y ~ age + sex, poisson(), data = dd[kept, ])
    expect_equal(res$analysis$release$estimate, unname(coef(fit)[["age"]]), tolerance = 1e-7)
  }
})

test_that("persons: local recoding searches the suppressed persons again", {
  fx <- persons_fixture(120, 44)
  d <- fx$data
  glob <- deprecated(ola(d, fx$keys, fx$h, k = 3, max_suppress = 0.1, metric = "precision", id = "pid",
              secret = "s"))
  loc <- deprecated(ola(d, fx$keys, fx$h, k = 3, max_suppress = 0.1, metric = "precision", id = "pid",
             secret = "s", local = TRUE))
  expect_identical(loc$levels, glob$levels)
  expect_gt(glob$n_persons_suppressed, 0)
  expect_lt(loc$n_persons_suppressed, glob$n_persons_suppressed)
  # the first round: the exhaustive search on the suppressed persons alone
  pf <- person_rows_by_hand(d, c(fx$keys, "outcome", "family", "wt"))
  gone <- unique(d$pid[glob$suppressed])
  sub <- pf[pf$pid %in% gone, ]
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  ref <- brute_target_optimum(sub, fx$keys, h, "precision", k = 3, max_suppress = 0.1)
  expect_identical(loc$local$levels[[1]], paste(ref$levels, collapse = ","))
  expect_identical(loc$local$persons[[1]], nrow(sub) - sum(ref$supp))
  recoded <- sub$pid[!ref$supp]
  expect_identical(loc$local$records[[1]], sum(d$pid %in% recoded))
  expect_identical(loc$local$persons_still_suppressed[[1]], sum(ref$supp))
  expect_match(paste(format(loc), collapse = "\n"),
               sprintf("recoded %d suppressed person\\(s\\) \\(%d records\\)",
                       length(recoded), sum(d$pid %in% recoded)))
  # persons stay whole: a person's records are all released or all suppressed
  left <- unique(d$pid[loc$suppressed])
  expect_identical(loc$suppressed, which(d$pid %in% left))
  expect_identical(loc$n_persons_suppressed, length(left))
  # every released class has at least 3 persons (recount by key sets)
  sizes <- table(release_sets(loc$data, fx$keys))
  expect_gte(min(sizes), 3)
  expect_identical(nrow(loc$data), nrow(d) - length(loc$suppressed))
})

# ---- log-linear and cluster risk as criteria (methods vignette, section 22) ---------

# The shares by the package's measures on the release at a node: the
# released units' generalized keys as a data frame.
loglinear_share_of <- function(keys, pi = NULL, weights = NULL, measure = "tau1")
  function(kept, gen) {
    if (!any(kept)) return(0)
    df <- as.data.frame(lapply(gen, `[`, kept), stringsAsFactors = FALSE)
    names(df) <- keys
    r <- tryCatch(risk_loglinear(df, keys, pi = pi, weights = weights[kept]),
                  warning = function(w) NULL)
    if (is.null(r)) return(NA_real_)
    if (measure == "tau1") r$tau1_share else r$tau2_share
  }
cluster_share_of <- function(keys, cluster, weights = NULL) function(kept, gen) {
  if (!any(kept)) return(0)
  df <- as.data.frame(lapply(gen, `[`, kept), stringsAsFactors = FALSE)
  names(df) <- keys
  risk_individual(df, keys, weights = weights[kept], cluster = cluster[kept])$cluster_global
}

expect_risk_optimum <- function(fx, metric, risk_args, risks, ...) {
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  ref <- brute_target_optimum(fx$data, fx$keys, h, metric, risks = risks, ...)
  res <- deprecated(do.call(ola, c(list(fx$data, fx$keys, fx$h, metric = metric), list(...), risk_args)))
  label <- sprintf("%s, %s", metric, paste(names(unlist(risk_args)), unlist(risk_args),
                                           collapse = " "))
  expect_matches_optimum(res, ref, metric, label)
}

test_that("log-linear risk as a criterion equals the exhaustive search with risk_loglinear()", {
  fx <- ola_fixture(150, 41)
  keys <- fx$keys
  set.seed(41)
  fx$data$wt <- sample(c(10, 20, 40), nrow(fx$data), TRUE)
  for (metric in c("entropy", "precision", "discernibility"))
    for (mx in c(0.01, 0.04)) {
      res <- expect_risk_optimum(fx, metric, list(loglinear = list(pi = 0.05, max = mx)),
                                 list(list(share = loglinear_share_of(keys, pi = 0.05), max = mx, scan = FALSE)),
                                 k = 1, max_suppress = 0.1)
      # the release recounted: tau1 / n by risk_loglinear() on the released keys
      if (res$acceptable) {
        r <- risk_loglinear(res$data, keys, pi = 0.05)
        expect_lte(r$tau1_share, mx)
        expect_equal(res$criteria$loglinear$release, r$tau1_share, tolerance = 1e-8)
        expect_match(paste(format(res), collapse = "\n"),
                     sprintf("log-linear risk tau1 share <= %s \\(pi 0.05; release", mx))
      }
    }
  expect_risk_optimum(fx, "entropy",
                      list(loglinear = list(weights = "wt", max = 0.02, measure = "tau2")),
                      list(list(share = loglinear_share_of(keys, weights = fx$data$wt,
                                                           measure = "tau2"), max = 0.02, scan = FALSE)),
                      k = 1, max_suppress = 0.1)
  # with avg_risk's suppression before the check
  expect_risk_optimum(fx, "precision", list(loglinear = list(pi = 0.1, max = 0.02)),
                      list(list(share = loglinear_share_of(keys, pi = 0.1), max = 0.02, scan = FALSE)),
                      k = 1, max_suppress = 0.15, avg_risk = 0.5)
})

test_that("cluster risk as a criterion equals the exhaustive search with risk_individual()", {
  fx <- ola_fixture(150, 42)
  keys <- fx$keys
  set.seed(42)
  fx$data$family <- sample(rep(1:50, 3))
  fx$data$wt <- sample(c(2, 5), nrow(fx$data), TRUE)
  for (metric in metrics)
    for (mx in c(0.2, 0.35)) {
      res <- expect_risk_optimum(fx, metric, list(cluster_risk = list(cluster = "family", max = mx)),
                                 list(list(share = cluster_share_of(keys, fx$data$family),
                                           max = mx)),
                                 k = 2, max_suppress = 0.1)
      if (res$acceptable) {
        r <- risk_individual(res$data, keys, cluster = "family")
        expect_lte(r$cluster_global, mx)
        expect_equal(res$criteria$cluster_risk$release, r$cluster_global, tolerance = 1e-12)
      }
    }
  # the scan suppresses the smallest classes (k = 1: nothing else does)
  res <- expect_risk_optimum(fx, "entropy", list(cluster_risk = list(cluster = "family", max = 0.3)),
                             list(list(share = cluster_share_of(keys, fx$data$family), max = 0.3)),
                             k = 1, max_suppress = 0.1)
  expect_gt(res$n_suppressed, 0)
  res <- expect_risk_optimum(fx, "entropy",
                             list(cluster_risk = list(cluster = "family", max = 0.1, weights = "wt")),
                             list(list(share = cluster_share_of(keys, fx$data$family, fx$data$wt),
                                       max = 0.1)),
                             k = 1, max_suppress = 0.2)
  expect_match(paste(format(res), collapse = "\n"),
               "cluster risk share <= 0.1 \\(clusters 'family', weights 'wt'; release")
  # cluster risk and population uniqueness in one scan, then the log-linear
  # check on the release the scan leaves
  pi <- 0.05
  zay <- zayatz_share_by_hand(pi)
  h <- epimask:::check_hierarchies(fx$h, keys, fx$data)
  for (metric in c("entropy", "precision")) {
    ref <- brute_target_optimum(
      fx$data, keys, h, metric, k = 1, max_suppress = 0.1,
      uniqueness = list(share = zay, max = 0.01),
      risks = list(list(share = cluster_share_of(keys, fx$data$family), max = 0.3),
                   list(share = loglinear_share_of(keys, pi = pi), max = 0.02, scan = FALSE)))
    res <- deprecated(ola(fx$data, keys, fx$h, k = 1, max_suppress = 0.1, metric = metric,
               uniqueness = list(pi = pi, model = "zayatz", max = 0.01),
               cluster_risk = list(cluster = "family", max = 0.3),
               loglinear = list(pi = pi, max = 0.02)))
    expect_identical(unname(res$levels), as.integer(ref$levels))
    expect_equal(info_loss(res, metric), ref$loss, tolerance = tol_exact)
    expect_identical(res$suppressed, which(ref$supp))
  }
})

test_that("persons: log-linear and cluster risk count persons", {
  fx <- persons_fixture(100, 43)
  keys <- fx$keys
  pf <- person_rows_by_hand(fx$data, c(keys, "outcome", "family", "wt"))
  for (metric in c("entropy", "precision")) {
    res <- expect_person_optimum(fx, metric, k = 1, max_suppress = 0.1,
                                 risks = list(list(share = loglinear_share_of(keys, pi = 0.05),
                                                   max = 0.02, scan = FALSE)),
                                 ola_args = list(loglinear = list(pi = 0.05, max = 0.02)))
    # recount on one row per released person
    rel <- res$data[!duplicated(res$data$pid), ]
    expect_lte(risk_loglinear(rel, keys, pi = 0.05)$tau1_share, 0.02)
    # and by the measure's own persons (risk_loglinear(id =)) on the records
    expect_equal(risk_loglinear(res$data, keys, pi = 0.05, id = "pid")$tau1_share,
                 res$criteria$loglinear$release, tolerance = 1e-8)
    res <- expect_person_optimum(fx, metric, k = 2, max_suppress = 0.1,
                                 risks = list(list(share = cluster_share_of(keys, pf$family),
                                                   max = 0.3)),
                                 ola_args = list(cluster_risk = list(cluster = "family",
                                                                     max = 0.3)))
    rel <- res$data[!duplicated(res$data$pid), ]
    expect_lte(risk_individual(rel, keys, cluster = rel$family)$cluster_global, 0.3)
    # weights one per person
    expect_person_optimum(fx, metric, k = 1, max_suppress = 0.2,
                          risks = list(list(share = cluster_share_of(keys, pf$family, pf$wt),
                                            max = 0.1)),
                          ola_args = list(cluster_risk = list(cluster = "family", max = 0.1,
                                                              weights = "wt")))
  }
})

test_that("bad input to the person and risk criteria gets classed errors", {
  fx <- persons_fixture(40, 44)
  d <- fx$data
  before <- d
  call <- function(...) deprecated(ola(d, fx$keys, fx$h, k = 2, id = "pid", secret = "s", ...))
  expect_error(call(loglinear = 0.1), class = "epimask_error_type")
  expect_error(call(loglinear = list(pi = 0.1)), class = "epimask_error_type")
  expect_error(call(loglinear = list(pi = 2, max = 0.1)), class = "epimask_error_fraction")
  expect_error(call(loglinear = list(pi = 0.1, max = 2)), class = "epimask_error_value")
  expect_error(call(loglinear = list(pi = 0.1, weights = "wt", max = 0.1)),
               class = "epimask_error_value")
  expect_error(call(loglinear = list(max = 0.1, measure = "tau3")), class = "epimask_error_value")
  expect_error(call(loglinear = list(max = 0.1, weights = "nope")), class = "epimask_error_name")
  expect_error(call(cluster_risk = list(max = 0.1)), class = "epimask_error_type")
  expect_error(call(cluster_risk = list(cluster = "nope", max = 0.1)), class = "epimask_error_name")
  expect_error(call(cluster_risk = list(cluster = "family", max = 0.1), local = TRUE),
               class = "epimask_error_value")
  expect_error(call(loglinear = list(max = 0.1), local = TRUE), class = "epimask_error_value")
  # a cluster or weight that varies within a person
  expect_error(call(cluster_risk = list(cluster = "visit", max = 0.1)),
               class = "epimask_error_value")
  d$w2 <- d$wt + d$visit
  expect_error(call(cluster_risk = list(cluster = "family", max = 0.1, weights = "w2")),
               class = "epimask_error_value")
  d$w2 <- 0.5
  expect_error(call(loglinear = list(max = 0.1, weights = "w2")), class = "epimask_error_weights")
  d$fam_na <- d$family
  d$fam_na[1] <- NA
  expect_error(call(cluster_risk = list(cluster = "fam_na", max = 0.1)),
               class = "epimask_error_missing")
  expect_identical(d[names(before)], before)
})

test_that("deidentify() passes the sample-release criteria to ola() and drops what it suppresses", {
  set.seed(1)
  n <- 150
  d <- data.frame(age = sample(20:69, n, TRUE), sex = sample(c("f", "m"), n, TRUE),
                  zip = sample(c("021", "022", "031", "032", "041"), n, TRUE),
                  family = rep(1:50, each = 3), stringsAsFactors = FALSE)
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(), zip = hierarchy_flat())
  keys <- c("age", "sex", "zip")
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.33)
  crit <- list(cluster = "family", max = 0.25)
  # the household column is flagged by the column review (named like a
  # demographic variable): declared, it is the cluster of the criterion
  rel <- suppressWarnings(deprecated(deidentify(d, keys, h, ctx, max_suppress = 0.2, cluster_risk = crit,
                                                declare = c(family = "the household (test fixture)"))))
  gen <- rel$generalization
  expect_equal(gen$criteria$cluster_risk$max, 0.25)
  # the same search as ola() with the targets deidentify() derives
  direct <- deprecated(ola(d, keys, h, k = gen$k, max_suppress = 0.2, outliers = "failing",
                avg_risk = gen$criteria$avg_risk, cluster_risk = crit))
  expect_identical(gen$levels, direct$levels)
  expect_identical(gen$suppressed, direct$suppressed)
  expect_gt(length(gen$suppressed), 0)
  # nothing blanked: the suppressed records are dropped, and the release
  # recounted meets the cluster criterion and the context
  expect_equal(nrow(rel$data), n - length(gen$suppressed))
  expect_false(anyNA(rel$data[keys]))
  expect_lte(risk_individual(rel$data, keys, cluster = "family")$cluster_global, 0.25)
  expect_true(rel$pass)
})
