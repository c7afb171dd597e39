# Fixes of the API-contract audit and the custodian walkthrough (issues 24,
# 25, 27): each against a reference computed by hand in the test.

audit_proxy_fixture <- function(n = 400, seed = 1) {
  set.seed(seed)
  d <- data.frame(age = sample(20:69, n, TRUE), sex = sample(c("f", "m"), n, TRUE),
                  zip = sample(c("021", "022", "031", "032", "041"), n, TRUE),
                  stringsAsFactors = FALSE)
  d$age_code <- d$age + 0.5          # determines age one-to-one
  d$y <- rbinom(n, 1, 0.3)
  list(data = d, keys = c("age", "sex", "zip"),
       h = list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
                zip = hierarchy_flat()),
       ctx = release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1))
}

test_that("deidentify(drop_proxies = TRUE) drops the proxy from the release itself", {
  fx <- audit_proxy_fixture()
  rel <- suppressWarnings(deidentify(fx$data, fx$keys, fx$h, fx$ctx, drop_proxies = TRUE))
  expect_gt(rel$generalization$levels[["age"]], 0L)   # age was generalized
  expect_false("age_code" %in% names(rel$data))
  expect_identical(rel$dropped, "age_code")
  expect_identical(nrow(rel$proxies), 0L)
  expect_identical(names(rel$data), setdiff(names(fx$data), "age_code"))
  expect_true(any(grepl("Proxies of generalized keys dropped: age_code", format(rel), fixed = TRUE)))
  # the input is untouched
  expect_identical(names(fx$data), c("age", "sex", "zip", "age_code", "y"))
})

test_that("an undeclared proxy is a key of the search and the certificate (issue 36)", {
  fx <- audit_proxy_fixture()
  rel <- deidentify(fx$data, fx$keys, fx$h, fx$ctx)
  expect_identical(rel$review_keys[["age_code"]], "proxy")
  expect_identical(rel$keys, c(fx$keys, "age_code"))
  # the certificate is the hand recount with the proxy as a key
  cl <- do.call(paste, c(lapply(rel$data[rel$keys], function(v)
    ifelse(is.na(v), "<NA>", as.character(v))), sep = "\r"))
  f <- table(cl)
  strict <- if (min(f) >= 3) length(f) / length(cl) else 1 / min(f)
  expect_equal(rel$overall_risk, 0.5 * strict, tolerance = 1e-12)
  expect_true(any(grepl("age_code (proxy, default hierarchy): determines age exactly",
                        format(rel), fixed = TRUE)))
})

test_that("a declared proxy is kept, flagged in the release, its print and its report", {
  fx <- audit_proxy_fixture()
  expect_warning(rel <- deidentify(fx$data, fx$keys, fx$h, fx$ctx,
                                   declare = c(age_code = "the custodian's statement")),
                 class = "epimask_warning_proxy")
  expect_true("age_code" %in% names(rel$data))
  # the released proxy undoes the generalization: one age per age_code value
  expect_true(all(tapply(fx$data$age, rel$data$age_code, function(a) length(unique(a))) == 1L))
  expect_identical(rel$proxies$column, "age_code")
  expect_identical(rel$proxies$key, "age")
  txt <- format(rel)
  expect_match(txt[length(txt)], "'age_code' -> 'age'", fixed = TRUE)
  expect_match(txt[length(txt)], "the certificate counts the keys only", fixed = TRUE)
  content <- epimask:::deidentify_report_content(rel)
  expect_match(content$notes, "'age_code' -> 'age'", fixed = TRUE)
  # no proxy: no line
  fx$data$age_code <- NULL
  rel2 <- deidentify(fx$data, fx$keys, fx$h, fx$ctx)
  expect_identical(nrow(rel2$proxies), 0L)
  expect_false(any(grepl("one-to-one", format(rel2), fixed = TRUE)))
})

