# Each built-in risk criterion: its value on a release against the old
# risk_spec() (deprecated, the same number, so that profiles stay
# identical) and against a plain-R recount written out here; the search
# with criteria against the exhaustive enumeration of the lattice; the
# interface's own contracts.

crit_fixture <- function(n = 240, seed = 7) {
  set.seed(seed)
  d <- data.frame(age = sample(seq(20, 60, by = 5), n, TRUE),
                  sex = sample(c("f", "m"), n, TRUE),
                  zip = sample(c("a", "b", "c"), n, TRUE, prob = c(0.6, 0.3, 0.1)),
                  dx = sample(c("x", "y", "z"), n, TRUE, prob = c(0.7, 0.2, 0.1)),
                  score = sample(1:5, n, TRUE),
                  x = round(rnorm(n, 10, 2), 1), stringsAsFactors = FALSE)
  d$family <- (seq_len(n) + 1L) %/% 2L
  d$wt <- sample(c(5, 10, 20), n, TRUE)
  d
}
keys <- c("age", "sex", "zip")
class_of <- function(d, keys) do.call(paste, c(lapply(d[keys], as.character), sep = "\r"))
value <- function(crit, d, ...) criterion_evaluate(crit, d, keys = keys, ...)$value

test_that("k-anonymity, average and strict average risk: risk_spec() and a recount", {
  d <- crit_fixture()
  f <- table(class_of(d, keys))
  expect_equal(value(k_anonymity(5), d), 1 / min(f), tolerance = tol_exact)
  expect_equal(value(avg_risk(0.5), d), length(f) / nrow(d), tolerance = tol_exact)
  strict <- if (min(f) >= 3) length(f) / nrow(d) else 1 / min(f)
  expect_equal(value(avg_risk(0.5, strict = TRUE), d), strict, tolerance = tol_exact)
  for (m in c("max", "avg", "strict_avg"))
    expect_identical(deprecated(risk_value(risk_spec("kanon", keys = keys, measure = m), d, d)),
                     risk_kanon(d, keys)[[paste0(m, "_risk")]])
  # the old default measure, the strict average, is avg_risk(strict = TRUE)
  expect_identical(deprecated(risk_spec("kanon", keys = keys))$strict, TRUE)
  expect_true(criterion_evaluate(k_anonymity(1), d, keys = keys)$pass)
  expect_false(criterion_evaluate(k_anonymity(nrow(d)), d, keys = keys)$pass)
})

test_that("k-map: the journalist and marketer risks against a population, by hand", {
  d <- crit_fixture()
  pop <- rbind(d, crit_fixture(700, 8))[keys]
  F <- table(class_of(pop, keys))
  cls <- class_of(d, keys)
  f <- table(cls)
  expect_equal(value(k_map(5, pop), d), 1 / min(F[names(f)]), tolerance = tol_exact)
  expect_equal(value(k_map(5, pop, measure = "marketer"), d),
               sum(f / F[names(f)]) / nrow(d), tolerance = tol_exact)
  for (m in c("journalist", "marketer"))
    expect_identical(deprecated(risk_value(risk_spec("kanon", keys = keys, measure = m,
                                                     population = pop), d, d)),
                     risk_kanon(d, keys, population = pop)[[paste0(m, "_risk")]])
  # a sampling fraction alone: F = f / pi
  expect_equal(value(k_map(50, population_model(0.1)), d), 0.1 / min(f), tolerance = tol_exact)
  # a release the population does not cover: NA, said why, and it fails
  res <- criterion_evaluate(k_map(5, pop[pop$zip != "c", ]), d, keys = keys)
  expect_true(is.na(res$value))
  expect_false(res$pass)
  expect_match(res$note, "not computed")
})

test_that("l-diversity and t-closeness: risk_spec() and a recount", {
  d <- crit_fixture()
  cls <- class_of(d, keys)
  distinct <- min(tapply(d$dx, cls, function(v) length(unique(v))))
  entropy <- min(tapply(d$dx, cls, function(v) {
    p <- as.vector(table(v)) / length(v)
    exp(-sum(p * log(p)))
  }))
  expect_equal(value(l_diversity(2, "dx"), d), 1 / distinct, tolerance = tol_exact)
  expect_equal(value(l_diversity(2, "dx", measure = "entropy"), d), 1 / entropy,
               tolerance = tol_exact)
  expect_identical(deprecated(risk_value(risk_spec("ldiversity", keys = keys, sensitive = "dx"),
                                         d, d)),
                   1 / min(risk_ldiversity(d, keys, "dx")$entropy_l))
  # t-closeness: unordered (half the L1 distance) and ordered (the score)
  q <- table(d$dx) / nrow(d)
  emd <- max(tapply(d$dx, cls, function(v) sum(abs(table(factor(v, names(q))) / length(v) - q)) / 2))
  expect_equal(value(t_closeness(0.5, "dx"), d), emd, tolerance = tol_exact)
  qs <- as.vector(table(factor(d$score, 1:5))) / nrow(d)
  emd_o <- max(tapply(d$score, cls, function(v)
    sum(abs(cumsum(as.vector(table(factor(v, 1:5))) / length(v) - qs))) / 4))
  crit <- criterion_prepare(t_closeness(0.5, "score"), d, keys)
  expect_identical(crit$ordered, "score")
  expect_equal(value(crit, d), emd_o, tolerance = tol_exact)
  expect_identical(deprecated(risk_value(risk_spec("tcloseness", keys = keys, sensitive = "score"),
                                         d, d)),
                   max(risk_tcloseness(d, keys, "score")$t))
})

