# Log-linear (model-based) disclosure risk of a sample (methods vignette section 22): Skinner &
# Shlomo's tau1 and tau2 from a Poisson log-linear model of the key table over
# every combination of the observed key values, fitted by the package's IRLS
# (irls_fit, in C) or by iterative proportional fitting.

#' Log-linear disclosure risk of a sample (Skinner & Shlomo)
#'
#' The sample's key table (every combination of the observed values of the
#' `keys`, empty cells included) is modelled as Poisson counts \eqn{f_k} with
#' a log-linear model of the keys (main effects by default, or `formula` for
#' interactions), fitted counts \eqn{\mu_k}. On the population scale the
#' rate is \eqn{\lambda_k = \mu_k / \pi_k} (\eqn{\pi_k = f_k / W_k} from the
#' weights, or the sampling fraction `pi`), and the unseen population count
#' \eqn{F_k - f_k} is Poisson with mean \eqn{v_k = (1 - \pi_k)\lambda_k}.
#' Then, summed over the sample uniques (\eqn{f_k = 1}),
#' \deqn{\tau_1 = \sum_{f_k = 1} e^{-v_k}}{tau1 = sum exp(-v_k)}
#' is the expected number of sample uniques that are population unique, and
#' \deqn{\tau_2 = \sum_{f_k = 1} (1 - e^{-v_k}) / v_k}{tau2 = sum (1 -
#'   exp(-v_k)) / v_k}
#' the expected number of correct matches of sample uniques.
#'
#' Methods (named as in sdcMicro's `modRisk()`): `"default"` fits the counts
#' \eqn{f_k}; `"CE"` (Clogg & Eliason) adds the offset \eqn{\log(f_k / W_k +
#' 0.1)} (\eqn{\log 0.1} in empty cells); `"PML"` (pseudo maximum
#' likelihood) fits the rounded weighted counts \eqn{round(W_k n / \sum W)};
#' `"IPF"` fits the same model as `"default"` by iterative proportional
#' fitting of the formula's margins (hierarchical models only). All but IPF
#' use [irls_fit()].
#'
#' `scale = "sdcmicro"` reproduces sdcMicro's numbers: it uses the
#' sample-scale fitted counts \eqn{\mu_k} as \eqn{\lambda_k}, \eqn{\pi_k =
#' \sum_{i \in k} 1 / w_i}, and divides both sums by the number of cells with
#' \eqn{0 < f_k \le} `bound` (leaving out cells fitted 0). Skinner & Shlomo
#' (2008) use the population scale; on sdcMicro's scale the "expected number
#' of population uniques" of a 1% sample comes out near the number of sample
#' uniques divided by the number of cells, which is not a count of anything.
#' Two more differences from `modRisk()`: its \eqn{\pi_k} exceeds 1 in cells
#' with more records than their weight, where its \eqn{e^{-v_k}} overflows
#' and its sums become NaN (here such cells enter no sum; `bound` below the
#' weight avoids it there); and its `glm()` takes numeric key columns as
#' covariates, where here every key is a category (give sdcMicro factors).
#'
#' Assumptions: the records are a (Poisson or Bernoulli) sample with known
#' inclusion probabilities; the key table follows the log-linear model. Main
#' effects alone underfit keys that are associated (age and marital status),
#' which understates the risk of rare combinations; add the interactions the
#' data support (Skinner & Shlomo select the model by a goodness-of-fit
#' criterion on the sample uniques). A margin with zero count drives fitted
#' counts to 0 (the maximum likelihood estimate is on the boundary).
#'
#' @param data A data frame (tibble and data.table accepted) or a matrix.
#' @param keys Character vector: the key columns (`NA` is a category).
#' @param weights `NULL`, the name of a column of `data`, or a numeric vector:
#'   sampling weights (inverse inclusion probabilities), each finite and
#'   \eqn{\ge 1}.
#' @param formula `NULL` (main effects of `keys`) or a one-sided formula in
#'   the keys, e.g. `~ age * sex + region`.
#' @param method `"default"`, `"CE"`, `"PML"` or `"IPF"`.
#' @param pi Without `weights`: the sampling fraction in (0, 1] (default 1, a
#'   census, where every sample unique is a population unique).
#' @param scale `"population"` (Skinner & Shlomo, default) or `"sdcmicro"`.
#' @param bound With `scale = "sdcmicro"`: cells with counts above `bound` are
#'   left out of the denominator, as sdcMicro's `bound`.
#' @param max_cells The largest key table fitted (the cells are the product of
#'   the numbers of distinct values of the keys).
#' @param id `NULL` (one record per person) or the name of the person column
#'   when a person has several records: the persons are the unit, a person's
#'   key being the set of their records' key tuples (as in [risk_kanon()]);
#'   `weights` must be equal on a person's records.
#' @return An object of class `epimask_loglinear`: `tau1`, `tau2`, their
#'   shares of the records (`tau1 / n`, `tau2 / n`; on the sdcMicro scale the
#'   sums themselves), `per_record` (a data frame: `cell`, `f`, `unique_prob`
#'   \eqn{P(F = 1 \mid f)}, `match_prob` \eqn{E(1/F \mid f)}, the risk of a
#'   correct match by an intruder who knows the keys, in row order),
#'   `cells` (the key table: key values, `f`, `W`, `mu`, `lambda`, `v`),
#'   `fit` (coefficients, deviance, `converged`, `iter`), and `n`,
#'   `sample_uniques`, `method`, `scale`, `formula`, `keys`, `weighted`.
#'   With `id`, the model is fitted to the persons' key table (one row per
#'   person), `n` and the shares count persons, `per_record` gives each
#'   record its person's risks, and `unit` is `"persons"` with `id`,
#'   `n_persons`, `n_records`.
#' @references Skinner CJ, Shlomo N (2008). Assessing identification risk in
#'   survey microdata using log-linear models. J Am Stat Assoc
#'   103(483):989-1001. Templ M, Kowarik A, Meindl B (2015). Statistical
#'   disclosure control for micro-data using the R package sdcMicro. J Stat
#'   Softw 67(4) (R/modRisk.R).
#' @family risk measures
#' @seealso [risk_population()] for population uniqueness from the class-size
#'   histogram, [risk_individual()].
#' @examples
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' r <- risk_loglinear(d, c("city", "sex", "age10"), pi = 0.05)
#' r
#' summary(r)
#' head(as.data.frame(r))
#' @export
risk_loglinear <- function(data, keys, weights = NULL, formula = NULL,
                           method = c("default", "CE", "PML", "IPF"), pi = NULL,
                           scale = c("population", "sdcmicro"), bound = Inf,
                           max_cells = 1e7, id = NULL) {
  data <- check_key_data(data, "data")
  keys <- check_columns(keys, data)
  id <- check_person_id(id, data, exclude = c(keys, if (is.character(weights)) weights))
  if (!is.null(id)) {
    # persons are the unit (methods vignette section 23): one row each, one
    # weight each; every record carries its person's risks
    p <- person_frame(data, keys, id)
    w <- person_weights(check_loglinear_weights(weights, data), p)
    res <- risk_loglinear(p$data, keys, weights = w, formula = formula, method = method, pi = pi,
                          scale = scale, bound = bound, max_cells = max_cells)
    res$per_record <- res$per_record[p$person, , drop = FALSE]
    rownames(res$per_record) <- NULL
    return(person_result(res, p, data = data))
  }
  method <- check_choice(method, c("default", "CE", "PML", "IPF"), arg = "method")
  scale <- check_choice(scale, c("population", "sdcmicro"), arg = "scale")
  if (!identical(bound, Inf)) bound <- check_number(bound, "bound", lower = 0, lower_open = TRUE)
  max_cells <- check_number(max_cells, "max_cells", lower = 1)
  w <- check_loglinear_weights(weights, data)
  if (!is.null(w) && !is.null(pi))
    abort_value("pi", "NULL when `weights` are given (the weights give the inclusion probabilities)")
  pi <- if (is.null(pi)) 1 else check_sampling_fraction(pi)
  n <- nrow(data)
  if (is.null(w)) w <- rep.int(1 / pi, n)
  if (method %in% c("CE", "PML") && is.null(weights))
    abort_value("weights", sprintf("given for method \"%s\" (it uses the weighted counts)", method))
  # the key table: every combination of the observed values
  vals <- lapply(keys, function(k) {
    v <- key_values(data[[k]])
    u <- unique(v)
    u <- u[order(is.na(u), u)]
    list(code = match(v, u), values = u)
  })
  nlev <- vapply(vals, function(v) length(v$values), 1)
  n_cells <- prod(nlev)
  if (n_cells > max_cells)
    epimask_abort(sprintf("The key table has %s cells (the product of the numbers of distinct key values), more than `max_cells` = %s; group the keys or raise `max_cells`.",
                          format(n_cells), format(max_cells)),
                  c("epimask_error_size", "epimask_error_value"), arg = "keys")
  stride <- cumprod(c(1, nlev[-length(nlev)]))
  cell <- rep.int(1, n)
  for (i in seq_along(keys)) cell <- cell + (vals[[i]]$code - 1) * stride[[i]]
  cell <- as.integer(cell)
  f <- tabulate(cell, n_cells)
  W <- group_sums(w, cell, n_cells)
  inv <- group_sums(1 / w, cell, n_cells)
  grid <- lapply(seq_along(keys), function(i) {
    idx <- ((seq_len(n_cells) - 1) %/% stride[[i]]) %% nlev[[i]] + 1
    factor(idx, levels = seq_len(nlev[[i]]))
  })
  names(grid) <- keys
  grid <- as.data.frame(grid, optional = TRUE)
  names(grid) <- keys
  formula <- loglinear_formula(formula, keys, nlev)
  # response and offset
  y <- as.double(f)
  offset <- NULL
  if (method == "CE") {
    ec <- ifelse(W > 0, f / W, 0)
    offset <- log(ec + 0.1)
  }
  if (method == "PML") y <- round(W * n / sum(W))
  if (method == "IPF") {
    fit <- ipf_fit(grid, y, formula)
  } else {
    p_cols <- ncol(stats::model.matrix(formula, grid[1L, , drop = FALSE]))
    if (n_cells * p_cols > 5e7)
      epimask_abort(sprintf("The design of the log-linear model would have %s cells x %d columns (over 5e7 numbers); group the keys, use fewer interactions or method = \"IPF\".",
                            format(n_cells), p_cols),
                    c("epimask_error_size", "epimask_error_value"), arg = "keys")
    X <- stats::model.matrix(formula, grid)
    irls <- irls_fit(X, y, family = stats::poisson(), offset = offset)
    fit <- list(mu = as.double(irls$fitted.values), coefficients = irls$coefficients,
                deviance = irls$deviance, converged = irls$converged, iter = irls$iter,
                boundary = isTRUE(irls$boundary))
  }
  mu <- fit$mu
  if (!isTRUE(fit$converged))
    epimask_warn(sprintf("The log-linear model did not converge (%s); tau1 and tau2 are from its last iterate.",
                         method), "epimask_warning_convergence")
  # empty cells: the overall fraction (they enter no sum; shown in $cells)
  pik <- ifelse(W > 0, f / W, n / sum(w))
  if (scale == "population") {
    lambda <- mu / pik
    p <- pik
  } else {
    lambda <- mu
    p <- inv
  }
  v <- (1 - p) * lambda
  v[v < 0] <- 0
  r1 <- ifelse(f == 1, exp(-v), 0)
  r2 <- match_prob_poisson(f, v)
  uniq <- f == 1
  if (scale == "population") {
    tau1 <- sum(r1[uniq])
    tau2 <- sum(r2[uniq])
  } else {
    keep <- f > 0 & f <= bound & !(mu == 0 & f > 0)
    tau1 <- sum(r1[uniq & keep]) / sum(keep)
    tau2 <- sum(r2[uniq & keep]) / sum(keep)
  }
  cells <- lapply(seq_along(keys), function(i) vals[[i]]$values[as.integer(grid[[i]])])
  names(cells) <- keys
  cells <- as.data.frame(cells, stringsAsFactors = FALSE, optional = TRUE)
  names(cells) <- keys
  cells$f <- f
  cells$W <- W
  cells$mu <- mu
  cells$lambda <- lambda
  cells$v <- v
  per_record <- data.frame(cell = cell, f = f[cell], unique_prob = r1[cell], match_prob = r2[cell])
  structure(list(
    tau1 = tau1, tau2 = tau2,
    tau1_share = if (scale == "population") tau1 / n else tau1,
    tau2_share = if (scale == "population") tau2 / n else tau2,
    per_record = per_record, cells = cells,
    fit = fit[c("coefficients", "deviance", "converged", "iter")],
    n = n, n_cells = n_cells, sample_uniques = sum(uniq), method = method, scale = scale,
    formula = formula, keys = keys, weighted = !is.null(weights), pi = if (is.null(weights)) pi else NA_real_,
    record_ids = record_ids(data)
  ), class = "epimask_loglinear")
}

