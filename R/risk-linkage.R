# Distance-based record linkage (methods vignette section 18): each original record linked to
# its nearest released record. The variables are transformed here so that
# the distance is Euclidean; the exact nearest-neighbour search (k-d tree, or
# the exhaustive reference loop) is in C (src/linkage.c).

#' Distance-based record linkage risk
#'
#' The intruder holds the original values of `known` for every record and
#' links each original record to the released record nearest to it
#' (Pagliuca & Seri 1999; Domingo-Ferrer & Torra 2001). Record \eqn{i} is
#' re-linked with weight \eqn{1/t_i} when its own released record is among
#' the \eqn{t_i} released records at the minimum distance (ties within a
#' relative \eqn{10^{-12}}), else 0; the linkage risk is the mean weight
#' \eqn{(1/n) \sum_i w_i}. Unlike exact matching ([risk_identifiability()])
#' it sees noise, interval means, microaggregation and kernels: a release
#' whose records stay nearest their own originals is re-linked however much
#' the values moved.
#'
#' Distances: `"euclidean"` on the variables standardised by the means and
#' standard deviations of the ORIGINAL data (a constant variable is left
#' unscaled); `"mahalanobis"` with the covariance \eqn{\Sigma} of the original
#' data, \eqn{d(x, y)^2 = (x - y)' \Sigma^{-1} (x - y)} (a singular
#' \eqn{\Sigma} is inverted on the directions where it has variance: its
#' eigenvalues below \eqn{10^{-10}} times the largest are left out).
#'
#' The search is exact: `"tree"` is a k-d tree over the distinct released
#' records (about \eqn{O(n \log n)} for a few variables), `"exhaustive"` the
#' \eqn{O(n^2)} loop over all pairs kept as the reference; both compute every
#' distance alike and give identical weights. `"auto"` takes the tree unless
#' the data are small (n < 500) or have more than 12 variables.
#'
#' @param original,masked Data frames (or matrices) with the same rows in the
#'   same order: the original and the released data.
#' @param known Character vector: the numeric variables the intruder knows
#'   (the columns of the intruder, as in [risk_match()]; see
#'   [epimask-naming]; `Date` and `POSIXct` variables count as days since
#'   1970).
#' @param vars Deprecated: the name of `known` up to version 0.2.0. It still
#'   works, with a warning of class `epimask_warning_deprecated`.
#' @param distance `"euclidean"` (standardised) or `"mahalanobis"`.
#' @param method `"auto"`, `"tree"` or `"exhaustive"`.
#' @param threads Number of threads, `NULL` for [epimask_threads()] (one
#'   below 20,000 records). The weights do not depend on it.
#' @param id `NULL` (one record per person) or the name of the person column
#'   of `original` when a person has several records. The person is then the
#'   unit: a person is re-linked when any one of their records is re-linked to
#'   one of the person's released records, with probability \eqn{1 - \prod_i (1 - w_i)}
#'   over the person's records (ties broken independently); `risk` is the
#'   mean of that over the persons, `linked` its sum, `per_person` the
#'   persons' values, `per_record` repeats each person's value on their
#'   records and `record_weight` keeps the records' own \eqn{w_i}. Here a
#'   record counts as re-linked when a released record of the same person is
#'   among the \eqn{t_i} nearest (its own or another of the person's, e.g. a
#'   visit whose dates were shifted alike): \eqn{w_i = s_i / t_i} with
#'   \eqn{s_i} the person's records among them.
#' @return An object of class `epimask_linkage`, a list with
#'   \item{per_record}{each record's re-link weight \eqn{w_i}.}
#'   \item{risk}{their mean, the linkage risk.}
#'   \item{linked}{their sum, the expected number of records re-linked.}
#'   \item{ties}{\eqn{t_i}, the number of released records at the minimum
#'     distance from original record \eqn{i}.}
#'   \item{distance_to_nearest}{the minimum distance.}
#'   and `known` (`vars` up to version 0.2.0, still readable with a deprecation
#'   warning), `distance`, `method` (the one used), `n`.
#' @references Pagliuca D, Seri G (1999). Some results of individual ranking
#'   method on the system of enterprise accounts annual survey. Esprit SDC
#'   Project, Delivery MI-3/D2. Domingo-Ferrer J, Torra V (2001). A
#'   quantitative comparison of disclosure control methods for microdata. In
#'   Confidentiality, Disclosure and Data Access, 111-133.
#' @family risk measures
#' @seealso [risk_match()] for the matching probability, [risk_spec()] to use
#'   it in [ru_profile()].
#' @examples
#' d <- dose_cohort
#' noisy <- apply_mask(d, mask_noise(0.05), c("dose", "age_end"))
#' l <- risk_linkage(d, noisy, known = c("dose", "age_end"))
#' l
#' summary(l)
#' plot(l)
#' @export
risk_linkage <- function(original, masked, known, distance = c("euclidean", "mahalanobis"),
                         method = c("auto", "tree", "exhaustive"), threads = NULL,
                         id = NULL, vars = NULL) {
  original <- check_data(original, "original")
  masked <- check_data(masked, "masked")
  known <- renamed_argument(if (!missing(known)) known, vars, "known", "vars")
  vars <- check_columns(known, original, "known", data_arg = "original")
  if (!is.null(id)) {
    id <- check_person_id(id, as.data.frame(original), exclude = vars, data_arg = "original")
    res <- linkage_run(original, masked, vars, distance, method, threads, keep_coords = TRUE)
    person <- person_index(as.data.frame(original)[[id]])
    P <- max(person)
    # a record linked to any released record of its person re-identifies the person
    same <- same_person_ties(attr(res, "coords"), person, res$distance_to_nearest)
    per_person <- person_any(pmax(same, res$per_record * res$ties) / res$ties, person, P)
    attr(res, "coords") <- NULL
    res$record_weight <- res$per_record
    res$per_person <- per_person
    res$per_record <- per_person[person]
    res$risk <- mean(per_person)
    res$linked <- sum(per_person)
    p <- list(id = id, n_persons = P, n_records = res$n, person = person,
              data = stats::setNames(list(as.data.frame(original)[[id]][match(seq_len(P), person)]), id))
    res <- person_result(res, p)
    res$n <- P
    return(res)
  }
  linkage_run(original, masked, vars, distance, method, threads)
}

