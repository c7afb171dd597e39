# Model-free utility (methods vignette section 25) for a custodian who does not know the
# collaborator's model: the propensity-score MSE of telling masked from
# original records, per-variable Kolmogorov-Smirnov distances, IL1s and the
# largest change in the correlation matrix; and the same measures as the
# utility axis of a risk-utility profile (ru_profile(utility = )).

utility_general_measures <- c("pmse", "spmse", "ks", "cor", "il1s")

#' Model-free utility of masked data
#'
#' Measures how far the masked data are from the original without a model
#' of the analysis (methods vignette, section 25). Every measure is 0 for
#' unmasked data, and lower is better.
#'
#' **pMSE** (Woo et al. 2009; Snoke et al. 2018). The original and masked
#' records are stacked (\eqn{N = n_o + n_m}, indicator \eqn{T = 1} for a
#' masked record) and a logistic model of \eqn{T} is fitted by [irls_fit()]
#' on an intercept, the variables (factors as treatment dummies), the
#' squares of the numeric ones and all pairwise products. With \eqn{\hat p}
#' the fitted propensities and \eqn{c = n_m / N},
#' \eqn{pMSE = N^{-1} \sum (\hat p_i - c)^2}; its expectation when the two
#' sets come from one distribution is \eqn{(k - 1)(1 - c)^2 c / N}, \eqn{k}
#' the number of estimable coefficients (the rank of the design: squares of
#' 0/1 variables are aliased and not counted), and the ratio of the two is
#' reported (Snoke et al. read ratios well above 1 as a poor release). That
#' expectation is the one of a synthesis drawn from the right model fitted to
#' the original data (the original records then fit the model's parameters
#' exactly and only the synthetic ones vary); two independent samples from
#' one distribution give about twice it (a ratio near 2; measured: 1.98 for
#' two normal samples of 500, 200 repetitions). Masked data are the same
#' records perturbed, so their ratio is usually far below 1: use it to rank
#' schemes, not as a calibrated test.
#'
#' **S_pMSE** (`"spmse"`; synthpop's `utility.gen()` with `resamp.method =
#' "perm"`): the pMSE over its null estimated by permutation. The
#' indicator \eqn{T} is permuted `nperm` times over the stacked records and
#' the model refitted; the mean of the permuted pMSEs, halved as synthpop
#' halves it (a permutation splits the records into two independent samples,
#' which differ twice as much as a synthesis from the right model does), is
#' the null: S_pMSE is about 1 for such a synthesis, about 2 for two
#' independent samples (and for a proper synthesis, whose parameters are
#' drawn), larger for a worse one. The permutations use R's random number
#' generator.
#'
#' **Synthetic releases.** With a synthetic release ([mask_synth()]) as
#' `masked`, every measure is computed on each copy against the original
#' records it was synthesised from and averaged over the copies (the
#' holdout left out); IL1s, which pairs records, only for a partially
#' synthetic release (NA for a fully synthetic one). Numeric variables are standardised on the original
#' data first, which leaves the fitted propensities unchanged (the model
#' space of main effects, squares and products is the same) and keeps the
#' products on a sane scale.
#'
#' **KS.** Per numeric variable, the two-sample Kolmogorov-Smirnov distance
#' \eqn{\max_x |F_o(x) - F_m(x)|} between the empirical distribution
#' functions (missing values dropped; the statistic of [stats::ks.test()]).
#'
#' **IL1s** (Yancey, Winkler and Creecy 2002). Over the \eqn{p} numeric
#' variables and the \eqn{n} records, paired by row,
#' \eqn{IL1s = (np)^{-1} \sum_j \sum_i |x_{ij} - x'_{ij}| / (\sqrt 2 S_j)},
#' \eqn{S_j} the standard deviation of the original variable (variables with
#' \eqn{S_j = 0} are left out; records with a missing value in the pair are
#' left out of that variable's mean). This is the paper's formula.
#' sdcMicro's `dUtility(method = "IL1")` multiplies by \eqn{\sqrt 2} instead
#' of dividing (`abs((x - xm) / sd(x) * sqrt(2))`), so its value is twice
#' this one.
#'
#' **cor.** The largest absolute change of a Pearson correlation between two
#' numeric variables, \eqn{\max_{j < k} |r_{jk} - r'_{jk}|} (complete
#' records); NA when a masked variable is constant.
#'
#' @param original,masked The original and the masked data (data frames with
#'   the variables `vars`; for IL1s the same records in the same order).
#' @param vars Variables to compare; default every column of `original`
#'   that `masked` also has and that is numeric, logical or a factor (KS, IL1s
#'   and cor use the numeric ones).
#' @param measures Any of `"pmse"`, `"spmse"`, `"ks"`, `"cor"`, `"il1s"`
#'   (`"spmse"`, with its permutations, only when asked).
#' @param nperm Permutations of the S_pMSE null (1 to 10,000).
#' @return An object of class `epimask_utility_general`: a list with `pmse`
#'   (named vector `pmse`, `null`, `ratio`, `k`, `c`, `N`), `variables` (a
#'   data frame with `variable`, `ks`, `il1s` per numeric variable),
#'   `il1s`, `ks_max`, `cor_change` (and `cor_pair`, the pair where it is
#'   largest), `separation` (TRUE when the pMSE model separated the two sets:
#'   fitted propensities of 0 or 1, a release the model tells apart
#'   completely), `vars`, `measures`. Methods: `print`, `format`, `summary`,
#'   `as.data.frame` (one row per measure with the direction that is
#'   better), `plot` (the per-variable distances), [tidy()][epimask-tidiers]
#'   (per variable) and [glance()][epimask-tidiers] (one row).
#' @references Woo M-J, Reiter JP, Oganian A, Karr AF (2009). Global measures
#'   of data utility for microdata masked for disclosure limitation.
#'   \emph{Journal of Privacy and Confidentiality} 1(1), 111-124.
#'
#'   Snoke J, Raab GM, Nowok B, Dibben C, Slavkovic A (2018). General and
#'   specific utility measures for synthetic data. \emph{Journal of the Royal
#'   Statistical Society A} 181(3), 663-688.
#'
#'   Yancey WE, Winkler WE, Creecy RH (2002). Disclosure risk assessment in
#'   perturbative microdata protection. In \emph{Inference Control in
#'   Statistical Databases}, LNCS 2316, 135-152.
#' @seealso [utility_glm()] when the analysis is known; [ru_profile()] with
#'   `utility = ` for a profile on one of these measures.
#' @family utility
#' @export
#' @examples
#' set.seed(1)
#' d <- data.frame(age = round(runif(300, 20, 80)), bmi = rnorm(300, 26, 4))
#' masked <- apply_mask(d, mask_noise(0.5), vars = c("age", "bmi"))
#' u <- utility_general(d, masked)
#' u
#' glance(u)
#' tidy(u)
utility_general <- function(original, masked, vars = NULL,
                            measures = c("pmse", "ks", "cor", "il1s"), nperm = 50) {
  nperm <- check_number(nperm, "nperm", lower = 1, upper = 1e4, integer = TRUE)
  if (is_synthetic(masked))
    return(utility_general_synthetic(original, masked, vars, measures, nperm))
  original <- as_plain_data(check_data(original))
  masked <- as_plain_data(check_data(masked))
  if (!is.character(measures) || !length(measures) || anyNA(measures))
    abort_type("measures", sprintf("a subset of %s",
                                   paste0('"', utility_general_measures, '"', collapse = ", ")))
  bad <- setdiff(measures, utility_general_measures)
  if (length(bad))
    abort_value("measures", sprintf("among %s, not %s",
                                    paste0('"', utility_general_measures, '"', collapse = ", "),
                                    paste0('"', bad, '"', collapse = ", ")))
  measures <- unique(measures)
  vars <- general_vars(vars, original, masked)
  numeric <- vars[vapply(vars, function(v) is.numeric(original[[v]]), logical(1))]
  if ("il1s" %in% measures && nrow(original) != nrow(masked))
    abort_length("masked", sprintf(
      "have the records of `original` in the same order for IL1s (%d rows, not %d)",
      nrow(original), nrow(masked)))
  if (any(c("ks", "il1s", "cor") %in% measures) && !length(numeric))
    abort_value("vars", "including a numeric variable for KS, IL1s and cor")
  pm <- if (any(c("pmse", "spmse") %in% measures)) pmse_value(original, masked, vars) else NULL
  if (!is.null(pm) && "spmse" %in% measures)
    pm$value <- c(pm$value, spmse = spmse_value(original, masked, vars, pm$value[["pmse"]], nperm))
  per_var <- data.frame(
    variable = numeric,
    ks = if ("ks" %in% measures) vapply(numeric, function(v)
      ks_distance(original[[v]], masked[[v]]), numeric(1)) else NA_real_,
    il1s = if ("il1s" %in% measures) vapply(numeric, function(v)
      il1s_variable(original[[v]], masked[[v]]), numeric(1)) else NA_real_,
    row.names = NULL, stringsAsFactors = FALSE)
  cc <- if ("cor" %in% measures) cor_change(original, masked, numeric) else
    list(value = NA_real_, pair = NA_character_)
  structure(list(
    pmse = if (is.null(pm)) NULL else pm$value,
    separation = if (is.null(pm)) NA else pm$separation,
    variables = per_var,
    ks_max = if ("ks" %in% measures) max(per_var$ks, na.rm = FALSE) else NA_real_,
    il1s = if ("il1s" %in% measures) il1s_overall(per_var$il1s) else NA_real_,
    cor_change = cc$value, cor_pair = cc$pair,
    vars = vars, measures = measures,
    n = c(original = nrow(original), masked = nrow(masked))),
    class = "epimask_utility_general")
}

