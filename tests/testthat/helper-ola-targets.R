# The reference for the criteria of methods vignette section 20 in ola(): every lattice node
# generalized with generalize(), its classes counted with table(), each
# criterion written out by hand, and the optimum picked by the tie rule of
# methods vignette section 16 (brute_optimum()'s), over every node of the lattice.

# Which classes a node suppresses and whether it is acceptable, by hand.
#  outliers "small": classes smaller than k; every other class must pass l, t
#    and k-map. "failing": every class failing any of them.
#  avg_risk: then the smallest released classes (ties: the order of first
#    appearance of their generalized values, key by key) until
#    classes / records <= avg_risk.
#  acceptable: the suppressed records number at most max_suppress * n.
brute_target_node <- function(data, keys, hierarchies, levels, k, max_suppress,
                              outliers = "small", l = NULL, t = NULL, sensitive = NULL,
                              diversity = "distinct", avg_risk = NULL, k_map = NULL,
                              population = NULL, charge = "top", uniqueness = NULL,
                              risks = list()) {
  n <- nrow(data)
  A <- length(keys)
  gen <- lapply(seq_along(keys), function(v)
    as.character(generalize(data[[keys[v]]], hierarchies[[keys[v]]], levels[[v]])))
  class_id <- do.call(paste, c(gen, sep = "\r"))
  classes <- unique(class_id)
  size <- as.vector(table(class_id)[classes])
  fails <- rep(FALSE, length(classes))
  for (sv in sensitive) {
    x <- data[[sv]]
    for (j in seq_along(classes)) {
      v <- x[class_id == classes[j]]
      p <- as.vector(table(v)) / length(v)
      if (!is.null(l)) {
        lj <- if (diversity == "distinct") length(unique(v)) else exp(-sum(p * log(p)))
        if (lj < l - 1e-9) fails[j] <- TRUE
      }
      if (!is.null(t)) {
        vals <- unique(x)
        P <- vapply(vals, function(a) mean(v == a), numeric(1))
        Q <- vapply(vals, function(a) mean(x == a), numeric(1))
        if (sum(abs(P - Q)) / 2 > t + 1e-9) fails[j] <- TRUE
      }
    }
  }
  if (!is.null(k_map)) {
    pgen <- lapply(seq_along(keys), function(v)
      as.character(generalize(population[[keys[v]]], hierarchies[[keys[v]]], levels[[v]])))
    pop_id <- do.call(paste, c(pgen, sep = "\r"))
    pop_n <- vapply(classes, function(cl) sum(pop_id == cl), numeric(1))
    fails <- fails | pop_n < k_map
  }
  small <- size < k
  limit <- max_suppress * n
  ok <- sum(size[small]) <= limit
  supp <- small
  if (outliers == "failing") {
    supp <- small | fails
    ok <- ok && sum(size[supp]) <= limit
  } else if (any(fails & !small)) ok <- FALSE
  # class codes: order of first appearance of each key's generalized value
  # (the tie order of avg_risk's and uniqueness's suppression)
  codes <- matrix(vapply(seq_len(A), function(v) {
    first <- match(gen[[v]], unique(gen[[v]]))
    first[match(classes, class_id)]
  }, numeric(length(classes))), ncol = A)
  if (ok && !is.null(avg_risk)) {
    repeat {
      kept <- which(!supp)
      if (!length(kept) || length(kept) <= avg_risk * sum(size[kept])) break
      o <- kept[do.call(order, c(list(size[kept]), lapply(seq_len(A), function(v) codes[kept, v])))]
      supp[o[1]] <- TRUE
    }
    if (sum(size[supp]) > limit) ok <- FALSE
  }
  # population uniqueness and the `risks` (each list(share = function(kept,
  # gen) of the units released and the node's generalized keys, max = )):
  # the smallest released classes suppressed one by one (same order as for
  # avg_risk) until every share meets its `max`
  meets_all <- function(s_try) {
    if (!is.null(uniqueness)) {
      share <- uniqueness$share(size[!s_try], n)
      if (!is.finite(share) || share > uniqueness$max * (1 + 1e-12)) return(FALSE)
    }
    for (r in Filter(function(r) !isFALSE(r$scan), risks)) {
      share <- r$share(!s_try[match(class_id, classes)], gen)
      if (!is.finite(share) || share > r$max * (1 + 1e-12)) return(FALSE)
    }
    TRUE
  }
  scanned <- Filter(function(r) !isFALSE(r$scan), risks)
  if (ok && (!is.null(uniqueness) || length(scanned))) {
    kept <- which(!supp)
    o <- kept[do.call(order, c(list(size[kept]), lapply(seq_len(A), function(v) codes[kept, v])))]
    met <- FALSE
    for (m in 0:length(o)) {
      s_try <- supp
      s_try[o[seq_len(m)]] <- TRUE
      if (sum(size[s_try]) > limit) break
      if (meets_all(s_try)) {
        supp <- s_try
        met <- TRUE
        break
      }
    }
    if (!met) ok <- FALSE
  }
  # risks with scan = FALSE: checked on the release the scan leaves
  for (r in Filter(function(r) isFALSE(r$scan), risks)) {
    if (!ok) break
    share <- r$share(!supp[match(class_id, classes)], gen)
    if (!is.finite(share) || share > r$max * (1 + 1e-12)) ok <- FALSE
  }
  rec_supp <- unname(supp[match(class_id, classes)])
  if (charge == "node") charged <- rep(FALSE, n) else charged <- rec_supp
  s <- sum(charged)
  top <- vapply(keys, function(key) length(hierarchies[[key]]$levels) - 1L, integer(1))
  prec <- sum(vapply(seq_len(A), function(v)
    sum(ifelse(charged, 1, levels[[v]] / top[[v]])), numeric(1))) / (n * A)
  kept_classes <- table(class_id[!charged])
  dm <- sum(as.double(kept_classes)^2) + n * s
  ent <- 0
  for (v in seq_len(A)) {
    x <- as.character(data[[keys[v]]])
    g <- gen[[v]]
    n_x <- as.vector(table(x)[x])
    n_g <- as.vector(table(g)[g])
    n_g[charged] <- n
    ent <- ent + sum(-log2(n_x / n_g))
  }
  avg <- if (n > s) (n - s) / length(kept_classes) / k else n / k
  if (charge == "block") {
    # ARX's non-monotone entropy and AECS: the suppressed records one block
    S <- sum(rec_supp)
    ent <- 0
    for (v in seq_len(A)) {
      x <- as.character(data[[keys[v]]])
      g <- gen[[v]]
      ent <- ent + sum(-log2(as.vector(table(x)[x]) / as.vector(table(g)[g])))
      if (S) {
        cg <- as.vector(table(g[rec_supp]))
        ent <- ent + sum(cg * log2(S / cg))
      }
    }
    avg <- n / (length(table(class_id[!rec_supp])) + (S > 0)) / k
  }
  list(ok = ok, supp = rec_supp, gen = gen,
       loss = c(entropy = ent, precision = prec, discernibility = dm, avg_class_size = avg))
}

