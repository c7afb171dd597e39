# One call from the data and a release context to a release that passes
# every attack of the context (issue 29, item 3; issue 37): generalize with
# ola() at the targets the context implies and the custodian's criteria, and
# take its release and class structure; blank single cells with
# suppress_local() where classes are still too small; drop or pseudonymise
# the identifiers; and count the certificate once, in one place: every
# attack of the context and every criterion recounted on the release. The
# steps are small functions (setup, generalize, suppress, identifiers,
# certificate, result); persons (`id`) are the unit counted, fixed in the
# setup.

#' De-identify data to a release context
#'
#' From the data and a [release_context()] to a release that passes every
#' attack of the context, in four steps, each recorded with what it did, the
#' information loss and (with `model`) the collaborator's coefficient. The
#' certificate speaks for the release as delivered, every column of it
#' (methods vignette, section 26.5):
#'
#' 0. **Review**: [review_columns()] on the data (with `sensitive`, `id`,
#'    `declare` and `control$review`). Every column it flags (a direct
#'    identifier, a date more precise than the year, free text, a proxy of a
#'    key, a quasi-identifier) that is not a key, not in `identifiers`, not
#'    the person column and not declared safe in `declare` becomes a key of
#'    the search and of the certificate, with the hierarchy given for it in
#'    `hierarchies` or by default a date hierarchy to the month and the year
#'    (Date and date-time columns) or kept-or-suppressed
#'    ([hierarchy_flat()]). So the search cannot keep a proxy (Adult's
#'    education-num) while generalizing its key: it generalizes or suppresses
#'    it with the key, and the model metric cannot steer towards a release
#'    the recount fails. A column in `sensitive` flagged only as a
#'    quasi-identifier (near-unique, named like one) stays in the
#'    custodian's role (a measurement the attacker does not know); flagged
#'    as a proxy, a date or an identifier it is counted like any other. The
#'    release of the search is reviewed again against the original records
#'    (a column may restore a key only once the key is generalized: the
#'    event indicator fixes the exit date of the persons censored at the
#'    study's end); such a column joins the keys and the search runs again
#'    (at most three rounds; a column still flagged after them is counted as
#'    a key by the recount).
#' 1. **Generalize**: [ola()] with the targets the context implies and the
#'    custodian's `criteria`, ARX's outlier semantics (`outliers =
#'    "failing"`) and, when `model` is given, the collaborator's model as the
#'    metric ([analysis_loss()]); its release and class structure are what
#'    the next steps take. For a
#'    public release (maximum risk at most the threshold) the target is
#'    k-anonymity with \eqn{k = \lceil 1 / threshold \rceil}; otherwise the
#'    strict average risk times the largest attack probability must stay
#'    within the threshold, which holds when every class has at least 3
#'    records (below that the strict average is the maximum risk) and the
#'    average risk (classes per record) is at most threshold / max(Pr(attack));
#'    with `breach_risk = "maximum"` the breach needs
#'    \eqn{k \ge Pr(breach) / threshold} too.
#' 2. **Suppress locally**: the records that the chosen node leaves in
#'    classes smaller than k are not dropped: [suppress_local()] blanks single
#'    key values until every class has k records (blanks read as a value of
#'    their own, as [risk_kanon()] and [risk_release()] count them). Records
#'    suppressed for another reason (l-diversity, t-closeness, the average
#'    risk) are dropped, and so is every suppressed record when a criterion
#'    of the search is not one of class sizes or the average risk (blanks do
#'    not make a class diverse). If the recount of step 4
#'    fails after local
#'    suppression (blanked records can form new classes), the records with a
#'    blank are dropped instead and the recount repeated: the step says so.
#' 3. **Identifiers**: dropped, or replaced by keyed pseudonyms (HMAC-SHA256
#'    with `secret`, as [datafly()] does for `id`).
#' 4. **Verify**: [risk_release()] on every key of the released data: the
#'    `certificate` is that recount, attack by attack, never the search's
#'    targets, and `criteria` the recount of every criterion of `criteria`
#'    and of the context ([release_context()]`(criteria = )`), one row each
#'    ([criterion_report_row()]). The release passes when every attack and
#'    every bounded criterion does. A release that still fails hands over
#'    **no data**: `data` is `NULL` (and `as.data.frame()` an error of class
#'    `epimask_error_no_release`), `pass = FALSE`, `reason` and `advice` say
#'    why and what to try, the steps end with `"withhold"` (every record
#'    withheld), and a warning of class `epimask_warning_release_fails` is
#'    given. So do fewer records (persons) than the smallest class the
#'    context needs (`deidentify(d[1, ], ...)`): the records the search
#'    suppressed are never put back by a later step. Each release is counted
#'    once: the identifiers do not change the keys, so the certificate is
#'    the recount of step 2's release.
#'
#' With `model`, the collaborator's model is also refitted on the release as
#' delivered (`analysis`): its columns as released (an interval label of a
#' generalized numeric key is a factor to the model, a blank a missing
#' value), complete cases, by the package's IRLS; the estimate, its SE and
#' U against the original, the records used and those lost (withheld from
#' the release, a missing value of a model variable), or, when it cannot be
#' fitted (a model variable dropped, a level lost, no data), why. The print,
#' `glance()` (`analysis_potential`, `records_used`) and the report give
#' this U; the steps give the model at each step as the search sees it
#' ([analysis_loss()]: a generalized numeric key at its group means).
#'
#' @param data A data frame (not modified).
#' @param keys The quasi-identifier columns.
#' @param hierarchies A named list of hierarchies, one per key, as for [ola()].
#' @param context A [release_context()] (it states the threshold, and may
#'   state criteria the certificate recounts).
#' @param criteria `NULL`, or [risk criteria][new_risk_criterion()] the
#'   release must meet besides the context's attacks: the search meets them
#'   (with the targets of the context) and the certificate recounts them,
#'   e.g. `list(l_diversity(2, "dx"), uniqueness(0.05,
#'   population_model(0.1)))`.
#' @param sensitive `NULL` or sensitive columns (neither keys nor
#'   identifiers): released as they are (named in the report); the
#'   deprecated `l` and `t` apply to them.
#' @param identifiers `NULL`, or the direct identifiers: a character vector
#'   of columns to drop, or a named character vector whose values are
#'   `"drop"` or `"pseudonymise"`, e.g. `c(patient = "pseudonymise", name =
#'   "drop")`.
#' @param model `NULL`, or the collaborator's model as an [analysis_loss()]:
#'   the search keeps its coefficient best, and every step reports it.
#' @param control A [deidentify_control()]: `max_suppress` (default 0.05),
#'   `metric` (without `model`), `importance` (for [suppress_local()]),
#'   `secret` (for the pseudonyms), `drop_proxies`, and the search options of
#'   [ola_control()].
#' @param declare `NULL`, or the flagged columns the custodian declares safe,
#'   with the reason: a named character vector such as `c(visit_date =
#'   "shifted upstream by up to 7 days")`. A declared column is released as
#'   it is, not counted by the certificate, and the declaration is printed
#'   in the certificate and the report. A key cannot be declared.
#' @param ... The options of [deidentify_control()] and [ola_control()] by
#'   their full names (`max_suppress = 0.1`, `secret = "..."`, `outliers =
#'   "small"`, ...); and, deprecated, `k` (`criteria =
#'   list(k_anonymity(k))`) and the flat criteria of epimask 0.3 (`l`, `t`,
#'   `diversity`, `ordered`, `uniqueness`, `loglinear`, `cluster_risk`, as
#'   for [ola()]), mapped to `criteria` with a warning. A name that R would
#'   match partially to an argument (`k` to `keys` when `keys` is not named)
#'   is an error of class `epimask_error_argument` naming it; an unknown
#'   name an error of class `epimask_error_name`.
#' @param id `NULL`, or the person column when persons have several records
#'   (visits, stays): the person is then the unit of every count (see
#'   "Several records per person"). Dropped from the release unless
#'   `identifiers` says `"pseudonymise"` for it.
#' @return An object of class `epimask_release`: `data` (the release, or
#'   `NULL` when it fails: nothing is handed over), `reason` and `advice`
#'   (when it fails), `review` (the [review_columns()] result),
#'   `keys_given` (the custodian's keys), `review_keys` (the flagged columns
#'   counted as keys, named by column, valued by the review's role),
#'   `default_hierarchy` (those searched with a default hierarchy),
#'   `declared`, `as_sensitive` (sensitive columns kept in their role),
#'   `release_pending` (columns still flagged on the release after the
#'   rounds, counted by the recount; `NULL` when none), `analysis` (the
#'   model refitted on the release as delivered), `rows` (the rows of the
#'   data released), `keys` (every key counted: `keys_given` and
#'   `review_keys`),
#'   `certificate` (one row per attack: `attack`, `pr_attack`,
#'   `pr_reid_given`, `risk`, `threshold`, `pass`), `pass`, `overall_risk`,
#'   `steps` (one row per step: `step`, `action`, `records` (released after
#'   the step), `cells_blanked` (key cells of records set to NA),
#'   `entropy`, `precision` (information losses, methods vignette section
#'   16, over every record of the data, a withheld record or a blank
#'   counting as fully generalized), `estimate`, `se`, `analysis_potential`
#'   (with `model`), `overall_risk`, `pass`, `records_dropped` (records of
#'   the data withheld after the step)), `units` (what each column of
#'   `steps` counts, in words), `risk_before` and `risk_after`
#'   ([risk_release()] objects), `generalization` (the [ola()] result),
#'   `suppression` (the [suppress_local()] result), `targets`, `keys`,
#'   `identifiers`, `context`, `proxies` (released columns that determine a
#'   generalized key one-to-one and were kept: the certificate counts the
#'   keys only, so the print and the report warn of them), `dropped` (the
#'   proxies dropped with `drop_proxies = TRUE`), `criteria` (the rows of the
#'   criteria recounted on the release, [criterion_report_row()]),
#'   `released_rows` (the rows of the data the release holds, in order: the
#'   attacks compare each with its original at the release's levels), with
#'   `deidentify_control(synthesis = )` the candidates (`candidates`,
#'   `released`, `synthetic`, `synthetic_rule`, `synthesis_criteria`; see
#'   [deidentify_control()]) and `call`
#'   (the call as
#'   text, for the report; `NULL` when too long to be read), `persons`
#'   (when an identifier repeats, as a person column does with several
#'   records per person: the release recounted by that column, `column`,
#'   `n_persons`, `n_records`, `overall`, `threshold`, `pass`, `attacks`; the certificate
#'   counts records, and a warning of class `epimask_warning_persons` says
#'   so; `NULL` otherwise, and always `NULL` with `id`), and with `id`:
#'   `id`, `n_persons` (of the data), `n_persons_released`, and columns
#'   `persons` and `persons_dropped` (persons released and withheld after
#'   each step, with all their records) in `steps`.
#' @section Several records per person:
#' With `id` naming the person column (methods vignette, section 23) the
#' person is the unit throughout: [ola()] searches with `id` (k, the
#' suppression limit, `avg_risk` and the other criteria count persons, and it
#' suppresses a person with all their records), the small-class test and
#' [suppress_local()] (with `id`) count persons, the fallback drops every
#' record of a person with a blank, and every recount, the certificate
#' included, is [risk_release()] with `id`. A person's records are all
#' released or all dropped. Keys may vary between a person's records (a
#' person's key is then the set of their key tuples, as in [ola()] and
#' [risk_release()] with `id`). The person column is a
#' direct identifier: it is dropped unless `identifiers` lists it as
#' `"pseudonymise"` (keyed pseudonyms with `secret`, which keep a person's
#' records linked in the release); it is never released as it is. The print,
#' the steps (columns `persons`, `persons_dropped`) and [release_report()]
#' count persons and records.
#'
#' The units of the steps: a step that withholds persons says how many
#' persons and how many records (`persons_dropped`, `records_dropped`); the
#' overall risk counts persons; the information losses (`entropy`,
#' `precision`) stay over records, because the information the collaborator
#' loses is in the records they receive: a person with 6 visits loses a
#' generalized key in 6 records of their file. So the losses of the steps
#' weigh a person by their records, while [ola()]'s search with `id` ranks
#' the generalizations by losses over persons (its `info_loss` counts each
#' person's key tuples once): the two differ by that weighting. `x$units`, the print,
#' `summary()` and the report name the unit of every column.
#' @seealso [release_report()] takes the result; [ola()], [suppress_local()],
#'   [risk_release()].
#' @family de-identification
#' @examples
#' keys <- c("age", "sex", "race", "marital_status", "education")
#' h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
#'           race = hierarchy_flat(), marital_status = hierarchy_flat(),
#'           education = hierarchy_flat())
#' ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.1)
#' d <- adult_extract[1:1500, ]
#' d$high_income <- as.integer(d$income == ">50K")
#' rel <- deidentify(d, keys, h, ctx,
#'                   model = analysis_loss(high_income ~ age + sex, binomial(), "sexMale"))
#' rel
#' summary(rel)
#' plot(rel)
#'
#' # several visits per participant: the person is the unit
#' tv <- trial_visits
#' tv$birth_year <- as.integer(format(tv$birth, "%Y"))
#' tv$birth <- NULL
#' hv <- list(site = hierarchy_flat(), sex = hierarchy_flat(),
#'            birth_year = hierarchy_numeric(c(5, 10, 20)))
#' # the visit and exit dates are flagged by the column review: counted as
#' # keys (generalized) unless declared, with the reason, as here
#' relp <- deidentify(tv, c("site", "sex", "birth_year"), hv, ctx, id = "pid",
#'                    identifiers = c(pid = "pseudonymise"), sensitive = "sbp",
#'                    declare = c(visit_date = "shifted upstream by up to 7 days",
#'                                exit_date = "shifted upstream with the visits"),
#'                    control = deidentify_control(secret = "custodian key"))
#' relp
#'
#' # a criterion besides the context's attacks: 2 distinct incomes per class
#' deidentify(d, keys, h, ctx, criteria = l_diversity(2, "income"))
#' @export
deidentify <- function(data, keys, hierarchies, context, criteria = NULL, sensitive = NULL,
                       identifiers = NULL, model = NULL, id = NULL, declare = NULL,
                       control = deidentify_control(), ...) {
  check_full_names(sys.call(), deidentify, "deidentify")
  setup <- deidentify_setup(data, keys, hierarchies, context, criteria, sensitive, identifiers,
                            model, id, declare, control, list(...))
  # a column that restores a generalized key only on the release (the
  # review of the release as delivered) joins the keys and the search is
  # run again, so that the search does not hand the certificate a release
  # its recount fails; the warnings are those of the last round
  for (round in 1:3) {
    run <- collect_warnings({
      gen <- deidentify_generalize(setup)
      rel <- deidentify_suppress(setup, gen)
      rel <- deidentify_identifiers(setup, gen, rel)
      late <- release_review_pending(setup, rel$data, which(!rel$dropped))
    })
    if (is.null(late) || round == 3L) break
    setup <- add_review_keys(setup, late)
  }
  for (w in run$warnings) warning(w)
  # the data before, on the same keys as the certificate
  risk_before <- recount(setup$frame, setup$keys, setup$context, setup$id)
  cert <- deidentify_certificate(setup, rel, late)
  res <- deidentify_result(setup, gen, rel, cert, risk_before, deidentify_call(sys.call()))
  # synthesis candidates beside the generalization (R/deidentify-synth.R)
  deidentify_candidates(setup, res)
}

