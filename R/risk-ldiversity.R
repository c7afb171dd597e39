# Attribute disclosure (methods vignette section 12): l-diversity (distinct, entropy,
# recursive (c, l)) and t-closeness (earth mover's distance) of the sensitive
# values within the equivalence classes of the keys. Classes come from the
# hashed counts of src/freq.c; the per-class statistics from src/diversity.c
# (the implementation the lattice search uses too), over the (class,
# sensitive value) pairs only, so that work and memory stay O(n log m) and
# O(n) however many classes and values there are.

#' l-diversity of sensitive variables
#'
#' Groups the records into equivalence classes (ECs) on the quasi-identifiers
#' `keys` and measures how diverse the values of each sensitive variable are
#' within a class (Machanavajjhala et al. 2007): an intruder who knows a
#' person's keys learns the sensitive value when the class holds one value
#' only (attribute disclosure), even if the class is large (k-anonymous).
#'
#' With \eqn{r_1 \ge r_2 \ge \dots \ge r_m} the counts of the \eqn{m} distinct
#' values of the sensitive variable in EC \eqn{j} of size \eqn{f_j}:
#' \describe{
#'   \item{distinct l}{\eqn{l_j = m};}
#'   \item{entropy l}{\eqn{l_j = \exp(-\sum_s p_s \log p_s)}, \eqn{p_s = r_s / f_j}
#'     (between 1 and \eqn{m}; small when one value dominates);}
#'   \item{recursive (c, l)}{EC \eqn{j} satisfies it when
#'     \eqn{r_1 < c (r_l + r_{l+1} + \dots + r_m)} (terms past \eqn{m} are 0);
#'     `recursive` is the largest such \eqn{l}, and 1 when no \eqn{l > 1}
#'     qualifies.}
#' }
#' The data's l of each kind is the minimum over the classes. Several
#' sensitive variables are measured one at a time.
#'
#' `NA` is a category of its own, in the keys (as in [risk_kanon()]) and in
#' the sensitive values (an `NA` is a value an intruder learns too).
#'
#' @param data A data frame (tibble and data.table accepted) or a matrix.
#' @param keys Character vector: the quasi-identifier columns.
#' @param sensitive Character vector: the sensitive columns (not among `keys`).
#' @param c The constant of recursive (c, l)-diversity, a number > 0.
#' @param id `NULL` (one record per person) or the name of the person column
#'   when a person has several records: then the classes are of persons (a
#'   person's key is the set of their records' key tuples, as in
#'   [risk_kanon()]), and a sensitive variable that varies within a person
#'   takes the person's set of distinct values as their value (the sets joined
#'   by `"|"`, unordered); sizes count persons and `group` repeats the
#'   person's class on each record.
#' @return An object of class `epimask_ldiversity`, a list with
#'   \item{classes}{one row per EC (in order of first appearance): the key
#'     values, `size`, and for each sensitive variable `distinct`, `entropy`,
#'     `recursive` (named `distinct_<variable>` etc. when there are several
#'     sensitive variables).}
#'   \item{distinct_l, entropy_l, recursive_l}{named by sensitive variable:
#'     the minimum over the classes.}
#'   \item{group}{the EC (row of `classes`) of each record.}
#'   and `keys`, `sensitive`, `c`, `n`, `n_classes`.
#' @references Machanavajjhala A, Kifer D, Gehrke J, Venkitasubramaniam M
#'   (2007). l-diversity: privacy beyond k-anonymity. ACM TKDD 1(1):3.
#' @family risk measures
#' @seealso [risk_tcloseness()], [risk_kanon()].
#' @examples
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' l <- risk_ldiversity(d, keys = c("city", "sex", "age10"), sensitive = "case")
#' l
#' head(as.data.frame(l))
#' summary(l)
#' plot(l)
#' @export
risk_ldiversity <- function(data, keys, sensitive, c = 2, id = NULL) {
  data <- check_key_data(data, "data")
  keys <- check_columns(keys, data)
  sensitive <- check_sensitive(sensitive, keys, data)
  c <- check_number(c, lower = 0, lower_open = TRUE)
  id <- check_person_id(id, data, exclude = c(keys, sensitive))
  if (!is.null(id)) {
    p <- person_frame(data, keys, id, also = sensitive)
    res <- risk_ldiversity(p$data, keys, sensitive, c = c)
    return(person_result(res, p, "group"))
  }
  ec <- key_groups(data, keys)
  classes <- ec_table(data, keys, ec)
  stats <- lapply(sensitive, function(s) ldiversity_one(ec, data[[s]], c))
  names(stats) <- sensitive
  for (s in sensitive) {
    cols <- stats[[s]]
    names(cols) <- per_sensitive_names(names(cols), s, length(sensitive))
    classes[names(cols)] <- cols
  }
  minimum <- function(what) vapply(stats, function(x) min(x[[what]]), numeric(1))
  structure(list(
    classes = classes,
    distinct_l = minimum("distinct"),
    entropy_l = minimum("entropy"),
    recursive_l = minimum("recursive"),
    group = ec$group,
    keys = keys, sensitive = sensitive, c = c,
    n = nrow(data), n_classes = length(ec$size)
  ), class = "epimask_ldiversity")
}

