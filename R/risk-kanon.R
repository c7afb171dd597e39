# k-anonymity risk (methods vignette section 7): equivalence classes on the quasi-identifiers
# (hashed counts in src/freq.c), prosecutor / journalist / marketer risk,
# k-anonymity and k-map checks, and the D3 / D4 hypothesis-test k' of
# El Emam & Dankar (2008).

#' k-anonymity re-identification risk
#'
#' Groups the records of `data` into equivalence classes (ECs) on the
#' quasi-identifiers `keys` and measures the re-identification risk under the
#' prosecutor, journalist and marketer scenarios (El Emam & Dankar 2008;
#' El Emam & Malin 2014).
#'
#' With \eqn{f_j} the sample size of EC \eqn{j}, \eqn{F_j} its population size,
#' \eqn{J} the number of ECs and \eqn{n} the number of records:
#' record (prosecutor) risk \eqn{1 / f_{j(i)}}; maximum risk \eqn{1 / \min f_j};
#' average risk \eqn{J / n}; strict average risk the average risk when
#' \eqn{\min f_j \ge 3} (no uniques or doubles), else the maximum risk;
#' journalist risk \eqn{1 / \min F_j} over the ECs present in the sample;
#' marketer risk \eqn{(1/n) \sum_j f_j / F_j}. The data are k-anonymous when
#' \eqn{\min f_j \ge k} and k-map when \eqn{\min F_j \ge k}.
#'
#' The D3 (Poisson) and D4 (zero-truncated Poisson) tests of El Emam & Dankar
#' give \eqn{k'}, the smallest EC size that rejects \eqn{H_0: F_j < k} at level
#' `alpha` when a sample with sampling fraction `pi` is drawn (see [k_prime()]);
#' the data pass D3 / D4 when \eqn{\min f_j \ge \min(k, k')}.
#'
#' The discernibility metric (Bayardo & Agrawal) is
#' \eqn{\sum_{f_j \ge k} f_j^2 + n \times} (records in ECs smaller than `k`):
#' records in classes smaller than `k` are charged as if suppressed.
#'
#' **Where the population sizes \eqn{F_j} come from**, in this order:
#' 1. `population`, a data frame with the key columns (the identification
#'    database or a population register). By default it holds one row per
#'    person; with `pop_count` naming a column of counts it holds one row per
#'    combination of key values (rows repeating a combination are added up).
#'    Every EC of the sample must occur in the population, at least as often as
#'    in the sample, else an error of class `epimask_error_value` naming
#'    `population` is raised.
#' 2. `weights`, sampling weights (inverse inclusion probabilities, each
#'    \eqn{\ge 1}) of the records: \eqn{F_j} is estimated by the sum of the
#'    weights in EC \eqn{j}.
#' 3. Otherwise the crude estimate \eqn{F_j = f_j / \pi} of a simple random
#'    sample with fraction `pi`; with the default `pi = 1` the data are the
#'    whole population and journalist risk equals the maximum risk.
#'
#' **Keys** may be character, factor (compared by label), logical, integer,
#' double, Date or date-time columns. `NA` in a key is a category of its own:
#' all records with `NA` in a key (and equal values in the other keys) form one
#' EC, and an `NA` in the population matches an `NA` in the sample.
#'
#' @param data A data frame (tibble and data.table accepted) or a matrix.
#' @param keys Character vector: the quasi-identifier columns.
#' @param population `NULL` or a data frame with the key columns (see Details).
#' @param pi Sampling fraction in (0, 1], used by the D3 / D4 tests and, without
#'   `population` or `weights`, to estimate the population EC sizes.
#' @param k Minimum EC size (threshold risk \eqn{1/k}), a whole number >= 1.
#' @param alpha Level of the D3 / D4 tests, in (0, 1).
#' @param weights `NULL`, the name of a column of `data`, or a numeric vector
#'   of length `nrow(data)`: sampling weights (each >= 1).
#' @param pop_count `NULL` (one row per person in `population`) or the name of
#'   a column of `population` holding the number of people with those key
#'   values.
#' @param id `NULL` (one record per person) or the name of the person column
#'   when a person has several records (visits, stays): then the person is
#'   the unit (see "Several records per person").
#' @section Several records per person:
#' With `id`, the records are collapsed to one row per person (methods vignette section 23):
#' a person's key is the set of the distinct key tuples of their records, an
#' equivalence class is a set of persons with the same key set, and every
#' count, size and risk is of persons (`n` is the number of persons,
#' `n_records` that of records). A person with 5 stays in a class alone is a
#' unique, not a class of 5. The per-record outputs (`record_risk`, `group`)
#' repeat the person's value on each of their records, `person` gives each
#' record's person. When some person has several distinct tuples, the class
#' table shows each key as the person's values over their tuples joined by
#' `"|"`. `weights` must be equal on all the records of a person; a
#' `population` must hold the person column too and is collapsed alike
#' (`pop_count` is then not used). The person column must have no `NA`.
#'
#' @return An object of class `epimask_kanon`, a list with
#'   \item{record_risk}{prosecutor risk \eqn{1/f} of each record, in row order.}
#'   \item{group}{the EC (row of `classes`) of each record.}
#'   \item{classes}{the EC table: the key values, `size` (\eqn{f_j}),
#'     `pop_size` (\eqn{F_j}), `risk` (\eqn{1/f_j}), `unique` and `double`
#'     flags; ECs in order of first appearance.}
#'   \item{max_risk, avg_risk, strict_avg_risk}{prosecutor risk measures.}
#'   \item{journalist_risk, marketer_risk}{from the population EC sizes.}
#'   \item{k_prime}{named integer `c(D3 =, D4 =)`, see [k_prime()].}
#'   \item{k_anonymous, k_map}{the k-anonymity and k-map checks.}
#'   \item{passes_k_prime}{named logical `c(D3 =, D4 =)`: \eqn{\min f_j \ge
#'     \min(k, k')}.}
#'   \item{discernibility}{the discernibility metric. The field was called
#'   `discernability` up to version 0.2.0; that name still works for one
#'   more release, with a warning of class `epimask_warning_deprecated`.}
#'   \item{n, n_classes, n_uniques, n_doubles}{counts of records and ECs.}
#'   \item{population_source}{`"population"`, `"weights"` or
#'     `"sampling fraction"`.}
#'   and the arguments `keys`, `k`, `pi`, `alpha`.
#' @references El Emam K, Dankar FK (2008). Protecting privacy using
#'   k-anonymity. JAMIA 15:627-637. El Emam K, Malin B (2014). Concepts and
#'   methods for de-identifying clinical trial data.
#' @seealso [datafly()] to generalize the data until they are k-anonymous,
#'   [k_prime()].
#' @family risk measures
#' @examples
#' trial <- data.frame(sex = c("M", "M", "F", "M", "F", "F", "M"),
#'                     yob = c(1959, 1969, 1955, 1959, 1955, 1975, 1959))
#' r <- risk_kanon(trial, c("sex", "yob"), k = 2)
#' r
#' r$classes
#' summary(r)
#' plot(r)
#' @export
risk_kanon <- function(data, keys, population = NULL, pi = 1, k = 5,
                       alpha = 0.1, weights = NULL, pop_count = NULL, id = NULL) {
  data <- check_key_data(data, "data")
  keys <- check_columns(keys, data)
  check_key_names(keys)
  id <- check_person_id(id, data, exclude = keys)
  if (!is.null(id)) {
    w <- check_sampling_weights(weights, data)
    p <- person_frame(data, keys, id, text = !is.null(population))
    if (!is.null(population)) {
      if (!is.null(pop_count)) abort_value("pop_count", "NULL when `id` is given (the population is one row per record of its persons)")
      population <- check_key_data(population, "population")
      check_person_id(id, population, arg = "id", data_arg = "population")
      check_columns(keys, population, "keys", data_arg = "population")
      population <- person_frame(population, keys, id, text = TRUE)$data
    }
    res <- risk_kanon(p$data, keys, population = population, pi = pi, k = k, alpha = alpha,
                      weights = person_weights(w, p))
    return(person_result(res, p, c("record_risk", "group"), data))
  }
  pi <- check_number(pi, lower = 0, upper = 1, lower_open = TRUE)
  k <- check_count(k)
  alpha <- check_number(alpha, lower = 0, upper = 1, lower_open = TRUE,
                        upper_open = TRUE)
  n <- nrow(data)

  if (!is.null(population)) {
    if (!is.null(weights))
      abort_value("weights", "NULL when `population` is given")
    ec <- groups_with_population(data, keys, population, pop_count)
    source <- "population"
  } else {
    ec <- key_groups(data, keys)
    w <- check_sampling_weights(weights, data)
    ec$pop_size <- if (is.null(w)) ec$size / pi else group_sums(w, ec$group, length(ec$size))
    source <- if (is.null(w)) "sampling fraction" else "weights"
  }

  classes <- class_table(data, keys, ec)
  f <- ec$size
  min_f <- min(f)
  kp <- k_prime(k, pi, alpha)
  avg <- length(f) / n
  max_risk <- 1 / min_f

  structure(list(
    record_risk = 1 / f[ec$group],
    group = ec$group,
    classes = classes,
    max_risk = max_risk,
    avg_risk = avg,
    strict_avg_risk = if (min_f >= 3) avg else max_risk,
    journalist_risk = 1 / min(ec$pop_size),
    marketer_risk = sum(f / ec$pop_size) / n,
    k_prime = kp,
    k_anonymous = min_f >= k,
    k_map = min(ec$pop_size) >= k,
    passes_k_prime = c(D3 = min_f >= min(k, kp[["D3"]]),
                       D4 = min_f >= min(k, kp[["D4"]])),
    discernibility = discernibility(f, k, n),
    n = n, n_classes = length(f), n_uniques = sum(f == 1L),
    n_doubles = sum(f == 2L),
    population_source = source,
    record_ids = record_ids(data),
    keys = keys, k = k, pi = pi, alpha = alpha
  ), class = "epimask_kanon")
}