# The compared variables: given ones (checked), or the shared columns of a
# type the measures use.
general_vars <- function(vars, original, masked) {
  usable <- function(x) (is.numeric(x) || is.logical(x) || is.factor(x) || is.character(x)) &&
    is.null(dim(x))
  if (is.null(vars)) {
    vars <- intersect(names(original), names(masked))
    vars <- vars[vapply(vars, function(v) usable(original[[v]]) && !is.character(original[[v]]),
                        logical(1))]
    if (!length(vars)) abort_value("vars", "given: the data share no numeric or factor column")
  } else {
    check_columns(vars, original, arg = "vars", data_arg = "original")
    check_columns(vars, masked, arg = "vars", data_arg = "masked")
  }
  # the masked columns too, chosen or by default (a complex or list column
  # of `masked` would otherwise reach the measures)
  for (v in vars) {
    if (!usable(original[[v]]))
      abort_type("vars", sprintf("numeric, logical or factor columns ('%s' is %s)", v,
                                 class(original[[v]])[[1L]]))
    if (!usable(masked[[v]]) || is.numeric(original[[v]]) != is.numeric(masked[[v]]))
      abort_type("masked", sprintf("data whose column '%s' has the type of the original's", v))
  }
  unique(vars)
}

# ---- the measures ----------------------------------------------------------------------

