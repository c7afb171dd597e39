# Fuzz test (issue "Reliability"): hostile calls to every export, to the
# fields of every kind of mask scheme edited after construction, to the S3
# methods users call on results, and to the functions the package returns.
# Each call runs in a forked child process (helper-fuzz.R), so a crash is a
# failure of that call, not the end of the run. Each call must end in a
# value, a classed `epimask_error` or a classed `epimask_warning`, and must
# leave its arguments as they were. The default campaign (about 13,000
# calls) takes one to two minutes, so it runs inside R CMD check; with
# NOT_CRAN=true and EPIMASK_FUZZ_LARGE=true a larger one runs (about 44,000
# calls: 400 random calls per export, every method on every edited scheme
# field, every field value through ru_profile()).

# ---- valid fixtures --------------------------------------------------------

fuzz_fixtures <- function() {
  set.seed(20261122)
  n <- 30
  xy <- cbind(runif(n), runif(n))
  d <- data.frame(x = round(runif(n, 0, 5), 2), y = rpois(n, 3),
                  z = rnorm(n), g = sample(c("a", "b"), n, TRUE),
                  h = sample(c("u", "v", "w"), n, TRUE), stringsAsFactors = FALSE)
  dose <- ifelse(runif(n) < 0.4, 0, rexp(n, 2))
  cohort <- data.frame(case = rep(0:1, length.out = n), dose = dose,
                       # race not equal to case (rep(0:1, 15) separated the
                       # logistic fit of population_or(): coefficients near 20)
                       sex = rep(0:1, each = n / 2), race = rep(c(0, 1, 1), 10),
                       py = rpois(n, 20) + 1)
  kern <- mask_kernel("exponential", 0.1, xy)
  ru <- epimask:::example_ru_profile()
  sim <- simulate_zdl(1, n = 40, seed = 1)
  noisy <- apply_mask(d, mask_noise(0.2), c("x", "z"))
  hier <- list(x = hierarchy_numeric(c(1, 2)), g = hierarchy_flat())
  fit <- fit_glm(y ~ x, d, family = poisson())
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5)
  bad <- rawToChar(as.raw(c(0x61, 0xff, 0xfe, 0x62)))
  bad_marked <- bad
  Encoding(bad_marked) <- "UTF-8"
  dates <- format(as.Date("2001-01-01") + seq_len(n) * 40)
  real_ru <- deprecated(ru_profile(d, c(mask_round(1), mask_noise(0.3)), y ~ x, family = poisson(),
                        vars = "x", term = "x", risk = "match", known = "x", nrep = 2,
                        seed = 1, progress = FALSE))
  # a profile of two criteria (ru_select_risk())
  crit_ru <- ru_profile(d, list(mask_round(1)), y ~ x, family = poisson(), vars = "x", term = "x",
                        risk = list(singling_out(n_attacks = 20, seed = 1),
                                    inference(aux = c("g", "h"), secret = "x", seed = 2)),
                        seed = 1, progress = FALSE)
  surv <- data.frame(time = round(rexp(n), 3) + 0.01, status = rep(c(1, 1, 0), length.out = n),
                     x = d$x, g = d$g, stringsAsFactors = FALSE)
  list(n = n, xy = xy, d = d, cohort = cohort, surv = surv, kern = kern, ru = ru, sim = sim,
       noisy = noisy, hier = hier, fit = fit, ctx = ctx, bad = bad,
       bad_marked = bad_marked, dates = dates, real_ru = real_ru, crit_ru = crit_ru,
       X = cbind(1, x = d$x), dup_xy = cbind(rep(0.5, n), rep(0.5, n)),
       huge_d = transform(d, x = x * 1e307, y = y * 1e307),
       tiny_d = transform(d, x = x * 1e-307, y = y * 1e-307))
}

# The values every argument is tried with (the issue's list, sizes at the
# largest integer and beyond, invalid UTF-8 marked and unmarked; the smallest
# positive double, a string longer than R's 10,000-byte limit on names,
# functions that fail or take no argument, a tibble).
fuzz_hostile <- function(fx) {
  out <- list(`NULL` = NULL, `NA` = NA, `Inf` = Inf, `-1` = -1, `numeric(0)` = numeric(0),
       string = "a", factor = factor("a"), list = list(1),
       chr_df = data.frame(a = "x", stringsAsFactors = FALSE),
       int_max = .Machine$integer.max, `2e9` = 2e9, half = 0.5,
       bad_utf8 = fx$bad, bad_utf8_marked = fx$bad_marked,
       tiny = 5e-324, long_string = strrep("a", 20000),
       fn_fails = function(...) stop("boom"), fn_no_args = function() 1,
       unnamed_col_df = stats::setNames(fx$d, c("x", "", names(fx$d)[-(1:2)])),
       complex_df = transform(fx$d, x = complex(real = x, imaginary = 1)))
  if (requireNamespace("tibble", quietly = TRUE)) out$tibble <- tibble::as_tibble(fx$d)
  out
}