#' Options of deidentify()
#'
#' The options of [deidentify()] that travel together; each may also be
#' given by name in its `...` (as [glm()] takes those of [glm.control()]).
#'
#' @param max_suppress Largest share of the records (persons) the search may
#'   suppress.
#' @param metric `NULL` (the entropy) or the information loss ranking
#'   generalizations when no `model` is given (see [ola()]).
#' @param importance `NULL` or the keys' importance for [suppress_local()]
#'   (higher is blanked later).
#' @param secret `NULL`, or the custodian's secret for the keyed pseudonyms
#'   of identifiers listed as `"pseudonymise"`.
#' @param drop_proxies `TRUE` drops from the release the columns that
#'   determine a generalized key one-to-one (such as a numeric code of a
#'   generalized category): the column review's exact proxies are then not
#'   made keys of the search but dropped when their key is generalized
#'   (kept when it is not); `FALSE` (the default) searches them as keys.
#' @param review A [review_control()]: the thresholds of the column review
#'   [deidentify()] runs on the data and on its release.
#' @param outliers,local,search,suppressed_loss,tagging The search options
#'   of [ola_control()]; `outliers` is `"failing"` (ARX's semantics) here.
#' @param synthesis `NULL`, or a [mask_synth()] scheme (or a list of them):
#'   synthetic releases offered beside the generalization. Each is made from
#'   the data without identifiers, judged by the criteria of the call and the
#'   context that apply to synthetic records (the attacks, replicated
#'   uniques; a criterion without a bound is held to the context's
#'   threshold) and by `model` (U of the copies' fits combined by the
#'   synthetic-data rules); the candidate released is the one that passes
#'   with the largest U (the generalization on ties and without a model).
#'   The result then has `candidates`, `released` (`"generalization"` or
#'   `"synthesis"`), `synthetic` (the copies released, or `NULL`) and
#'   `synthetic_rule` (how an analyst combines them). Not with `id`.
#' @return An object of class `deidentify_control`.
#' @family de-identification
#' @examples
#' deidentify_control(max_suppress = 0.1, secret = "custodian key",
#'                    review = review_control(purity = 1))
#' # a synthesis offered beside the generalization (see deidentify())
#' deidentify_control(synthesis = mask_synth(m = 3, holdout = 0.5, smooth = TRUE))
#' @export
deidentify_control <- function(max_suppress = 0.05, metric = NULL, importance = NULL,
                               secret = NULL, drop_proxies = FALSE, outliers = "failing",
                               local = FALSE, search = "exact", suppressed_loss = "top",
                               tagging = "auto", review = review_control(), synthesis = NULL) {
  ola <- ola_control(outliers = outliers, local = local, search = search,
                     suppressed_loss = suppressed_loss, tagging = tagging)
  if (!inherits(review, "epimask_review_control"))
    abort_type("review", "a review_control() object")
  structure(c(list(max_suppress = check_number(max_suppress, lower = 0, upper = 1),
                   metric = metric, importance = importance, secret = secret,
                   drop_proxies = check_flag(drop_proxies), review = review),
              unclass(ola), list(ola = ola,
                                 synthesis = check_synthesis_candidates(synthesis))),
            class = "deidentify_control")
}

