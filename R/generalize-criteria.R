# The custodian's targets in the lattice search (methods vignette section 20): ARX's outlier
# semantics ("failing": every class failing any criterion is suppressed),
# average re-identification risk, k-map against a population table, ARX's
# charging of suppressed records, and the analysis loss of the collaborator's
# model. lattice_evaluate() hands a node here when any of them is asked for;
# the default path of ola() (outliers = "small", none of these) is untouched.

# Does the privacy model use any criterion of methods vignette section 20?
model_extended <- function(model) {
  identical(model$outliers, "failing") || !is.null(model$avg_risk) ||
    !is.null(model$k_map) || !is.null(model$uniqueness) ||
    !is.null(model$loglinear) || !is.null(model$cluster_risk) ||
    !is.null(model$charge) && model$charge != "top"
}

# One node under the extended criteria: which classes are suppressed, whether
# the node is acceptable, and its losses. `k_ok` (the records of the classes
# smaller than k fit within max_suppress) stays the tagged, monotone part:
# every acceptable node has it, whatever the outlier semantics, because the
# classes smaller than k are always among the suppressed ones.
lattice_evaluate_targets <- function(lat, table, levels, model, metrics, cls, size,
                                     class_codes, small, k_ok) {
  n_cls <- length(size)
  limit <- model$max_suppress * lat$n
  ok <- k_ok
  supp <- small
  if (ok) {
    fails <- lattice_class_fails(lat, table, cls, n_cls, model)
    if (!is.null(model$k_map))
      fails <- fails | pop_class_count(lat, levels, class_codes) < model$k_map
    if (identical(model$outliers, "failing")) {
      supp <- small | fails
      ok <- sum(size[supp]) <= limit
    } else {
      ok <- !any(fails & !small)
    }
  }
  if (ok && !is.null(model$avg_risk)) {
    extra <- avg_risk_suppress(size, supp, class_codes, model$avg_risk, limit)
    if (is.null(extra)) ok <- FALSE else supp[extra] <- TRUE
  }
  if (ok && risk_scanned(model)) {
    # the criteria not monotone under suppression (population uniqueness,
    # cluster risk): one scan, all of them met together
    meets <- risk_meets(lat, levels, size, class_codes, model)
    extra <- risk_suppress(size, supp, class_codes, meets, limit)
    if (is.null(extra)) ok <- FALSE else supp[extra] <- TRUE
  }
  if (ok && !is.null(model$loglinear)) {
    # log-linear risk: checked on the release the other criteria leave (a
    # refit of the whole key table per count suppressed would be the cost
    # of a scan); it concerns sample uniques, which k >= 2 suppresses
    share <- loglinear_share(class_codes, record_class(lat, levels, class_codes), !supp,
                             lat$keys, model$loglinear)
    ok <- is.finite(share) && share <= model$loglinear$max * (1 + 1e-12)
  }
  # ARX's monotone metrics: a suppressed record costs what it would at the node
  charged <- if (identical(model$charge, "node")) rep(FALSE, n_cls) else supp
  list(levels = levels, k_ok = k_ok, ok = ok, suppressed = sum(size[supp]),
       n_classes = n_cls, sum_sq = sum(size^2), supp = supp, class_codes = class_codes,
       loss = vapply(metrics, function(m) {
         if (identical(model$charge, "block") && m %in% c("entropy", "avg_class_size"))
           block_loss(lat, levels, size, supp, class_codes, m, model$k)
         else node_loss(lat, levels, size, charged, class_codes, m, model$k)
       }, numeric(1)))
}

# ARX's non-monotone metrics (suppressed_loss = "block"): the suppressed
# records form one block of their own. Entropy (ARX MetricMDNUNMEntropy):
# the node's entropy of every record plus, for each key, the entropy of the
# suppressed records' generalized values within the block,
# sum_g c_g log2(S / c_g) (c_g of the S suppressed records have value g at the
# node). Average class size (ARX MetricSDAECS): n / (released classes + 1
# when records are suppressed), divided by k as in methods vignette section 16. Precision and
# discernibility are charged as "top" (ARX's MetricSDNMDiscernability).
block_loss <- function(lat, levels, size, supp, class_codes, metric, k) {
  n <- lat$n
  if (metric == "avg_class_size")
    return(n / (sum(!supp) + any(supp)) / k)
  if (!is.null(attr(class_codes, "sets")))
    return(set_node_loss(lat, levels, supp, attr(class_codes, "sets"), metric, block = TRUE))
  A <- length(levels)
  base <- sum(vapply(seq_len(A), function(v)
    lat$entropy_base[[v]][[levels[[v]] + 1L]], numeric(1)))
  S <- sum(size[supp])
  if (!S) return(base)
  extra <- 0
  for (v in seq_len(A)) {
    cg <- as.vector(rowsum(size[supp], class_codes[supp, v]))
    extra <- extra + sum(cg * log2(S / cg))
  }
  base + extra
}