# Weights of risk_loglinear(): positive is not enough (inclusion
# probabilities are at most 1), as for risk_individual().
check_loglinear_weights <- function(weights, data) {
  if (is.null(weights)) return(NULL)
  if (is.numeric(weights) && length(weights) && !anyNA(weights) && any(weights <= 0))
    epimask_abort("`weights` must be positive sampling weights (inverse inclusion probabilities, each >= 1).",
                  c("epimask_error_weights", "epimask_error_value"), arg = "weights")
  check_sampling_weights(weights, data)
}

loglinear_formula <- function(formula, keys, nlev) {
  if (is.null(formula)) {
    # a key with one value adds nothing to the model (and has no contrasts)
    vary <- keys[nlev > 1]
    rhs <- if (length(vary)) paste(sprintf("`%s`", vary), collapse = " + ") else "1"
    return(stats::as.formula(paste("~", rhs), env = baseenv()))
  }
  if (!inherits(formula, "formula") || length(formula) != 2L)
    abort_type("formula", "a one-sided formula in the keys, e.g. ~ a * b + c")
  vars <- all.vars(formula)
  bad <- setdiff(vars, keys)
  if (length(bad))
    abort_value("formula", sprintf("a formula in the keys only (not %s)", paste(bad, collapse = ", ")))
  one <- intersect(vars, keys[nlev < 2])
  if (length(one))
    abort_value("formula", sprintf("a formula in keys with two or more values (%s has one)",
                                   paste(one, collapse = ", ")))
  formula
}