# The record-level linkage; `keep_coords` keeps the transformed coordinates
# (records as columns) as an attribute, for the person-level count.
linkage_run <- function(original, masked, vars, distance, method, threads,
                        keep_coords = FALSE) {
  vars <- check_columns(vars, original, "known", data_arg = "original")
  check_columns(vars, masked, "known", data_arg = "masked")
  distance <- check_choice(distance, c("euclidean", "mahalanobis"))
  method <- check_choice(method, c("auto", "tree", "exhaustive"))
  if (NROW(original) != NROW(masked))
    abort_length("masked", sprintf("have as many rows as `original` (%d), not %d",
                                   NROW(original), NROW(masked)))
  x <- check_numeric_matrix(dates_as_days(as.data.frame(original)[vars]), "original")
  y <- check_numeric_matrix(dates_as_days(as.data.frame(masked)[vars]), "masked")
  n <- nrow(x)
  # small searches take less time than starting threads (or counting cores)
  threads <- if (is.null(threads) && n < 20000L) 1L else epimask_threads(threads)
  w <- linkage_transform(x, distance)
  # records as columns: the C side reads each record's coordinates together
  xt <- t(sweep(x, 2L, w$center) %*% w$map)
  yt <- t(sweep(y, 2L, w$center) %*% w$map)
  if (method == "auto") method <- if (n < 500L || nrow(xt) > 12L) "exhaustive" else "tree"
  res <- call_c(C_linkage_run, list(x = xt, y = yt, method = if (method == "tree") 1L else 0L,
                                   threads = as.integer(threads)), arg = "linkage")
  structure(list(
    per_record = res$weight, risk = mean(res$weight), linked = sum(res$weight),
    ties = res$ties, distance_to_nearest = res$min_dist,
    known = vars, distance = distance, method = method, n = n
  ), class = "epimask_linkage", coords = if (keep_coords) list(x = xt, y = yt))
}

# For each original record, the number of released records of the same
# person at its minimum distance (the C search's tie rule: within a relative
# LINK_TIE_REL of the minimum). O(sum of squared records per person).
same_person_ties <- function(coords, person, min_dist) {
  out <- numeric(length(person))
  rows <- split(seq_along(person), person)
  for (r in rows) {
    x <- coords$x[, r, drop = FALSE]
    y <- coords$y[, r, drop = FALSE]
    for (k in seq_along(r)) {
      d <- sqrt(colSums((y - x[, k])^2))
      out[[r[[k]]]] <- sum(d <= min_dist[[r[[k]]]] * (1 + 1e-12))
    }
  }
  out
}