#' The D3 / D4 minimum equivalence-class size k'
#'
#' El Emam & Dankar (2008) test \eqn{H_0: F_j < k} with the sample EC size
#' \eqn{f_j} following a Poisson distribution with mean \eqn{\lambda_0 = \pi k}
#' under the null. D3: \eqn{k' = \min\{x \ge 0 : P(X \ge x) \le \alpha\}},
#' \eqn{X \sim} Poisson(\eqn{\lambda_0}). D4 uses the zero-truncated Poisson,
#' \eqn{P(X = x \mid X \ge 1) = e^{-\lambda} \lambda^x / (x! (1 - e^{-\lambda}))},
#' with \eqn{x \ge 1}, since ECs absent from the sample are never seen. Both are
#' capped at `k`: a sample EC of size \eqn{\min(k, k')} or more passes.
#'
#' @param k Minimum EC size, a whole number >= 1.
#' @param pi Sampling fraction in (0, 1].
#' @param alpha Level of the test, in (0, 1).
#' @return Named integer vector `c(D3 =, D4 =)`.
#' @family risk measures
#' @examples
#' k_prime(5, pi = 0.1)   # D3 2, D4 3
#' k_prime(10, pi = 0.3)  # 6, 6
#' @export
k_prime <- function(k, pi, alpha = 0.1) {
  k <- check_count(k)
  pi <- check_number(pi, lower = 0, upper = 1, lower_open = TRUE)
  alpha <- check_number(alpha, lower = 0, upper = 1, lower_open = TRUE,
                        upper_open = TRUE)
  lambda <- pi * k
  c(D3 = poisson_tail_cut(lambda, alpha, k, truncated = FALSE),
    D4 = poisson_tail_cut(lambda, alpha, k, truncated = TRUE))
}