# Iterative proportional fitting of a hierarchical log-linear model: the
# fitted table matches the observed margins of every term of the formula.
ipf_fit <- function(grid, y, formula, tol = 1e-10, max_iter = 1000L) {
  tl <- attr(stats::terms(formula), "term.labels")
  fac <- attr(stats::terms(formula), "factors")
  margins <- lapply(tl, function(t) {
    vars <- rownames(fac)[fac[, t] > 0]
    vars <- gsub("^`|`$", "", vars)
    id <- interaction(grid[vars], drop = TRUE, lex.order = FALSE)
    as.integer(id)
  })
  if (!length(margins)) margins <- list(rep.int(1L, length(y)))
  mu <- rep.int(sum(y) / length(y), length(y))
  converged <- FALSE
  for (iter in seq_len(max_iter)) {
    worst <- 0
    for (id in margins) {
      obs <- tabulate_sum(y, id)
      fit <- tabulate_sum(mu, id)
      worst <- max(worst, abs(obs - fit))
      ratio <- ifelse(fit > 0, obs / fit, 0)
      mu <- mu * ratio[id]
    }
    if (worst <= tol * max(1, sum(y))) {
      converged <- TRUE
      break
    }
  }
  dev <- 2 * sum(ifelse(y > 0, y * log(y / mu), 0) - (y - mu))
  list(mu = mu, coefficients = NULL, deviance = dev, converged = converged, iter = iter)
}

