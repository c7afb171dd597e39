# A profile of several criteria (ru_profile(..., risk = list(...))) read by
# another of them: the first criterion is the profile's `risk`, each other one
# the column `risk_<name>`; ru_select_risk() makes one of those the risk (and
# the old risk a column), so that print(), plot(), recommend() and the
# frontier speak of it.

#' Read a profile by another of its risk criteria
#'
#' A profile made with several criteria (`ru_profile(..., risk =
#' list(singling_out(), linkability(), inference()))`) holds the first as its
#' `risk` (the frontier, the plot, [recommend()] read it) and each other one
#' as a column `risk_<name>` (the print shows them beside `risk`).
#' `ru_select_risk()` returns the profile with one of those columns as its
#' risk and the former risk as a column of its own name, the frontier
#' recomputed: `plot(ru_select_risk(ru, "linkability"))` is the profile read
#' by the linkability attack. The Monte Carlo SE of the risk (`risk_se`) is
#' of the first criterion only and is dropped.
#'
#' @param x A risk-utility profile ([ru_profile()]) with several criteria.
#' @param risk The criterion to read it by: its name (`"linkability"`,
#'   `"risk_linkability"`).
#' @return The profile (class `ru_profile`) with that criterion as `risk`.
#' @family profiles
#' @examples
#' d <- dose_cohort[1:1000, c("sex", "city", "age_exp", "dose", "case")]
#' ru <- ru_profile(d, list(mask_round(1), mask_noise(0.5)), case ~ dose, family = binomial(),
#'                  vars = "dose", term = "dose",
#'                  risk = list(singling_out(n_attacks = 200, seed = 1),
#'                              inference(aux = c("sex", "city", "age_exp"), secret = "dose",
#'                                        tolerance = 0.1, seed = 2)),
#'                  progress = FALSE)
#' ru
#' ru_select_risk(ru, "inference")
#' @export
ru_select_risk <- function(x, risk) {
  check_ru_profile(x, "x")
  extra <- profile_extra_risk_columns(x)
  if (!length(extra))
    abort_value("x", "a profile made with several risk criteria (`risk = list(...)`)")
  risk <- check_string(risk)
  col <- if (risk %in% extra) risk else paste0("risk_", risk)
  if (!col %in% extra)
    abort_value("risk", sprintf("one of the profile's further criteria: %s",
                                paste0("\"", sub("^risk_", "", extra), "\"", collapse = ", ")))
  meta <- ru_meta(x)
  crits <- meta$risk_criteria
  at <- match(col, extra) + 1L
  first <- if (length(crits)) paste0("risk_", crits[[1L]]$name) else "risk_first"
  tab <- as.data.frame(x)
  old <- tab$risk
  tab$risk <- tab[[col]]
  tab[[col]] <- NULL
  tab[[make.unique(c(names(tab), first), sep = "_")[[length(tab) + 1L]]]] <- old
  tab$anonymity <- 1 - tab$risk
  tab$risk_se <- NA_real_
  tab$pareto <- ru_pareto(tab$risk, tab$analysis_potential, tab$risk_se,
                          tab$analysis_potential_se)
  kept <- setdiff(names(attributes(x)), c("names", "row.names", "class"))
  attributes(tab)[kept] <- attributes(x)[kept]
  if (length(crits) >= at) {
    meta$risk_criteria <- c(crits[at], crits[-at])
    meta$risk_spec <- crits[[at]]
    meta$risk <- format(crits[[at]])
  } else {
    meta$risk <- sub("^risk_", "", col)
  }
  meta$risk_id <- NULL
  meta$risk_nrep <- NULL
  attr(tab, "meta") <- meta
  class(tab) <- class(x)
  tab
}