#' @export
format.deidentify_control <- function(x, ...) {
  shown <- unclass(x)[setdiff(names(x), c("ola", "synthesis"))]
  c("<deidentify options>",
    sprintf("  %s: %s", names(shown),
            vapply(shown, function(v) if (is.null(v)) "NULL" else format(v)[[1L]], "")),
    if (length(x$synthesis))
      paste("  synthesis candidate:", vapply(x$synthesis, format, "")))
}

#' @export
print.deidentify_control <- function(x, ...) print_formatted(x, ...)

# The criteria of epimask 0.3's `...` of deidentify() (passed on to ola()).
deidentify_flat_arguments <- c("l", "t", "diversity", "ordered", "uniqueness", "loglinear",
                               "cluster_risk")

# Everything the steps share, checked once: the data as a plain frame, the
# keys, sensitive columns, identifiers and the person column (the unit of
# every count: `person`, NULL without `id`), the targets the context implies,
# the criteria of the search (the targets' and the custodian's) and those the
# certificate recounts (the custodian's and the context's).
deidentify_setup <- function(data, keys, hierarchies, context, criteria, sensitive, identifiers,
                             model, id, declare, control, dots) {
  if (!inherits(context, "release_context"))
    abort_type("context", "a release_context() object (it states the threshold)")
  if (!is.numeric(context$threshold) || length(context$threshold) != 1L ||
      !is.finite(context$threshold))
    abort_value("context", "a release_context() with a threshold")
  data <- check_key_data(data, "data")
  frame <- as_plain_data(as.data.frame(data))
  keys <- check_columns(keys, frame)
  sensitive <- check_columns(sensitive, frame, allow_null = TRUE)
  if (length(intersect(sensitive, keys))) abort_value("sensitive", "columns that are not `keys`")
  ids <- check_deidentify_identifiers(identifiers, frame, c(keys, sensitive))
  id <- check_deidentify_id(id, frame, keys, sensitive)
  # the person column is an identifier: pseudonymised when listed so in
  # `identifiers`, dropped otherwise
  if (!is.null(id) && !id %in% names(ids)) ids <- c(ids, stats::setNames("drop", id))
  if (!is.null(model) && !inherits(model, "epimask_analysis_loss"))
    abort_type("model", "NULL or an analysis_loss() object")
  declared <- check_declare(declare, frame, keys)
  control <- control_with_dots(control, dots, deidentify_control, "deidentify_control",
                               c("k", deidentify_flat_arguments))
  if (!is.null(model) && !is.null(control$metric))
    abort_value("metric", "left out when `model` is given (the model is the metric)")
  flat <- dots[intersect(names(dots), c("k", deidentify_flat_arguments))]
  user <- as_criteria(criteria)
  if (length(flat))
    user <- c(user, flat_criteria(flat, frame, "deidentify", sensitive = sensitive,
                                  default_k = NULL))
  targets <- context_targets(context)
  # with a person column the classes and the average risk count persons
  if (!is.null(id)) targets$rule <- gsub("records", "persons", targets$rule, fixed = TRUE)
  target_criteria <- c(list(k_anonymity(targets$k)),
                       if (!is.null(targets$avg_risk)) list(avg_risk(targets$avg_risk)))
  # the column review: every flagged column left in the release and not
  # declared is a key of the search and of the certificate
  reviewed <- deidentify_review(frame, keys, sensitive, ids, id, declared, hierarchies,
                                control$review, control$drop_proxies)
  keys_given <- keys
  keys <- c(keys, names(reviewed$added))
  # the search needs the person column (ola() counts persons with it)
  work <- frame[setdiff(names(frame), setdiff(names(ids), id))]
  certified <- prepare_criteria(c(user, context$criteria), work, keys, id)
  list(data = data, frame = frame, work = work, keys = keys, keys_given = keys_given,
       hierarchies = reviewed$hierarchies, review = reviewed$review,
       review_keys = reviewed$added, as_sensitive = reviewed$as_sensitive,
       default_hierarchy = reviewed$default_hierarchy, declared = declared,
       context = context, sensitive = sensitive, ids = ids, id = id,
       person = if (!is.null(id)) key_groups(frame, id)$group, model = model,
       control = control, targets = targets, search = c(target_criteria, user),
       certified = certified, user = user, n = nrow(frame))
}

