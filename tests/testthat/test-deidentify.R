# deidentify(): the certificate recounted by hand, the targets the context
# implies, each step against its own reference (ola(), glm()), identifiers,
# a context that cannot be met, bad input, methods and the report.

deid_fixture <- function(n = 400, seed = 1) {
  set.seed(seed)
  d <- data.frame(
    pid = sprintf("P%04d", seq_len(n)),
    age = sample(20:69, n, TRUE),
    sex = sample(c("f", "m"), n, TRUE),
    zip = sample(c("021", "022", "031", "032", "041"), n, TRUE),
    dx = sample(c("a", "b", "c"), n, TRUE),
    stringsAsFactors = FALSE)
  d$y <- rbinom(n, 1, plogis(-2 + 0.03 * d$age + 0.5 * (d$sex == "m")))
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
            zip = hierarchy_category(data.frame(v = c("021", "022", "031", "032", "041"),
                                                a = c("02", "02", "03", "03", "04"))))
  list(data = d, h = h, keys = c("age", "sex", "zip"))
}

# The context's attacks by hand (methods vignette section 7 and 17): classes with NA as a
# value, strict average risk = classes / records when the smallest class has
# at least 3 records, else the maximum risk 1 / smallest.
attacks_by_hand <- function(data, keys, ctx) {
  cl <- do.call(paste, c(lapply(data[keys], function(x) ifelse(is.na(x), "<NA>", as.character(x))),
                         sep = "\r"))
  f <- table(cl)
  max_risk <- 1 / min(f)
  strict <- if (min(f) >= 3) length(f) / nrow(data) else max_risk
  if (ctx$public) return(max_risk)
  breach <- if (identical(ctx$breach_risk, "maximum")) max_risk else strict
  c(ctx$pr_attempt * strict, ctx$pr_acquaintance * strict, ctx$pr_breach * breach)
}

test_that("the certificate is the context's attacks recounted on the release", {
  fx <- deid_fixture()
  for (ctx in list(release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1),
                   release_context(pr_attempt = 0.2, pr_acquaintance = 0.2, threshold = 1 / 11,
                                   breach_risk = "maximum"),
                   release_context(public = TRUE))) {
    rel <- deidentify(fx$data, fx$keys, fx$h, ctx, identifiers = "pid")
    risk <- attacks_by_hand(rel$data, fx$keys, ctx)
    expect_equal(rel$certificate$risk, unname(risk), tolerance = tol_exact)
    expect_identical(rel$certificate$pass, unname(risk) <= ctx$threshold)
    expect_identical(rel$pass, all(unname(risk) <= ctx$threshold))
    expect_true(rel$pass)
    expect_equal(rel$overall_risk, max(risk), tolerance = tol_exact)
    expect_false("pid" %in% names(rel$data))
  }
})

test_that("the targets follow from the context", {
  t1 <- epimask:::context_targets(release_context(public = TRUE))
  expect_identical(t1$k, 20L)
  expect_null(t1$avg_risk)
  t2 <- epimask:::context_targets(release_context(pr_attempt = 0.3, pr_acquaintance = 0.5,
                                                   threshold = 0.1))
  expect_identical(t2$k, 3L)
  expect_equal(t2$avg_risk, 0.1 / 0.5)
  t3 <- epimask:::context_targets(release_context(pr_attempt = 0.1, pr_acquaintance = 0.1,
                                                   threshold = 0.05, breach_risk = "maximum"))
  expect_identical(t3$k, 6L)              # 0.27 / 0.05 = 5.4
  expect_equal(t3$avg_risk, 0.05 / 0.1)
})

