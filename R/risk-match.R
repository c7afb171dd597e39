# Record-matching disclosure risk of masked continuous data (METHODS 5):
# the matching probability of Zhou, Dominici and Louis (2010) after Reiter
# (2005). The O(n^2) pass over targets and candidates is in C
# (src/risk_match.c); the intruder's regression is fitted here.

#' Record-matching disclosure risk of masked data
#'
#' An intruder who knows the true values of the `known` variables for a
#' person (the target) looks for that person's record in the released masked
#' data, to learn the `unknown` variables (for example the health outcome).
#' `risk_match()` computes, for every target, the probability the intruder
#' gives each released record (Zhou, Dominici and Louis 2010, section 2.3,
#' after Reiter 2005; formulas in METHODS.md section 5) and counts how often
#' the most probable record(s) are the right one.
#'
#' For a target with true known values \eqn{t} and a candidate record \eqn{j}:
#' \itemize{
#'   \item each known variable \eqn{v} contributes
#'     \eqn{1 - |Z_{jv} - t_v| / \Delta_v(t)}, with
#'     \eqn{\Delta_v(t) = \max_j |Z_{jv} - t_v|} over the released records (the
#'     tail probability of a uniform distance);
#'   \item each unknown variable contributes
#'     \eqn{E[(1 - |Z_j - z| / \Delta)_+]} with \eqn{\Delta} the range of the
#'     released values and \eqn{z \sim N(\hat m(t), \hat\sigma^2)}, the
#'     prediction of a least-squares regression (with intercept) of the
#'     unknown on the known variables in the released data,
#'     \eqn{\hat\sigma^2 = RSS / (n - q)}, \eqn{q} the rank of the design.
#'     The expectation is computed in closed form (normal distribution and
#'     density functions), not by Monte Carlo.
#' }
#' With a uniform prior the matching probability is the product normalised
#' over the candidates. The intruder picks the record(s) with the largest
#' probability (ties within a relative \eqn{10^{-12}}): \eqn{c} is their number,
#' \eqn{I = 1} when the true record is among them.
#'
#' Conventions where the formulas are undefined: a factor whose candidates
#' are all at the same distance (\eqn{\Delta_v(t) = 0} included) or an unknown
#' variable whose released values are all equal carries no information and is
#' set to 1; a residual SD of 0 (exact fit) makes the predictive law a point
#' mass; known variables that are aliased in the regression (constant, or
#' collinear with others) are dropped from it; a target for which every
#' candidate has probability 0 leaves the intruder without preference, so all
#' \eqn{n} records tie.
#'
#' The cost is \eqn{O(n \times} targets \eqn{\times} variables\eqn{)} time and
#' \eqn{O(n)} memory per thread; targets run in parallel with OpenMP and the
#' computation can be interrupted. For very large `n`, a random sample of
#' `targets` gives an unbiased estimate of the percentage of correct matches.
#'
#' @param original The original data: a data frame or numeric matrix, one row
#'   per person. Only its `known` columns are used: they are what the intruder
#'   knows about each target.
#' @param masked The released masked data, with the same rows (row `i` is the
#'   same person as in `original`) and the `known` and `unknown` columns.
#' @param known Names of the variables the intruder knows (at least one).
#' @param unknown Names of the variables the intruder wants to learn, or `NULL`
#'   (then only the known variables enter the matching probability).
#' @param targets Row numbers of the persons the intruder looks for (default
#'   all). Every released record is always a candidate.
#' @param threads Number of OpenMP threads; `NULL` uses the OpenMP default
#'   (the environment variable `OMP_NUM_THREADS`, else all cores).
#' @return An object of class `epimask_match`, a list with
#'   \describe{
#'     \item{`per_target`}{a data frame with one row per target: `target` (row
#'       number), `prob_true` (matching probability of the true record),
#'       `prob_max` (the largest matching probability), `c` and `I`.}
#'     \item{`expected_match_risk`}{\eqn{\sum I / c}, the expected number of
#'       correct matches.}
#'     \item{`percent_correct`}{`100 * expected_match_risk / n_targets`.}
#'     \item{`true_match_rate`}{share of targets with \eqn{c = 1} and \eqn{I = 1}.}
#'     \item{`false_match_rate`}{share of the unique matches (\eqn{c = 1}) that
#'       are wrong; `NA` when no target has a unique match.}
#'     \item{`n_records`, `n_targets`, `known`, `unknown`, `sigma`}{the numbers
#'       of released records and targets, the variables, and the residual SD
#'       of the intruder's regression for each unknown variable.}
#'   }
#' @references Zhou Y, Dominici F, Louis TA (2010). Model-based estimation of
#'   disclosure risk and analysis validity for masked data.
#'   \emph{Annals of Applied Statistics} 4, 2126-2148.
#'   Reiter JP (2005). Estimating risks of identification disclosure in
#'   microdata. \emph{JASA} 100, 1103-1112.
#' @seealso [risk_identifiability()] for exact matching on keys.
#' @export
#' @examples
#' set.seed(1)
#' n <- 200
#' original <- data.frame(x = runif(n), y = rnorm(n))
#' # a kernel mask: each value replaced by a weighted average of its neighbours
#' w <- exp(-as.matrix(dist(original$x)) / 0.01)
#' masked <- as.data.frame((w / rowSums(w)) %*% as.matrix(original))
#' risk <- risk_match(original, masked, known = "x", unknown = "y", threads = 1)
#' risk
#' summary(risk)
#' head(as.data.frame(risk))
risk_match <- function(original, masked, known, unknown = NULL,
                       targets = NULL, threads = NULL) {
  check_data(original)
  check_data(masked)
  if (NROW(masked) != NROW(original))
    abort_length("masked", sprintf("have the same number of rows as `original` (%d), not %d",
                                   NROW(original), NROW(masked)))
  known <- check_columns(known, original, data_arg = "original")
  check_columns(known, masked, arg = "known", data_arg = "masked")
  unknown <- check_columns(unknown, original, data_arg = "original", allow_null = TRUE)
  if (!is.null(unknown))
    check_columns(unknown, masked, arg = "unknown", data_arg = "masked")
  known <- unique(known)
  unknown <- unique(unknown)
  both <- intersect(known, unknown)
  if (length(both))
    abort_value("unknown", sprintf("disjoint from `known`; both name %s",
                                   paste0("'", both, "'", collapse = ", ")))
  n <- NROW(masked)
  targets <- check_targets(targets, n)
  threads <- check_count(threads, allow_null = TRUE)

  masked_known <- numeric_columns(masked, known, "masked")
  masked_unknown <- if (length(unknown)) numeric_columns(masked, unknown, "masked") else
    matrix(0, n, 0L)
  target_known <- numeric_columns(original, known, "original")[targets, , drop = FALSE]

  intruder <- intruder_regression(masked_known, masked_unknown, target_known)
  res <- .Call(C_risk_match, masked_known, masked_unknown, intruder$sigma,
               intruder$range, targets - 1L, target_known, intruder$mean, threads)
  new_epimask_match(res, targets, n, known, unknown, intruder$sigma)
}

