# The three Article 29 attacks as one list of criteria, and the sentence a
# release context states about them (methods vignette, section 28.7).

#' The three Article 29 attacks as risk criteria
#'
#' The regulator's three questions (Article 29 Working Party, Opinion
#' 05/2014): can an intruder single out a person, link two records of a
#' person, infer a person's attribute? `article29_attacks()` returns the three
#' criteria [singling_out()], [linkability()] and [inference()] with one
#' bound, for the verbs that take criteria: `release_context(criteria = )`
#' (the context then states "the three Article 29 attacks, risk upper bound
#' under `max`"), [risk_release()], [deidentify()], [ru_profile()] (`risk = `)
#' and [release_report()]. The intruder's columns `aux` are split into two
#' halves for the linkability attack (the two data sets an intruder joins);
#' the singling-out attack builds its predicates on `aux` and `secret`.
#'
#' @param max `NA` (reported only) or the largest accepted risk of each attack.
#' @param aux The columns the intruder knows (at least two).
#' @param secret The column the inference attack guesses (not in `aux`).
#' @param tolerance For a numeric secret, the relative error of a right guess.
#' @param n_attacks `NULL` (every target up to 2,000, else a seeded sample of
#'   2,000) or the most targets (and predicates) of each attack.
#' @param mode,n_cols The singling-out attack's predicates (see
#'   [risk_singling_out()]).
#' @param against `"upper"` (the interval's upper end is compared with `max`)
#'   or `"point"`.
#' @param seed `NULL` (drawn now) or a number: the three attacks' streams are
#'   drawn from it.
#' @param options [attack_options()].
#' @return A list of three risk criteria.
#' @family risk criteria
#' @family attacks
#' @examples
#' d <- dose_cohort[1:2000, c("sex", "city", "age_exp", "dose")]
#' crit <- article29_attacks(0.1, aux = c("sex", "city", "age_exp"), secret = "dose",
#'                           tolerance = 0.1, n_attacks = 300, seed = 1)
#' release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, criteria = crit)
#' risk_release(apply_mask(d, mask_noise(0.5), "dose"), c("sex", "city", "age_exp"),
#'              release_context(public = TRUE, criteria = crit), original = d)
#' @export
article29_attacks <- function(max = NA, aux, secret, tolerance = 0.05, n_attacks = NULL,
                              mode = c("univariate", "multivariate"), n_cols = 3,
                              against = c("upper", "point"), seed = NULL,
                              options = attack_options()) {
  if (missing(aux) || !is.character(aux) || length(aux) < 2L || anyNA(aux) || anyDuplicated(aux))
    abort_type("aux", "at least two distinct column names (the intruder's knowledge)")
  if (missing(secret)) secret <- NULL
  check_inference_columns(aux, secret)
  seed <- check_attack_seed(seed)
  if (is.null(seed)) seed <- sample.int(.Machine$integer.max, 1L)
  half <- ceiling(length(aux) / 2)
  list(singling_out(max, mode = mode, n_attacks = n_attacks %||% attack_default_n,
                    n_cols = n_cols, against = against, columns = c(aux, secret),
                    seed = seed, options = options),
       linkability(max, aux = list(aux[seq_len(half)], aux[-seq_len(half)]),
                   n_attacks = n_attacks, against = against, seed = (seed + 1) %% .Machine$integer.max,
                   options = options),
       inference(max, aux = aux, secret = secret, tolerance = tolerance, n_attacks = n_attacks,
                 against = against, seed = (seed + 2) %% .Machine$integer.max,
                 options = options))
}

# The sentence of a context (or a report) on the attacks among its criteria:
# "the three Article 29 attacks (...), risk upper bound under 0.05" when the
# three are there with one bound; NULL when there is no attack.
article29_statement <- function(criteria) {
  kinds <- c(singling_out = "singling out", linkability = "linkability",
             inference = "inference")
  attacks <- Filter(function(cr) cr$name %in% names(kinds), criteria)
  if (!length(attacks)) return(NULL)
  names_of <- vapply(attacks, `[[`, "", "name")
  bounds <- vapply(attacks, function(cr) cr$bound, 0)
  against <- unique(vapply(attacks, function(cr) cr$against %||% "upper", ""))
  what <- if (all(names(kinds) %in% names_of))
    "the three Article 29 attacks (singling out, linkability, inference)" else
    sprintf("the Article 29 attack%s %s (of three: %s not stated)",
            if (length(unique(names_of)) > 1L) "s" else "",
            paste(kinds[unique(names_of)], collapse = ", "),
            paste(kinds[setdiff(names(kinds), names_of)], collapse = ", "))
  bound <- if (all(is.na(bounds))) "reported, not bounded" else
    if (length(unique(bounds)) == 1L && length(against) == 1L)
      sprintf("risk %s under %s", if (against == "upper") "upper bound" else "estimate",
              format(bounds[[1L]]))
  else paste("risk bounds", paste(sprintf("%s %s", kinds[names_of], format(bounds)),
                                  collapse = ", "))
  paste0(what, ", ", bound)
}
