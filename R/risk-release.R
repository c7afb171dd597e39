# Release context (methods vignette section 17; El Emam & Malin 2014, "Taking context into
# account"): the custodian states who receives the data and how likely an
# attack is; the risk of a release is then the re-identification risk given
# an attack times the probability of the attack, for each attack, and the
# largest of these is compared with a threshold chosen from the paper's bins.

# The paper's Figure 4: minimum cell sizes in use and their thresholds.
release_threshold_bins <- c(3, 5, 11, 20)

#' The release context that sets the risk budget
#'
#' `release_context()` records the custodian's statement of the setting of a
#' release (El Emam & Malin 2014, section "Taking context into account"):
#' whether the data are made public, the probabilities of the attacks on a
#' non-public release, and the risk threshold chosen with its reasons.
#' [risk_release()] then gives the risk of a data set in that context, and
#' `ru_profile(context = )` and [recommend()] take the threshold as the risk
#' budget.
#'
#' **Public release**: a demonstration attack is assumed, so the risk is the
#' maximum (prosecutor) risk \eqn{1 / \min_j f_j} and the threshold is the
#' strictest bin, 1/20 (the default when `public = TRUE`).
#'
#' **Non-public release**: three attacks, each with
#' \eqn{Pr(re\text{-}id, attack) = Pr(re\text{-}id \mid attack) \times Pr(attack)}:
#' a *deliberate* attempt by the recipient (`pr_attempt`, which depends on the
#' recipient's controls, contract and motives), an *inadvertent*
#' re-identification by an analyst who recognises an acquaintance
#' (`pr_acquaintance`), and a *breach* of the recipient's systems
#' (`pr_breach`; default 0.27, the share of health organisations reporting a
#' breach within a year, HIMSS Analytics 2012, quoted by the paper). The risk
#' given an attack is the strict average risk of [risk_kanon()] for all three
#' (for the breach, the maximum risk when `breach_risk = "maximum"`, i.e. the
#' breached data reach an adversary who targets the rarest record). The
#' overall risk is the largest of the three.
#'
#' `pr_attempt` and `pr_acquaintance` have no default: they are the
#' custodian's to state, and no default pretends to know them. A non-public
#' context without them is an error of class `epimask_error_value` naming the
#' argument.
#'
#' **Thresholds** (the paper's Figure 4, from the minimum cell sizes in use):
#' 1/3 (a highly trusted recipient), 1/5, 1/11 and 1/20 (public release). The
#' figure prints "20 (0.02)"; 1/20 = 0.05 is meant. Which bin applies depends
#' on the mitigating controls, the invasion of privacy, and the motives and
#' capacity of the recipient (Figure 5): the custodian chooses and states the
#' reasons, the package records them. A threshold outside the bins is
#' accepted and said to be so.
#'
#' @param public `TRUE` for a public release (anyone may download the data),
#'   `FALSE` for a release to a known recipient under an agreement.
#' @param pr_attempt Probability (in \[0, 1\]) that the recipient attempts a
#'   re-identification. Required when `public = FALSE`.
#' @param pr_acquaintance Probability (in \[0, 1\]) that an analyst knows
#'   someone in the data. Required when `public = FALSE`.
#' @param pr_breach Probability (in \[0, 1\]) of a breach at the recipient
#'   within the period of use; default 0.27 (HIMSS Analytics 2012).
#' @param threshold The risk threshold in (0, 1], usually one of the bins
#'   1/3, 1/5, 1/11, 1/20. Default 1/5 for a non-public release and 1/20 for
#'   a public one.
#' @param reasons Character vector: the custodian's reasons for the threshold
#'   and the probabilities (controls, sensitivity, motives, ...).
#' @param breach_risk Risk given a breach: `"strict_average"` (methods vignette, section 17) or
#'   `"maximum"` (the breached data reach an adversary who targets the rarest
#'   record).
#' @param criteria `NULL`, or [risk criteria][new_risk_criterion()] the
#'   release must meet besides the attacks (a risk criterion or a list of
#'   them, e.g. an upper bound of an attack's success): [risk_release()]
#'   recounts them, the certificate of [deidentify()] states each one, and
#'   the release passes only when the attacks and every criterion do.
#' @return An object of class `release_context`: a list with `public`,
#'   `pr_attempt`, `pr_acquaintance`, `pr_breach`, `threshold`,
#'   `threshold_bin` (the matching minimum cell size 3, 5, 11 or 20, or NA),
#'   `reasons`, `breach_risk`, `criteria` (a list, possibly empty).
#' @references El Emam K, Malin B (2014). Appendix B: Concepts and methods for
#'   de-identifying clinical trial data. In: Sharing Clinical Trial Data.
#'   National Academies Press. Section "Taking context into account".
#' @family release decision
#' @seealso [risk_release()], [ru_profile()], [recommend()].
#' @examples
#' ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5,
#'                        threshold = 1/5,
#'                        reasons = c("data use agreement, audited recipient",
#'                                    "moderately sensitive diagnoses"))
#' ctx
#' release_context(public = TRUE)
#' # a context that also bounds the l-diversity of a sensitive column
#' release_context(pr_attempt = 0.3, pr_acquaintance = 0.5,
#'                 criteria = l_diversity(2, "case"))
#' try(release_context(pr_acquaintance = 0.5))  # pr_attempt must be stated
#' @export
release_context <- function(public = FALSE, pr_attempt = NULL, pr_acquaintance = NULL,
                            pr_breach = 0.27, threshold = 1/5, reasons = character(),
                            breach_risk = c("strict_average", "maximum"), criteria = NULL) {
  criteria <- as_criteria(criteria)
  public <- check_flag(public)
  if (public && missing(threshold)) threshold <- 1/20
  threshold <- check_number(threshold, lower = 0, upper = 1, lower_open = TRUE)
  breach_risk <- check_choice(breach_risk, c("strict_average", "maximum"))
  check_utf8(reasons, "reasons")
  if (!is.character(reasons) || anyNA(reasons))
    abort_type("reasons", "a character vector")
  if (public) {
    for (arg in c("pr_attempt", "pr_acquaintance"))
      if (!is.null(get(arg)))
        abort_value(arg, paste0("NULL for a public release (a demonstration attack is ",
                                "assumed: the risk is the maximum risk, attack probabilities ",
                                "do not enter)"))
    if (threshold > 1/20 + 1e-12)
      epimask_warn(sprintf(paste0(
        "A public release is held to the strictest threshold, 1/20 (El Emam & Malin); ",
        "the threshold %s is looser."), format_threshold(threshold)),
        "epimask_warning_threshold")
  } else {
    pr_attempt <- check_probability_stated(pr_attempt, "pr_attempt",
                                           "that the recipient attempts a re-identification")
    pr_acquaintance <- check_probability_stated(pr_acquaintance, "pr_acquaintance",
                                                "that an analyst knows someone in the data")
  }
  pr_breach <- check_number(pr_breach, lower = 0, upper = 1)
  structure(list(public = public,
                 pr_attempt = if (public) NULL else pr_attempt,
                 pr_acquaintance = if (public) NULL else pr_acquaintance,
                 pr_breach = if (public) NULL else pr_breach,
                 threshold = threshold,
                 threshold_bin = threshold_bin(threshold),
                 reasons = reasons,
                 breach_risk = if (public) NULL else breach_risk,
                 criteria = criteria),
            class = "release_context")
}

