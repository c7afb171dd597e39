# Replicated uniques as a risk criterion (synthpop 1.9 R/disclosure.R, repU;
# methods vignette section 29): the share of original records unique on the
# keys whose key combination a synthetic copy holds exactly once.

#' Replicated uniques: identity disclosure of a synthetic release
#'
#' An original record that is unique on the keys and whose key combination
#' a synthetic copy holds exactly once is a *replicated unique*: an intruder
#' who knows the person's keys finds one synthetic record, and it is there
#' because the person is (synthpop's `repU`, Raab, Nowok & Dibben 2024,
#' R/disclosure.R of synthpop 1.9; methods vignette, section 29). The value
#' is the share of the original records that are replicated uniques: with
#' `copies = "any"` (default) in at least one of the `m` copies (the release
#' is all of them), with `"mean"` the mean over the copies of each copy's
#' share (the figure synthpop prints per synthesis, averaged as in its
#' `multi.disclosure()`). Key values are compared exactly, NA as a value of
#' its own (as synthpop's `usekeysNA = TRUE`).
#'
#' The original records are those the release was synthesised from: the
#' holdout of [mask_synth()] is left out (it is the attacks' control set),
#' so `original` must be the data given to [apply_mask()]. A plain data frame
#' as `release` counts as one copy (masked data, whose unique records
#' survive masking when their keys are unchanged).
#'
#' @param keys `NULL` (the keys of the call) or the keys an intruder knows.
#' @param max `NA` (reported only) or the largest share accepted, in \[0, 1\].
#' @param copies `"any"` or `"mean"` (see Details).
#' @return A risk criterion of class `c("risk_replicated_uniques",
#'   "risk_criterion")`. Evaluated ([criterion_evaluate()] with the release
#'   and `original`), its `detail` is a data frame with one row per copy:
#'   `UiO` (share of original records unique on the keys), `UiS` (share of
#'   the copy's records unique in it), `UiOiS` (original uniques whose keys
#'   the copy holds), `repU` (replicated uniques), all as shares (synthpop
#'   prints percentages), and `any`, the share over all copies.
#' @references Raab GM, Nowok B, Dibben C (2024). Practical privacy metrics
#'   for synthetic data. arXiv:2406.16826.
#' @family risk criteria
#' @examples
#' set.seed(4)
#' d <- data.frame(age = sample(20:80, 300, TRUE), sex = sample(c("f", "m"), 300, TRUE),
#'                 y = rnorm(300))
#' syn <- apply_mask(d, mask_synth(m = 3))
#' crit <- replicated_uniques(keys = c("age", "sex"), max = 0.05)
#' criterion_evaluate(crit, syn, d)
#' @export
replicated_uniques <- function(keys = NULL, max = NA, copies = c("any", "mean")) {
  copies <- check_choice(copies, c("any", "mean"), arg = "copies")
  if (!is.null(keys) && (!is.character(keys) || !length(keys) || anyNA(keys)))
    abort_type("keys", "NULL or a character vector of key columns")
  max <- if (length(max) == 1L && is.na(max)) NA_real_ else check_number(max, "max", lower = 0, upper = 1)
  new_risk_criterion("replicated_uniques", copies = copies, keys = keys, bound = max,
                     label = sprintf("replicated uniques%s (%s)",
                                     if (!is.na(max)) sprintf(" <= %s", format(max)) else "",
                                     if (copies == "any") "in any copy" else "mean over copies"),
                     explanation = paste("Share of the original records unique on the keys whose",
                                         "key combination a synthetic copy holds exactly once",
                                         "(synthpop's repU)."))
}

#' @export
criterion_evaluate.risk_replicated_uniques <- function(criterion, release, original = NULL,
                                                       keys = NULL, id = NULL, generalize = NULL,
                                                       rows = NULL, ...) {
  if (!is.null(id)) abort_value("id", "NULL: replicated uniques count records")
  parts <- release_copies_and_original(release, original, generalize = generalize, rows = rows)
  keys <- check_criterion_keys(criterion$keys %||% keys, parts$original,
                               names(parts$copies[[1L]]), "replicated uniques")
  res <- replicated_uniques_counts(parts$original, parts$copies, keys)
  value <- if (criterion$copies == "any") res$any else mean(res$per_copy$repU)
  new_criterion_result(criterion, value, detail = res$per_copy, unit = "records",
                       note = sprintf("%d cop%s; %s%s", length(parts$copies),
                                      if (length(parts$copies) == 1L) "y" else "ies",
                                      if (criterion$copies == "any") sprintf("mean over copies %s",
                                        format(signif(mean(res$per_copy$repU), 3)))
                                      else sprintf("in any copy %s", format(signif(res$any, 3))),
                                      if (parts$holdout) sprintf("; %d holdout records left out",
                                                                 parts$holdout) else ""))
}

# Per copy: UiO, UiS, UiOiS, repU (shares), and the share of original records
# replicated in any copy.
replicated_uniques_counts <- function(original, copies, keys) {
  no <- nrow(original)
  hit_any <- logical(no)
  rows <- lapply(copies, function(cp) {
    g <- shared_key_groups(original, cp, keys)
    n_o <- tabulate(g$orig, g$n)
    n_s <- tabulate(g$copy, g$n)
    unique_o <- n_o[g$orig] == 1L
    replicated <- unique_o & n_s[g$orig] == 1L
    hit_any <<- hit_any | replicated
    data.frame(UiO = mean(unique_o), UiS = mean(n_s[g$copy] == 1L),
               UiOiS = mean(unique_o & n_s[g$orig] > 0L), repU = mean(replicated))
  })
  per_copy <- cbind(copy = seq_along(copies), do.call(rbind, rows))
  list(per_copy = per_copy, any = mean(hit_any))
}
