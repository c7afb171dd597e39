# Local suppression with several records per person (suppress_local(id = ),
# methods vignette sections 19 and 23): the person is the unit. The search
# runs the C greedy of suppress.c on one row of codes per person, the blank
# of a person's key is spread to every record of the person, and the class
# sizes are recounted in persons on the returned data.

suppress_local_persons <- function(data, frame, keys, k, max_risk, importance, na, strata, id,
                                   k_given) {
  person <- person_index(frame[[id]])
  P <- max(person)
  n <- nrow(frame)
  target <- suppress_target(k, max_risk, k_given, P, "(number of persons)", "persons",
                            sprintf("the number of persons (%d persons in column '%s')", P, id))
  k <- target$k
  max_risk <- target$max_risk
  cost <- suppress_importance(importance, keys)
  strata <- check_strata(strata, frame, keys)
  strata_p <- NULL
  if (!is.null(strata)) {
    sc <- person_columns(frame, strata, person, P)
    if (sc$sets)
      abort_value("strata", sprintf(
        "columns constant within each person (column '%s'): a person lies in one stratum", id))
    strata_p <- suppress_codes(as.data.frame(sc$columns, stringsAsFactors = FALSE,
                                             optional = TRUE), seq_along(strata)) + 1L
  }

  codes <- suppress_person_codes(frame, keys, person, P)
  stratum_size <- if (is.null(strata_p)) rep(P, P) else {
    g <- call_c(C_freq_group, list(codes = strata_p), arg = "strata")
    g$size[g$group]
  }
  small <- stratum_size < k
  blank <- matrix(FALSE, P, length(keys))
  run <- which(!small)
  if (length(run)) {
    spec <- list(codes = cbind(codes[run, , drop = FALSE], strata_p[run, , drop = FALSE]),
                 n_free = length(keys), cost = unname(cost), k = as.integer(k),
                 wildcard = as.integer(na == "wildcard"))
    blank[run, ] <- call_c(C_suppress_run, spec, arg = "data") == 1L
  }
  # a person's blanked key is blanked in every record of the person; the
  # record cells that were NA already are not counted as suppressed
  suppressed <- blank[person, , drop = FALSE]
  for (j in seq_along(keys)) suppressed[, j] <- suppressed[, j] & !is.na(frame[[keys[[j]]]])
  dimnames(suppressed) <- list(NULL, keys)

  out <- blank_cells(data, keys, suppressed)
  # recount in persons from the returned data, not from the codes the search used
  out_frame <- if (is.data.frame(out)) out else as.data.frame(out, stringsAsFactors = FALSE)
  size_after <- person_class_sizes(out_frame, keys, na, strata, id)
  size_before <- person_class_sizes(frame, keys, na, strata, id)
  unsafe_p <- which(size_after < k)
  if (any(small)) {
    ids <- frame[[id]][match(which(small), person)]
    epimask_warn(sprintf(paste0(
      "%d person(s) lie in strata smaller than k = %d persons and cannot be made safe; ",
      "they are left unsuppressed (see `$unsafe_records`): persons %s"),
      length(ids), k, paste(c(utils::head(format(ids), 20L), if (length(ids) > 20L) "..."),
                            collapse = ", ")),
      "epimask_warning_stratum")
  }
  # the person-key cells a person lost: the unit the search minimises
  person_blank <- blank & !(codes == 0L)
  res <- suppression_result(
    out, suppressed, size_after[person], size_before[person], which(person %in% unsafe_p),
    stats::setNames(vapply(keys, function(key) sum(is.na(frame[[key]])), 1L), keys),
    keys, k, max_risk, na, strata, cost)
  structure(c(unclass(res), list(
    unit = "persons", id = id, n_persons = P, n_records_total = n, person = person,
    person_ids = frame[[id]][match(seq_len(P), person)],
    person_class_size = size_after, person_class_size_before = size_before,
    person_suppressed = stats::setNames(as.integer(colSums(person_blank)), keys),
    n_person_cells = sum(person_blank),
    n_persons_blanked = sum(rowSums(person_blank) > 0),
    unsafe_persons = unsafe_p)), class = "epimask_suppression")
}

