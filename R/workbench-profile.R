# The statistics behind the workbench's screens, as plain functions of the
# custodian's choices (a list `spec` built from the inputs), so they are
# tested without a browser: the schemes of a sweep, the release context, the
# arguments of ru_profile(), the masked release, the risk tables of a scheme
# and the R-U plot.

# Parse "0.1, 0.5 1" into numbers; NULL when blank, an error message when not
# numbers.
parse_amounts <- function(text, arg) {
  text <- trimws(paste(text, collapse = " "))
  if (!nzchar(text)) return(numeric())
  parts <- strsplit(text, "[,; ]+")[[1L]]
  x <- suppressWarnings(as.numeric(parts))
  if (anyNA(x) || any(!is.finite(x)) || any(x <= 0))
    stop(workbench_condition(sprintf("%s must be positive numbers separated by commas (got '%s').",
                                     arg, text)))
  x
}

workbench_condition <- function(message) {
  structure(class = c("epimask_workbench_input", "epimask_error", "error", "condition"),
            list(message = message, call = NULL))
}

# The schemes of the sweeps the custodian ticked, weak to strong within each
# generator, then the synthesis schemes (one per method ticked).
workbench_schemes <- function(spec) {
  sig <- sort(as.integer(spec$round_sig), decreasing = TRUE)
  dec <- sort(as.integer(spec$round_dec), decreasing = TRUE)
  amounts <- sort(parse_amounts(spec$noise, "Noise amounts"))
  dist <- if (is.null(spec$noise_dist)) "uniform" else spec$noise_dist
  schemes <- c(
    lapply(sig, function(d) mask_round(d, type = "significant")),
    lapply(dec, function(d) mask_round(d, type = "decimal")),
    lapply(amounts, function(a) mask_noise(a, dist = dist)),
    workbench_synth_schemes(spec)
  )
  if (!length(schemes))
    stop(workbench_condition("Choose at least one masking scheme (a rounding, a noise amount or a synthesis)."))
  schemes
}

# The synthesis methods the app offers (mask_synth()'s main ones).
workbench_synth_choices <- function() {
  c("CART (sequential trees, as synthpop)" = "cart",
    "Parametric (linear, logistic, multinomial models)" = "parametric")
}

# The synthesis schemes of 4 Masking: mask_synth(method, m, holdout) for each
# method ticked. The hold-out is the attacks' control set: records kept out
# of the synthesis, so that the attacks can tell leakage from what any model
# of the population lets an intruder guess (singling out needs at least half).
workbench_synth_schemes <- function(spec) {
  methods <- intersect(as.character(spec$synth_methods %||% character()), workbench_synth_choices())
  if (!length(methods)) return(list())
  if (!is.null(spec$person))
    stop(workbench_condition(paste(
      "Synthesis is not offered with a person column (2 Variables): a person's records would be",
      "synthesised as unrelated records. Clear the person column or untick the synthesis.")))
  # [[ ]]: `$` would match synth_methods when synth_m is absent
  m <- spec[["synth_m"]] %||% 5
  if (length(m) != 1L || is.na(m) || m < 1 || m > 50 || m != round(m))
    stop(workbench_condition("The number of synthetic copies m must be a whole number from 1 to 50."))
  holdout <- workbench_synth_holdout(spec)
  lapply(methods, function(method) mask_synth(method, m = as.integer(m), holdout = holdout))
}

# The hold-out share of the synthesis schemes; the attacks need one, and the
# singling-out attack one of at least half the records (its control must be
# as large as the records behind the release).
workbench_synth_holdout <- function(spec) {
  h <- spec[["synth_holdout"]] %||% 0.5
  if (length(h) != 1L || is.na(h) || h < 0 || h > 0.9)
    stop(workbench_condition("The hold-out share of the synthesis must be from 0 to 0.9."))
  if (spec$risk %in% workbench_attack_risks() && h < 0.5)
    stop(workbench_condition(sprintf(paste(
      "The attacks judge a synthetic release against records held out of its synthesis:",
      "with the risk '%s' the hold-out share must be at least 0.5 (got %s)."), spec$risk, format(h))))
  h
}