# Statistics columns per sensitive variable: plain with one, suffixed with more.
per_sensitive_names <- function(stat, s, n_sensitive) {
  if (n_sensitive == 1L) stat else paste0(stat, "_", s)
}

check_sensitive <- function(sensitive, keys, data) {
  sensitive <- check_columns(sensitive, data, "sensitive")
  both <- intersect(sensitive, keys)
  if (length(both))
    abort_value("sensitive", sprintf("columns other than the keys; %s is a key",
                                     paste0("'", both, "'", collapse = ", ")))
  if (anyDuplicated(sensitive)) abort_value("sensitive", "distinct column names")
  clash <- intersect(keys, c("size", "distinct", "entropy", "recursive", "emd"))
  if (length(clash))
    abort_value("keys", sprintf("key columns not named %s (names used by the class table)",
                                paste0("'", clash, "'", collapse = ", ")))
  sensitive
}

# EC table: key values of each class (from its first record) and its size.
ec_table <- function(data, keys, ec) {
  group <- ec$group
  # Groups are numbered by first appearance, so a record opens a new group
  # exactly where the running maximum of the ids rises.
  first <- which(group > c(0L, cummax(group)[-length(group)]))
  out <- lapply(keys, function(key) data[[key]][first])
  names(out) <- keys
  out <- as.data.frame(out, stringsAsFactors = FALSE, optional = TRUE)
  names(out) <- keys
  out$size <- ec$size
  out
}

# Sensitive values as codes 1..m (NA a code of its own); with `ordered`, the
# codes follow the order of the values (numbers, factor levels, else sorted
# strings), NA last.
sensitive_codes <- function(x, ordered = FALSE) {
  if (is.list(x)) abort_type("sensitive", "atomic columns (not lists)")
  if (!ordered) {
    v <- key_values(x)
    return(match(v, unique(v)))
  }
  if (is.factor(x)) {
    codes <- as.integer(x)
    codes[is.na(codes)] <- nlevels(x) + 1L
    # only the values present count as the m ordered values
    return(match(codes, sort(unique(codes))))
  }
  v <- unclass(x)
  if (is.logical(v)) v <- as.integer(v)
  u <- sort(unique(v[!is.na(v)]), method = "radix")
  codes <- match(v, u)
  codes[is.na(codes)] <- length(u) + 1L
  codes
}

# Distinct l, entropy l, recursive (c, l) (c > 0) and the EMD to q (q not
# NULL; ordered or equal ground distance) of each class, for one sensitive
# variable: the one implementation is diversity_classes() of src/diversity.c.
# Rows are records (count NULL) or the rows of a class table (count the
# records behind each); class in 1..n_classes, value in 1..m.
class_diversity <- function(class, value, n_classes, m, count = NULL, q = NULL,
                            ordered = FALSE, c = 0, arg = "sensitive") {
  call_c(C_diversity, list(
    class = class, value = value, count = if (is.null(count)) double() else as.double(count),
    n_classes = as.integer(n_classes), m = as.integer(m),
    q = if (is.null(q)) double() else as.double(q), ordered = as.integer(ordered),
    c = as.double(c)), arg = arg)
}

ldiversity_one <- function(ec, x, c) {
  codes <- sensitive_codes(x)
  d <- class_diversity(ec$group, codes, length(ec$size), max(0L, codes), c = c)
  data.frame(distinct = as.integer(d$distinct), entropy = d$entropy_l,
             recursive = as.integer(d$recursive))
}