check_targets <- function(targets, n) {
  if (is.null(targets)) return(seq_len(n))
  if (is.logical(targets) || !is.numeric(targets) || is.object(targets))
    abort_type("targets", "a vector of row numbers")
  if (length(targets) == 0L) abort_empty("targets")
  if (anyNA(targets) || any(targets != round(targets)) || any(targets < 1) ||
      any(targets > n))
    abort_value("targets", sprintf("row numbers between 1 and %d", n))
  as.integer(targets)
}

# The columns `cols` of `data` as a double matrix; a classed error naming
# `arg` and the offending columns otherwise.
numeric_columns <- function(data, cols, arg) {
  x <- lapply(cols, function(col)
    if (is.data.frame(data)) data[[col]] else data[, col])
  names(x) <- cols
  bad <- !vapply(x, function(col) (is.numeric(col) || is.logical(col)) &&
                   !is.factor(col), logical(1))
  if (any(bad))
    abort_type(arg, sprintf("numeric in the columns used; %s %s not",
                            paste0("'", cols[bad], "'", collapse = ", "),
                            if (sum(bad) == 1L) "is" else "are"))
  all_na <- vapply(x, function(col) all(is.na(col)), logical(1))
  if (any(all_na))
    abort_value(arg, sprintf("observed; column(s) %s are all NA",
                             paste0("'", cols[all_na], "'", collapse = ", ")))
  some_na <- vapply(x, anyNA, logical(1))
  if (any(some_na))
    abort_value(arg, sprintf("free of NA in the columns used; %s %s NA",
                             paste0("'", cols[some_na], "'", collapse = ", "),
                             if (sum(some_na) == 1L) "has" else "have"))
  inf <- vapply(x, function(col) any(is.infinite(col)), logical(1))
  if (any(inf))
    abort_value(arg, sprintf("finite in the columns used; %s %s Inf",
                             paste0("'", cols[inf], "'", collapse = ", "),
                             if (sum(inf) == 1L) "has" else "have"))
  m <- matrix(as.double(unlist(x, use.names = FALSE)), ncol = length(cols))
  colnames(m) <- cols
  m
}

