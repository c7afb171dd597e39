# A risk criterion defined outside the package, in this file alone (a
# constructor calling new_risk_criterion() and methods registered with
# registerS3method(), as an extension package would register them in its
# NAMESPACE), run through ola(), deidentify(), ru_profile(), risk_release()
# and release_report() with no change to the package; each result against a
# plain-R recount (the exhaustive lattice of helper-ola.R for the search).

# The share of released records whose keys no other record shares, at most
# `max`: release-wide, with criterion_evaluate() only (the search evaluates
# it on each candidate node's release).
share_unique <- function(max, keys = NULL) {
  new_risk_criterion("share_unique", keys = keys, bound = max,
                     label = sprintf("share of unique records <= %s", format(max)),
                     explanation = "The share of records whose keys no other record shares.")
}
share_unique_evaluate <- function(criterion, release, original = NULL, keys = NULL, id = NULL,
                                  ...) {
  key <- do.call(paste, c(lapply(release[keys], as.character), sep = "\r"))
  new_criterion_result(criterion, mean(!key %in% key[duplicated(key)]))
}

# Every class holds at least `n` records of women: class-local, through
# criterion_classes() with the node's unit_class() and original.
min_women <- function(n) {
  new_risk_criterion("min_women", women = n, bound = 0, columns = "sex",
                     label = sprintf("at least %d women per class", n))
}
min_women_classes <- function(criterion, node, ...) {
  women <- tabulate(node$unit_class()[node$original$sex == "f"], length(node$size))
  women < criterion$women
}
min_women_evaluate <- function(criterion, release, original = NULL, keys = NULL, id = NULL, ...) {
  key <- do.call(paste, c(lapply(release[keys], as.character), sep = "\r"))
  women <- tapply(release$sex == "f", key, sum)
  new_criterion_result(criterion, as.numeric(any(women < criterion$women)))
}

ns <- asNamespace("epimask")
registerS3method("criterion_evaluate", "risk_share_unique", share_unique_evaluate, envir = ns)
registerS3method("criterion_evaluate", "risk_min_women", min_women_evaluate, envir = ns)
registerS3method("criterion_classes", "risk_min_women", min_women_classes, envir = ns)

share_unique_by_hand <- function(data, keys) {
  key <- do.call(paste, c(lapply(data[keys], as.character), sep = "\r"))
  mean(!key %in% key[duplicated(key)])
}

# The optimum by hand: every node generalized with generalize(), the k-part
# by brute_node() (helper-ola.R), the outside criterion recounted on the
# node's release by hand.
outside_optimum <- function(fx, metric, k, max_suppress, accept) {
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  nodes <- all_nodes(h, fx$keys)
  best <- NULL
  for (i in seq_len(nrow(nodes))) {
    lv <- unname(nodes[i, ])
    r <- brute_node(fx$data, fx$keys, h, lv, k = k, max_suppress = max_suppress)
    if (!r$ok) next
    gen <- fx$data
    for (v in seq_along(fx$keys))
      gen[[fx$keys[v]]] <- as.character(generalize(fx$data[[fx$keys[v]]], h[[fx$keys[v]]], lv[[v]]))
    cls <- do.call(paste, c(gen[fx$keys], sep = "\r"))
    size <- as.vector(table(cls)[cls])
    if (!accept(gen[size >= k, , drop = FALSE], cls, size)) next
    if (beats(lv, r$loss[[metric]], best)) best <- list(levels = lv, loss = r$loss[[metric]])
  }
  best
}

test_that("an outside release-wide criterion guides ola() as the exhaustive recount says", {
  fx <- ola_fixture(120, 31)
  for (metric in c("entropy", "precision", "discernibility"))
    for (mx in c(0.05, 0.2)) {
      ref <- outside_optimum(fx, metric, 1, 0, function(rel, cls, size)
        share_unique_by_hand(rel, fx$keys) <= mx)
      res <- ola(fx$data, fx$keys, fx$h, criteria = list(k_anonymity(1), share_unique(mx)),
                 metric = metric, max_suppress = 0)
      expect_identical(unname(res$levels), as.integer(ref$levels))
      expect_equal(info_loss(res, metric), ref$loss, tolerance = tol_exact)
      # the criterion recounted on the release, in the print and the results
      expect_equal(res$criteria_results[[2]]$value, share_unique_by_hand(res$data, fx$keys),
                   tolerance = tol_exact)
      expect_match(paste(format(res), collapse = "\n"), "share of unique records <=")
    }
})

