# DiSCO as a risk criterion (synthpop 1.9 R/disclosure.R; methods vignette
# section 29): attribute disclosure of a synthetic release, the share of
# original records whose target a copy gives with certainty, and rightly.

#' DiSCO: attribute disclosure of a synthetic release
#'
#' An intruder who knows a person's keys looks them up in a synthetic copy:
#' when every synthetic record with those keys has the same value of the
#' `target`, the copy discloses that value with certainty; when it is the
#' person's own value, the disclosure is correct. *DiSCO* (Disclosive in
#' Synthetic, Correct in Original; synthpop 1.9, R/disclosure.R, Raab,
#' Nowok & Dibben 2024; methods vignette, section 29) is the share of the
#' original records so disclosed: with `copies = "any"` (default) by at
#' least one of the `m` copies, with `"mean"` the mean over the copies of
#' each copy's share (synthpop's per-synthesis figure, averaged as in its
#' `multi.disclosure()`). Key and target values are compared exactly, NA as
#' a value of its own (synthpop's `usekeysNA = TRUE`, `usetargetNA = TRUE`,
#' no exclusions): a numeric target is best grouped first (a disclosed
#' exact income is rare, a disclosed income band is not).
#'
#' The original records are those the release was synthesised from (the
#' holdout of [mask_synth()] left out); a plain data frame as `release` is
#' one copy.
#'
#' @param target The sensitive column.
#' @param keys `NULL` (the keys of the call) or the keys an intruder knows.
#' @param max `NA` (reported only) or the largest share accepted, in \[0, 1\].
#' @param copies `"any"` or `"mean"` (see Details).
#' @return A risk criterion of class `c("risk_disco", "risk_criterion")`.
#'   Evaluated ([criterion_evaluate()] with the release and `original`), its
#'   `detail` is a data frame with one row per copy of synthpop's attribute
#'   measures as shares: `Dorig` (original records whose class of keys has
#'   one target value in the original), `Dsyn` (synthetic records whose class
#'   has one target value in the copy), `iS` (original records whose keys the
#'   copy holds), `DiS` (whose keys' class in the copy has one target value),
#'   `DiSCO` (and it is theirs), `DiSDiO` (DiSCO records whose class in the
#'   original has one target value too).
#' @references Raab GM, Nowok B, Dibben C (2024). Practical privacy metrics
#'   for synthetic data. arXiv:2406.16826.
#' @family risk criteria
#' @examples
#' set.seed(5)
#' d <- data.frame(age = sample(20:80, 300, TRUE), sex = sample(c("f", "m"), 300, TRUE))
#' d$diabetes <- factor(ifelse(runif(300) < plogis(-4 + 0.05 * d$age), "yes", "no"))
#' syn <- apply_mask(d, mask_synth(m = 3))
#' criterion_evaluate(disco("diabetes", keys = c("age", "sex")), syn, d)
#' @export
disco <- function(target, keys = NULL, max = NA, copies = c("any", "mean")) {
  target <- check_string(target, "target")
  copies <- check_choice(copies, c("any", "mean"), arg = "copies")
  if (!is.null(keys) && (!is.character(keys) || !length(keys) || anyNA(keys)))
    abort_type("keys", "NULL or a character vector of key columns")
  if (target %in% keys) abort_value("target", "a column that is not a key")
  max <- if (length(max) == 1L && is.na(max)) NA_real_ else check_number(max, "max", lower = 0, upper = 1)
  new_risk_criterion("disco", target = target, copies = copies, keys = keys, bound = max,
                     columns = target,
                     label = sprintf("DiSCO of '%s'%s (%s)", target,
                                     if (!is.na(max)) sprintf(" <= %s", format(max)) else "",
                                     if (copies == "any") "in any copy" else "mean over copies"),
                     explanation = paste("Share of the original records whose target value a",
                                         "synthetic copy gives with certainty for their keys,",
                                         "and rightly (synthpop's DiSCO)."))
}

#' @export
criterion_evaluate.risk_disco <- function(criterion, release, original = NULL, keys = NULL,
                                          id = NULL, generalize = NULL,
                                          rows = NULL, ...) {
  if (!is.null(id)) abort_value("id", "NULL: DiSCO counts records")
  parts <- release_copies_and_original(release, original, generalize = generalize, rows = rows)
  keys <- check_criterion_keys(criterion$keys %||% keys, parts$original,
                               names(parts$copies[[1L]]), "DiSCO")
  if (criterion$target %in% keys) abort_value("keys", "keys other than the target")
  check_columns(criterion$target, parts$original, "target", "original")
  if (!criterion$target %in% names(parts$copies[[1L]]))
    abort_name("target", criterion$target, "the release")
  res <- disco_counts(parts$original, parts$copies, keys, criterion$target)
  value <- if (criterion$copies == "any") res$any else mean(res$per_copy$DiSCO)
  new_criterion_result(criterion, value, detail = res$per_copy, unit = "records",
                       note = sprintf("%d cop%s; %s; in the original data %s%s",
                                      length(parts$copies),
                                      if (length(parts$copies) == 1L) "y" else "ies",
                                      if (criterion$copies == "any") sprintf("mean over copies %s",
                                        format(signif(mean(res$per_copy$DiSCO), 3)))
                                      else sprintf("in any copy %s", format(signif(res$any, 3))),
                                      format(signif(res$per_copy$Dorig[[1L]], 3)),
                                      if (parts$holdout) sprintf("; %d holdout records left out",
                                                                 parts$holdout) else ""))
}

# Per copy the attribute measures (shares), and the share of original
# records correctly disclosed by any copy.
disco_counts <- function(original, copies, keys, target) {
  no <- nrow(original)
  hit_any <- logical(no)
  rows <- lapply(copies, function(cp) {
    g <- shared_key_groups(original, cp, keys)
    tc <- key_codes(original, target, other = cp)
    t_o <- tc[[1L]][, 1L]
    t_s <- tc[[2L]][, 1L]
    one_s <- single_value_groups(g$copy, t_s, g$n)
    one_o <- single_value_groups(g$orig, t_o, g$n)
    in_s <- tabulate(g$copy, g$n)[g$orig] > 0L
    dis <- !is.na(one_s$value[g$orig])
    correct <- dis & one_s$value[g$orig] == t_o
    hit_any <<- hit_any | correct
    data.frame(Dorig = mean(!is.na(one_o$value[g$orig])),
               Dsyn = mean(!is.na(one_s$value[g$copy])), iS = mean(in_s), DiS = mean(dis),
               DiSCO = mean(correct),
               DiSDiO = mean(correct & !is.na(one_o$value[g$orig])))
  })
  list(per_copy = cbind(copy = seq_along(copies), do.call(rbind, rows)), any = mean(hit_any))
}

# For each key group 1..n_groups: the target code when every record of the
# group has that one value, NA when the group has several values or none.
single_value_groups <- function(group, value, n_groups) {
  pairs <- unique(data.frame(g = group, v = value))
  distinct <- tabulate(pairs$g, n_groups)
  out <- rep(NA_integer_, n_groups)
  single <- pairs[distinct[pairs$g] == 1L, , drop = FALSE]
  out[single$g] <- single$v
  list(value = out)
}
