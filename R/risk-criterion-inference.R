# The inference attack as a risk criterion (methods vignette section 28.7).

#' Inference risk as a risk criterion
#'
#' The attack of [risk_inference()] as a [risk criterion][new_risk_criterion()];
#' see [singling_out()] for its value, its interval, `against` and the seed.
#'
#' @inheritParams risk_inference
#' @inheritParams singling_out
#' @return A risk criterion of class `c("risk_inference", "risk_criterion")`.
#' @family risk criteria
#' @family attacks
#' @examples
#' d <- dose_cohort[1:2000, c("sex", "city", "age_exp", "dose")]
#' crit <- inference(0.1, aux = c("sex", "city", "age_exp"), secret = "dose",
#'                   tolerance = 0.1, n_attacks = 300, seed = 1)
#' criterion_evaluate(crit, d, original = d)
#' @export
inference <- function(max = NA, aux, secret, tolerance = 0.05, n_attacks = NULL,
                      against = c("upper", "point"), control = NULL, seed = NULL,
                      options = attack_options()) {
  secret <- check_inference_columns(if (!missing(aux)) aux, if (!missing(secret)) secret)
  tolerance <- check_number(tolerance, "tolerance", lower = 0)
  if (!is.null(n_attacks)) attack_count(n_attacks)
  new_attack_criterion(
    "inference", aux = aux, secret = secret, tolerance = tolerance, n_attacks = n_attacks,
    what = sprintf("inference of '%s' from %s", secret, paste(aux, collapse = ", ")),
    max = max, against = against, control = control, seed = seed, options = options,
    columns = unique(c(aux, secret)),
    explanation = paste("Inference risk (Article 29 WP): a person's secret guessed from the",
                        "released record nearest what the intruder knows, beyond the guesses",
                        "about records never released; (attack - control) / (1 - control)."))
}

#' @export
criterion_evaluate.risk_inference <- function(criterion, release, original = NULL,
                                              keys = NULL, id = NULL,
                                              generalize = NULL, rows = NULL, ...) {
  attack_criterion_result(criterion, release, original, id, generalize = generalize, rows = rows,
                          run = function(o, r, control, id)
    risk_inference(o, r, control = control, aux = criterion$aux, secret = criterion$secret,
                   tolerance = criterion$tolerance, n_attacks = criterion$n_attacks,
                   seed = criterion$seed, id = id, options = criterion$options))
}