test_that("each step is what it says", {
  fx <- deid_fixture(500, 2)
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1)
  rel <- deidentify(fx$data, fx$keys, fx$h, ctx, identifiers = c(pid = "pseudonymise"),
                    secret = "s3cret", max_suppress = 0.05)
  # 1. the node of ola() with the targets
  gen <- deprecated(ola(fx$data[setdiff(names(fx$data), "pid")], fx$keys, fx$h, k = 3, avg_risk = 0.2,
             outliers = "failing", max_suppress = 0.05))
  expect_identical(rel$generalization$levels, gen$levels)
  # 2. blanks only in records that ola() suppressed for classes below k,
  #    every other value as generalized; non-keys untouched
  expect_identical(nrow(rel$data), nrow(fx$data) - (rel$steps$records[[1]] - rel$steps$records[[3]]))
  gen_all <- lapply(fx$keys, function(key)
    as.character(generalize(fx$data[[key]], epimask:::check_hierarchies(fx$h, fx$keys, fx$data)[[key]],
                            gen$levels[[key]])))
  names(gen_all) <- fx$keys
  cl <- do.call(paste, c(gen_all, sep = "\r"))
  small <- as.vector(table(cl)[cl]) < 3
  blanked <- rowSums(is.na(rel$data[fx$keys])) > 0
  kept <- seq_len(nrow(fx$data))   # nothing dropped here: ola() suppressed small classes only
  expect_identical(nrow(rel$data), nrow(fx$data))
  expect_true(all(small[blanked]))
  for (key in fx$keys) {
    ok <- !is.na(rel$data[[key]])
    expect_identical(as.character(rel$data[[key]])[ok], gen_all[[key]][ok])
  }
  expect_identical(rel$data$dx, fx$data$dx)
  expect_identical(rel$data$y, fx$data$y)
  expect_identical(sum(is.na(rel$data[fx$keys])), rel$steps$cells_blanked[[3]])
  # 3. keyed pseudonyms: one per person, the same for the same secret
  expect_identical(length(unique(rel$data$pid)), nrow(fx$data))
  expect_false(any(rel$data$pid %in% fx$data$pid))
  again <- deidentify(fx$data, fx$keys, fx$h, ctx, identifiers = c(pid = "pseudonymise"),
                      secret = "s3cret", max_suppress = 0.05)
  expect_identical(again$data$pid, rel$data$pid)
  # the losses of the steps: precision by hand (blanks as fully generalized)
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  top <- vapply(h, function(x) length(x$levels) - 1L, integer(1))
  share <- sapply(seq_along(fx$keys), function(v)
    ifelse(is.na(rel$data[[fx$keys[v]]]), 1, gen$levels[[v]] / top[[v]]))
  expect_equal(rel$steps$precision[[3]], mean(share), tolerance = tol_exact)
})

test_that("with a model, every step reports the coefficient glm() gives by hand", {
  fx <- deid_fixture(600, 3)
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1)
  m <- analysis_loss(y ~ age + sex, binomial(), "sexm")
  rel <- deidentify(fx$data, fx$keys, fx$h, ctx, identifiers = "pid", model = m)
  fit0 <- glm(y ~ age + sex, binomial(), fx$data)
  expect_equal(rel$steps$estimate[[1]], coef(fit0)[["sexm"]], tolerance = 1e-7)
  # the generalize step: the node's release as the model sees it
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  lv <- rel$generalization$levels
  view <- fx$data
  if (lv[["age"]] > 0) view$age <- ave(fx$data$age, generalize(fx$data$age, h$age, lv[["age"]]))
  if (lv[["sex"]] > 0) view$sex <- generalize(fx$data$sex, h$sex, lv[["sex"]])
  kept <- setdiff(seq_len(nrow(fx$data)), rel$generalization$suppressed)
  fit1 <- glm(y ~ age + sex, binomial(), view[kept, ])
  expect_equal(rel$steps$estimate[[2]], coef(fit1)[["sexm"]], tolerance = 1e-7)
  expect_equal(rel$steps$se[[2]], sqrt(diag(vcov(fit1)))[["sexm"]], tolerance = 1e-7)
  # after local suppression: records with a blank in age or sex leave the model
  blank <- is.na(rel$data$age) | is.na(rel$data$sex)
  fit2 <- glm(y ~ age + sex, binomial(), view[!blank, ])
  expect_equal(rel$steps$estimate[[3]], coef(fit2)[["sexm"]], tolerance = 1e-7)
  expect_equal(glance(rel)$estimate_original, coef(fit0)[["sexm"]], tolerance = 1e-7)
})