# Classes failing l-diversity or t-closeness on any sensitive variable
# (methods vignette section 12), one flag per class; 1e-9 as in lattice_diverse().
lattice_class_fails <- function(lat, table, cls, n_cls, model) {
  fails <- rep(FALSE, n_cls)
  if (!length(lat$sensitive) || (is.null(model$l) && is.null(model$t))) return(fails)
  A <- length(lat$keys)
  for (j in seq_along(lat$sensitive)) {
    s <- lat$sens[[j]]
    d <- class_diversity(cls$group, table$codes[, A + j], n_cls, length(s$q),
                         count = table$count, q = if (!is.null(model$t)) s$q,
                         ordered = s$ordered)
    if (!is.null(model$l)) {
      l_value <- if (model$diversity == "distinct") d$distinct else d$entropy_l
      fails <- fails | l_value < model$l - 1e-9
    }
    if (!is.null(model$t)) fails <- fails | d$emd > model$t + 1e-9
  }
  fails
}

# ARX's average re-identification risk (AverageReidentificationRisk): released
# classes / released records <= avg_risk, enforced by suppressing the smallest
# released classes first (ties: the smaller class codes, so the choice does
# not depend on row order) within the suppression limit. Suppressing a class
# smaller than the average lowers the ratio and, once the smallest class is
# not below the average, every remaining class equals it: the ratio never
# rises along this order, so the first count that meets the target is the
# least (ARX finds it by binary search). Returns the classes to suppress
# (possibly none), or NULL when the target cannot be met within the limit.
avg_risk_suppress <- function(size, supp, class_codes, avg_risk, limit) {
  kept <- which(!supp)
  records <- sum(size[kept])
  classes <- length(kept)
  if (!classes || classes <= avg_risk * records) return(integer())
  ord <- kept[do.call(order, c(list(size[kept]), lapply(seq_len(ncol(class_codes)),
                                                       function(v) class_codes[kept, v])))]
  cum <- cumsum(size[ord])
  meets <- (classes - seq_along(ord)) <= avg_risk * (records - cum)
  first <- which(meets)[1L]
  if (is.na(first) || sum(size[supp]) + cum[[first]] > limit) return(NULL)
  ord[seq_len(first)]
}

# ---- population uniqueness (methods vignette, section 21; ARX PopulationUniqueness) --------------

# The estimated share of population uniques among the released records: the
# histogram of the released classes' sizes, the population size fixed at
# N = round(n / pi) for the n records of the data (the released records are
# a sample of the same population: fraction n_released / N). An empty
# release has no uniques; an estimate that is NA (the model did not
# converge) fails the criterion.
uniqueness_share <- function(size, spec, n) {
  if (!length(size)) return(0)
  N <- round(n / spec$pi)
  n_rel <- sum(size)
  h <- class_histogram(size)
  est <- population_uniques(h$size, h$count, n_rel / N, spec$model, warn = FALSE,
                            compare = FALSE)
  est$uniques / N
}

# Enforced as ARX enforces its risk-based criteria: the smallest released
# classes suppressed first (ties: the smaller class codes, as for avg_risk),
# the least number of them after which every scanned criterion (`meets`, a
# function of the released classes, logical per class) holds, within the
# suppression limit. Population uniqueness and cluster risk are
# not monotone in the number suppressed, so the counts are tried one by one
# (ARX's binary search assumes monotonicity). Suppressing the smallest
# remaining class never raises the average risk (see avg_risk_suppress()),
# so a node that met avg_risk still meets it. Returns the classes to
# suppress (possibly none), or NULL when no count within the limit meets
# the targets.
risk_suppress <- function(size, supp, class_codes, meets, limit) {
  kept <- !supp
  if (meets(kept)) return(integer())
  idx <- which(kept)
  ord <- idx[do.call(order, c(list(size[idx]), lapply(seq_len(ncol(class_codes)),
                                                     function(v) class_codes[idx, v])))]
  used <- sum(size[supp])
  for (m in seq_along(ord)) {
    used <- used + size[[ord[[m]]]]
    if (used > limit) return(NULL)
    kept[[ord[[m]]]] <- FALSE
    if (meets(kept)) return(ord[seq_len(m)])
  }
  NULL
}

# Is any criterion of the scan asked for?
risk_scanned <- function(model)
  !is.null(model$uniqueness) || !is.null(model$cluster_risk)

# The scan's test at one node: a function of the released classes (logical,
# one per class) that is TRUE when every scanned criterion is met. The unit
# (record, or person when ola() runs on persons) of each class is found once.
risk_meets <- function(lat, levels, size, class_codes, model) {
  unit_class <- NULL
  units <- function() {
    if (is.null(unit_class)) unit_class <<- record_class(lat, levels, class_codes)
    unit_class
  }
  cluster_r <- NULL
  function(kept) {
    if (!is.null(model$uniqueness)) {
      share <- uniqueness_share(size[kept], model$uniqueness, lat$n)
      if (!is.finite(share) || share > model$uniqueness$max * (1 + 1e-12)) return(FALSE)
    }
    if (!is.null(model$cluster_risk)) {
      if (is.null(cluster_r))
        cluster_r <<- unit_risk(class_codes, units(), lat$keys, model$cluster_risk$weights)
      share <- cluster_share(cluster_r, units(), kept, model$cluster_risk$cluster)
      if (share > model$cluster_risk$max * (1 + 1e-12)) return(FALSE)
    }
    TRUE
  }
}

# The released units (records, or persons) of a node as a data frame of
# their classes' key codes (risk_loglinear() and risk_individual() take
# numbers as categories, so the codes stand for the generalized values).
class_frame <- function(class_codes, unit_class, rows, keys) {
  frame <- as.data.frame(class_codes[unit_class[rows], , drop = FALSE])
  names(frame) <- keys
  frame
}

