# Individual re-identification risk of sample records (methods vignette section 13): the
# Benedetti-Franconi risk E(1 / F | f) of each key pattern under the
# negative-binomial posterior of its population count, evaluated in C
# (src/individual.c) to near machine precision for every class size.

#' Individual re-identification risk under sampling
#'
#' When the data are a sample of a population, with sampling weights
#' \eqn{w_i} (inverse inclusion probabilities, each \eqn{\ge 1}), a record
#' whose key pattern occurs \eqn{f} times in the sample stands for an unknown
#' number \eqn{F \ge f} of people in the population. Benedetti & Franconi
#' (1998) take \eqn{F - f} negative binomial given \eqn{f}, with success
#' probability \eqn{p = f / \hat F}, \eqn{\hat F} the sum of the weights in the
#' pattern, and measure the risk of the record as the probability that an
#' intruder who matches it to one of the \eqn{F} people picks the right one:
#' \deqn{r = E(1/F \mid f) = \sum_{h \ge f} \frac{1}{h} \binom{h-1}{f-1}
#'   p^f (1-p)^{h-f} = \int_0^1 \frac{p^f t^{f-1}}{(1 - (1-p) t)^f} dt}{r =
#'   E(1/F | f) = sum_{h >= f} (1/h) C(h-1, f-1) p^f (1-p)^(h-f)}
#' (\eqn{f = 1}: \eqn{\frac{p}{1-p} \log(1/p)}; \eqn{p = 1}: \eqn{1/f}).
#' It is evaluated to about 1e-15 relative for every \eqn{f} (a recurrence in
#' \eqn{f} for \eqn{p < 1/3}, a positive series otherwise); sdcMicro's
#' `measure_risk()` uses the approximation \eqn{p / (f - (1 - p))} for
#' \eqn{f \ge 3}, which is close but not equal.
#'
#' The expected number of re-identifications is \eqn{ER = \sum_i r_i} and the
#' global risk \eqn{ER / n}. Without `weights` the data are the whole
#' population (a census): \eqn{\hat F = f} and \eqn{r = 1/f}, the prosecutor
#' risk of [risk_kanon()].
#'
#' `NA` in a key is a category of its own.
#'
#' With `cluster` (households, families, care homes, a patient's several
#' records), identifying one member identifies the others: the cluster's risk
#' is \eqn{r_h = 1 - \prod_{i \in h} (1 - r_i)} over its members' individual
#' risks, given to every member (as sdcMicro's household risk). It assumes the
#' members' identifications are independent events, which overstates the
#' risk of members who share all their keys and understates it where the
#' cluster itself is a key (a household of unusual size). The expected number
#' of re-identifications is then \eqn{\sum_i r_{h(i)}} and its share of the
#' records the cluster global risk.
#'
#' @param data A data frame (tibble and data.table accepted) or a matrix.
#' @param keys Character vector: the quasi-identifier columns.
#' @param weights `NULL`, the name of a column of `data`, or a numeric vector
#'   of length `nrow(data)`: the sampling weights, each finite and \eqn{\ge 1}.
#' @param cluster `NULL`, the name of a column of `data`, or a vector of
#'   length `nrow(data)` naming each record's cluster (no `NA`).
#' @param id `NULL` (one record per person) or the name of the person column
#'   when a person has several records: the risk is then of persons, a
#'   person's key being the set of their records' key tuples (as in
#'   [risk_kanon()]); `n`, `expected` and `global` count persons, `weights`
#'   must be equal on a person's records, and `per_record` repeats the
#'   person's risk on each of their records.
#' @return An object of class `epimask_individual`, a list with
#'   \item{per_record}{the risk \eqn{r} of each record, in row order.}
#'   \item{expected}{\eqn{ER}, the expected number of re-identifications.}
#'   \item{global}{\eqn{ER / n}.}
#'   \item{classes}{one row per key pattern (order of first appearance): the
#'     key values, `f`, `F_hat` and `risk`.}
#'   and `group` (the pattern of each record), `keys`, `n`, `weighted`. With
#'   `cluster`: `cluster_risk` (\eqn{r_h} of each record's cluster, in row
#'   order), `cluster_expected` (\eqn{\sum_i r_{h(i)}}), `cluster_global`
#'   (that over n), `n_clusters`.
#' @references Benedetti R, Franconi L (1998). Statistical and technological
#'   solutions for controlled data dissemination. Pre-proceedings of New
#'   Techniques and Technologies for Statistics, 225-232. Templ M, Kowarik A,
#'   Meindl B (2015). Statistical disclosure control for micro-data using the
#'   R package sdcMicro. J Stat Softw 67(4).
#' @family risk measures
#' @seealso [risk_kanon()] for the prosecutor, journalist and marketer risks.
#' @examples
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' # the cohort as a 1-in-20 sample of a population
#' r <- risk_individual(d, keys = c("city", "sex", "age10"), weights = rep(20, nrow(d)))
#' r
#' summary(r)
#' plot(r)
#' # families of three: the cluster risk of each member
#' rc <- risk_individual(d, keys = c("city", "sex", "age10"), weights = rep(20, nrow(d)),
#'                       cluster = (seq_len(nrow(d)) - 1) %/% 3)
#' rc
#' @export
risk_individual <- function(data, keys, weights = NULL, cluster = NULL, id = NULL) {
  data <- check_key_data(data, "data")
  keys <- check_columns(keys, data)
  id <- check_person_id(id, data, exclude = keys)
  if (!is.null(id)) {
    if (!is.null(cluster))
      abort_value("cluster", "NULL when `id` is given (cluster risk of persons is not offered yet)")
    p <- person_frame(data, keys, id)
    w <- person_weights(check_sampling_weights(weights, data), p)
    res <- risk_individual(p$data, keys, weights = w)
    return(person_result(res, p, c("per_record", "group"), data))
  }
  clash <- intersect(keys, c("f", "F_hat", "risk"))
  if (length(clash))
    abort_value("keys", sprintf("key columns not named %s (names used by the class table)",
                                paste0("'", clash, "'", collapse = ", ")))
  w <- check_sampling_weights(weights, data)
  cl <- check_cluster(cluster, data)
  ec <- key_groups(data, keys)
  n_classes <- length(ec$size)
  f <- as.double(ec$size)
  F_hat <- if (is.null(w)) f else pmax(group_sums(w, ec$group, n_classes), f)
  risk <- call_c(C_individual_risk, list(f = f, F_hat = F_hat), arg = "classes")
  classes <- ec_table(data, keys, ec)
  classes$size <- NULL
  classes$f <- ec$size
  classes$F_hat <- F_hat
  classes$risk <- risk
  per_record <- risk[ec$group]
  expected <- sum(per_record)
  out <- list(
    per_record = per_record, expected = expected, global = expected / nrow(data),
    classes = classes, group = ec$group, keys = keys, n = nrow(data),
    weighted = !is.null(w), record_ids = record_ids(data)
  )
  if (!is.null(cl)) {
    out$cluster_risk <- cluster_member_risk(per_record, cl)
    out$cluster_expected <- sum(out$cluster_risk)
    out$cluster_global <- out$cluster_expected / nrow(data)
    out$n_clusters <- length(unique(cl))
  }
  structure(out, class = "epimask_individual")
}