# The smallest x (capped at k) with P(X >= x) <= alpha for X ~ Poisson(lambda),
# or, truncated at zero (D4), P(X >= x | X >= 1) <= alpha with x >= 1. The
# tail falls as x grows, so the answer is found by bisection over [lowest, k]
# in O(log k) evaluations of the tail whatever k, lambda and alpha. (The
# quantile function it replaces returned Inf for a lambda so small that its
# tail probabilities underflow, pi = 5e-324, and the scan down from there never
# ended.) P(X >= 1 | X >= 1) = 1 exactly, so x = 1 never passes D4, whatever
# the rounding of the tail at a lambda near zero.
poisson_tail_cut <- function(lambda, alpha, k, truncated) {
  lowest <- if (truncated) 1 else 0
  norm <- if (truncated) -expm1(-lambda) else 1
  passes <- function(x) {
    if (truncated && x <= 1) return(FALSE)
    stats::ppois(x - 1, lambda, lower.tail = FALSE) / norm <= alpha
  }
  lo <- lowest
  hi <- k
  if (passes(lo)) return(as.integer(lo))
  if (!passes(hi)) return(as.integer(k))
  # passes(hi) and not passes(lo): the cut lies in (lo, hi]
  while (hi - lo > 1) {
    mid <- lo + (hi - lo) %/% 2
    if (passes(mid)) hi <- mid else lo <- mid
  }
  as.integer(hi)
}