# ---- log-linear risk (methods vignette, section 22; Skinner & Shlomo 2008) -------

# tau1 / n (or tau2 / n) of the released units by risk_loglinear(): the
# expected share of released units that are sample uniques unique in the
# population (or correctly matched). An empty release has no risk; a model
# that cannot be fitted (table too large) or does not converge gives NA,
# which fails the node.
loglinear_share <- function(class_codes, unit_class, kept, keys, spec) {
  if (!is.null(attr(class_codes, "sets")))
    return(set_loglinear_share(unit_class, kept, attr(class_codes, "sets"), spec))
  rows <- which(kept[unit_class])
  if (!length(rows)) return(0)
  loglinear_fit_share(class_frame(class_codes, unit_class, rows, keys), keys,
                      if (!is.null(spec$weights)) spec$weights[rows], spec)
}

# risk_loglinear()'s tau1 / n (or tau2 / n) of a frame of released units
# (`id`: the column of their persons); NA when it cannot be fitted or does
# not converge.
loglinear_fit_share <- function(frame, keys, weights, spec, id = NULL) {
  converged <- TRUE
  res <- tryCatch(withCallingHandlers(
    risk_loglinear(frame, keys, weights = weights, formula = spec$formula, pi = spec$pi,
                   id = id),
    epimask_warning_convergence = function(w) {
      converged <<- FALSE
      invokeRestart("muffleWarning")
    }), epimask_error = function(e) NULL)
  if (is.null(res) || !converged) return(NA_real_)
  if (spec$measure == "tau1") res$tau1_share else res$tau2_share
}

check_loglinear_criterion <- function(loglinear, data, person) {
  if (is.null(loglinear)) return(NULL)
  allowed <- c("max", "pi", "weights", "measure", "formula")
  if (!is.list(loglinear) || is.null(names(loglinear)) || !"max" %in% names(loglinear) ||
      length(setdiff(names(loglinear), allowed)))
    abort_type("loglinear", paste0("a list(max = , pi = , weights = , measure = , formula = ) ",
                                   "(max required; the others optional)"))
  max <- check_number(loglinear$max, lower = 0, upper = 1, arg = "loglinear")
  measure <- loglinear$measure %||% "tau1"
  if (!is.character(measure) || length(measure) != 1L || !measure %in% c("tau1", "tau2"))
    abort_value("loglinear", "a `measure` \"tau1\" or \"tau2\"")
  if (!is.null(loglinear$pi) && !is.null(loglinear$weights))
    abort_value("loglinear", "a list with `pi` or `weights`, not both (the weights give the fractions)")
  pi <- if (!is.null(loglinear$pi)) check_sampling_fraction(loglinear$pi, arg = "loglinear")
  weights <- unit_weights(loglinear$weights, data, person, "loglinear")
  formula <- loglinear$formula
  if (!is.null(formula) && !inherits(formula, "formula"))
    abort_type("loglinear", "a list whose `formula` is NULL or a one-sided formula of the keys")
  list(max = max, pi = pi, weights = weights, measure = measure, formula = formula,
       weights_column = if (is.character(loglinear$weights)) loglinear$weights)
}

# Sampling weights of a criterion: a column of `data` (or a vector of
# nrow(data)), finite and at least 1 (inverse inclusion probabilities), one
# per unit: with persons, equal on a person's records.
unit_weights <- function(weights, data, person, arg) {
  if (is.null(weights)) return(NULL)
  if (is.character(weights) && length(weights) == 1L) {
    if (!weights %in% names(data))
      epimask_abort(sprintf("`%s$weights` names no column of `data` ('%s').", arg, weights),
                    "epimask_error_name", arg = arg)
    weights <- data[[weights]]
  }
  if (!is.numeric(weights) || length(weights) != nrow(data) || anyNA(weights) ||
      any(!is.finite(weights)) || any(weights < 1))
    epimask_abort(sprintf(paste0("`%s$weights` must be a column or vector of %d finite weights ",
                                 ">= 1 (inverse inclusion probabilities)."), arg, nrow(data)),
                  c("epimask_error_weights", "epimask_error_value"), arg = arg)
  if (is.null(person)) return(as.double(weights))
  first <- match(seq_len(max(person)), person)
  if (any(weights != weights[first][person]))
    abort_value(arg, "`weights` equal on all the records of a person (one weight per person)")
  as.double(weights[first])
}

# ---- cluster risk (methods vignette, section 22; risk_individual(cluster =)) ---------------

# Each unit's individual risk at the node (risk_individual(): 1 / f without
# weights, Benedetti-Franconi with them). Suppression removes whole classes,
# so the risk of a released unit does not depend on which other classes are
# suppressed: computed once per node.
unit_risk <- function(class_codes, unit_class, keys, weights) {
  if (!is.null(attr(class_codes, "sets"))) {
    # key sets: the risk depends on the classes only (1 / f, or the sums of
    # the weights per class)
    frame <- data.frame(class = unit_class)
    return(risk_individual(frame, "class", weights = weights)$per_record)
  }
  frame <- class_frame(class_codes, unit_class, seq_along(unit_class), keys)
  risk_individual(frame, keys, weights = weights)$per_record
}