# A probability the custodian must state: NULL is a classed error saying so.
check_probability_stated <- function(x, arg, meaning) {
  if (is.null(x))
    epimask_abort(sprintf(paste0(
      "`%s` must be given for a non-public release: the probability %s is the ",
      "custodian's to state (El Emam & Malin, \"Taking context into account\"); ",
      "there is no default."), arg, meaning),
      "epimask_error_value", arg = arg)
  check_number(x, arg, lower = 0, upper = 1)
}

# The minimum cell size of the paper's bins that the threshold equals, or NA.
threshold_bin <- function(threshold) {
  hit <- which(abs(1 / release_threshold_bins - threshold) < 1e-9)
  if (length(hit)) release_threshold_bins[[hit]] else NA_real_
}

format_threshold <- function(threshold) {
  bin <- threshold_bin(threshold)
  if (is.na(bin)) format(signif(threshold, 3))
  else sprintf("1/%d (%s)", as.integer(bin), format(signif(threshold, 3)))
}

#' @rdname release_context
#' @param x A `release_context`.
#' @param ... Unused.
#' @export
format.release_context <- function(x, ...) {
  fmt <- function(p) format(signif(p, 3))
  bin_note <- if (is.na(x$threshold_bin)) " (not one of the bins 1/3, 1/5, 1/11, 1/20)" else ""
  lines <- if (x$public) {
    c("public release: demonstration attack assumed, risk = maximum risk",
      sprintf("threshold %s%s", format_threshold(x$threshold), bin_note))
  } else {
    c("non-public release: deliberate, inadvertent and breach attacks",
      sprintf("Pr(attempt) %s, Pr(acquaintance) %s, Pr(breach) %s",
              fmt(x$pr_attempt), fmt(x$pr_acquaintance), fmt(x$pr_breach)),
      sprintf("risk given an attack: strict average%s",
              if (identical(x$breach_risk, "maximum")) " (breach: maximum)" else ""),
      sprintf("threshold %s%s", format_threshold(x$threshold), bin_note))
  }
  attacks <- article29_statement(x$criteria)
  if (!is.null(attacks)) lines <- c(lines, paste("criteria:", attacks))
  if (length(x$criteria))
    lines <- c(lines, paste("criterion:", vapply(x$criteria, format, "")))
  if (length(x$reasons)) lines <- c(lines, paste("reason:", x$reasons))
  lines
}

