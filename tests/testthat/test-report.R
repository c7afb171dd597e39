# release_report(): the content (checked against brute-force tabulations) and
# the rendered HTML (self-contained, no original values, no withheld
# parameters; the leak detector itself is shown to catch a planted leak).

report_profile <- function() {
  dose <- load_epimask_data("dose_cohort")
  expect_warning(
    ru <- deprecated(ru_profile(dose, list(mask_round(3), mask_round(1), mask_noise(0.1)), case ~ dose,
               family = binomial(), vars = "dose", risk = "identifiability",
               known = "dose", nrep = 3, seed = 7, progress = FALSE)),
    class = "epimask_warning_blind_risk")
  list(data = dose, ru = ru)
}

# Every decimal number written in a text.
numbers_in <- function(text) unique(regmatches(text, gregexpr("[0-9]+\\.[0-9]+", text))[[1L]])

# Original values of a masked variable that could only have come from the
# original data: at least 4 significant digits, absent from the release.
telltale_values <- function(original, released) {
  v <- unique(original[is.finite(original) & original != 0])
  txt <- unique(c(as.character(v), sprintf("%.5f", v), format(v, digits = 6)))
  txt <- txt[nchar(gsub("[^0-9]|^[0.]+", "", txt)) >= 4]
  setdiff(txt, c(as.character(released), sprintf("%.5f", released)))
}

test_that("class_size_counts and the risk rows match brute-force tabulations", {
  d <- data.frame(a = c(1, 1, 2, 2, 2, 3, 4, 4, 4, 4, 4, 4),
                  b = c("x", "x", "y", "y", "y", "z", "w", "w", "w", "w", "w", "w"))
  cs <- epimask:::class_size_counts(d, c("a", "b"))
  sizes <- as.vector(table(paste(d$a, d$b)))          # 2, 3, 1, 6
  expect_equal(cs$classes[cs$class_size == "1"], sum(sizes == 1))
  expect_equal(cs$classes[cs$class_size == "2"], sum(sizes == 2))
  expect_equal(cs$classes[cs$class_size == "3-4"], sum(sizes %in% 3:4))
  expect_equal(cs$classes[cs$class_size == "5-10"], sum(sizes %in% 5:10))
  expect_equal(sum(cs$records), nrow(d))
  rows <- epimask:::risk_rows(d, c("a", "b"), character(), NULL)
  val <- setNames(rows$value, rows$measure)
  expect_equal(val[["Prosecutor (maximum) risk, 1 / smallest class"]], 1 / min(sizes))
  expect_equal(val[["Average risk"]], mean(1 / sizes[match(paste(d$a, d$b), names(table(paste(d$a, d$b))))]))
  expect_equal(val[["Equivalence classes"]], length(sizes))
  expect_equal(val[["Records in classes smaller than 5"]], sum(sizes[sizes < 5]))
})

test_that("kernel and matrix schemes get neutral labels and the call is withheld", {
  sim <- simulate_zdl(1, n = 120, seed = 3)
  coords <- cbind(sim$s1, sim$s2)
  schemes <- c(list(mask_round(2)), mask_grid(c("ring", "exponential"), c(0.05, 0.2), coords,
                                              source = c(0, 0)))
  ru <- ru_profile(sim, schemes, y ~ x, family = poisson(), vars = c("x", "y"), term = "x",
                   risk = "none", seed = 1, progress = FALSE)
  labels <- epimask:::report_labels(ru)
  secret <- vapply(schemes[-1], format, "")
  expect_false(any(labels %in% secret))
  expect_false(any(grepl("lambda|ring|exponential", labels)))
  expect_true("rounding to 2 significant digits" %in% labels)
  content <- epimask:::report_content(ru, call = quote(ru_profile(sim, schemes)))
  expect_true(content$withheld)
  expect_match(content$call, "^Withheld")
  expect_false(any(grepl("lambda", content$table$scheme)))
  reps <- attr(content$profile, "replicates")
  if (is.data.frame(reps)) expect_false(any(grepl("lambda", reps$scheme)))
  skip_if_not(rmarkdown::pandoc_available())
  skip_if_not_installed("knitr")
  out <- release_report(ru, tempfile(fileext = ".html"))
  html <- paste(readLines(out, warn = FALSE), collapse = "\n")
  for (s in secret) expect_false(grepl(s, html, fixed = TRUE))
  expect_false(grepl("lambda = 0.05", html, fixed = TRUE))
  expect_match(html, "parameters withheld", fixed = TRUE)
})