# One row of codes per person for the search (code 0 = blank). With one key
# tuple per person the codes of the values. Otherwise a person whose set of
# tuples is the product of their sets of values per key (e.g. only one key
# varies within the person) is coded by those sets, key by key: two such
# persons with equal codes on the keys neither has blanked have equal sets of
# tuples there. Any other person is coded, key by key, by their values over
# their distinct tuples in canonical order (person_columns()), marked so
# that they never equal a code of sets: equal codes on the keys kept again
# mean equal sets of tuples there (the i-th tuples agree). Key j's code is 0
# when every record of the person is NA on j. So a class of the search is
# never larger than the persons' real class: the search's k holds in persons
# (and the recount checks it); only some merges are missed.
suppress_person_codes <- function(frame, keys, person, P) {
  pc <- person_columns(frame, keys, person, P)
  cols <- pc$columns
  if (pc$sets) {
    per_key <- lapply(keys, function(key) person_columns(frame, key, person, P, text = TRUE))
    n_values <- vapply(per_key, function(x) as.double(x$n_tuples), double(P))
    dim(n_values) <- c(P, length(keys))
    product <- abs(apply(n_values, 1L, prod) - pc$n_tuples) < 0.5
    for (j in seq_along(keys)) {
      cols[[j]] <- ifelse(product, per_key[[j]]$columns[[1L]], paste0("\001", cols[[j]]))
      seen <- group_sums(as.double(!is.na(frame[[keys[[j]]]])), person, P)
      cols[[j]][seen == 0] <- NA_character_
    }
  }
  pf <- as.data.frame(cols, stringsAsFactors = FALSE, optional = TRUE)
  suppress_codes(pf, seq_along(keys))
}

# Class size of every person, in persons, under the reading `na`, within
# strata (constant within persons). A person's key is the set of the distinct
# key tuples of their records (NA a value). "wildcard": a key that is NA in
# every record of a person matches every value; two persons are compatible
# when their sets of tuples agree on the keys that neither has so blanked.
person_class_sizes <- function(frame, keys, na, strata, id) {
  person <- person_index(frame[[id]])
  P <- max(person)
  first <- match(seq_len(P), person)
  codes <- key_codes(frame, keys)[[1L]]
  storage.mode(codes) <- "integer"
  tuple <- call_c(C_freq_group, list(codes = codes), arg = "keys")$group
  if (all(tuple == tuple[first][person])) {
    # one tuple per person: the record-level count on one row per person
    cols <- c(keys, strata)
    pf <- as.data.frame(lapply(stats::setNames(cols, cols), function(x) frame[[x]][first]),
                        stringsAsFactors = FALSE, optional = TRUE)
    names(pf) <- cols
    return(suppress_class_sizes(pf, keys, na, strata))
  }
  st_codes <- if (is.null(strata)) NULL else
    key_codes(lapply(stats::setNames(strata, strata), function(x) frame[[x]][first]),
              strata)[[1L]]
  set_code <- function(cols) person_set_groups(frame, cols, person, P, st_codes)
  if (na == "category") {
    code <- set_code(keys)
    return(tabulate(code, max(code))[code])
  }
  blank_key <- vapply(keys, function(key)
    group_sums(as.double(!is.na(frame[[key]])), person, P) == 0, logical(P))
  dim(blank_key) <- c(P, length(keys))
  mask <- apply(blank_key, 1L, function(r) paste(as.integer(r), collapse = ""))
  masks <- unique(mask)
  bits <- lapply(masks, function(m) strsplit(m, "")[[1L]] == "1")
  # the persons' sets on the keys kept by each union of two blank patterns,
  # computed once per union (for every person; only those whose pattern lies
  # in the union are compared)
  cache <- list()
  members <- split(seq_len(P), factor(mask, levels = masks))
  size <- integer(P)
  for (a in seq_along(masks)) {
    in_a <- members[[a]]
    for (b in seq_along(masks)) {
      in_b <- members[[b]]
      union <- bits[[a]] | bits[[b]]
      key <- paste(as.integer(union), collapse = "")
      if (is.null(cache[[key]])) cache[[key]] <- set_code(keys[!union])
      code <- cache[[key]]
      ca <- code[in_a]
      cb <- code[in_b]
      u <- unique(c(ca, cb))
      size[in_a] <- size[in_a] + tabulate(match(cb, u), length(u))[match(ca, u)]
    }
  }
  size
}

