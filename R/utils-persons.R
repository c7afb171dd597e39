# Several records per person (methods vignette section 23): the person is the unit of risk.
# A risk measure given `id =` collapses its data to one row per person here
# (person_frame()), measures the persons, and spreads each person's values
# back over the person's records (person_result()). A person's key is the SET
# of the distinct key tuples of their records, coded canonically: with one
# tuple per person the person keeps the typed values; otherwise every key
# column holds the person's values over their distinct tuples, tuples sorted
# by their text, joined by "|" (so persons with the same set of tuples, and
# only they, have equal key columns).

# The person column: one column of `data` without NA, not among `exclude`.
check_person_id <- function(id, data, exclude = character(), arg = "id",
                            data_arg = "data") {
  if (is.null(id)) return(NULL)
  id <- check_string(id, arg)
  check_columns(id, data, arg, data_arg = data_arg)
  if (id %in% exclude)
    abort_value(arg, sprintf("a person column that is not also a key or variable measured ('%s' is)",
                             id))
  x <- data[[id]]
  if (is.list(x)) abort_type(arg, "the name of an atomic column (the person identifier)")
  bad <- sum(is.na(x))
  if (bad)
    abort_value(arg, sprintf(
      "a person column without missing values; '%s' has %d NA value%s (every record must belong to a known person)",
      id, bad, if (bad == 1L) "" else "s"))
  id
}

# Person of each record: integers 1..P in order of first appearance.
person_index <- function(x) {
  v <- key_values(x)
  match(v, unique(v))
}

# One key column as unambiguous text: values that cannot be told apart from
# the separator or from NA are escaped.
key_text <- function(x) {
  v <- if (is.factor(x)) as.character(x)
       else if (inherits(x, "Date")) format(x, "%Y-%m-%d")
       else if (inherits(x, "POSIXt")) format(as.POSIXct(x), "%Y-%m-%d %H:%M:%OS6", tz = "UTC")
       else if (is.double(x) && !is.object(x)) {
         plain <- as.character(x)
         exact <- is.na(x) | x == as.double(plain)
         ifelse(exact, plain, sprintf("%.17g", x))
       }
       else as.character(unclass(x))
  miss <- is.na(x) | is.na(v)
  v <- gsub("\\", "\\\\", v, fixed = TRUE)
  v <- gsub("|", "\\|", v, fixed = TRUE)
  v[!miss & v == "<NA>"] <- "\\<NA>"
  v[miss] <- "<NA>"
  v
}

# Rows that open a new group, groups numbered by first appearance.
first_of_groups <- function(group) {
  which(group > c(0L, cummax(group)[-length(group)]))
}

# One column of the person frame: the typed value when the column is
# constant within every person (and `text` is FALSE), else the person's set
# of distinct values (or of distinct tuples, for several keys) as text.
# Returns a list of columns named by `cols` and whether the set coding was used.
person_columns <- function(data, cols, person, n_persons, text = FALSE) {
  codes <- key_codes(data, cols)[[1L]]
  m <- cbind(person, codes)
  storage.mode(m) <- "integer"
  g <- call_c(C_freq_group, list(codes = m), arg = "keys")
  pfirst <- first_of_groups(g$group)
  per_person <- tabulate(person[pfirst], n_persons)
  first <- match(seq_len(n_persons), person)
  if (!text && all(per_person == 1L)) {
    out <- lapply(cols, function(col) data[[col]][first])
    return(list(columns = stats::setNames(out, cols), sets = FALSE, n_tuples = per_person))
  }
  pp <- person[pfirst]
  texts <- lapply(cols, function(col) key_text(data[[col]][pfirst]))
  ord <- do.call(order, c(list(pp), texts, list(method = "radix")))
  fac <- factor(pp[ord], levels = seq_len(n_persons))
  out <- lapply(texts, function(tx)
    vapply(split(tx[ord], fac), paste, character(1), collapse = "|", USE.NAMES = FALSE))
  list(columns = stats::setNames(out, cols), sets = TRUE, n_tuples = per_person)
}

