# Globally optimal generalization (methods vignette section 16; El Emam et al. 2009, OLA;
# Kohlmayer et al. 2012, Flash). The k-anonymity part of acceptability is
# monotone along generalization (with nested hierarchies), so Flash's paths
# with a binary search on each and predictive tagging find every node's
# k-status from few evaluations; the least-loss acceptable node is then found
# by branch and bound over the k-anonymous nodes, cheapest lower bound first,
# so that l-diversity, t-closeness and a loss that suppression makes
# non-monotone are handled exactly.

#' Optimal lattice generalization under risk criteria (OLA / Flash)
#'
#' Finds the generalization of least information loss whose release meets
#' every [risk criterion][new_risk_criterion()] (k-anonymity, l-diversity,
#' t-closeness, average risk, k-map, population uniqueness, log-linear and
#' cluster risk, or one of the custodian's own), searching the lattice of all
#' combinations of hierarchy levels without evaluating most of them.
#'
#' **The lattice.** One node per vector of levels, one level per key, from 0
#' (original values) to the top of its hierarchy. A node is *acceptable* when,
#' after the suppression its criteria ask for (methods vignette, sections 16,
#' 20 and 27, and [criterion_classes()]), at most `max_suppress` of the
#' records are suppressed and every criterion holds on the release: the
#' classes failing a monotone class-local criterion (k-anonymity's classes
#' smaller than k) are suppressed; every other class must meet the other
#' class-local criteria (l-diversity, t-closeness, k-map against a table),
#' or with `outliers = "failing"` (ARX) their failing classes are suppressed
#' too; then the smallest released classes are suppressed until the
#' release-wide criteria hold (average risk, population uniqueness, cluster
#' risk), and the criteria that only check (log-linear risk, an outside
#' criterion evaluated on the release) are checked. The result is the
#' acceptable node of least information loss under `metric` ([info_loss()]);
#' ties go to the lower sum of levels, then to the lexicographically smaller
#' level vector. Losses within a relative \eqn{10^{-9}} count as ties.
#'
#' **The search.** With nested hierarchies (each level a function of the one
#' below, which [datafly()]'s ready hierarchies are), the part of the verdict
#' made of monotone class-local criteria is monotone: every generalization of
#' a node that meets it meets it. As in Flash (Kohlmayer et al. 2012),
#' untagged nodes are taken bottom-up; from each a path climbs through
#' untagged nodes to the top, and a binary search on the path evaluates few
#' of its nodes; each evaluation tags every generalization or every
#' specialization (`ola_control(tagging = )` asks for another tagging). Every
#' node has a lower bound on its loss (the loss with nothing suppressed for
#' precision and entropy; for discernibility and average class size, bounds
#' from evaluated finer nodes); no path starts from a node whose bound
#' exceeds the best loss found so far. Then the nodes not excluded are taken
#' in order of their bound until it exceeds the best loss, so the answer is
#' exact although the loss and the other criteria are not monotone under
#' suppression. A node's class counts are rolled up in C from the smallest
#' evaluated finer node's counts, never recomputed from the records. Without
#' nested hierarchies no tagging is valid and nodes are evaluated in order of
#' the bound (all of them, for the bound-less metrics). A criterion defined
#' outside the package joins the search through its generics (see
#' [criterion_classes()]): with none of them it is evaluated on each
#' candidate node's release.
#'
#' **The release** is built as in [datafly()]: keys generalized to the chosen
#' levels, suppressed records dropped, `id` columns replaced by keyed
#' pseudonyms, proxies of generalized keys flagged or dropped. The result
#' also carries its class structure (`$structure`), which [deidentify()]
#' takes instead of rebuilding it.
#'
#' **Deprecated arguments.** The criteria were flat arguments up to epimask
#' 0.3 (`k`, `l`, `sensitive`, `t`, `diversity`, `ordered`, `avg_risk`,
#' `k_map`, `population`, `k_map_alpha`, `k_map_estimator`, `uniqueness`,
#' `loglinear`, `cluster_risk`): they still work for one release, mapped to
#' the criteria that state the same, with a warning of class
#' `epimask_warning_deprecated` showing the call to use.
#'
#' @inheritParams datafly
#' @param criteria A [risk criterion][new_risk_criterion()] or a list of them:
#'   [k_anonymity()], [l_diversity()], [t_closeness()], [avg_risk()],
#'   [k_map()], [uniqueness()], [loglinear_risk()], [cluster_risk()],
#'   [individual_risk()], [suda_risk()], or the custodian's own. Each counts
#'   over `keys` (a criterion's own `keys` must be the same). Record-matching
#'   criteria ([match_risk()], [linkage_risk()], [identifiability()]) cannot
#'   guide a generalization search (a classed error).
#' @param metric Information loss to minimize: `"entropy"` (non-uniform
#'   entropy, the default), `"precision"`, `"discernibility"` or
#'   `"avg_class_size"` (see [info_loss()]; the average class size is divided
#'   by the largest smallest-class size of the criteria,
#'   [criterion_min_size()]), or [analysis_loss()] (the collaborator's model:
#'   1 - analysis potential of its coefficient on the node's release).
#' @param control An [ola_control()]: the outlier semantics, local
#'   recoding, the exact or minimal search, how suppressed records count in
#'   the losses, the tagging.
#' @param k Deprecated: `criteria = list(k_anonymity(k))`.
#' @param ... The options of [ola_control()] by name (`outliers = "failing"`,
#'   `local = TRUE`, ...), and the deprecated flat criteria (see Details).
#' @section Several records per person:
#' With `id` naming a person column whose values repeat (methods vignette,
#' section 23), the lattice runs on the persons and every criterion
#' counts persons: [k_anonymity()], `max_suppress` (a share of the persons),
#' [l_diversity()] and [t_closeness()] (over the persons of a class),
#' `outliers = "failing"`, [avg_risk()] (released classes per released
#' person), [k_map()] (the population table then has one row per person of
#' the population, or the person column, see below; the derived k of a
#' [population_model()] is capped at the number of persons), [uniqueness()]
#' (the sampling fraction of persons), [loglinear_risk()] (the key table of
#' persons) and [cluster_risk()] (a person belongs to one cluster: the column
#' must be equal on a person's records, as must the weights). A person is
#' suppressed with all their records; `suppressed_loss` and the information
#' losses are of the persons. `local = TRUE` searches the suppressed persons
#' again, and a recoded person's records all take the round's levels. With
#' [analysis_loss()] the collaborator's model is fitted on the records: a
#' suppressed person's records all leave the fit.
#'
#' Keys may vary between a person's records (a stay at another site, an age
#' a year on): a person's key is then the set of the distinct key tuples of
#' their records (methods vignette section 23). At a node every record's
#' tuple is generalized and the persons with equal sets of generalized tuples
#' form a class, as in [datafly()] and [risk_kanon()] with `id`; classes only
#' merge going up, so the search (tagging of the k-part, roll-up from finer
#' nodes, bounds) is unchanged. The precision and entropy losses then count
#' the distinct (person, key tuple) pairs of the data, each at the node's
#' levels (a suppressed person charged with all of theirs); discernibility and
#' the average class size count persons. With one tuple per person these are
#' the persons' losses, with one record per person the records'. A
#' `population` table for `k_map` may carry the person column: its persons'
#' key sets are then matched to the classes' sets (without it each row is a
#' person with one tuple, and a class of several tuples matches no one).
#' Ties of `avg_risk` and of the scans: equal-sized classes in the
#' lexicographic order of their sets (each set's tuples sorted by the codes of
#' first appearance). `loglinear` fits [risk_loglinear()]'s key table of the
#' persons (`id`), `cluster_risk` takes each person's risk \eqn{1/f}, f the
#' persons of their class. `cluster_risk`'s column and the weights must still
#' be equal on a person's records.
#' @section Progress:
#' The search signals its progress (one step per lattice node evaluated)
#' through \pkg{progressr} when it is installed: wrap the call in
#' `progressr::with_progress()` (or set `progressr::handlers(global = TRUE)`)
#' to see it. It can be interrupted between nodes.
#' @return An object of class `epimask_ola`: the fields of [datafly()]
#'   (without generalization `steps`) plus `metric`, `info_loss` (the four
#'   losses of the release, named, and `analysis` with [analysis_loss()]),
#'   `nodes_evaluated` (nodes whose class counts were computed),
#'   `nodes_total`, `risk_criteria` (the criteria, prepared on the data),
#'   `criteria_results` (each criterion recounted on the release, a
#'   `criterion_result`), `control`, `structure` (the class structure of the
#'   release: `hierarchies`, `current` (every record's generalized keys,
#'   suppressed ones included), `record_levels`, `person`, `unit_class`,
#'   `class_size`, `suppressed_units`, `lattice`, `min_size`), `local` (the
#'   rounds of local recoding: records recoded, still suppressed, levels)
#'   and, with [analysis_loss()], `analysis` (the metric, the term, its
#'   original estimate and SE, and `release`: its estimate, SE and analysis
#'   potential on the release). `criteria` is the summary of the targets of
#'   epimask 0.3 (outliers, average risk, k-map, the release values of the
#'   log-linear and cluster risks), kept for one release.
#' @references El Emam K, Dankar FK, Issa R, et al. (2009). A globally optimal
#'   k-anonymity method for the de-identification of health data. JAMIA 16,
#'   670-682. Kohlmayer F, Prasser F, Eckert C, Kemper A, Kuhn KA (2012).
#'   Flash: efficient, stable and optimal k-anonymity. PASSAT 2012.
#' @family generalization
#' @examples
#' set.seed(1)
#' people <- data.frame(
#'   birth = as.Date("1950-01-01") + sample(0:9000, 300, TRUE),
#'   sex = sample(c("f", "m"), 300, TRUE),
#'   zip = sample(c("02138", "02139", "02141", "02142"), 300, TRUE),
#'   dx = sample(c("flu", "asthma", "diabetes"), 300, TRUE))
#' h <- list(birth = hierarchy_date(), sex = hierarchy_flat(),
#'           zip = hierarchy_zip())
#' best <- ola(people, c("birth", "sex", "zip"), h, criteria = list(k_anonymity(5)))
#' best
#' greedy <- datafly(people, c("birth", "sex", "zip"), h, k = 5)
#' rbind(ola = info_loss(best, "all"), datafly = info_loss(greedy, "all"))
#' ola(people, c("birth", "sex", "zip"), h,
#'     criteria = list(k_anonymity(5), l_diversity(2, "dx")))
#' # ARX's semantics: suppress every class that fails l-diversity too
#' ola(people, c("birth", "sex", "zip"), h,
#'     criteria = list(k_anonymity(5), l_diversity(2, "dx")),
#'     control = ola_control(outliers = "failing"))
#' # average re-identification risk at most 1/20, then local recoding
#' ola(people, c("birth", "sex", "zip"), h, criteria = list(avg_risk(0.05)),
#'     control = ola_control(local = TRUE))
#' # k-map: every released class matches at least 10 persons of the population
#' population <- people[sample(300, 3000, TRUE), c("birth", "sex", "zip")]
#' ola(people, c("birth", "sex", "zip"), h,
#'     criteria = list(k_anonymity(2), k_map(10, population)))
#' # log-linear risk of a 5% sample: expected population uniques at most 1%
#' ola(people, c("birth", "sex", "zip"), h, max_suppress = 0.1,
#'     criteria = list(loglinear_risk(0.01, pi = 0.05)))
#' # families of three: the cluster risk share at most 0.2
#' people$family <- rep(1:100, each = 3)
#' ola(people, c("birth", "sex", "zip"), h,
#'     criteria = list(k_anonymity(2), cluster_risk(0.2, "family")))
#' # several visits per person: persons are counted and suppressed whole
#' tv <- trial_visits
#' tv$yob <- as.integer(format(tv$birth, "%Y"))
#' ola(tv, c("yob", "sex", "site"),
#'     list(yob = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
#'          site = hierarchy_flat()),
#'     criteria = list(k_anonymity(3), avg_risk(0.2)), id = "pid",
#'     secret = "custodian key", control = ola_control(outliers = "failing"))
#' @export
ola <- function(data, keys, hierarchies, criteria = list(k_anonymity(5)),
                metric = c("entropy", "precision", "discernibility", "avg_class_size"),
                max_suppress = 0.05, id = NULL, secret = NULL, drop_proxies = FALSE,
                control = ola_control(), k = NULL, ...) {
  dots <- list(...)
  control <- control_with_dots(control, dots, ola_control, "ola_control", ola_flat_arguments)
  args <- check_generalize_args(data, keys, hierarchies, max_suppress, id, secret, drop_proxies)
  data <- args$data
  flat <- c(if (!is.null(k)) list(k = k), dots[intersect(names(dots), ola_flat_arguments)])
  if (length(flat)) {
    if (!missing(criteria))
      abort_value("criteria", paste0("given alone: the flat criteria (",
                                     paste0("`", names(flat), "`", collapse = ", "),
                                     ") are the deprecated form of the same"))
    criteria <- flat_criteria(flat, data, "ola")
  }
  search <- ola_prepare(data, keys, args$hierarchies, criteria, metric, args$max_suppress, id,
                        control)
  warn_possible_identifiers(data, c(keys, id))
  proxies <- find_proxies(data, keys, id)
  found <- lattice_search(search$lat, search$model, search$metric,
                          minimal_only = control$search == "minimal",
                          analysis = search$analysis)
  levels <- stats::setNames(found$levels, keys)
  supp <- node_suppressed_records(search$lat, levels, search$model)
  recoding <- if (control$local && found$found) ola_local(search, levels, supp)
  out <- ola_release(search, levels, recoding$supp %||% supp, recoding, args$secret, proxies,
                     drop_proxies)
  out <- ola_outcome(out, search, found, levels, recoding)
  if (!found$found)
    epimask_warn(sprintf(paste0(
      "No lattice node meets the criteria (%s); the top node is returned and every ",
      "record that breaks them is suppressed."),
      paste(vapply(search$model$criteria, format, ""), collapse = "; ")),
      "epimask_warning_suppressed")
  structure(out, class = "epimask_ola")
}