#' @rdname release_context
#' @export
print.release_context <- function(x, ...) {
  cat("<release context>\n")
  cat(paste0("  ", format(x)), sep = "\n")
  invisible(x)
}

#' Re-identification risk of a release in its context
#'
#' Applies a [release_context()] to a data set (methods vignette, section 17; El Emam & Malin
#' 2014): equivalence classes on `keys` give the maximum and strict average
#' risks of [risk_kanon()]; for a public release the risk is the maximum
#' risk; for a non-public release each attack's risk is
#' \eqn{Pr(re\text{-}id \mid attack) \times Pr(attack)}:
#' \tabular{lll}{
#'   attack \tab Pr(attack) \tab Pr(re-id | attack) \cr
#'   deliberate \tab `pr_attempt` \tab strict average risk \cr
#'   inadvertent \tab `pr_acquaintance` \tab strict average risk \cr
#'   breach \tab `pr_breach` \tab strict average (or maximum) risk
#' }
#' The overall risk is the largest; the release passes when it is at most the
#' context's threshold.
#'
#' @param data The data set to be released (a data frame or matrix).
#' @param keys Character vector: its quasi-identifiers.
#' @param context A [release_context()].
#' @param criteria `NULL` (the criteria the context states, if any), or
#'   [risk criteria][new_risk_criterion()] to recount besides the attacks
#'   (a criterion or a list; `list()` for none). Each is evaluated on `data`
#'   with `keys` (and `id`); the release passes when the overall risk is
#'   within the threshold and every bounded criterion is met.
#' @param original `NULL`, or the original data, for criteria that compare the
#'   release with it (record matching, linkage, the attacks of a synthetic
#'   release).
#' @param ... Passed to [risk_kanon()] (e.g. `population`, `pi`, `weights`,
#'   and `id`, the person column, when a person has several records: the
#'   risks are then of persons).
#' @param uniqueness For a public release that is a sample of a population:
#'   `NULL`, a [population_model()] (estimated here on `data` and `keys`) or a
#'   [risk_population()] result. The public attack's \eqn{Pr(re\text{-}id)} is
#'   then the estimated share of population uniques (an intruder who matches
#'   the release to a population register re-identifies the records unique
#'   in the population, an expected share \eqn{U / N} of a simple random
#'   sample) instead of the sample's maximum risk, which treats the sample as
#'   the whole population.
#' @return An object of class `risk_release`: `$attacks` (data frame with
#'   `attack`, `pr_attack`, `pr_reid_given`, `risk`), `$overall`,
#'   `$threshold`, `$pass`, `$context`, `$kanon` (the [risk_kanon()] result),
#'   `$criteria` (one `criterion_result` per criterion; [tidy()] gives their
#'   rows).
#' @family release decision
#' @seealso [release_context()], [risk_kanon()].
#' @examples
#' ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 1/5)
#' d <- dose_cohort
#' d$dose_band <- cut(d$dose, c(-Inf, 0.005, 0.1, 0.5, 1, Inf))
#' r <- risk_release(d, c("city", "sex", "dose_band"), ctx)
#' r
#' summary(r)
#' plot(r)
#' # age at exposure in single years leaves unique records: the release fails
#' risk_release(d, c("city", "sex", "age_exp", "dose_band"), ctx)
#' risk_release(d, c("city", "sex"), release_context(public = TRUE))
#' # a criterion besides the attacks
#' risk_release(d, c("city", "sex", "dose_band"), ctx, criteria = l_diversity(2, "case"))
#' @export
risk_release <- function(data, keys, context, criteria = NULL, original = NULL, ...,
                         uniqueness = NULL) {
  if (!inherits(context, "release_context"))
    abort_type("context", "a release_context() object")
  criteria <- if (is.null(criteria)) context$criteria else as_criteria(criteria)
  kanon <- risk_kanon(data, keys, ...)
  if (!is.null(uniqueness)) {
    if (inherits(uniqueness, "epimask_population_model")) {
      uniqueness <- risk_population(data, keys, uniqueness)
    } else if (!inherits(uniqueness, "epimask_population")) {
      abort_type("uniqueness", "NULL, a population_model() or a risk_population() result")
    }
    if (!context$public)
      abort_value("uniqueness", "given for a public release only (the attacks of a non-public release use the average risk)")
    if (is.na(uniqueness$share))
      epimask_abort(sprintf("The population-uniqueness estimate is NA (%s); choose another model.",
                            uniqueness$reason),
                    c("epimask_error_convergence", "epimask_error_value"), arg = "uniqueness")
  }
  attacks <- if (context$public && !is.null(uniqueness)) {
    data.frame(attack = sprintf("public (population uniques, %s)", uniqueness$used), pr_attack = 1,
               pr_reid_given = uniqueness$share, stringsAsFactors = FALSE)
  } else if (context$public) {
    data.frame(attack = "public", pr_attack = 1, pr_reid_given = kanon$max_risk,
               stringsAsFactors = FALSE)
  } else {
    breach_given <- if (identical(context$breach_risk, "maximum")) kanon$max_risk
                    else kanon$strict_avg_risk
    data.frame(attack = c("deliberate", "inadvertent", "breach"),
               pr_attack = c(context$pr_attempt, context$pr_acquaintance, context$pr_breach),
               pr_reid_given = c(kanon$strict_avg_risk, kanon$strict_avg_risk, breach_given),
               stringsAsFactors = FALSE)
  }
  attacks$risk <- attacks$pr_attack * attacks$pr_reid_given
  overall <- max(attacks$risk)
  id <- list(...)[["id"]]
  results <- if (length(criteria))
    release_criteria(prepare_criteria(criteria, data, keys, id), data, original, keys, id)
  else list()
  structure(list(attacks = attacks, overall = overall, threshold = context$threshold,
                 pass = overall <= context$threshold && criteria_pass(results),
                 context = context, kanon = kanon, keys = keys, uniqueness = uniqueness,
                 criteria = results),
            class = "risk_release")
}