test_that("an outside class-local criterion is used by the search without a release", {
  fx <- ola_fixture(150, 32)
  fx$keys <- c("age", "zip", "dx")
  fx$h <- fx$h[fx$keys]
  for (metric in c("entropy", "precision")) {
    # outliers = "small": every released class must hold 3 women
    ref <- outside_optimum(fx, metric, 4, 0.05, function(rel, cls, size) {
      kept <- size >= 4
      all(tapply(fx$data$sex[kept] == "f", cls[kept], sum) >= 3)
    })
    res <- ola(fx$data, fx$keys, fx$h, criteria = list(k_anonymity(4), min_women(3)),
               metric = metric)
    expect_identical(unname(res$levels), as.integer(ref$levels))
    expect_equal(info_loss(res, metric), ref$loss, tolerance = tol_exact)
  }
})

test_that("an outside criterion runs through deidentify(), risk_release(), ru_profile() and the reports", {
  fx <- ola_fixture(300, 33)
  d <- fx$data
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2)
  crit <- share_unique(0.01)
  # risk_release(): the criterion recounted, the verdict both
  rr <- risk_release(d, fx$keys, ctx, criteria = crit)
  expect_equal(rr$criteria[[1]]$value, share_unique_by_hand(d, fx$keys), tolerance = tol_exact)
  expect_identical(rr$pass, rr$overall <= 0.2 && share_unique_by_hand(d, fx$keys) <= 0.01)
  expect_output(print(rr), "share of unique records")
  # a context that states it: risk_release() takes it from the context
  ctx2 <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2,
                          criteria = crit)
  expect_identical(risk_release(d, fx$keys, ctx2)$criteria[[1]]$value, rr$criteria[[1]]$value)
  # deidentify(): searched and certified, the row recounted on the release
  rel <- deidentify(d, fx$keys, fx$h, ctx, criteria = crit)
  row <- rel$criteria[rel$criteria$criterion == format(crit), ]
  expect_equal(row$value, share_unique_by_hand(rel$data, fx$keys), tolerance = tol_exact)
  expect_identical(row$pass, row$value <= 0.01)
  expect_identical(rel$pass, all(rel$certificate$pass) && row$pass)
  content <- epimask:::deidentify_report_content(rel, data = d)
  expect_identical(content$criteria$Criterion, format(crit))
  # ru_profile(): the criterion (with its keys) on every masked data set
  prof <- ru_profile(d, list(mask_round(-1, "decimal")), outcome == "a" ~ age + sex,
                     family = binomial(), vars = "age",
                     risk = share_unique(NA, keys = c("age", "sex", "zip")), seed = 1,
                     progress = FALSE)
  expect_equal(prof$risk, c(share_unique_by_hand(d, c("age", "sex", "zip")),
                            share_unique_by_hand(transform(d, age = round(age, -1)),
                                                 c("age", "sex", "zip"))),
               tolerance = tol_exact)
  # a second criterion adds a column
  prof2 <- ru_profile(d, list(mask_round(-1, "decimal")), outcome == "a" ~ age + sex,
                      family = binomial(), vars = "age",
                      risk = list(share_unique(NA, keys = c("age", "sex", "zip")),
                                  k_anonymity(5, keys = c("age", "sex", "zip"))),
                      seed = 1, progress = FALSE)
  expect_identical(prof2$risk, prof$risk)
  expect_equal(prof2$risk_k_anonymity,
               c(1 / min(table(do.call(paste, d[c("age", "sex", "zip")]))), 1 / min(table(
                 do.call(paste, transform(d, age = round(age, -1))[c("age", "sex", "zip")])))),
               tolerance = tol_exact)
  skip_if_not(rmarkdown::pandoc_available())
  skip_if_not_installed("knitr")
  f <- tempfile(fileext = ".html")
  release_report(rel, f, data = d)
  html <- paste(readLines(f, warn = FALSE), collapse = "\n")
  expect_match(html, "share of unique records &lt;= 0.01", fixed = TRUE)
  f2 <- tempfile(fileext = ".html")
  release_report(prof, f2, data = d, risk = share_unique(NA, keys = c("age", "sex", "zip")))
  expect_true(file.exists(f2))
})