# Two-sample KS distance sup |F_a - F_b| over the pooled values (NA dropped).
ks_distance <- function(a, b) {
  a <- sort(as.double(a[!is.na(a)]))
  b <- sort(as.double(b[!is.na(b)]))
  if (!length(a) || !length(b)) return(NA_real_)
  z <- unique(c(a, b))
  max(abs(findInterval(z, a) / length(a) - findInterval(z, b) / length(b)))
}

# Mean of |x - x'| / (sqrt(2) S) over the records (paper's IL1s term).
il1s_variable <- function(x, xm) {
  s <- stats::sd(x, na.rm = TRUE)
  if (!is.finite(s) || s == 0) return(NA_real_)
  d <- abs(as.double(x) - as.double(xm))
  mean(d[!is.na(d)]) / (sqrt(2) * s)
}

il1s_overall <- function(per_var) {
  per_var <- per_var[!is.na(per_var)]
  if (!length(per_var)) NA_real_ else mean(per_var)
}

cor_change <- function(original, masked, vars) {
  if (length(vars) < 2L) return(list(value = NA_real_, pair = NA_character_))
  co <- suppressWarnings(stats::cor(as.matrix(original[vars]), use = "complete.obs"))
  cm <- suppressWarnings(stats::cor(as.matrix(masked[vars]), use = "complete.obs"))
  d <- abs(co - cm)
  d[lower.tri(d, diag = TRUE)] <- NA
  if (all(is.na(d[upper.tri(d)])) || anyNA(d[upper.tri(d)]))
    return(list(value = NA_real_, pair = NA_character_))
  at <- which(d == max(d, na.rm = TRUE), arr.ind = TRUE)[1L, ]
  list(value = max(d, na.rm = TRUE), pair = paste(vars[at[[1L]]], vars[at[[2L]]], sep = ":"))
}