test_that("population uniqueness, log-linear and cluster risk: risk_spec() and recounts", {
  d <- crit_fixture(400, 9)
  f <- as.vector(table(class_of(d, keys)))
  # Zayatz's estimate written out (helper-ola-targets.R)
  expect_equal(value(uniqueness(0.1, population_model(0.05, "zayatz")), d),
               zayatz_share_by_hand(0.05)(f, nrow(d)), tolerance = 1e-10)
  expect_identical(deprecated(risk_value(risk_spec("population", keys = keys, pi = 0.05), d, d)),
                   suppressWarnings(risk_population(d, keys, 0.05, compare = FALSE))$share)
  # a release of fewer records is a sample of the same population: the
  # search's fraction n_r / round(n / pi)
  sub <- d[seq_len(300), ]
  res <- criterion_evaluate(uniqueness(0.1, population_model(0.05, "zayatz")), sub,
                            original = d, keys = keys)
  expect_equal(res$value, epimask:::uniqueness_share(as.vector(table(class_of(sub, keys))),
                                                     population_model(0.05, "zayatz"), 400),
               tolerance = tol_exact)
  # log-linear tau1 by glm() over every cell of the key table (main effects)
  cells <- expand.grid(lapply(d[keys], function(x) sort(unique(x))), stringsAsFactors = FALSE)
  cells$f <- as.vector(table(factor(class_of(d, keys), class_of(cells, keys))))
  fit <- glm(f ~ factor(age) + sex + zip, poisson(), cells)
  pi <- 0.05
  v <- (1 - pi) * fitted(fit) / pi
  tau1 <- sum(exp(-v)[cells$f == 1])
  expect_equal(value(loglinear_risk(0.1, pi = pi), d), tau1 / nrow(d), tolerance = 1e-6)
  expect_identical(deprecated(risk_value(risk_spec("loglinear", keys = keys, pi = pi), d, d)),
                   risk_loglinear(d, keys, pi = pi)$tau1_share)
  # cluster risk: 1 - prod(1 - 1/f) over each family, averaged over records
  r <- 1 / as.vector(table(class_of(d, keys))[class_of(d, keys)])
  rh <- ave(r, d$family, FUN = function(x) 1 - prod(1 - x))
  expect_equal(value(cluster_risk(0.5, "family"), d), mean(rh), tolerance = tol_exact)
  expect_identical(deprecated(risk_value(risk_spec("individual", keys = keys, cluster = "family"),
                                         d, d)),
                   risk_individual(d, keys, cluster = "family")$cluster_global)
  # individual risk without weights is the average risk; with weights risk_individual()'s
  expect_equal(value(individual_risk(0.5), d), length(f) / nrow(d), tolerance = tol_exact)
  expect_identical(value(individual_risk(0.5, weights = "wt", measure = "max"), d),
                   max(risk_individual(d, keys, weights = "wt")$per_record))
  expect_identical(deprecated(risk_value(risk_spec("suda", keys = keys), d, d)),
                   mean(risk_suda(d, keys)$dis))
})

test_that("record matching, linkage and identifiability: risk_spec() and recounts", {
  d <- crit_fixture(150, 10)
  m <- apply_mask(d, mask_round(0, "decimal"), "x")
  expect_identical(criterion_evaluate(match_risk("x"), m, original = d)$value,
                   risk_match(d, m, "x", prob_tol = 1, progress = FALSE)$percent_correct / 100)
  expect_identical(deprecated(risk_value(risk_spec("match", known = "x"), d, m)),
                   criterion_evaluate(match_risk("x"), m, original = d)$value)
  expect_identical(criterion_evaluate(linkage_risk("x"), m, original = d)$value,
                   risk_linkage(d, m, "x")$risk)
  # exact matching by hand: each released record is matched to the original
  # records of equal value, 1 / (their number) when its own is among them
  n_match <- vapply(seq_len(nrow(m)), function(i) sum(d$x == m$x[i]), numeric(1))
  own <- d$x == m$x
  expect_equal(criterion_evaluate(identifiability("x"), m, original = d)$value,
               mean(ifelse(own, 1 / n_match, 0)), tolerance = tol_exact)
  expect_identical(deprecated(risk_value(risk_spec("identifiability", known = "x"), d, m)),
                   criterion_evaluate(identifiability("x"), m, original = d)$value)
  # without the original, or with other records: does not apply, and says why
  res <- criterion_evaluate(match_risk("x"), m)
  expect_false(res$applies)
  expect_match(res$note, "original")
  res <- criterion_evaluate(linkage_risk("x"), m[1:10, ], original = d)
  expect_false(res$applies)
  expect_identical(criterion_evaluate(linkage_risk("x"), m[1:10, ], original = d,
                                      rows = 1:10)$value,
                   risk_linkage(d[1:10, ], m[1:10, ], "x")$risk)
  # blind to noise: the profile warns, as with the old name
  expect_true(epimask:::criterion_blind_to(identifiability("x"), mask_noise(1)))
  expect_false(epimask:::criterion_blind_to(match_risk("x"), mask_noise(1)))
})

