# Globally optimal generalization (methods vignette section 16; El Emam et al. 2009, OLA;
# Kohlmayer et al. 2012, Flash). The k-anonymity part of acceptability is
# monotone along generalization (with nested hierarchies), so Flash's paths
# with a binary search on each and predictive tagging find every node's
# k-status from few evaluations; the least-loss acceptable node is then found
# by branch and bound over the k-anonymous nodes, cheapest lower bound first,
# so that l-diversity, t-closeness and a loss that suppression makes
# non-monotone are handled exactly.

#' Optimal lattice generalization to k-anonymity (OLA / Flash)
#'
#' Finds the generalization of least information loss that makes the data
#' k-anonymous (and l-diverse / t-close when asked), searching the lattice of
#' all combinations of hierarchy levels without evaluating most of them.
#'
#' **The lattice.** One node per vector of levels, one level per key, from 0
#' (original values) to the top of its hierarchy. A node is *acceptable* when,
#' after suppressing the records in equivalence classes smaller than `k`, at
#' most `max_suppress` of the records are suppressed and every remaining class
#' has at least `l` distinct values (`diversity = "distinct"`) or an entropy l
#' \eqn{\exp(-\sum_s p_s \log p_s)} of at least `l` (`"entropy"`) and an earth
#' mover's distance of at most `t` to the overall distribution (methods vignette, section 12) on
#' every `sensitive` variable. The result is the acceptable node of least
#' information loss under `metric` ([info_loss()]); ties go to the lower sum of
#' levels, then to the lexicographically smaller level vector. Losses within a
#' relative \eqn{10^{-9}} count as ties.
#'
#' **The search.** With nested hierarchies (each level a function of the one
#' below, which [datafly()]'s ready hierarchies are), the k-anonymity part is
#' monotone: every generalization of a k-anonymous node is k-anonymous. As in
#' Flash (Kohlmayer et al. 2012), untagged nodes are taken bottom-up; from each
#' a path climbs through untagged nodes to the top, and a binary search on the
#' path evaluates few of its nodes; each evaluation tags every generalization
#' (k-anonymous) or every specialization (not). Every node has a lower bound on
#' its loss (the loss with nothing suppressed for precision and entropy; for
#' discernibility and average class size, bounds from evaluated finer nodes);
#' no path starts from a node whose bound exceeds the best loss found so far.
#' Then the nodes k-anonymous or not yet known are taken in order of their
#' bound until it exceeds the best loss, so the answer is exact although the
#' loss and the l-diversity check are not monotone under suppression. A node's class counts are rolled
#' up in C from the smallest evaluated finer node's counts, never recomputed
#' from the records. Without nested hierarchies no tagging is valid and nodes
#' are evaluated in order of the bound (all of them, for the bound-less
#' metrics).
#'
#' **The release** is built as in [datafly()]: keys generalized to the chosen
#' levels, records in classes smaller than `k` dropped, `id` columns replaced
#' by keyed pseudonyms, proxies of generalized keys flagged or dropped.
#'
#' @inheritParams datafly
#' @param metric Information loss to minimize: `"entropy"` (non-uniform
#'   entropy, the default), `"precision"`, `"discernibility"` or
#'   `"avg_class_size"` (see [info_loss()]), or [analysis_loss()] (the
#'   collaborator's model: 1 - analysis potential of its coefficient on the
#'   node's release).
#' @param l `NULL`, or the l of l-diversity required of every released class
#'   on every `sensitive` variable.
#' @param sensitive `NULL`, or the sensitive columns (not keys) for `l` and `t`.
#' @param t `NULL`, or the largest earth mover's distance allowed between a
#'   released class's distribution of a sensitive variable and the overall one.
#' @param diversity `"distinct"` or `"entropy"` l-diversity.
#' @param ordered Sensitive variables whose values are ordered for
#'   t-closeness; numeric ones are ordered by default.
#' @param search `"exact"` (the default) finds the optimum defined above;
#'   `"minimal"` takes the best of the k-minimal nodes (k-anonymous nodes
#'   whose one-step specializations are not), as the OLA and Flash papers do:
#'   the same node when the loss cannot fall with generalization (no
#'   suppression, or the k-minimal node is also least under suppression),
#'   fewer nodes evaluated, but with suppression a coarser node that
#'   suppresses fewer records can lose less, which only `"exact"` finds. It
#'   falls back to the exact search when no k-minimal node is l-diverse /
#'   t-close.
#' @param outliers Which classes are suppressed: `"small"` (the default, as
#'   above: the classes smaller than `k`; every other class must then meet
#'   `l`, `t` and `k_map`) or `"failing"` (ARX's semantics: every class that
#'   fails any criterion; the node is acceptable when the suppressed records
#'   number at most `max_suppress` of the records).
#' @param local `TRUE` for ARX's local recoding (`ARXResult.optimize`): the
#'   records the chosen node suppresses are searched again as a data set of
#'   their own, under the same criteria and metric (with
#'   [analysis_loss()], the loss of the whole release), and the records the
#'   new node releases are recoded at its levels; repeated while a round
#'   recodes records. The rounds are in `$local`; the losses are then
#'   computed record by record (each at its own levels). With persons (`id`)
#'   the rounds count `records` and `persons` (columns `persons`,
#'   `persons_still_suppressed` added).
#' @param population With `k_map`: a data frame of the population's key
#'   values (one row per person of the population the data are a sample
#'   of; the key columns, of the data's types, within the hierarchies'
#'   domains), or a [population_model()] giving the sampling fraction (ARX's
#'   derived k, see `k_map`).
#' @param avg_risk `NULL`, or ARX's average re-identification risk: released
#'   classes per released record must be at most `avg_risk`; met by
#'   suppressing the smallest released classes first (ties: the order of first
#'   appearance in the data of the classes' generalized values), within
#'   `max_suppress`.
#' @param k_map `NULL`, or the k of k-map (El Emam & Dankar 2008): every
#'   released class must match at least `k_map` persons of `population`.
#'   With `population = population_model(pi)` (no population table), ARX's
#'   derived k (criteria/KMap.java, arx-deidentifier/arx commit 8b7bc54):
#'   with \eqn{\lambda = \pi k_{map}} and \eqn{c} the smallest count such
#'   that \eqn{P(X \le c) \ge 1 - \alpha} for \eqn{X \sim
#'   Poisson(\lambda)} (`k_map_estimator = "poisson"`, \eqn{c \ge 0}) or for
#'   its zero-truncated form (\eqn{c \ge 1}), the derived k is ARX's
#'   \eqn{c + 2} (Poisson) or \eqn{c + 1} (zero-truncated), capped at
#'   `k_map` and at the number of records; the release is then made
#'   k-anonymous for the larger of `k` and the derived k (a monotone
#'   criterion, searched with tagging). The derivation is in
#'   `$criteria$k_map_model`.
#' @param uniqueness `NULL`, or population uniqueness as a criterion (ARX's
#'   PopulationUniqueness): `list(pi = , model = "dankar", max = )`, the
#'   sampling fraction of the data, the model of [population_model()]
#'   (`"dankar"`, `"pitman"`, `"zayatz"` or `"snb"`) and the largest share of
#'   the population that may be unique on the released keys. The share is
#'   estimated ([risk_population()]'s estimators, methods vignette, section 21) from the
#'   histogram of the released classes' sizes, the population size fixed at
#'   `round(n / pi)`; an estimate that does not converge fails the node. Met
#'   by suppressing the smallest released classes first (ties by their
#'   generalized values) after the other criteria's suppression, the least
#'   number that meets `max`, within `max_suppress`; every count is tried
#'   (the share is not monotone in it, where ARX searches it by bisection).
#'   Not monotone under suppression, so it is checked on every node the
#'   k-part does not exclude (no predictive tagging); not with `local = TRUE`.
#'   Population uniques are sample uniques: with `k >= 2` and
#'   `outliers = "small"` the released classes have none, so the criterion
#'   bites with `k = 1`.
#' @param loglinear `NULL`, or Skinner & Shlomo's log-linear risk as a
#'   criterion (methods vignette, section 22): `list(max = , pi = , weights =
#'   , measure = "tau1", formula = NULL)`. The released classes' key table is
#'   fitted by [risk_loglinear()] (main effects, or `formula` of the keys)
#'   with the sampling fraction `pi` or the sampling `weights` (a column of
#'   `data`, each at least 1; neither: the data are the population), and
#'   \eqn{\tau_1 / n} (`measure = "tau1"`: the expected share of released
#'   units that are sample uniques unique in the population) or
#'   \eqn{\tau_2 / n} (`"tau2"`: the expected share correctly matched) must
#'   be at most `max`, n the released records (persons). It is checked on
#'   the release the other criteria leave and suppresses nothing of its own
#'   (each count suppressed would refit the whole key table: on Adult's five
#'   usual keys, 81,760 cells, and hundreds of counts per node): a node
#'   meets it by its generalization. A table too large to fit or a model that does not
#'   converge fails the node. Like `uniqueness`, it concerns sample uniques:
#'   with `k >= 2` and `outliers = "small"` the released classes have none
#'   (\eqn{\tau = 0}), so it bites with `k = 1`.
#' @param cluster_risk `NULL`, or cluster (household) risk as a criterion
#'   (methods vignette, section 22; [risk_individual()] with `cluster`):
#'   `list(cluster = , max = , weights = NULL)`, `cluster` the column naming
#'   each record's cluster (family, household, care home; no `NA`). Each
#'   released unit's individual risk is [risk_individual()]'s at the node
#'   (\eqn{1/f}, or Benedetti-Franconi with the sampling `weights`, a column
#'   each at least 1); a cluster's risk is \eqn{1 - \prod (1 - r_i)} over its
#'   released members, given to each; the expected share of released units
#'   re-identified, \eqn{\sum_i r_{h(i)} / n}, must be at most `max`.
#'
#'   `uniqueness`, `loglinear` and `cluster_risk` are not monotone under
#'   suppression. `uniqueness` and `cluster_risk` are met together by one
#'   scan that suppresses the smallest released classes first (ties by their
#'   generalized values), after the other criteria's suppression, taking the
#'   least number of classes after which both hold, within `max_suppress`
#'   (each count tried costs an estimator fit or a pass over the clusters);
#'   `loglinear` is then checked on that release. They change only the
#'   acceptability, never the tagged k-part, so every node the k-part and
#'   the bound leave is checked. Not with `local = TRUE` (the risk is of the
#'   whole release). The print names each criterion and its value on the
#'   release (`$criteria$loglinear$release`, `$criteria$cluster_risk$release`).
#' @param k_map_alpha,k_map_estimator With `k_map` and a [population_model()]:
#'   the significance level (ARX's default 0.01) and the distribution of a
#'   population class's count in the sample (`"poisson"`, ARX's default, or
#'   `"zero_truncated"`).
#' @param suppressed_loss How suppressed records count in the information
#'   loss, so that ARX's losses can be reproduced: `"top"` (the default:
#'   fully generalized, methods vignette section 16), `"node"` (ARX's monotone metrics: at the
#'   node's generalization, as if released; for discernibility every class
#'   counts its size squared, for the average class size every class counts)
#'   or `"block"` (ARX's non-monotone metrics: the suppressed records form one
#'   block; entropy adds, per key, the entropy of their generalized values
#'   within the block, \eqn{\sum_g c_g \log_2(S / c_g)}; the average class
#'   size counts the block as one class; precision and discernibility as
#'   `"top"`).
#' @section Targets of the custodian (methods vignette, section 20):
#' `outliers`, `avg_risk`, `k_map`, `uniqueness`, `local`, `suppressed_loss` and
#' `metric = analysis_loss()` leave the search exact: the records of the
#' classes smaller than `k` are suppressed under every semantics, so the
#' monotone k-part still tags the lattice, and the other criteria (not all
#' monotone under generalization with suppression) are checked on every node
#' that the bound does not exclude. With the analysis loss no bound exists:
#' every node with the k-part is evaluated (one IRLS fit per distinct release).
#' With the defaults the search and the release are those of methods vignette section 16.
#' @section Several records per person:
#' With `id` naming a person column whose values repeat (methods vignette,
#' section 23), the lattice runs on the persons and every criterion
#' counts persons: `k`, `max_suppress` (a share of the persons), `l` / `t`
#' (over the persons of a class), `outliers = "failing"`, `avg_risk`
#' (released classes per released person), `k_map` (the `population` table
#' then has one row per person of the population, or the person column, see
#' below; the derived k of a
#' [population_model()] is capped at the number of persons), `uniqueness`
#' (`pi` the sampling fraction of persons), `loglinear` (the key table of
#' persons) and `cluster_risk` (a person belongs to one cluster: the column
#' must be equal on a person's records, as must `weights`). A person is
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
#' @return An object of class `c("epimask_ola", "epimask_datafly")`: the
#'   fields of [datafly()] (without generalization `steps`) plus `metric`,
#'   `info_loss` (the four losses of the release, named, and `analysis` with
#'   [analysis_loss()]), `nodes_evaluated` (nodes whose class counts were
#'   computed), `nodes_total`, `criteria` (the targets asked for), `local` (the
#'   rounds of local recoding: records recoded, still suppressed, levels) and,
#'   with [analysis_loss()], `analysis` (the metric, the term, its original
#'   estimate and SE, and `release`: its estimate, SE and analysis potential on
#'   the release).
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
#' best <- ola(people, c("birth", "sex", "zip"), h, k = 5)
#' best
#' greedy <- datafly(people, c("birth", "sex", "zip"), h, k = 5)
#' rbind(ola = info_loss(best, "all"), datafly = info_loss(greedy, "all"))
#' ola(people, c("birth", "sex", "zip"), h, k = 5, l = 2, sensitive = "dx")
#' # ARX's semantics: suppress every class that fails l-diversity too
#' ola(people, c("birth", "sex", "zip"), h, k = 5, l = 2, sensitive = "dx",
#'     outliers = "failing")
#' # average re-identification risk at most 1/20, then local recoding
#' ola(people, c("birth", "sex", "zip"), h, k = 1, avg_risk = 0.05, local = TRUE)
#' # k-map: every released class matches at least 10 persons of the population
#' population <- people[sample(300, 3000, TRUE), c("birth", "sex", "zip")]
#' ola(people, c("birth", "sex", "zip"), h, k = 2, k_map = 10, population = population)
#' # k-map from a sampling fraction alone (ARX's derived k)
#' ola(people, c("birth", "sex", "zip"), h, k = 2, k_map = 50,
#'     population = population_model(0.1))
#' # log-linear risk of a 5% sample: expected population uniques at most 1%
#' ola(people, c("birth", "sex", "zip"), h, k = 1, max_suppress = 0.1,
#'     loglinear = list(pi = 0.05, max = 0.01))
#' # families of three: the cluster risk share at most 0.2
#' people$family <- rep(1:100, each = 3)
#' ola(people, c("birth", "sex", "zip"), h, k = 2,
#'     cluster_risk = list(cluster = "family", max = 0.2))
#' # several visits per person: persons are counted and suppressed whole
#' tv <- trial_visits
#' tv$yob <- as.integer(format(tv$birth, "%Y"))
#' ola(tv, c("yob", "sex", "site"),
#'     list(yob = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
#'          site = hierarchy_flat()),
#'     k = 3, id = "pid", secret = "custodian key", outliers = "failing", avg_risk = 0.2)
#' # a key that varies between a person's visits (age at the visit): key sets
#' tv$age <- as.integer((tv$visit_date - tv$birth) / 365.25)
#' ola(tv, c("age", "sex", "site"),
#'     list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
#'          site = hierarchy_flat()),
#'     k = 3, id = "pid", secret = "custodian key")
#' @export
ola <- function(data, keys, hierarchies, k = 5, max_suppress = 0.05,
                metric = c("entropy", "precision", "discernibility", "avg_class_size"),
                l = NULL, sensitive = NULL, t = NULL, id = NULL,
                diversity = c("distinct", "entropy"), ordered = NULL,
                secret = NULL, drop_proxies = FALSE,
                search = c("exact", "minimal"),
                outliers = c("small", "failing"), local = FALSE, population = NULL,
                avg_risk = NULL, k_map = NULL, suppressed_loss = c("top", "node", "block"),
                k_map_alpha = 0.01, k_map_estimator = c("poisson", "zero_truncated"),
                uniqueness = NULL, loglinear = NULL, cluster_risk = NULL) {
  args <- check_generalize_args(data, keys, hierarchies, k, max_suppress, id,
                                secret, drop_proxies)
  data <- args$data
  analysis <- NULL
  if (inherits(metric, "epimask_analysis_loss")) {
    analysis_metric <- metric
    metric <- "analysis"
  } else {
    metric <- check_choice(metric, loss_metrics)
  }
  outliers <- check_choice(outliers, c("small", "failing"))
  suppressed_loss <- check_choice(suppressed_loss, c("top", "node", "block"))
  check_flag(local)
  avg_risk <- check_number(avg_risk, lower = 0, upper = 1, allow_null = TRUE)
  if (!is.null(avg_risk) && avg_risk <= 0)
    abort_value("avg_risk", "a share above 0 (classes per released record)")
  if (!is.null(k_map)) k_map <- check_count(k_map)
  k_map_requested <- k_map
  if (is.null(k_map) != is.null(population))
    abort_value(if (is.null(k_map)) "k_map" else "population",
                "given together with `population` / `k_map` (k-map counts the population)")
  # a population table with the person column: its persons' key sets
  pop_person <- if (!is.null(k_map)) population_persons(population, id)
  population <- check_population(population, keys, data)
  k_map_estimator <- check_choice(k_map_estimator, c("poisson", "zero_truncated"))
  k_map_alpha <- check_number(k_map_alpha, lower = 0, upper = 1, lower_open = TRUE,
                              upper_open = TRUE)
  uniqueness <- check_uniqueness(uniqueness)
  if (!is.null(uniqueness) && local)
    abort_value("local", paste0("FALSE with `uniqueness` (population uniqueness is ",
                                "estimated on the whole release, not on a subset's)"))
  # k-map from a sampling fraction (ARX's derived k): k-anonymity with the
  # derived k, a monotone criterion searched with tagging like k itself
  k_map_derived <- NULL
  person <- generalize_persons(data, id)
  if (inherits(population, "epimask_population_model")) {
    # capped at the number of units counted (persons with a person column)
    k_map_derived <- kmap_derived_k(k_map, population$pi, k_map_alpha, k_map_estimator,
                                    if (is.null(person)) nrow(data) else max(person))
    k_map_pi <- population$pi
    args$k <- as.integer(max(args$k, k_map_derived))
    k_map <- NULL
    population <- NULL
  }
  diversity <- check_choice(diversity, c("distinct", "entropy"))
  search <- check_choice(search, c("exact", "minimal"))
  sensitive <- check_columns(sensitive, data, allow_null = TRUE)
  if (length(intersect(sensitive, c(keys, id))))
    abort_value("sensitive", "columns that are neither `keys` nor `id`")
  l <- check_number(l, lower = 1, allow_null = TRUE)
  t <- check_number(t, lower = 0, upper = 1, allow_null = TRUE)
  if (is.null(sensitive) != (is.null(l) && is.null(t)))
    abort_value("sensitive", "given exactly when `l` or `t` is")
  ordered <- check_columns(ordered, data, allow_null = TRUE)
  ordered <- union(intersect(ordered, sensitive),
                   Filter(function(s) is.numeric(data[[s]]), sensitive))
  warn_possible_identifiers(data, c(keys, id))
  proxies <- find_proxies(data, keys, id)

  searched <- data
  loglinear <- check_loglinear_criterion(loglinear, data, person)
  cluster_risk <- check_cluster_criterion(cluster_risk, data, person)
  if (local && (!is.null(loglinear) || !is.null(cluster_risk)))
    abort_value("local", paste0("FALSE with `loglinear` or `cluster_risk` (the risk is ",
                                "of the whole release, not of a subset's)"))
  key_sets <- FALSE
  if (!is.null(person)) {
    # the lattice runs on the persons: one row each when every person has
    # one combination of key values, else on their key sets
    # (generalize-ola-sets.R), as with a population table of key sets
    searched <- person_rows(data, keys, person, sensitive)
    key_sets <- is.null(searched) || !is.null(pop_person)
    if (is.null(searched))
      searched <- lapply(stats::setNames(sensitive, sensitive), function(s)
        person_columns(data, s, person, max(person))$columns[[1L]])
    ordered <- intersect(ordered, Filter(function(s) !is.character(searched[[s]]) ||
                                           is.character(data[[s]]), sensitive))
  }
  lat <- if (key_sets)
    set_lattice_build(data, keys, args$hierarchies, person, sensitive, ordered,
                      population, pop_person)
  else lattice_build(searched, keys, args$hierarchies, sensitive, ordered)
  k <- args$k
  model <- list(k = k, max_suppress = args$max_suppress, l = l, t = t,
                diversity = diversity, outliers = outliers, avg_risk = avg_risk,
                k_map = k_map, uniqueness = uniqueness, charge = suppressed_loss,
                loglinear = loglinear, cluster_risk = cluster_risk)
  if (!is.null(k_map) && !key_sets)
    lat$pop <- population_lattice(searched, population, keys, args$hierarchies)
  if (metric == "analysis") {
    if (is.null(person)) {
      analysis <- analysis_evaluator(analysis_metric, data, keys, args$hierarchies, lat)
    } else {
      # the collaborator's model is fitted on the records; the search
      # suppresses persons: a suppressed person's records all leave the fit
      analysis <- person_analysis(
        analysis_evaluator(analysis_metric, data, keys, args$hierarchies,
                           lattice_build(data, keys, args$hierarchies)), person)
    }
  }
  found <- lattice_search(lat, model, metric, minimal_only = search == "minimal",
                          analysis = analysis)
  levels <- stats::setNames(found$levels, keys)

  targeted <- model_extended(model) || local
  # suppressed units of the lattice: records, or persons with a person column
  supp_records <- if (targeted) node_suppressed_records(lat, levels, model)
  recoding <- NULL
  if (local && found$found) {
    recoding <- local_recoding(searched, keys, args$hierarchies, model, metric, lat,
                               levels, supp_records, sensitive, ordered, population,
                               analysis, unit_records = if (!is.null(person)) tabulate(person),
                               sets = if (key_sets) list(data = data, person = person,
                                                         pop_person = pop_person))
    supp_records <- recoding$supp
    if (!is.null(person) && !key_sets)
      recoding$current <- lapply(recoding$current, `[`, person)
  }
  out <- finish_release(data, keys, args$hierarchies, levels, k, id,
                        args$secret, proxies, drop_proxies, lat, model,
                        supp_records = if (!is.null(person) && !is.null(supp_records))
                          supp_records[person] else supp_records,
                        current = recoding$current, person = person)
  if (!is.null(recoding)) {
    out$info_loss <- record_level_losses(lat, recoding$levels, supp_records, model,
                                         out$class_sizes)
    out$local <- recoding$rounds
    out$record_levels <- recoding$levels
  }
  if (metric == "analysis") {
    at <- if (is.null(recoding)) unname(levels) else recoding$levels
    supp_at <- supp_records %||% node_suppressed_records(lat, levels, model)
    out$info_loss[["analysis"]] <- analysis(at, supp_at)
    out$analysis <- list(metric = analysis_metric, term = attr(analysis, "term"),
                         original = attr(analysis, "estimate"),
                         release = analysis(at, supp_at, detail = TRUE))
  }
  out$criteria <- list(outliers = outliers, avg_risk = avg_risk, k_map = k_map,
                       local = local, suppressed_loss = suppressed_loss)
  out$criteria$uniqueness <- uniqueness
  if (!is.null(loglinear) || !is.null(cluster_risk)) {
    # the release's own values of the scanned risks, for the print
    final <- node_risk_values(lat, unname(levels), model,
                              if (is.null(supp_records)) rep(FALSE, lat$n) else supp_records)
    if (!is.null(loglinear))
      out$criteria$loglinear <- c(loglinear[c("max", "pi", "measure", "formula",
                                              "weights_column")],
                                  list(release = final$loglinear))
    if (!is.null(cluster_risk))
      out$criteria$cluster_risk <- c(cluster_risk[c("max", "column", "weights_column")],
                                     list(release = final$cluster_risk))
  }
  if (!is.null(k_map_derived))
    out$criteria$k_map_model <- list(k_map = k_map_requested, pi = k_map_pi,
                                     alpha = k_map_alpha, estimator = k_map_estimator,
                                     derived_k = k_map_derived)
  out$max_suppress <- args$max_suppress
  out$method <- "OLA"
  out$metric <- metric
  out$privacy <- list(l = l, t = t, sensitive = sensitive, diversity = diversity)
  out$search <- search
  out$acceptable <- found$found
  out$nodes_evaluated <- found$nodes_evaluated
  out$nodes_total <- found$nodes_total
  out$steps <- data.frame(key = character(), level = integer(),
                          distinct = integer(), in_small_classes = integer())
  if (!found$found)
    epimask_warn(sprintf(paste0(
      "No lattice node meets the privacy model (k = %d%s); the top node is ",
      "returned and every record that breaks it is suppressed."), k,
      paste0(if (!is.null(sensitive)) ", with l-diversity / t-closeness" else "",
             if (!is.null(avg_risk)) sprintf(", average risk <= %s", format(avg_risk)) else "",
             if (!is.null(k_map)) sprintf(", k-map %d", k_map) else "",
             if (!is.null(uniqueness))
               sprintf(", population uniqueness <= %s", format(uniqueness$max)) else "",
             if (!is.null(loglinear))
               sprintf(", log-linear %s share <= %s", loglinear$measure, format(loglinear$max))
             else "",
             if (!is.null(cluster_risk))
               sprintf(", cluster risk <= %s", format(cluster_risk$max)) else "")),
      "epimask_warning_suppressed")
  structure(out, class = c("epimask_ola", "epimask_datafly"))
}