test_that("the release records its call; the report shows it and the '*' label as text", {
  fx <- audit_proxy_fixture()
  fx$data$age_code <- NULL
  rel <- deidentify(fx$data, fx$keys, fx$h, fx$ctx)
  expect_identical(rel$call, "deidentify(fx$data, fx$keys, fx$h, fx$ctx)")
  content <- epimask:::deidentify_report_content(rel)
  expect_identical(content$call, rel$call)
  expect_identical(epimask:::deidentify_report_content(rel, call = "my call")$call, "my call")
  # a call through do.call() carries the data: too long to record
  rel_dc <- do.call(deidentify, list(fx$data, fx$keys, fx$h, fx$ctx))
  expect_null(rel_dc$call)
  skip_if_not(rmarkdown::pandoc_available())
  out <- release_report(rel, tempfile(fileext = ".html"))
  html <- paste(readLines(out, warn = FALSE), collapse = "\n")
  expect_match(html, "deidentify(fx$data, fx$keys, fx$h, fx$ctx)", fixed = TRUE)
  expect_false(grepl("Call: not recorded", html, fixed = TRUE))
  # sex is generalized to the flat hierarchy's top "*": a cell with the text,
  # not a bulleted list inside the table
  expect_identical(unname(rel$generalization$level_labels[["sex"]]), "*")
  tab <- regmatches(html, regexpr("Generalization levels chosen.*?</table>", html))
  expect_length(tab, 1L)
  expect_false(grepl("<ul>", tab, fixed = TRUE))
  expect_match(tab, ">\\s*(\\*|&#42;)\\s*</td>")
})

test_that("the release plot labels each bar with its own 3 significant digits", {
  expect_identical(epimask:::bar_labels(c(0.0012267091, 0.3, 0.000736)),
                   c("0.00123", "0.3", "0.000736"))
  expect_identical(epimask:::bar_labels(c(a = 0.5, b = 1)), c(a = "0.5", b = "1"))
})

test_that("risk_release() has a plot and aligns long attack names", {
  d <- data.frame(a = rep(c("x", "y"), 50), b = rep(c("u", "v", "w", "z"), 25))
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.2)
  r <- risk_release(d, c("a", "b"), ctx)
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  expect_identical(plot(r), r)
  grDevices::dev.off()
  expect_gt(file.size(f), 0)
  pub <- suppressWarnings(release_context(public = TRUE, threshold = 0.1))
  ru <- risk_release(d, c("a", "b"), pub, uniqueness = population_model(0.1))
  row <- format(ru)[2L]
  expect_match(row, "^  public \\(population uniques, [a-z]+\\) Pr\\(attack\\) ")
})

# Persons by hand: one row per person with the set of their key tuples,
# tuples sorted and joined (the canonical form of methods vignette section 23).
persons_by_hand <- function(data, keys, id) {
  tup <- unique(data[c(id, keys)])
  txt <- do.call(paste, c(tup[keys], sep = "\r"))
  sets <- tapply(txt, tup[[id]], function(v) paste(sort(v), collapse = "\n"))
  data.frame(id = names(sets), set = unname(sets), stringsAsFactors = FALSE)
}

test_that("risk_population(id = ) counts persons: classes of key sets, each person once", {
  set.seed(4)
  P <- 300
  persons <- data.frame(pid = sprintf("p%03d", seq_len(P)),
                        sex = sample(c("f", "m"), P, TRUE),
                        band = sample(letters[1:6], P, TRUE), stringsAsFactors = FALSE)
  visits <- persons[rep(seq_len(P), sample(1:6, P, TRUE)), ]
  # some persons change band between visits: their key is the set
  change <- visits$pid %in% persons$pid[1:20] & runif(nrow(visits)) < 0.5
  visits$band[change] <- "z"
  rownames(visits) <- NULL
  hand <- persons_by_hand(visits, c("sex", "band"), "pid")
  f <- table(hand$set)
  r1 <- risk_population(visits, c("sex", "band"), pi = 1, model = "zayatz", id = "pid")
  expect_identical(r1$unit, "persons")
  expect_equal(r1$n, P)
  expect_identical(r1$n_records, nrow(visits))
  expect_identical(as.integer(r1$classes), length(f))
  expect_identical(as.integer(r1$sample_uniques), sum(f == 1L))
  # a census: the population uniques are the sample uniques
  expect_equal(r1$uniques, sum(f == 1L))
  # the class-size histogram of persons
  expect_identical(as.integer(r1$histogram$count), as.integer(table(as.integer(f))))
  # records would count a person with 6 visits in a class of 6
  rr <- risk_population(visits, c("sex", "band"), pi = 1, model = "zayatz")
  expect_equal(rr$n, nrow(visits))
  # the sampling fraction is of persons
  r2 <- risk_population(visits, c("sex", "band"), pi = 0.1, id = "pid")
  expect_identical(r2$N, round(P / 0.1))
  txt <- format(r2)
  expect_match(txt[1L], sprintf("%d persons (%d records, person column 'pid')", P, nrow(visits)),
               fixed = TRUE)
  expect_match(txt[3L], "of persons)", fixed = TRUE)
  # risk_spec() passes id on (ru_profile(id = ) reaches it)
  spec <- deprecated(risk_spec("population", keys = c("sex", "band"), pi = 0.1, model = "pitman", id = "pid"))
  expect_equal(risk_value(spec, visits, visits),
               risk_population(visits, c("sex", "band"), pi = 0.1, model = "pitman", id = "pid")$share)
  expect_error(risk_population(visits, c("sex", "band"), pi = 0.1, id = "sex"),
               class = "epimask_error")
  visits$pid[3] <- NA
  expect_error(risk_population(visits, c("sex", "band"), pi = 0.1, id = "pid"),
               class = "epimask_error")
})

