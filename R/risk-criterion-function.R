# A user function(original, masked) -> number in [0, 1] as a risk criterion:
# what ru_profile(risk = ) and risk_value() accept besides criteria.

function_criterion <- function(f) {
  new_risk_criterion("custom", fun = f, spec = "custom", label = "custom risk function",
                     explanation = "The custodian's own function of the original and masked data.")
}

#' @export
criterion_evaluate.risk_custom <- function(criterion, release, original = NULL, keys = NULL,
                                           id = NULL, ...) {
  value <- check_risk_number(call_user(criterion$fun, list(original, release), "risk",
                                       "risk(original, masked)"), "risk function")
  new_criterion_result(criterion, value)
}