# Discernibility (Bayardo & Agrawal 2005): each record is charged the size of
# its EC, a record in an EC smaller than k (to be suppressed) the whole n.
discernibility <- function(size, k, n) {
  big <- size >= k
  sum(as.double(size[big])^2) + as.double(n) * sum(as.double(size[!big]))
}

check_sampling_weights <- function(weights, data) {
  if (is.null(weights)) return(NULL)
  if (is.character(weights)) {
    weights <- check_string(weights)
    check_columns(weights, data, "weights")
    weights <- data[[weights]]
  }
  w <- check_numeric_vector(weights, "weights", len = nrow(data))
  if (any(w < 1))
    abort_value("weights", "sampling weights (inverse inclusion probabilities), each >= 1")
  w
}

# The EC table adds these columns after the keys.
class_stat_names <- c("size", "pop_size", "risk", "unique", "double")

check_key_names <- function(keys) {
  clash <- intersect(keys, class_stat_names)
  if (length(clash))
    abort_value("keys", sprintf(
      "key columns not named %s (names used by the equivalence-class table); rename %s",
      paste0("'", class_stat_names, "'", collapse = ", "),
      paste0("'", clash, "'", collapse = ", ")))
}

# ECs of the sample and their population sizes: the sample and population key
# codes share one code space and are grouped together, sample rows first, so
# sample ECs get the ids 1..J in order of first appearance.
groups_with_population <- function(data, keys, population, pop_count) {
  population <- check_key_data(population, "population")
  check_columns(keys, population, "keys", data_arg = "population")
  check_key_types(data, population, keys)
  counts <- population_counts(population, pop_count)
  codes <- key_codes(data, keys, population)
  both <- call_c(C_freq_group, list(codes = rbind(codes[[1L]], codes[[2L]])), arg = "keys")
  n <- nrow(data)
  group <- both$group[seq_len(n)]
  n_classes <- max(group)
  size <- tabulate(group, n_classes)
  pop_group <- both$group[-seq_len(n)]
  in_sample <- pop_group <= n_classes
  pop_size <- group_sums(counts[in_sample], pop_group[in_sample], n_classes)
  check_population_covers(pop_size, size, group, data, keys)
  list(group = group, size = size, pop_size = pop_size)
}