# The analysis loss of a node's release by hand with glm() (1 - the capped U,
# written out below, not the package's capped_potential()): numeric keys at
# their group means, other keys as factors of their generalized labels,
# suppressed records dropped; a model key left with one value: loss 1.
brute_analysis_loss <- function(data, keys, gen, supp, formula, family, term) {
  fit0 <- glm(formula, family = family, data = data)
  b0 <- coef(fit0)[[term]]
  se0 <- sqrt(diag(vcov(fit0)))[[term]]
  d <- data
  for (v in seq_along(keys)) {
    key <- keys[v]
    if (!key %in% all.vars(formula)) next
    if (identical(gen[[v]], as.character(data[[key]]))) next
    d[[key]] <- if (is.numeric(data[[key]])) ave(data[[key]], gen[[v]]) else factor(gen[[v]])
  }
  d <- d[!supp, , drop = FALSE]
  for (key in intersect(keys, all.vars(formula)))
    if (length(unique(d[[key]])) <= 1L) return(1)
  fit <- tryCatch(glm(formula, family = family, data = d), error = function(e) NULL)
  if (is.null(fit) || !term %in% names(coef(fit)) || is.na(coef(fit)[[term]])) return(1)
  b <- coef(fit)[[term]]
  se <- sqrt(diag(vcov(fit)))[[term]]
  # the capped U (one U everywhere): the release's variance floored at the
  # original's, bias in full, at most 1
  1 - min(1, se0^2 / (max(se^2, se0^2) + (b - b0)^2))
}

brute_target_optimum <- function(data, qi, hierarchies, metric, analysis = NULL, ...) {
  keys <- qi
  nodes <- all_nodes(hierarchies, keys)
  best <- NULL
  for (i in seq_len(nrow(nodes))) {
    lv <- unname(nodes[i, ])
    r <- brute_target_node(data, keys, hierarchies, lv, ...)
    if (!r$ok) next
    loss <- if (is.null(analysis)) r$loss[[metric]] else
      brute_analysis_loss(data, keys, r$gen, r$supp, analysis$formula, analysis$family,
                          analysis$term)
    if (beats(lv, loss, best))
      best <- list(levels = lv, loss = loss, all = r$loss, supp = r$supp)
  }
  best
}

# Zayatz's estimate written out (methods vignette, section 21): U = c1^2 / sum_j c_j P_j, P_j
# the hypergeometric probability that a class of size j among N is seen once
# in a sample of n, j choose(N - j, n - 1) / choose(N, n).
zayatz_share_by_hand <- function(pi) function(size, n_data) {
  if (!length(size)) return(0)
  N <- round(n_data / pi)
  n <- sum(size)
  cj <- table(size)
  j <- as.numeric(names(cj))
  cj <- as.numeric(cj)
  c1 <- sum(cj[j == 1])
  if (c1 == 0) return(0)
  P <- exp(log(j) + lchoose(N - j, n - 1) - lchoose(N, n))
  c1^2 / sum(cj * P) / N
}

# ola()'s result `res` against the exhaustive optimum `ref` (NULL: no node
# is acceptable): levels, loss and suppressed records.
expect_matches_optimum <- function(res, ref, metric, label) {
  if (is.null(ref)) {
    expect_false(res$acceptable, label = label)
    return(invisible(res))
  }
  expect_true(res$acceptable, label = label)
  expect_identical(unname(res$levels), as.integer(ref$levels), label = label)
  expect_equal(info_loss(res, metric), ref$loss, tolerance = tol_exact, label = label)
  expect_identical(res$suppressed, which(ref$supp), label = label)
  invisible(res)
}