#' t-closeness of sensitive variables
#'
#' The earth mover's distance (EMD) between the distribution of a sensitive
#' variable within each equivalence class of the `keys` and its distribution
#' over all records (Li, Li & Venkatasubramanian 2007): a class whose
#' distribution is far from the overall one tells an intruder something about
#' its members even when it is diverse.
#'
#' With \eqn{Q} the overall distribution and \eqn{P_j} that of EC \eqn{j} over
#' the \eqn{m} distinct values of the variable in the data:
#' ordered values (numbers, ordered factors, and the variables named in
#' `ordered`; ranks \eqn{1..m}, ground distance \eqn{|i - k| / (m - 1)}):
#' \deqn{EMD_j = \frac{1}{m - 1} \sum_{i=1}^{m} \left| \sum_{k=1}^{i}
#'   (p_{jk} - q_k) \right|}{EMD_j = 1/(m-1) sum_i |sum_{k <= i} (p_jk - q_k)|}
#' (0 when \eqn{m = 1}); unordered values (equal ground distance):
#' \eqn{EMD_j = \frac{1}{2} \sum_k |p_{jk} - q_k|}. The data's \eqn{t} is the
#' maximum over the classes; they are t-close for any threshold at least that.
#'
#' `NA` is a category of its own in the keys and the sensitive values; for an
#' ordered variable it comes after the largest value. Numbers are ordered by
#' value, factors by their levels, other values by sorting (C locale).
#'
#' @inheritParams risk_ldiversity
#' @param ordered `NULL` (numeric variables and ordered factors are ordered,
#'   others not) or a character vector naming exactly the sensitive variables
#'   to treat as ordered.
#' @return An object of class `epimask_tcloseness`, a list with
#'   \item{classes}{one row per EC: the key values, `size` and `emd` (or
#'     `emd_<variable>` for each of several sensitive variables).}
#'   \item{t}{named by sensitive variable: the maximum EMD over the classes.}
#'   \item{ordered}{named logical: whether each variable was taken as ordered.}
#'   and `group`, `keys`, `sensitive`, `n`, `n_classes`.
#' @references Li N, Li T, Venkatasubramanian S (2007). t-closeness: privacy
#'   beyond k-anonymity and l-diversity. Proc. IEEE ICDE, 106-115.
#' @family risk measures
#' @seealso [risk_ldiversity()].
#' @examples
#' d <- dose_cohort
#' d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
#' tc <- risk_tcloseness(d, keys = c("city", "sex", "age10"),
#'                       sensitive = c("dose", "case"))
#' tc
#' summary(tc)
#' plot(tc)
#' @export
risk_tcloseness <- function(data, keys, sensitive, ordered = NULL, id = NULL) {
  data <- check_key_data(data, "data")
  keys <- check_columns(keys, data)
  sensitive <- check_sensitive(sensitive, keys, data)
  id <- check_person_id(id, data, exclude = c(keys, sensitive))
  if (!is.null(id)) {
    p <- person_frame(data, keys, id, also = sensitive)
    # a variable that varies within a person is the person's set of values:
    # unordered whatever its type
    if (is.null(ordered))
      ordered <- Filter(function(s) is.ordered(data[[s]]) ||
                          (is.numeric(data[[s]]) && !is.factor(data[[s]])), sensitive)
    if (is.character(ordered)) ordered <- setdiff(ordered, p$set_coded)
    res <- risk_tcloseness(p$data, keys, sensitive, ordered = ordered)
    return(person_result(res, p, "group"))
  }
  if (is.null(ordered)) {
    is_ord <- vapply(data[sensitive], function(x)
      is.ordered(x) || (is.numeric(x) && !is.factor(x)), logical(1))
  } else {
    if (!is.character(ordered) || anyNA(ordered))
      abort_type("ordered", "NULL or a character vector of sensitive variables")
    stray <- setdiff(ordered, sensitive)
    if (length(stray)) abort_name("ordered", stray, "`sensitive`")
    is_ord <- sensitive %in% ordered
  }
  names(is_ord) <- sensitive
  ec <- key_groups(data, keys)
  classes <- ec_table(data, keys, ec)
  emd <- lapply(sensitive, function(s) emd_one(ec, data[[s]], is_ord[[s]]))
  names(emd) <- sensitive
  for (s in sensitive) classes[[per_sensitive_names("emd", s, length(sensitive))]] <- emd[[s]]
  structure(list(
    classes = classes,
    t = vapply(emd, max, numeric(1)),
    ordered = is_ord,
    group = ec$group,
    keys = keys, sensitive = sensitive,
    n = nrow(data), n_classes = length(ec$size)
  ), class = "epimask_tcloseness")
}