#' Options of the lattice search of ola() and deidentify()
#'
#' The options of [ola()]'s search that travel together, as
#' [survival::coxph.control()] holds those of [survival::coxph()]. Each may
#' also be given by name in the `...` of [ola()] and [deidentify()].
#'
#' @param outliers Which classes are suppressed: `"small"` (the classes
#'   failing a monotone class-local criterion, k-anonymity's classes smaller
#'   than k; every other class must then meet the other class-local criteria)
#'   or `"failing"` (ARX's semantics: every class that fails any class-local
#'   criterion; the node is acceptable when the suppressed units number at
#'   most `max_suppress` of them).
#' @param local `TRUE` for ARX's local recoding (`ARXResult.optimize`): the
#'   records the chosen node suppresses are searched again as a data set of
#'   their own, under the same criteria and metric (with [analysis_loss()],
#'   the loss of the whole release), and the records the new node releases
#'   are recoded at its levels; repeated while a round recodes records. Not
#'   with criteria of the whole release (population uniqueness, log-linear
#'   and cluster risk).
#' @param search `"exact"` (the default) finds the optimum; `"minimal"` takes
#'   the best of the k-minimal nodes (acceptable by the monotone part, whose
#'   one-step specializations are not), as the OLA and Flash papers do: the
#'   same node when the loss cannot fall with generalization, fewer nodes
#'   evaluated, but with suppression a coarser node that suppresses fewer
#'   records can lose less, which only `"exact"` finds. It falls back to the
#'   exact search when no k-minimal node meets the other criteria.
#' @param suppressed_loss How suppressed records count in the information
#'   loss, so that ARX's losses can be reproduced: `"top"` (fully
#'   generalized, methods vignette section 16), `"node"` (ARX's monotone
#'   metrics: at the node's generalization, as if released; for
#'   discernibility every class counts its size squared, for the average
#'   class size every class counts) or `"block"` (ARX's non-monotone metrics:
#'   the suppressed records form one block; entropy adds, per key, the
#'   entropy of their generalized values within the block, \eqn{\sum_g c_g
#'   \log_2(S / c_g)}; the average class size counts the block as one class;
#'   precision and discernibility as `"top"`).
#' @param tagging Predictive tagging of the lattice (with nested
#'   hierarchies): `"auto"` tags by the monotone class-local criteria (the
#'   k-anonymity part; the others are checked on every node it leaves),
#'   `"all"` tags by the whole verdict of the node (valid only when every
#'   criterion is monotone: a criterion that is not is a classed error),
#'   `"none"` evaluates nodes in order of their loss bound without tagging
#'   (the reference; slower).
#' @return An object of class `ola_control`.
#' @family generalization
#' @examples
#' ola_control(outliers = "failing", local = TRUE)
#' @export
ola_control <- function(outliers = c("small", "failing"), local = FALSE,
                        search = c("exact", "minimal"),
                        suppressed_loss = c("top", "node", "block"),
                        tagging = c("auto", "all", "none")) {
  structure(list(outliers = check_choice(outliers, c("small", "failing")),
                 local = check_flag(local),
                 search = check_choice(search, c("exact", "minimal")),
                 suppressed_loss = check_choice(suppressed_loss, c("top", "node", "block")),
                 tagging = check_choice(tagging, c("auto", "all", "none"))),
            class = "ola_control")
}