population_counts <- function(population, pop_count) {
  if (is.null(pop_count)) return(rep(1, nrow(population)))
  pop_count <- check_string(pop_count)
  check_columns(pop_count, population, "pop_count", data_arg = "population")
  counts <- check_numeric_vector(population[[pop_count]], "pop_count")
  if (any(counts < 0)) abort_value("pop_count", "a column of counts >= 0")
  counts
}

# Key columns compare by value only when they are of compatible kinds.
check_key_types <- function(data, population, keys) {
  kind <- function(x) {
    if (is.factor(x) || is.character(x)) return("character")
    if (inherits(x, "Date")) return("Date")
    if (inherits(x, "POSIXt")) return("date-time")
    if (is.numeric(x)) return("number")
    class(x)[[1L]]
  }
  for (key in keys) {
    a <- kind(data[[key]])
    b <- kind(population[[key]])
    if (a != b)
      abort_type("population", sprintf(
        "a data frame whose key column '%s' has the type of `data` (%s), not %s",
        key, a, b))
  }
}

check_population_covers <- function(pop_size, size, group, data, keys) {
  bad <- which(pop_size < size)
  if (!length(bad)) return(invisible())
  first <- match(bad[[1L]], group)
  shown <- paste(vapply(keys, function(key) format(data[[key]][first]), ""),
                 collapse = ", ")
  missing <- sum(pop_size[bad] == 0)
  abort_value("population", sprintf(paste0(
    "a population containing every equivalence class of the sample at least as ",
    "often as the sample; %d class(es) are missing and %d smaller than in the ",
    "sample, e.g. (%s)"), missing, length(bad) - missing, shown))
}

# EC table: key values of each class (from its first record), sizes, flags.
class_table <- function(data, keys, ec) {
  out <- ec_table(data, keys, ec)
  out$pop_size <- ec$pop_size
  out$risk <- 1 / ec$size
  out$unique <- ec$size == 1L
  out$double <- ec$size == 2L
  out
}

#' @rdname risk_kanon
#' @param x,object An `epimask_kanon` object.
#' @param digits Significant digits shown.
#' @param ... Passed on to [graphics::barplot()] by `plot()`; unused otherwise.
#' @details `summary()` gives the risk measures, the common thresholds
#'   (minimum cell sizes 3, 5, 11, 20; El Emam & Malin), the distribution of
#'   EC sizes and the per-record table of El Emam & Malin's Table 3 (ID, keys,
#'   probability of re-identification; see [as.data.frame.epimask_kanon()]).
#'   `plot()` draws a bar chart of the EC sizes, classes smaller than `k` in
#'   red, counting classes or records (`what`).
#' @export
format.epimask_kanon <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  fmt <- function(v) format(signif(v, digits))
  yes_no <- function(v) if (isTRUE(v)) "yes" else "no"
  c(sprintf("k-anonymity risk: %s, keys %s", unit_count(x), paste(x$keys, collapse = ", ")),
    sprintf("  %d equivalence classes; %d uniques, %d doubles; smallest class %d",
            x$n_classes, x$n_uniques, x$n_doubles, min(x$classes$size)),
    sprintf("  prosecutor risk: maximum %s, average %s, strict average %s",
            fmt(x$max_risk), fmt(x$avg_risk), fmt(x$strict_avg_risk)),
    sprintf("  journalist risk %s, marketer risk %s (population sizes from %s)",
            fmt(x$journalist_risk), fmt(x$marketer_risk), x$population_source),
    sprintf("  k = %d: k-anonymous %s, k-map %s", x$k, yes_no(x$k_anonymous), yes_no(x$k_map)),
    sprintf("  D3 / D4 (pi = %s, alpha = %s): k' = %d / %d, passes %s / %s",
            format(x$pi), format(x$alpha), x$k_prime[["D3"]], x$k_prime[["D4"]],
            yes_no(x$passes_k_prime[["D3"]]), yes_no(x$passes_k_prime[["D4"]])),
    sprintf("  discernibility %s", format(x$discernibility, big.mark = ",")))
}