# 1. Generalize: ola() with the targets and the custodian's criteria; its
# release and class structure are what the other steps take.
deidentify_generalize <- function(setup) {
  ctl <- setup$control
  ola(setup$work, setup$keys, setup$hierarchies, criteria = setup$search,
      metric = setup$model %||% ctl$metric %||% "entropy", max_suppress = ctl$max_suppress,
      id = setup$id, secret = ctl$secret, drop_proxies = ctl$drop_proxies, control = ctl$ola)
}

# 2. Suppress locally the records left in classes smaller than the search's
# smallest class size (blanks read as a value of their own); records the
# search suppressed for another reason are dropped, and so is every
# suppressed record when a criterion of the search is not one of class
# sizes (blanks form classes it did not check). When the recount fails
# after local suppression, the records with a blank are dropped instead.
deidentify_suppress <- function(setup, gen) {
  st <- gen$structure
  keys <- setup$keys
  n <- setup$n
  person <- setup$person
  id <- setup$id
  k <- st$min_size
  current <- st$current
  rec_levels <- st$record_levels
  # local recoding: each record at its round's levels, released as text
  if (!is.null(gen$record_levels)) current <- lapply(current, as.character)
  unit_small <- (st$class_size < k)[st$unit_class]
  small <- if (is.null(st$person)) unit_small else unit_small[st$person]
  supp_gen <- seq_len(n) %in% gen$suppressed
  lat <- st$lattice %||% lattice_build(setup$work, keys, st$hierarchies)
  evaluator <- if (!is.null(setup$model))
    analysis_evaluator(setup$model, setup$work, keys, st$hierarchies, lat)
  blanks_ok <- all(vapply(setup$search, criterion_blanks_ok, logical(1)))
  dropped <- supp_gen & (!small | !blanks_ok)
  released <- setup$frame
  for (key in keys) released[[key]] <- current[[key]]
  released <- released[!dropped, , drop = FALSE]
  supp <- NULL
  blank <- matrix(FALSE, n, length(keys))
  n_units <- if (is.null(person)) nrow(released) else length(unique(person[!dropped]))
  too_few <- n_units < k
  if (too_few && any(supp_gen & !dropped)) {
    # no local suppression can help: the records the search suppressed are
    # withheld, never put back (as "*") by this step
    dropped <- supp_gen
    released <- setup$frame
    for (key in keys) released[[key]] <- current[[key]]
    released <- released[!dropped, , drop = FALSE]
  }
  if (any(supp_gen & small) && !too_few && blanks_ok) {
    supp <- withCallingHandlers(
      suppress_local(released, keys, k = k, importance = setup$control$importance,
                     na = "category", id = id),
      epimask_warning_stratum = function(w) invokeRestart("muffleWarning"))
    released <- supp$data
    blank[!dropped, ] <- supp$suppressed
  }
  risk <- recount(counted_release(released, setup, dropped), keys, setup$context, counted_id(setup))
  action <- if (too_few) sprintf("fewer %s (%d) than k = %d: no suppression can help",
                                  if (is.null(person)) "records" else "persons", n_units, k) else
    if (is.null(supp)) sprintf("%s; %s dropped",
                               if (!blanks_ok && any(supp_gen)) "no local suppression with l, t or a sample-release criterion (blanks make classes the criteria did not check)"
                               else "nothing left to suppress", unit_text(dropped, person)) else
    sprintf("suppress_local(): %d cell(s) blanked in %s; %s dropped (failing l, t or the average risk)",
            supp$n_cells, unit_text(!dropped, person, rowSums(supp$suppressed) > 0L),
            unit_text(dropped, person))
  fallback <- FALSE
  if (!risk$pass && !is.null(supp) && supp$n_cells > 0L) {
    # blanked records formed classes that break the context: drop them
    fallback <- TRUE
    keep_rows <- rowSums(supp$suppressed) == 0L
    # with persons, a person with a blank leaves with all their records
    if (!is.null(id)) keep_rows <- !released[[id]] %in% released[[id]][!keep_rows]
    released <- released[keep_rows, , drop = FALSE]
    dropped[!dropped] <- !keep_rows
    blank[] <- FALSE
    risk <- recount(counted_release(released, setup, dropped), keys, setup$context,
                    counted_id(setup))
    action <- paste0(action, sprintf("; the recount failed, so the %s with a blank were dropped instead",
                                     if (is.null(id)) "records" else "persons"))
  }
  list(data = released, dropped = dropped, blank = blank, supp = supp, supp_gen = supp_gen,
       fallback = fallback, risk = risk, action = action, rec_levels = rec_levels, lat = lat,
       evaluator = evaluator,
       # a population table or the original, at the release's generalization
       generalize = function(df) generalize_frame(df, keys, st$hierarchies, gen$levels))
}