test_that("the report is self-contained, states the context and leaks no original values", {
  skip_if_not(rmarkdown::pandoc_available())
  skip_if_not_installed("knitr")
  fx <- report_profile()
  rel <- epimask:::release_data(fx$data, mask_round(1), "dose", "id")
  ctx <- epimask:::workbench_context(list(public = FALSE, pr_attempt = 0.3, pr_acquaintance = 0.5,
                                          pr_breach = 0.27, threshold = 0.2,
                                          reasons = "data-sharing agreement with audits"))
  file <- tempfile(fileext = ".html")
  out <- release_report(fx$ru, file, data = fx$data,
                        release = list(scheme = "rounding to 1 significant digit", data = rel),
                        risk = deprecated(risk_spec("ldiversity", keys = c("city", "sex", "age_exp", "dose"),
                                         sensitive = "case")),
                        context = ctx)
  expect_true(file.exists(file))
  html <- paste(readLines(out, warn = FALSE), collapse = "\n")
  # self-contained: no resource fetched from elsewhere
  expect_false(grepl("<script[^>]+src=\"(https?:)?//", html))
  expect_false(grepl("<link[^>]+href=\"(https?:)?//", html))
  expect_false(grepl("<img[^>]+src=\"(https?:)?//", html))
  expect_match(html, "<img[^>]+src=\"data:image/png;base64,")
  # what it must say
  expect_match(html, "Threshold: 0.2", fixed = TRUE)
  expect_match(html, "data-sharing agreement with audits", fixed = TRUE)
  expect_match(html, "Chosen for release: rounding to 1 significant digit", fixed = TRUE)
  expect_match(html, "no original values", fixed = TRUE)
  expect_match(html, "not recorded", fixed = TRUE)
  expect_match(html, "16000 records", fixed = TRUE)
  # no original value of the masked variable, anywhere in the file
  leaks <- intersect(numbers_in(html), telltale_values(fx$data$dose, rel$dose))
  expect_identical(leaks, character())
  # the detector finds a planted leak
  planted <- telltale_values(fx$data$dose, rel$dose)[1:3]
  html2 <- sub("</body>", paste("<p>doses", paste(planted, collapse = " "), "</p></body>"), html,
               fixed = TRUE)
  expect_setequal(intersect(numbers_in(html2), telltale_values(fx$data$dose, rel$dose)), planted)
})