test_that("the search with criteria equals the exhaustive lattice enumeration", {
  fx <- ola_fixture(110, 35)
  fx$data$family <- (seq_len(nrow(fx$data)) + 2L) %/% 3L
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  sets <- list(
    list(k_anonymity(3)),
    list(k_anonymity(2), l_diversity(2, "outcome"), t_closeness(0.4, "outcome")),
    list(k_anonymity(2), avg_risk(0.3)),
    list(k_anonymity(1), avg_risk(0.4, strict = TRUE)),
    list(k_anonymity(1), uniqueness(0.05, population_model(0.2, "zayatz")),
         cluster_risk(0.4, "family")),
    list(k_anonymity(1), loglinear_risk(0.05, pi = 0.2)))
  for (criteria in sets) for (outliers in c("small", "failing")) {
    sens <- epimask:::criteria_sensitive(criteria)
    lat <- epimask:::lattice_build(fx$data, fx$keys, h, sens$sensitive, sens$ordered)
    lat$context <- list(data = fx$data)
    prepared <- epimask:::prepare_criteria(criteria, fx$data, fx$keys)
    model <- epimask:::search_model(prepared, 0.1, outliers = outliers)
    for (metric in c("entropy", "precision", "discernibility", "avg_class_size")) {
      a <- epimask:::lattice_search(lat, model, metric)
      b <- epimask:::lattice_exhaustive(lat, model, metric)
      expect_identical(a$found, b$found)
      expect_identical(a$levels, b$levels,
                       label = paste(metric, outliers,
                                     paste(vapply(criteria, format, ""), collapse = "; ")))
    }
  }
})

test_that("tagging: none and all give the optimum of auto", {
  fx <- ola_fixture(120, 36)
  for (metric in c("entropy", "precision", "discernibility")) {
    auto <- ola(fx$data, fx$keys, fx$h, criteria = list(k_anonymity(3)), metric = metric)
    none <- ola(fx$data, fx$keys, fx$h, criteria = list(k_anonymity(3)), metric = metric,
                control = ola_control(tagging = "none"))
    all <- ola(fx$data, fx$keys, fx$h, criteria = list(k_anonymity(3), k_map(20, population_model(0.2))),
               metric = metric, control = ola_control(tagging = "all"))
    ref <- ola(fx$data, fx$keys, fx$h, criteria = list(k_anonymity(3), k_map(20, population_model(0.2))),
               metric = metric)
    expect_identical(none$levels, auto$levels)
    expect_gte(none$nodes_evaluated, auto$nodes_evaluated)
    expect_identical(all$levels, ref$levels)
    expect_identical(info_loss(all, metric), info_loss(ref, metric))
  }
})

test_that("the interface: results, rows, preparation, the profile's label", {
  d <- crit_fixture()
  res <- criterion_evaluate(k_anonymity(5), d, keys = keys)
  expect_s3_class(res, "criterion_result")
  row <- criterion_report_row(res)
  expect_identical(names(row), c("criterion", "value", "low", "high", "bound", "pass", "unit",
                                 "note", "explanation"))
  expect_identical(tidy(res), row)
  expect_match(format(res), "k-anonymity, k = 5: risk")
  # NA never passes a bound; a criterion without a bound is reported only
  expect_false(criterion_passes(k_anonymity(5), NA))
  expect_true(is.na(criterion_passes(avg_risk(NA), 0.1)))
  expect_identical(criterion_min_size(k_anonymity(7)), 7L)
  expect_identical(criterion_min_size(avg_risk(0.1)), 1L)
  km <- criterion_prepare(k_map(10, population_model(0.1)), d, keys)
  expect_identical(criterion_min_size(km), epimask:::kmap_derived_k(10, 0.1, 0.01, "poisson",
                                                                    nrow(d)))
  # risk_spec() keeps the name a profile shows, and the person column
  spec <- deprecated(risk_spec("kanon", keys = keys, measure = "max", id = "pid"))
  expect_identical(spec$spec, "kanon")
  expect_identical(spec$id, "pid")
  expect_null(deprecated(risk_spec("none")))
  expect_identical(criterion_search_text <- epimask:::criterion_search_text(avg_risk(0.2)),
                   "average risk <= 0.2")
})

test_that("no exported function takes more than 12 arguments (`...` counts as one)", {
  ns <- asNamespace("epimask")
  n <- vapply(getNamespaceExports("epimask"), function(f) {
    g <- get(f, envir = ns)
    if (is.function(g)) length(formals(g)) else 0L
  }, integer(1))
  expect_identical(names(n)[n > 12L], character())
})