# The custodian's release context as a release_context(); its warnings (e.g.
# a public release with a loose threshold) are kept in attr(, "notes").
workbench_context <- function(spec) {
  public <- isTRUE(spec$public)
  args <- list(public = public, pr_attempt = spec$pr_attempt,
               pr_acquaintance = spec$pr_acquaintance,
               pr_breach = if (is.null(spec$pr_breach)) 0.27 else spec$pr_breach,
               threshold = spec$threshold,
               reasons = as.character(spec$reasons[nzchar(trimws(spec$reasons))]))
  for (p in c("pr_attempt", "pr_acquaintance", "pr_breach")) {
    v <- args[[p]]
    if (!is.null(v) && (length(v) != 1L || is.na(v))) args[p] <- list(NULL)
  }
  if (public) args$pr_attempt <- args$pr_acquaintance <- NULL
  if (is.null(args$pr_breach)) args$pr_breach <- 0.27
  threshold <- args$threshold
  if (is.null(threshold) || !is.finite(threshold) || threshold <= 0 || threshold > 1)
    stop(workbench_condition("The threshold must be a probability in (0, 1]."))
  notes <- character()
  ctx <- withCallingHandlers(
    tryCatch(do.call(release_context, args), error = function(e) stop(workbench_condition(conditionMessage(e)))),
    warning = function(w) {
      notes <<- c(notes, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  attr(ctx, "notes") <- notes
  ctx
}

# The recommendation within the context's threshold (or `max_risk`), with
# the warnings recommend() gives (no scheme within budget, a risk measure
# blind to the masking) kept as text for the custodian to read.
recommend_with_notes <- function(ru, context = NULL, max_risk = 0.2) {
  notes <- character()
  rec <- withCallingHandlers(
    tryCatch(
      if (inherits(context, "release_context")) recommend(ru, context = context)
      else recommend(ru, max_risk = context_threshold(context) %||% max_risk),
      error = function(e) e),
    warning = function(w) {
      notes <<- c(notes, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  if (inherits(rec, "error")) return(list(rec = NULL, notes = c(notes, conditionMessage(rec))))
  list(rec = rec, notes = notes)
}

context_threshold <- function(context) {
  if (is.null(context)) return(NULL)
  th <- context$threshold
  if (is.numeric(th) && length(th) == 1L && is.finite(th)) th else NULL
}

# Lines describing a context (for the app and the report).
context_lines <- function(context) {
  if (is.null(context)) return("No release context was stated.")
  show <- function(x) if (is.null(x) || !length(x)) "not stated" else format(x, digits = 3)
  c(sprintf("Release: %s", if (isTRUE(context$public)) "public (a demonstration attack is assumed)"
                           else "non-public (to identified recipients)"),
    if (!isTRUE(context$public)) c(
      sprintf("Pr(attempt) of a deliberate attack: %s", show(context$pr_attempt)),
      sprintf("Pr(acquaintance) for an inadvertent re-identification: %s", show(context$pr_acquaintance)),
      sprintf("Pr(breach): %s", show(context$pr_breach))),
    sprintf("Threshold: %s", show(context$threshold)),
    if (length(context$reasons)) paste("Reasons:", paste(context$reasons, collapse = "; "))
    else "Reasons: none stated")
}

# The arguments of ru_profile() for the custodian's choices, data without the
# direct identifiers (they are never released, so never measured either).
workbench_profile_args <- function(data, spec, context = NULL) {
  person <- check_workbench_person(spec, data)
  # the person column is measured (every risk counts persons), never masked
  # nor released
  data <- data[, setdiff(names(data), setdiff(spec$identifiers, person)), drop = FALSE]
  vars <- spec$vars
  if (!length(vars)) stop(workbench_condition("Choose the variables to mask."))
  not_numeric <- vars[!vapply(data[vars], is.numeric, logical(1))]
  if (length(not_numeric))
    stop(workbench_condition(sprintf("Only numeric variables can be rounded or noised; not numeric: %s.",
                                     paste(not_numeric, collapse = ", "))))
  formula <- tryCatch(stats::as.formula(spec$formula, env = globalenv()),
                      error = function(e) stop(workbench_condition(
                        sprintf("The model formula '%s' cannot be read: %s", spec$formula,
                                conditionMessage(e)))))
  missing_vars <- setdiff(all.vars(formula), names(data))
  if (length(missing_vars))
    stop(workbench_condition(sprintf("The model uses columns not in the data (or declared identifiers): %s.",
                                     paste(missing_vars, collapse = ", "))))
  family <- spec$family
  args <- list(data = data, schemes = workbench_schemes(spec), formula = formula,
               family = family, vars = vars,
               term = if (nzchar(spec$term %||% "")) spec$term else NULL,
               nrep = max(1L, as.integer(spec$nrep %||% 1L)),
               seed = spec$seed, progress = FALSE)
  args <- c(args, workbench_risk_args(spec, data))
  if (inherits(context, "release_context")) args$context <- context
  if (!is.null(person)) args$id <- person
  args
}

# The person column of 2 Variables (NULL for none): a column of the data that
# plays no other role (neither masked, key, sensitive nor in the model).
check_workbench_person <- function(spec, data) {
  person <- spec$person
  if (is.null(person)) return(NULL)
  if (!person %in% names(data))
    stop(workbench_condition(sprintf("The person column '%s' is not in the data.", person)))
  formula_vars <- tryCatch(all.vars(stats::as.formula(spec$formula %||% "")),
                           error = function(e) character())
  taken <- intersect(person, c(spec$vars, spec$keys, spec$sensitive, formula_vars))
  if (length(taken))
    stop(workbench_condition(sprintf(
      "The person column '%s' cannot also be masked, a quasi-identifier, sensitive or in the model.",
      person)))
  if (anyNA(data[[person]]))
    stop(workbench_condition(sprintf("The person column '%s' has missing values: every record needs its person.",
                                     person)))
  person
}

workbench_risk_args <- function(spec, data) {
  risk <- workbench_risk_call(spec)
  list(risk = if (!is.null(risk)) eval(risk, asNamespace("epimask")))
}

# The risk measures that are attacks (Article 29 WP, after anonymeter).
workbench_attack_risks <- function() c("article29", "singling_out", "linkability", "inference")

# The targets (and predicates) of each attack the app runs: enough for an
# interval of about +-0.04 on a rate, in seconds on the bundled data.
workbench_n_attacks <- 500L

# The risk criterion of the custodian's choice as the call that makes it
# (NULL for none): evaluated for the profile and written, as it is, into the
# console call of the report, so that the two cannot differ. The attacks are
# drawn from the profile's seed (every scheme attacked with the same draws).
workbench_risk_call <- function(spec) {
  risk <- spec$risk %||% "none"
  need <- function(cols, what) {
    if (!length(cols)) stop(workbench_condition(sprintf("The risk measure '%s' needs %s.", risk, what)))
    cols
  }
  known <- function() need(spec$known, "the variables the intruder knows")
  aux2 <- function() {
    aux <- known()
    if (length(aux) < 2L)
      stop(workbench_condition(sprintf(paste(
        "The risk measure '%s' needs at least two variables the intruder knows (got %s): the",
        "linkability attack joins two halves of them."), risk, paste(aux, collapse = ", "))))
    aux
  }
  secret <- function(aux) {
    s <- need(spec$secret, "the secret the intruder infers (4 Masking)")
    if (s %in% aux)
      stop(workbench_condition(sprintf(
        "The secret '%s' is also a variable the intruder knows: choose another secret or drop it from the known.", s)))
    s
  }
  seed <- as.integer(spec$seed %||% 1L)
  n <- workbench_n_attacks
  halves <- function(aux) {
    half <- ceiling(length(aux) / 2)
    list(aux[seq_len(half)], aux[-seq_len(half)])
  }
  switch(risk,
    linkage = call("linkage_risk", known()),
    identifiability = call("identifiability", known()),
    match = as.call(c(list(as.name("match_risk"), known()),
                      if (length(spec$unknown)) list(unknown = spec$unknown))),
    kanon = call("avg_risk", NA, strict = TRUE, keys = need(spec$keys, "quasi-identifiers")),
    article29 = {
      aux <- aux2()
      call("article29_attacks", NA, aux = aux, secret = secret(aux), n_attacks = n, seed = seed)
    },
    singling_out = {
      aux <- known()
      call("singling_out", NA, n_attacks = n, columns = c(aux, secret(aux)), seed = seed)
    },
    linkability = call("linkability", NA, aux = halves(aux2()), n_attacks = n, seed = seed),
    inference = {
      aux <- known()
      call("inference", NA, aux = aux, secret = secret(aux), n_attacks = n, seed = seed)
    },
    none = NULL,
    stop(workbench_condition(sprintf("Unknown risk measure '%s'.", risk))))
}

# The masked release of one scheme: identifiers dropped, masked columns
# replaced. A randomized scheme draws its noise from a fresh, unrecorded seed
# (whoever holds a noise seed can regenerate and subtract the noise).
release_data <- function(data, scheme, vars, identifiers = character()) {
  data <- data[, setdiff(names(data), identifiers), drop = FALSE]
  if (scheme_traits(scheme)$reference) return(data)
  old_seed <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv()) else NULL
  on.exit(if (is.null(old_seed)) rm(".Random.seed", envir = globalenv())
          else assign(".Random.seed", old_seed, envir = globalenv()), add = TRUE)
  set.seed(NULL)
  # a synthesis warns of copies equal to original records: kept for the
  # verdict's notes (the custodian reads them there, not on a console)
  notes <- character()
  out <- withCallingHandlers(apply_mask(data, scheme, vars = vars), epimask_warning = function(w) {
    notes <<- c(notes, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  # synthetic copies stay whole for the custodian's measures (the attacks
  # need their hold-out); their download is written by synthetic_csv()
  if (is_synthetic(out)) {
    attr(out, "workbench_notes") <- notes
    return(out)
  }
  for (n in notes) warning(n, call. = FALSE)
  attributes(out) <- attributes(out)[c("names", "row.names", "class")]
  out
}

# The synthetic copies as one data frame for the download: the copy number
# first, no masking parameter and no hold-out row numbers.
synthetic_csv <- function(syn) {
  copies <- synthetic_copies(syn)
  out <- do.call(rbind, lapply(seq_along(copies), function(i)
    cbind(copy = i, as.data.frame(copies[[i]], stringsAsFactors = FALSE))))
  rownames(out) <- NULL
  out
}

# Risk measures of one data set (the original or a masked release), one row
# per measure; NULL entries are left out. With `id` (the person column, in
# `data`) every class counts persons (methods vignette, section 23) and every
# label says so.
risk_rows <- function(data, keys, sensitive, context, specs = NULL, original = NULL,
                      what = "the data", id = NULL) {
  rows <- list()
  by <- function(label) if (is.null(id)) label else paste0(label, ", by persons")
  if (length(keys)) {
    kan <- tryCatch(risk_kanon(data, keys = keys, id = id), error = function(e) NULL)
    if (!is.null(kan)) {
      size <- class_sizes_of(kan, id)
      rows <- c(rows, list(
        c(by("Prosecutor (maximum) risk, 1 / smallest class"), kan$max_risk),
        c(if (is.null(id)) "Average risk" else "Average risk (classes per person)", kan$avg_risk),
        c(by("Strict average risk (classes below k = 5 count fully)"), kan$strict_avg_risk),
        c(by("Equivalence classes"), length(size)),
        c(if (is.null(id)) "Records in classes smaller than 5"
          else "Persons in classes smaller than 5 persons", sum(size[size < 5]))))
    }
    if (inherits(context, "release_context")) {
      rr <- tryCatch(risk_release(data, keys = keys, context = context, id = id),
                     error = function(e) NULL)
      if (!is.null(rr)) {
        att <- rr$attacks
        for (i in seq_len(nrow(att)))
          rows <- c(rows, list(c(by(sprintf("Pr(re-id, %s attack)", att$attack[[i]])), att$risk[[i]])))
        rows <- c(rows, list(c(by("Overall release risk (largest attack)"), rr$overall)))
      }
    }
    ldiv <- get0("risk_ldiversity", envir = asNamespace("epimask"), mode = "function")
    if (!is.null(ldiv) && length(sensitive)) {
      ld <- tryCatch(ldiv(data, keys = keys, sensitive = sensitive, id = id),
                     error = function(e) NULL)
      if (!is.null(ld))
        for (s in names(ld$distinct_l))
          rows <- c(rows, list(c(by(sprintf("Distinct l-diversity of %s", s)), ld$distinct_l[[s]]),
                               c(by(sprintf("Entropy l-diversity of %s", s)), ld$entropy_l[[s]])))
    }
  }
  # releases that are samples: population uniqueness, log-linear and cluster
  # risk where a risk spec names them (report-sample-risk.R), by persons with
  # `id`
  sample <- if (length(specs)) sample_risk_rows(data, specs, context, original, what, id = id)
  if (!length(rows) && is.null(sample$table)) return(NULL)
  rows <- lapply(rows, unlist)
  out <- data.frame(measure = vapply(rows, `[[`, "", 1L),
                    value = as.numeric(vapply(rows, `[[`, "", 2L)), stringsAsFactors = FALSE)
  if (!is.null(sample$table)) out <- rbind(out, sample$table)
  if (length(sample$notes)) attr(out, "notes") <- sample$notes
  out
}

# The line under a risk table: with a person column, the unit counted.
risk_caption <- function(text, person = NULL) {
  if (is.null(person)) text
  else sprintf("%s; every class counts persons (person column '%s')", text, person)
}

# The notes under a workbench risk table: the unit counted (with a person
# column) and the notes of the rows for a release that is a sample.
risk_notes_ui <- function(notes, person, id) {
  unit <- if (!is.null(person))
    risk_caption("Classes of records grouped by person", person)
  if (!length(notes) && is.null(unit)) return(NULL)
  shiny::tags$ul(class = "small", id = id, lapply(c(unit, notes), shiny::tags$li))
}

# The choices of the cluster column: none, or a column.
workbench_cluster_choices <- function(cols) {
  c("(none)" = "", stats::setNames(cols, cols))
}

# The risk specs of the rows for releases that are samples (report-sample-
# risk.R) from the custodian's settings on 3 Context: population uniqueness
# and the log-linear risk at the sampling fraction (given, or the persons
# (records) of the data over the population size), cluster risk with the
# cluster column; each with the person column of 2 Variables. An empty list
# when none is asked for; a workbench condition when a setting is missing.
workbench_sample_specs <- function(spec, data) {
  measures <- intersect(spec$sample_measures, c("population", "loglinear"))
  cluster <- spec$cluster
  if (!length(measures) && is.null(cluster)) return(list())
  keys <- spec$keys
  if (!length(keys))
    stop(workbench_condition("Declare the quasi-identifiers on 2 Variables: the sample estimates are on them."))
  person <- spec$person
  specs <- list()
  if (length(measures)) {
    pi <- spec$sample_pi
    units <- if (!is.null(person) && person %in% names(data)) length(unique(data[[person]]))
             else nrow(data)
    if (is.null(pi) && !is.null(spec$sample_population)) {
      if (spec$sample_population < units)
        stop(workbench_condition(sprintf(
          "The population size (%s) is smaller than the %s in the data (%d).",
          format(spec$sample_population), if (is.null(person)) "records" else "persons", units)))
      pi <- units / spec$sample_population
    }
    if (is.null(pi))
      stop(workbench_condition(paste("Population uniques and the log-linear risk need the sampling",
                                     "fraction or the population size.")))
    if (!is.finite(pi) || pi <= 0 || pi > 1)
      stop(workbench_condition(sprintf("The sampling fraction must be in (0, 1] (got %s).",
                                       format(pi))))
    # the person column goes to the verbs (`id =`), not into the criteria
    for (m in measures)
      specs <- c(specs, list(switch(m,
        population = uniqueness(NA, population_model(pi), keys = keys),
        loglinear = loglinear_risk(NA, pi = pi, keys = keys))))
  }
  if (!is.null(cluster)) {
    if (!is.null(person))
      stop(workbench_condition(paste(
        "Cluster risk is of records in clusters: with a person column the person is already the",
        "unit (all their records fall together); leave the cluster column empty.")))
    if (!cluster %in% names(data) || cluster %in% keys)
      stop(workbench_condition(sprintf("The cluster column '%s' must be a column that is not a quasi-identifier.",
                                       cluster)))
    specs <- c(specs, list(cluster_risk(NA, cluster, keys = keys)))
  }
  specs
}

# The sizes of the classes of a risk_kanon() result: records per class, or
# with a person column persons per class.
class_sizes_of <- function(kan, id = NULL) {
  if (is.null(id) || is.null(kan$person)) return(as.vector(table(kan$group)))
  as.vector(table(kan$group[!duplicated(kan$person)]))
}

# The released data with the person column of the original attached for
# counting (same records in the same order; the column is never released).
person_counted <- function(released, original, id) {
  if (is.null(id) || is.null(released) || id %in% names(released) ||
      !id %in% names(original) || nrow(released) != nrow(original)) return(released)
  released[[id]] <- original[[id]]
  released
}

# Original vs masked risk side by side; with the profile (`ru`, `label`)
# the rows of its risk criteria (the Article 29 attacks among them) for the
# scheme against the unmasked data. Synthetic copies get their own rows
# (synthetic_risk_rows()).
scheme_risk_table <- function(original, masked, keys, sensitive, context, specs = NULL,
                              source = original, id = NULL, ru = NULL, label = NULL) {
  profile_rows <- profile_risk_rows(ru, label)
  if (is_synthetic(masked)) {
    out <- rbind(profile_rows, synthetic_risk_rows(original, masked, keys))
    return(within_column(out, context))
  }
  masked <- person_counted(masked, original, id)
  a <- risk_rows(original, keys, sensitive, context, specs, original = source,
                 what = "the original data", id = id)
  b <- risk_rows(masked, keys, sensitive, context, specs, original = source,
                 what = "the release", id = id)
  if (is.null(a) || is.null(b)) return(within_column(profile_rows, context))
  notes <- c(attr(a, "notes"), attr(b, "notes"))
  out <- merge(a, b, by = "measure", sort = FALSE, suffixes = c("_original", "_masked"))
  names(out) <- c("measure", "original", "masked")
  if (!is.null(profile_rows)) out <- rbind(profile_rows[names(out)], out)
  out <- within_column(out, context)
  if (length(notes)) attr(out, "notes") <- notes
  out
}

# The column `within_threshold` of a risk table (yes / no for the rows that
# are risks, blank for counts and for rows that do not apply).
within_column <- function(out, context) {
  if (is.null(out) || !nrow(out)) return(NULL)
  th <- context_threshold(context)
  if (!is.null(th)) {
    is_risk <- grepl("risk|Pr\\(re-id|replicated", out$measure, ignore.case = TRUE) & !is.na(out$masked)
    out$within_threshold <- ifelse(is_risk, ifelse(out$masked <= th, "yes", "no"), "")
  }
  out
}

# The profile's risks of one scheme, beside those of the unmasked data (the
# profile's "no masking" row): the profile risk and each further criterion
# (risk_linkability, risk_inference of the Article 29 attacks). NULL
# without a profile.
profile_risk_rows <- function(ru, label) {
  if (is.null(ru) || is.null(label) || !label %in% ru$scheme) return(NULL)
  tab <- as.data.frame(ru)
  cols <- c("risk", setdiff(grep("^risk_", names(tab), value = TRUE), c("risk_se")))
  cols <- cols[!grepl("_se$", cols)]
  ref <- tab[tab$unmasked %in% TRUE | tab$scheme == "no masking", , drop = FALSE]
  row <- tab[tab$scheme == label, , drop = FALSE]
  names_of <- c(risk = ru_meta(ru)$risk %||% "profile risk", risk_singling_out = "singling out",
                risk_linkability = "linkability", risk_inference = "inference")
  measure <- ifelse(cols %in% names(names_of), names_of[cols], sub("^risk_", "", cols))
  data.frame(measure = sprintf("Profile risk: %s", measure),
             original = if (nrow(ref)) as.numeric(ref[1L, cols]) else NA_real_,
             masked = as.numeric(row[1L, cols]), note = "", stringsAsFactors = FALSE)
}

# The rows of synthetic copies: replicated uniques on the quasi-identifiers,
# and the k-anonymity measures with the reason they do not apply (their
# classes are of new records, not of persons of the data).
synthetic_risk_rows <- function(original, syn, keys) {
  if (!length(keys)) return(NULL)
  rep_u <- tryCatch(run_criterion(replicated_uniques(keys = keys), syn, original = original),
                    error = function(e) NULL)
  kan <- tryCatch(run_criterion(k_anonymity(5, keys = keys), syn, original = original),
                  error = function(e) NULL)
  why <- if (!is.null(kan) && !isTRUE(kan$applies)) kan$note
         else "synthetic records are not persons of the data"
  na_rows <- c("Prosecutor (maximum) risk, 1 / smallest class", "Strict average risk (classes below k = 5 count fully)",
               "Pr(re-id) of the context's attacks")
  orig_kan <- tryCatch(risk_kanon(original, keys = keys), error = function(e) NULL)
  data.frame(
    measure = c("Replicated uniques (share of original records)", na_rows),
    original = c(NA_real_, if (is.null(orig_kan)) NA_real_ else orig_kan$max_risk,
                 if (is.null(orig_kan)) NA_real_ else orig_kan$strict_avg_risk, NA_real_),
    masked = c(if (!is.null(rep_u) && isTRUE(rep_u$applies)) rep_u$value else NA_real_, NA, NA, NA),
    note = c("synthpop's repU on the quasi-identifiers", paste("does not apply:", why),
             rep("does not apply (as above)", 2)),
    stringsAsFactors = FALSE)
}

# The profile row of one scheme, with its interval, as a two-column table.
scheme_estimate_table <- function(ru, label) {
  tab <- as.data.frame(ru)
  row <- tab[tab$scheme == label, , drop = FALSE]
  if (!nrow(row)) return(NULL)
  pick <- function(col) if (col %in% names(row)) row[[col]][[1L]] else NA_real_
  data.frame(
    quantity = c("Estimate", "95% CI lower", "95% CI upper", "Naive SE", "Bias",
                 "Relative bias (%)", "Analysis potential U", "SE of U", "Risk", "SE of risk",
                 "Replicates"),
    value = c(pick("estimate"), pick("ci_lower"), pick("ci_upper"), pick("se"), pick("bias"),
              pick("rel_bias"), pick("analysis_potential"), pick("analysis_potential_se"),
              pick("risk"), pick("risk_se"), pick("nrep")),
    stringsAsFactors = FALSE)
}

# The profile table as the app and the report show it.
profile_display_table <- function(ru, labels = NULL) {
  tab <- as.data.frame(ru)
  cols <- intersect(c("scheme", "estimate", "ci_lower", "ci_upper", "rel_bias",
                      "analysis_potential", "analysis_potential_se", "risk", "risk_se",
                      "pareto", "nrep"), names(tab))
  out <- tab[, cols, drop = FALSE]
  if (!is.null(labels)) out$scheme <- labels
  out
}

# Points of the R-U plot in its coordinates (the panel of plot.ru_profile(),
# ru_panel_data(): x = analysis potential U, y = risk on its axis).
ru_points <- function(ru, threshold = NULL) {
  pd <- ru_panel_data(ru, "ru", budget = threshold)
  data.frame(scheme = ru$scheme, risk = ru$risk, analysis_potential = ru$analysis_potential,
             x = pd$data$x, y = pd$data$y, stringsAsFactors = FALSE)
}

#' Draw the workbench's R-U plot
#'
#' Internal. The security-utility panel of [plot.ru_profile()] (the same data
#' preparation, colours, log floor, frontier and intervals), with the
#' threshold as its risk budget and the selected scheme ringed in black; with
#' `verdicts` (scheme_verdicts()), schemes whose release fails the context's
#' attacks are crossed out in red.
#' Returns the points invisibly, with where each landed on the device (`ndc_x`,
#' `ndc_y`, 0-1 from the bottom left), so that a browser test can click it.
#' @noRd
workbench_ru_plot <- function(ru, threshold = NULL, selected = NULL, verdicts = NULL) {
  pts <- ru_points(ru, threshold)
  ok <- is.finite(pts$x) & is.finite(pts$y)
  if (!any(ok)) {
    graphics::plot.new()
    graphics::text(0.5, 0.5, "No risk was computed (risk measure 'none'): nothing to plot.")
    return(invisible(pts))
  }
  pd <- ru_panel_data(ru, "ru", budget = threshold)
  ring <- function(pd) {
    # schemes whose release fails the context's attacks: crossed out, so that
    # none reads as within the threshold on the profile's risk alone
    fails <- if (!is.null(verdicts)) pts$scheme %in% verdicts$scheme[!verdicts$pass &
                                                                      !is.na(verdicts$release_risk)]
    if (any(fails)) {
      graphics::points(pts$x[fails], pts$y[fails], pch = 4, cex = 2.2, lwd = 2.2, col = ru_budget_col)
      graphics::legend("bottomleft", "release fails the context's attacks", pch = 4,
                       col = ru_budget_col, pt.lwd = 2.2, bty = "n", cex = 0.8,
                       text.col = ru_budget_col)
    }
    if (!is.null(selected) && selected %in% pts$scheme) {
      i <- which(pts$scheme == selected)
      graphics::points(pts$x[i], pts$y[i], pch = 1, cex = 3.2, lwd = 2.2, col = "black")
    }
    pts$ndc_x <- graphics::grconvertX(pts$x, "user", "ndc")
    pts$ndc_y <- graphics::grconvertY(pts$y, "user", "ndc")
    pts
  }
  pts <- base_draw_panel(pd, ru_palette(levels(pd$data$group)), cex_labels = 0.75, after = ring)
  invisible(pts)
}

# The console call that reproduces the profile the app ran (for the report):
# the custodian's choices written as R code.
workbench_profile_call <- function(spec, data_name = "data") {
  data_expr <- if (data_name %in% workbench_bundled()) data_name else "data"
  ids <- setdiff(spec$identifiers, spec$person)
  drop <- if (length(ids))
    sprintf("%s[, setdiff(names(%s), %s)]", data_expr, data_expr, deparse1(ids))
  else data_expr
  sig <- sort(as.integer(spec$round_sig), decreasing = TRUE)
  dec <- sort(as.integer(spec$round_dec), decreasing = TRUE)
  amounts <- tryCatch(sort(parse_amounts(spec$noise, "noise")), error = function(e) numeric())
  synth <- tryCatch(workbench_synth_schemes(spec), error = function(e) list())
  schemes <- c(sprintf("mask_round(%d)", sig), sprintf("mask_round(%d, type = \"decimal\")", dec),
               sprintf("mask_noise(%s, dist = \"%s\")", vapply(amounts, format, ""),
                       spec$noise_dist %||% "uniform"),
               vapply(synth, function(s) sprintf("mask_synth(\"%s\", m = %d, holdout = %s)",
                                                 s$method, as.integer(s$m), format(s$holdout)), ""))
  risk_call <- workbench_risk_call(spec)
  risk <- paste0("risk = ", if (is.null(risk_call)) "NULL" else deparse1(risk_call))
  family <- if (spec$family == "err") "\"err\"" else sprintf("%s()", spec$family)
  term <- if (nzchar(spec$term %||% "")) sprintf(", term = \"%s\"", spec$term) else ""
  seed <- if (is.null(spec$seed)) "NULL" else format(spec$seed)
  id <- if (!is.null(spec$person)) sprintf(", id = \"%s\"", spec$person) else ""
  sprintf(paste0("ru_profile(%s,\n  schemes = list(%s),\n  formula = %s, family = %s,\n",
                 "  vars = %s%s, %s,\n  nrep = %d, seed = %s%s)"),
          drop, paste(schemes, collapse = ", "), spec$formula, family, deparse1(spec$vars),
          term, risk, as.integer(max(1, spec$nrep %||% 1)), seed, id)
}

# ---- the verdict on a release ---------------------------------------------------

# The verdict on one release (its certificate): every risk that applies to it
# against the threshold, each said by name: the profile's risk measure (on
# the masked variables) and, with a release context and quasi-identifiers,
# the overall risk of the context's attacks on the released data
# (risk_release() on every quasi-identifier, masked or not). The release is
# within the threshold only when every risk is; a risk that could not be
# computed (NA) does not pass.
release_verdict <- function(released, keys, context, profile_risk, risk_label, threshold,
                            id = NULL, original = NULL) {
  if (is_synthetic(released))
    return(synthetic_verdict(released, keys, profile_risk, risk_label, threshold, original))
  # no profile risk (NULL) for data that are no scheme of the profile
  rows <- data.frame(risk = character(), value = numeric(), stringsAsFactors = FALSE)
  if (!is.null(profile_risk))
    rows <- data.frame(risk = sprintf("Profile risk (%s)", risk_label %||% "risk measure"),
                       value = as.double(profile_risk), stringsAsFactors = FALSE)
  release_risk <- NA_real_
  if (inherits(context, "release_context") && length(keys)) {
    rr <- tryCatch(risk_release(released, keys = keys, context = context, id = id),
                   error = function(e) NULL)
    release_risk <- if (is.null(rr)) NA_real_ else rr$overall
    rows <- rbind(rows, data.frame(
      risk = sprintf("Release risk (the context's attacks on %s%s)", paste(keys, collapse = ", "),
                     if (is.null(id)) "" else ", by persons"),
      value = release_risk, stringsAsFactors = FALSE))
  }
  rows$within_threshold <- !is.na(rows$value) & rows$value <= threshold
  list(table = rows, pass = nrow(rows) > 0L && all(rows$within_threshold), threshold = threshold,
       release_risk = release_risk)
}

# The verdict on synthetic copies: only the risks that judge new records
# count. The context's attacks count classes of released records that are
# persons of the data (k-anonymity), which synthetic records are not, so they
# are replaced by replicated uniques on the quasi-identifiers (synthpop's
# repU: an original unique whose keys a copy holds exactly once); a profile
# risk that does not apply (record linkage: a synthetic record has no
# original) is left out and said so in `notes`, never shown as NA.
synthetic_verdict <- function(released, keys, profile_risk, risk_label, threshold, original) {
  rows <- data.frame(risk = character(), value = numeric(), stringsAsFactors = FALSE)
  notes <- character()
  label <- risk_label %||% "risk measure"
  if (!is.null(profile_risk) && !is.na(profile_risk))
    rows <- data.frame(risk = sprintf("Profile risk (%s)", label), value = as.double(profile_risk),
                       stringsAsFactors = FALSE)
  else if (!is.null(profile_risk))
    notes <- sprintf(paste("The profile risk (%s) does not apply to synthetic records (they have no",
                           "original record to be linked to): choose an Article 29 attack on 4 Masking."),
                     label)
  release_risk <- NA_real_
  if (length(keys) && !is.null(original)) {
    ru_crit <- replicated_uniques(keys = keys)
    res <- tryCatch(run_criterion(ru_crit, released, original = original), error = function(e) e)
    if (inherits(res, "error") || !isTRUE(res$applies))
      notes <- c(notes, sprintf("Replicated uniques could not be computed: %s",
                                if (inherits(res, "error")) conditionMessage(res) else res$note))
    else {
      release_risk <- res$value
      rows <- rbind(rows, data.frame(
        risk = sprintf("Replicated uniques on %s (share of original records)", paste(keys, collapse = ", ")),
        value = release_risk, stringsAsFactors = FALSE))
    }
  }
  rows$within_threshold <- rows$value <= threshold
  notes <- c(notes, attr(released, "workbench_notes"))
  if (!nrow(rows))
    notes <- c(notes, "No risk that applies to synthetic records was computed: the release cannot be judged.")
  list(table = rows, pass = nrow(rows) > 0L && all(rows$within_threshold), threshold = threshold,
       release_risk = release_risk, notes = notes, synthetic = TRUE)
}

# The verdicts of every scheme of a workbench run, on its released data sets
# (`releases`, named by scheme): one row per scheme with the profile risk, the
# release risk (NA without context or quasi-identifiers) and whether it passes.
scheme_verdicts <- function(ru, releases, run, original = NULL) {
  s <- run$spec
  rows <- lapply(ru$scheme, function(label) {
    v <- release_verdict(person_counted(releases[[label]], original, s$person), s$keys,
                         run$context, ru$risk[ru$scheme == label], ru_meta(ru)$risk,
                         run$threshold, id = s$person, original = verdict_original(original, s))
    data.frame(scheme = label, release_risk = v$release_risk, pass = v$pass,
               stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}

# The original data as the profile measured them (identifiers dropped, the
# person column kept): what a synthetic release is compared with.
verdict_original <- function(original, spec) {
  if (is.null(original)) return(NULL)
  original[, setdiff(names(original), setdiff(spec$identifiers, spec$person)), drop = FALSE]
}

# One sentence for the custodian: the verdict and which risk decides it.
verdict_text <- function(v, label) {
  tab <- v$table
  if (!nrow(tab))
    return(sprintf("Verdict on '%s': cannot be judged. %s", label, paste(v$notes, collapse = " ")))
  parts <- sprintf("%s %s (%s)", tab$risk, format_num(tab$value, 2),
                   ifelse(tab$within_threshold, "within", "OVER"))
  paste(c(sprintf("Verdict on '%s'%s: %s the threshold %s. %s.", label,
                  if (isTRUE(v$synthetic)) " (synthetic copies)" else "",
                  if (v$pass) "within" else "NOT within", format_num(v$threshold, 3),
                  paste(parts, collapse = "; ")), v$notes), collapse = " ")
}