# The expected share of released units re-identified when identifying one
# member of a cluster identifies all: r_h = 1 - prod(1 - r_i) over the
# cluster's released members, summed over the released units, over their
# number. An empty release has no risk.
cluster_share <- function(r, unit_class, kept, cluster) {
  rows <- kept[unit_class]
  if (!any(rows)) return(0)
  sum(cluster_risk(r[rows], cluster[rows])) / sum(rows)
}

check_cluster_criterion <- function(cluster_risk, data, person) {
  if (is.null(cluster_risk)) return(NULL)
  allowed <- c("cluster", "max", "weights")
  if (!is.list(cluster_risk) || is.null(names(cluster_risk)) ||
      !all(c("cluster", "max") %in% names(cluster_risk)) ||
      length(setdiff(names(cluster_risk), allowed)))
    abort_type("cluster_risk", "a list(cluster = , max = , weights = ) (weights optional)")
  max <- check_number(cluster_risk$max, lower = 0, upper = 1, arg = "cluster_risk")
  column <- cluster_risk$cluster
  if (!is.character(column) || length(column) != 1L || is.na(column) ||
      !column %in% names(data))
    epimask_abort("`cluster_risk$cluster` must name a column of `data` (each record's cluster).",
                  "epimask_error_name", arg = "cluster_risk")
  cl <- data[[column]]
  if (anyNA(cl))
    epimask_abort(sprintf("`cluster_risk$cluster` ('%s') must name a cluster for every record; %d %s NA.",
                          column, sum(is.na(cl)), if (sum(is.na(cl)) == 1L) "is" else "are"),
                  c("epimask_error_missing", "epimask_error_value"), arg = "cluster_risk")
  cl <- key_values(cl)
  if (!is.null(person)) {
    first <- match(seq_len(max(person)), person)
    if (any(cl != cl[first][person]))
      abort_value("cluster_risk", sprintf(paste0(
        "a cluster column ('%s') equal on all the records of a person (a person belongs ",
        "to one cluster)"), column))
    cl <- cl[first]
  }
  list(cluster = cl, max = max, column = column,
       weights = unit_weights(cluster_risk$weights, data, person, "cluster_risk"),
       weights_column = if (is.character(cluster_risk$weights)) cluster_risk$weights)
}

check_uniqueness <- function(uniqueness) {
  if (is.null(uniqueness)) return(NULL)
  if (!is.list(uniqueness) || is.null(names(uniqueness)) ||
      !all(c("pi", "max") %in% names(uniqueness)) ||
      length(setdiff(names(uniqueness), c("pi", "model", "max"))))
    abort_type("uniqueness", "a list(pi = , model = , max = ) (model optional, \"dankar\")")
  pi <- check_sampling_fraction(uniqueness$pi, arg = "uniqueness")
  model <- uniqueness$model %||% "dankar"
  if (!is.character(model) || length(model) != 1L || !model %in% population_models)
    abort_value("uniqueness", sprintf("a `model` among %s",
                                      paste0('"', population_models, '"', collapse = ", ")))
  max <- check_number(uniqueness$max, lower = 0, upper = 1, arg = "uniqueness")
  list(pi = pi, model = model, max = max)
}

# ---- k-map against a population table ----------------------------------------

# The population's key values coded like the data's (lattice_key()): for each
# key, the map from the population's distinct values to their codes at every
# level, and the translation of the data's codes at that level (by label) to
# the population's (NA for a generalized value no one in the population has).
population_lattice <- function(data, population, keys, hierarchies) {
  parts <- lapply(keys, function(key) {
    h <- hierarchies[[key]]
    top <- length(h$levels) - 1L
    values_d <- unique(data[[key]])
    values_p <- unique(population[[key]])
    code0 <- match(population[[key]], values_p)
    per_level <- lapply(0:top, function(lv) {
      g_d <- unique(apply_level(h, values_d, lv))
      g_p <- apply_level(h, values_p, lv)
      labels_p <- unique(g_p)
      list(map = match(g_p, labels_p), translate = match(g_d, labels_p))
    })
    list(code0 = code0, map = lapply(per_level, `[[`, "map"),
         translate = lapply(per_level, `[[`, "translate"))
  })
  m <- length(parts[[1L]]$code0)
  codes <- vapply(parts, `[[`, integer(m), "code0")
  dim(codes) <- c(m, length(keys))
  g <- call_c(C_lattice_group, arg = "spec", list(codes = codes, ncol = ncol(codes), count = rep(1, m)))
  list(codes = codes[g$first, , drop = FALSE], count = g$size,
       map = lapply(parts, `[[`, "map"), translate = lapply(parts, `[[`, "translate"),
       n = m)
}

# Population members behind each class of a node (rows of class_codes, the
# data's codes at the node's levels), rolled up in C from the population's
# distinct key patterns.
pop_class_count <- function(lat, levels, class_codes) {
  if (!is.null(attr(class_codes, "sets")))
    return(set_pop_count(lat, levels, attr(class_codes, "sets")))
  pp <- lat$pop
  A <- length(levels)
  maps <- lapply(seq_len(A), function(v) pp$map[[v]][[levels[[v]] + 1L]])
  tab <- call_c(C_lattice_rollup, arg = "spec", list(codes = pp$codes, count = pp$count, maps = maps))
  tr <- vapply(seq_len(A), function(v)
    pp$translate[[v]][[levels[[v]] + 1L]][class_codes[, v]], integer(nrow(class_codes)))
  dim(tr) <- dim(class_codes)
  known <- rowSums(is.na(tr)) == 0L
  out <- numeric(nrow(class_codes))
  if (any(known) && nrow(tab$codes)) {
    n_known <- sum(known)
    both <- rbind(tr[known, , drop = FALSE], tab$codes)
    g <- call_c(C_lattice_group, arg = "spec", list(codes = both, ncol = A,
                                    count = c(rep(0, n_known), tab$count)))
    out[known] <- g$size[g$group[seq_len(n_known)]]
  }
  out
}

