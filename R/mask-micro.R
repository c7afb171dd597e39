# Microaggregation (methods vignette section 15): MDAV over the masked variables together
# (groups in C, src/microagg.c) and univariate microaggregation of each
# variable on its own; every value becomes its group's mean.

#' Microaggregation
#'
#' Replaces each record's values by the means of a group of at least `k`
#' similar records, so that every released combination of the masked
#' variables is shared by `k` or more records.
#'
#' **MDAV** (`method = "mdav"`, maximum distance to average vector;
#' Domingo-Ferrer & Mateo-Sanz 2002) groups the records on all masked
#' variables at once. The variables are standardised (mean 0, SD 1 over all
#' records; a constant variable contributes nothing). While at least \eqn{3k}
#' records remain: \eqn{x} = the centroid of the remaining records; \eqn{r} =
#' the remaining record farthest from \eqn{x}; \eqn{s} = the remaining record
#' farthest from \eqn{r}; the group of \eqn{r} is \eqn{r} and its \eqn{k - 1}
#' nearest remaining records, then (after removing them) the group of
#' \eqn{s} likewise. With \eqn{2k} to \eqn{3k - 1} records left, the record
#' farthest from their centroid forms a group with its \eqn{k - 1} nearest
#' records and the rest form one group; fewer than \eqn{2k} form one group.
#' Distances are Euclidean and ties go to the lower row number (should
#' \eqn{s} tie with \eqn{r}'s neighbours and join \eqn{r}'s group, the next
#' farthest record from \eqn{r} takes its place). Each masked value is its
#' group's mean on the original scale. Group sizes are \eqn{k} except one
#' group of \eqn{k} to \eqn{2k - 1}.
#'
#' The search is exact (the same groups as a plain scan over all remaining
#' records, see the tests) and runs in C. The plain algorithm costs
#' \eqn{O(n^2 / k)} distance evaluations; here a k-d tree answers the
#' farthest and the nearest queries by exact branch and bound. Its top levels
#' cut the records into shells by their distance from the centroid, each
#' shell a k-d tree stored together, so that the queries, which work at the
#' surface of the cloud MDAV peels from the outside, stay in a few shells'
#' memory; each node keeps the box of its remaining records, their largest
#' distance from the centroid and a cone around the centroid holding their
#' directions, a bound on the farthest record that does not reach out of the
#' cloud as a box does. The tree is rebuilt around the centroid when that
#' moves far (skewed data), and the centroid is kept in a tree of partial
#' sums (\eqn{O(\log n)} per grouped record). Measured on three standard
#' normal variables, \eqn{k = 5} (one core of 2, shared with other jobs,
#' load average 5 to 7; `inst/bench/bench-mdav-1e7.R`): 3.7 s of CPU at
#' \eqn{n = 10^6}, 7.8 s at \eqn{2 \times 10^6} and 52 s at \eqn{10^7} (14 times
#' the CPU of \eqn{10^6}, where \eqn{n \log n} gives 11.7; peak memory 2.2
#' GB; the former search took 4.5, 13 and 163 s in the same run, the same
#' groups). Data where thousands of records tie in distance cost more, up
#' to the plain algorithm's order in the worst case. Records with a missing
#' value in the masked variables are an error (impute or drop them first).
#'
#' **Univariate** (`method = "univariate"`): each variable on its own is
#' sorted (ties in row order) and cut into consecutive groups of `k`, the
#' last group taking the remainder (\eqn{k} to \eqn{2k - 1} values); missing
#' values stay missing.
#'
#' @param k Minimum group size, a whole number >= 1 (`k = 1` changes nothing).
#' @param method `"mdav"` or `"univariate"`.
#' @return A `mask_scheme` with `method` (`"mdav"` or `"univariate"`),
#'   `degree` and `strength` `k` (larger is stronger), `generator`
#'   (`"microaggregation (MDAV)"` or `"microaggregation (univariate)"`) and
#'   label `"mdav <k>"` or `"microagg <k>"`.
#' @references Domingo-Ferrer, J. and Mateo-Sanz, J. M. (2002). Practical
#'   data-oriented microaggregation for statistical disclosure control. IEEE
#'   Transactions on Knowledge and Data Engineering 14, 189-201.
#' @family masking schemes
#' @examples
#' d <- data.frame(age = c(23, 25, 31, 35, 36, 52, 58, 61, 64),
#'                 income = c(21, 30, 28, 45, 41, 60, 52, 75, 70))
#' apply_mask(d, mask_microagg(3))
#' apply_mask(d, mask_microagg(3, "univariate"), "age")
#' @export
mask_microagg <- function(k = 3, method = c("mdav", "univariate")) {
  method <- check_choice(method, c("mdav", "univariate"), arg = "method")
  k <- check_count(k, "k", lower = 1L)
  new_mask_scheme("microagg", method = method, degree = k,
                  label = sprintf("%s %d", if (method == "mdav") "mdav" else "microagg", k),
                  k = k,
                  generator = sprintf("microaggregation (%s)",
                                      if (method == "mdav") "MDAV" else method),
                  strength = as.double(k))
}