# Date and POSIXct variables enter the distance as days since 1970 (an
# intruder who knows a date links on it like on any number).
dates_as_days <- function(frame) {
  for (v in names(frame)) {
    x <- frame[[v]]
    if (inherits(x, "Date")) frame[[v]] <- as.double(x)
    else if (inherits(x, "POSIXct")) frame[[v]] <- as.double(x) / 86400
  }
  frame
}

# Centre and linear map that make the chosen distance Euclidean, from the
# original data only.
linkage_transform <- function(x, distance) {
  center <- colMeans(x)
  if (distance == "euclidean") {
    s <- apply(x, 2L, stats::sd)
    s[!is.finite(s) | s == 0] <- 1
    return(list(center = center, map = diag(1 / s, ncol(x))))
  }
  if (nrow(x) < 2L) return(list(center = center, map = diag(ncol(x))))
  e <- eigen(stats::cov(x), symmetric = TRUE)
  keep <- e$values > 1e-10 * max(e$values, 0)
  if (!any(keep)) return(list(center = center, map = matrix(0, ncol(x), 1L)))
  list(center = center,
       map = e$vectors[, keep, drop = FALSE] %*% diag(1 / sqrt(e$values[keep]), sum(keep)))
}

#' @rdname risk_linkage
#' @param x,object An `epimask_linkage` object.
#' @param digits Significant digits shown.
#' @param ... Passed on to [graphics::barplot()] by `plot()`; unused otherwise.
#' @details `summary()` counts the records by outcome (re-linked alone, in a
#'   tie, not re-linked); `plot()` draws these counts.
#' @export
print.epimask_linkage <- function(x, digits = 3, ...) print_formatted(x, digits = digits)

#' @rdname risk_linkage
#' @export
format.epimask_linkage <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  w <- x$per_person %||% x$per_record
  c(sprintf("record linkage (%s distance on %s): %s, %s search",
            x$distance, paste(x$known, collapse = ", "), unit_count(x), x$method),
    sprintf("  linkage risk %s: %s %s expected re-linked; %d re-linked alone, %d in a tie, %d not",
            format(signif(x$risk, digits)), format(round(x$linked, 1)), unit_name(x),
            sum(w == 1), sum(w > 0 & w < 1), sum(w == 0)))
}

#' @rdname risk_linkage
#' @param row.names,optional Ignored.
#' @export
as.data.frame.epimask_linkage <- function(x, row.names = NULL, optional = FALSE, ...) {
  out <- data.frame(record = seq_along(x$per_record), weight = x$per_record, ties = x$ties,
                    distance_to_nearest = x$distance_to_nearest)
  if (!identical(x$unit, "persons")) return(out)
  out$record_weight <- x$record_weight
  add_person_column(out, x)
}

linkage_outcomes <- function(x) {
  w <- x$per_person %||% x$per_record
  c(`re-linked alone` = sum(w == 1),
    `re-linked in a tie` = sum(w > 0 & w < 1),
    `not re-linked` = sum(w == 0))
}

#' @rdname risk_linkage
#' @export
summary.epimask_linkage <- function(object, ...) {
  outcomes <- linkage_outcomes(object)
  tab <- data.frame(outcome = names(outcomes), records = as.vector(outcomes),
                    share = as.vector(outcomes) / object$n)
  names(tab)[[2L]] <- unit_name(object)
  structure(list(linkage = object, outcomes = tab), class = "summary.epimask_linkage")
}

#' @rdname risk_linkage
#' @export
format.summary.epimask_linkage <- function(x, digits = 3, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    print(x$linkage, digits = digits)
    print_titled_table(sprintf("%s by outcome:", if (identical(x$linkage$unit, "persons")) "Persons" else "Records"),
                       x$outcomes, digits, "share")
  })
}

#' @export
print.summary.epimask_linkage <- function(x, ...) print_formatted(x, ...)

#' @rdname risk_linkage
#' @param y Unused.
#' @export
plot.epimask_linkage <- function(x, y = NULL, ...) {
  outcomes <- linkage_outcomes(x)
  graphics::barplot(outcomes, col = c("firebrick", "orange", "grey60"), border = NA,
                    ylab = unit_name(x),
                    main = sprintf("Record linkage: risk %s", format(signif(x$risk, 3))), ...)
  invisible(outcomes)
}