# Data with several records per person as one row per person: the person
# column, the keys (the person's set of key tuples, see above) and `also`
# (each column on its own: constant within persons kept, else the person's
# set of values). `text` forces the text coding of the keys (to compare two
# data sets coded alike).
person_frame <- function(data, keys, id, also = character(), text = FALSE) {
  person <- person_index(data[[id]])
  P <- max(person)
  first <- match(seq_len(P), person)
  k <- person_columns(data, keys, person, P, text)
  cols <- c(stats::setNames(list(data[[id]][first]), id), k$columns)
  set_coded <- character()
  for (a in also) {
    one <- person_columns(data, a, person, P)
    cols[[a]] <- one$columns[[1L]]
    if (one$sets) set_coded <- c(set_coded, a)
  }
  frame <- as.data.frame(cols, stringsAsFactors = FALSE, optional = TRUE)
  names(frame) <- names(cols)
  list(data = frame, person = person, first = first, n_persons = P,
       n_records = nrow(data), id = id, n_tuples = k$n_tuples, key_sets = k$sets,
       set_coded = set_coded)
}

# Record-level sampling weights as one weight per person (they must agree
# within a person).
person_weights <- function(w, p) {
  if (is.null(w)) return(NULL)
  wp <- w[p$first]
  if (any(w != wp[p$person]))
    abort_value("weights", "one weight per person (equal on all the person's records) when `id` is given")
  wp
}

# A person-level result spread back over the records: the fields named in
# `per_record` (vectors, or matrices by row) repeat the person's value on
# each of the person's records; the result says it counted persons.
person_result <- function(res, p, per_record = character(), data = NULL) {
  for (f in per_record) {
    v <- res[[f]]
    res[[f]] <- if (is.matrix(v)) v[p$person, , drop = FALSE] else v[p$person]
  }
  res$unit <- "persons"
  res$id <- p$id
  res$n_persons <- p$n_persons
  res$n_records <- p$n_records
  res$person <- p$person
  res$person_ids <- p$data[[p$id]]
  if (!is.null(data) && "record_ids" %in% names(res)) res["record_ids"] <- list(record_ids(data))
  res
}

# Risk of each person from the risks w of their records when a person is
# re-identified as soon as any one of their records is (independently):
# 1 - prod(1 - w) over the person's records.
person_any <- function(w, person, n_persons) {
  log_miss <- group_sums(log1p(-pmin(w, 1)), person, n_persons)
  -expm1(log_miss) + 0   # + 0: no negative zero
}

# "123 records" or "40 persons (123 records, person column 'pid')": the unit
# a risk measure counted, for its print and format methods.
unit_count <- function(x, n = x$n) {
  if (identical(x$unit, "persons"))
    sprintf("%d persons (%d records, person column '%s')", n, x$n_records, x$id)
  else sprintf("%d records", n)
}

# The unit's name, for sentences ("records" or "persons").
unit_name <- function(x) if (identical(x$unit, "persons")) "persons" else "records"

# A per-record table with the person column after its first column (ID).
add_person_column <- function(out, x) {
  if (!identical(x$unit, "persons")) return(out)
  person <- stats::setNames(list(x$person_ids[x$person]), x$id)
  person <- as.data.frame(person, stringsAsFactors = FALSE, optional = TRUE)
  names(person) <- x$id
  cbind(out[1L], person, out[-1L])
}

# Persons of a generalization (datafly(), ola()): the distinct values of the
# `id` columns, NULL when there are none or every record is its own person
# (then everything runs on records, as without persons).
generalize_persons <- function(data, id) {
  if (!length(id)) return(NULL)
  person <- key_groups(data, id)$group
  if (max(person) == nrow(data)) return(NULL)
  # several records per person: every record must belong to a known person
  for (col in id) check_person_id(col, data)
  person
}

# Equivalence classes of persons on (generalized) key columns given as a
# list or data frame `current`: the class of each person and the class sizes
# in persons.
person_groups <- function(current, keys, person) {
  frame <- as.data.frame(current, stringsAsFactors = FALSE, optional = TRUE)
  names(frame) <- keys
  P <- max(person)
  cols <- person_columns(frame, keys, person, P)$columns
  key_groups(cols, keys)
}

# One row per person with the keys (and sensitive columns) when the keys are
# constant within every person, for searches that run on persons (ola());
# NULL when some person has several key tuples.
person_rows <- function(data, keys, person, also = character()) {
  P <- max(person)
  k <- person_columns(data, keys, person, P)
  if (k$sets) return(NULL)
  cols <- k$columns
  for (a in also) cols[[a]] <- person_columns(data, a, person, P)$columns[[1L]]
  frame <- as.data.frame(cols, stringsAsFactors = FALSE, optional = TRUE)
  names(frame) <- names(cols)
  frame
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