# ---- k-map from a sampling fraction (ARX criteria/KMap.java) -------------------

# ARX's derived k (arx-deidentifier/arx, src/main/org/deidentifier/arx/
# criteria/KMap.java as last changed in commit 8b7bc54, 2025-08-22):
# lambda = pi k_map; with c the smallest count such that
#   Poisson:        P(X <= c) >= 1 - alpha,  X ~ Poisson(lambda), c >= 0,
#   zero-truncated: P(X <= c | X >= 1) >= 1 - alpha, c >= 1,
# calculateKPoisson() returns c + 2 and calculateKZeroPoisson() c + 1 (their
# loop counters), and initialize() caps the result at n and at k_map. The
# loops stop counting once the counter reaches k_map (the cap then binds).
# The release must then be k-anonymous for the derived k.
kmap_derived_k <- function(k_map, pi, alpha, estimator, n) {
  lambda <- pi * k_map
  thr <- 1 - alpha
  if (estimator == "poisson") {
    c <- 0L
    while (stats::ppois(c, lambda) < thr && c + 1L < k_map) c <- c + 1L
    derived <- c + 2L
  } else {
    c <- 1L
    # P(X <= c | X >= 1) = (P(X <= c) - P(X = 0)) / (1 - P(X = 0))
    ztp <- function(c) (stats::ppois(c, lambda) - stats::dpois(0, lambda)) /
      (-expm1(-lambda))
    while (ztp(c) < thr && c + 1L < k_map) c <- c + 1L
    derived <- c + 1L
  }
  as.integer(min(derived, n, k_map))
}

check_population <- function(population, keys, data) {
  if (is.null(population)) return(NULL)
  if (inherits(population, "epimask_population_model")) return(population)
  if (is.matrix(population)) population <- as.data.frame(population, stringsAsFactors = FALSE)
  if (!is.data.frame(population))
    abort_type("population", "a data frame of the population's key values (one row per person)")
  if (!nrow(population)) abort_empty("population")
  missing <- setdiff(keys, names(population))
  if (length(missing))
    epimask_abort(sprintf("`population` has no column for the key(s) %s.",
                          paste0("'", missing, "'", collapse = ", ")),
                  "epimask_error_name", arg = "population")
  for (key in keys) {
    same <- (is.numeric(data[[key]]) && is.numeric(population[[key]])) ||
      (inherits(data[[key]], "Date") && inherits(population[[key]], "Date")) ||
      ((is.character(data[[key]]) || is.factor(data[[key]])) &&
         (is.character(population[[key]]) || is.factor(population[[key]]))) ||
      identical(class(data[[key]]), class(population[[key]]))
    if (!same)
      abort_type("population", sprintf("key columns of the data's types ('%s' differs)", key))
  }
  check_utf8_data(as.data.frame(population)[keys], "population")
  as.data.frame(population)[keys]
}

# ---- records and classes -------------------------------------------------------

# The class (row of class_codes) of every record at node `levels`.
record_class <- function(lat, levels, class_codes) {
  if (!is.null(attr(class_codes, "sets"))) return(set_unit_class(lat, attr(class_codes, "sets")))
  A <- length(levels)
  rec <- vapply(seq_len(A), function(v) {
    part <- lat$key[[v]]
    part$level_codes[[levels[[v]] + 1L]][part$code0]
  }, integer(lat$n))
  dim(rec) <- c(lat$n, A)
  nc <- nrow(class_codes)
  g <- call_c(C_lattice_group, arg = "spec", list(codes = rbind(class_codes, rec), ncol = A,
                                  count = rep(1, nc + lat$n)))
  match(g$group[nc + seq_len(lat$n)], g$group[seq_len(nc)])
}

# The records suppressed at node `levels` (logical, one per record).
node_suppressed_records <- function(lat, levels, model) {
  tab <- lattice_rollup(lat, c(lat$bottom, list(levels = integer(length(levels)))),
                        unname(levels))
  ev <- lattice_evaluate(lat, tab, unname(levels), model, "precision")
  ev$supp[record_class(lat, unname(levels), ev$class_codes)]
}

