# k-map as a risk criterion (methods vignette, sections 7 and 20; El Emam &
# Dankar 2008): every released class matches at least k persons of the
# population the data are a sample of. Counted against a population table
# (class-local, rolled up in C at every lattice node), or, with a sampling
# fraction alone (population_model()), ARX's derived k (criteria/KMap.java):
# k-anonymity with that k, monotone, searched with predictive tagging. Its
# value on a release is the journalist risk 1 / min F (or the marketer risk).

#' k-map as a risk criterion
#'
#' Every equivalence class of the released keys matches at least `k` persons
#' of the population the data are a sample of (El Emam & Dankar 2008): the
#' journalist risk \eqn{1 / \min_j F_j} is at most \eqn{1 / k} (methods
#' vignette, sections 7 and 20).
#'
#' **The population** is either a table (`population` a data frame of the
#' population's key values, one row per person, or one per combination with
#' `pop_count`, as for [risk_kanon()]; with a person column `id` it may hold
#' it, and its persons' key sets are then matched to the classes' sets), or
#' a [population_model()] giving the sampling fraction \eqn{\pi}. With a
#' table the search counts, at each lattice node, the population persons of
#' each class (rolled up from the population's distinct key patterns). With
#' a sampling fraction alone the search uses ARX's derived k
#' (criteria/KMap.java, arx-deidentifier/arx commit 8b7bc54): with
#' \eqn{\lambda = \pi k} and \eqn{c} the smallest count such that
#' \eqn{P(X \le c) \ge 1 - \alpha} for \eqn{X \sim Poisson(\lambda)}
#' (`estimator = "poisson"`, \eqn{c \ge 0}) or for its zero-truncated form
#' (\eqn{c \ge 1}), the derived k is ARX's \eqn{c + 2} (Poisson) or
#' \eqn{c + 1} (zero-truncated), capped at `k` and at the number of records
#' (persons); the release is then made k-anonymous for it, a monotone
#' criterion. Without a table, the value on a release is the journalist risk
#' of the crude estimate \eqn{F_j = f_j / \pi} (or of the sums of the
#' sampling `weights`).
#'
#' @param k The smallest number of population persons per released class.
#' @param population A data frame of the population's key values (see
#'   Details), or a [population_model()].
#' @param alpha,estimator With a [population_model()]: the significance level
#'   (ARX's default 0.01) and the distribution of a population class's count
#'   in the sample (`"poisson"`, ARX's default, or `"zero_truncated"`).
#' @param measure The value on the risk scale: `"journalist"` (\eqn{1 / \min
#'   F_j}) or `"marketer"` (\eqn{(1/n) \sum_j f_j / F_j}, the expected share
#'   of records a marketer re-identifies).
#' @param keys `NULL` (the keys of the call) or the keys to count over.
#' @param weights `NULL`, or (with a [population_model()]) sampling weights
#'   of the records (a column name): \eqn{F_j} their sum in class \eqn{j}.
#' @param pop_count `NULL`, or the column of `population` counting the people
#'   with each combination of key values.
#' @return A risk criterion of class `c("risk_k_map", "risk_criterion")`.
#' @family risk criteria
#' @examples
#' set.seed(1)
#' people <- data.frame(sex = sample(c("f", "m"), 300, TRUE),
#'                      zip = sample(c("02138", "02139", "02141"), 300, TRUE),
#'                      age = sample(20:69, 300, TRUE))
#' population <- people[sample(300, 3000, TRUE), ]
#' h <- list(sex = hierarchy_flat(), zip = hierarchy_zip(),
#'           age = hierarchy_numeric(c(5, 10, 20)))
#' ola(people, c("sex", "zip", "age"), h,
#'     criteria = list(k_anonymity(2), k_map(10, population)))
#' # a sampling fraction alone: ARX's derived k
#' ola(people, c("sex", "zip", "age"), h,
#'     criteria = list(k_anonymity(2), k_map(50, population_model(0.1))))
#' @export
k_map <- function(k, population, alpha = 0.01, estimator = c("poisson", "zero_truncated"),
                  measure = c("journalist", "marketer"), keys = NULL, weights = NULL,
                  pop_count = NULL) {
  k <- check_count(k)
  if (missing(population) || is.null(population))
    abort_value("population", "a data frame of the population's key values or a population_model()")
  model <- inherits(population, "epimask_population_model")
  if (!model) {
    if (is.matrix(population)) population <- as.data.frame(population, stringsAsFactors = FALSE)
    if (!is.data.frame(population))
      abort_type("population", "a data frame of the population's key values, or a population_model()")
    if (!nrow(population)) abort_empty("population")
  }
  estimator <- check_choice(estimator, c("poisson", "zero_truncated"))
  alpha <- check_number(alpha, lower = 0, upper = 1, lower_open = TRUE, upper_open = TRUE)
  measure <- check_choice(measure, c("journalist", "marketer"))
  if (!is.null(weights) && !model)
    abort_value("weights", "NULL with a population table (the table gives the population sizes)")
  pop_count <- check_string(pop_count, allow_null = TRUE)
  label <- if (model) sprintf("k-map %d at sampling fraction %s", k, format(population$pi))
           else sprintf("k-map %d", k)
  if (measure == "marketer") label <- paste(label, "(marketer risk)")
  new_risk_criterion("k_map", k = k, population = population, alpha = alpha,
                     estimator = estimator, measure = measure, weights = weights,
                     pop_count = pop_count, model = model, keys = keys,
                     label = label, bound = if (measure == "journalist") 1 / k else NA_real_,
                     # with a table the classes failing k-map are not monotone
                     # under the suppression of the classes smaller than k
                     monotone = model,
                     explanation = paste("Journalist risk: one over the number of persons of",
                                         "the population in the smallest released class;",
                                         "met when every class matches at least k of them."))
}