#' @export
print.epimask_kanon <- function(x, ...) print_formatted(x, ...)

#' Per-record risk table
#'
#' The records with their key values and probability of re-identification, in
#' the layout of El Emam & Malin (2014), Table 3.
#'
#' @param x An `epimask_kanon` object from [risk_kanon()].
#' @param row.names,optional Ignored (the IDs are a column).
#' @param ... Unused.
#' @return A data frame with columns `ID`, the keys and `risk`.
#' @examples
#' r <- risk_kanon(data.frame(sex = c("M", "F", "M"), yob = c(1959, 1955, 1959)),
#'                 c("sex", "yob"))
#' as.data.frame(r)
#' @export
as.data.frame.epimask_kanon <- function(x, row.names = NULL, optional = FALSE, ...) {
  ids <- if (is.null(x$record_ids)) seq_along(x$group) else x$record_ids
  out <- x$classes[x$group, x$keys, drop = FALSE]
  out <- cbind(data.frame(ID = ids, stringsAsFactors = FALSE), out)
  out <- add_person_column(out, x)
  out$risk <- x$record_risk
  rownames(out) <- NULL
  out
}

#' @rdname risk_kanon
#' @export
summary.epimask_kanon <- function(object, ...) {
  measures <- data.frame(
    measure = c("maximum risk (prosecutor)", "average risk", "strict average risk",
                "journalist risk", "marketer risk"),
    value = c(object$max_risk, object$avg_risk, object$strict_avg_risk,
              object$journalist_risk, object$marketer_risk),
    stringsAsFactors = FALSE)
  # The cell-size thresholds in use (El Emam & Malin): 3, 5, 11, 20.
  cells <- c(3L, 5L, 11L, 20L)
  thresholds <- data.frame(
    min_class_size = cells, threshold = 1 / cells,
    maximum_risk_met = object$max_risk <= 1 / cells,
    strict_average_met = object$strict_avg_risk <= 1 / cells)
  sizes <- table(size = object$classes$size)
  structure(list(kanon = object, measures = measures, thresholds = thresholds,
                 class_sizes = sizes, records = as.data.frame(object)),
            class = "summary.epimask_kanon")
}

#' @rdname risk_kanon
#' @param n Number of records shown by the `summary()` print.
#' @export
format.summary.epimask_kanon <- function(x, n = 30L, digits = 3, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    n <- check_count(n, "n", lower = 0L)
    print(x$kanon, digits = digits)
    print_titled_table("Risk measures:", x$measures, digits, "value")
    print_titled_table("Common thresholds (minimum cell size 3, 5, 11, 20):", x$thresholds,
                       digits, "threshold")
    cat("\nEquivalence class sizes (number of classes):\n")
    print(x$class_sizes)
    rec <- x$records
    cat(sprintf("\nProbability of re-identification per record%s:\n",
                if (nrow(rec) > n) sprintf(" (first %d of %d)", n, nrow(rec)) else ""))
    rec <- utils::head(rec, n)
    rec$risk <- signif(rec$risk, digits)
    names(rec)[names(rec) == "risk"] <- "probability of re-identification"
    print(rec, row.names = FALSE)
  })
}

#' @export
print.summary.epimask_kanon <- function(x, ...) print_formatted(x, ...)

#' @rdname risk_kanon
#' @param y Unused.
#' @param what Bar heights: number of `"classes"` or of `"records"` per EC size.
#' @export
plot.epimask_kanon <- function(x, y = NULL, what = c("classes", "records"), ...) {
  what <- check_choice(what, c("classes", "records"))
  class_size_barplot(x$classes$size, x$k, what, unit = unit_name(x), ...)
}
