# Special uniques (methods vignette section 14): minimal sample uniques found by the SUDA2
# recursive search in C (src/suda.c), SUDA scores and DIS-SUDA scores here.

#' Special uniques: SUDA and DIS-SUDA scores
#'
#' A minimal sample unique (MSU) of a record is a set of keys on which the
#' record's combination of values occurs once in the data while its values on
#' every smaller subset of those keys occur more than once. A record with
#' small MSUs, or many, is a special unique: an intruder needs to know little
#' about the person to single the record out (Elliot et al. 2002). MSUs are
#' found by the recursive search of SUDA2 (Manning, Haglin & Keane 2008),
#' which prunes items seen once or in every record of a sub-table and checks
#' one "support row" per level instead of every subset of every record.
#'
#' That check ("is the smaller set seen in another record?") scans records;
#' at registry scale the scans grew faster than the data (8 keys: 3.6 s of
#' CPU at \eqn{10^5} records, 82 s at \eqn{10^6}). Since a sub-table holds
#' the records with the items of its path, the answer for a record is
#' whether its values on the path's keys and the set's keys occur twice in
#' the data: once the scans for one such key set have cost as much as a pass
#' over the records, the answers for that key set are computed for every
#' record at once (a sort of the packed codes) and kept (one bit per record;
#' at most about 1 GiB in all). The MSUs are the same (see the tests); the
#' search then grows about as \eqn{n \log n} on fixed keys (8 keys: 21 s of
#' CPU at \eqn{10^6}; 5 keys: 12 s at \eqn{10^7}, `inst/bench`).
#'
#' With \eqn{A} keys and \eqn{U = \min(\mathrm{max\_k}, A - 1)}, the SUDA score
#' of record \eqn{i} is the sum over its MSUs \eqn{S} of
#' \eqn{\prod_{s=|S|}^{U-1} (A - s)} (an empty product is 1): small MSUs weigh
#' more. DIS-SUDA (Elliot's 2004 user guide; sdcMicro's `suda2()`) turns the
#' scores into probabilities of a correct match: with \eqn{N_1} the records
#' unique on all keys, \eqn{N_2} the records in classes of size 2,
#' \eqn{d} = `dis_fraction`, \eqn{q = 1 + (8 - A)/20},
#' \eqn{f' = N_1 d / (N_1 d + N_2 (1 - d))} and
#' \eqn{a = (N_1 / f' - N_1) / \sum_{score_i > 0} score_i^{-q}},
#' \eqn{DIS_i = 1 / (1 + a \, score_i^{-q})} for a positive score, else 0.
#'
#' `NA` in a key is a category of its own (sdcMicro instead ignores missing
#' values: a record with `NA` can then have fewer or smaller MSUs there).
#'
#' @param data A data frame (tibble and data.table accepted) or a matrix.
#' @param keys Character vector: the quasi-identifier columns (at most 64).
#' @param max_k Largest MSU size searched, a whole number in 1..`length(keys)`.
#' @param dis_fraction The sampling fraction \eqn{d} of the DIS calculation,
#'   in (0, 1).
#' @param id `NULL` (one record per person) or the name of the person column
#'   when a person has several records: the persons are scored, each person's
#'   key on a subset of the keys being their values of those keys over the
#'   distinct key tuples of their records (for all the keys: the set of
#'   tuples of [risk_kanon()]; for a subset, the number of the person's
#'   distinct tuples is part of what an intruder matches on). `n`, the
#'   uniques and the DIS-SUDA file share count persons; `score`, `dis` and
#'   `msu` repeat the person's values on each of their records.
#' @return An object of class `epimask_suda`, a list with
#'   \item{score}{the SUDA score of each record.}
#'   \item{dis}{the DIS-SUDA score of each record.}
#'   \item{msu}{an integer matrix, n x `max_k`: the number of MSUs of each
#'     size of each record.}
#'   \item{msu_by_size}{the number of MSUs of each size in the data.}
#'   \item{attribute_contribution}{named by key: the percentage of the total
#'     SUDA score coming from MSUs containing the key (as sdcMicro's
#'     `attribute_contributions`; they add up to more than 100 since an MSU
#'     has several keys).}
#'   \item{weights}{the score of an MSU of each size.}
#'   and `keys`, `max_k`, `dis_fraction`, `n`, `n_unique` (\eqn{N_1}),
#'   `n_double` (\eqn{N_2}), `dis_file` (\eqn{f'}).
#' @references Elliot MJ, Manning AM, Ford RW (2002). A computational
#'   algorithm for handling the special uniques problem. Int J Uncertainty,
#'   Fuzziness and Knowledge-Based Systems 10(5):493-509. Manning AM, Haglin
#'   DJ, Keane JA (2008). A recursive search algorithm for statistical
#'   disclosure assessment. Data Min Knowl Disc 16:165-196.
#' @family risk measures
#' @seealso [risk_kanon()], [risk_individual()].
#' @examples
#' d <- dose_cohort
#' d$age5 <- 5 * (d$age_exp %/% 5)
#' s <- risk_suda(d, keys = c("city", "sex", "age5", "case"))
#' s
#' summary(s)
#' plot(s)
#' @export
risk_suda <- function(data, keys, max_k = length(keys), dis_fraction = 0.01, id = NULL) {
  data <- check_key_data(data, "data")
  keys <- check_columns(keys, data)
  id <- check_person_id(id, data, exclude = keys)
  if (!is.null(id)) {
    p <- person_frame(data, keys, id)
    res <- risk_suda(p$data, keys, max_k = max_k, dis_fraction = dis_fraction)
    return(person_result(res, p, c("score", "dis", "msu"), data))
  }
  if (anyDuplicated(keys)) abort_value("keys", "distinct column names")
  A <- length(keys)
  if (A > 64L) abort_length("keys", sprintf("name at most 64 columns, not %d", A))
  max_k <- check_count(max_k)
  if (max_k > A) abort_value("max_k", sprintf("a whole number between 1 and length(keys) = %d", A))
  dis_fraction <- check_number(dis_fraction, lower = 0, upper = 1, lower_open = TRUE,
                               upper_open = TRUE)
  codes <- key_codes(data, keys)[[1L]]
  # dense codes 1..K per key: the search indexes items by code
  for (j in seq_len(A)) codes[, j] <- match(codes[, j], unique(codes[, j]))
  res <- suda_msu(codes, max_k)
  weights <- suda_weights(A, max_k)
  score <- as.vector(res$msu %*% weights)
  ec <- call_c(C_freq_group, list(codes = codes), arg = "keys")
  f <- ec$size[ec$group]
  n1 <- sum(f == 1L)
  n2 <- sum(f == 2L)
  dis <- dis_suda(score, A, n1, n2, dis_fraction)
  colnames(res$msu) <- paste0("size_", seq_len(max_k))
  contrib <- as.vector(res$attr %*% weights)
  total <- sum(score)
  structure(list(
    score = score, dis = dis$dis, msu = res$msu,
    msu_by_size = stats::setNames(as.vector(colSums(res$msu)), seq_len(max_k)),
    attribute_contribution = stats::setNames(if (total > 0) 100 * contrib / total else 0 * contrib, keys),
    weights = stats::setNames(weights, seq_len(max_k)),
    keys = keys, max_k = max_k, dis_fraction = dis_fraction, n = nrow(data),
    n_unique = n1, n_double = n2, dis_file = dis$file, record_ids = record_ids(data)
  ), class = "epimask_suda")
}