#' @export
criterion_prepare.risk_k_map <- function(criterion, data, keys = NULL, id = NULL, ...) {
  criterion <- criterion_prepare.default(criterion, data, keys = keys, id = id)
  keys <- criterion$keys %||% keys
  if (criterion$model) {
    # ARX's derived k, capped at the number of units counted (persons with a
    # person column)
    person <- generalize_persons(data, id)
    n <- if (is.null(person)) nrow(data) else max(person)
    criterion$derived_k <- kmap_derived_k(criterion$k, criterion$population$pi, criterion$alpha,
                                          criterion$estimator, n)
    return(criterion)
  }
  if (is.null(keys)) abort_value("keys", "the keys k-map counts over")
  # a population table with the person column: its persons' key sets
  criterion$pop_person <- population_persons(criterion$population, id)
  criterion$population_checked <- check_population(criterion$population, keys, data)
  criterion
}

#' @export
criterion_evaluate.risk_k_map <- function(criterion, release, original = NULL, keys = NULL,
                                          id = NULL, generalize = NULL, ...) {
  na <- classes_not_counted(criterion, release, keys, "k-map")
  if (!is.null(na)) return(na)
  unit <- if (is.null(id)) "records" else "persons"
  res <- tryCatch({
    if (criterion$model) {
      risk_kanon(release, keys, pi = criterion$population$pi, weights = criterion$weights,
                 id = id)
    } else {
      pop <- criterion$population
      # the population at the release's generalization, when the release is
      # generalized (ola(), deidentify())
      if (is.function(generalize)) pop <- generalize(pop)
      risk_kanon(release, keys, population = pop,
                 pop_count = if (is.null(id)) criterion$pop_count, id = id)
    }
  }, epimask_error = function(e) e)
  if (inherits(res, "error"))
    return(new_criterion_result(criterion, NA_real_, unit = unit,
                                note = sprintf("not computed: %s", conditionMessage(res))))
  new_criterion_result(criterion,
                       if (criterion$measure == "journalist") res$journalist_risk
                       else res$marketer_risk, detail = res, unit = unit)
}

# With a table: the classes matching fewer than k population persons fail.
# With a sampling fraction: the classes smaller than the derived k.
#' @export
criterion_classes.risk_k_map <- function(criterion, node, ...) {
  if (criterion$model) return(node$size < criterion$derived_k)
  pop_class_count(node$lat, node$levels, node$class_codes, criterion$pop) < criterion$k
}

#' @export
criterion_min_size.risk_k_map <- function(criterion) {
  if (criterion$model) criterion$derived_k %||% 1L else 1L
}

#' @exportS3Method criterion_blanks_ok risk_k_map
criterion_blanks_ok.risk_k_map <- function(criterion) isTRUE(criterion$model)