# The scanned risks of the release at node `levels` whose suppressed units
# are `supp` (logical, one per unit): the log-linear share and the cluster
# risk share, as the criteria compute them.
node_risk_values <- function(lat, levels, model, supp) {
  tab <- lattice_rollup(lat, c(lat$bottom, list(levels = integer(length(levels)))), levels)
  A <- length(levels)
  if (isTRUE(lat$sets)) {
    class_codes <- set_classes(lat, tab, levels)$codes
  } else {
    cls <- call_c(C_lattice_group, arg = "spec", list(codes = tab$codes, ncol = A,
                                                      count = tab$count))
    class_codes <- tab$codes[cls$first, seq_len(A), drop = FALSE]
  }
  unit_class <- record_class(lat, levels, class_codes)
  kept <- logical(nrow(class_codes))
  kept[unit_class[!supp]] <- TRUE
  out <- list()
  if (!is.null(model$loglinear))
    out$loglinear <- loglinear_share(class_codes, unit_class, kept, lat$keys, model$loglinear)
  if (!is.null(model$cluster_risk))
    out$cluster_risk <- cluster_share(
      unit_risk(class_codes, unit_class, lat$keys, model$cluster_risk$weights), unit_class,
      kept, model$cluster_risk$cluster)
  out
}

# ---- analysis loss -------------------------------------------------------------

#' Analysis loss: rank generalizations by the collaborator's model
#'
#' A metric for [ola()] (and [deidentify()]): the loss of a lattice node is one
#' minus the analysis potential (methods vignette, section 3) of the
#' collaborator's coefficient estimated on the node's release, against the
#' same model on the original data: \eqn{1 - U}, with \eqn{U} the capped
#' analysis potential every other report of the package gives (one U
#' everywhere; [ru_profile()]'s `analysis_potential`):
#' \eqn{U = \min(1, SE^2 / (\max(SE_m^2, SE^2) + (\hat\beta_m - \hat\beta)^2))},
#' the release's naive variance floored at the original's and the bias counted
#' in full. It is 0 when the release gives the original estimate (whatever its
#' standard error: a release cannot be more precise than the data), lies in
#' \eqn{[0, 1]}, and is 1 when the model cannot be fitted or the coefficient is
#' not estimable on the release.
#'
#' **The node's release as the model sees it** (methods vignette, section 20): the records
#' the node suppresses are dropped (complete cases), the keys are taken at the
#' node's levels: a numeric key generalized to a group (an interval, `"*"`)
#' becomes the mean of the original values in its group (the value a
#' collaborator would analyse grouped data at), any other key its generalized
#' label as a factor. A key of the model left with a single value in the
#' release (generalized to `"*"`) leaves a model that cannot be fitted as
#' stated: the loss is 1, as when the fit fails. (Dropping the variable
#' instead would reward releases that remove the collaborator's adjustment:
#' a smaller model often has a smaller standard error.) Other variables of
#' the model are as in the data. Every fit is by the package's C IRLS
#' ([fit_glm()]).
#'
#' Analysis loss is not monotone along generalization: [ola()] evaluates
#' every node that meets the privacy criteria (the criteria's own monotone
#' part still prunes the lattice), or only the minimal ones with
#' `search = "minimal"`.
#'
#' @param formula The collaborator's model formula, as for [glm()].
#' @param family A family object, family function or name, as for [glm()].
#' @param term The coefficient of interest (one name); `NULL` takes the first
#'   coefficient that is not the intercept.
#' @return An object of class `epimask_analysis_loss`, for the `metric`
#'   argument of [ola()] and the `model` argument of [deidentify()].
#' @family generalization
#' @examples
#' set.seed(3)
#' d <- data.frame(age = sample(20:69, 400, TRUE), sex = sample(c("f", "m"), 400, TRUE),
#'                 zip = sample(c("021", "022", "023", "024"), 400, TRUE))
#' d$visits <- rpois(400, exp(0.5 + 0.02 * d$age))
#' m <- analysis_loss(visits ~ age + sex, poisson(), term = "age")
#' m
#' h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
#'           zip = hierarchy_flat())
#' best <- ola(d, c("age", "sex", "zip"), h, k = 5, metric = m)
#' best$levels
#' info_loss(best, "analysis")
#' @export
analysis_loss <- function(formula, family = gaussian(), term = NULL) {
  check_formula(formula)
  if (is.character(family) && identical(family, "err"))
    abort_value("family", "a GLM family (the analysis loss is fitted by IRLS)")
  if (!is.null(term) && (!is.character(term) || length(term) != 1L || is.na(term)))
    abort_type("term", "NULL or the name of one coefficient")
  model <- resolve_model(family, term, formula)
  structure(list(formula = formula, family = model$family, term = term,
                 label = model$label),
            class = "epimask_analysis_loss")
}

#' @rdname analysis_loss
#' @param x An `epimask_analysis_loss` object.
#' @param ... Unused.
#' @export
format.epimask_analysis_loss <- function(x, ...) {
  sprintf("Analysis loss: 1 - analysis potential of %s in %s (%s)",
          if (is.null(x$term)) "the first coefficient" else paste0("'", x$term, "'"),
          paste(deparse(x$formula, width.cutoff = 500L), collapse = " "), x$label)
}

#' @rdname analysis_loss
#' @export
print.epimask_analysis_loss <- function(x, ...) print_formatted(x, ...)

