# Pick a masking scheme from a risk-utility profile: the best analysis
# potential within a risk budget (the "minimum safety principle").

#' Recommend a masking scheme within a risk budget
#'
#' Among the schemes of a risk-utility profile whose risk does not exceed
#' `max_risk`, picks the one with the best analysis potential U. Schemes whose
#' risk or U is NA (risk not computed, or `risk = "none"`) never satisfy the
#' budget. U above 1 (a masked fit with a smaller MSE than the original, a
#' sampling artefact) counts as 1, so ties at full utility go to the lower
#' risk, then to the earlier row. The risk column is the disclosure risk
#' (higher is worse), for identifiability the identifiability score, i.e.
#' 1 - anonymity.
#'
#' @param ru an `ru_profile`.
#' @param max_risk the largest acceptable risk, in \[0, 1\].
#' @param n_runner_ups how many next-best schemes to report.
#' @param x an `epimask_recommendation`.
#' @param ... unused.
#' @return An object of class `epimask_recommendation`: a list with `scheme`
#'   (the label, or `NULL` when no scheme satisfies the budget), `choice` (its
#'   row of the profile as a data frame, or `NULL`), `runner_ups` (the next
#'   schemes within budget, best first), `eligible` (all schemes within
#'   budget), `max_risk`, and `no_risk` (schemes left out because their risk
#'   or U is NA), `n_schemes`. When no scheme satisfies the budget a warning of class
#'   `epimask_warning_budget` is given and the least risky scheme is reported
#'   in `least_risky`. `print()` gives a one-paragraph summary.
#' @export
#' @examples
#' ru <- epimask:::example_ru_profile()
#' recommend(ru, max_risk = 0.2)
#' recommend(ru, max_risk = 0.05)$scheme
recommend <- function(ru, max_risk = 0.2, n_runner_ups = 3L) {
  check_ru_profile(ru)
  max_risk <- check_number(max_risk, lower = 0, upper = 1)
  n_runner_ups <- check_count(n_runner_ups, lower = 0L)
  tab <- as.data.frame(ru)
  known <- !is.na(tab$risk) & !is.na(tab$analysis_potential)
  within <- known & tab$risk <= max_risk
  eligible <- tab[within, , drop = FALSE]
  eligible <- eligible[order(-pmin(eligible$analysis_potential, 1), eligible$risk,
                             seq_len(nrow(eligible))), , drop = FALSE]
  rownames(eligible) <- NULL
  least_risky <- NULL
  if (any(known)) {
    cand <- tab[known, , drop = FALSE]
    least_risky <- cand[order(cand$risk, -pmin(cand$analysis_potential, 1))[1L], ,
                        drop = FALSE]
    rownames(least_risky) <- NULL
  }
  out <- structure(list(
    scheme = if (nrow(eligible)) eligible$scheme[[1L]] else NULL,
    choice = if (nrow(eligible)) eligible[1L, , drop = FALSE] else NULL,
    runner_ups = eligible[seq_len(min(n_runner_ups, max(0L, nrow(eligible) - 1L))) + 1L, ,
                          drop = FALSE],
    eligible = eligible,
    max_risk = max_risk,
    no_risk = tab$scheme[!known],
    n_schemes = nrow(tab),
    least_risky = least_risky
  ), class = "epimask_recommendation")
  if (!nrow(eligible))
    epimask_warn(no_choice_message(out), "epimask_warning_budget")
  out
}

describe_choice <- function(row) {
  sprintf("%s (analysis potential %s, risk %s)", row$scheme,
          format_num(row$analysis_potential, 3), format_num(row$risk, 2))
}

no_choice_message <- function(x) {
  msg <- sprintf("No scheme has risk <= %s.", format(x$max_risk))
  if (!is.null(x$least_risky))
    msg <- paste(msg, sprintf("The least risky is %s.", describe_choice(x$least_risky)))
  else msg <- paste(msg, "No scheme has a computed risk.")
  msg
}

#' @rdname recommend
#' @export
format.epimask_recommendation <- function(x, ...) {
  if (is.null(x$choice)) {
    lines <- no_choice_message(x)
  } else {
    lines <- sprintf("Recommended: %s", describe_choice(x$choice))
    runner <- x$runner_ups
    if (nrow(runner)) {
      descr <- vapply(seq_len(nrow(runner)),
                      function(i) describe_choice(runner[i, , drop = FALSE]), "")
      lines <- paste0(lines, "; runner-ups: ", paste(descr, collapse = "; "))
    }
    lines <- paste0(lines, sprintf(". Budget: risk <= %s, %d of %d schemes within it.",
                                   format(x$max_risk), nrow(x$eligible),
                                   x$n_schemes))
  }
  if (length(x$no_risk))
    lines <- c(lines, sprintf("Not considered (risk or analysis potential NA): %s.",
                              paste(x$no_risk, collapse = ", ")))
  strwrap(lines, width = getOption("width", 80), exdent = 2)
}

#' @rdname recommend
#' @export
print.epimask_recommendation <- function(x, ...) {
  cat(format(x), sep = "\n")
  invisible(x)
}