# The released keys counted as the certificate counts them: with a person
# column, by the persons' original ids on the released rows (not released).
counted_release <- function(released, setup, dropped) {
  if (is.null(setup$id)) return(released[setup$keys])
  counted <- released[setup$keys]
  counted[[".epimask_person"]] <- setup$frame[[setup$id]][!dropped]
  counted
}

counted_id <- function(setup) if (!is.null(setup$id)) ".epimask_person"

# 3. Identifiers: dropped, or replaced by keyed pseudonyms; proxies of
# generalized keys dropped when asked.
deidentify_identifiers <- function(setup, gen, rel) {
  ids <- setup$ids
  released <- rel$data
  if (length(ids)) {
    pseudo <- names(ids)[ids == "pseudonymise"]
    secret <- if (length(pseudo)) check_secret(setup$control$secret, pseudo)
    kept_ids <- setup$frame[!rel$dropped, , drop = FALSE]
    for (col in pseudo) released[[col]] <- pseudonymize(kept_ids[[col]], secret)
    released <- released[setdiff(names(released), names(ids)[ids == "drop"])]
  }
  released <- released[setdiff(names(released), gen$dropped)]
  rownames(released) <- NULL
  rel$data <- released
  rel
}

# 4. The certificate, counted in one place on the release as delivered:
# every attack of the context (the recount of step 2: the identifiers do not
# change the keys, so the release's classes are those counted there) and
# every criterion of the custodian and the context, on the released records
# (and their originals, for the criteria that compare with them).
deidentify_certificate <- function(setup, rel, late = NULL) {
  after <- rel$risk
  kept_rows <- which(!rel$dropped)
  # the release as delivered reviewed against its original records: a
  # column that restores a generalized key there, still not a key after the
  # rounds of the search, is counted as a key in the recount
  if (!is.null(late)) {
    counted <- rel$data[c(setup$keys, late$column)]
    if (!is.null(setup$id)) counted[[".epimask_person"]] <- setup$frame[[setup$id]][kept_rows]
    after <- recount(counted, c(setup$keys, late$column), setup$context, counted_id(setup))
  }
  counted <- counted_release(rel$data, setup, rel$dropped)
  full <- rel$data
  if (!is.null(setup$id)) full[[".epimask_person"]] <- counted[[".epimask_person"]]
  results <- release_criteria(setup$certified, full, setup$frame, setup$keys, counted_id(setup),
                              generalize = rel$generalize, rows = kept_rows)
  after$criteria <- results
  attacks_pass <- after$pass
  after$pass <- attacks_pass && criteria_pass(results)
  certificate <- data.frame(after$attacks[c("attack", "pr_attack", "pr_reid_given", "risk")],
                            threshold = setup$context$threshold,
                            pass = !is.na(after$attacks$risk) &
                              after$attacks$risk <= setup$context$threshold,
                            stringsAsFactors = FALSE)
  persons <- if (is.null(setup$id))
    persons_recount(setup$frame, setup$ids, rel$dropped, rel$data, setup$keys, setup$context)
  if (!after$pass)
    epimask_warn(paste(if (!nrow(rel$data)) "Every record was suppressed: the release is empty." else
      if (!attacks_pass) sprintf(paste0(
        "The release fails the context: overall risk %s > threshold %s (recounted on the ",
        "release%s). Generalize further (hierarchies, `max_suppress`) or state another context."),
        format(signif(after$overall, 3)), format(signif(setup$context$threshold, 3)),
        if (is.null(late)) "" else sprintf(", with %s counted as keys",
                                           paste0("'", late$column, "'", collapse = ", ")))
      else sprintf("The release fails the criteria %s (recounted on the release).",
                   paste0("'", vapply(Filter(function(r) isFALSE(r$pass), results),
                                      `[[`, "", "label"), "'", collapse = ", ")),
      "No data are released (`$data` is NULL): the certificate says why."),
      "epimask_warning_release_fails")
  if (!is.null(persons))
    epimask_warn(persons_note(persons), "epimask_warning_persons")
  list(after = after, certificate = certificate, criteria = criterion_rows(results),
       persons = persons, release_pending = late)
}

# The release object: the steps (each with its losses, the collaborator's
# coefficient and the recount), the certificate, the steps' objects.
deidentify_result <- function(setup, gen, rel, cert, risk_before, call) {
  n <- setup$n
  keys <- setup$keys
  person <- setup$person
  lat <- rel$lat
  evaluator <- rel$evaluator
  rec_levels <- rel$rec_levels
  supp_gen <- rel$supp_gen
  dropped <- rel$dropped
  blank <- rel$blank
  levels <- gen$levels
  steps <- list(
    step_row("original", "the data as given", n, 0L, c(entropy = 0, precision = 0),
             evaluator, matrix(0L, n, length(keys)), rep(FALSE, n), NULL, risk_before),
    step_row("generalize", sprintf("ola(): levels %s; %s suppressed",
                                   paste(sprintf("%s %d", keys, levels), collapse = ", "),
                                   unit_text(supp_gen, person)),
             n - gen$n_suppressed, 0L, cell_losses(lat, rec_levels, NULL, supp_gen),
             evaluator, rec_levels, supp_gen, NULL,
             recount(gen$data, keys, setup$context, setup$id)),
    step_row("suppress locally", rel$action, nrow(rel$data), sum(blank),
             cell_losses(lat, rec_levels, blank, dropped), evaluator, rec_levels, dropped,
             blank, rel$risk))
  ids <- setup$ids
  steps[[4L]] <- step_row(
    "identifiers", if (!length(ids)) "none given" else
      paste(sprintf("%s %s", names(ids), ifelse(ids == "drop", "dropped", "pseudonymised")),
            collapse = ", "),
    nrow(rel$data), sum(blank), cell_losses(lat, rec_levels, blank, dropped), evaluator,
    rec_levels, dropped, blank, cert$after)
  released <- rel$data
  if (!cert$after$pass) {
    # a release that fails its recount is not handed over: every record withheld
    steps[[5L]] <- step_row("withhold", "the recount fails: no data released", 0L, 0L,
                            cell_losses(lat, rec_levels, NULL, rep(TRUE, n)), evaluator,
                            rec_levels, rep(TRUE, n), NULL, cert$after)
    released <- NULL
    dropped <- rep(TRUE, n)
  }
  steps <- do.call(rbind, steps)
  rownames(steps) <- NULL
  # withheld so far: the records (and persons) of the data not in the release
  # after each step
  steps$records_dropped <- n - steps$records
  if (!is.null(person)) {
    # persons released at each step (records are in `records`)
    steps$persons <- c(max(person), length(unique(person[!supp_gen])),
                       rep(length(unique(person[!rel$dropped])), 2L),
                       if (nrow(steps) > 4L) 0L)
    steps$persons_dropped <- max(person) - steps$persons
  }
  # the counts first, in their units (x$units), then the losses and the risk
  first <- intersect(c("step", "action", "records", "records_dropped", "persons",
                       "persons_dropped", "cells_blanked"), names(steps))
  steps <- steps[c(first, setdiff(names(steps), first))]
  proxies <- gen$proxies[!gen$proxies$column %in% gen$dropped, , drop = FALSE]
  rownames(proxies) <- NULL
  model <- setup$model
  analysis <- if (!is.null(model))
    delivered_analysis(model, attr(evaluator, "estimate"), released, n, setup$frame)
  out <- list(data = if (!is.null(released)) restore_frame_class(released, setup$data),
              certificate = cert$certificate,
              pass = cert$after$pass, overall_risk = cert$after$overall, steps = steps,
              risk_before = risk_before, risk_after = cert$after, generalization = gen,
              suppression = rel$supp, fallback = rel$fallback,
              targets = c(setup$targets, list(k_used = gen$structure$min_size)), keys = keys,
              sensitive = setup$sensitive, identifiers = ids, context = setup$context, n = n,
              proxies = proxies, dropped = gen$dropped, persons = cert$persons,
              id = setup$id, n_persons = if (!is.null(person)) max(person),
              n_persons_released = if (!is.null(person)) length(unique(person[!dropped])),
              units = step_units(!is.null(person)),
              call = call,
              model = if (!is.null(model)) list(metric = model,
                                                term = attr(evaluator, "term"),
                                                original = attr(evaluator, "estimate")),
              criteria = cert$criteria, analysis = analysis, review = setup$review,
              keys_given = setup$keys_given, review_keys = setup$review_keys,
              default_hierarchy = setup$default_hierarchy, declared = setup$declared,
              late_evidence = setup$late_evidence,
              as_sensitive = setup$as_sensitive, release_pending = cert$release_pending,
              max_suppress = setup$control$max_suppress,
              # the rows of the data released, in the release's order (the
              # attacks judge the release against these original rows)
              rows = which(!dropped), released_rows = which(!dropped))
  if (!out$pass) {
    n_units <- if (is.null(person)) n else max(person)
    out[c("reason", "advice")] <- failure_reason(out, n_units,
                                                 if (is.null(person)) "records" else "persons")
  }
  structure(out, class = "epimask_release")
}

