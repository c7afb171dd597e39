# The linkability attack as a risk criterion (methods vignette section 28.7).

#' Linkability risk as a risk criterion
#'
#' The attack of [risk_linkability()] as a [risk criterion][new_risk_criterion()];
#' see [singling_out()] for its value, its interval, `against` and the seed.
#'
#' @inheritParams risk_linkability
#' @inheritParams singling_out
#' @return A risk criterion of class `c("risk_linkability", "risk_criterion")`.
#' @family risk criteria
#' @family attacks
#' @examples
#' d <- dose_cohort[1:2000, c("sex", "city", "age_exp", "dose", "age_end")]
#' crit <- linkability(0.05, aux = list(c("sex", "age_exp"), c("city", "dose", "age_end")),
#'                     n_attacks = 300, seed = 1)
#' criterion_evaluate(crit, d, original = d)
#' @export
linkability <- function(max = NA, aux, n_neighbors = 1, n_attacks = NULL,
                        against = c("upper", "point"), control = NULL, seed = NULL,
                        options = attack_options()) {
  if (missing(aux)) aux <- NULL
  check_link_aux(aux)
  n_neighbors <- check_count(n_neighbors, "n_neighbors")
  if (!is.null(n_attacks)) attack_count(n_attacks)
  new_attack_criterion(
    "linkability", aux = aux, n_neighbors = n_neighbors, n_attacks = n_attacks,
    what = sprintf("linkability (%s | %s)", paste(aux[[1L]], collapse = ", "),
                   paste(aux[[2L]], collapse = ", ")),
    max = max, against = against, control = control, seed = seed, options = options,
    columns = unique(c(aux[[1L]], aux[[2L]])),
    explanation = paste("Linkability risk (Article 29 WP): the two parts of a person's",
                        "record joined through their nearest released records, beyond what",
                        "happens to records never released; (attack - control) / (1 - control)."))
}

#' @export
criterion_evaluate.risk_linkability <- function(criterion, release, original = NULL,
                                                keys = NULL, id = NULL,
                                                generalize = NULL, rows = NULL, ...) {
  attack_criterion_result(criterion, release, original, id, generalize = generalize, rows = rows,
                          run = function(o, r, control, id)
    risk_linkability(o, r, control = control, aux = criterion$aux,
                     n_neighbors = criterion$n_neighbors, n_attacks = criterion$n_attacks,
                     seed = criterion$seed, id = id, options = criterion$options))
}