# MSU counts by the SUDA2 search in C: list(msu = n x max_k, attr = A x
# max_k). cache_after: the "seen twice" checks of a key set switch from
# scanning to one hashed answer for every record once their scans have cost
# cache_after x n records (src/suda.c); -1 scans always (the plain SUDA2
# check), 0 switches at once. pack_bits: key sets whose codes fit in that
# many bits are sorted as packed integers, others hashed (0: hash always).
# The MSUs are the same for every value (tests).
suda_msu <- function(codes, max_k, cache_after = 1, pack_bits = 64L) {
  call_c(C_suda_search, list(codes = codes, max_k = max_k, cache_after = as.double(cache_after),
                             pack_bits = as.integer(pack_bits)), arg = "keys")
}

# Score of an MSU of each size 1..max_k: prod_{s = size}^{U - 1} (A - s),
# U = min(max_k, A - 1).
suda_weights <- function(A, max_k) {
  U <- min(max_k, A - 1L)
  vapply(seq_len(max_k), function(k) if (k <= U - 1L) prod(A - (k:(U - 1L))) else 1,
         numeric(1))
}

dis_suda <- function(score, A, n1, n2, d) {
  pos <- score > 0
  out <- numeric(length(score))
  if (n1 == 0L || !any(pos)) return(list(dis = out, file = if (n1 == 0L) 0 else 1))
  q <- 1 + (8 - A) / 20
  file <- n1 * d / (n1 * d + n2 * (1 - d))
  a <- (n1 / file - n1) / sum(score[pos]^(-q))
  out[pos] <- 1 / (1 + a * score[pos]^(-q))
  list(dis = out, file = file)
}

