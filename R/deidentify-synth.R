# Synthesis as a candidate release of deidentify() (issue 39, item 4;
# methods vignette, section 29): beside the generalized release, each
# synthesis of deidentify_control(synthesis = ) is made from the data the
# generalization searched (identifiers dropped), judged by the criteria that
# apply to synthetic records (the attacks, replicated uniques; k-anonymity
# and the context's class-size attacks do not) with the context's threshold
# as the bound of a criterion stated without one, and by the collaborator's
# model (U of the copies' fits combined by the synthetic-data rules). The
# release is the candidate that passes with the largest U (the generalization
# on ties and without a model); the result says which and how an analyst
# combines the copies.

# The synthesis candidates of deidentify_control(): NULL, or mask_synth()
# schemes (one or a list).
check_synthesis_candidates <- function(synthesis) {
  if (is.null(synthesis)) return(NULL)
  if (inherits(synthesis, "mask_scheme")) synthesis <- list(synthesis)
  if (!is.list(synthesis) || !length(synthesis) ||
      !all(vapply(synthesis, inherits, TRUE, "mask_synth")))
    abort_type("synthesis", "NULL, a mask_synth() scheme or a list of them")
  unname(synthesis)
}

# deidentify()'s result with the candidates weighed (unchanged without any).
deidentify_candidates <- function(setup, res) {
  schemes <- setup$control$synthesis
  if (is.null(schemes)) return(res)
  if (!is.null(setup$id))
    abort_value("synthesis", paste("NULL when `id` is given: synthesis candidates are offered for",
                                   "one record per person (mask_synth(id = ) makes persons' copies)"))
  model <- setup$model
  rows <- list(generalization_candidate(res))
  made <- list(NULL)
  for (i in seq_along(schemes)) {
    cand <- synthesis_candidate(schemes[[i]], setup, model)
    made[[i + 1L]] <- cand$release
    rows[[i + 1L]] <- cand$row
    res$synthesis_criteria[[i]] <- cand$criteria
  }
  tab <- do.call(rbind, rows)
  rownames(tab) <- NULL
  chosen <- choose_candidate(tab)
  tab$chosen <- seq_len(nrow(tab)) == chosen
  res$candidates <- tab
  res$released <- tab$kind[[chosen]]
  res$synthetic <- made[[chosen]]
  if (!is.null(res$synthetic)) {
    info <- synthetic_info(res$synthetic)
    res$synthetic_rule <- rule_text(synthetic_rule(info), info$proper, info$m)
  }
  res
}

# The generalized release as a candidate: its pass, its model estimate and U
# (the last step of the steps table).
generalization_candidate <- function(res) {
  # the collaborator's model refitted on the data delivered, as the copies'
  # fits are (NA when it cannot be fitted there); the search's own figure
  # without a model
  last <- res$steps[nrow(res$steps), ]
  fit <- res$analysis
  est <- if (is.null(fit)) c(last$estimate, last$se, last$analysis_potential) else
    c(fit$estimate, fit$se, fit$analysis_potential)
  data.frame(candidate = "generalization (ola) and local suppression",
             kind = "generalization", pass = isTRUE(res$pass),
             estimate = est[[1L]], se = est[[2L]], U = est[[3L]],
             criteria = sprintf("overall risk %s, threshold %s; %d criteria",
                                format(signif(res$overall_risk, 3)),
                                format(signif(res$context$threshold, 3)),
                                NROW(res$criteria)),
             stringsAsFactors = FALSE)
}

# One synthesis: the copies, its criteria and its row.
synthesis_candidate <- function(scheme, setup, model) {
  syn <- apply_mask(setup$work, scheme)
  threshold <- setup$context$threshold
  results <- lapply(setup$certified, function(cr) {
    # a synthetic release's risk is its attacks': a criterion stated without
    # a bound is held to the context's threshold
    if (is.na(cr$bound)) cr <- bound_at_threshold(cr, threshold)
    run_criterion(cr, syn, original = setup$work, keys = setup$keys)
  })
  applies <- vapply(results, `[[`, TRUE, "applies")
  pass <- any(applies) && all(vapply(results[applies], function(r) isTRUE(r$pass), TRUE))
  est <- data.frame(estimate = NA_real_, se = NA_real_, U = NA_real_)
  if (!is.null(model)) {
    u <- utility_glm(setup$work, syn, model$formula, model$family, model$term)
    row <- u$table[if (is.null(model$term)) 1L else match(model$term, u$table$term), ]
    est <- data.frame(estimate = row$estimate_masked, se = row$se_masked,
                      U = row$analysis_potential)
  }
  note <- if (!any(applies)) not_judged_note(results) else
    sprintf("%d of %d criteria apply, %s", sum(applies), length(results),
            if (pass) "all met" else "NOT all met")
  list(release = syn, criteria = criterion_rows(results),
       row = data.frame(candidate = format(scheme), kind = "synthesis", pass = pass,
                        estimate = est$estimate, se = est$se, U = est$U, criteria = note,
                        stringsAsFactors = FALSE))
}

