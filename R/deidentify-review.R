# The certificate of the release as delivered (issue 36, items 2-4; methods
# vignette section 26.5): deidentify() reviews every column of the data it is
# about to release (review_columns()), and every column the review flags
# that would be released (not a key, not an identifier dropped or
# pseudonymised, not declared safe by the custodian) becomes a key of the
# search and of the certificate, so that the search cannot reach a release
# the certificate's recount fails (a proxy such as education-num is
# generalized with its key or suppressed; a visit date is generalized to the
# month, the year or suppressed). The release as delivered is reviewed again
# against the original (a column may restore a key only once the key is
# generalized): a column flagged there and still undeclared is counted as a
# key in the recount too. The collaborator's model is refitted on the
# release as delivered, with the records each fit loses counted.

# The flags a column named in `sensitive` may carry in its stated role: the
# custodian said what it is (a measurement the attacker does not know), and
# a near-unique measurement is not an attack's key. A sensitive column that
# restores a key (a proxy), holds a date or identifies is counted as a key
# like any other.
sensitive_role_flags <- c("near_unique", "near_unique_combination", "qi_name")

# The review of the data about to be released and the flagged columns the
# search and the certificate count as keys: `added` (column -> the review's
# role), with a default hierarchy for each unless the custodian gave one.
deidentify_review <- function(frame, keys, sensitive, ids, id, declared, hierarchies, control,
                              drop_proxies = FALSE) {
  review <- review_columns(frame, keys, sensitive = sensitive, id = id, declare = declared,
                           control = control)
  pending <- review_pending(review)
  pending <- pending[!pending$column %in% c(names(ids), id), , drop = FALSE]
  in_role <- pending$column %in% sensitive &
    vapply(strsplit(pending$flags, ",", fixed = TRUE),
           function(f) all(f %in% sensitive_role_flags), logical(1))
  as_sensitive <- pending$column[in_role]
  pending <- pending[!in_role, , drop = FALSE]
  # with drop_proxies = TRUE an exact proxy (flagged otherwise only as a
  # quasi-identifier, such as by its name) is left
  # to ola(), which drops it when its key is generalized; kept with its key
  # released as it is, it restores nothing (the review of the release checks)
  if (drop_proxies) {
    flags <- strsplit(pending$flags, ",", fixed = TRUE)
    to_ola <- vapply(flags, function(f) "exact_proxy" %in% f &&
                       all(f %in% c("exact_proxy", sensitive_role_flags)), logical(1))
    pending <- pending[!to_ola, , drop = FALSE]
  }
  added <- stats::setNames(pending$role, pending$column)
  extra <- setdiff(names(hierarchies), keys)
  unused <- setdiff(extra, names(added))
  if (length(unused))
    epimask_abort(sprintf(paste0(
      "`hierarchies` names column(s) that are neither keys nor flagged by the column review: %s."),
      paste0("'", shorten(unused), "'", collapse = ", ")), "epimask_error_name",
      arg = "hierarchies")
  for (col in names(added))
    if (is.null(hierarchies[[col]])) hierarchies[[col]] <- review_key_hierarchy(frame[[col]])
  list(review = review, added = added, as_sensitive = as_sensitive,
       hierarchies = hierarchies[c(keys, names(added))],
       default_hierarchy = setdiff(names(added), extra))
}

# The hierarchy of a flagged column the custodian gave none for: a date or
# date-time to the month, the year, then suppressed; anything else kept or
# suppressed ("*").
review_key_hierarchy <- function(x) {
  if (inherits(x, "Date") || inherits(x, "POSIXt")) hierarchy_date(c("month", "year"))
  else hierarchy_flat()
}