#' @export
mask_validate.mask_microagg <- function(scheme, ...) mask_microagg(scheme$k, scheme$method)

#' @export
mask_values.mask_microagg <- function(scheme, x, data, ...) mask_microagg_values(scheme, x)

#' @export
format.mask_microagg <- function(x, ...) {
  revalidate_scheme(x, "x")
  sprintf("%s microaggregation, k = %d", if (x$method == "mdav") "MDAV" else "univariate", x$k)
}

#' @export
scheme_label.mask_microagg <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  sprintf("%s %d", if (scheme$method == "mdav") "mdav" else "microagg", scheme$k)
}

#' @export
mask_generator.mask_microagg <- function(scheme, ...) {
  sprintf("microaggregation (%s)", if (scheme$method == "mdav") "MDAV" else scheme$method)
}

#' @export
mask_strength.mask_microagg <- function(scheme, ...) as.double(scheme$k)

mask_microagg_values <- function(scheme, Z) {
  if (scheme$method == "univariate") {
    for (j in seq_len(ncol(Z))) Z[, j] <- univariate_microagg(Z[, j], scheme$k)
    return(Z)
  }
  if (!all(is.finite(Z)))
    abort_value("data", paste("finite (no NA, NaN or Inf) in the masked variables for MDAV",
                              "microaggregation (impute or drop those records first)"))
  if (!nrow(Z)) return(Z)
  group <- mdav_groups(Z, scheme$k)
  group_means_of(Z, group)[group, , drop = FALSE]
}

# The 1-based MDAV group of each row (methods vignette section 15), on standardised columns.
# shell (tests only; 0 = the C default): k-d subtrees of more records split by
# distance from the centroid.
mdav_groups <- function(Z, k, shell = 0L) {
  call_c(C_mdav_groups, list(z = standardise_columns(Z), k = as.integer(k),
                             shell = as.integer(shell)))
}

# (x - mean) / sd column by column; a constant column (or a single row)
# becomes 0, adding nothing to distances.
standardise_columns <- function(Z) {
  out <- Z
  for (j in seq_len(ncol(Z))) {
    z <- Z[, j]
    s <- if (length(z) > 1L) stats::sd(z) else 0
    out[, j] <- if (is.finite(s) && s > 0) (z - mean(z)) / s else 0
  }
  dimnames(out) <- NULL
  out
}

# Group means of the columns of Z for groups numbered 1..G (a G x p matrix).
group_means_of <- function(Z, group) {
  rowsum(Z, group, reorder = TRUE) / tabulate(group)
}

# Sorted values (ties in row order) in consecutive groups of k, the last one
# taking the remainder; NA stays NA.
univariate_microagg <- function(z, k) {
  ok <- which(!is.na(z))
  m <- length(ok)
  if (m == 0L) return(z)
  o <- ok[order(z[ok])]
  n_groups <- max(1L, m %/% k)
  group <- pmin((seq_len(m) - 1L) %/% k + 1L, n_groups)
  means <- group_means_of(matrix(z[o]), group)[, 1L]
  z[o] <- means[group]
  z
}