# A wider pool for the random combinations.
fuzz_pool <- function(fx) {
  list(
    NULL, NA, NA_real_, NA_character_, NaN, Inf, -Inf, 0, -1, -0.5, 0.5, 2.5,
    1e308, -1e308, 1e-308, 1e10, 3L, TRUE, FALSE, .Machine$integer.max, 2e9, 1e15,
    numeric(0), integer(0), character(0), logical(0), list(),
    c(1, NA), c(1, Inf), c(NaN, 2), c(1, 2, 3), c(-1, 1),
    "a", c("a", "b"), "", "x", c("x", "y"), "no_such_column", fx$bad, fx$bad_marked,
    factor(c("a", "b")), factor(character(0)), as.Date("2020-01-01"),
    list(1, "a"), list(a = 1), complex(real = 1, imaginary = 1),
    matrix(numeric(0), 0, 0), matrix(NA_real_, 2, 2), matrix("a", 2, 2),
    matrix(1, 3, 3), diag(2), matrix(c(1, Inf, 0, 1), 2),
    data.frame(), fx$d[0, ], fx$d[, 0], fx$d[1, ], fx$d[1:3, ],
    data.frame(x = c(NA, 1)), data.frame(x = c(1e308, -1e308)),
    data.frame(x = "a", stringsAsFactors = TRUE),
    fx$dup_xy, fx$xy[1, , drop = FALSE], fx$xy[-1, ], fx$xy[, 1],
    cbind(fx$xy, 1), fx$xy * 1e308, fx$xy * 1e-308,
    function(x) x, function(lambda) diag(3), function(lambda) stop("boom"),
    quote(x), y ~ x, ~x, y ~ no_such_column, x ~ y + z,
    gaussian(), binomial(), "poisson", "no_such_family",
    mask_none(), mask_round(1), fx$kern, list(mask_none(), 1),
    fx$ru, fx$ru[0, ], fx$sim, fx$d, fx$cohort, fx$huge_d, fx$tiny_d, fx$ctx,
    fx$d[c(1, 1, 1), ], rbind(fx$d, fx$d)
  )
}

# ---- exports: valid calls, each argument replaced -------------------------------