# The design of the pMSE model on the stacked data: intercept, main effects
# (numeric standardised on the original; others as treatment dummies),
# squares of the numeric ones, products of every pair of variables' columns.
pmse_design <- function(original, masked, vars) {
  blocks <- lapply(vars, function(v) {
    a <- original[[v]]
    b <- masked[[v]]
    if (is.numeric(a)) {
      m <- mean(a, na.rm = TRUE)
      s <- stats::sd(a, na.rm = TRUE)
      if (!is.finite(s) || s == 0) s <- 1
      z <- (c(as.double(a), as.double(b)) - m) / s
      return(list(main = matrix(z, ncol = 1L, dimnames = list(NULL, v)), numeric = TRUE))
    }
    f <- factor(c(as.character(a), as.character(b)))
    lev <- levels(f)
    if (length(lev) < 2L) return(list(main = NULL, numeric = FALSE))
    main <- vapply(lev[-1L], function(l) as.double(f == l), numeric(length(f)))
    main <- matrix(main, nrow = length(f), dimnames = list(NULL, paste0(v, lev[-1L])))
    list(main = main, numeric = FALSE)
  })
  mains <- lapply(blocks, `[[`, "main")
  squares <- lapply(blocks, function(b) if (b$numeric) {
    s <- b$main^2
    colnames(s) <- paste0(colnames(b$main), "^2")
    s
  })
  products <- list()
  k <- length(blocks)
  if (k >= 2L) for (i in seq_len(k - 1L)) for (j in (i + 1L):k) {
    a <- mains[[i]]
    b <- mains[[j]]
    if (is.null(a) || is.null(b)) next
    for (ca in seq_len(ncol(a))) {
      pr <- a[, ca] * b
      colnames(pr) <- paste0(colnames(a)[ca], ":", colnames(b))
      products[[length(products) + 1L]] <- pr
    }
  }
  x <- do.call(cbind, c(list(`(Intercept)` = rep(1, nrow(original) + nrow(masked))),
                        mains, squares, products))
  if (anyNA(x)) abort_value("original", "free of missing values in `vars` for the pMSE")
  x
}

# S_pMSE: the pMSE over the mean pMSE of `nperm` permutations of the
# indicator, halved (synthpop, utility.syn.r).
spmse_value <- function(original, masked, vars, pmse, nperm) {
  x <- pmse_design(original, masked, vars)
  no <- nrow(original)
  t <- rep(c(0, 1), c(no, nrow(masked)))
  cc <- mean(t)
  perm <- vapply(seq_len(nperm), function(i) {
    fit <- suppressWarnings(withCallingHandlers(irls_fit(x, sample(t), family = stats::binomial()),
                                                epimask_warning = function(w) invokeRestart("muffleWarning")))
    mean((fit$fitted.values - cc)^2)
  }, numeric(1))
  null <- mean(perm) / 2
  if (null > 0) pmse / null else NA_real_
}

pmse_value <- function(original, masked, vars) {
  x <- pmse_design(original, masked, vars)
  no <- nrow(original)
  nm <- nrow(masked)
  N <- no + nm
  t <- rep(c(0, 1), c(no, nm))
  separation <- FALSE
  fit <- withCallingHandlers(
    irls_fit(x, t, family = stats::binomial()),
    epimask_warning_separation = function(w) {
      separation <<- TRUE
      invokeRestart("muffleWarning")
    },
    epimask_warning_convergence = function(w) {
      separation <<- TRUE
      invokeRestart("muffleWarning")
    })
  p <- fit$fitted.values
  cc <- nm / N
  k <- fit$rank
  value <- mean((p - cc)^2)
  null <- (k - 1) * (1 - cc)^2 * cc / N
  list(value = c(pmse = value, null = null, ratio = if (null > 0) value / null else NA_real_,
                 k = k, c = cc, N = N),
       separation = separation)
}

# ---- methods ---------------------------------------------------------------------------

general_measure_table <- function(x) {
  rows <- list()
  add <- function(measure, value, better, note) {
    rows[[length(rows) + 1L]] <<- data.frame(measure = measure, value = value,
                                             better = better, note = note,
                                             stringsAsFactors = FALSE)
  }
  if (!is.null(x$pmse)) {
    add("pmse", x$pmse[["pmse"]], "lower", sprintf("k = %d parameters, c = %s", as.integer(x$pmse[["k"]]),
                                                    format_num(x$pmse[["c"]], 3)))
    add("pmse_null", x$pmse[["null"]], "reference", "expected pMSE of a synthesis from the right model")
    add("pmse_ratio", x$pmse[["ratio"]], "lower",
        "pMSE / its null expectation (about 1: a synthesis from the right model)")
    if ("spmse" %in% names(x$pmse))
      add("S_pMSE", x$pmse[["spmse"]], "lower", "pMSE / its permutation null (about 1: a synthesis from the right model)")
  }
  if ("ks" %in% x$measures) add("ks_max", x$ks_max, "lower", "largest per-variable KS distance")
  if ("il1s" %in% x$measures) add("il1s", x$il1s, "lower", "IL1s (Yancey et al. 2002)")
  if ("cor" %in% x$measures) add("cor_change", x$cor_change, "lower",
                                 if (is.na(x$cor_pair)) "largest change of a correlation"
                                 else sprintf("largest change of a correlation (%s)", x$cor_pair))
  do.call(rbind, rows)
}