# The release as delivered reviewed against the original records: columns
# flagged there (a proxy of a generalized key) that are neither counted as
# keys, identifiers handled nor declared. NULL when none.
release_review_pending <- function(setup, released, kept_rows) {
  if (is.null(released) || nrow(released) < 2L) return(NULL)
  original <- setup$frame[kept_rows, setup$keys, drop = FALSE]
  rownames(original) <- NULL
  on_release <- released
  if (!is.null(setup$id)) on_release[[setup$id]] <- setup$frame[[setup$id]][kept_rows]
  cols <- intersect(names(on_release), names(setup$frame))
  on_release <- on_release[cols]
  declared <- setup$declared[intersect(names(setup$declared), cols)]
  review <- tryCatch(
    review_columns(on_release, setup$keys, sensitive = intersect(setup$sensitive, cols),
                   id = setup$id, declare = declared, original = original,
                   control = setup$control$review),
    epimask_error = function(e) NULL)
  if (is.null(review)) return(NULL)
  pending <- review_pending(review)
  pending <- pending[!pending$column %in% c(names(setup$ids), setup$id, setup$as_sensitive) &
                       grepl("proxy", pending$flags), , drop = FALSE]
  if (!nrow(pending)) return(NULL)
  pending
}

# deidentify()'s `...`: R matches a name given in full to an argument, and a
# name that begins an argument's name (`k` for `keys`) to that argument when
# it is not given in full; a documented option of the `...` would then land
# in another argument and the error would blame a third. Named arguments of
# the call must be given in full.
check_full_names <- function(call, fun, verb) {
  given <- names(as.list(call))[-1L]
  given <- given[!is.na(given) & nzchar(given)]
  formal <- setdiff(names(formals(fun)), "...")
  exact <- intersect(given, formal)
  for (nm in setdiff(given, formal)) {
    hit <- formal[startsWith(formal, nm) & !formal %in% exact]
    if (length(hit))
      epimask_abort(sprintf(paste0(
        "`%s` is not an argument of %s(): R would match it to `%s` by its first letters. ",
        "Give the argument's name in full%s."), nm, verb, hit[[1L]],
        if (nm == "k") " (`k` is deprecated: `criteria = list(k_anonymity(k))`)" else ""),
        "epimask_error_argument", arg = nm)
  }
  invisible(TRUE)
}

