# ARX's local recoding (ARXResult.optimize; methods vignette, section 20):
# the records the chosen node suppresses are searched again as a data set of
# their own, and the losses of a release whose records carry their own
# levels.

# The records the global node suppresses are taken as a data set of their own
# and searched again under the same criteria (suppression limit a share of
# them, t-closeness against their own distribution); the records the new node
# releases are recoded at its levels and leave the suppressed set; repeated
# while a round recodes records. With the analysis loss, a round's nodes are
# ranked by the analysis loss of the whole release they would give.
# With persons (`unit_records`: the records of each person, data one row per
# person) the rounds count records and persons.
local_recoding <- function(data, keys, hierarchies, model, metric, lat, levels,
                           supp, sensitive, ordered, analysis,
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
      lat_s$context <- list(data = sub)
    } else {
      # key sets (`sets`: the records and their persons): the records of the
      # suppressed persons, persons numbered as in idx
      rec <- sets$person %in% idx
      lat_s <- set_lattice_build(sets$data[rec, , drop = FALSE], keys, hierarchies,
                                 match(sets$person[rec], idx), sensitive, ordered)
      lat_s$context <- list(data = sets$data[rec, , drop = FALSE],
                            person = match(sets$person[rec], idx))
    }
    # the criteria bound to the round's lattice (k-map's population codes)
    model <- as_search_model(model, lat_s)
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