#' @export
format.ola_control <- function(x, ...) {
  c("<ola search options>", sprintf("  %s: %s", names(x), vapply(x, format, "")))
}

#' @export
print.ola_control <- function(x, ...) print_formatted(x, ...)

# The arguments of ola() that stated criteria one by one up to epimask 0.3
# (k is a formal argument, so that `k = ` never matches `keys` partially).
ola_flat_arguments <- c("l", "sensitive", "t", "diversity", "ordered", "population",
                        "avg_risk", "k_map", "k_map_alpha", "k_map_estimator", "uniqueness",
                        "loglinear", "cluster_risk")

# The search: criteria prepared on the data, the lattice (records, persons
# or their key sets) with the sensitive columns the criteria need, the
# search model and the analysis metric.
ola_prepare <- function(data, keys, hierarchies, criteria, metric, max_suppress, id, control) {
  analysis_metric <- NULL
  if (inherits(metric, "epimask_analysis_loss")) {
    analysis_metric <- metric
    metric <- "analysis"
  } else {
    metric <- check_choice(metric, loss_metrics)
  }
  criteria <- prepare_criteria(criteria, data, keys, id, search = TRUE)
  check_search_criteria(criteria, control)
  person <- generalize_persons(data, id)
  sens <- criteria_sensitive(criteria)
  sensitive <- sens$sensitive
  ordered <- sens$ordered
  searched <- data
  key_sets <- FALSE
  if (!is.null(person)) {
    # the lattice runs on the persons: one row each when every person has
    # one combination of key values, else on their key sets
    # (generalize-ola-sets.R), as with a population of key sets
    searched <- person_rows(data, keys, person, sensitive)
    key_sets <- is.null(searched) || any(vapply(criteria, criterion_key_sets, logical(1)))
    if (is.null(searched))
      searched <- lapply(stats::setNames(sensitive, sensitive), function(s)
        person_columns(data, s, person, max(person))$columns[[1L]])
    # a sensitive variable that varies within a person is the person's set
    # of values: unordered
    ordered <- intersect(ordered, Filter(function(s) !is.character(searched[[s]]) ||
                                           is.character(data[[s]]), sensitive))
  }
  lat <- if (key_sets) set_lattice_build(data, keys, hierarchies, person, sensitive, ordered)
         else lattice_build(searched, keys, hierarchies, sensitive, ordered)
  # what a node's release(kept) returns: the records of the data
  lat$context <- list(data = data, person = person, id = id)
  model <- search_model(criteria, max_suppress, outliers = control$outliers,
                        charge = control$suppressed_loss, tagging = control$tagging)
  model <- as_search_model(model, lat)
  records_lat <- if (is.null(person)) lat
  analysis <- NULL
  if (metric == "analysis") {
    if (is.null(person)) {
      analysis <- analysis_evaluator(analysis_metric, data, keys, hierarchies, lat)
    } else {
      # the collaborator's model is fitted on the records; the search
      # suppresses persons: a suppressed person's records all leave the fit
      records_lat <- lattice_build(data, keys, hierarchies)
      analysis <- person_analysis(
        analysis_evaluator(analysis_metric, data, keys, hierarchies, records_lat), person)
    }
  }
  list(data = data, keys = keys, hierarchies = hierarchies, criteria = criteria, id = id,
       person = person, key_sets = key_sets, sensitive = sensitive, ordered = ordered,
       lat = lat, records_lat = records_lat, model = model, metric = metric,
       analysis_metric = analysis_metric, analysis = analysis, control = control)
}