# What the intruder estimates from the released data: least squares of each
# unknown on the knowns (with intercept), aliased columns dropped by the
# pivoting QR; the predictive mean at each target's true known values, the
# residual SD sigma = sqrt(RSS / (n - q)) and the released range Delta^U.
intruder_regression <- function(masked_known, masked_unknown, target_known) {
  n_unknown <- ncol(masked_unknown)
  n_targets <- nrow(target_known)
  if (n_unknown == 0L)
    return(list(mean = matrix(0, n_targets, 0L), sigma = double(0),
                range = double(0)))
  n <- nrow(masked_known)
  design <- cbind(1, masked_known)
  fit <- tryCatch(qr(design), error = function(e) abort_intruder_overflow())
  q <- fit$rank
  if (n <= q)
    epimask_abort(sprintf(paste0(
      "The intruder's regression of `unknown` on `known` needs more records ",
      "than coefficients (n = %d, q = %d): sigma^2 = RSS / (n - q) is undefined."),
      n, q), "epimask_error_singular", arg = "masked")
  coef <- tryCatch(qr.coef(fit, masked_unknown), error = function(e) abort_intruder_overflow())
  coef <- matrix(coef, ncol = n_unknown)
  coef[is.na(coef)] <- 0
  resid <- tryCatch(qr.resid(fit, masked_unknown), error = function(e) abort_intruder_overflow())
  resid <- matrix(resid, ncol = n_unknown)
  sigma <- sqrt(colSums(resid^2) / (n - q))
  rng <- apply(masked_unknown, 2L, function(u) max(u) - min(u))
  mean <- cbind(1, target_known) %*% coef
  # values near the largest double overflow the squares and ranges; the match
  # probabilities would then be silently uniform
  if (!all(is.finite(sigma)) || !all(is.finite(rng)) || !all(is.finite(mean)))
    abort_intruder_overflow()
  list(mean = matrix(as.double(mean), n_targets, n_unknown),
       sigma = stats::setNames(as.double(sigma), colnames(masked_unknown)),
       range = as.double(rng))
}

abort_intruder_overflow <- function() {
  abort_value("masked", paste0("values small enough for the intruder's regression: ",
                               "its residual SD, range or predictions overflow (rescale the data)"))
}

new_epimask_match <- function(res, targets, n, known, unknown, sigma) {
  per_target <- data.frame(target = targets, prob_true = res$prob_true,
                           prob_max = res$prob_max, c = res$c, I = res$I)
  n_targets <- length(targets)
  expected <- sum(res$I / res$c)
  unique_match <- res$c == 1L
  structure(list(
    per_target = per_target,
    expected_match_risk = expected,
    percent_correct = 100 * expected / n_targets,
    true_match_rate = sum(unique_match & res$I == 1L) / n_targets,
    false_match_rate = if (any(unique_match))
      sum(unique_match & res$I == 0L) / sum(unique_match) else NA_real_,
    n_records = n, n_targets = n_targets, known = known,
    unknown = if (is.null(unknown)) character(0) else unknown,
    sigma = sigma
  ), class = "epimask_match")
}

#' @export
format.epimask_match <- function(x, digits = 3, ...) {
  sprintf("%s%% expected correct matches (%d of %d targets; known: %s; unknown: %s)",
          format(signif(x$percent_correct, digits)), x$n_targets, x$n_records,
          paste(x$known, collapse = ", "),
          if (length(x$unknown)) paste(x$unknown, collapse = ", ") else "none")
}