tabulate_sum <- function(x, id) {
  out <- numeric(max(id))
  s <- rowsum(x, id, reorder = TRUE)
  out[as.integer(rownames(s))] <- s[, 1L]
  out
}

# E(1 / F | f) when F - f is Poisson(v), in C (src/loglinear.c), for the
# cells with records; 0 for empty cells.
match_prob_poisson <- function(f, v) {
  out <- numeric(length(f))
  seen <- f > 0
  if (any(seen))
    out[seen] <- call_c(C_loglinear_match, list(f = as.double(f[seen]), v = as.double(v[seen])),
                        arg = "cells")
  out
}

#' @rdname risk_loglinear
#' @param x,object An `epimask_loglinear` object.
#' @param digits Significant digits shown.
#' @param ... Passed on to [graphics::hist()] by `plot()`; unused otherwise.
#' @details `summary()` lists the riskiest sample-unique cells; `plot()` draws
#'   the distribution of \eqn{P(F = 1 \mid f = 1)} over the sample uniques.
#' @export
print.epimask_loglinear <- function(x, digits = 4, ...) print_formatted(x, digits = digits)

#' @rdname risk_loglinear
#' @export
format.epimask_loglinear <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)
  fmt <- function(v) format(signif(v, digits))
  c(sprintf("log-linear risk (Skinner & Shlomo): %s, keys %s", unit_count(x), paste(x$keys, collapse = ", ")),
    sprintf("  model %s, method %s, %s cells; %s", paste(deparse(x$formula), collapse = ""), x$method,
            format(x$n_cells),
            if (x$weighted) "sampling weights" else sprintf("sampling fraction %s", format(x$pi))),
    sprintf("  %d sample uniques; scale %s%s", x$sample_uniques, x$scale,
            if (x$scale == "sdcmicro") " (sdcMicro's: sums divided by the number of cells)" else ""),
    sprintf("  tau1 (expected sample uniques that are population unique) %s", fmt(x$tau1)),
    sprintf("  tau2 (expected correct matches of sample uniques) %s", fmt(x$tau2)),
    if (!isTRUE(x$fit$converged)) "  the model did not converge")
}