# Bad searches said before any node is evaluated: a criterion without a
# bound (reported only) cannot guide the search; tagging by the whole
# verdict needs monotone criteria; local recoding cannot serve criteria of
# the whole release.
check_search_criteria <- function(criteria, control) {
  if (!length(criteria))
    abort_value("criteria", "at least one risk criterion (k_anonymity(5), ...)")
  for (cr in criteria) {
    if (is.na(cr$bound %||% NA_real_))
      epimask_abort(sprintf(paste0("The criterion '%s' has no bound (it is reported only); a ",
                                   "search needs the largest accepted value (e.g. its `max`)."),
                            format(cr)), c("epimask_error_criterion", "epimask_error_value"),
                    arg = "criteria")
  }
  if (identical(control$tagging, "all")) {
    bad <- Filter(Negate(criterion_monotone), criteria)
    if (length(bad))
      epimask_abort(sprintf(paste0("Tagging by the whole verdict (`tagging = \"all\"`) is valid only ",
                                   "for monotone criteria; %s %s not monotone. Use tagging = \"auto\"."),
                            paste0("'", vapply(bad, format, ""), "'", collapse = ", "),
                            if (length(bad) == 1L) "is" else "are"),
                    c("epimask_error_criterion", "epimask_error_value"), arg = "control")
  }
  if (isTRUE(control$local)) {
    whole <- Filter(function(cr) criterion_whole_release(cr), criteria)
    if (length(whole))
      abort_value("local", sprintf(paste0("FALSE with %s (the risk is of the whole release, not ",
                                          "of a subset's)"),
                                   paste0("'", vapply(whole, format, ""), "'", collapse = ", ")))
  }
  invisible(criteria)
}