#' @export
as.data.frame.epimask_utility_general <- function(x, row.names = NULL, optional = FALSE, ...) {
  apply_row_names(general_measure_table(x), row.names, optional)
}

#' @export
format.epimask_utility_general <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  tab <- general_measure_table(x)
  shown <- data.frame(measure = tab$measure, value = format_num(tab$value, digits),
                      better = tab$better, note = tab$note, stringsAsFactors = FALSE)
  out <- c(sprintf("Model-free utility of %s (%d original, %d %s records; %d variable%s)",
                   if (is.null(x$copies)) "masked data" else
                     sprintf("a synthetic release, mean over %d copies", x$copies),
                   x$n[["original"]], x$n[["masked"]],
                   if (is.null(x$copies)) "masked" else "synthetic", length(x$vars),
                   if (length(x$vars) == 1L) "" else "s"),
           utils::capture.output(print(format_table(shown, left = "measure"), row.names = FALSE,
                                       right = FALSE)))
  if (nrow(x$variables) && any(c("ks", "il1s") %in% x$measures)) {
    v <- x$variables
    per <- data.frame(variable = v$variable, KS = format_num(v$ks, digits),
                      IL1s = format_num(v$il1s, digits), stringsAsFactors = FALSE)
    per <- per[, c(TRUE, "ks" %in% x$measures, "il1s" %in% x$measures), drop = FALSE]
    out <- c(out, "Per variable:", utils::capture.output(print(per, row.names = FALSE)))
  }
  if (isTRUE(x$separation))
    out <- c(out, "Note: the pMSE model separates masked from original records (fitted propensities of 0 or 1).")
  c(out, "Every measure is 0 for unmasked data; lower is better.")
}

#' @export
print.epimask_utility_general <- function(x, ...) print_formatted(x, ...)

#' @export
summary.epimask_utility_general <- function(object, ...) {
  structure(list(measures = general_measure_table(object), variables = object$variables),
            class = "summary.epimask_utility_general")
}

#' @export
format.summary.epimask_utility_general <- function(x, ...) {
  utils::capture.output({
    print(x$measures, row.names = FALSE)
    cat("\n")
    print(x$variables, row.names = FALSE)
  })
}

#' @export
print.summary.epimask_utility_general <- function(x, ...) print_formatted(x, ...)

#' Plot the per-variable distances of a model-free utility
#'
#' A dot chart of the Kolmogorov-Smirnov distance and the IL1s term of each
#' numeric variable (lower is better).
#'
#' @param x An `epimask_utility_general` from [utility_general()].
#' @param ... Further arguments to [graphics::dotchart()].
#' @return `x`, invisibly.
#' @export
#' @examples
#' set.seed(1)
#' d <- data.frame(age = round(runif(300, 20, 80)), bmi = rnorm(300, 26, 4))
#' plot(utility_general(d, apply_mask(d, mask_noise(0.5), vars = c("age", "bmi"))))
plot.epimask_utility_general <- function(x, ...) {
  v <- x$variables
  if (!nrow(v)) abort_value("x", "a result with numeric variables to plot")
  m <- rbind(KS = v$ks, IL1s = v$il1s)
  colnames(m) <- v$variable
  m <- m[rowSums(!is.na(m)) > 0, , drop = FALSE]
  graphics::dotchart(m, xlab = "Distance between original and masked (lower is better)",
                     xlim = c(0, max(m, na.rm = TRUE) * 1.05), pch = 19, ...)
  invisible(x)
}

#' @rdname epimask-tidiers
#' @export
tidy.epimask_utility_general <- function(x, ...) x$variables

#' @rdname epimask-tidiers
#' @export
glance.epimask_utility_general <- function(x, ...) {
  pm <- x$pmse %||% c(pmse = NA_real_, null = NA_real_, ratio = NA_real_)
  data.frame(pmse = pm[["pmse"]], pmse_null = pm[["null"]], pmse_ratio = pm[["ratio"]],
             spmse = if ("spmse" %in% names(pm)) pm[["spmse"]] else NA_real_,
             ks_max = x$ks_max, il1s = x$il1s, cor_change = x$cor_change,
             separation = x$separation, stringsAsFactors = FALSE)
}

# ---- as the utility axis of a profile -----------------------------------------------------

