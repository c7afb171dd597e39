# delta-presence (Nergiz, Atzori & Clifton 2007; ARX criteria/DPresence.java;
# methods vignette section 28.8): when being in the release is itself the
# secret (a disease registry), the share of the population of each released
# class that is in the release, delta = f / F, must lie in [dmin, dmax].

#' delta-presence against a population table as a risk criterion
#'
#' For a release whose very membership discloses something (a disease
#' registry, a cohort of patients), the intruder who knows a person of the
#' population and their keys learns, from the release, the probability that
#' the person is in it: the released class's size over the size of that
#' class in the population, \eqn{\delta = f / F} (Nergiz, Atzori & Clifton
#' 2007). delta-presence holds when every released class has \eqn{d_{min}
#' \le \delta \le d_{max}}; ARX's `DPresence` criterion, whose test values
#' epimask reproduces. On the risk scale the value is the largest
#' \eqn{\delta} (the probability of presence the release gives the intruder
#' at worst), met when it is at most `dmax` and the smallest is at least
#' `dmin`.
#'
#' With `dmin > 0` a person of the population whose class holds no released
#' record has \eqn{\delta = 0 < d_{min}}: no suppression can mend that, so
#' such a release (or lattice node) fails whatever its released classes, as
#' in ARX (`HashGroupify`: "tuples from the public table that have no
#' matching candidates in the private table ... cannot be suppressed").
#'
#' In the lattice search of [ola()] a class of the node fails when its
#' \eqn{\delta} lies outside the bounds (the search may suppress it), the
#' population being generalized to the node's levels (`node$generalize()`),
#' and with `dmin > 0` the node fails when a population class holds no
#' record of the data; both are monotone (merging two classes gives a
#' \eqn{\delta} between theirs). [criterion_evaluate()] on a release counts
#' the population's records with the release's key values as they are: give
#' the population in the release's coding (or let the search generalize
#' it).
#'
#' @param dmin The smallest accepted \eqn{\delta} (0: no lower bound).
#' @param dmax The largest accepted \eqn{\delta}, in (0, 1].
#' @param population A data frame of the population's key values, one row per
#'   person (the release's persons among them).
#' @param keys `NULL` (the keys of the call) or the keys.
#' @return A risk criterion of class `c("risk_delta_presence", "risk_criterion")`.
#' @references Nergiz ME, Atzori M, Clifton C (2007). Hiding the presence of
#'   individuals from shared databases. Proceedings of the 2007 ACM SIGMOD
#'   International Conference on Management of Data, 665-676.
#' @family risk criteria
#' @examples
#' pop <- dose_cohort[, c("city", "sex", "age_exp")]
#' set.seed(1)
#' registry <- pop[sample.int(nrow(pop), 800), ]
#' registry$age_exp <- 10 * (registry$age_exp %/% 10)
#' pop$age_exp <- 10 * (pop$age_exp %/% 10)
#' crit <- delta_presence(0, 0.1, pop)
#' crit
#' criterion_evaluate(crit, registry, keys = c("city", "sex", "age_exp"))
#' @export
delta_presence <- function(dmin = 0, dmax, population, keys = NULL) {
  dmin <- check_number(dmin, "dmin", lower = 0, upper = 1)
  if (missing(dmax)) abort_type("dmax", "the largest accepted delta, a number in (0, 1]")
  dmax <- check_number(dmax, "dmax", lower = 0, upper = 1, lower_open = TRUE)
  if (dmin > dmax) abort_value("dmin", "at most `dmax`")
  if (missing(population) || !is.data.frame(population))
    abort_type("population", "a data frame of the population's key values (one row per person)")
  if (!nrow(population)) abort_empty("population")
  check_utf8_data(population, "population")
  new_risk_criterion("delta_presence", dmin = dmin, dmax = dmax,
                     population = as_plain_frame(population), keys = keys,
                     label = sprintf("delta-presence, %s <= delta <= %s", format(dmin),
                                     format(dmax)),
                     bound = dmax, monotone = TRUE,
                     explanation = paste("The share of the population of each released class",
                                         "that is in the release (the probability of presence",
                                         "it gives an intruder); met when every class's share",
                                         "lies within the bounds."))
}