# Valid calls: export -> argument list (every documented argument that
# takes data). run_workbench() starts a server and is left out.
fuzz_calls <- function(fx) {
  d <- fx$d
  h <- hierarchy_numeric(c(1, 2))
  dates <- data.frame(when = fx$dates, g = d$g, stringsAsFactors = FALSE)
  list(
    mask_none = list(),
    mask_round = list(digits = 2, type = "significant"),
    mask_truncate = list(digits = 1),
    mask_group = list(breaks = c(0, 2, 5), value = "mean", reference = NULL),
    mask_noise = list(amount = 0.5, dist = "uniform", lower = NULL),
    mask_matrix = list(A = matrix(1 / 3, 3, 3), B = NULL, C = NULL, lambda = NULL),
    mask_kernel = list(kernel = "ring", lambda = 0.1, coords = fx$xy,
                       source = c(0, 0), direction = NULL, groups = NULL, rho = 0,
                       bandwidth = NULL, cutoff = 36),
    mask_grid = list(kernel = c("exponential", "gaussian"), lambda = c(0.01, 0.1),
                     coords = fx$xy, none = FALSE),
    mask_microagg = list(k = 3, method = "mdav"),
    mask_pram = list(pd = 0.8, matrix = NULL, invariant = TRUE),
    mask_swap = list(p = 5),
    mask_topcode = list(upper = 4, lower = NULL, value = "bound"),
    mask_sweep = list(fun = mask_round, digits = 2:1),
    scheme_generator = list(scheme = mask_round(1)),
    scheme_strength = list(scheme = mask_noise(0.1)),
    kernel_matrix = list(scheme = fx$kern, n_max = 100),
    apply_mask = list(data = d, scheme = fx$kern, vars = c("x", "y"), unmasked = "warn"),
    irls_fit = list(x = fx$X, y = d$y, family = poisson(), weights = NULL,
                    offset = NULL, control = list(), start = NULL, etastart = NULL,
                    mustart = NULL, intercept = NULL),
    fit_glm = list(formula = y ~ x, data = d, family = poisson(), weights = NULL,
                   offset = NULL, control = list(), start = NULL, na.action = stats::na.omit),
    fit_err = list(formula = case ~ sex, data = fx$cohort, dose = "dose",
                   weights = NULL, level = 0.95, control = list()),
    risk_match = list(original = d, masked = fx$noisy, known = "x", unknown = "z",
                      targets = NULL, threads = NULL, method = "auto",
                      prob_tol = 1e-6, parallel = FALSE, progress = FALSE),
    risk_identifiability = list(released = d[1:10, ], source = d, keys = "x",
                                id = NULL),
    risk_kanon = list(data = d, keys = c("g", "y"), population = NULL, pi = 1,
                      k = 2, alpha = 0.1, weights = NULL, pop_count = NULL),
    risk_ldiversity = list(data = d, keys = "g", sensitive = "h", c = 2),
    risk_tcloseness = list(data = d, keys = "g", sensitive = c("x", "h"), ordered = NULL),
    risk_individual = list(data = d, keys = c("g", "h"), weights = rep(10, fx$n)),
    risk_suda = list(data = d, keys = c("g", "h", "y"), max_k = 2, dis_fraction = 0.01),
    risk_linkage = list(original = d, masked = fx$noisy, known = c("x", "z"),
                        distance = "euclidean", method = "auto", threads = NULL),
    release_context = list(public = FALSE, pr_attempt = 0.3, pr_acquaintance = 0.5,
                           pr_breach = 0.27, threshold = 0.2, reasons = "audited",
                           breach_risk = "strict_average"),
    risk_release = list(data = d, keys = c("g", "h"), context = fx$ctx),
    risk_spec = list(name = "kanon", keys = "g", k = 2),
    risk_value = list(spec = "match", original = d, masked = fx$noisy, known = "x"),
    k_prime = list(k = 5, pi = 0.1, alpha = 0.1),
    datafly = list(data = d, keys = c("x", "g"), hierarchies = fx$hier, k = 2,
                   max_suppress = 0.05, id = NULL, secret = NULL, drop_proxies = FALSE),
    ola = list(data = d, keys = c("x", "g"), hierarchies = fx$hier, k = 2,
               max_suppress = 0.05, metric = "entropy", l = NULL, sensitive = NULL,
               t = NULL, id = NULL, diversity = "distinct", ordered = NULL, secret = NULL,
               drop_proxies = FALSE, search = "exact"),
    info_loss = list(x = datafly(d, c("x", "g"), fx$hier, k = 2), metric = "all"),
    hierarchy_date = list(steps = c("month", "year"), format = NULL),
    hierarchy_zip = list(digits = 5, fill = "0"),
    hierarchy_numeric = list(widths = c(5, 10), origin = 0),
    hierarchy_category = list(x = data.frame(code = c("a", "b"),
                                                 group = c("A", "A")), sep = NULL),
    hierarchy_rare = list(x = d$h, min_count = 5, other = "other"),
    hierarchy_flat = list(),
    as_hierarchy = list(x = list(identity, function(x) substr(x, 1, 1))),
    generalize = list(x = c(1959, 1962), hierarchy = h, level = 1),
    write_hierarchy = list(h = h, file = "h.csv", values = 1:5, sep = ";"),
    utility_glm = list(original = d, masked = apply_mask(d, mask_round(1), "x"),
                       formula = y ~ x, family = poisson(), term = "x",
                       truth = NULL),
    bias_first_order = list(x = fx$X, beta = c(1, 0.1), family = poisson(),
                            scheme = fx$kern, f = NULL, grad = NULL,
                            vars = NULL),
    bias_asymptotic = list(x = fx$X, beta = c(1, 0.1), family = poisson(),
                           scheme = fx$kern, f = NULL, grad = NULL,
                           vars = NULL),
    population_or = list(race = "p_black", weight = NULL),
    ru_profile = list(data = d, schemes = c(mask_round(1), mask_truncate(0)),
                      formula = y ~ x, family = poisson(), vars = "x",
                      term = "x", risk = "none", known = NULL, unknown = NULL,
                      nrep = 1, simulate = NULL, truth = NULL, seed = 1,
                      parallel = FALSE, progress = FALSE, bootstrap = 0,
                      aggregate = NULL, context = NULL, risk_nrep = NULL),
    fit_ru_curve = list(ru = fx$ru, interval = c(1e-3, 1e6)),
    recommend = list(ru = fx$ru, max_risk = 0.2, n_runner_ups = 3L, context = NULL,
                     u_tolerance = 0.01),
    replicates = list(ru = fx$ru),
    release_report = list(x = fx$real_ru, file = "r.html", data = d, vars = "x",
                          keys = "g", sensitive = NULL, identifiers = NULL, context = NULL,
                          choice = NULL, masked = NULL, seed = NULL, call = NULL,
                          data_name = NULL, max_risk = 0.2, title = "Report", quiet = TRUE),
    simulate_zdl = list(example = 1, n = 20, seed = 1),
    zdl_simulator = list(sim = fx$sim),
    zdl_truth = list(sim = fx$sim, term = "x"),
    zdl_aggregate = list(sim = fx$sim, cells = 3),
    fit_cox = list(formula = Surv(time, status) ~ x + g, data = fx$surv, weights = NULL,
                   ties = "efron", control = list(), na.action = stats::na.omit),
    utility_general = list(original = d, masked = fx$noisy, vars = NULL,
                           measures = c("pmse", "ks", "cor", "il1s")),
    suppress_local = list(data = d, keys = c("g", "h", "y"), k = 3, max_risk = NULL,
                          importance = NULL, na = "category", strata = NULL),
    risk_singling_out = list(original = d, release = fx$noisy, control = NULL, n_attacks = 50,
                             mode = "multivariate", n_cols = 2, seed = 1, id = NULL,
                             columns = NULL, options = attack_options()),
    risk_linkability = list(original = d, release = fx$noisy, control = NULL,
                            aux = list(c("x", "g"), c("z", "h")), n_neighbors = 2,
                            n_attacks = 50, seed = 1, id = NULL, options = attack_options()),
    risk_inference = list(original = d, release = fx$noisy, control = NULL, aux = c("x", "g"),
                          secret = "z", tolerance = 0.05, n_attacks = 50, seed = 1, id = NULL,
                          options = attack_options()),
    attack_options = list(holdout = 0.5, conf_level = 0.95, na = "category", search = "auto",
                          max_attempts = NULL, threads = NULL, parallel = FALSE),
    singling_out = list(max = 0.1, mode = "univariate", n_attacks = 50, n_cols = 2,
                        against = "upper", columns = NULL, control = NULL, seed = 1,
                        options = attack_options()),
    linkability = list(max = 0.1, aux = list("x", "z"), n_neighbors = 1, n_attacks = 50,
                       against = "upper", control = NULL, seed = 1, options = attack_options()),
    inference = list(max = 0.1, aux = c("x", "g"), secret = "z", tolerance = 0.05,
                     n_attacks = 50, against = "upper", control = NULL, seed = 1,
                     options = attack_options()),
    delta_presence = list(dmin = 0, dmax = 0.5, population = rbind(d, d), keys = c("g", "h")),
    article29_attacks = list(max = 0.1, aux = c("x", "g"), secret = "z", tolerance = 0.05,
                             n_attacks = 50, mode = "univariate", n_cols = 2, against = "upper",
                             seed = 1, options = attack_options()),
    ru_select_risk = list(x = fx$crit_ru, risk = "inference"),
    epimask_threads = list(threads = NULL)
  )
}