# The sensitive columns every criterion needs coded in the lattice, and the
# ordered ones among them.
criteria_sensitive <- function(criteria) {
  parts <- lapply(criteria, criterion_sensitive)
  list(sensitive = unique(unlist(lapply(parts, `[[`, "sensitive"))),
       ordered = unique(unlist(lapply(parts, `[[`, "ordered"))))
}

# Local recoding of the records (persons) the chosen node suppresses.
ola_local <- function(search, levels, supp) {
  person <- search$person
  data <- search$data
  searched <- if (!is.null(person) && !search$key_sets)
    person_rows(data, search$keys, person, search$sensitive) else data
  out <- local_recoding(searched, search$keys, search$hierarchies, search$model, search$metric,
                        search$lat, levels, supp, search$sensitive, search$ordered,
                        search$analysis,
                        unit_records = if (!is.null(person)) tabulate(person),
                        sets = if (search$key_sets) list(data = data, person = person))
  if (!is.null(person) && !search$key_sets)
    out$current <- lapply(out$current, `[`, person)
  out
}

# The release at the chosen levels and its class structure (what
# deidentify() consumes): keys generalized (each record at its own levels
# after local recoding), the suppressed units withheld (a person with all
# their records), identifiers keyed pseudonyms, proxies of generalized keys
# flagged or dropped, and the four information losses (computed here:
# the release alone no longer holds the original values they need).
ola_release <- function(search, levels, supp_units, recoding, secret, proxies, drop_proxies) {
  data <- search$data
  keys <- search$keys
  hier <- search$hierarchies
  person <- search$person
  id <- search$id
  n <- nrow(data)
  current <- recoding$current %||% stats::setNames(lapply(keys, function(key)
    apply_level(hier[[key]], data[[key]], levels[[key]])), keys)
  # classes of the release (of persons with a person column)
  ec <- if (is.null(person)) key_groups(current, keys) else person_groups(current, keys, person)
  supp_records <- if (is.null(person)) supp_units else supp_units[person]
  kept <- !supp_records
  if (!any(kept))
    epimask_warn(sprintf("Every one of the %d records was suppressed (k = %d).", n,
                         search$model$k), "epimask_warning_suppressed")
  undone <- proxies[levels[proxies$key] > 0L, , drop = FALSE]
  dropped <- if (drop_proxies) unique(undone$column) else character()
  warn_proxies(undone, drop_proxies)
  release <- build_release(data, current, keys, id, kept, secret)
  release <- release[setdiff(names(release), dropped)]
  h <- unname(levels)
  lat <- search$lat
  tab <- lattice_rollup(lat, c(lat$bottom, list(levels = integer(length(keys)))), h)
  losses <- lattice_evaluate(lat, tab, h, search$model, loss_metrics)$loss
  P <- if (!is.null(person)) max(person)
  kept_unit <- if (is.null(person)) kept else kept[match(seq_len(P), person)]
  sizes <- tabulate(ec$group[kept_unit], length(ec$size))
  kept_sizes <- sizes[sizes > 0L]
  unit_n <- if (is.null(person)) n else P
  n_small <- if (is.null(person)) sum(supp_records) else sum(!kept_unit)
  out <- list(
    data = release, levels = levels,
    level_labels = vapply(keys, function(key) hier[[key]]$labels[[levels[[key]] + 1L]], ""),
    suppressed = which(supp_records), n_suppressed = sum(supp_records),
    class_sizes = kept_sizes,
    discernibility = sum(as.double(kept_sizes)^2) + as.double(unit_n) * n_small,
    info_loss = losses, proxies = undone, dropped = dropped, n = n, keys = keys,
    k = search$model$k)
  if (!is.null(person)) {
    out$unit <- "persons"
    out$n_persons <- unit_n
    out$n_records <- n
    out$n_persons_suppressed <- n_small
    out$id <- id
  }
  # the class structure of the release, for deidentify(): the hierarchies,
  # each record's generalized keys and levels, the class of each unit and
  # the class sizes (suppressed classes included), the units the search
  # suppressed, and the lattice of the records (the losses of its steps)
  out$structure <- list(
    hierarchies = hier, current = current,
    record_levels = if (!is.null(recoding)) {
      if (!is.null(person) && nrow(recoding$levels) != n) recoding$levels[person, , drop = FALSE]
      else recoding$levels
    } else matrix(as.integer(levels), n, length(keys), byrow = TRUE),
    person = person, unit_class = ec$group, class_size = ec$size,
    suppressed_units = supp_units, lattice = search$records_lat, min_size = search$model$k)
  out
}

