# Pick a masking scheme from a risk-utility profile: the best analysis
# potential within a risk budget (the "minimum safety principle"), honest
# about uncertainty: differences smaller than their Monte Carlo uncertainty
# are ties, broken toward lower risk, then toward less bias; U above 1 is "no
# measurable loss", never a gain.

#' Recommend a masking scheme within a risk budget
#'
#' Among the schemes of a risk-utility profile whose risk does not exceed the
#' budget, picks the one with the best analysis potential U, allowing for the
#' uncertainty of U:
#' 1. U is the analysis potential the profile reports and plots (column
#'    `analysis_potential`): \eqn{MSE_{ref} / (\max(MSE - bias^2,
#'    SE_{ref}^2) + bias^2)}, the masked variance floored at the original's,
#'    since masking cannot add information. It is at most 1 and counts a
#'    bias in full; the raw ratio \eqn{MSE_{ref} / MSE} of Cologne et al.
#'    (2012), which a naive SE shrunk by masking (noise or coarse rounding
#'    spreading a dose) can push above 1 while the bias grows, is kept as
#'    `analysis_potential_raw` and named in the explanation where it differs.
#' 2. Schemes whose U is within \eqn{z \sqrt{SE_i^2 + SE_b^2}} (\eqn{z} =
#'    1.96; the Monte Carlo SEs of U, `analysis_potential_se`, 0 where NA) or
#'    within `u_tolerance` of the best scheme \eqn{b} are tied with it. A
#'    deterministic scheme has no Monte Carlo SE, yet a loss of analysis
#'    potential below 1% (a bias of about a tenth of the original SE) is not
#'    one a custodian can measure; `u_tolerance = 0` gives the strict rule.
#' 3. Ties go to the lowest risk; schemes whose risks are also tied (within
#'    their Monte Carlo uncertainty) go to the smallest absolute bias, then to
#'    the earlier row.
#'
#' The budget is `max_risk`, or the threshold of a release `context`
#' ([release_context()]), or the budget stored with the profile
#' (`ru_profile(context = )`), or 0.2. Schemes whose risk or U is NA never
#' satisfy it. The explanation names the runner-ups and why each lost (lower
#' U, higher risk at tied U, more bias, or a risk over the budget).
#'
#' When the profile's risk is exact-match identifiability and a scheme within
#' the budget changes values without creating ties (noise, kernels, matrix
#' masks), a warning of class `epimask_warning_blind_risk` says that the
#' measure cannot see that scheme: its low risk is not evidence of safety.
#'
#' @param ru an `ru_profile`.
#' @param max_risk the largest acceptable risk, in \[0, 1\]; `NULL` for the
#'   context's threshold or the profile's budget (default 0.2).
#' @param n_runner_ups how many next-best schemes to report.
#' @param context `NULL` or a [release_context()], whose threshold is then
#'   the budget.
#' @param u_tolerance Differences of the analysis potential up to this
#'   count as ties (default 0.01).
#' @param x an `epimask_recommendation`.
#' @param ... unused.
#' @return An object of class `epimask_recommendation`: a list with `scheme`
#'   (the label, or `NULL` when no scheme satisfies the budget), `choice` (its
#'   row of the profile as a data frame, or `NULL`), `runner_ups` (the next
#'   schemes, best first, with a column `reason` saying why each lost; schemes
#'   over the budget with a higher U among them), `eligible` (all schemes
#'   within budget, best first), `ties` (the schemes tied with the best on U),
#'   `max_risk` (the budget), `context`, `no_risk` (schemes left out because
#'   their risk or U is NA), `n_schemes`, `blind` (schemes within budget that
#'   the risk measure cannot see). When no scheme satisfies the budget a
#'   warning of class `epimask_warning_budget` is given and the least risky
#'   scheme is reported in `least_risky`. `print()` gives a one-paragraph
#'   summary.
#' @family release decision
#' @export
#' @examples
#' sim <- simulate_zdl(1, n = 300, seed = 1)
#' schemes <- c(mask_sweep(mask_round, digits = 2:0, type = "decimal"),
#'              mask_sweep(mask_noise, amount = c(0.05, 0.2, 0.5)))
#' ru <- ru_profile(sim, schemes, y ~ x, family = poisson(), vars = "x",
#'                  risk = match_risk("x"), nrep = 5, seed = 1, progress = FALSE)
#' recommend(ru, max_risk = 0.2)
#' recommend(ru, context = release_context(pr_attempt = 0.3, pr_acquaintance = 0.5,
#'                                         threshold = 1/11))$scheme
recommend <- function(ru, max_risk = NULL, n_runner_ups = 3L, context = NULL,
                      u_tolerance = 0.01) {
  check_ru_profile(ru)
  if (!is.null(context) && !inherits(context, "release_context"))
    abort_type("context", "a release_context() or NULL")
  max_risk <- check_number(max_risk, lower = 0, upper = 1, allow_null = TRUE)
  if (!is.null(max_risk) && !is.null(context) && abs(max_risk - context$threshold) > 1e-12)
    abort_value("max_risk", sprintf("NULL or the context's threshold (%s) when `context` is given",
                                    format(context$threshold)))
  meta <- ru_meta(ru)
  if (is.null(context)) context <- meta$context
  budget <- max_risk %||% (if (!is.null(context)) context$threshold) %||% meta$budget %||% 0.2
  n_runner_ups <- check_count(n_runner_ups, lower = 0L)
  u_tolerance <- check_number(u_tolerance, lower = 0, upper = 1)

  tab <- as.data.frame(ru)
  tab$.row <- seq_len(nrow(tab))
  r_se <- zero_if_na(tab$risk_se %||% rep(NA_real_, nrow(tab)))
  ref <- ru_reference(ru)
  # the reported (capped) U and its SE, as the frontier and the plots take them
  u <- ru_u(tab)
  if (!u$capped) {
    u$u <- capped_potential(tab$mse, tab$bias, ref$mse, ref$se)
    u$se <- capped_potential_se(u$se, tab$analysis_potential, u$u)
  }
  tab$.u <- u$u
  tab$.u_se <- zero_if_na(u$se)
  # what the recommendation prints and returns is the U it ranked by
  if (is.null(tab$analysis_potential_raw)) {
    tab$analysis_potential_raw <- tab$analysis_potential
    tab$analysis_potential_raw_se <- tab$analysis_potential_se %||% rep(NA_real_, nrow(tab))
  }
  tab$analysis_potential <- u$u
  tab$analysis_potential_se <- u$se
  tab$analysis_potential_capped <- NULL
  tab$.r_se <- r_se
  known <- !is.na(tab$risk) & !is.na(tab$analysis_potential)
  within <- known & tab$risk <= budget
  eligible <- tab[within, , drop = FALSE]

  ranked <- rank_within_budget(eligible, u_tolerance)
  least_risky <- NULL
  if (any(known)) {
    cand <- tab[known, , drop = FALSE]
    least_risky <- strip_helper_columns(cand[order(cand$risk, -cand$.u)[1L], , drop = FALSE])
  }
  choice <- if (nrow(ranked$table)) ranked$table[1L, , drop = FALSE]
  runner_ups <- explain_runner_ups(choice, ranked, tab[known & !within, , drop = FALSE],
                                   n_runner_ups)
  blind <- blind_schemes(ru, eligible$scheme)
  out <- structure(list(
    scheme = if (!is.null(choice)) choice$scheme else NULL,
    choice = if (!is.null(choice)) strip_helper_columns(choice) else NULL,
    runner_ups = runner_ups,
    eligible = strip_helper_columns(ranked$table),
    ties = ranked$ties,
    max_risk = budget,
    context = context,
    no_risk = tab$scheme[!known],
    n_schemes = nrow(tab),
    least_risky = least_risky,
    blind = blind,
    risk_measure = meta$risk,
    u_tolerance = u_tolerance
  ), class = "epimask_recommendation")
  if (length(blind))
    epimask_warn(sprintf(paste0(
      "The recommendation rests on exact-match identifiability, which cannot see %s ",
      "(values changed without creating ties): a risk near 0 there is not evidence of ",
      "safety. Profile with risk = match_risk() (or another criterion that sees them) before deciding."),
      paste0("'", blind, "'", collapse = ", ")), "epimask_warning_blind_risk")
  if (is.null(choice))
    epimask_warn(no_choice_message(out), "epimask_warning_budget")
  out
}