profile_utility_labels <- c(
  pmse = "pMSE (lower is better)",
  pmse_ratio = "pMSE ratio to its null expectation (lower is better; 1 = as a synthesis from the right model)",
  spmse = "S_pMSE, pMSE over its permutation null (lower is better; 1 = as a synthesis from the right model)",
  ks = "Largest Kolmogorov-Smirnov distance (lower is better)",
  il1s = "IL1s information loss (lower is better)",
  cor = "Largest change of a correlation (lower is better)")

check_profile_utility <- function(utility) {
  if (is.null(utility)) return(NULL)
  if (!is.character(utility) || length(utility) != 1L || is.na(utility))
    abort_type("utility", sprintf("one of %s", paste0('"', names(profile_utility_labels),
                                                       '"', collapse = ", ")))
  check_choice(utility, names(profile_utility_labels), "utility")
}

# The profile's model-free measure of one masked data set against its
# unmasked data set, on the masked columns.
profile_utility_value <- function(measure, original, masked, vars) {
  # unmasked (or untouched) columns: every measure is 0 by definition (the
  # pMSE fit would give rounding noise of 1e-28)
  same <- nrow(original) == nrow(masked) && all(vapply(vars, function(v) {
    a <- original[[v]]
    b <- masked[[v]]
    if (is.numeric(a) && is.numeric(b)) identical(as.double(a), as.double(b))
    else identical(as.character(a), as.character(b))
  }, logical(1)))
  if (same) return(0)
  m <- switch(measure, pmse = , pmse_ratio = "pmse", spmse = "spmse", ks = "ks", il1s = "il1s",
              cor = "cor")
  value <- tryCatch({
    u <- utility_general(original, masked, vars = vars, measures = m)
    switch(measure, pmse = u$pmse[["pmse"]], pmse_ratio = u$pmse[["ratio"]],
           spmse = u$pmse[["spmse"]],
           ks = u$ks_max, il1s = u$il1s, cor = u$cor_change)
  }, epimask_error = function(e) NA_real_)
  as.double(value)
}

# The measure of each replicate of a scheme (NA where it is not computed:
# the replicates of the sufficient-statistics path beyond the first), or
# NULL without `utility`.
scheme_utility <- function(job, masked, R) {
  if (is.null(job$utility)) return(NULL)
  out <- rep(NA_real_, R)
  for (r in seq_along(masked))
    out[[r]] <- profile_utility_value(job$utility, unmasked_replicate(job, r), masked[[r]],
                                      job$vars)
  out
}

# The measure beside a model: columns utility, utility_se and the meta.
add_profile_utility <- function(ru, results, job) {
  reps <- do.call(rbind, lapply(results, `[[`, "replicates"))
  util <- summarise_profile_utility(reps, ru$scheme)
  out <- ru
  out$utility <- util$utility
  out$utility_se <- util$utility_se
  meta <- attr(ru, "meta")
  meta$utility <- job$utility
  meta$utility_label <- profile_utility_labels[[job$utility]]
  attr(out, "meta") <- meta
  class(out) <- c("ru_utility_profile", class(ru))
  out
}

has_model <- function(x) any(!is.na(x$analysis_potential))

# Per scheme: the mean of the measure over the replicates and its Monte
# Carlo SE (NA for one replicate).
summarise_profile_utility <- function(reps, schemes) {
  rows <- lapply(schemes, function(s) {
    v <- reps$utility[reps$scheme == s]
    v <- v[!is.na(v)]
    c(utility = if (length(v)) mean(v) else NA_real_,
      utility_se = if (length(v) >= 2L) stats::sd(v) / sqrt(length(v)) else NA_real_)
  })
  as.data.frame(do.call(rbind, rows))
}