loss_metrics <- c("entropy", "precision", "discernibility", "avg_class_size")

# The search of methods vignette section 16 (see ola()'s details). Returns the chosen levels,
# whether an acceptable node exists, and the numbers of nodes evaluated and in
# the lattice.
lattice_search <- function(lat, model, metric, minimal_only = FALSE, analysis = NULL) {
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
    if (lat$nested) {
      # predictive tagging; phase 2 knows every node's k-status already
      if (is.na(status[[i]])) {
        if (ev$k_ok) status[tag(h, 1L)] <<- TRUE else status[tag(h, 0L)] <<- FALSE
      }
      if (metric == "discernibility" || metric == "avg_class_size") {
        up <- tag(h, 1L)
        sum_sq_bound[up] <<- pmax(sum_sq_bound[up], ev$sum_sq)
        classes_bound[up] <<- pmin(classes_bound[up], ev$n_classes)
      }
    } else {
      status[i] <<- ev$k_ok
    }
    if (prune) consider(i, ev)
    ev
  }

  # Flash's paths: climb through untagged nodes, cheapest step first
  if (lat$nested) {
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
        if (is.na(ok)) ok <- evaluate(path[[mid]])$k_ok
        if (ok) hi <- mid - 1L else lo <- mid + 1L
      }
    }
  }

  # branch and bound over the nodes k-anonymous or not yet known
  candidates <- if (lat$nested) which(is.na(status) | status) else seq_len(n_nodes)
  if (minimal_only && lat$nested) {
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