# Every argument of every export with every hostile value, then random
# combinations of 1-3 arguments from the wider pool.
fuzz_export_cases <- function(fx, random_per_fun, large = FALSE) {
  calls <- fuzz_calls(fx)
  hostile <- fuzz_hostile(fx)
  pool <- fuzz_pool(fx)
  # release_report renders a document: a few calls suffice
  if (!rmarkdown_ok()) calls$release_report <- NULL
  cases <- list()
  add <- function(label, fun, args) cases[[length(cases) + 1L]] <<- fuzz_case(label, fun, args)
  for (fun in names(calls)) {
    base <- calls[[fun]]
    add(sprintf("%s(<valid>)", fun), fun, base)
    # each report that renders takes about a second
    per_arg <- if (fun != "release_report") hostile else
      hostile[if (large) c("NULL", "NA", "string", "int_max") else c("NA", "list")]
    for (a in names(base)) for (v in names(per_arg)) {
      args <- base
      if (is.null(per_arg[[v]])) args[a] <- list(NULL) else args[[a]] <- per_arg[[v]]
      add(sprintf("%s(%s = %s)", fun, a, v), fun, args)
    }
  }
  set.seed(8L)
  for (fun in names(calls)) {
    base <- calls[[fun]]
    if (!length(base) || fun == "release_report") next
    budget <- if (fun %in% c("ru_profile", "fit_err", "datafly", "ola")) random_per_fun %/% 3L
              else random_per_fun
    for (i in seq_len(budget)) {
      args <- base
      m <- min(3L, length(args))
      k <- sample(m, 1L, prob = c(0.6, 0.3, 0.1)[seq_len(m)])
      slots <- sample(names(args), k)
      for (s in slots) {
        v <- pool[[sample(length(pool), 1L)]]
        if (is.null(v)) args[s] <- list(NULL) else args[[s]] <- v
      }
      add(sprintf("%s(%s)", fun, paste(slots, vapply(args[slots], fuzz_describe, ""),
                                       sep = " = ", collapse = ", ")), fun, args)
    }
  }
  cases
}

rmarkdown_ok <- function() {
  requireNamespace("rmarkdown", quietly = TRUE) && rmarkdown::pandoc_available()
}

# ---- schemes edited after construction -------------------------------------------

fuzz_schemes <- function(fx) {
  xy <- fx$xy
  groups <- rep(1:2, length.out = fx$n)
  list(
    none = mask_none(),
    round = mask_round(2),
    round_decimal = mask_round(1, "decimal"),
    truncate = mask_truncate(1),
    group = mask_group(c(0, 2, 5)),
    group_reference = mask_group(c(0, 2, 5), reference = fx$d$x),
    noise_uniform = mask_noise(0.5, lower = 0),
    noise_normal = mask_noise(0.5, "normal"),
    noise_correlated = mask_noise(0.5, "correlated"),
    matrix = mask_matrix(matrix(1 / fx$n, fx$n, fx$n)),
    matrix_fun = mask_matrix(function(lambda) (diag(fx$n) + lambda) / (1 + fx$n * lambda),
                             lambda = 0.5),
    kernel_exponential = fx$kern,
    kernel_gaussian = mask_kernel("gaussian", 0.1, xy, bandwidth = 0.5),
    kernel_ring = mask_kernel("ring", 0.1, xy, source = c(0.5, 0.5), cutoff = 10),
    kernel_ring_angle = mask_kernel("ring_angle", 0.05, xy, source = c(0.5, 0.5),
                                    direction = c(1, 0)),
    kernel_ring_block = mask_kernel("ring_block", 0.1, xy, source = c(0.5, 0.5),
                                    groups = groups),
    kernel_bvn = mask_kernel("bvn", 0.5, xy, rho = 0.3),
    kernel_shrink = mask_kernel("shrink", 0.1, xy, bandwidth = 0.5),
    microagg = mask_microagg(3),
    microagg_univariate = mask_microagg(3, "univariate"),
    pram = mask_pram(0.8),
    pram_matrix = mask_pram(matrix = matrix(c(0.9, 0.1, 0.1, 0.9), 2,
                                            dimnames = list(c("a", "b"), c("a", "b")))),
    swap = mask_swap(20),
    topcode = mask_topcode(upper = 4, lower = 0.5),
    topcode_mean = mask_topcode(upper = 4, value = "mean")
  )
}

fuzz_field_values <- function(fx) {
  list(`NULL` = NULL, `NA` = NA, `Inf` = Inf, `-1` = -1, `numeric(0)` = numeric(0),
       string = "a", int_max = .Machine$integer.max, bad_utf8 = fx$bad_marked)
}

# Each field of each scheme set to each value, through apply_mask(), the
# methods of a scheme, scheme_generator()/scheme_strength() and (for a
# subset of the values) ru_profile() and kernel_matrix().
# (The smaller campaign takes apply_mask() for every edit and one of the other
# calls in turn; the larger one all of them.)
fuzz_scheme_cases <- function(fx, profile_values, all_methods = FALSE) {
  cases <- list()
  add <- function(label, fun, args) cases[[length(cases) + 1L]] <<- fuzz_case(label, fun, args)
  values <- fuzz_field_values(fx)
  d <- fx$d
  turn <- 0L
  for (nm in names(fuzz_schemes(fx))) {
    s0 <- fuzz_schemes(fx)[[nm]]
    vars <- if (grepl("^pram", nm)) "g" else c("x", "z")
    add(sprintf("apply_mask(<%s>)", nm), "apply_mask", list(d, s0, vars))
    for (field in names(unclass(s0))) for (v in names(values)) {
      s <- s0
      if (is.null(values[[v]])) s[field] <- list(NULL) else s[[field]] <- values[[v]]
      lab <- sprintf("<%s>$%s = %s", nm, field, v)
      add(paste("apply_mask", lab), "apply_mask", list(d, s, vars))
      others <- list(format = list(format, list(s)), print = list(print, list(s)),
                     summary = list(summary, list(s, d, vars)),
                     scheme_generator = list("scheme_generator", list(s)),
                     scheme_strength = list("scheme_strength", list(s)),
                     c = list(c, list(s, mask_none())))
      if (startsWith(nm, "kernel") || startsWith(nm, "matrix"))
        others$kernel_matrix <- list("kernel_matrix", list(s, 100))
      turn <- turn + 1L
      pick <- if (all_methods) seq_along(others) else (turn - 1L) %% length(others) + 1L
      for (m in names(others)[pick])
        add(paste(m, lab), others[[m]][[1L]], others[[m]][[2L]])
      if (v %in% profile_values)
        add(paste("ru_profile", lab), "ru_profile",
            list(d, list(s), y ~ x, family = poisson(), vars = if (grepl("^pram", nm)) "g" else "x",
                 term = "x", risk = "none", seed = 1, progress = FALSE))
    }
  }
  cases
}