# The closure that gives a node's analysis loss from its levels and the
# records it suppresses (methods vignette section 20). Fits on identical releases are cached.
analysis_evaluator <- function(metric, data, keys, hierarchies, lat) {
  vars <- all.vars(metric$formula)
  missing <- setdiff(vars, names(data))
  if (length(missing))
    epimask_abort(sprintf("The model of `metric` uses variable(s) not in `data`: %s.",
                          paste0("'", missing, "'", collapse = ", ")),
                  "epimask_error_name", arg = "metric")
  base <- as_plain_data(as.data.frame(data)[vars])
  model <- list(type = "glm", family = metric$family, label = metric$label,
                formula = metric$formula, term = metric$term, dose = NULL)
  fit_o <- with_classed_errors(fit_model(model, base), function(e)
    abort_value("metric", sprintf("a model that fits the original data (%s)",
                                  conditionMessage(e))))
  term <- resolve_terms(model, fit_o, base, multiple = FALSE)
  est_o <- term_estimates(model, fit_o, base, term)
  if (!is.finite(est_o$estimate) || !is.finite(est_o$se) || est_o$se <= 0)
    abort_value("metric", sprintf("a model whose coefficient '%s' is estimable on the original data", term))
  model_keys <- intersect(keys, vars)
  columns <- new.env(parent = emptyenv())
  column <- function(key, lv) {
    id <- paste(key, lv)
    if (!is.null(columns[[id]])) return(columns[[id]])
    x <- base[[key]]
    v <- match(key, lat$keys)
    value <- if (is.numeric(x) && !is.object(x)) {
      part <- lat$key[[v]]
      code <- part$level_codes[[lv + 1L]][part$code0]
      sums <- rowsum(ifelse(is.na(x), 0, as.double(x)), code, reorder = TRUE)
      counts <- rowsum(as.double(!is.na(x)), code, reorder = TRUE)
      means <- ifelse(counts > 0, sums / counts, NA_real_)
      means[code]
    } else {
      factor(apply_level(hierarchies[[key]], x, lv))
    }
    columns[[id]] <- value
    value
  }
  fits <- new.env(parent = emptyenv())
  # the loss, or (detail) the estimate on the release with its SE and U
  loss_of <- function(d, detail = FALSE) {
    none <- if (detail) data.frame(term = term, estimate = NA_real_, se = NA_real_,
                                   analysis_potential = 0, records = nrow(d)) else 1
    # a key of the model left with one value: the model cannot be fitted as
    # the collaborator states it
    if (any(vapply(model_keys, function(key) length(unique(d[[key]])) <= 1L, logical(1))))
      return(none)
    fit <- tryCatch(fit_model(model, d), error = function(e) NULL)
    if (is.null(fit) || !term %in% names(stats::coef(fit))) return(none)
    est <- tryCatch(term_estimates(model, fit, d, term), error = function(e) NULL)
    if (is.null(est) || !is.finite(est$estimate) || !is.finite(est$se)) return(none)
    u <- utility_table(est_o, est, NULL)$analysis_potential
    if (!is.finite(u)) u <- 0
    if (detail) data.frame(term = term, estimate = est$estimate, se = est$se,
                           analysis_potential = u, records = nrow(d))
    else 1 - u
  }
  # `levels`: the node's levels, or (local recoding) a matrix of each
  # record's levels, one column per key
  # `blank` (deidentify()): a records x keys logical matrix of cells blanked
  # by local suppression; a record with a blanked key of the model leaves
  # the model's complete cases
  structure(function(levels, supp_records, detail = FALSE, blank = NULL) {
    per_record <- is.matrix(levels)
    if (!is.null(blank)) {
      hit <- blank[, match(model_keys, lat$keys), drop = FALSE]
      supp_records <- supp_records | rowSums(hit) > 0
    }
    id <- if (!per_record && !detail)
      paste(c(levels[match(model_keys, lat$keys)], "|", which(supp_records)), collapse = ",")
    if (!is.null(id) && !is.null(fits[[id]])) return(fits[[id]])
    d <- base
    for (key in model_keys) {
      v <- match(key, lat$keys)
      if (!per_record) {
        if (levels[[v]] > 0L) d[[key]] <- column(key, levels[[v]])
        next
      }
      lv_rec <- levels[, v]
      if (all(lv_rec == 0L)) next
      x <- if (is.numeric(d[[key]]) && !is.object(d[[key]])) as.double(d[[key]])
           else as.character(d[[key]])
      for (lv in setdiff(unique(lv_rec), 0L)) {
        at <- lv_rec == lv
        x[at] <- if (is.factor(column(key, lv))) as.character(column(key, lv))[at]
                 else column(key, lv)[at]
      }
      d[[key]] <- if (is.character(x)) factor(x) else x
    }
    d <- d[!supp_records, , drop = FALSE]
    value <- loss_of(d, detail)
    if (!is.null(id)) fits[[id]] <- value
    value
  }, term = term, estimate = est_o)
}

# An analysis evaluator of the records (analysis_evaluator() on a lattice of
# the records) driven by a search on persons: levels per person (local
# recoding) and suppressed persons are spread over each person's records.
person_analysis <- function(evaluate, person) {
  structure(function(levels, supp_records, detail = FALSE, blank = NULL) {
    if (is.matrix(levels)) levels <- levels[person, , drop = FALSE]
    evaluate(levels, supp_records[person], detail = detail, blank = blank)
  }, term = attr(evaluate, "term"), estimate = attr(evaluate, "estimate"))
}

# ---- local recoding (ARX ARXResult.optimize) --------------------------------