# Cluster ids of risk_individual(): a column name or a vector, no NA.
check_cluster <- function(cluster, data) {
  if (is.null(cluster)) return(NULL)
  if (is.character(cluster) && length(cluster) == 1L && nrow(data) != 1L) {
    check_columns(cluster, data, "cluster")
    cluster <- data[[cluster]]
  }
  if (is.list(cluster) || !is.atomic(cluster) || length(cluster) != nrow(data))
    abort_type("cluster", sprintf("a column name or a vector of length nrow(data) = %d", nrow(data)))
  if (anyNA(cluster))
    epimask_abort(sprintf("`cluster` must name a cluster for every record; %d %s NA.", sum(is.na(cluster)),
                          if (sum(is.na(cluster)) == 1L) "is" else "are"),
                  c("epimask_error_missing", "epimask_error_value"), arg = "cluster")
  key_values(cluster)
}

# r_h = 1 - prod(1 - r_i) over the members of each cluster, per record
# (summed on the log scale: no underflow for large clusters).
cluster_member_risk <- function(r, cluster) {
  id <- match(cluster, unique(cluster))
  logsurv <- group_sums(log1p(-pmin(r, 1)), id, max(id))
  -expm1(logsurv)[id]
}

#' @rdname risk_individual
#' @param x,object An `epimask_individual` object.
#' @param digits Significant digits shown.
#' @param ... Passed on to [graphics::hist()] by `plot()`; unused otherwise.
#' @details `summary()` counts the records above common thresholds of the
#'   individual risk (1/3, 1/5, 1/11, 1/20, as for k-anonymity) and lists the
#'   riskiest patterns; `plot()` draws the distribution of the risk over the
#'   records.
#' @export
print.epimask_individual <- function(x, digits = 3, ...) print_formatted(x, digits = digits)