# The population table coded like the lattice's data (its key sets with
# persons), for pop_class_count().
#' @exportS3Method criterion_bind risk_k_map
criterion_bind.risk_k_map <- function(criterion, lat) {
  if (criterion$model) return(criterion)
  keys <- lat$keys
  criterion$pop <- if (isTRUE(lat$sets))
    set_population_lattice(lat$units, criterion$population_checked, keys, lat$hierarchies,
                           criterion$pop_person)
  else population_lattice(lat$units, criterion$population_checked, keys, lat$hierarchies)
  criterion
}

# A population table with the person column makes the search run on key sets.
#' @exportS3Method criterion_key_sets risk_k_map
criterion_key_sets.risk_k_map <- function(criterion) !is.null(criterion$pop_person)

#' @exportS3Method criterion_search_text risk_k_map
criterion_search_text.risk_k_map <- function(criterion, result = NULL) {
  if (!criterion$model) return(format(criterion))
  sprintf("k-map %d at sampling fraction %s (ARX's derived k = %d, %s, alpha %s)",
          criterion$k, format(criterion$population$pi), criterion$derived_k,
          if (criterion$estimator == "poisson") "Poisson" else "zero-truncated Poisson",
          format(criterion$alpha))
}

#' @exportS3Method criterion_legacy_field risk_k_map
criterion_legacy_field.risk_k_map <- function(criterion, result = NULL) {
  if (!criterion$model) return(list(k_map = criterion$k))
  list(k_map_model = list(k_map = criterion$k, pi = criterion$population$pi,
                          alpha = criterion$alpha, estimator = criterion$estimator,
                          derived_k = criterion$derived_k))
}

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
pop_class_count <- function(lat, levels, class_codes, pp) {
  if (!is.null(attr(class_codes, "sets")))
    return(set_pop_count(lat, levels, attr(class_codes, "sets"), pp))
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

# The population's persons as a set table of its value codes (k-map with key
# sets): population_lattice()'s maps and translations, and each population
# person's set of tuples (one row per person when pop_person is NULL).
set_population_lattice <- function(units, population, keys, hierarchies, pop_person) {
  pp <- population_lattice(units, population, keys, hierarchies)
  m <- nrow(population)
  codes <- vapply(keys, function(key) {
    x <- population[[key]]
    match(x, unique(x))
  }, integer(m))
  dim(codes) <- c(m, length(keys))
  if (is.null(pop_person)) pop_person <- seq_len(m)
  Q <- max(pop_person)
  pp$sets <- set_table_group(codes, pop_person, rep(1, m), rep(1, Q), matrix(0L, Q, 0L),
                             seq_len(Q))
  pp$n <- Q
  pp
}

# k-map with key sets: the population persons whose generalized key set equals
# each class's set (a class whose set holds a value no one in the population
# has matches none).
set_pop_count <- function(lat, levels, sets, pp) {
  A <- length(levels)
  pnode <- set_table_rollup(pp$sets, lapply(seq_len(A), function(v)
    pp$map[[v]][[levels[[v]] + 1L]]))
  tab <- sets$table
  n_cls <- sets$n_cls
  rows <- which(tab$group %in% match(seq_len(n_cls), sets$class))
  cl <- sets$class[tab$group[rows]]
  tr <- vapply(seq_len(A), function(v)
    pp$translate[[v]][[levels[[v]] + 1L]][tab$codes[rows, v]], integer(length(rows)))
  dim(tr) <- c(length(rows), A)
  known <- rep(TRUE, n_cls)
  known[cl[rowSums(is.na(tr)) > 0L]] <- FALSE
  out <- numeric(n_cls)
  K <- sum(known)
  if (!K || !length(pnode$count)) return(out)
  keep <- known[cl]
  renum <- cumsum(known)
  Gp <- length(pnode$count)
  both <- set_table_group(
    rbind(tr[keep, , drop = FALSE], pnode$codes),
    c(renum[cl[keep]], K + pnode$group), rep(1, sum(keep) + length(pnode$group)),
    c(rep(0, K), pnode$count), matrix(0L, K + Gp, 0L), seq_len(K + Gp))
  out[known] <- both$count[both$of_bottom[seq_len(K)]]
  out
}

# Records with persons: can ola()'s one-row-per-person lattice take them, or
# do some persons (of the data, or of a population table with the person
# column) hold several key tuples?
population_persons <- function(population, id) {
  if (!is.data.frame(population) || !length(id) || !all(id %in% names(population)))
    return(NULL)
  for (col in id) check_person_id(col, population, arg = "id", data_arg = "population")
  pop_person <- key_groups(population, id)$group
  if (max(pop_person) == nrow(population)) NULL else pop_person
}