zero_if_na <- function(x) {
  x[is.na(x)] <- 0
  x
}

strip_helper_columns <- function(df) {
  df <- df[, !startsWith(names(df), "."), drop = FALSE]
  rownames(df) <- NULL
  df
}

# Within-uncertainty ties: |a - b| <= z sqrt(se_a^2 + se_b^2) (+ 1e-9).
within_noise <- function(a, b, se_a, se_b) abs(a - b) <= ru_z() * sqrt(se_a^2 + se_b^2) + 1e-9

# Order the schemes within budget: the schemes tied with the best U first
# (lowest risk, then tied risks by smallest |bias|, then row), then the others
# by U, risk and row.
rank_within_budget <- function(eligible, u_tolerance = 0) {
  if (!nrow(eligible)) return(list(table = eligible, ties = character()))
  best <- which.max(eligible$.u)
  tied <- within_noise(eligible$.u, eligible$.u[best], eligible$.u_se, eligible$.u_se[best]) |
    eligible$.u >= eligible$.u[best] - u_tolerance
  tied_tab <- eligible[tied, , drop = FALSE]
  tied_tab <- tied_tab[order(tied_tab$risk, tied_tab$.row), , drop = FALSE]
  # among risks tied with the lowest, the least biased wins
  low <- within_noise(tied_tab$risk, tied_tab$risk[1L], tied_tab$.r_se, tied_tab$.r_se[1L])
  head_tab <- tied_tab[low, , drop = FALSE]
  head_tab <- head_tab[order(abs(head_tab$bias), head_tab$risk, head_tab$.row), , drop = FALSE]
  tied_tab <- rbind(head_tab, tied_tab[!low, , drop = FALSE])
  rest <- eligible[!tied, , drop = FALSE]
  rest <- rest[order(-rest$.u, rest$risk, rest$.row), , drop = FALSE]
  table <- rbind(tied_tab, rest)
  rownames(table) <- NULL
  list(table = table, ties = tied_tab$scheme)
}