# What ola() adds to its release: the losses with local recoding and the
# analysis metric, the criteria on the release, the search's counts.
ola_outcome <- function(out, search, found, levels, recoding) {
  supp_units <- out$structure$suppressed_units
  if (!is.null(recoding)) {
    out$info_loss <- record_level_losses(search$lat, recoding$levels, supp_units, search$model,
                                         out$class_sizes)
    out$local <- recoding$rounds
    out$record_levels <- recoding$levels
  }
  if (search$metric == "analysis") {
    at <- if (is.null(recoding)) unname(levels) else recoding$levels
    out$info_loss[["analysis"]] <- search$analysis(at, supp_units)
    out$analysis <- list(metric = search$analysis_metric, term = attr(search$analysis, "term"),
                         original = attr(search$analysis, "estimate"),
                         release = search$analysis(at, supp_units, detail = TRUE))
  }
  control <- search$control
  out$risk_criteria <- search$model$criteria
  results <- release_criteria(search$model$criteria, out$data, search$data, search$keys,
                              search$id, generalize = function(df)
                                generalize_frame(df, search$keys, search$hierarchies, levels),
                              rows = setdiff(seq_len(out$n), out$suppressed))
  out$criteria_results <- results
  out$criteria <- legacy_criteria(search$model$criteria, results, control)
  out$control <- control
  out$max_suppress <- search$model$max_suppress
  out$method <- "OLA"
  out$metric <- search$metric
  out$search <- control$search
  out$acceptable <- found$found
  out$nodes_evaluated <- found$nodes_evaluated
  out$nodes_total <- found$nodes_total
  out
}

# The `criteria` field of epimask 0.3 (the targets asked for, and the release
# values of the scanned risks), kept for one release; each criterion gives
# its part (criterion_legacy_field()).
legacy_criteria <- function(criteria, results, control) {
  parts <- list()
  for (i in seq_along(criteria)) parts <- c(parts, criterion_legacy_field(criteria[[i]], results[[i]]))
  # (exact names: `parts$k_map` would match `k_map_model`)
  out <- list(outliers = control$outliers, avg_risk = parts[["avg_risk"]],
              k_map = parts[["k_map"]], local = control$local,
              suppressed_loss = control$suppressed_loss)
  for (f in c("uniqueness", "loglinear", "cluster_risk", "k_map_model")) out[[f]] <- parts[[f]]
  out
}

loss_metrics <- c("entropy", "precision", "discernibility", "avg_class_size")