# format() of a suppression by persons: every count says its unit.
format_suppression_persons <- function(x, target, reading, big) {
  below_after <- sum(x$person_class_size < x$k)
  below_before <- sum(x$person_class_size_before < x$k)
  c(
    sprintf("Local suppression to %s persons (%s): %s persons (%s records, person column '%s'), keys %s%s",
            target, reading, big(x$n_persons), big(x$n), x$id, paste(x$keys, collapse = ", "),
            if (is.null(x$strata)) "" else sprintf(", within strata of %s",
                                                   paste(x$strata, collapse = ", "))),
    sprintf("  %s key values blanked for %s persons, each in every record of the person: %s cells (%s%% of the key cells) in %s records",
            big(x$n_person_cells), big(x$n_persons_blanked), big(x$n_cells),
            format(signif(100 * x$n_cells / (x$n * length(x$keys)), 3)), big(x$n_records)),
    sprintf("  by key (persons / cells): %s",
            paste(sprintf("%s %s / %s", x$keys, big(x$person_suppressed), big(x$by_key)),
                  collapse = ", ")),
    if (sum(x$input_na) > 0)
      sprintf("  NAs already in the input (not counted as suppressed): %s cells", big(sum(x$input_na))),
    sprintf("  recounted in persons on the output: smallest class %s persons, %s persons below k (before: smallest %s, %s below k)",
            big(x$min_class), big(below_after), big(min(x$person_class_size_before)),
            big(below_before)),
    if (length(x$unsafe_persons))
      sprintf("  NOT SAFE: %s person(s) (%s records) in strata smaller than k (see $unsafe_records)",
              big(length(x$unsafe_persons)), big(length(x$unsafe_records)))
    else sprintf("  every person is in a class of at least %d persons", x$k)
  )
}

# Persons with equal sets of distinct key tuples on `cols` (NA a value) and
# equal `extra` codes (one row per person) get equal group numbers: each
# person's tuple codes, sorted, as one row of an integer matrix, grouped.
person_set_groups <- function(frame, cols, person, P, extra = NULL) {
  if (!length(cols)) {
    if (is.null(extra)) return(rep(1L, P))
    return(call_c(C_freq_group, list(codes = extra), arg = "strata")$group)
  }
  codes <- key_codes(frame, cols)[[1L]]
  storage.mode(codes) <- "integer"
  tuple <- call_c(C_freq_group, list(codes = codes), arg = "keys")$group
  pairs <- cbind(person, tuple)
  storage.mode(pairs) <- "integer"
  pf <- first_of_groups(call_c(C_freq_group, list(codes = pairs), arg = "keys")$group)
  pp <- person[pf]
  tt <- tuple[pf]
  ord <- order(pp, tt, method = "radix")
  pp <- pp[ord]
  tt <- tt[ord]
  pos <- sequence(tabulate(pp, P))
  mat <- matrix(0L, P, max(pos))
  mat[cbind(pp, pos)] <- tt
  if (!is.null(extra)) mat <- cbind(mat, extra)
  storage.mode(mat) <- "integer"
  call_c(C_freq_group, list(codes = mat), arg = "keys")$group
}