# The records the global node suppresses are taken as a data set of their own
# and searched again under the same criteria (suppression limit a share of
# them, t-closeness against their own distribution); the records the new node
# releases are recoded at its levels and leave the suppressed set; repeated
# while a round recodes records. With the analysis loss, a round's nodes are
# ranked by the analysis loss of the whole release they would give.
# With persons (`unit_records`: the records of each person, data one row per
# person) the rounds count records and persons.
local_recoding <- function(data, keys, hierarchies, model, metric, lat, levels,
                           supp, sensitive, ordered, population, analysis,
                           unit_records = NULL, sets = NULL) {
  n <- length(supp)
  A <- length(keys)
  rec_levels <- matrix(as.integer(levels), n, A, byrow = TRUE)
  rounds <- list()
  repeat {
    idx <- which(supp)
    if (!length(idx)) break
    if (is.null(sets)) {
      sub <- data[idx, , drop = FALSE]
      lat_s <- lattice_build(sub, keys, hierarchies, sensitive, ordered)
      if (!is.null(model$k_map))
        lat_s$pop <- population_lattice(sub, population, keys, hierarchies)
    } else {
      # key sets (`sets`: the records and their persons): the records of the
      # suppressed persons, persons numbered as in idx
      rec <- sets$person %in% idx
      lat_s <- set_lattice_build(sets$data[rec, , drop = FALSE], keys, hierarchies,
                                 match(sets$person[rec], idx), sensitive, ordered,
                                 if (!is.null(model$k_map)) population, sets$pop_person)
    }
    round_analysis <- if (!is.null(analysis)) function(h, supp_s) {
      rl <- rec_levels
      rl[idx, ] <- rep(as.integer(h), each = length(idx))
      s <- supp
      s[idx] <- supp_s
      analysis(rl, s)
    }
    found <- lattice_search(lat_s, model, metric, analysis = round_analysis)
    if (!found$found) break
    supp_s <- node_suppressed_records(lat_s, found$levels, model)
    recoded <- idx[!supp_s]
    if (!length(recoded)) break
    rec_levels[recoded, ] <- rep(as.integer(found$levels), each = length(recoded))
    supp[recoded] <- FALSE
    rounds[[length(rounds) + 1L]] <- data.frame(
      round = length(rounds) + 1L, records = length(recoded),
      still_suppressed = sum(supp),
      levels = paste(found$levels, collapse = ","), stringsAsFactors = FALSE)
    if (!is.null(unit_records)) {
      r <- length(rounds)
      rounds[[r]]$persons <- rounds[[r]]$records
      rounds[[r]]$persons_still_suppressed <- rounds[[r]]$still_suppressed
      rounds[[r]]$records <- sum(unit_records[recoded])
      rounds[[r]]$still_suppressed <- sum(unit_records[supp])
    }
  }
  # the released keys, of the records with key sets
  src <- if (is.null(sets)) data else sets$data
  src_levels <- if (is.null(sets)) rec_levels else rec_levels[sets$person, , drop = FALSE]
  current <- stats::setNames(lapply(seq_len(A), function(v) {
    x <- src[[keys[[v]]]]
    lv <- src_levels[, v]
    if (all(lv == lv[[1L]])) return(apply_level(hierarchies[[keys[[v]]]], x, lv[[1L]]))
    out <- as.character(x)
    for (l in unique(lv)) {
      at <- lv == l
      out[at] <- as.character(apply_level(hierarchies[[keys[[v]]]], x[at], l))
    }
    out
  }), keys)
  list(levels = rec_levels, supp = supp, current = current,
       rounds = if (length(rounds)) do.call(rbind, rounds) else
         data.frame(round = integer(), records = integer(), still_suppressed = integer(),
                    levels = character()))
}

# The four losses of a release whose records carry their own levels (local
# recoding), on the scale of methods vignette section 16: per record and key, the precision
# share and the entropy -log2 P(original | generalized value), the groups of
# a level counted over all records; suppressed records as fully generalized
# (or at their levels, suppressed_loss = "node").
record_level_losses <- function(lat, rec_levels, supp, model, class_sizes) {
  n <- lat$n
  A <- length(lat$keys)
  top_charge <- !identical(model$charge, "node")
  share <- 0
  entropy <- 0
  # key sets: precision and entropy over the person-tuples, each at its
  # person's levels (generalize-ola-sets.R)
  loss_rows <- if (isTRUE(lat$sets)) lat$loss_unit else seq_len(n)
  n_loss <- length(loss_rows)
  for (v in seq_len(A)) {
    part <- lat$key[[v]]
    h <- rec_levels[loss_rows, v]
    if (top_charge) h[supp[loss_rows]] <- part$top
    share <- share + sum(level_share(h, part$top[[1L]]))
    code_h <- vapply(seq_len(n_loss), function(i)
      part$level_codes[[h[[i]] + 1L]][part$code0[[i]]], integer(1))
    ng <- vapply(seq_len(n_loss), function(i) part$group_n[[h[[i]] + 1L]][code_h[[i]]],
                 numeric(1))
    entropy <- entropy + sum(log2(ng) - log2(part$n_value[part$code0]))
  }
  s <- sum(supp)
  kept_classes <- length(class_sizes)
  c(entropy = entropy, precision = share / (n_loss * A),
    discernibility = if (top_charge) sum(as.double(class_sizes)^2) + as.double(n) * s
                     else sum(as.double(class_sizes)^2) + as.double(s)^2,
    avg_class_size = if (top_charge) {
      if (n > s) ((n - s) / kept_classes) / model$k else n / model$k
    } else n / (kept_classes + (s > 0)) / model$k)
}