# The next schemes within budget and the better-U schemes over it, each with
# the reason it lost to the choice.
explain_runner_ups <- function(choice, ranked, over, n) {
  empty <- data.frame(scheme = character(), analysis_potential = numeric(),
                      risk = numeric(), reason = character(), stringsAsFactors = FALSE)
  if (is.null(choice) || n == 0L) return(empty)
  inside <- ranked$table[-1L, , drop = FALSE]
  inside <- inside[seq_len(min(n, nrow(inside))), , drop = FALSE]
  reason_inside <- vapply(seq_len(nrow(inside)), function(i)
    lost_reason(inside[i, , drop = FALSE], choice, inside$scheme[[i]] %in% ranked$ties), "")
  better_over <- over[over$.u > choice$.u + 1e-9 |
                        within_noise(over$.u, choice$.u, over$.u_se, choice$.u_se), , drop = FALSE]
  better_over <- better_over[order(-better_over$.u, better_over$risk), , drop = FALSE]
  better_over <- better_over[seq_len(min(n, nrow(better_over))), , drop = FALSE]
  reason_over <- sprintf("risk %s is over the budget", format_num(better_over$risk, 2))
  out <- rbind(
    data.frame(scheme = inside$scheme, analysis_potential = inside$analysis_potential,
               risk = inside$risk, reason = reason_inside, stringsAsFactors = FALSE),
    data.frame(scheme = better_over$scheme, analysis_potential = better_over$analysis_potential,
               risk = better_over$risk, reason = reason_over, stringsAsFactors = FALSE))
  rownames(out) <- NULL
  out
}

lost_reason <- function(row, choice, tied) {
  if (!tied) {
    return(sprintf("lower analysis potential (%s vs %s)", describe_u(row), describe_u(choice)))
  }
  if (row$risk > choice$risk) {
    pair <- c(describe_risk(row), describe_risk(choice))
    if (pair[1] == pair[2]) pair <- format_distinct(row$risk, choice$risk)
    return(sprintf("U tied, higher risk (%s vs %s)", pair[1], pair[2]))
  }
  if (abs(row$bias) > abs(choice$bias)) {
    pair <- format_distinct(row$bias, choice$bias)
    return(sprintf("U and risk tied, more bias (%s vs %s)", pair[1], pair[2]))
  }
  "U and risk tied, ranked after it"
}