#' @rdname risk_release
#' @param x,object A `risk_release` object.
#' @param digits Significant digits shown.
#' @export
format.risk_release <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  fmt <- function(v) vapply(v, function(e) format(signif(e, digits)), "")
  a <- x$attacks
  worst <- a$attack[which.max(a$risk)]
  rows <- sprintf("  %-*s Pr(attack) %-6s x Pr(re-id | attack) %-8s = %s",
                  max(12L, nchar(a$attack)), a$attack, fmt(a$pr_attack),
                  fmt(a$pr_reid_given), fmt(a$risk))
  c(sprintf("release risk: %s, keys %s; %s",
            unit_count(x$kanon), paste(x$keys, collapse = ", "),
            if (x$context$public) "public release" else "non-public release"),
    rows,
    if (length(x$criteria)) paste0("  ", unlist(lapply(x$criteria, format))),
    sprintf("overall risk %s (%s) %s threshold %s%s: %s",
            fmt(x$overall), worst, if (x$overall <= x$threshold) "<=" else ">",
            format_threshold(x$threshold),
            if (length(x$criteria)) sprintf(", criteria %s",
                                            if (criteria_pass(x$criteria)) "met" else "NOT met")
            else "", if (x$pass) "PASS" else "FAIL"))
}

#' @rdname risk_release
#' @export
print.risk_release <- function(x, digits = 3, ...) print_formatted(x, digits = digits)