# The call as text for the report, when it is short enough to be read (a
# call through do.call() carries the data itself: not recorded).
deidentify_call <- function(call) {
  text <- tryCatch(deparse(call, width.cutoff = 80L, nlines = 21L), error = function(e) NULL)
  if (is.null(text) || length(text) > 20L) NULL else paste(text, collapse = "\n")
}

# Lines of the print and the report on released columns that determine a
# generalized key one-to-one (kept: the certificate counts the keys only).
proxy_note <- function(x) {
  p <- x$proxies
  if (is.null(p) || !nrow(p)) return(character())
  sprintf(paste0("Warning: released column(s) %s determine generalized key(s) one-to-one and ",
                 "undo their generalization; the certificate counts the keys only. Drop them ",
                 "(`drop_proxies = TRUE`) or generalize them too."),
          paste0("'", p$column, "' -> '", p$key, "'", collapse = ", "))
}

# An identifier that repeats may identify persons with several records: the
# certificate counts records, which understates the risk of persons (a
# person with 5 visits in a class of 5 is alone in it). The release is
# recounted by that column (its original values, on the released rows; they
# are not kept) with risk_release(id = ): NULL when no identifier repeats.
persons_recount <- function(frame, ids, dropped, released, keys, context) {
  if (!length(ids) || !nrow(released)) return(NULL)
  for (col in names(ids)) {
    v <- frame[[col]][!dropped]
    if (anyNA(v) || !anyDuplicated(v)) next
    tmp <- released[keys]
    tmp[[".epimask_person"]] <- v
    res <- risk_release(tmp, keys, context, id = ".epimask_person")
    return(list(column = col, n_persons = length(unique(v)), n_records = length(v),
                overall = res$overall, threshold = context$threshold, pass = res$pass,
                attacks = res$attacks))
  }
  NULL
}

persons_note <- function(p) {
  sprintf(paste0("Identifier '%s' repeats (%d distinct values in %d records): if it identifies ",
                 "persons with several records, the certificate (which counts records) ",
                 "understates their risk. Recounted by '%s': overall risk %s %s threshold %s: %s. ",
                 "Measure persons with risk_release(..., id = ) and generalize further."),
          p$column, p$n_persons, p$n_records, p$column, format(signif(p$overall, 3)),
          if (p$pass) "<=" else ">", format(signif(p$threshold, 3)), if (p$pass) "PASS" else "FAIL")
}

# Warnings of the print and the report: kept proxies, repeated identifiers.
release_notes <- function(x) {
  c(proxy_note(x), if (!is.null(x$persons)) paste("Warning:", persons_note(x$persons)))
}

# risk_release() on a release; an empty release has no risk to recount: NA,
# and it does not pass.
recount <- function(data, keys, context, id = NULL) {
  if (nrow(data)) return(risk_release(data, keys, context, criteria = list(), id = id))
  attacks <- if (isTRUE(context$public)) "public" else c("deliberate", "inadvertent", "breach")
  pr <- if (isTRUE(context$public)) 1 else
    c(context$pr_attempt, context$pr_acquaintance, context$pr_breach)
  list(attacks = data.frame(attack = attacks, pr_attack = pr, pr_reid_given = NA_real_,
                            risk = NA_real_, stringsAsFactors = FALSE),
       overall = NA_real_, pass = FALSE)
}

# "3 record(s)", or with persons "2 person(s) (3 records)": the rows where
# `rows` (and `also`) are TRUE.
unit_text <- function(rows, person, also = TRUE) {
  at <- rows
  at[rows] <- at[rows] & also
  if (is.null(person)) return(sprintf("%d record(s)", sum(at)))
  sprintf("%d person(s) (%d records)", length(unique(person[at])), sum(at))
}

# `id` of deidentify(): NULL or one column, the person column, which is
# neither a key nor sensitive.
check_deidentify_id <- function(id, frame, keys, sensitive) {
  if (is.null(id)) return(NULL)
  if (!is.character(id) || length(id) != 1L || is.na(id))
    abort_type("id", "NULL or the name of one column (the person column)")
  id <- check_columns(id, frame, arg = "id")
  if (id %in% c(keys, sensitive))
    abort_value("id", "a person column that is neither a key nor sensitive")
  id
}

# What the context asks of the classes (see deidentify()'s details).
context_targets <- function(context) {
  thr <- context$threshold
  if (isTRUE(context$public))
    return(list(k = as.integer(ceiling(1 / thr - 1e-9)), avg_risk = NULL,
                rule = "public release: maximum risk 1 / k <= threshold"))
  pr <- c(context$pr_attempt, context$pr_acquaintance)
  breach_max <- identical(context$breach_risk, "maximum")
  if (!breach_max) pr <- c(pr, context$pr_breach)
  k <- 3L
  if (breach_max) k <- max(k, as.integer(ceiling(context$pr_breach / thr - 1e-9)))
  avg <- thr / max(pr)
  list(k = k, avg_risk = if (avg < 1) avg else NULL,
       rule = sprintf(paste0("strict average risk x %s <= %s: classes of at least %d records ",
                             "and average risk <= %s"),
                      format(max(pr)), format(thr), k, format(signif(min(avg, 1), 4))))
}