# The search of methods vignette section 16 (see ola()'s details). Returns the chosen levels,
# whether an acceptable node exists, and the numbers of nodes evaluated and in
# the lattice.
lattice_search <- function(lat, model, metric, minimal_only = FALSE, analysis = NULL) {
  model <- as_search_model(model, lat)
  top <- lat$top
  A <- length(top)
  check_lattice_size(top)
  nodes <- as.matrix(expand.grid(lapply(top, function(h) 0:h), KEEP.OUT.ATTRS = FALSE))
  dimnames(nodes) <- NULL
  storage.mode(nodes) <- "integer"
  n_nodes <- nrow(nodes)
  stride <- cumprod(c(1L, top[-A] + 1L))
  height <- rowSums(nodes)
  lex_rank <- integer(n_nodes)
  lex_rank[do.call(order, lapply(seq_len(A), function(v) nodes[, v]))] <- seq_len(n_nodes)
  bound <- static_bound(lat, nodes, metric)
  tag <- function(h, up) call_c(C_lattice_tag, list(nodes = nodes, levels = h, up = up),
                                arg = "hierarchies")
  # predictive tagging (nested hierarchies): by the monotone part of the
  # criteria (`k_ok`), by the whole verdict when every criterion is monotone
  # and the custodian asks for it, or not at all (the reference)
  tagging <- lat$nested && !identical(model$tagging, "none")
  tag_ok <- function(ev) if (identical(model$tagging, "all")) ev$ok else ev$k_ok

  status <- rep(NA, n_nodes)        # k-anonymity part of acceptability
  result <- vector("list", n_nodes)
  n_evaluated <- 0L
  # bounds from evaluated nodes (valid with nested hierarchies): a node's
  # classes are unions of a finer node's, so its sum of squared class sizes
  # is at least, and its number of classes at most, the finer node's.
  sum_sq_bound <- rep(0, n_nodes)
  classes_bound <- rep(Inf, n_nodes)
  cache <- list(c(lat$bottom, list(levels = integer(A))))
  cache_levels <- matrix(0L, A, 1L)  # one column per cached table
  cache_rows <- nrow(lat$bottom$codes)

  pick_source <- function(h) {
    if (lat$nested) {
      ok <- colSums(cache_levels <= h) == A
    } else {
      ok <- rep(TRUE, length(cache))
      for (v in seq_len(A))
        ok <- ok & lat$key[[v]]$nested[cbind(cache_levels[v, ] + 1L, h[[v]] + 1L)]
    }
    cand <- which(ok)
    cache[[cand[which.min(cache_rows[cand])]]]
  }
  remember <- function(tab) {
    cache[[length(cache) + 1L]] <<- tab
    cache_levels <<- cbind(cache_levels, tab$levels)
    cache_rows <<- c(cache_rows, nrow(tab$codes))
    # keep about 2e7 codes; the bottom table (first) always stays
    while (sum(cache_rows * ncol(tab$codes)) > 2e7 && length(cache) > 2L) {
      cache[[2L]] <<- NULL
      cache_levels <<- cache_levels[, -2L, drop = FALSE]
      cache_rows <<- cache_rows[-2L]
    }
  }
  # the best acceptable node so far (ties: lower sum of levels, then the
  # lexicographically smaller vector); losses within 1e-9 relative are ties
  tol <- function(x) 1e-9 * max(1, abs(x))
  wins_tie <- function(i, j) height[[i]] < height[[j]] ||
    (height[[i]] == height[[j]] && lex_rank[[i]] < lex_rank[[j]])
  best <- NA_integer_
  best_loss <- Inf
  consider <- function(i, ev) {
    if (!ev$ok) return(invisible())
    loss <- ev$loss[[metric]]
    if (is.na(best) || loss < best_loss - tol(best_loss) ||
        (loss <= best_loss + tol(best_loss) && wins_tie(i, best))) {
      best <<- i
      best_loss <<- loss
    }
  }
  # with the exact search, a node whose lower bound exceeds the best loss
  # found is never evaluated (nor its k-status sought)
  prune <- !minimal_only
  beaten <- function(i) prune && bound[[i]] > best_loss + tol(best_loss)

  # at most every node is evaluated: one tick each
  tick <- search_progressor(n_nodes)
  evaluate <- function(i) {
    if (!is.null(result[[i]])) return(result[[i]])
    tick()
    h <- nodes[i, ]
    tab <- lattice_rollup(lat, pick_source(h), h)
    tab$levels <- h
    ev <- node_evaluate(lat, tab, h, model, metric, analysis)
    n_evaluated <<- n_evaluated + 1L
    result[[i]] <<- ev
    remember(tab)
    if (tagging) {
      # predictive tagging; phase 2 knows every node's k-status already
      if (is.na(status[[i]])) {
        if (tag_ok(ev)) status[tag(h, 1L)] <<- TRUE else status[tag(h, 0L)] <<- FALSE
      }
    } else {
      status[i] <<- tag_ok(ev)
    }
    if (lat$nested && (metric == "discernibility" || metric == "avg_class_size")) {
      up <- tag(h, 1L)
      sum_sq_bound[up] <<- pmax(sum_sq_bound[up], ev$sum_sq)
      classes_bound[up] <<- pmin(classes_bound[up], ev$n_classes)
    }
    if (prune) consider(i, ev)
    ev
  }

  # Flash's paths: climb through untagged nodes, cheapest step first
  if (tagging) {
    climb <- if (metric %in% c("entropy", "precision")) bound
             else static_bound(lat, nodes, "precision")
    for (i in order(height, lex_rank)) {
      if (!is.na(status[[i]]) || beaten(i)) next
      path <- i
      repeat {
        h <- nodes[path[[length(path)]], ]
        succ <- path[[length(path)]] + stride[h < top]
        succ <- succ[is.na(status[succ])]
        if (!length(succ)) break
        path <- c(path, succ[[which.min(climb[succ])]])
      }
      lo <- 1L
      hi <- length(path)
      while (lo <= hi) {
        mid <- (lo + hi) %/% 2L
        ok <- status[[path[[mid]]]]
        if (is.na(ok)) ok <- tag_ok(evaluate(path[[mid]]))
        if (ok) hi <- mid - 1L else lo <- mid + 1L
      }
    }
  }

  # branch and bound over the nodes k-anonymous or not yet known
  candidates <- if (tagging) which(is.na(status) | status) else seq_len(n_nodes)
  if (minimal_only && tagging) {
    # the k-minimal nodes: k-anonymous, every one-step specialization not
    # (all evaluated in the paths: nothing below them could tag them)
    below_fails <- vapply(candidates, function(i) {
      h <- nodes[i, ]
      pred <- i - stride[h > 0]
      !length(pred) || !any(status[pred])
    }, logical(1))
    minimal <- candidates[below_fails & !is.na(status[candidates])]
    ok <- vapply(minimal, function(i) evaluate(i)$ok, logical(1))
    if (any(ok)) candidates <- minimal[ok]
  }
  candidates <- candidates[order(bound[candidates], height[candidates],
                                 lex_rank[candidates])]
  for (i in candidates) {
    if (!is.na(best)) {
      if (bound[[i]] > best_loss + tol(best_loss)) break
      b <- bound[[i]]
      if (lat$nested && metric == "discernibility") b <- max(b, sum_sq_bound[[i]])
      if (lat$nested && metric == "avg_class_size")
        b <- max(b, lat$n * (1 - model$max_suppress) /
                   (model$k * (classes_bound[[i]] + identical(model$charge, "block"))))
      if (b > best_loss + tol(best_loss)) next
      if (b >= best_loss - tol(best_loss) && !wins_tie(i, best)) next
    }
    consider(i, evaluate(i))
  }
  found <- !is.na(best)
  if (!found) best <- n_nodes
  list(levels = nodes[best, ], found = found, nodes_evaluated = n_evaluated,
       nodes_total = n_nodes)
}

# The lattice is held as a matrix of its nodes (one row per combination of
# levels): its size, the product of (levels + 1) over the keys, is bounded
# before anything is allocated (40 two-level keys would ask for 2^40 rows).
lattice_max_nodes <- 1e7
check_lattice_size <- function(top) {
  size <- prod(as.double(top) + 1)
  if (size > lattice_max_nodes || size * length(top) > 5e7)
    abort_value("hierarchies", sprintf(paste0(
      "hierarchies whose lattice has at most %s nodes; the keys' levels give %s ",
      "(the product of levels + 1 over %d keys). Use fewer keys or levels, or datafly()"),
      format(lattice_max_nodes, big.mark = ",", scientific = FALSE),
      format(size, big.mark = ",", digits = 3), length(top)))
  invisible(size)
}