test_that("risk_population() prints numbers of uniques as whole counts", {
  set.seed(2)
  d <- data.frame(a = sample(letters, 4000, TRUE), b = sample(1:30, 4000, TRUE))
  r <- risk_population(d, c("a", "b"), pi = 1, model = "zayatz")
  u <- sum(table(paste(d$a, d$b)) == 1L)
  expect_equal(r$uniques, u)
  txt <- format(r)
  expect_match(txt[4L], sprintf("zayatz: %s population uniques",
                                formatC(u, format = "d", big.mark = ",")), fixed = TRUE)
  expect_false(any(grepl(" +$", txt)))
})

test_that("risk_loglinear(id = ) fits the persons' key table (glm() reference)", {
  set.seed(9)
  P <- 400
  persons <- data.frame(pid = sprintf("p%03d", seq_len(P)),
                        sex = sample(c("f", "m"), P, TRUE),
                        race = sample(c("a", "b", "c", "d"), P, TRUE, prob = c(0.7, 0.2, 0.07, 0.03)),
                        ed = sample(c("lo", "mid", "hi"), P, TRUE), stringsAsFactors = FALSE)
  visits <- persons[rep(seq_len(P), sample(1:5, P, TRUE)), ]
  rownames(visits) <- NULL
  keys <- c("sex", "race", "ed")
  r <- risk_loglinear(visits, keys, pi = 0.2, id = "pid")
  # reference: the Poisson log-linear model of the persons' key table by glm()
  tab <- as.data.frame(table(persons[keys]))
  fit <- glm(Freq ~ sex + race + ed, family = poisson(), data = tab)
  lam <- fitted(fit) / 0.2
  v <- (1 - 0.2) * lam
  su <- tab$Freq == 1
  expect_equal(r$tau1, sum(exp(-v[su])), tolerance = 1e-8)
  expect_equal(r$tau2, sum((1 - exp(-v[su])) / v[su]), tolerance = 1e-8)
  expect_equal(r$n, P)
  expect_identical(r$unit, "persons")
  expect_equal(r$tau1_share, r$tau1 / P)
  # every record carries its person's risk
  expect_identical(nrow(r$per_record), nrow(visits))
  first <- match(visits$pid, persons$pid)
  key_p <- do.call(paste, persons[keys])[first]
  expect_true(all(tapply(r$per_record$unique_prob, key_p, function(x) length(unique(x))) == 1L))
  expect_identical(r$per_record$f, as.integer(table(do.call(paste, persons[keys]))[key_p]))
  expect_match(format(r)[1L], sprintf("%d persons (%d records", P, nrow(visits)), fixed = TRUE)
  df <- as.data.frame(r)
  expect_identical(nrow(df), nrow(visits))
  expect_identical(df$pid, visits$pid)
  spec <- deprecated(risk_spec("loglinear", keys = keys, pi = 0.2, id = "pid"))
  expect_equal(risk_value(spec, visits, visits), r$tau1_share)
  # weights must agree within a person
  visits$w <- 5
  rw <- risk_loglinear(visits, keys, weights = "w", id = "pid")
  expect_equal(rw$n, P)
  visits$w[1] <- 6
  if (sum(visits$pid == visits$pid[1]) > 1L)
    expect_error(risk_loglinear(visits, keys, weights = "w", id = "pid"), class = "epimask_error")
})