# ---- S3 methods on results ---------------------------------------------------------

fuzz_results <- function(fx) {
  d <- fx$d
  fit <- fx$fit
  list(
    glm = fit,
    cox = fit_cox(Surv(time, status) ~ x + g, fx$surv),
    utility_general = utility_general(d, fx$noisy),
    suppression = suppress_local(d, c("g", "h", "y"), k = 3),
    err = fit_err(case ~ sex, fx$cohort, dose = "dose"),
    irls = irls_fit(fx$X, d$y, poisson()),
    kanon = risk_kanon(d, c("g", "h"), k = 2),
    ldiversity = risk_ldiversity(d, "g", sensitive = "h"),
    tcloseness = risk_tcloseness(d, "g", sensitive = "x"),
    individual = risk_individual(d, c("g", "h"), weights = rep(10, fx$n)),
    suda = risk_suda(d, c("g", "h", "y")),
    linkage = risk_linkage(d, fx$noisy, known = c("x", "z")),
    context = fx$ctx,
    release = risk_release(d, c("g", "h"), fx$ctx),
    identifiability = risk_identifiability(d[1:10, ], d, keys = "x"),
    match = risk_match(d, fx$noisy, known = "x"),
    utility = utility_glm(d, apply_mask(d, mask_round(1), "x"), y ~ x, poisson(), term = "x"),
    datafly = datafly(d, c("x", "g"), fx$hier, k = 2),
    ola = deprecated(ola(d, c("x", "g"), fx$hier, k = 2)),
    ru = fx$real_ru,
    ru_example = fx$ru,
    curve = suppressWarnings(fit_ru_curve(fx$ru)),
    recommendation = recommend(fx$real_ru, max_risk = 0.9),
    spec = deprecated(risk_spec("kanon", keys = "g")),
    sim = fx$sim,
    aggregate = zdl_aggregate(fx$sim, 3),
    hierarchy = fx$hier$x,
    scheme = mask_round(1),
    scheme_list = c(mask_round(1), mask_none()),
    scheme_summary = summary(mask_round(1), d, "x")
  )
}

fuzz_generics <- c("print", "format", "summary", "plot", "as.data.frame", "tidy",
                   "glance", "predict", "confint", "coef", "vcov", "logLik", "nobs",
                   "deviance", "fitted", "residuals", "[", "c")

# The package's own method for `obj` (not one inherited from base R, as the
# data frame methods of a simulated data set are).
fuzz_method_of <- function(generic, obj) {
  table <- getNamespaceInfo("epimask", "S3methods")
  generics <- sub("^.*::", "", table[, 1L])
  for (cl in class(obj)) {
    hit <- which(generics == generic & table[, 2L] == cl)
    # A method registered from a test file (the outside criterion) makes the
    # table a list matrix holding the function itself, or no name: it is
    # taken as it is, or looked up by generic and class.
    if (length(hit)) {
      name <- table[[hit[1L], 3L]]
      if (is.function(name)) return(name)
      if (is.character(name) && !is.na(name) && exists(name, envir = asNamespace("epimask")))
        return(get(name, envir = asNamespace("epimask")))
      return(utils::getS3method(generic, cl))
    }
  }
  NULL
}

# Each method on each result, plain and with each of its arguments (other
# than the object and `...`) set to each hostile value; summaries printed.
fuzz_method_cases <- function(fx) {
  cases <- list()
  add <- function(label, fun, args) cases[[length(cases) + 1L]] <<- fuzz_case(label, fun, args)
  hostile <- fuzz_hostile(fx)
  hostile$data_frame <- fx$d
  hostile$chr_newdata <- data.frame(x = "a", analysis_potential = "a", stringsAsFactors = FALSE)
  results <- fuzz_results(fx)
  generics <- fuzz_generics
  if (requireNamespace("ggplot2", quietly = TRUE)) generics <- c(generics, "autoplot")
  for (nm in names(results)) {
    obj <- results[[nm]]
    for (g in generics) {
      f <- if (g == "autoplot") ggplot2::autoplot else
        if (g %in% c("print", "format", "summary", "plot", "as.data.frame", "[", "c"))
          get(g, envir = baseenv()) else if (g %in% c("tidy", "glance"))
            getExportedValue("epimask", g) else getExportedValue("stats", g)
      m <- if (g == "autoplot") {
        if (inherits(obj, "ru_profile")) function(object, ...) NULL
      } else fuzz_method_of(g, obj)
      if (is.null(m)) next
      add(sprintf("%s(<%s>)", g, nm), f, list(obj))
      if (g == "summary") add(sprintf("print(summary(<%s>))", nm),
                              function(x) print(summary(x)), list(obj))
      extra <- setdiff(names(formals(m))[-1L], "...")
      if (g == "[") extra <- c("i", if (!inherits(obj, "mask_list")) "j")
      for (a in extra) for (v in names(hostile)) {
        args <- list(obj)
        if (is.null(hostile[[v]])) args[a] <- list(NULL) else args[[a]] <- hostile[[v]]
        # `[` takes its indices by position
        if (g == "[") args <- if (a == "i") list(obj, hostile[[v]]) else
          if (a == "j") list(obj, TRUE, hostile[[v]]) else args
        add(sprintf("%s(<%s>, %s = %s)", g, nm, a, v), f, args)
      }
    }
  }
  cases
}