check_deidentify_identifiers <- function(identifiers, frame, taken) {
  if (is.null(identifiers)) return(stats::setNames(character(), character()))
  if (!is.character(identifiers) || anyNA(identifiers))
    abort_type("identifiers", "a character vector of columns, or one named by column")
  if (is.null(names(identifiers))) {
    cols <- identifiers
    action <- rep("drop", length(cols))
  } else {
    cols <- names(identifiers)
    action <- unname(identifiers)
    if (!all(action %in% c("drop", "pseudonymise")))
      abort_value("identifiers", "values \"drop\" or \"pseudonymise\" when named by column")
  }
  check_columns(cols, frame, arg = "identifiers")
  if (length(intersect(cols, taken)))
    abort_value("identifiers", "columns that are neither `keys` nor `sensitive`")
  stats::setNames(action, cols)
}

# What each column of the steps counts (the print, summary() and the report
# say it): records and cells are the collaborator's records; persons with a
# person column; the losses are over the records of the data, since the
# information lost is in the records the collaborator receives (a person with
# 6 visits loses a generalized key in 6 records); the risk counts persons
# with a person column.
step_units <- function(persons = FALSE) {
  unit <- if (persons) "persons" else "records"
  out <- c(records = "records released after the step",
           records_dropped = "records of the data withheld after the step",
           persons = "persons released after the step (all their records)",
           persons_dropped = "persons of the data withheld after the step (with all their records)",
           cells_blanked = "key cells of records set to NA",
           entropy = paste("bits, summed over the keys of every record of the data (a withheld",
                           "record or a blank counts as fully generalized)"),
           precision = paste("share of the full generalization, averaged over every record of",
                             "the data and key (a withheld record or a blank counts as 1)"),
           estimate = "the collaborator's coefficient, fitted on the released records",
           se = "its standard error",
           analysis_potential = "U of the coefficient (1 = as on the original data)",
           overall_risk = sprintf("largest attack's risk, classes counted in %s", unit),
           pass = "overall risk within the threshold")
  if (!persons) out <- out[setdiff(names(out), c("persons", "persons_dropped"))]
  out
}

# Entropy and precision loss (methods vignette section 16) of a release whose records carry
# their own levels, with blanked cells and dropped records as fully
# generalized.
cell_losses <- function(lat, rec_levels, blank, dropped) {
  n <- lat$n
  A <- length(lat$keys)
  share <- 0
  entropy <- 0
  for (v in seq_len(A)) {
    part <- lat$key[[v]]
    h <- rec_levels[, v]
    top <- dropped | (if (is.null(blank)) FALSE else blank[, v])
    h[top] <- part$top
    share <- share + sum(level_share(h, part$top))
    for (l in unique(h)) {
      at <- h == l
      code <- part$level_codes[[l + 1L]][part$code0[at]]
      entropy <- entropy + sum(log2(part$group_n[[l + 1L]][code]) -
                                 log2(part$n_value[part$code0[at]]))
    }
  }
  c(entropy = entropy, precision = share / (n * A))
}

step_row <- function(step, action, records, cells, losses, evaluator, rec_levels, dropped,
                     blank, risk) {
  est <- if (!is.null(evaluator)) {
    if (step == "original") {
      o <- attr(evaluator, "estimate")
      data.frame(estimate = o$estimate, se = o$se, analysis_potential = 1)
    } else {
      lv <- if (all(rec_levels == rec_levels[1L, ][col(rec_levels)])) rec_levels[1L, ]
            else rec_levels
      evaluator(lv, dropped, detail = TRUE, blank = blank)
    }
  } else data.frame(estimate = NA_real_, se = NA_real_, analysis_potential = NA_real_)
  data.frame(step = step, action = action, records = as.integer(records),
             cells_blanked = as.integer(cells), entropy = losses[["entropy"]],
             precision = losses[["precision"]], estimate = est$estimate, se = est$se,
             analysis_potential = est$analysis_potential, overall_risk = risk$overall,
             pass = risk$pass, stringsAsFactors = FALSE)
}

#' @rdname deidentify
#' @param x,object An `epimask_release` object.
#' @export
format.epimask_release <- function(x, ...) {
  ctx <- x$context
  n_released <- if (is.null(x$data)) 0L else nrow(x$data)
  given <- x$keys_given %||% x$keys
  key_text <- paste0(paste(given, collapse = ", "),
                     if (length(x$review_keys)) sprintf(" (and, flagged by the column review, %s)",
                                                       paste(names(x$review_keys), collapse = ", ")))
  out <- if (is.null(x$data)) sprintf(
    "NO RELEASABLE DATA: the recount fails, nothing is released (`$data` is NULL); %d records, keys %s",
    x$n, key_text) else if (is.null(x$id))
    sprintf("De-identified release: %d of %d records, keys %s", n_released, x$n, key_text) else
    sprintf("De-identified release: %d of %d persons (%d of %d records; person column '%s'), keys %s",
            x$n_persons_released, x$n_persons, n_released, x$n, x$id, key_text)
  out <- c(out, sprintf("  context: %s release, threshold %s; targets: %s",
                        if (isTRUE(ctx$public)) "public" else "non-public",
                        format(signif(ctx$threshold, 3)), x$targets$rule))
  st <- x$steps
  by_persons <- !is.null(st$persons)
  out <- c(out, sprintf(paste0("  Steps (released / withheld %s; information losses over the %d records ",
                               "of the data, a withheld record or a blank as fully generalized; ",
                               "overall risk by %s):"),
                        if (by_persons) "persons and records" else "records", x$n,
                        if (by_persons) "persons" else "records"))
  for (i in seq_len(nrow(st))) {
    coef_part <- if (!is.na(st$estimate[i]))
      sprintf("; %s %s (SE %s)", x$model$term, format(signif(st$estimate[i], 4)),
              format(signif(st$se[i], 3))) else ""
    withheld <- st$records_dropped[i] %||% (x$n - st$records[i])
    counts <- if (!by_persons)
      sprintf("%d records released, %d withheld", st$records[i], withheld) else
      sprintf("%d persons (%d records) released, %d persons (%d records) withheld",
              st$persons[i], st$records[i], st$persons_dropped[i], withheld)
    out <- c(out, sprintf("  %d. %-16s %s", i - 1L, st$step[i], st$action[i]),
             sprintf("     %s; %d record cells blanked; entropy %s bits, precision loss %s%s; overall risk %s",
                     counts, st$cells_blanked[i], format(round(st$entropy[i]), big.mark = ","),
                     format(signif(st$precision[i], 3)), coef_part,
                     format(signif(st$overall_risk[i], 3))))
  }
  out <- c(out, if (is.null(x$id))
    "Certificate (risk_release() recounted on the release, every key and every flagged column left in):" else
    sprintf("Certificate (risk_release(id = '%s') recounted on the release by persons, every key and every flagged column left in):",
            x$id))
  cert <- x$certificate
  out <- c(out, sprintf("  %-12s Pr(attack) %-6s x Pr(re-id | attack) %-8s = %-8s %s",
                        cert$attack, format(signif(cert$pr_attack, 3)),
                        format(signif(cert$pr_reid_given, 3)), format(signif(cert$risk, 3)),
                        ifelse(cert$pass, "pass", "FAIL")))
  crit <- x$risk_after$criteria
  if (length(crit))
    out <- c(out, "Criteria (recounted on the release):",
             paste0("  ", unlist(lapply(crit, format))))
  attacks_pass <- !is.na(x$overall_risk) && x$overall_risk <= ctx$threshold
  out <- c(out, sprintf("overall risk %s %s threshold %s%s: %s", format(signif(x$overall_risk, 3)),
                        if (attacks_pass) "<=" else ">", format(signif(ctx$threshold, 3)),
                        if (length(crit)) sprintf(", criteria %s",
                                                  if (criteria_pass(crit)) "met" else "NOT met")
                        else "", if (x$pass) "PASS" else "FAIL"))
  if (length(x$dropped)) out <- c(out, sprintf("Proxies of generalized keys dropped: %s",
                                               paste(x$dropped, collapse = ", ")))
  out <- c(out, review_lines(x), analysis_lines(x))
  if (!x$pass && !is.null(x$reason))
    out <- c(out, sprintf("%s: %s.", if (identical(x$released, "synthesis"))
      "The generalization is not released" else "Not released", x$reason),
      sprintf("Try: %s.", x$advice))
  c(out, candidate_lines(x), release_notes(x))
}