# delta of each class: its units over the population's records with its key
# values (`classes` and `population` data frames of the keys, coded alike).
class_deltas <- function(size, classes, population, keys) {
  missing <- setdiff(keys, names(population))
  if (length(missing)) abort_name("population", missing, "`population`")
  key_c <- row_text(classes, keys)
  key_p <- row_text(population, keys)
  pop_n <- tabulate(match(key_p, key_c), length(key_c))
  size / pop_n
}

#' @export
criterion_prepare.risk_delta_presence <- function(criterion, data, keys = NULL, id = NULL, ...) {
  criterion <- NextMethod()
  keys <- criterion$keys %||% keys
  missing <- setdiff(keys, names(criterion$population))
  if (length(missing)) abort_name("population", missing, "`population`")
  criterion
}

#' @export
criterion_classes.risk_delta_presence <- function(criterion, node, ...) {
  keys <- criterion$keys %||% node$keys
  delta <- class_deltas(node$size, node$classes(), node$generalize(criterion$population), keys)
  # a class the population does not hold (delta Inf) fails
  !(delta >= criterion$dmin & delta <= criterion$dmax)
}

#' @export
criterion_release.risk_delta_presence <- function(criterion, node, kept, ...) {
  if (criterion$dmin <= 0) return(TRUE)
  keys <- criterion$keys %||% node$keys
  # every class of the population must hold records of the data (kept or not)
  all(row_text(node$generalize(criterion$population), keys) %in% row_text(node$classes(), keys))
}

#' @export
criterion_evaluate.risk_delta_presence <- function(criterion, release, original = NULL,
                                                   keys = NULL, id = NULL, ...) {
  keys <- criterion$keys %||% keys
  if (is.null(keys)) abort_value("keys", "the keys delta-presence counts over")
  if (inherits(release, "epimask_synthetic"))
    return(criterion_not_applicable(criterion, paste(
      "delta-presence asks whether a person of the population is among the released",
      "records; synthetic records are nobody's")))
  if (inherits(release, "epimask_release")) release <- release$data
  if (!is.data.frame(release) && !is.matrix(release))
    abort_type("release", "a data frame of the released records")
  release <- as_plain_frame(release)
  check_columns(keys, release, "keys", "release")
  frame <- if (is.null(id)) release[keys] else person_frame(release, keys, id)$data[keys]
  g <- key_groups(frame, keys)
  first <- match(seq_along(g$size), g$group)
  classes <- frame[first, , drop = FALSE]
  delta <- class_deltas(g$size, classes, criterion$population, keys)
  unit <- if (is.null(id)) "records" else "persons"
  if (any(!is.finite(delta) | delta > 1))
    return(criterion_not_applicable(criterion, sprintf(paste(
      "the population holds fewer %s than the release in %d of its %d classes: give the",
      "population in the release's coding, with the released persons among it"),
      unit, sum(!is.finite(delta) | delta > 1), length(delta)), unit = unit))
  res <- new_criterion_result(criterion, max(delta),
                              detail = data.frame(classes, size = g$size,
                                                  population = g$size / delta, delta = delta,
                                                  check.names = FALSE),
                              note = sprintf("delta from %s to %s over %d classes",
                                             format_num(min(delta)), format_num(max(delta)),
                                             length(delta)),
                              unit = unit)
  # with dmin > 0, a population class without a released record has delta 0
  empty <- criterion$dmin > 0 &&
    !all(row_text(criterion$population, keys) %in% row_text(classes, keys))
  res$pass <- res$pass && min(delta) >= criterion$dmin * (1 - 1e-12) && !empty
  if (empty)
    res$note <- paste(res$note, "; population classes without a released record have delta 0",
                      "< dmin", sep = "")
  res
}