#' @rdname risk_loglinear
#' @export
summary.epimask_loglinear <- function(object, ...) {
  cells <- object$cells[object$cells$f == 1, , drop = FALSE]
  cells$unique_prob <- exp(-cells$v)
  top <- utils::head(cells[order(-cells$unique_prob), , drop = FALSE], 10L)
  rownames(top) <- NULL
  structure(list(loglinear = object, riskiest = top), class = "summary.epimask_loglinear")
}

#' @rdname risk_loglinear
#' @export
format.summary.epimask_loglinear <- function(x, digits = 4, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    print(x$loglinear, digits = digits)
    print_titled_table("Sample-unique cells most likely population unique:", x$riskiest, digits,
                       c("W", "mu", "lambda", "v", "unique_prob"))
  })
}

#' @export
print.summary.epimask_loglinear <- function(x, ...) print_formatted(x, ...)

#' @rdname risk_loglinear
#' @param row.names,optional As in [as.data.frame()].
#' @export
as.data.frame.epimask_loglinear <- function(x, row.names = NULL, optional = FALSE, ...) {
  ids <- if (is.null(x$record_ids)) seq_len(nrow(x$per_record)) else x$record_ids
  out <- add_person_column(cbind(data.frame(ID = ids, stringsAsFactors = FALSE), x$per_record), x)
  apply_row_names(out, row.names, optional)
}

#' @rdname risk_loglinear
#' @param y Unused.
#' @export
plot.epimask_loglinear <- function(x, y = NULL, ...) {
  u <- x$cells$f == 1
  p <- exp(-x$cells$v[u])
  if (!length(p)) p <- numeric()
  graphics::hist(p, breaks = seq(0, 1, by = 0.05), col = "grey60",
                 xlab = "P(population unique | sample unique)", ylab = "sample uniques",
                 main = sprintf("Log-linear risk: tau1 = %s of %d sample uniques",
                                format(signif(x$tau1, 3)), x$sample_uniques), ...)
  invisible(x)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_loglinear
#' @export
tidy.epimask_loglinear <- function(x, ...) as.data.frame(x$cells, stringsAsFactors = FALSE)

#' @rdname epimask-tidiers
#' @method glance epimask_loglinear
#' @export
glance.epimask_loglinear <- function(x, ...) {
  data.frame(tau1 = x$tau1, tau2 = x$tau2, n = x$n, sample_uniques = x$sample_uniques,
             cells = x$n_cells, method = x$method, scale = x$scale,
             converged = isTRUE(x$fit$converged), stringsAsFactors = FALSE)
}