#' @rdname risk_release
#' @export
summary.risk_release <- function(object, ...) {
  k <- object$kanon
  structure(list(release = object,
                 classes = c(n_classes = k$n_classes, smallest = min(k$classes$size),
                             uniques = k$n_uniques, doubles = k$n_doubles),
                 risks = c(maximum = k$max_risk, average = k$avg_risk,
                           strict_average = k$strict_avg_risk),
                 margin = object$threshold - object$overall),
            class = "summary.risk_release")
}

#' @rdname risk_release
#' @export
format.summary.risk_release <- function(x, digits = 3, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    fmt <- function(v) format(signif(v, digits))
    print(x$release, digits = digits)
    cat(sprintf("equivalence classes: %d (smallest %d; %d uniques, %d doubles)\n",
                x$classes[["n_classes"]], x$classes[["smallest"]],
                x$classes[["uniques"]], x$classes[["doubles"]]))
    cat(sprintf("risk given an attack: maximum %s, average %s, strict average %s\n",
                fmt(x$risks[["maximum"]]), fmt(x$risks[["average"]]),
                fmt(x$risks[["strict_average"]])))
    cat(sprintf("margin to the threshold: %s\n", fmt(x$margin)))
    cat("context:\n")
    cat(paste0("  ", format(x$release$context)), sep = "\n")
  })
}

#' @export
print.summary.risk_release <- function(x, ...) print_formatted(x, ...)

#' @rdname risk_release
#' @param y Unused.
#' @param main Plot title (`NULL`: the verdict).
#' @details `plot()` draws the risk of each attack (Pr(attack) x
#'   Pr(re-identification | attack)) as a bar, with the threshold as a dashed
#'   line; the bars of attacks above the threshold are red.
#' @export
plot.risk_release <- function(x, y = NULL, main = NULL, ...) {
  main <- check_string(main, allow_null = TRUE)
  a <- x$attacks
  risk <- a$risk
  risk[is.na(risk)] <- 0
  if (is.null(main))
    main <- sprintf("Release risk by attack (%s)", if (x$pass) "passes" else "fails")
  cols <- ifelse(!is.na(a$risk) & a$risk <= x$threshold, "steelblue", "firebrick")
  mid <- graphics::barplot(stats::setNames(risk, a$attack), col = cols,
                           ylim = c(0, max(1, risk) * 1.1),
                           ylab = "Pr(re-identification | attack) x Pr(attack)", main = main, ...)
  graphics::text(mid, risk, vapply(a$risk, function(v) format(signif(v, 3)), ""), pos = 3,
                 cex = 0.8)
  graphics::abline(h = x$threshold, lty = 2)
  graphics::text(graphics::par("usr")[1], x$threshold,
                 sprintf("threshold %s", format(signif(x$threshold, 3))),
                 adj = c(-0.05, -0.4), cex = 0.8)
  invisible(x)
}

#' @rdname risk_release
#' @param row.names,optional Ignored.
#' @export
as.data.frame.risk_release <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$attacks
}