# ---- functions the package returns ---------------------------------------------------

fuzz_closure_cases <- function(fx) {
  cases <- list()
  add <- function(label, fun, args) cases[[length(cases) + 1L]] <<- fuzz_case(label, fun, args)
  hostile <- fuzz_hostile(fx)
  pool <- fuzz_pool(fx)
  cohort <- fx$cohort
  or_fit <- fit_glm(case ~ race + dose, cohort, family = binomial())
  glm_fit <- stats::glm(case ~ race + dose, family = binomial(), data = cohort)
  or_fun <- population_or("race", weight = "py")
  sim_fun <- zdl_simulator(fx$sim)
  add("population_or()(<valid>)", or_fun, list(or_fit, cohort))
  add("population_or()(<glm>)", or_fun, list(glm_fit, cohort))
  add("zdl_simulator()(<valid>)", sim_fun, list(fx$sim))
  edit <- function(obj, field, value) {
    obj[field] <- list(value)
    obj
  }
  broken_fits <- list(no_coef = edit(or_fit, "coefficients", NULL),
                      chr_coef = edit(or_fit, "coefficients", "a"),
                      no_family = edit(or_fit, "family", NULL),
                      bad_family = edit(or_fit, "family", "binomial"),
                      no_terms = edit(or_fit, "terms", NULL),
                      no_vcov = edit(or_fit, "cov.unscaled", NULL),
                      plain = unclass(or_fit),
                      list = list(coefficients = c(1, 2)),
                      lm = stats::lm(dose ~ race, cohort))
  broken_data <- list(no_race = cohort[setdiff(names(cohort), "race")],
                      no_py = cohort[setdiff(names(cohort), "py")],
                      chr_race = transform(cohort, race = "a"),
                      chr_py = transform(cohort, py = "a"),
                      na_py = transform(cohort, py = NA),
                      neg_py = transform(cohort, py = -1),
                      inf_dose = transform(cohort, dose = Inf),
                      factor_dose = transform(cohort, dose = factor(dose)),
                      empty = cohort[0, ], matrix = as.matrix(cohort))
  for (v in names(hostile)) {
    add(sprintf("population_or()(fit = %s)", v), or_fun,
        list(hostile[[v]], cohort))
    add(sprintf("population_or()(data = %s)", v), or_fun, list(or_fit, hostile[[v]]))
    add(sprintf("zdl_simulator()(data = %s)", v), sim_fun, list(hostile[[v]]))
  }
  for (v in names(broken_fits))
    add(sprintf("population_or()(fit = <%s>)", v), or_fun, list(broken_fits[[v]], cohort))
  for (v in names(broken_data))
    add(sprintf("population_or()(data = <%s>)", v), or_fun, list(or_fit, broken_data[[v]]))
  sim_data <- list(no_x = fx$sim[setdiff(names(fx$sim), "x")],
                   chr_x = transform(fx$sim, x = "a"), na_x = transform(fx$sim, x = NA),
                   inf_x = transform(fx$sim, x = Inf), factor_x = transform(fx$sim, x = factor(x)),
                   empty = fx$sim[0, ], matrix = as.matrix(fx$sim), plain = fx$d)
  sim_data$logical_x <- transform(fx$sim, x = x > 0)
  sim_data$huge_x <- transform(fx$sim, x = x * 1e308)
  sim_data$huge_y <- transform(fx$sim, y = y * 1e308)
  sim_data$constant_x <- transform(fx$sim, x = 1)
  for (v in names(sim_data)) {
    add(sprintf("zdl_simulator()(data = <%s>)", v), sim_fun, list(sim_data[[v]]))
    add(sprintf("zdl_aggregate(<%s>)", v), "zdl_aggregate", list(sim_data[[v]], 3))
  }
  for (i in seq_along(pool)) {
    add(sprintf("population_or()(fit = %s)", fuzz_describe(pool[[i]])), or_fun,
        list(pool[[i]], cohort))
    add(sprintf("zdl_simulator()(%s)", fuzz_describe(pool[[i]])), sim_fun, list(pool[[i]]))
  }
  # the hierarchies' level functions, reached through generalize()
  hs <- list(date = hierarchy_date(), zip = hierarchy_zip(), numeric = hierarchy_numeric(c(1, 2)),
             flat = hierarchy_flat(), rare = hierarchy_rare(fx$d$h, 5),
             category = hierarchy_category(data.frame(code = c("a", "b"), group = c("A", "A"))),
             substring = as_hierarchy(list(identity, function(x) substr(x, 1, 1))))
  values <- c(hostile, list(dates = fx$dates, zips = c("02138", "0213"), bad_vec = c("a", fx$bad),
                            date_obj = as.Date("2020-01-01"), na_chr = NA_character_,
                            inf_date = structure(c(Inf, 1), class = "Date"),
                            far_date = structure(c(-1e300, 1), class = "Date"),
                            inf_time = structure(c(Inf, 1), class = c("POSIXct", "POSIXt"))))
  for (h in names(hs)) for (v in names(values)) for (level in 1:2)
    add(sprintf("generalize(%s, <%s>, %d)", v, h, level), "generalize",
        list(values[[v]], hs[[h]], level))
  cases
}

# ---- profiles and data frames with hostile cells -----------------------------------