# Why no criterion judged the copies: an attack stated but without a control
# to measure against (a synthesis that held nothing out), or only criteria
# of classes, which synthetic records do not have.
not_judged_note <- function(results) {
  no_control <- vapply(results, function(r) inherits(r$detail, "epimask_error_attack_control"),
                       logical(1))
  if (any(no_control))
    return(paste("not judged: the attacks need a control the synthesis did not learn from;",
                 "give the scheme a hold-out (mask_synth(holdout = 0.2))"))
  "no criterion applies to synthetic records (state the attacks or replicated uniques)"
}

bound_at_threshold <- function(criterion, threshold) {
  criterion$bound <- threshold
  criterion$label <- sprintf("%s, held to the threshold %s", criterion$label,
                             format(signif(threshold, 3)))
  criterion
}

# The candidate released: of those that pass, the largest U; the
# generalization on ties, without a model, or when none passes (it then
# fails, as without candidates).
choose_candidate <- function(tab) {
  ok <- which(tab$pass)
  if (!length(ok)) return(1L)
  u <- tab$U[ok]
  if (all(is.na(u))) return(ok[[1L]])
  u[is.na(u)] <- -Inf
  ok[which(u == max(u))[[1L]]]
}

# The lines of the print on the candidates (none without synthesis).
candidate_lines <- function(x) {
  tab <- x$candidates
  if (is.null(tab)) return(character())
  shown <- sprintf("  %s %-14s %-4s U %s  estimate %s (SE %s); %s", ifelse(tab$chosen, "*", " "),
                   tab$kind, ifelse(tab$pass, "pass", "FAIL"), format_num(tab$U, 3),
                   format_num(tab$estimate, 4), format_num(tab$se, 3), tab$criteria)
  c("Candidate releases (* released: passes, largest U of the collaborator's model):",
    paste0(shown, "\n      ", tab$candidate),
    released_lines(x))
}

released_lines <- function(x) {
  if (identical(x$released, "synthesis")) {
    info <- synthetic_info(x$synthetic)
    c(sprintf(paste("Released: the %d synthetic copies in $synthetic (unclass() gives one data",
                    "frame each; release all of them), NOT $data (the generalized runner-up)."),
              info$m),
      sprintf("  An analyst fits the model to each copy and combines the fits by the %s.",
              x$synthetic_rule))
  } else if (!any(x$candidates$pass)) {
    paste("No candidate passes: no data are released ($data is NULL: the generalization",
          "fails as stated above), and no synthesis meets the criteria that apply to it.")
  } else "Released: the generalized data in $data (no synthesis passed with a larger U)."
}

# The report's part on the candidates (NULL without synthesis): the table,
# the sentences on what was released and how to combine it, and each
# synthesis's criteria as the certificate shows them.
candidate_report <- function(x) {
  tab <- x$candidates
  if (is.null(tab)) return(NULL)
  syn <- which(tab$kind == "synthesis")
  list(table = data.frame(Candidate = tab$candidate, Kind = tab$kind,
                          Verdict = ifelse(tab$pass, "pass", "FAIL"), Estimate = tab$estimate,
                          SE = tab$se, U = tab$U, Criteria = tab$criteria,
                          Released = ifelse(tab$chosen & tab$pass, "released",
                                            ifelse(tab$chosen, "returned (fails)", "")),
                          stringsAsFactors = FALSE),
       lines = released_lines(x),
       names = tab$candidate[syn],
       criteria = lapply(x$synthesis_criteria, function(rows)
         deidentify_criteria_table(list(criteria = rows))))
}
