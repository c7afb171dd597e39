# The linkability attack (methods vignette section 28.5, after Giomi et al.
# 2023 and anonymeter's linkability_evaluator.py): the intruder holds two
# data sets of the same persons, one with the columns aux[[1]], the other
# with aux[[2]], and uses the release to join them: a target is linked when
# the n_neighbors released records nearest its first part and those nearest
# its second part share a record.

#' Linkability risk of a release
#'
#' The second of the Article 29 Working Party's three questions, after Giomi
#' et al. (2023, anonymeter): can an intruder who holds two data sets about
#' the same persons (one with the columns `aux[[1]]`, the other with
#' `aux[[2]]`) use the release to tell which of their records are the same
#' person? For each target record the intruder finds the `n_neighbors`
#' released records nearest its values on `aux[[1]]` and those nearest its
#' values on `aux[[2]]` (Gower's distance over mixed columns, methods
#' vignette section 28.2; ties to the lower released row); the two parts are
#' linked when the two sets share a released record. The attack runs on
#' original records behind the release, the control on records the release
#' holds nothing of, and the baseline draws the two sets at random. The risk
#' is \eqn{(a - c) / (1 - c)} (see [risk_singling_out()] for the control and
#' the interval).
#'
#' The nearest-neighbour search is exact and in C: a k-d tree over the
#' distinct released records whose bounds are exact for Gower's distance (or
#' an exhaustive scan, the reference, with `attack_options(search =
#' "exhaustive")` or `na = "ignore"`); no matrix of all distances is formed.
#'
#' @inheritSection risk_singling_out Releases and their control
#' @inheritParams risk_singling_out
#' @param aux A list of two character vectors: the columns of the intruder's
#'   two data sets (each non-empty; they may share columns).
#' @param n_neighbors The released records the intruder keeps per part.
#' @param n_attacks The targets attacked (and control records tried):
#'   `NULL` (the default) every one when there are at most 2,000, else a
#'   sample of 2,000 drawn from `seed` (the intervals then stay narrow and the
#'   search fast at 1e6 records); a count, at most that many; `Inf`, every
#'   target and every control record (the search is then the larger part of
#'   the cost). With `id`, persons: a person is linked when one of their
#'   records is.
#' @return An [epimask_attack] with, in addition, `aux`, `n_neighbors` and
#'   `details` (one row per target record tried: `set` ("attack" or
#'   "control"), `row` (its row in `original`, or in `control` when given as
#'   data), `linked`, `nearest_1`, `nearest_2` (the nearest released record of
#'   each part, its row in the release as delivered)).
#' @references Giomi M, Boenisch F, Wehmeyer C, Tasnadi B (2023). A unified
#'   framework for quantifying privacy risk in synthetic data. Proceedings on
#'   Privacy Enhancing Technologies 2023(2):312-328.
#' @family attacks
#' @seealso [linkability()] (the criterion), [risk_singling_out()],
#'   [risk_inference()].
#' @examples
#' d <- dose_cohort[1:3000, c("sex", "city", "age_exp", "dose", "age_end")]
#' aux <- list(c("sex", "age_exp"), c("city", "dose", "age_end"))
#' risk_linkability(d, d, aux = aux, n_attacks = 300, seed = 1)
#' noisy <- apply_mask(d, mask_noise(1), c("dose", "age_end"))
#' risk_linkability(d, noisy, aux = aux, n_attacks = 300, seed = 1)
#' @export
risk_linkability <- function(original, release, control = NULL, aux, n_neighbors = 1,
                             n_attacks = NULL, seed = NULL, id = NULL,
                             options = attack_options()) {
  if (missing(aux)) aux <- NULL
  check_link_aux(aux)
  n_neighbors <- check_count(n_neighbors, "n_neighbors")
  n_attacks <- attack_count(n_attacks)
  options <- check_attack_options(options)
  streams <- rng_streams(4L, check_attack_seed(seed))
  columns <- unique(c(aux[[1L]], aux[[2L]]))
  setup <- attack_setup(original, release, control, id, columns, options, streams[[1L]])
  check_attack_columns(columns, setup, "aux")
  codes <- attack_code(columns, list(original = setup$target, release = setup$release,
                                     control = setup$control))
  check_not_all_na(codes, columns)
  m <- nrow(setup$release)
  if (n_neighbors > m)
    abort_value("n_neighbors", sprintf("at most the number of released records attacked (%d)", m))
  unit_t <- attack_units(setup$target, setup$id)
  unit_c <- attack_units(setup$control, setup$id)
  tgt <- sample_units(unit_t, n_attacks, streams[[2L]])
  ctl <- sample_units(unit_c, n_attacks, streams[[3L]])
  # the targets and the control records in one search per part (one index)
  q <- rbind(codes$coded$original[tgt$rows, , drop = FALSE],
             codes$coded$control[ctl$rows, , drop = FALSE])
  a <- gower_nearest(codes$coded$release, q, codes, aux[[1L]], n_neighbors, options)
  b <- gower_nearest(codes$coded$release, q, codes, aux[[2L]], n_neighbors, options)
  linked <- neighbours_share(a$idx, b$idx)
  part <- function(at) list(linked = linked[at], a = a$idx[1L, at], b = b$idx[1L, at])
  hit_t <- part(seq_along(tgt$rows))
  hit_c <- part(length(tgt$rows) + seq_along(ctl$rows))
  base <- with_rng_stream(streams[[4L]], random_links(length(tgt$rows), m, n_neighbors))
  counts <- unit_counts(hit_t$linked, hit_c$linked, base, tgt, ctl, unit_t, unit_c)
  shown <- function(hit) list(linked = hit$linked, nearest_1 = delivered_row(setup, hit$a),
                              nearest_2 = delivered_row(setup, hit$b))
  details <- attack_details(setup, tgt, ctl, shown(hit_t), shown(hit_c))
  new_attack("linkability", setup, counts, options, details,
             list(aux = aux, n_neighbors = n_neighbors, trial_name = "targets",
                  baseline_name = "random released records", detail_name = "targets",
                  notes = character()))
}

# Whether the two neighbour sets (columns of two k x n matrices) share a row.
neighbours_share <- function(a, b) {
  if (nrow(a) == 1L) return(a[1L, ] == b[1L, ])
  vapply(seq_len(ncol(a)), function(i) any(a[, i] %in% b[, i]), logical(1))
}

# The baseline: two random sets of k released records per target (k of m
# without replacement each), linked when they share one.
random_links <- function(n, m, k) {
  vapply(seq_len(n), function(i) any(sample.int(m, k) %in% sample.int(m, k)), logical(1))
}

# The intruder's two data sets: two non-empty vectors of column names.
check_link_aux <- function(aux) {
  if (!is.list(aux) || length(aux) != 2L ||
      !all(vapply(aux, function(a) is.character(a) && length(a) > 0L && !anyNA(a), logical(1))))
    abort_type("aux", "a list of two non-empty character vectors (the two data sets' columns)")
  invisible(aux)
}