test_that("the report's recommendation is recommend()'s within the threshold", {
  fx <- report_profile()
  tab <- as.data.frame(fx$ru)
  content <- epimask:::report_content(fx$ru, max_risk = 0.01)
  rec <- suppressWarnings(recommend(fx$ru, max_risk = 0.01))
  expect_identical(content$recommendation$scheme, rec$scheme)
  expect_true(tab$risk[tab$scheme == rec$scheme] <= 0.01)
  expect_identical(content$choice, rec$scheme)
  # recommend()'s warnings reach the report instead of the console
  warned <- character()
  withCallingHandlers(recommend(fx$ru, max_risk = 0.01), warning = function(w) {
    warned <<- c(warned, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_identical(content$recommendation_notes, warned)
  expect_equal(content$table$within_threshold, tab$risk <= 0.01)
  expect_error(epimask:::report_content(fx$ru, choice = "no such scheme"), class = "epimask_error_value")
})

test_that("the settings come from the profile, the release and the risk spec", {
  fx <- report_profile()
  rel <- epimask:::release_data(fx$data, mask_round(1), "dose", "id")
  meta <- attr(fx$ru, "meta")
  # ru_profile() recorded its seed, its call and the name of the data
  expect_identical(meta$seed, 7)
  expect_match(meta$call, "^ru_profile\\(data = dose, schemes = ")
  expect_identical(meta$data_name, "dose")
  got <- epimask:::report_settings(fx$ru, fx$data,
                                   list(scheme = "rounding to 1 significant digit", data = rel),
                                   deprecated(risk_spec("ldiversity", keys = c("city", "sex"),
                                             sensitive = "case")))
  expect_identical(got$vars, "dose")
  expect_identical(got$keys, c("city", "sex"))
  expect_identical(got$sensitive, "case")
  expect_identical(got$identifiers, "id")          # the column the release drops
  expect_identical(got$choice, "rounding to 1 significant digit")
  expect_identical(got$masked, rel)
  expect_identical(got$seed, 7)
  expect_identical(got$data_name, "dose")
  expect_equal(got$max_risk, 0.2)
  # a label alone; nothing
  expect_identical(epimask:::report_settings(fx$ru, NULL, "rounding to 1 significant digit",
                                             NULL)$choice, "rounding to 1 significant digit")
  expect_null(epimask:::report_settings(fx$ru, NULL, NULL, NULL)$keys)
  # the arguments of 0.2 still work, with a classed warning
  expect_warning(old <- epimask:::report_settings(fx$ru, fx$data, NULL, NULL,
                                                  list(keys = "city", choice = "no masking",
                                                       max_risk = 0.1)),
                 "`keys`, `choice`, `max_risk` are deprecated", class = "epimask_warning_deprecated")
  expect_identical(old$keys, "city")
  expect_identical(old$choice, "no masking")
  expect_equal(old$max_risk, 0.1)
  expect_error(epimask:::report_settings(fx$ru, NULL, NULL, NULL, list(colour = "red")),
               "colour", class = "epimask_error_value")
  expect_error(epimask:::report_settings(fx$ru, NULL, 3, NULL), class = "epimask_error_type")
  expect_error(epimask:::report_settings(fx$ru, NULL, NULL, "city"), class = "epimask_error_type")
})

test_that("release_report() refuses what is not a profile", {
  expect_error(release_report(data.frame(a = 1), tempfile()), class = "epimask_error")
})

test_that("a de-identified release is reported with its verdict, not as a scheme", {
  fx <- report_profile()
  keys <- c("city", "sex")
  ctx <- release_context(public = FALSE, pr_attempt = 0.3, pr_acquaintance = 0.5,
                         threshold = 0.2)
  # the shape of deidentify()'s result that the report reads: the released data
  rel_data <- fx$data[seq_len(8000), setdiff(names(fx$data), "id")]
  rel <- structure(list(data = rel_data), class = "epimask_release")
  got <- epimask:::report_settings(fx$ru, fx$data, rel, deprecated(risk_spec("kanon", keys = keys)))
  expect_true(got$deidentified)
  expect_null(got$choice)
  expect_identical(got$masked, rel_data)
  content <- do.call(epimask:::report_content,
                     c(list(fx$ru, data = fx$data, context = ctx), got))
  expect_null(content$choice)
  # the verdict counts the context's attacks on the released data only,
  # recounted here by risk_release()
  rr <- risk_release(rel_data, keys = keys, context = ctx)
  expect_identical(nrow(content$verdict$table), 1L)
  expect_equal(content$verdict$table$value, rr$overall)
  expect_identical(content$verdict$pass, rr$overall <= 0.2)
})

test_that("report text is escaped for markdown: brackets, emphasis and HTML read as text", {
  expect_identical(epimask:::md_escape(c("dose[0.6,0.7)", "a*b_c `x` <i>&", "it's \\n")),
                   c("dose&#91;0.6,0.7)", "a&#42;b&#95;c &#96;x&#96; &lt;i&gt;&amp;",
                     "it&#39;s &#92;n"))
  skip_if_not(rmarkdown::pandoc_available())
  skip_if_not_installed("knitr")
  # a note of the refit naming a dozen factor levels "dose[a,b)" (as a key
  # of a user hierarchy refitted as a factor does), whose unmatched brackets
  # pandoc's link parser took minutes and gigabytes to read when left raw
  h <- list(city = hierarchy_flat(), sex = hierarchy_flat(),
            age_exp = hierarchy_numeric(c(4, 8, 20)), dose = hierarchy_numeric(c(0.1, 0.3, 0.6)))
  ctx <- release_context(public = FALSE, pr_attempt = 0.3, pr_acquaintance = 0.5,
                         pr_breach = 0.1, threshold = 0.2)
  rel <- deidentify(dose_cohort, c("city", "sex", "age_exp", "dose"), h, ctx, sensitive = "case",
                    identifiers = "id",
                    model = analysis_loss(case ~ dose, binomial(), term = "dose"))
  levels_named <- sprintf("dose[%.1f,%.1f)", seq(0.1, 1.2, 0.1), seq(0.2, 1.3, 0.1))
  rel$analysis$notes <- c(rel$analysis$notes, sprintf(
    "The estimates of %s may be infinite", paste0("'", levels_named, "'", collapse = ", ")))
  f <- tempfile(fileext = ".html")
  on.exit(unlink(f))
  release_report(rel, file = f)
  html <- paste(readLines(f, warn = FALSE), collapse = "\n")
  # every level named in the refit's note reaches the page as written
  for (lev in levels_named) expect_true(grepl(lev, html, fixed = TRUE), info = lev)
})