# EMD of every class for one sensitive variable (src/diversity.c).
emd_one <- function(ec, x, ordered) {
  codes <- sensitive_codes(x, ordered)
  m <- max(0L, codes)
  q <- tabulate(codes, m) / length(codes)
  class_diversity(ec$group, codes, length(ec$size), m, q = q, ordered = ordered)$emd
}

# ---- methods -----------------------------------------------------------------

#' @rdname risk_ldiversity
#' @param x,object An `epimask_ldiversity` object.
#' @param digits Significant digits shown.
#' @param ... Passed on to [graphics::barplot()] by `plot()`; unused otherwise.
#' @details `summary()` counts the classes and records by distinct l (the
#'   records of classes with l = 1 have their sensitive value disclosed to
#'   anyone who knows their keys); `plot()` draws the records by the distinct
#'   l of their class, classes below `l` in red.
#' @export
print.epimask_ldiversity <- function(x, digits = 3, ...) print_formatted(x, digits = digits)

#' @rdname risk_ldiversity
#' @export
format.epimask_ldiversity <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  head <- sprintf("l-diversity: %s in %d equivalence classes of %s",
                  unit_count(x), x$n_classes, paste(x$keys, collapse = ", "))
  lines <- lapply(x$sensitive, function(s) {
    d <- ldiversity_column(x, "distinct", s)
    # classes of one value: of one record (already identified by the keys)
    # or of several (their common value disclosed without identifying anyone)
    homogeneous <- d == 1
    shared <- homogeneous & x$classes$size > 1
    c(sprintf("  %s: distinct l %d, entropy l %s, recursive (c = %s) l %d;",
              s, as.integer(x$distinct_l[[s]]), format(signif(x$entropy_l[[s]], digits)),
              format(x$c), as.integer(x$recursive_l[[s]])),
      sprintf("    %d %s in %d classes with one value (%d %s in %d such classes of 2 or more)",
              as.integer(sum(x$classes$size[homogeneous])), unit_name(x), sum(homogeneous),
              as.integer(sum(x$classes$size[shared])), unit_name(x), sum(shared)))
  })
  c(head, unlist(lines))
}

ldiversity_column <- function(x, stat, s) {
  x$classes[[per_sensitive_names(stat, s, length(x$sensitive))]]
}

#' @rdname risk_ldiversity
#' @param row.names,optional Ignored.
#' @export
as.data.frame.epimask_ldiversity <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$classes
}

#' @rdname risk_ldiversity
#' @export
summary.epimask_ldiversity <- function(object, ...) {
  by_l <- lapply(object$sensitive, function(s) {
    d <- ldiversity_column(object, "distinct", s)
    tab <- data.frame(distinct_l = sort(unique(d)))
    tab$classes <- tabulate(match(d, tab$distinct_l), nrow(tab))
    tab$records <- as.vector(rowsum(as.double(object$classes$size), match(d, tab$distinct_l),
                                    reorder = TRUE))
    tab$share_of_records <- tab$records / object$n
    tab
  })
  names(by_l) <- object$sensitive
  structure(list(ldiversity = object, by_distinct_l = by_l), class = "summary.epimask_ldiversity")
}

#' @rdname risk_ldiversity
#' @export
format.summary.epimask_ldiversity <- function(x, digits = 3, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    print(x$ldiversity, digits = digits)
    for (s in names(x$by_distinct_l)) {
      print_titled_table(sprintf("Classes and records by distinct l of '%s':", s),
                         x$by_distinct_l[[s]], digits, "share_of_records")
    }
  })
}

#' @export
print.summary.epimask_ldiversity <- function(x, ...) print_formatted(x, ...)