# Two numbers with enough significant digits to tell them apart (up to 6).
format_distinct <- function(a, b) {
  for (d in 2:6) {
    out <- format_num(c(a, b), d)
    if (out[1] != out[2]) return(out)
  }
  out
}

# U as reported (the capped U of the profile and the plot), with its Monte
# Carlo SE, and the raw MSE ratio where the floor on the masked variance
# changed it visibly (above 1, or by more than 0.05).
describe_u <- function(row) {
  u <- row$.u %||% row$analysis_potential
  se <- row$.u_se %||% row$analysis_potential_se %||% NA_real_
  txt <- format_num(u, 3)
  if (!is.na(se) && se > 0) txt <- sprintf("%s +- %s", txt, format_num(se, 2))
  raw <- row$analysis_potential_raw %||% NA_real_
  if (!is.na(raw) && !is.na(u) && (raw > 1 || raw - u > 0.05))
    txt <- sprintf("%s; raw MSE ratio %s, from a naive SE that shrank under masking",
                   txt, format_num(raw, 3))
  txt
}

# Schemes within budget that the profile's risk cannot see: exact-match
# identifiability with the schemes whose type has the `exact_match_blind`
# trait (noise, kernels, matrix masks), as ru_profile() recorded them from
# the criterion (criterion_blind_to()).
blind_schemes <- function(ru, candidates) {
  intersect(candidates, ru_meta(ru)$blind)
}

describe_choice <- function(row) {
  sprintf("%s (analysis potential %s; risk %s%s)", row$scheme,
          describe_u(row), describe_risk(row), records_phrase(row))
}

# "; its fit left out 34 of 203 records (stop <= start)" where it did.
records_phrase <- function(row) {
  note <- profile_records_note(row)
  if (!nzchar(note)) return("")
  lost <- row$records_lost
  interval <- row$records_lost_interval %||% 0
  sprintf("; U from %s of %s records, %s left out (%s)",
          format_record_count(row$records_used), format_record_count(row$records_used + lost),
          format_record_count(lost),
          paste(c(if (isTRUE(interval > 0)) "stop <= start",
                  if (isTRUE(lost - interval > 0)) "missing values"), collapse = " or "))
}

describe_risk <- function(row) {
  se <- row$risk_se %||% NA_real_
  txt <- format_num(row$risk, 2)
  if (!is.na(se) && se > 0) txt <- sprintf("%s +- %s", txt, format_num(se, 2))
  txt
}

no_choice_message <- function(x) {
  msg <- sprintf("No scheme has risk <= %s.", format(signif(x$max_risk, 3)))
  if (!is.null(x$least_risky))
    msg <- paste(msg, sprintf("The least risky is %s.", describe_choice(x$least_risky)))
  else msg <- paste(msg, "No scheme has a computed risk.")
  msg
}

budget_phrase <- function(x) {
  if (is.null(x$context)) return(sprintf("risk <= %s", format(signif(x$max_risk, 3))))
  sprintf("risk <= %s, the threshold of the %s release context",
          format_threshold(x$max_risk), if (x$context$public) "public" else "non-public")
}

#' @rdname recommend
#' @export
format.epimask_recommendation <- function(x, ...) {
  if (is.null(x$choice)) {
    lines <- no_choice_message(x)
  } else {
    lines <- sprintf("Recommended: %s.", describe_choice(x$choice))
    if (length(x$ties) > 1L)
      lines <- paste(lines, sprintf(
        "%d schemes tie on analysis potential (within their uncertainty or %s); the tie goes to the lowest risk, then the least bias.",
        length(x$ties), format(x$u_tolerance %||% 0)))
    runner <- x$runner_ups
    if (nrow(runner)) {
      descr <- sprintf("%s: %s", runner$scheme, runner$reason)
      lines <- paste(lines, paste0("Runner-ups: ", paste(descr, collapse = "; "), "."))
    }
    lines <- paste(lines, sprintf("Budget: %s; %d of %d schemes within it%s.",
                                  budget_phrase(x), nrow(x$eligible), x$n_schemes,
                                  if (!is.null(x$risk_measure) && !is.na(x$risk_measure))
                                    sprintf(" (risk: %s)", x$risk_measure) else ""))
  }
  if (length(x$blind))
    lines <- c(lines, sprintf("Warning: exact-match identifiability cannot see %s.",
                              paste(x$blind, collapse = ", ")))
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