# The slow exact twin of lattice_search(): every node rolled up from the
# bottom table and evaluated, the optimum by the same rule. Kept as the
# reference of the benchmarks (inst/bench/bench-ola.R).
lattice_exhaustive <- function(lat, model, metric, analysis = NULL) {
  model <- as_search_model(model, lat)
  top <- lat$top
  nodes <- as.matrix(expand.grid(lapply(top, function(h) 0:h), KEEP.OUT.ATTRS = FALSE))
  dimnames(nodes) <- NULL
  storage.mode(nodes) <- "integer"
  bottom <- c(lat$bottom, list(levels = integer(length(top))))
  loss <- rep(NA_real_, nrow(nodes))
  for (i in seq_len(nrow(nodes))) {
    ev <- node_evaluate(lat, lattice_rollup(lat, bottom, nodes[i, ]), nodes[i, ],
                        model, metric, analysis)
    if (ev$ok) loss[[i]] <- ev$loss[[metric]]
  }
  ok <- which(!is.na(loss))
  if (!length(ok)) return(list(levels = nodes[nrow(nodes), ], found = FALSE))
  best_loss <- min(loss[ok])
  tied <- ok[loss[ok] <= best_loss + 1e-9 * max(1, abs(best_loss))]
  m <- nodes[tied, , drop = FALSE]
  tied <- tied[do.call(order, c(list(rowSums(m)), lapply(seq_along(top), function(v) m[, v])))]
  list(levels = nodes[tied[[1L]], ], found = TRUE, nodes_evaluated = nrow(nodes),
       nodes_total = nrow(nodes))
}

# One node evaluated for the search: its losses under `metric`, the analysis
# loss (methods vignette section 20) of an acceptable node when `analysis` is given; the
# per-class parts are dropped so that the search keeps only small results.
node_evaluate <- function(lat, tab, h, model, metric, analysis = NULL) {
  ev <- lattice_evaluate(lat, tab, h, model, if (is.null(analysis)) metric else "precision")
  if (!is.null(analysis) && ev$ok)
    ev$loss[["analysis"]] <- analysis(h, ev$supp[record_class(lat, h, ev$class_codes)])
  ev$supp <- NULL
  ev$class_codes <- NULL
  ev
}

# ---- methods of the ola() result --------------------------------------------------

#' @rdname ola
#' @param x,object An `epimask_ola` object.
#' @export
print.epimask_ola <- function(x, ...) print_formatted(x, ...)

#' @rdname ola
#' @export
format.epimask_ola <- function(x, ...) {
  out <- generalization_lines(x)
  crit <- x$risk_criteria
  if (length(crit)) {
    res <- x$criteria_results %||% vector("list", length(crit))
    ctl <- x$control
    parts <- c(if (identical(ctl$outliers, "failing")) "failing classes suppressed",
               vapply(seq_along(crit), function(i) criterion_search_text(crit[[i]], res[[i]]), ""),
               if (identical(ctl$suppressed_loss, "node")) "suppressed records charged at the node")
    out <- c(out, paste0("  criteria: ", paste(parts, collapse = "; ")))
  }
  if (!is.null(x$analysis))
    out <- c(out, sprintf("  analysis loss %s (%s: 1 - U of '%s', estimate %s on the original, %s on the release)",
                          format(signif(x$info_loss[["analysis"]], 4)),
                          x$analysis$metric$label, x$analysis$term,
                          format(signif(x$analysis$original$estimate, 5)),
                          format(signif(x$analysis$release$estimate, 5))))
  if (!is.null(x$local) && nrow(x$local))
    out <- c(out, if (is.null(x$local$persons))
      sprintf("  local recoding: %d round(s) recoded %d suppressed record(s)",
              nrow(x$local), sum(x$local$records))
    else sprintf("  local recoding: %d round(s) recoded %d suppressed person(s) (%d records)",
                 nrow(x$local), sum(x$local$persons), sum(x$local$records)))
  if (!is.null(x$nodes_total))
    out <- c(out, sprintf("  lattice: %s of %s nodes evaluated",
                          format(x$nodes_evaluated, big.mark = ","),
                          format(x$nodes_total, big.mark = ",")))
  if (length(x$dropped))
    out <- c(out, paste0("  proxies dropped: ", paste(x$dropped, collapse = ", ")))
  out
}

#' @rdname ola
#' @param row.names,optional Unused (for the generic).
#' @export
as.data.frame.epimask_ola <- function(x, row.names = NULL, optional = FALSE, ...) {
  as.data.frame.epimask_datafly(x)
}

#' @rdname ola
#' @export
summary.epimask_ola <- function(object, ...) {
  structure(list(
    ola = object,
    levels = generalization_levels(object),
    criteria = criterion_rows(object$criteria_results),
    class_sizes = table(size = object$class_sizes)),
    class = "summary.epimask_ola")
}

#' @rdname ola
#' @export
format.summary.epimask_ola <- function(x, ...) {
  utils::capture.output({
    print(x$ola)
    cat("\nLevels chosen:\n")
    print(x$levels, row.names = FALSE)
    cat("\nInformation loss of the release:\n")
    print(x$ola$info_loss)
    if (nrow(x$criteria)) {
      cat("\nCriteria recounted on the release:\n")
      print(x$criteria[c("criterion", "value", "bound", "pass", "unit")], row.names = FALSE)
    }
    cat("\nEquivalence class sizes (number of classes):\n")
    print(x$class_sizes)
  })
}

#' @export
print.summary.epimask_ola <- function(x, ...) print_formatted(x, ...)

#' @rdname ola
#' @param y Unused.
#' @param what Bar heights: number of `"classes"` or of `"records"` per EC size.
#' @param main Plot title (default names the method).
#' @export
plot.epimask_ola <- function(x, y = NULL, what = c("classes", "records"), main = NULL, ...) {
  generalization_plot(x, what, main, "OLA", ...)
}

#' @export
`$.epimask_ola` <- function(x, name) get_field(x, name, exact = FALSE)
#' @export
`[[.epimask_ola` <- function(x, i, exact = TRUE) get_field(x, i, exact = exact)