# fit_ru_curve() and recommend() (and the methods of a profile) on profiles
# whose columns were edited, and on plain data frames standing in for one.
fuzz_profile_cell_cases <- function(fx) {
  cases <- list()
  add <- function(label, fun, args) cases[[length(cases) + 1L]] <<- fuzz_case(label, fun, args)
  ru <- fx$real_ru
  pts <- data.frame(analysis_potential = seq(0.1, 0.9, length.out = 6),
                    anonymity = c(0.99, 0.97, 0.9, 0.8, 0.6, 0.4), scheme = letters[1:6])
  set_cell <- function(df, col, v) {
    if (is.null(v)) {
      df[[col]] <- NULL
    } else if (is.factor(v)) {
      df[[col]] <- factor(rep(as.character(v), length.out = nrow(df)))
    } else {
      column <- df[[col]]
      if (is.null(column)) column <- rep(0.5, nrow(df))
      column[1L] <- v
      df[[col]] <- column
    }
    df
  }
  cells <- list(character = "a", factor = factor("a"), `NA` = NA, `Inf` = Inf,
                `-Inf` = -Inf, `NaN` = NaN, `NULL` = NULL, bad_utf8 = fx$bad_marked)
  profile_cols <- c("risk", "analysis_potential", "anonymity", "mse", "bias", "se",
                    "estimate", "risk_se", "analysis_potential_se",
                    "analysis_potential_capped", "scheme", "strength", "degree")
  for (col in profile_cols) for (v in names(cells)) {
    r <- set_cell(ru, col, cells[[v]])
    lab <- sprintf("<ru>$%s[1] = %s", col, v)
    add(paste("recommend", lab), "recommend", list(r, max_risk = 0.9))
    add(paste("fit_ru_curve", lab), "fit_ru_curve", list(r))
    add(paste("print", lab), print, list(r))
    add(paste("summary", lab), function(x) print(summary(x)), list(r))
    add(paste("plot", lab), plot, list(r))
    add(paste("tidy", lab), "tidy", list(r))
    add(paste("glance", lab), "glance", list(r))
    add(paste("replicates", lab), "replicates", list(r))
    if (col %in% names(pts))
      add(sprintf("fit_ru_curve(<points>$%s[1] = %s)", col, v), "fit_ru_curve",
          list(set_cell(pts, col, cells[[v]])))
  }
  for (v in names(cells)) for (what in c("reference", "meta")) {
    r <- ru
    attr(r, what) <- cells[[v]]
    add(sprintf("recommend(<ru> attr %s = %s)", what, v), "recommend", list(r))
  }
  cases
}

# ---- invalid UTF-8 in the data -------------------------------------------------------

fuzz_utf8_cases <- function(fx) {
  d <- fx$d
  bad_d <- d
  bad_d$g[1:3] <- fx$bad_marked
  bad_d$h[2] <- fx$bad
  bad_names <- d
  names(bad_names)[4] <- fx$bad_marked
  bk <- names(bad_names)[4]
  h <- list(x = hierarchy_numeric(c(1, 2)), g = hierarchy_flat())
  cases <- list(
    fuzz_case("risk_kanon(bad values)", "risk_kanon", list(bad_d, c("g", "h"), k = 2)),
    fuzz_case("risk_kanon(bad name)", "risk_kanon", list(bad_names, bk, k = 2)),
    fuzz_case("risk_ldiversity(bad values)", "risk_ldiversity", list(bad_d, "g", "h")),
    fuzz_case("risk_tcloseness(bad values)", "risk_tcloseness", list(bad_d, "g", "h")),
    fuzz_case("risk_individual(bad values)", "risk_individual", list(bad_d, c("g", "h"))),
    fuzz_case("risk_suda(bad values)", "risk_suda", list(bad_d, c("g", "h"))),
    fuzz_case("risk_release(bad values)", "risk_release", list(bad_d, c("g", "h"), fx$ctx)),
    fuzz_case("risk_identifiability(bad values)", "risk_identifiability",
              list(bad_d, d, keys = "g")),
    fuzz_case("risk_match(bad known)", "risk_match", list(bad_names, bad_names, known = bk)),
    fuzz_case("apply_mask(pram, bad values)", "apply_mask", list(bad_d, mask_pram(0.8), "g")),
    fuzz_case("apply_mask(bad vars)", "apply_mask", list(bad_names, mask_noise(1), bk)),
    fuzz_case("datafly(bad values)", "datafly", list(bad_d, c("x", "g"), h, k = 2)),
    fuzz_case("ola(bad values)", "ola", list(bad_d, c("x", "g"), h, k = 2)),
    fuzz_case("datafly(bad secret)", "datafly",
              list(d, c("x", "g"), h, k = 2, id = "h", secret = fx$bad_marked)),
    fuzz_case("hierarchy_rare(bad)", "hierarchy_rare", list(c(d$h, fx$bad), 1)),
    fuzz_case("hierarchy_category(bad)", "hierarchy_category",
              list(data.frame(code = c("a", fx$bad), group = c("A", "A")))),
    fuzz_case("hierarchy_date(bad format)", "hierarchy_date", list(format = fx$bad_marked)),
    fuzz_case("generalize(bad date)", "generalize",
              list(c("2001-01-01", fx$bad_marked), hierarchy_date(), 1)),
    fuzz_case("simulate_zdl(bad example)", "simulate_zdl", list(fx$bad_marked)),
    fuzz_case("fit_glm(bad factor)", "fit_glm", list(y ~ g, bad_d, poisson())),
    fuzz_case("release_context(bad reasons)", "release_context",
              list(pr_attempt = 0.3, reasons = fx$bad_marked)),
    fuzz_case("risk_spec(bad name)", "risk_spec", list(fx$bad_marked)),
    fuzz_case("write_hierarchy(bad file)", "write_hierarchy",
              list(hierarchy_flat(), fx$bad_marked, values = "a"))
  )
  cases
}

# ---- inputs found by hand (issue 24, item 7) and their neighbours ------------------