# A profile without a model: the table has the measure (`utility`,
# `utility_se`) and the risk; the model columns are NA.
assemble_utility_profile <- function(results, labels, schemes, job, context = NULL) {
  reps <- do.call(rbind, lapply(results, `[[`, "replicates"))
  table <- data.frame(scheme = labels, stringsAsFactors = FALSE)
  first <- reps[!duplicated(reps$scheme), , drop = FALSE]
  first <- first[match(labels, first$scheme), , drop = FALSE]
  table$degree <- as.double(first$degree)
  for (col in c("estimate", "se", "sd", "bias", "rel_bias", "mse", "analysis_potential"))
    table[[col]] <- NA_real_
  risk <- vapply(labels, function(s) {
    r <- reps$risk[reps$scheme == s]
    r <- r[!is.na(r)]
    c(if (length(r)) mean(r) else NA_real_,
      if (length(r) >= 2L) stats::sd(r) / sqrt(length(r)) else NA_real_)
  }, numeric(2))
  table$risk <- risk[1L, ]
  table$anonymity <- 1 - table$risk
  table$width_ratio <- NA_real_
  table$mask_family <- first$mask_family
  table$nrep <- as.double(tabulate(match(reps$scheme, labels), length(labels)))
  table$risk_se <- risk[2L, ]
  table$generator <- first$generator
  table$strength <- as.double(first$strength)
  table$bandwidth <- first$bandwidth
  table$report_label <- first$report_label
  table$unmasked <- first$unmasked
  table$label <- first$label
  util <- summarise_profile_utility(reps, labels)
  table$utility <- util$utility
  table$utility_se <- util$utility_se
  table$pareto <- utility_pareto(table$risk, table$utility)
  table <- add_extra_risks(table, reps, job)
  rownames(table) <- NULL
  meta <- list(term = NA_character_, family = NA_character_, risk = profile_risk_label(job$risk),
               budget = if (!is.null(context)) context$threshold, context = context,
               vars = job$vars, utility = job$utility,
               utility_label = profile_utility_labels[[job$utility]])
  reference <- list(truth = NA_real_, se = NA_real_, mse = NA_real_, type = "original",
                    scheme = labels[vapply(schemes, function(s) scheme_traits(s)$reference,
                                           logical(1))][[1L]], paired = FALSE)
  structure(table, class = c("ru_utility_profile", "ru_profile", "data.frame"),
            replicates = reps, reference = reference, meta = meta)
}

# On the frontier: no other scheme has a risk and a measure as low, and one
# of them lower (NA risk: judged on the measure alone).
utility_pareto <- function(risk, u) {
  r <- ifelse(is.na(risk), 0, risk)
  vapply(seq_along(u), function(i) {
    if (is.na(u[i])) return(NA)
    !any(r <= r[i] & u <= u[i] & (r < r[i] | u < u[i]), na.rm = TRUE)
  }, logical(1))
}

#' @export
format.ru_utility_profile <- function(x, digits = 3, n = 20L, width = getOption("width", 80),
                                      ...) {
  digits <- check_digits(digits)
  meta <- attr(x, "meta")
  if (has_model(x)) {
    extra <- sprintf("# %s: %s", meta$utility, paste(sprintf("%s %s", x$scheme,
                     format_num(x$utility, digits)), collapse = "; "))
    return(c(NextMethod(), strwrap(sprintf("%s (%s)", extra, meta$utility_label),
                                   width = width, exdent = 2)))
  }
  shown <- utils::head(as.data.frame(x), n)
  with_se <- function(v, se) {
    out <- format_num(v, digits)
    has <- !is.na(se) & !is.na(v)
    out[has] <- sprintf("%s (%s)", out[has], format_num(se[has], 2))
    out
  }
  tab <- data.frame(scheme = shown$scheme, utility = with_se(shown$utility, shown$utility_se),
                    risk = with_se(shown$risk, shown$risk_se),
                    front = ifelse(shown$pareto %in% TRUE, "*", ""),
                    reps = format(shown$nrep), stringsAsFactors = FALSE)
  names(tab)[2L] <- meta$utility
  if (all(is.na(shown$risk))) tab$risk <- tab$front <- NULL
  c(strwrap(sprintf("Risk-utility profile without a model: %d scheme%s, utility %s%s",
                    nrow(x), if (nrow(x) == 1L) "" else "s", meta$utility,
                    if (!is.na(meta$risk)) sprintf(", risk: %s", meta$risk) else ""),
            width = width, exdent = 2),
    utils::capture.output(print(format_table(tab, left = "scheme"), row.names = FALSE, right = TRUE)),
    strwrap(sprintf("# %s: %s; Monte Carlo SE in parentheses%s",
                    meta$utility, meta$utility_label,
                    if (is.null(tab$front)) "" else "; front * = on the risk-utility frontier"),
            width = width, exdent = 2))
}

#' @export
print.ru_utility_profile <- function(x, ...) print_formatted(x, ...)

#' @export
summary.ru_utility_profile <- function(object, ...) {
  if (has_model(object)) return(NextMethod())
  out <- as.data.frame(object)[c("scheme", "utility", "utility_se", "risk", "risk_se",
                                 "anonymity", "pareto", "nrep")]
  structure(out, class = c("summary.ru_utility_profile", "data.frame"),
            header = format(object)[[1L]])
}

#' @export
format.summary.ru_utility_profile <- function(x, ...) {
  utils::capture.output({
    cat(attr(x, "header"), sep = "\n")
    print(as.data.frame(unclass(x)), row.names = FALSE)
  })
}