#' @export
print.epimask_match <- function(x, digits = 3, ...) {
  cat("Record-matching disclosure risk (Zhou et al. 2010, after Reiter 2005)\n")
  print(summary(x), digits = digits, header = FALSE, ...)
  invisible(x)
}

#' Summaries of the record-matching risk
#'
#' @param object,x An `epimask_match` object from [risk_match()], or its summary.
#' @param digits Significant digits to print.
#' @param header Print the title line.
#' @param row.names,optional Passed on to [as.data.frame()] conventions; unused.
#' @param ... Unused.
#' @return `summary()` returns an object of class `summary.epimask_match`: the
#'   scores and `ties`, a data frame counting the targets by the number of
#'   records that share the largest matching probability (`c`), with how many
#'   of them contain the true record. `as.data.frame()` returns the
#'   per-target table.
#' @name epimask_match-methods
#' @examples
#' set.seed(2)
#' original <- data.frame(x = rnorm(100), y = rnorm(100))
#' masked <- original + rnorm(200, sd = 0.3)
#' summary(risk_match(original, masked, "x", "y", threads = 1))
NULL

#' @rdname epimask_match-methods
#' @export
summary.epimask_match <- function(object, ...) {
  pt <- object$per_target
  levels_c <- sort(unique(pt$c))
  ties <- data.frame(
    c = levels_c,
    targets = as.vector(table(factor(pt$c, levels = levels_c))),
    correct = as.vector(tapply(pt$I, factor(pt$c, levels = levels_c), sum)),
    row.names = NULL)
  ties$expected_correct <- ties$correct / ties$c
  structure(list(
    ties = ties, n_records = object$n_records, n_targets = object$n_targets,
    known = object$known, unknown = object$unknown, sigma = object$sigma,
    expected_match_risk = object$expected_match_risk,
    percent_correct = object$percent_correct,
    true_match_rate = object$true_match_rate,
    false_match_rate = object$false_match_rate,
    mean_prob_true = mean(pt$prob_true)
  ), class = "summary.epimask_match")
}

#' @rdname epimask_match-methods
#' @export
print.summary.epimask_match <- function(x, digits = 3, header = TRUE, ...) {
  if (header) cat("Record-matching disclosure risk: summary\n")
  fmt <- function(v) format(signif(v, digits))
  cat(sprintf("  Known: %s\n", paste(x$known, collapse = ", ")))
  if (length(x$unknown)) {
    cat(sprintf("  Unknown: %s (intruder's regression on the known, residual SD %s)\n",
                paste(x$unknown, collapse = ", "),
                paste(fmt(x$sigma), collapse = ", ")))
  } else {
    cat("  Unknown: none\n")
  }
  cat(sprintf("  Targets: %d; released records (candidates): %d\n\n",
              x$n_targets, x$n_records))
  ties <- x$ties
  shown <- ties[seq_len(min(nrow(ties), 5L)), , drop = FALSE]
  tab <- data.frame(
    "Records at top probability (c)" = as.character(shown$c),
    "Targets" = shown$targets,
    "True record among them" = shown$correct,
    "Expected correct" = fmt(shown$expected_correct),
    check.names = FALSE)
  if (nrow(ties) > 5L) {
    rest <- ties[-seq_len(5L), , drop = FALSE]
    tab <- rbind(tab, data.frame(
      "Records at top probability (c)" = sprintf("%d-%d", min(rest$c), max(rest$c)),
      "Targets" = sum(rest$targets), "True record among them" = sum(rest$correct),
      "Expected correct" = fmt(sum(rest$expected_correct)), check.names = FALSE))
  }
  print(tab, row.names = FALSE, right = TRUE)
  cat(sprintf("\n  Expected match risk: %s correct matches of %d (%s%%)\n",
              fmt(x$expected_match_risk), x$n_targets, fmt(x$percent_correct)))
  cat(sprintf("  True match rate: %s; false match rate: %s\n",
              fmt(x$true_match_rate),
              if (is.na(x$false_match_rate)) "NA (no unique match)" else
                fmt(x$false_match_rate)))
  cat(sprintf("  Mean probability of the true record: %s\n", fmt(x$mean_prob_true)))
  invisible(x)
}

#' @rdname epimask_match-methods
#' @export
as.data.frame.epimask_match <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$per_target
}