fuzz_special_cases <- function(fx) {
  d <- fx$d
  wide <- as.data.frame(matrix(rep(0:1, length.out = fx$n * 40), fx$n, 40))
  names(wide) <- paste0("k", 1:40)
  flat <- stats::setNames(rep(list(hierarchy_flat()), 40), names(wide))
  dup <- d
  names(dup)[3] <- "x"
  list(
    fuzz_case("k_prime(k = 1, pi = 5e-324)", "k_prime", list(1, 5e-324, 0.1)),
    fuzz_case("k_prime(k = 2, pi = 5e-324, alpha = 1e-300)", "k_prime", list(2, 5e-324, 1e-300)),
    fuzz_case("risk_kanon(k = 1, pi = 5e-324)", "risk_kanon", list(d, "g", pi = 5e-324, k = 1)),
    fuzz_case("family = \"q\" (base::q)", "fit_glm", list(y ~ x, d, family = "q")),
    fuzz_case("ola(40 two-level keys)", "ola", list(wide, names(wide), flat, k = 2)),
    fuzz_case("risk_kanon(duplicated names)", "risk_kanon", list(dup, "g", k = 2)),
    fuzz_case("apply_mask(duplicated names)", "apply_mask", list(dup, mask_noise(0.1), "x")),
    fuzz_case("fit_glm(one-level character)", "fit_glm", list(y ~ g, transform(d, g = "a"))),
    fuzz_case("hierarchy_category(a directory)", "hierarchy_category", list(tempdir())),
    fuzz_case("write_hierarchy(file = a directory)", "write_hierarchy",
              list(hierarchy_flat(), tempdir(), values = "a")),
    fuzz_case("ru_profile(simulate = warns)", "ru_profile",
              list(d, list(mask_round(1)), y ~ x, family = poisson(), vars = "x", term = "x",
                   risk = "none", simulate = function(data) { warning("w"); data },
                   progress = FALSE)),
    fuzz_case("ru_profile(risk = fails)", "ru_profile",
              list(d, list(mask_round(1)), y ~ x, family = poisson(), vars = "x", term = "x",
                   risk = function(original, masked) stop("r"), progress = FALSE)),
    fuzz_case("risk_value(risk warns)", "risk_value",
              list(function(o, m) { warning("w"); 0.5 }, d, d))
  )
}

# ---- the test --------------------------------------------------------------------------

fuzz_all_cases <- function(large = FALSE) {
  # no OpenMP thread pool in the parent: a forked child of a process whose
  # libgomp pool is running can hang in its first parallel region
  old <- options(epimask.threads = 1L)
  on.exit(options(old))
  fx <- fuzz_fixtures()
  c(fuzz_export_cases(fx, random_per_fun = if (large) 400L else 40L, large = large),
    fuzz_scheme_cases(fx, profile_values = if (large) names(fuzz_field_values(fx))
                                           else c("NA", "string"),
                      all_methods = large),
    fuzz_method_cases(fx),
    fuzz_closure_cases(fx),
    fuzz_profile_cell_cases(fx),
    fuzz_utf8_cases(fx),
    fuzz_special_cases(fx))
}

test_that("the fuzz engine names a crashing call, an in-place change and an unclassed error", {
  skip_on_os("windows")  # forked children
  ok <- fuzz_case("ok", function(x) x + 1, list(1))
  crash <- fuzz_case("crash", function() tools::pskill(Sys.getpid(), tools::SIGKILL), list())
  base_error <- fuzz_case("base error", function(x) log(x), list("a"))
  classed <- fuzz_case("classed", "mask_round", list("a"))
  warned <- fuzz_case("warned", "fit_ru_curve",
                      list(data.frame(analysis_potential = c(0.99, 1, 0.995),
                                      anonymity = c(0.999, 0.99, 1))))
  cases <- list(ok, crash, base_error, classed, warned, ok)
  out <- fuzz_run_cases(cases, batch = 6L)
  expect_identical(out, c("value", "CRASH", "UNCLASSED: non-numeric argument to mathematical function",
                          "error", "warning", "value"))
  res <- fuzz_summary(cases, out)
  expect_identical(res$counts[c("calls", "crashes", "unclassed")],
                   c(calls = 6L, crashes = 1L, unclassed = 1L))
  skip_if_not_installed("data.table")
  dt <- data.table::data.table(x = 1:3)
  in_place <- fuzz_case("in place", function(d) data.table::set(d, j = "x", value = 0L), list(dt))
  expect_identical(fuzz_run_cases(list(in_place, ok)), c("MODIFIED", "value"))
})

test_that("hostile calls give a value, a classed error or a classed warning; none crashes", {
  skip_on_os("windows")  # forked children
  large <- identical(Sys.getenv("NOT_CRAN"), "true") &&
    identical(Sys.getenv("EPIMASK_FUZZ_LARGE"), "true")
  cases <- fuzz_all_cases(large)
  # calls that write files (write_hierarchy, release_report) write them here
  dir.create(scratch <- tempfile("fuzz"))
  wd <- setwd(scratch)
  on.exit(setwd(wd), add = TRUE)
  elapsed <- system.time(outcome <- fuzz_run_cases(cases))[["elapsed"]]
  res <- fuzz_summary(cases, outcome)
  message(sprintf("fuzz: %s (%.0f s)", paste(names(res$counts), res$counts, sep = " = ",
                                             collapse = ", "), elapsed))
  expect_gt(res$counts[["calls"]], 5000)
  expect_gt(res$counts[["values"]], 500)
  expect_gt(res$counts[["classed_errors"]], 2000)
  expect_equal(res$counts[["crashes"]], 0)
  expect_equal(res$counts[["unclassed"]], 0)
  expect_equal(res$counts[["modified"]], 0)
  expect_equal(res$problems, character(0))
})