#' @rdname deidentify
#' @export
print.epimask_release <- function(x, ...) print_formatted(x, ...)

#' @rdname deidentify
#' @export
summary.epimask_release <- function(object, ...) {
  structure(list(release = object, steps = object$steps, certificate = object$certificate,
                 levels = object$generalization$levels,
                 by_key = if (!is.null(object$suppression)) object$suppression$by_key),
            class = "summary.epimask_release")
}

#' @rdname deidentify
#' @export
format.summary.epimask_release <- function(x, ...) {
  utils::capture.output({
    print(x$release)
    cat("\nSteps:\n")
    print(x$steps[setdiff(names(x$steps), "action")], row.names = FALSE)
    units <- x$release$units %||% step_units(!is.null(x$steps$persons))
    units <- units[intersect(names(units), names(x$steps))]
    cat("\nWhat each column counts:\n")
    cat(sprintf("  %-18s %s", names(units), units), sep = "\n")
    cat("\nLevels chosen:\n")
    print(x$levels)
    if (!is.null(x$by_key)) {
      cat("\nCells blanked per key:\n")
      print(x$by_key)
    }
  })
}

#' @export
print.summary.epimask_release <- function(x, ...) print_formatted(x, ...)

#' @rdname deidentify
#' @param row.names,optional Unused (for the generic).
#' @details `as.data.frame()` returns the released data; `tidy()` the
#'   certificate, with `unit` (`"persons"` with `id`, else `"records"`: what
#'   the classes of each attack's risk count); `glance()` one row (records,
#'   `n`, and with `id` the persons released and of the data (`persons`,
#'   `n_persons`, else NA), cells blanked, overall risk, threshold, pass,
#'   `risk_unit`, the information loss with `loss_unit` (`"records"`), and
#'   with `model` the coefficient before and after).
#' @export
as.data.frame.epimask_release <- function(x, row.names = NULL, optional = FALSE, ...) {
  if (is.null(x$data))
    epimask_abort(sprintf("No data are released: %s (see the certificate).",
                          x$reason %||% "the recount fails"), "epimask_error_no_release", arg = "x")
  as.data.frame(x$data, stringsAsFactors = FALSE)
}

#' @rdname epimask-tidiers
#' @method tidy epimask_release
#' @export
tidy.epimask_release <- function(x, ...) {
  # the unit the classes of each attack's risk were counted in
  data.frame(x$certificate, unit = if (is.null(x$id)) "records" else "persons",
             stringsAsFactors = FALSE)
}

#' @rdname epimask-tidiers
#' @method glance epimask_release
#' @export
glance.epimask_release <- function(x, ...) {
  last <- x$steps[nrow(x$steps), ]
  persons <- !is.null(x$id)
  a <- x$analysis
  data.frame(records = if (is.null(x$data)) 0L else nrow(x$data), n = x$n,
             persons = if (persons) x$n_persons_released else NA_integer_,
             n_persons = if (persons) x$n_persons else NA_integer_,
             cells_blanked = last$cells_blanked,
             overall_risk = x$overall_risk, threshold = x$context$threshold, pass = x$pass,
             risk_unit = if (persons) "persons" else "records",
             entropy = last$entropy, precision = last$precision, loss_unit = "records",
             estimate_original = x$steps$estimate[[1L]],
             # the collaborator's model refitted on the release as delivered
             estimate_release = if (is.null(a)) NA_real_ else a$estimate,
             analysis_potential = if (is.null(a)) NA_real_ else a$analysis_potential,
             records_used = if (is.null(a)) NA_integer_ else as.integer(a$records_used),
             stringsAsFactors = FALSE)
}

#' @rdname deidentify
#' @param y Unused.
#' @param main Plot title.
#' @details `plot()` draws the risk of each attack of the context before and
#'   after, with the threshold as a line.
#' @export
plot.epimask_release <- function(x, y = NULL, main = NULL, ...) {
  main <- check_string(main, allow_null = TRUE)
  before <- x$risk_before$attacks
  after <- x$certificate
  heights <- rbind(before = before$risk, after = after$risk)
  # a risk that could not be counted (nothing released) is labelled so, not 0
  labels <- bar_labels(heights)
  labels[is.na(heights)] <- "none released"
  heights[is.na(heights)] <- 0
  colnames(heights) <- after$attack
  if (is.null(main))
    main <- sprintf("Re-identification risk by attack (%s)", if (x$pass) "passes" else
                    if (is.null(x$data)) "fails: no data released" else "fails")
  mid <- graphics::barplot(heights, beside = TRUE, ylim = c(0, max(1, heights) * 1.1),
                           col = c("grey70", if (x$pass) "steelblue" else "firebrick"),
                           ylab = "Pr(re-identification | attack) x Pr(attack)", main = main,
                           legend.text = c("before", "after (recounted on the release)"),
                           args.legend = list(x = "topright", bty = "n"), ...)
  graphics::text(mid, heights, labels, pos = 3, cex = 0.8)
  graphics::abline(h = x$context$threshold, lty = 2)
  graphics::text(graphics::par("usr")[1], x$context$threshold,
                 sprintf("threshold %s", format(signif(x$context$threshold, 3))),
                 adj = c(-0.05, -0.4), cex = 0.8)
  invisible(x)
}

# Bar labels: each value to 3 significant digits on its own, as the print
# shows it (format() of the vector would pad every label to the longest).
bar_labels <- function(v) vapply(v, function(x) format(signif(x, 3)), "")