test_that("risk_individual(id = ) names the person in its print", {
  d <- data.frame(pid = rep(1:30, each = 2), k = rep(c("a", "b", "c"), 20))
  r <- risk_individual(d, "k", id = "pid")
  expect_match(format(r)[3L], "highest person risk", fixed = TRUE)
  expect_match(format(risk_individual(d, "k"))[3L], "highest record risk", fixed = TRUE)
})

test_that("a profile's header keeps its risk phrase on one line", {
  h <- c("Risk-utility profile: 7 schemes, term 'kappa', family Cox (Efron ties), risk: kanon of persons ('pid')",
         "Reference: original estimate 0.2233 (SE 0.01217)")
  out <- epimask:::wrap_ru_header(h, 80L)
  expect_identical(out, c("Risk-utility profile: 7 schemes, term 'kappa', family Cox (Efron ties),",
                          "  risk: kanon of persons ('pid')",
                          "Reference: original estimate 0.2233 (SE 0.01217)"))
  expect_identical(epimask:::wrap_ru_header("Risk-utility profile: 2 schemes, risk: none", 80L),
                   "Risk-utility profile: 2 schemes, risk: none")
  expect_identical(epimask:::wrap_ru_header("Risk-utility profile: 2 schemes", 80L),
                   "Risk-utility profile: 2 schemes")
})

test_that("deidentify() warns when an identifier repeats, with the recount by persons", {
  d <- trial_visits
  d$byear <- as.integer(format(d$birth, "%Y"))
  keys <- c("site", "sex", "byear")
  h <- list(site = hierarchy_flat(), sex = hierarchy_flat(),
            byear = hierarchy_numeric(c(5, 10, 20)))
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1)
  input <- d[c("pid", keys, "arm")]
  expect_warning(rel <- deidentify(input, keys, h, ctx, identifiers = c(pid = "drop")),
                 class = "epimask_warning_persons")
  expect_false("pid" %in% names(rel$data))
  # by hand: the persons of the released rows, their key sets, the strict
  # average risk (classes / persons, or 1 / smallest class below 3)
  expect_identical(nrow(rel$data), nrow(input))   # no record dropped in this release
  rd <- rel$data
  rd$pid <- input$pid
  hand <- persons_by_hand(transform(rd, site = ifelse(is.na(site), "<NA>", as.character(site)),
                                    sex = ifelse(is.na(sex), "<NA>", as.character(sex)),
                                    byear = ifelse(is.na(byear), "<NA>", as.character(byear))),
                          keys, "pid")
  f <- table(hand$set)
  strict <- if (min(f) >= 3) length(f) / nrow(hand) else 1 / min(f)
  expect_identical(rel$persons$column, "pid")
  expect_identical(rel$persons$n_persons, length(unique(input$pid)))
  expect_equal(rel$persons$overall, 0.5 * strict)
  expect_identical(rel$persons$pass, 0.5 * strict <= 0.1)
  txt <- format(rel)
  expect_match(txt[length(txt)], "Identifier 'pid' repeats (600 distinct values in 3609 records)",
               fixed = TRUE)
  expect_match(txt[length(txt)], "overall risk 0.5 > threshold 0.1: FAIL", fixed = TRUE)
  expect_match(epimask:::deidentify_report_content(rel)$notes[1L], "Identifier 'pid' repeats",
               fixed = TRUE)
  # an identifier with distinct values: no recount, no warning
  fx <- audit_proxy_fixture()
  fx$data$age_code <- NULL
  fx$data$rid <- seq_len(nrow(fx$data))
  expect_silent(rel2 <- deidentify(fx$data, fx$keys, fx$h, fx$ctx, identifiers = "rid"))
  expect_null(rel2$persons)
})
