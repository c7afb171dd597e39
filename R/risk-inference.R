# The inference attack (methods vignette section 28.6, after Giomi et al.
# 2023 and anonymeter's inference_evaluator.py): the intruder knows the
# columns `aux` of a target and guesses its `secret` as the secret of the
# released record nearest the target on `aux`.

#' Inference risk of a release
#'
#' The third of the Article 29 Working Party's three questions, after Giomi
#' et al. (2023, anonymeter): can an intruder who knows some of a person's
#' values (`aux`) learn another (`secret`) from the release? The intruder
#' takes the released record nearest the target on `aux` (Gower's distance,
#' methods vignette section 28.2; ties to the lower released row) and guesses
#' its `secret`. A guess of a category (factor, character, logical) is right
#' when equal; a guess of a number when within `tolerance` of the true value
#' relative to its size, \eqn{|g - s| \le tolerance \cdot |s|} (a date, which
#' has no natural zero, within `tolerance` times the range of the secret's
#' dates); a missing secret is guessed right by a missing value only. The
#' attack runs on original records behind the release, the control on
#' records the release holds nothing of, and the baseline guesses the secret
#' of a released record drawn at random. The risk is \eqn{(a - c) / (1 - c)}
#' (see [risk_singling_out()] for the control and the interval): what the
#' release tells of its own persons beyond what it tells of anyone of the
#' same population.
#'
#' @inheritSection risk_singling_out Releases and their control
#' @inheritParams risk_linkability
#' @param aux The columns the intruder knows (a character vector).
#' @param secret The column the intruder guesses (one name, not in `aux`).
#' @param tolerance For a numeric secret, the relative error within which a
#'   guess counts as right (0: exactly); unused for a category.
#' @return An [epimask_attack] with, in addition, `aux`, `secret`,
#'   `tolerance`, `numeric_secret` and `details` (one row per target record
#'   tried: `set`, `row` (as for [risk_linkability()]), `right`, `nearest`
#'   (the released record whose secret was guessed, its row in the release as
#'   delivered), `distance`).
#' @references Giomi M, Boenisch F, Wehmeyer C, Tasnadi B (2023). A unified
#'   framework for quantifying privacy risk in synthetic data. Proceedings on
#'   Privacy Enhancing Technologies 2023(2):312-328.
#' @family attacks
#' @seealso [inference()] (the criterion), [risk_singling_out()],
#'   [risk_linkability()].
#' @examples
#' d <- dose_cohort[1:3000, c("sex", "city", "age_exp", "dose")]
#' risk_inference(d, d, aux = c("sex", "city", "age_exp"), secret = "dose",
#'                tolerance = 0.1, n_attacks = 300, seed = 1)
#' noisy <- apply_mask(d, mask_noise(0.5), "dose")
#' risk_inference(d, noisy, aux = c("sex", "city", "age_exp"), secret = "dose",
#'                tolerance = 0.1, n_attacks = 300, seed = 1)
#' @export
risk_inference <- function(original, release, control = NULL, aux, secret, tolerance = 0.05,
                           n_attacks = NULL, seed = NULL, id = NULL,
                           options = attack_options()) {
  secret <- check_inference_columns(if (!missing(aux)) aux, if (!missing(secret)) secret)
  tolerance <- check_number(tolerance, "tolerance", lower = 0)
  n_attacks <- attack_count(n_attacks)
  options <- check_attack_options(options)
  streams <- rng_streams(4L, check_attack_seed(seed))
  columns <- unique(c(aux, secret))
  setup <- attack_setup(original, release, control, id, columns, options, streams[[1L]])
  check_attack_columns(aux, setup, "aux")
  check_attack_columns(secret, setup, "secret")
  codes <- attack_code(columns, list(original = setup$target, release = setup$release,
                                     control = setup$control))
  check_not_all_na(codes, columns)
  js <- match(secret, columns)
  numeric_secret <- codes$type[[js]] == 0L
  scale <- secret_scale(codes, js, tolerance)
  unit_t <- attack_units(setup$target, setup$id)
  unit_c <- attack_units(setup$control, setup$id)
  tgt <- sample_units(unit_t, n_attacks, streams[[2L]])
  ctl <- sample_units(unit_c, n_attacks, streams[[3L]])
  released <- codes$coded$release[, js]
  # the targets and the control records in one search (one index)
  q <- rbind(codes$coded$original[tgt$rows, , drop = FALSE],
             codes$coded$control[ctl$rows, , drop = FALSE])
  nn <- gower_nearest(codes$coded$release, q, codes, aux, 1L, options)
  right <- guess_right(released[nn$idx[1L, ]], q[, js], numeric_secret, scale)
  part <- function(at) list(right = right[at], nearest = nn$idx[1L, at], distance = nn$dist[1L, at])
  hit_t <- part(seq_along(tgt$rows))
  hit_c <- part(length(tgt$rows) + seq_along(ctl$rows))
  random_rows <- with_rng_stream(streams[[4L]], sample.int(length(released), length(tgt$rows),
                                                           replace = TRUE))
  base <- guess_right(released[random_rows], codes$coded$original[tgt$rows, js],
                      numeric_secret, scale)
  counts <- unit_counts(hit_t$right, hit_c$right, base, tgt, ctl, unit_t, unit_c)
  shown <- function(hit) list(right = hit$right, nearest = delivered_row(setup, hit$nearest),
                              distance = hit$distance)
  details <- attack_details(setup, tgt, ctl, shown(hit_t), shown(hit_c))
  new_attack("inference", setup, counts, options, details,
             list(aux = aux, secret = secret, tolerance = tolerance,
                  numeric_secret = numeric_secret,
                  tolerance_text = if (scale$relative) sprintf("%s relative", format(tolerance))
                                   else sprintf("%s of the dates' range (%s days)",
                                                format(tolerance), format(signif(scale$abs, 3))),
                  trial_name = "targets", baseline_name = "a random released record's value",
                  detail_name = "targets", notes = character()))
}

# How close a numeric guess must be: relative to the secret's size, or for a
# date (no natural zero) `tolerance` times the range of the dates.
secret_scale <- function(codes, js, tolerance) {
  if (codes$type[[js]] != 0L || !codes$labels[[js]] %in% c("date", "time"))
    return(list(relative = TRUE, tolerance = tolerance, abs = NA_real_))
  list(relative = FALSE, tolerance = tolerance, abs = tolerance * codes$range[[js]])
}

# Whether each guess is right: a category equal (NA, code 0, equals NA); a
# number within the tolerance (NA right only for NA).
guess_right <- function(g, s, numeric_secret, scale) {
  if (!numeric_secret) return(g == s)
  both_na <- is.na(g) & is.na(s)
  ok <- if (scale$relative) abs(g - s) <= scale$tolerance * abs(s) else abs(g - s) <= scale$abs
  ok[is.na(ok)] <- FALSE
  ok | both_na
}

# What the intruder knows (`aux`) and guesses (`secret`, one column not in
# `aux`); returns the secret.
check_inference_columns <- function(aux, secret) {
  if (!is.character(aux) || !length(aux) || anyNA(aux))
    abort_type("aux", "a character vector of the columns the intruder knows")
  if (is.null(secret)) abort_type("secret", "the name of the column the intruder guesses")
  secret <- check_string(secret, "secret")
  if (secret %in% aux) abort_value("secret", "a column not among `aux`")
  secret
}