test_that("a context that cannot be met is reported as failing, never as passing", {
  fx <- deid_fixture(15, 4)
  # a public release needs classes of 20: 15 records cannot make one
  ctx <- release_context(public = TRUE)
  warned <- character()
  rel <- withCallingHandlers(
    deidentify(fx$data, c("age", "dx"), list(age = hierarchy_flat(), dx = hierarchy_flat()),
               ctx, identifiers = "pid"),
    warning = function(w) {
      warned <<- c(warned, class(w))
      invokeRestart("muffleWarning")
    })
  expect_true("epimask_warning_release_fails" %in% warned)
  # the records the search suppressed are withheld, never put back as "*":
  # nothing is released, and the certificate says why (issue 36, item 4)
  expect_null(rel$data)
  expect_true(is.na(rel$overall_risk))
  expect_identical(rel$steps$records[[nrow(rel$steps)]], 0L)
  expect_match(rel$reason, "fewer records (15) than k = 20", fixed = TRUE)
  expect_error(as.data.frame(rel), class = "epimask_error_no_release")
  expect_false(rel$pass)
  expect_false(rel$certificate$pass)
  expect_match(paste(format(rel), collapse = "\n"), "FAIL")
})

test_that("bad input gets classed errors and the data are not modified", {
  fx <- deid_fixture(100, 5)
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1)
  before <- fx$data
  call <- function(...) deidentify(fx$data, fx$keys, fx$h, ...)
  expect_error(call(context = list(threshold = 0.1)), class = "epimask_error_type")
  expect_error(call(ctx, identifiers = "age"), class = "epimask_error_value")
  expect_error(call(ctx, identifiers = c(pid = "hide")), class = "epimask_error_value")
  expect_error(call(ctx, identifiers = "nothere"), class = "epimask_error")
  expect_error(call(ctx, bogus = 1), class = "epimask_error_name")
  expect_error(call(ctx, model = y ~ age), class = "epimask_error_type")
  expect_error(call(ctx, model = analysis_loss(y ~ age, binomial()), metric = "precision"),
               class = "epimask_error_value")
  expect_error(call(ctx, sensitive = "age"), class = "epimask_error_value")
  expect_error(deidentify(fx$data, "nothere", fx$h, ctx), class = "epimask_error")
  expect_identical(fx$data, before)
})

test_that("the release prints, summarises, plots and tidies", {
  fx <- deid_fixture(300, 6)
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1)
  rel <- deidentify(fx$data, fx$keys, fx$h, ctx, identifiers = "pid")
  txt <- format(rel)
  expect_type(txt, "character")
  expect_match(paste(txt, collapse = "\n"), "Certificate")
  expect_match(paste(txt, collapse = "\n"), "PASS")
  expect_output(print(rel), "De-identified release")
  expect_output(print(summary(rel)), "Steps")
  expect_identical(as.data.frame(rel), as.data.frame(rel$data))
  expect_identical(tidy(rel)[names(rel$certificate)], rel$certificate)
  expect_identical(tidy(rel)$unit, rep("records", nrow(rel$certificate)))
  expect_identical(nrow(glance(rel)), 1L)
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(rel), rel)
})

test_that("release_report() takes the release, with the certificate as the verdict", {
  fx <- deid_fixture(300, 7)
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1)
  rel <- deidentify(fx$data, fx$keys, fx$h, ctx, identifiers = c(pid = "pseudonymise"))
  content <- epimask:::deidentify_report_content(rel, data = fx$data)
  expect_identical(content$pass, rel$pass)
  expect_identical(content$certificate$Risk, rel$certificate$risk)
  expect_identical(content$certificate$Verdict, ifelse(rel$certificate$pass, "pass", "FAIL"))
  expect_false(any(vapply(content$description, function(col) any(fx$data$pid %in% col), logical(1))))
  skip_if_not(rmarkdown::pandoc_available())
  out <- release_report(rel, tempfile(fileext = ".html"), data = fx$data)
  html <- paste(readLines(out, warn = FALSE), collapse = "\n")
  expect_match(html, "The release passes the context")
  expect_false(grepl("P0001", html, fixed = TRUE))
})