#' @rdname risk_suda
#' @param x,object An `epimask_suda` object.
#' @param digits Significant digits shown.
#' @param ... Passed on to [graphics::barplot()] by `plot()`; unused otherwise.
#' @details `summary()` tabulates the DIS-SUDA scores in the bands sdcMicro
#'   prints (0, (0, 0.1], ..., > 0.7) and gives the MSU counts by size and the
#'   keys' contributions; `plot()` draws the keys' contributions.
#' @export
print.epimask_suda <- function(x, digits = 3, ...) print_formatted(x, digits = digits)

#' @rdname risk_suda
#' @export
format.epimask_suda <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)
  # per person when the person is the unit (the per-record scores repeat them)
  one <- if (identical(x$unit, "persons")) !duplicated(x$person) else rep(TRUE, length(x$score))
  x$score <- x$score[one]
  x$dis <- x$dis[one]
  special <- sum(x$score > 0)
  top <- utils::head(sort(x$attribute_contribution, decreasing = TRUE), 3L)
  c(sprintf("SUDA: %s, %d keys (%s), MSUs up to size %d", unit_count(x), length(x$keys),
            paste(x$keys, collapse = ", "), x$max_k),
    sprintf("  %d %s with at least one MSU (%d unique on all keys); MSUs by size: %s",
            special, unit_name(x), x$n_unique, paste(x$msu_by_size, collapse = " ")),
    sprintf("  DIS-SUDA: mean %s, maximum %s, %d %s above 0.1 (dis_fraction %s)",
            format(signif(mean(x$dis), digits)), format(signif(max(x$dis), digits)),
            sum(x$dis > 0.1), unit_name(x), format(x$dis_fraction)),
    sprintf("  keys contributing most: %s",
            paste0(names(top), " ", format(round(top, 1)), "%", collapse = ", ")))
}

#' @rdname risk_suda
#' @param row.names,optional Ignored (the IDs are a column).
#' @export
as.data.frame.epimask_suda <- function(x, row.names = NULL, optional = FALSE, ...) {
  ids <- if (is.null(x$record_ids)) seq_along(x$score) else x$record_ids
  out <- data.frame(ID = ids, score = x$score, dis = x$dis, stringsAsFactors = FALSE)
  out <- add_person_column(out, x)
  cbind(out, as.data.frame(x$msu))
}

#' @rdname risk_suda
#' @export
summary.epimask_suda <- function(object, ...) {
  bands <- c(-Inf, 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, Inf)
  labels <- c("= 0", "(0, 0.1]", "(0.1, 0.2]", "(0.2, 0.3]", "(0.3, 0.4]", "(0.4, 0.5]",
              "(0.5, 0.6]", "(0.6, 0.7]", "> 0.7")
  dis_table <- data.frame(dis_suda = labels,
                          records = tabulate(findInterval(object$dis, bands, left.open = TRUE),
                                             length(labels)))
  structure(list(suda = object, dis_table = dis_table,
                 contributions = sort(object$attribute_contribution, decreasing = TRUE)),
            class = "summary.epimask_suda")
}

#' @rdname risk_suda
#' @export
format.summary.epimask_suda <- function(x, digits = 3, ...) {
  utils::capture.output({
    digits <- check_digits(digits)
    print(x$suda, digits = digits)
    cat("\nRecords by DIS-SUDA score:\n")
    print(x$dis_table, row.names = FALSE)
    cat("\nMSUs by size:\n")
    print(x$suda$msu_by_size)
    cat("\nContribution of each key to the total SUDA score (%):\n")
    print(round(x$contributions, 1))
  })
}

#' @export
print.summary.epimask_suda <- function(x, ...) print_formatted(x, ...)

#' @rdname risk_suda
#' @param y Unused.
#' @export
plot.epimask_suda <- function(x, y = NULL, ...) {
  contrib <- sort(x$attribute_contribution)
  old <- graphics::par(mar = c(4, 8, 3, 1))
  on.exit(graphics::par(old))
  graphics::barplot(contrib, horiz = TRUE, las = 1, col = "grey60", border = NA,
                    xlim = c(0, max(100, contrib)),
                    xlab = "% of the total SUDA score from MSUs with the key",
                    main = "SUDA: contribution of each key", ...)
  invisible(contrib)
}