#' @rdname risk_individual
#' @export
format.epimask_individual <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  fmt <- function(v) format(signif(v, digits))
  c(sprintf("individual risk: %s, keys %s, %s", unit_count(x), paste(x$keys, collapse = ", "),
            if (x$weighted) "sampling weights" else "no weights (census: risk 1/f)"),
    sprintf("  %d key patterns, %d sample uniques", nrow(x$classes), sum(x$classes$f == 1L)),
    sprintf("  expected re-identifications %s; global risk %s; highest %s risk %s",
            fmt(x$expected), fmt(x$global),
            if (identical(x$unit, "persons")) "person" else "record", fmt(max(x$per_record))),
    if (!is.null(x$cluster_risk))
      sprintf("  %d clusters: expected re-identifications %s (share %s); highest cluster risk %s",
              x$n_clusters, fmt(x$cluster_expected), fmt(x$cluster_global), fmt(max(x$cluster_risk))))
}

#' @rdname risk_individual
#' @param row.names,optional Ignored (the IDs are a column).
#' @export
as.data.frame.epimask_individual <- function(x, row.names = NULL, optional = FALSE, ...) {
  ids <- if (is.null(x$record_ids)) seq_along(x$group) else x$record_ids
  out <- x$classes[x$group, c(x$keys, "f", "F_hat"), drop = FALSE]
  out <- cbind(data.frame(ID = ids, stringsAsFactors = FALSE), out)
  out <- add_person_column(out, x)
  out$risk <- x$per_record
  if (!is.null(x$cluster_risk)) out$cluster_risk <- x$cluster_risk
  rownames(out) <- NULL
  out
}

#' @rdname risk_individual
#' @export
summary.epimask_individual <- function(object, ...) {
  cells <- c(3L, 5L, 11L, 20L)
  thresholds <- data.frame(threshold = 1 / cells,
                           records_above = vapply(1 / cells, function(t) sum(object$per_record > t), 1L))
  cls <- object$classes
  top <- utils::head(cls[order(-cls$risk, cls$f), , drop = FALSE], 10L)
  rownames(top) <- NULL
  structure(list(individual = object, thresholds = thresholds, riskiest = top),
            class = "summary.epimask_individual")
}

#' @rdname risk_individual
#' @export
format.summary.epimask_individual <- function(x, digits = 3, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    print(x$individual, digits = digits)
    print_titled_table("Records above common thresholds:", x$thresholds, digits, "threshold")
    print_titled_table("Riskiest key patterns:", x$riskiest, digits, c("F_hat", "risk"))
  })
}

#' @export
print.summary.epimask_individual <- function(x, ...) print_formatted(x, ...)

#' @rdname risk_individual
#' @param y Unused.
#' @param threshold Risk threshold drawn as a vertical line.
#' @export
plot.epimask_individual <- function(x, y = NULL, threshold = 1 / 5, ...) {
  threshold <- check_number(threshold, lower = 0, upper = 1)
  h <- graphics::hist(x$per_record, breaks = seq(0, 1, by = 0.02), col = "grey60",
                      border = "white", xlab = "individual risk E(1/F | f)",
                      ylab = "records", main = "Individual re-identification risk", ...)
  graphics::abline(v = threshold, col = "firebrick", lwd = 2)
  invisible(h)
}