test_that("bad criteria give classed errors naming the argument", {
  fx <- ola_fixture(80, 34)
  d <- fx$data
  copy <- d
  # a criterion with no criterion_evaluate() method
  bare <- new_risk_criterion("no_method_here", bound = 0.1, label = "a criterion without methods")
  e <- expect_error(ola(d, fx$keys, fx$h, criteria = list(k_anonymity(2), bare)),
                    class = "epimask_error_criterion")
  expect_identical(e$arg, "criteria")
  expect_match(conditionMessage(e), "criterion_evaluate.risk_no_method_here")
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5)
  e <- expect_error(risk_release(d, fx$keys, ctx, criteria = bare), class = "epimask_error_criterion")
  expect_identical(e$arg, "criteria")
  # not monotone while tagging by the whole verdict is forced on
  e <- expect_error(ola(d, fx$keys, fx$h, criteria = list(k_anonymity(2), l_diversity(2, "outcome")),
                        control = ola_control(tagging = "all")),
                    class = "epimask_error_criterion")
  expect_identical(e$arg, "control")
  expect_match(conditionMessage(e), "not monotone")
  # two criteria on different keys
  e <- expect_error(ola(d, fx$keys, fx$h, criteria = list(k_anonymity(2),
                                                          k_anonymity(3, keys = c("age", "sex")))),
                    class = "epimask_error_value")
  expect_identical(e$arg, "criteria")
  e <- expect_error(risk_release(d, fx$keys, ctx, criteria = avg_risk(0.1, keys = "age")),
                    class = "epimask_error_value")
  expect_identical(e$arg, "criteria")
  # a record-matching criterion cannot guide the search; a criterion without a bound neither
  e <- expect_error(ola(d, fx$keys, fx$h, criteria = list(k_anonymity(2), match_risk("age"))),
                    class = "epimask_error_criterion")
  expect_identical(e$arg, "criteria")
  e <- expect_error(ola(d, fx$keys, fx$h, criteria = list(k_anonymity(2), avg_risk(NA))),
                    class = "epimask_error_criterion")
  expect_identical(e$arg, "criteria")
  # not a criterion; columns the data lack; criteria and a flat k at once
  expect_error(ola(d, fx$keys, fx$h, criteria = list(5)), class = "epimask_error_type")
  e <- expect_error(ola(d, fx$keys, fx$h, criteria = list(k_anonymity(2), l_diversity(2, "nope"))),
                    class = "epimask_error_name")
  expect_identical(e$arg, "criteria")
  expect_error(ola(d, fx$keys, fx$h, criteria = list(k_anonymity(2)), k = 3),
               class = "epimask_error_value")
  # a method returning something else than one flag per class
  bad_classes <- new_risk_criterion("bad_classes", bound = 0, label = "bad classes")
  registerS3method("criterion_classes", "risk_bad_classes", function(criterion, node, ...) TRUE,
                   envir = ns)
  e <- expect_error(ola(d, fx$keys, fx$h, criteria = list(k_anonymity(2), bad_classes)),
                    class = "epimask_error_criterion")
  expect_identical(e$arg, "criteria")
  # an evaluate method returning a number instead of a criterion_result
  numeric_result <- new_risk_criterion("numeric_result", bound = 0.5, label = "a number")
  registerS3method("criterion_evaluate", "risk_numeric_result",
                   function(criterion, release, ...) 0.1, envir = ns)
  e <- expect_error(risk_release(d, fx$keys, ctx, criteria = numeric_result),
                    class = "epimask_error_criterion")
  expect_match(conditionMessage(e), "not a criterion_result")
  # a field that R would take for `name`
  expect_error(new_risk_criterion("x_y", n = 2, label = "x"), class = "epimask_error_value")
  # the constructors check their arguments
  expect_error(k_anonymity(0), class = "epimask_error_value")
  expect_error(avg_risk(0), class = "epimask_error_value")
  expect_error(l_diversity(2, 3), class = "epimask_error_type")
  expect_error(t_closeness(2, "dx"), class = "epimask_error_value")
  expect_error(uniqueness(0.1, 0.05), class = "epimask_error_type")
  expect_error(k_map(5), class = "epimask_error_value")
  expect_error(cluster_risk(0.1), class = "epimask_error_value")
  expect_error(match_risk(1), class = "epimask_error_type")
  expect_error(new_risk_criterion("Bad Name", label = "x"), class = "epimask_error_type")
  expect_identical(d, copy)
})

test_that("deidentify() takes ola()'s structure and counts each release once", {
  fx <- ola_fixture(300, 37)
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2)
  calls <- 0L
  real <- epimask:::risk_release
  local_mocked_bindings(risk_release = function(...) {
    calls <<- calls + 1L
    real(...)
  }, .package = "epimask")
  rel <- deidentify(fx$data, fx$keys, fx$h, ctx)
  # the original, ola()'s release, the release after local suppression (the
  # identifiers do not change the keys: the certificate is that count)
  expect_identical(calls, if (rel$fallback) 4L else 3L)
  gen <- rel$generalization
  st <- gen$structure
  # the class structure is the release's: classes of the released keys
  cls <- do.call(paste, c(lapply(st$current, as.character), sep = "\r"))
  expect_identical(as.vector(table(cls)[cls]), st$class_size[st$unit_class])
  expect_identical(which(st$suppressed_units), gen$suppressed)
  expect_identical(st$min_size, 3L)
})
