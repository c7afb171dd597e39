# The risk-utility profile object: what ru_profile() returns and what plot(),
# autoplot(), fit_ru_curve() and recommend() consume. ru_profile() only has to
# collect the per-replicate estimates, naive SEs and risks; everything else
# (the utility summary of METHODS section 3, printing, subsetting) lives here.

# Columns every profile table carries, in this order (DESIGN "Profiles and
# plots"), followed by the extras the plots and the summary need.
ru_profile_columns <- c("scheme", "degree", "estimate", "se", "sd", "bias",
                        "rel_bias", "mse", "analysis_potential", "risk",
                        "anonymity", "width_ratio")
ru_profile_extra_columns <- c("kernel", "nrep", "ci_lower", "ci_upper",
                              "ci_overlap")

# Two-sided 95% normal quantile used for every naive interval.
ru_z <- function() stats::qnorm(0.975)

#' Summarise per-replicate estimates into a risk-utility table
#'
#' Internal. Implements METHODS section 3 for every scheme: with beta the
#' reference (original estimate or truth) and beta_m,r the estimates of the R
#' replicates of a scheme, bias = mean(beta_m) - beta, relative bias =
#' 100 |bias| / |beta| (NA when beta = 0), MSE = mean(SE_r^2) + bias^2,
#' analysis potential U = MSE(beta) / MSE(beta_m) with MSE(beta) =
#' `reference$mse` (default `reference$se^2`), empirical SD of beta_m,r (NA
#' for one replicate), width ratio = naive 95% CI width 2 z mean(SE_r) over the
#' empirical 2.5%-97.5% range of beta_m,r (NA for one replicate or a zero
#' range), and the CI overlap of Karr et al. (2006): the intersection of the
#' original and masked 95% CIs averaged over both lengths,
#' `(|I| / |CI_orig| + |I| / |CI_mask|) / 2`, 0 when they are disjoint.
#'
#' @param replicates data.frame with columns `scheme`, `replicate`,
#'   `estimate`, `se` and optionally `risk`, `degree`, `kernel` (the last two
#'   constant within a scheme). Schemes keep their order of first appearance.
#'   `risk` must be a probability in \[0, 1\] (anonymity = 1 - risk): for the
#'   matching risk of METHODS 5 that is the expected match risk divided by n
#'   (the expected proportion of correct matches), not the count.
#' @param reference list with `truth` (beta), `se` (its SE, may be NA),
#'   optionally `mse` (MSE(beta), default `se^2`) and `type`.
#' @return data.frame, one row per scheme.
#' @noRd
summarise_replicates <- function(replicates, reference) {
  replicates <- check_replicates(replicates)
  reference <- check_ru_reference(reference)
  schemes <- unique(replicates$scheme)
  rows <- lapply(schemes, function(s) {
    summarise_scheme(replicates[replicates$scheme == s, , drop = FALSE],
                     reference)
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

summarise_scheme <- function(rep, reference) {
  z <- ru_z()
  beta <- reference$truth
  est <- rep$estimate
  se <- rep$se
  nrep <- length(est)
  mean_est <- mean(est)
  mean_se <- mean(se)
  bias <- mean_est - beta
  mse <- mean(se^2) + bias^2
  sd_emp <- if (nrep > 1L) stats::sd(est) else NA_real_
  width_ratio <- NA_real_
  if (nrep > 1L) {
    range_emp <- diff(stats::quantile(est, c(0.025, 0.975), names = FALSE))
    if (range_emp > 0) width_ratio <- 2 * z * mean_se / range_emp
  }
  risk <- if (is.null(rep$risk)) NA_real_ else mean(rep$risk)
  ci_lower <- mean_est - z * mean_se
  ci_upper <- mean_est + z * mean_se
  data.frame(
    scheme = as.character(rep$scheme[[1L]]),
    degree = if (is.null(rep$degree)) NA_real_ else as.double(rep$degree[[1L]]),
    estimate = mean_est,
    se = mean_se,
    sd = sd_emp,
    bias = bias,
    rel_bias = if (beta != 0) 100 * abs(bias) / abs(beta) else NA_real_,
    mse = mse,
    analysis_potential = if (mse > 0) reference$mse / mse else NA_real_,
    risk = risk,
    anonymity = 1 - risk,
    width_ratio = width_ratio,
    kernel = if (is.null(rep$kernel)) NA_character_ else
      as.character(rep$kernel[[1L]]),
    nrep = nrep,
    ci_lower = ci_lower,
    ci_upper = ci_upper,
    ci_overlap = ci_overlap(beta - z * reference$se, beta + z * reference$se,
                            ci_lower, ci_upper),
    stringsAsFactors = FALSE
  )
}

# Karr et al. (2006) average interval overlap; 1 for identical intervals, 0 for
# disjoint ones, NA when either interval is unknown or degenerate.
ci_overlap <- function(lower_orig, upper_orig, lower_mask, upper_mask) {
  len_orig <- upper_orig - lower_orig
  len_mask <- upper_mask - lower_mask
  if (anyNA(c(len_orig, len_mask)) || len_orig <= 0 || len_mask <= 0)
    return(NA_real_)
  inter <- max(0, min(upper_orig, upper_mask) - max(lower_orig, lower_mask))
  (inter / len_orig + inter / len_mask) / 2
}

check_replicates <- function(replicates, arg = "replicates") {
  if (!is.data.frame(replicates)) abort_type(arg, "a data frame")
  if (nrow(replicates) == 0L) abort_empty(arg)
  check_columns(c("scheme", "replicate", "estimate", "se"), replicates,
                arg = "required columns", data_arg = arg)
  replicates <- as.data.frame(replicates, stringsAsFactors = FALSE)
  replicates$scheme <- as.character(replicates$scheme)
  if (anyNA(replicates$scheme)) abort_value(sprintf("%s$scheme", arg), "free of NA")
  for (col in intersect(c("estimate", "se", "risk", "degree"), names(replicates))) {
    check_numeric_vector(replicates[[col]], sprintf("%s$%s", arg, col),
                         finite = FALSE)
  }
  for (col in c("estimate", "se")) {
    if (any(!is.finite(replicates[[col]])))
      abort_value(sprintf("%s$%s", arg, col), "finite (no NA, NaN or Inf)")
  }
  if (any(replicates$se < 0)) abort_value(sprintf("%s$se", arg), "non-negative")
  if (!is.null(replicates$risk) &&
      any(replicates$risk < 0 | replicates$risk > 1, na.rm = TRUE))
    abort_value(sprintf("%s$risk", arg), "in [0, 1] (or NA)")
  replicates
}

check_ru_reference <- function(reference, arg = "reference") {
  if (!is.list(reference) || is.null(reference$truth))
    abort_type(arg, "a list with element `truth` (and `se`)")
  truth <- check_number(reference$truth, sprintf("%s$truth", arg))
  se <- reference$se
  if (is.null(se) || identical(se, NA)) se <- NA_real_
  if (!is.numeric(se) || length(se) != 1L || is.infinite(se) ||
      (!is.na(se) && se < 0))
    abort_value(sprintf("%s$se", arg), "a single non-negative number or NA")
  mse <- reference$mse
  if (is.null(mse) || identical(mse, NA)) mse <- se^2
  if (!is.numeric(mse) || length(mse) != 1L || is.infinite(mse) ||
      (!is.na(mse) && mse < 0))
    abort_value(sprintf("%s$mse", arg), "a single non-negative number or NA")
  type <- reference$type
  if (is.null(type)) type <- "original"
  type <- check_choice(type, c("original", "truth"), sprintf("%s$type", arg))
  list(truth = truth, se = as.double(se), mse = as.double(mse), type = type)
}

check_meta <- function(meta, arg = "meta") {
  if (is.null(meta)) meta <- list()
  if (!is.list(meta)) abort_type(arg, "a list")
  label <- function(x, name) {
    if (is.null(x)) return(NA_character_)
    if (is.function(x)) return("custom")
    if (inherits(x, "family")) return(x$family)
    if (!is.character(x) || length(x) != 1L)
      abort_type(sprintf("%s$%s", arg, name), "a single character string")
    x
  }
  aggregate <- meta$aggregate
  if (!is.null(aggregate))
    aggregate <- check_number(aggregate, sprintf("%s$aggregate", arg))
  list(term = label(meta$term, "term"), family = label(meta$family, "family"),
       risk = label(meta$risk, "risk"), aggregate = aggregate)
}

check_profile_table <- function(table, arg = "table") {
  if (!is.data.frame(table)) abort_type(arg, "a data frame")
  if (nrow(table) == 0L) abort_empty(arg)
  check_columns(ru_profile_columns, table, arg = "required columns",
                data_arg = arg)
  table <- as.data.frame(table, stringsAsFactors = FALSE)
  table$scheme <- as.character(table$scheme)
  if (anyNA(table$scheme) || anyDuplicated(table$scheme))
    abort_value(sprintf("%s$scheme", arg), "unique, non-missing scheme labels")
  numeric_cols <- c(setdiff(ru_profile_columns, "scheme"),
                    intersect(c("nrep", "ci_lower", "ci_upper", "ci_overlap"),
                              names(table)))
  for (col in numeric_cols) {
    if (!(is.numeric(table[[col]]) || all(is.na(table[[col]]))))
      abort_type(sprintf("%s$%s", arg, col), "numeric")
    table[[col]] <- as.double(table[[col]])
  }
  if (is.null(table$kernel)) table$kernel <- NA_character_
  table$kernel <- as.character(table$kernel)
  if (any(table$risk < 0 | table$risk > 1, na.rm = TRUE))
    abort_value(sprintf("%s$risk", arg), "in [0, 1] (or NA)")
  table
}

#' Construct a risk-utility profile (internal)
#'
#' @param table data.frame with the columns of `ru_profile_columns` (and
#'   optionally the extras), one row per scheme, usually from
#'   [summarise_replicates()].
#' @param replicates long data.frame of per-replicate results.
#' @param reference list(truth, se, mse, type).
#' @param meta list(term, family, risk, aggregate).
#' @noRd
new_ru_profile <- function(table, replicates, reference, meta = list()) {
  table <- check_profile_table(table)
  replicates <- check_replicates(replicates)
  unknown <- setdiff(unique(replicates$scheme), table$scheme)
  if (length(unknown))
    abort_name("replicates$scheme", unknown, "`table$scheme`")
  reference <- check_ru_reference(reference)
  meta <- check_meta(meta)
  cols <- c(ru_profile_columns, intersect(ru_profile_extra_columns, names(table)),
            setdiff(names(table), c(ru_profile_columns, ru_profile_extra_columns)))
  table <- table[, cols, drop = FALSE]
  rownames(table) <- NULL
  structure(table, class = c("ru_profile", "data.frame"),
            replicates = replicates, reference = reference, meta = meta)
}

# Convenience used by ru_profile() and the tests: replicates -> profile.
ru_profile_from_replicates <- function(replicates, reference, meta = list()) {
  new_ru_profile(summarise_replicates(replicates, reference), replicates,
                 reference, meta)
}

check_ru_profile <- function(x, arg = "ru") {
  if (!inherits(x, "ru_profile")) abort_type(arg, "an `ru_profile` object")
  x
}

#' Per-replicate results of a risk-utility profile
#'
#' A risk-utility profile keeps, besides its one-row-per-scheme table, the
#' estimate, naive standard error and (when computed) risk of every replicate
#' of every scheme. `replicates()` returns them as a long data frame.
#'
#' @param ru an `ru_profile` (from `ru_profile()`).
#' @return A data frame with columns `scheme`, `replicate`, `estimate`, `se`
#'   and, when computed, `risk`; only the schemes present in `ru`.
#' @export
#' @examples
#' ru <- epimask:::example_ru_profile()
#' head(replicates(ru))
replicates <- function(ru) {
  check_ru_profile(ru)
  reps <- attr(ru, "replicates")
  reps <- reps[reps$scheme %in% ru$scheme, , drop = FALSE]
  rownames(reps) <- NULL
  reps
}

ru_reference <- function(ru) attr(ru, "reference")
ru_meta <- function(ru) attr(ru, "meta")

# Subsetting keeps the class while every required column survives (rows may go;
# the replicates follow the rows kept); otherwise it degrades to a data.frame.
#' @rdname ru_profile-methods
#' @export
`[.ru_profile` <- function(x, ...) {
  out <- NextMethod()
  restore_ru_profile(out, x)
}

restore_ru_profile <- function(out, template) {
  if (!is.data.frame(out)) return(out)
  if (!all(ru_profile_columns %in% names(out)) || anyNA(out$scheme) ||
      anyDuplicated(out$scheme) || nrow(out) == 0L) {
    return(strip_ru_profile(out))
  }
  reps <- attr(template, "replicates")
  structure(out, class = c("ru_profile", "data.frame"),
            replicates = reps[reps$scheme %in% out$scheme, , drop = FALSE],
            reference = attr(template, "reference"),
            meta = attr(template, "meta"))
}

strip_ru_profile <- function(x) {
  attr(x, "replicates") <- NULL
  attr(x, "reference") <- NULL
  attr(x, "meta") <- NULL
  class(x) <- "data.frame"
  x
}

#' @rdname ru_profile-methods
#' @param row.names,optional as in [as.data.frame()].
#' @export
as.data.frame.ru_profile <- function(x, row.names = NULL, optional = FALSE, ...) {
  out <- strip_ru_profile(x)
  if (!is.null(row.names)) rownames(out) <- row.names
  out
}

# ---- printing -------------------------------------------------------------

ru_header <- function(x) {
  meta <- ru_meta(x)
  ref <- ru_reference(x)
  n <- nrow(x)
  parts <- sprintf("Risk-utility profile: %d scheme%s", n, if (n == 1L) "" else "s")
  if (!is.na(meta$term)) parts <- paste0(parts, sprintf(", term '%s'", meta$term))
  if (!is.na(meta$family)) parts <- paste0(parts, sprintf(", family %s", meta$family))
  if (!is.na(meta$risk)) parts <- paste0(parts, sprintf(", risk: %s", meta$risk))
  ref_line <- sprintf("Reference: %s %s%s", if (ref$type == "truth") "true value" else
                        "original estimate", format_num(ref$truth, 4),
                      if (is.na(ref$se)) "" else sprintf(" (SE %s)", format_num(ref$se, 4)))
  if (!is.null(meta$aggregate))
    ref_line <- paste0(ref_line, sprintf("; aggregated-data estimate %s",
                                         format_num(meta$aggregate, 4)))
  c(parts, ref_line)
}

format_num <- function(x, digits = 3) {
  out <- formatC(signif(x, digits), digits = digits, format = "fg", flag = "#")
  out <- sub("\\.$", "", trimws(out))
  out[is.na(x)] <- "NA"
  out
}

# Columns with a digit budget each; all-NA optional columns are left out.
ru_display_table <- function(x, digits = 3) {
  # Key columns first, so a narrow console drops the secondary ones.
  spec <- list(
    scheme = NULL, degree = 3, estimate = digits + 1, se = digits + 1,
    rel_bias = 2, mse = digits, analysis_potential = digits, risk = 2,
    sd = digits, nrep = 0, width_ratio = 2, ci_overlap = 2)
  headers <- c(scheme = "scheme", degree = "degree", nrep = "reps",
               estimate = "estimate", se = "se", sd = "sd", rel_bias = "bias%",
               mse = "mse", analysis_potential = "U", risk = "risk",
               width_ratio = "width", ci_overlap = "overlap")
  optional <- c("degree", "nrep", "sd", "risk", "width_ratio", "ci_overlap")
  cols <- names(spec)[names(spec) %in% names(x)]
  cols <- cols[!(cols %in% optional & vapply(cols, function(c) all(is.na(x[[c]])), TRUE))]
  if ("nrep" %in% cols && all(x$nrep == 1)) cols <- setdiff(cols, "nrep")
  out <- lapply(cols, function(col) {
    v <- x[[col]]
    if (is.character(v)) return(ifelse(is.na(v), "", v))
    if (col %in% c("nrep", "degree")) return(format_degree_label(v))
    format_num(v, spec[[col]])
  })
  names(out) <- headers[cols]
  as.data.frame(out, check.names = FALSE, stringsAsFactors = FALSE)
}

#' Print, format and summarise a risk-utility profile
#'
#' Row subsetting (`x[i, ]`, [subset()]) keeps the class and the replicates of
#' the schemes kept; selecting columns so that a required one is lost, or
#' every row, gives a plain data frame. `as.data.frame()` drops the class and
#' the attributes and keeps every column.
#'
#' `format()` gives the lines `print()` shows: a header naming the number of
#' schemes, the term, the model family and the risk measure, the reference
#' value, and one row per scheme with degree, mean estimate, mean naive SE,
#' empirical SD, relative bias (%), MSE, analysis potential U, risk and width
#' ratio (columns that are all NA are left out). `summary()` lays the table out
#' as Table 2 of Cologne et al. (2012), with the anonymity score added.
#'
#' @param x,object an `ru_profile`.
#' @param digits significant digits for most columns.
#' @param n maximum number of rows to print.
#' @param width console width the printed table is fitted to.
#' @param ... for `[`, the row and column indices; otherwise unused.
#' @return `format()`: a character vector; `print()`: `x`, invisibly;
#'   `summary()`: a data frame of class `summary.ru_profile`; `[`: an
#'   `ru_profile` or a data frame; `as.data.frame()`: a data frame.
#' @name ru_profile-methods
#' @examples
#' ru <- epimask:::example_ru_profile()
#' ru
#' summary(ru)
#' ru[ru$risk <= 0.2, ]
NULL

#' @rdname ru_profile-methods
#' @export
format.ru_profile <- function(x, digits = 3, n = 20L, width = getOption("width", 80), ...) {
  shown <- utils::head(as.data.frame(x), n)
  tab <- ru_display_table(shown, digits)
  tab$scheme <- truncate_label(tab$scheme, 32L)
  fit <- fit_columns(format_left(tab), width)
  body <- utils::capture.output(print(fit$table, row.names = FALSE, right = TRUE))
  lines <- c(ru_header(x), body)
  if (nrow(x) > n) lines <- c(lines, sprintf("# ... %d more scheme%s", nrow(x) - n,
                                             if (nrow(x) - n == 1L) "" else "s"))
  if (length(fit$dropped))
    lines <- c(lines, sprintf("# not shown: %s (see as.data.frame())",
                              paste(trimws(fit$dropped), collapse = ", ")))
  nrep <- range(x$nrep %||% 1)
  note <- paste0(
    "# U = analysis potential MSE(original) / MSE(masked); bias% = relative bias",
    if ("width" %in% names(fit$table)) "; width = naive CI width / empirical 95% range" else "",
    if (nrep[2] > 1) sprintf("; %s replicates per scheme",
                             if (nrep[1] == nrep[2]) nrep[1] else
                               paste(nrep, collapse = "-")) else "")
  c(lines, strwrap(note, width = width, exdent = 2, prefix = "", initial = ""))
}

truncate_label <- function(x, max_chars) {
  long <- nchar(x) > max_chars
  x[long] <- paste0(substr(x[long], 1L, max_chars - 1L), "~")
  x
}

# Keep the leading columns that fit in `width` characters (tibble-like).
fit_columns <- function(tab, width) {
  widths <- vapply(names(tab), function(col) max(nchar(c(col, tab[[col]]))) + 1L, 1L)
  keep <- cumsum(widths) <= width
  keep[1L] <- TRUE
  list(table = tab[, keep, drop = FALSE], dropped = names(tab)[!keep])
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# Left-justify the text columns so scheme labels read naturally.
format_left <- function(tab) {
  for (col in intersect(c("scheme", "kernel"), names(tab))) {
    w <- max(nchar(c(col, tab[[col]])))
    tab[[col]] <- formatC(tab[[col]], width = -w)
    names(tab)[names(tab) == col] <- formatC(col, width = -w)
  }
  tab
}

#' @rdname ru_profile-methods
#' @export
print.ru_profile <- function(x, digits = 3, n = 20L, ...) {
  cat(format(x, digits = digits, n = n), sep = "\n")
  invisible(x)
}

#' @rdname ru_profile-methods
#' @export
summary.ru_profile <- function(object, ...) {
  out <- data.frame(
    masking = object$scheme,
    estimate = object$estimate,
    se = object$se,
    bias = object$bias,
    rel_bias = object$rel_bias,
    mse = object$mse,
    analysis_potential = object$analysis_potential,
    risk = object$risk,
    anonymity = object$anonymity,
    stringsAsFactors = FALSE
  )
  structure(out, class = c("summary.ru_profile", "data.frame"),
            header = ru_header(object))
}

#' @rdname ru_profile-methods
#' @export
print.summary.ru_profile <- function(x, digits = 4, ...) {
  tab <- data.frame(
    `Masking` = x$masking,
    `Estimate` = format_num(x$estimate, digits),
    `SE` = format_num(x$se, digits),
    `Bias` = format_num(x$bias, 2),
    `Relative bias (%)` = format_num(x$rel_bias, 2),
    `MSE` = format_num(x$mse, 3),
    `Analysis potential` = format_num(x$analysis_potential, 3),
    `Risk` = format_num(x$risk, 2),
    `Anonymity` = format_num(x$anonymity, 2),
    check.names = FALSE, stringsAsFactors = FALSE)
  if (all(is.na(x$risk))) tab$Risk <- tab$Anonymity <- NULL
  cat(attr(x, "header"), sep = "\n")
  print(format_left_col(tab, "Masking"), row.names = FALSE, right = TRUE)
  invisible(x)
}

format_left_col <- function(tab, col) {
  w <- max(nchar(c(col, tab[[col]])))
  tab[[col]] <- formatC(tab[[col]], width = -w)
  names(tab)[names(tab) == col] <- formatC(col, width = -w)
  tab
}

# A small Zhou-like profile for the examples: two kernels x three degrees plus
# the unmasked reference, 20 simulated replicates each.
example_ru_profile <- function() {
  grid <- expand.grid(degree = c(0.01, 0.1, 1), kernel = c("ring", "exponential"),
                      stringsAsFactors = FALSE)
  schemes <- rbind(data.frame(degree = 0, kernel = "none"), grid)
  schemes$scheme <- ifelse(schemes$kernel == "none", "none",
                           sprintf("%s, lambda = %g", schemes$kernel, schemes$degree))
  shift <- ifelse(schemes$kernel == "ring", 0.15, 0.08)
  reps <- do.call(rbind, lapply(seq_len(nrow(schemes)), function(i) {
    d <- schemes$degree[i]
    r <- seq_len(20)
    data.frame(scheme = schemes$scheme[i], replicate = r,
               estimate = 1 - shift[i] * log1p(10 * d) + 0.14 * sin(r * (i + 1)),
               se = 0.1 * (1 - 0.1 * log1p(d)), risk = 0.6 / (1 + 8 * d),
               degree = d, kernel = schemes$kernel[i])
  }))
  ru_profile_from_replicates(reps, list(truth = 1, se = 0.1, type = "truth"),
                             list(term = "x", family = "gaussian", risk = "match"))
}