#' @rdname risk_ldiversity
#' @param y Unused.
#' @param l Threshold drawn: classes of distinct l below it in red.
#' @param which The sensitive variable shown (default the first).
#' @export
plot.epimask_ldiversity <- function(x, y = NULL, l = 2, which = x$sensitive[[1L]], ...) {
  l <- check_number(l, lower = 1)
  which <- check_choice(which, x$sensitive, "which")
  d <- ldiversity_column(x, "distinct", which)
  records <- rowsum(as.double(x$classes$size), d, reorder = TRUE)
  values <- as.integer(rownames(records))
  cols <- ifelse(values < l, "firebrick", "grey60")
  graphics::barplot(records[, 1L], names.arg = values, col = cols, border = NA,
                    ylim = c(0, 1.15 * max(records)),
                    xlab = sprintf("distinct values of '%s' in the class (distinct l)", which),
                    ylab = "records", main = "l-diversity", ...)
  graphics::legend("topright", fill = c("firebrick", "grey60"), border = NA, bty = "n",
                   legend = c(sprintf("below l = %s", format(l)), "l or more"))
  invisible(stats::setNames(records[, 1L], values))
}

#' @rdname risk_tcloseness
#' @param x,object An `epimask_tcloseness` object.
#' @param digits Significant digits shown.
#' @param ... Passed on to [graphics::hist()] by `plot()`; unused otherwise.
#' @details `summary()` gives the quantiles of the class EMDs and the records
#'   in classes above common thresholds (0.1, 0.2, 0.3); `plot()` draws the
#'   distribution of the EMD over the records.
#' @export
print.epimask_tcloseness <- function(x, digits = 3, ...) print_formatted(x, digits = digits)

#' @rdname risk_tcloseness
#' @export
format.epimask_tcloseness <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  head <- sprintf("t-closeness: %s in %d equivalence classes of %s",
                  unit_count(x), x$n_classes, paste(x$keys, collapse = ", "))
  lines <- vapply(x$sensitive, function(s) {
    e <- x$classes[[per_sensitive_names("emd", s, length(x$sensitive))]]
    worst <- which.max(e)
    sprintf("  %s (%s): t = %s (largest EMD, a class of %d %s); mean EMD over %s %s",
            s, if (x$ordered[[s]]) "ordered" else "unordered",
            format(signif(x$t[[s]], digits)), x$classes$size[worst], unit_name(x), unit_name(x),
            format(signif(sum(e * x$classes$size) / x$n, digits)))
  }, character(1))
  c(head, unname(lines))
}

#' @rdname risk_tcloseness
#' @param row.names,optional Ignored.
#' @export
as.data.frame.epimask_tcloseness <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$classes
}

#' @rdname risk_tcloseness
#' @export
summary.epimask_tcloseness <- function(object, ...) {
  thresholds <- c(0.1, 0.2, 0.3)
  rows <- lapply(object$sensitive, function(s) {
    e <- object$classes[[per_sensitive_names("emd", s, length(object$sensitive))]]
    data.frame(sensitive = s, t = max(e), median_class_emd = stats::median(e),
               records_above_0.1 = sum(object$classes$size[e > 0.1]),
               records_above_0.2 = sum(object$classes$size[e > 0.2]),
               records_above_0.3 = sum(object$classes$size[e > 0.3]))
  })
  structure(list(tcloseness = object, table = do.call(rbind, rows), thresholds = thresholds),
            class = "summary.epimask_tcloseness")
}

#' @rdname risk_tcloseness
#' @export
format.summary.epimask_tcloseness <- function(x, digits = 3, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    print(x$tcloseness, digits = digits)
    print_titled_table("Records in classes with an EMD above common thresholds:", x$table,
                       digits, c("t", "median_class_emd"))
  })
}

#' @export
print.summary.epimask_tcloseness <- function(x, ...) print_formatted(x, ...)

#' @rdname risk_tcloseness
#' @param y Unused.
#' @param t Threshold drawn as a vertical line.
#' @param which The sensitive variable shown (default the first).
#' @export
plot.epimask_tcloseness <- function(x, y = NULL, t = 0.2, which = x$sensitive[[1L]], ...) {
  t <- check_number(t, lower = 0, upper = 1)
  which <- check_choice(which, x$sensitive, "which")
  e <- x$classes[[per_sensitive_names("emd", which, length(x$sensitive))]]
  per_record <- rep(e, x$classes$size)
  h <- graphics::hist(per_record, breaks = seq(0, 1, by = 0.05), col = "grey60", border = "white",
                      xlab = sprintf("EMD of the class from the whole data ('%s')", which),
                      ylab = "records", main = "t-closeness", ...)
  graphics::abline(v = t, col = "firebrick", lwd = 2)
  invisible(h)
}