# The collaborator's model refitted on the release as delivered (its
# columns as released: a generalized numeric key is an interval label, a
# factor to the model, a blank a missing value): the estimate, its SE and U
# against the original, the records the fit used and those it lost (withheld
# from the release, a missing value of a model variable), or why it cannot be
# fitted.
delivered_analysis <- function(metric, original, released, n, data = NULL) {
  if (is.null(metric)) return(NULL)
  term <- original$term
  out <- list(term = term, fitted = FALSE, estimate = NA_real_, se = NA_real_,
              analysis_potential = NA_real_, n = n, records_used = 0L, records_missing = 0L,
              records_withheld = n - if (is.null(released)) 0L else nrow(released),
              reason = NA_character_, notes = character())
  if (is.null(released) || !nrow(released)) {
    out$reason <- "no data released"
    return(out)
  }
  vars <- all.vars(metric$formula)
  gone <- setdiff(vars, names(released))
  if (length(gone)) {
    out$reason <- sprintf("variable(s) %s of the model not in the release",
                          paste0("'", gone, "'", collapse = ", "))
    return(out)
  }
  d <- as_plain_data(as.data.frame(released)[vars])
  # a numeric variable released as interval labels is analysed at the
  # intervals' midpoints, as the collaborator reads them (the release
  # carries no group means); other labels (a user hierarchy's) make it a
  # factor: said, since its coefficients change meaning
  if (!is.null(data)) {
    as_labels <- vars[vapply(vars, function(v) is.numeric(data[[v]]) && !is.numeric(d[[v]]),
                             logical(1))]
    for (v in as_labels) {
      mid <- label_midpoints(d[[v]])
      if (is.null(mid)) {
        out$notes <- c(out$notes, sprintf("'%s' released as labels: fitted as a factor", v))
      } else {
        d[[v]] <- mid
        out$notes <- c(out$notes, sprintf(paste(
          "'%s' released as intervals: fitted at their midpoints (\"20-24\" as 22,",
          "\"[20,25)\" as 22.5), as the collaborator reads the labels%s"), v,
          if (any(is.na(mid) & !is.na(released[[v]]))) "; \"*\" as missing" else ""))
      }
    }
  }
  complete <- stats::complete.cases(d)
  out$records_missing <- sum(!complete)
  out$records_used <- sum(complete)
  d <- d[complete, , drop = FALSE]
  single <- vars[vapply(d, function(x) length(unique(x)) <= 1L, logical(1))]
  if (!nrow(d) || length(single)) {
    out$reason <- if (!nrow(d)) "no complete record of the model's variables" else
      sprintf("%s one value in the release", paste0("'", single, "'", collapse = ", "))
    out$reason <- if (length(single) && nrow(d))
      sprintf("%s %s", out$reason, "(a level lost: the model cannot be fitted as stated)") else
      out$reason
    return(out)
  }
  model <- list(type = "glm", family = metric$family, label = metric$label,
                formula = metric$formula, term = term, dose = NULL)
  notes <- character()
  fit <- withCallingHandlers(
    tryCatch(fit_model(model, d), error = function(e) e),
    warning = function(w) {
      notes <<- c(notes, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  out$notes <- c(out$notes, notes)
  if (inherits(fit, "error")) {
    out$reason <- sprintf("the fit failed: %s", conditionMessage(fit))
    return(out)
  }
  if (!term %in% names(stats::coef(fit)) || !is.finite(stats::coef(fit)[[term]])) {
    out$reason <- sprintf("coefficient '%s' not estimable on the release (a level lost)", term)
    return(out)
  }
  est <- term_estimates(model, fit, d, term)
  if (!is.finite(est$se)) {
    out$reason <- sprintf("coefficient '%s' has no finite standard error on the release", term)
    return(out)
  }
  out$fitted <- TRUE
  out$estimate <- est$estimate
  out$se <- est$se
  out$analysis_potential <- utility_table(original, est, NULL)$analysis_potential
  out
}

# The midpoints of interval labels: "20-24" (whole numbers, both ends in)
# and "[20,25)" (hierarchy_numeric()'s two forms); "*" and NA are NA. NULL
# when any other label is present (not intervals).
label_midpoints <- function(x) {
  x <- as.character(x)
  num <- "(-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"
  closed <- regmatches(x, regexec(sprintf("^%s-%s$", num, num), x, perl = TRUE))
  open <- regmatches(x, regexec(sprintf("^\\[%s,%s\\)$", num, num), x, perl = TRUE))
  ends <- function(m) if (length(m) == 3L) as.numeric(m[2:3]) else c(NA_real_, NA_real_)
  lohi <- matrix(vapply(closed, ends, numeric(2)), ncol = 2L, byrow = TRUE)
  from_open <- is.na(lohi[, 1L])
  lohi[from_open, ] <- matrix(vapply(open[from_open], ends, numeric(2)), ncol = 2L, byrow = TRUE)
  blank <- is.na(x) | x == "*"
  if (any(is.na(lohi[, 1L]) & !blank)) return(NULL)
  mid <- (lohi[, 1L] + lohi[, 2L]) / 2
  mid[blank] <- NA_real_
  mid
}

# The columns the review of a release flagged join the keys of the search
# (default hierarchies unless the custodian gave one).
add_review_keys <- function(setup, late) {
  roles <- stats::setNames(rep("proxy on the release", nrow(late)), late$column)
  setup$review_keys <- c(setup$review_keys, roles)
  setup$late_evidence <- c(setup$late_evidence, stats::setNames(late$evidence, late$column))
  setup$keys <- c(setup$keys, late$column)
  for (col in late$column) {
    setup$hierarchies[[col]] <- review_key_hierarchy(setup$frame[[col]])
    setup$default_hierarchy <- c(setup$default_hierarchy, col)
  }
  setup$certified <- prepare_criteria(c(setup$user, setup$context$criteria), setup$work,
                                      setup$keys, setup$id)
  setup
}

# The value of `expr` and the warnings it gave (muffled, to be signalled
# again or not).
collect_warnings <- function(expr) {
  warnings <- list()
  value <- withCallingHandlers(expr, warning = function(w) {
    warnings[[length(warnings) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  list(value = value, warnings = warnings)
}

# "1,480 of 1,500 records used (20 withheld, 0 with a missing value)".
analysis_records_text <- function(a) {
  sprintf("%s of %s records used (%s withheld from the release, %s with a missing value of a model variable)",
          format_count(a$records_used), format_count(a$n), format_count(a$records_withheld),
          format_count(a$records_missing))
}

# The lines of the print and the report on the analysis as delivered.
analysis_lines <- function(x) {
  a <- x$analysis
  if (is.null(a)) return(character())
  head <- "The collaborator's model refitted on the release as delivered:"
  body <- if (a$fitted)
    sprintf("  %s %s (SE %s), analysis potential U = %s; %s", a$term,
            format(signif(a$estimate, 4)), format(signif(a$se, 3)),
            format(signif(a$analysis_potential, 3)), analysis_records_text(a)) else
    sprintf("  cannot be fitted: %s; %s", a$reason, analysis_records_text(a))
  c(head, body, if (length(a$notes)) paste0("  note: ", unique(a$notes)))
}

# The lines of the print and the report on the columns the review flagged:
# those counted as keys, those declared, those in their stated sensitive
# role, those flagged on the release as delivered.
review_lines <- function(x) {
  r <- x$review
  if (is.null(r)) return(character())
  out <- character()
  rows <- r$columns
  added <- x$review_keys
  if (length(added)) {
    ev <- rows$evidence[match(names(added), rows$column)]
    late_ev <- x$late_evidence[names(added)]
    ev[!is.na(late_ev)] <- late_ev[!is.na(late_ev)]
    out <- c(out, "Columns the review flagged, counted as keys (searched and recounted):",
             sprintf("  %s (%s%s): %s", names(added), added,
                     ifelse(names(added) %in% x$default_hierarchy,
                            ", default hierarchy", ""), shorten_evidence(ev)))
  }
  if (length(x$declared))
    out <- c(out, "Declared safe by the custodian (not counted; the custodian's statement):",
             sprintf("  %s: %s", names(x$declared), unname(x$declared)))
  if (length(x$as_sensitive))
    out <- c(out, sprintf("Sensitive (the custodian's role; flagged as quasi-identifiers only, not counted): %s",
                          paste(x$as_sensitive, collapse = ", ")))
  late <- x$release_pending
  if (!is.null(late) && nrow(late))
    out <- c(out, "Flagged on the release as delivered (undeclared: counted as keys in the recount):",
             sprintf("  %s: %s", late$column, shorten_evidence(late$evidence)))
  out
}

shorten_evidence <- function(ev, width = 110L) {
  ev <- sub(";.*$", "", ev)
  ifelse(nchar(ev) > width, paste0(substr(ev, 1L, width - 3L), "..."), ev)
}

# Why a release failed and what to try, in words.
failure_reason <- function(x, n_units, unit) {
  suppress_action <- x$steps$action[x$steps$step == "suppress locally"]
  if (length(suppress_action) && grepl("no suppression can help", suppress_action[[1L]]))
    return(list(reason = sub(": no suppression can help", "", suppress_action[[1L]]),
                advice = "a smaller k (the criteria), or more data"))
  if (n_units < 2L)
    return(list(reason = sprintf("the data hold %d %s: no class can hide a %s", n_units, unit,
                                 sub("s$", "", unit)),
                advice = "release aggregates instead, or pool with more data"))
  if (!is.null(x$release_pending) && nrow(x$release_pending))
    return(list(reason = sprintf(paste0(
      "column(s) %s restore a generalized key on the release as delivered; counted as keys, ",
      "the recount fails"), paste0("'", x$release_pending$column, "'", collapse = ", ")),
      advice = "drop or generalize them (a hierarchy in `hierarchies`), or declare them in `declare`"))
  crit <- x$risk_after$criteria
  if (!is.na(x$overall_risk) && x$overall_risk <= x$context$threshold && length(crit))
    return(list(reason = "a criterion is not met on the release",
                advice = "relax the criterion, generalize further or allow more suppression (`max_suppress`)"))
  list(reason = sprintf(paste0("no generalization within the suppression limit (%s) meets the ",
                               "context's threshold %s"),
                        format_share(x$max_suppress), format(signif(x$context$threshold, 3))),
       advice = paste("coarser hierarchies, a larger `max_suppress`, fewer keys, declare the",
                      "flagged columns you know to be safe (`declare`), or another context"))
}