#' @export
print.summary.ru_utility_profile <- function(x, ...) print_formatted(x, ...)

#' @export
as.data.frame.ru_utility_profile <- function(x, row.names = NULL, optional = FALSE, ...) {
  out <- x
  attributes(out) <- attributes(x)[c("names", "row.names")]
  class(out) <- "data.frame"
  apply_row_names(out, row.names, optional)
}

#' Plots of a profile on a model-free utility measure
#'
#' For a profile from [ru_profile()] with `utility = ` (class
#' `ru_utility_profile`), `type = "utility"` (the default without a model)
#' is the panel of [plot.ru_profile()] and [autoplot.ru_profile()] with the
#' measure (lower is better: pMSE, its ratio, KS, IL1s, the change of a
#' correlation) across and the disclosure risk up, as the `"tradeoff"` panel
#' draws the MSE: down and to the left is better. It has the same
#' preparation, palette (one colour and symbol per masking generator, each
#' sweep joined from weak to strong), +-1.96 Monte Carlo SE bars, risk budget
#' and Pareto frontier (a staircase through the schemes no other scheme
#' beats on both the measure and the risk: the table's `pareto` column when
#' there is no model), labels from [scheme_label()] (ggrepel in
#' [autoplot.ru_profile()]). The measure's axis is logarithmic when its
#' positive values span two orders of magnitude (`log = "auto"`), with the
#' 0 of the unmasked data at the axis floor, labelled "0" beyond an axis
#' break. A profile without a risk (`risk = "none"`) shows the measure of
#' each scheme, one row per scheme. With a model, `type = "ru"` (the
#' default) and the other types of [plot.ru_profile()] draw the model's
#' panels.
#'
#' @param x,object An `ru_utility_profile`.
#' @param type `"utility"` or a type of [plot.ru_profile()].
#' @param log `"auto"` (each axis by its rule), `TRUE` or `FALSE` for a
#'   logarithmic measure axis (the x axis; the risk axis then linear), or a
#'   string as for [plot.ru_profile()] (`"x"`, `"y"`, `"xy"`, `""`).
#' @param ... Further arguments of [plot.ru_profile()] or
#'   [autoplot.ru_profile()] (`labels`, `legend`, `col`, `xlim`, `main`, ...).
#' @return `x` invisibly (base) or a ggplot object.
#' @family profiles
#' @export
#' @examples
#' lung <- survival::lung[c("time", "status", "age", "wt.loss")]
#' lung <- lung[stats::complete.cases(lung), ]
#' ru <- ru_profile(lung, mask_sweep(mask_noise, amount = c(0.2, 1)),
#'                  vars = c("age", "wt.loss"), utility = "pmse_ratio",
#'                  risk = match_risk(c("age", "wt.loss")), nrep = 3, seed = 1,
#'                  progress = FALSE)
#' plot(ru)
plot.ru_utility_profile <- function(x, type = if (has_model(x)) "ru" else "utility",
                                    log = "auto", ...) {
  plot.ru_profile(x, type = type, log = utility_log(log), ...)
}

#' @rdname plot.ru_utility_profile
#' @exportS3Method ggplot2::autoplot
autoplot.ru_utility_profile <- function(object, type = if (has_model(object)) "ru" else "utility",
                                        log = "auto", ...) {
  autoplot.ru_profile(object, type = type, log = utility_log(log), ...)
}

# TRUE / FALSE (the measure's axis on a log scale or not) as the panels'
# `log` strings: "x" / "" (the risk axis then linear; "auto" keeps both to
# their rule).
utility_log <- function(log) {
  if (isTRUE(log)) return("x")
  if (isFALSE(log)) return("")
  log
}

#' @export
`[.ru_utility_profile` <- function(x, ...) {
  out <- NextMethod()
  if (inherits(out, "ru_profile")) class(out) <- c("ru_utility_profile", class(out))
  out
}

#' @rdname epimask-tidiers
#' @export
tidy.ru_utility_profile <- function(x, ...) as.data.frame(x)

#' @rdname epimask-tidiers
#' @export
glance.ru_utility_profile <- function(x, ...) {
  meta <- attr(x, "meta")
  out <- if (has_model(x)) NextMethod() else
    data.frame(n_schemes = nrow(x), risk = meta$risk,
               max_risk = if (all(is.na(x$risk))) NA_real_ else max(x$risk, na.rm = TRUE),
               stringsAsFactors = FALSE)
  out$utility <- meta$utility
  out$max_utility <- if (all(is.na(x$utility))) NA_real_ else max(x$utility, na.rm = TRUE)
  out
}
