# ola() with persons whose key values differ between their records (methods
# vignette sections 16, 20, 23): a person's key is the set of their records'
# key tuples. The reference, written here in plain R: at every node of the
# lattice the records' keys are generalized with generalize(), each person's
# key set is unique() over their generalized tuples, persons are classed by
# equal sets, the criteria are evaluated on those classes by hand, the losses
# over the distinct (person, tuple) pairs, and the optimum is the exhaustive
# search's under the tie rule of section 16.

# Persons with 1-4 records; sex and the outcome are person-level, age and zip
# vary between a person's records for some persons (a stay at another site,
# an age one year on).
keyset_fixture <- function(P, seed, vary = 0.35) {
  set.seed(seed)
  pf <- data.frame(pid = sprintf("p%03d", seq_len(P)),
                   age = sample(20:59, P, TRUE),
                   sex = sample(c("f", "m"), P, TRUE, prob = c(0.6, 0.4)),
                   zip = sample(c("021", "022", "031", "032", "041"), P, TRUE),
                   outcome = sample(c("a", "b", "c"), P, TRUE, prob = c(0.6, 0.3, 0.1)),
                   family = sprintf("f%02d", sample(rep(seq_len(ceiling(P / 3)), 3), P)),
                   wt = sample(c(5, 10, 20), P, TRUE), stringsAsFactors = FALSE)
  m <- sample(1:4, P, TRUE)
  d <- pf[rep(seq_len(P), m), ]
  later <- sequence(m) > 1L
  moved <- later & runif(nrow(d)) < vary
  # most moves are to the referral centre (031), so that sets of two tuples
  # recur across persons and survive in classes of k
  d$zip[moved] <- sample(c("031", "031", "031", "022"), sum(moved), TRUE)
  older <- later & runif(nrow(d)) < vary / 2
  d$age[older] <- d$age[older] + 1L
  d <- d[sample(nrow(d)), ]
  d$y <- rpois(nrow(d), exp(0.3 + 0.03 * (d$age - 40) + 0.3 * (d$sex == "m")))
  rownames(d) <- NULL
  h <- list(age = hierarchy_numeric(c(10, 20)), sex = hierarchy_flat(),
            zip = hierarchy_category(data.frame(v = c("021", "022", "031", "032", "041"),
                                                a = c("02", "02", "03", "03", "04"))))
  list(data = d, h = h, keys = c("age", "sex", "zip"))
}

# The persons' key sets at a node, by hand.
hand_sets <- function(d, keys, h, lv, pids = unique(d$pid)) {
  gen <- lapply(seq_along(keys), function(v)
    as.character(generalize(d[[keys[v]]], h[[keys[v]]], lv[[v]])))
  tuple <- do.call(paste, c(gen, sep = "\r"))
  sets <- tapply(tuple, d$pid, function(t) paste(sort(unique(t)), collapse = "\n"))
  list(gen = gen, set = unname(sets[pids]))
}

# One node by hand: classes of persons by key set, suppression under the
# criteria, and the losses over the distinct (person, tuple) pairs.
hand_keyset_node <- function(d, keys, h, lv, k, max_suppress, outliers = "small", l = NULL,
                             avg_risk = NULL, k_map = NULL, population = NULL,
                             charge = "top", uniqueness = NULL, cluster = NULL,
                             loglinear = NULL) {
  pids <- unique(d$pid)
  P <- length(pids)
  A <- length(keys)
  hs <- hand_sets(d, keys, h, lv, pids)
  classes <- unique(hs$set)
  cl <- match(hs$set, classes)
  size <- tabulate(cl, length(classes))
  # tie order: each key's generalized values coded by first appearance in the
  # records, a class's tuples as fixed-width code strings sorted, joined
  code <- vapply(hs$gen, function(g) match(g, unique(g)), integer(nrow(d)))
  tcode <- apply(code, 1, function(r) paste(sprintf("%05d", r), collapse = ""))
  tie_p <- tapply(tcode, d$pid, function(t) paste(sort(unique(t), method = "radix"),
                                                   collapse = ""))[pids]
  tie <- unname(tie_p[match(seq_along(classes), cl)])
  fails <- rep(FALSE, length(classes))
  if (!is.null(l)) {
    outc <- d$outcome[match(pids, d$pid)]
    fails <- fails | vapply(seq_along(classes), function(j)
      length(unique(outc[cl == j])), integer(1)) < l
  }
  if (!is.null(k_map)) {
    pop_sets <- hand_sets(population, keys, h, lv)$set
    fails <- fails | vapply(classes, function(s) sum(pop_sets == s), integer(1)) < k_map
  }
  small <- size < k
  limit <- max_suppress * P
  ok <- sum(size[small]) <= limit
  supp <- small
  if (outliers == "failing") {
    supp <- small | fails
    ok <- ok && sum(size[supp]) <= limit
  } else if (any(fails & !small)) ok <- FALSE
  by_tie <- function(kept) kept[order(size[kept], tie[kept], method = "radix")]
  if (ok && !is.null(avg_risk)) {
    repeat {
      kept <- which(!supp)
      if (!length(kept) || length(kept) <= avg_risk * sum(size[kept])) break
      supp[by_tie(kept)[1]] <- TRUE
    }
    if (sum(size[supp]) > limit) ok <- FALSE
  }
  # cluster risk by hand: a released person's risk 1 / (persons of their
  # class), a cluster's 1 - prod(1 - r) over its released persons, the share
  # the sum over released persons of their cluster's risk over their number
  cluster_of <- if (!is.null(cluster)) d[[cluster$column]][match(pids, d$pid)]
  meets <- function(s_try) {
    if (!is.null(uniqueness)) {
      share <- uniqueness$share(size[!s_try], P)
      if (!is.finite(share) || share > uniqueness$max * (1 + 1e-12)) return(FALSE)
    }
    if (!is.null(cluster)) {
      rel <- !s_try[cl]
      if (any(rel)) {
        r <- 1 / size[cl]
        ch <- tapply(r[rel], cluster_of[rel], function(x) 1 - prod(1 - x))
        share <- sum(ch[cluster_of[rel]]) / sum(rel)
        if (share > cluster$max * (1 + 1e-12)) return(FALSE)
      }
    }
    TRUE
  }
  if (ok && (!is.null(uniqueness) || !is.null(cluster))) {
    o <- by_tie(which(!supp))
    met <- FALSE
    for (m in 0:length(o)) {
      s_try <- supp
      s_try[o[seq_len(m)]] <- TRUE
      if (sum(size[s_try]) > limit) break
      if (meets(s_try)) {
        supp <- s_try
        met <- TRUE
        break
      }
    }
    if (!met) ok <- FALSE
  }
  person_supp <- supp[cl]
  if (ok && !is.null(loglinear)) {
    # log-linear risk of the released persons: risk_loglinear(id =) on the
    # node's generalized records of the persons kept
    kept_rec <- !person_supp[match(d$pid, pids)]
    if (any(kept_rec)) {
      g <- d[kept_rec, c("pid", keys)]
      for (v in seq_along(keys)) g[[keys[v]]] <- hs$gen[[v]][kept_rec]
      share <- tryCatch(risk_loglinear(g, keys, pi = loglinear$pi, id = "pid")$tau1_share,
                        warning = function(w) NA, error = function(e) NA)
      if (!is.finite(share) || share > loglinear$max * (1 + 1e-12)) ok <- FALSE
    }
  }
  # the distinct (person, original tuple) pairs
  orig <- do.call(paste, c(lapply(keys, function(key) as.character(d[[key]])), sep = "\r"))
  u <- !duplicated(paste(d$pid, orig, sep = "\n"))
  U <- sum(u)
  u_supp <- person_supp[match(d$pid[u], pids)]
  charged <- if (charge == "node") rep(FALSE, U) else u_supp
  top <- vapply(keys, function(key) length(h[[key]]$levels) - 1L, integer(1))
  prec <- sum(vapply(seq_len(A), function(v)
    sum(ifelse(charged, 1, lv[[v]] / top[[v]])), numeric(1))) / (U * A)
  ent <- 0
  ent_base <- 0
  for (v in seq_len(A)) {
    x <- as.character(d[[keys[v]]])[u]
    g <- hs$gen[[v]][u]
    n_x <- as.vector(table(x)[x])
    n_g <- as.vector(table(g)[g])
    ent_base <- ent_base + sum(-log2(n_x / n_g))
    n_g[charged] <- U
    ent <- ent + sum(-log2(n_x / n_g))
  }
  s <- sum(size[supp & charge != "node"])
  kept_cls <- if (charge == "node") size else size[!supp]
  dm <- sum(as.double(kept_cls)^2) + P * s
  avg <- if (P > s) (P - s) / length(kept_cls) / k else P / k
  if (charge == "block") {
    S <- sum(u_supp)
    ent <- ent_base
    for (v in seq_len(A)) {
      if (!S) break
      cg <- as.vector(table(hs$gen[[v]][u][u_supp]))
      ent <- ent + sum(cg * log2(S / cg))
    }
    avg <- P / (sum(!supp) + any(supp)) / k
  }
  list(ok = ok, person_supp = person_supp, cl = cl, size = size, pids = pids, gen = hs$gen,
       loss = c(entropy = ent, precision = prec, discernibility = dm, avg_class_size = avg))
}

hand_keyset_optimum <- function(dat, qi, hier, metric, analysis = NULL, ...) {
  nodes <- all_nodes(hier, qi)
  best <- NULL
  for (i in seq_len(nrow(nodes))) {
    lv <- unname(nodes[i, ])
    r <- hand_keyset_node(dat, qi, hier, lv, ...)
    if (!r$ok) next
    # the analysis loss: glm() on the records of the persons kept
    loss <- if (is.null(analysis)) r$loss[[metric]] else
      brute_analysis_loss(dat, qi, r$gen, r$person_supp[match(dat$pid, r$pids)],
                          analysis$formula, analysis$family, analysis$term)
    if (beats(lv, loss, best))
      best <- list(levels = lv, loss = loss, all = r$loss, supp = r$person_supp,
                   pids = r$pids)
  }
  best
}

# Class sizes of a release by person, by hand (key sets of the released
# records, persons by their pseudonym).
hand_release_sizes <- function(rel, keys) {
  tuple <- do.call(paste, c(lapply(keys, function(key) as.character(rel[[key]])), sep = "\r"))
  sets <- tapply(tuple, rel$pid, function(t) paste(sort(unique(t)), collapse = "\n"))
  as.vector(table(sets))
}

# ola() against the exhaustive search by hand; the release recounted by
# person (by hand and with risk_kanon(id =)). `ola_args` go to ola() only.
expect_keyset_optimum <- function(fx, metric, ola_args = list(), analysis = NULL, ...) {
  d <- fx$data
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  args <- list(...)
  ref <- hand_keyset_optimum(d, fx$keys, h, metric, analysis = analysis, ...)
  call_args <- c(list(d, fx$keys, fx$h, id = "pid", secret = "s",
                      metric = if (is.null(analysis)) metric else
                        analysis_loss(analysis$formula, analysis$family, analysis$term)),
                 args[setdiff(names(args), c("charge", "uniqueness", "cluster", "loglinear"))],
                 ola_args)
  if (!is.null(analysis)) metric <- "analysis"
  if (!is.null(args$charge)) call_args$suppressed_loss <- args$charge
  res <- suppressWarnings(do.call(ola, call_args))
  label <- paste(metric, paste(names(args), vapply(args, function(a)
    if (is.atomic(a)) paste(format(a), collapse = " ") else "<..>", ""), collapse = ", "))
  if (is.null(ref)) {
    expect_false(res$acceptable, label = label)
    return(invisible(res))
  }
  expect_true(res$acceptable, label = label)
  expect_identical(unname(res$levels), as.integer(ref$levels), label = label)
  expect_equal(info_loss(res, metric), ref$loss,
               tolerance = if (is.null(analysis)) tol_exact else 1e-7, label = label)
  gone <- ref$pids[ref$supp]
  expect_identical(res$suppressed, which(d$pid %in% gone), label = label)
  expect_identical(res$n_persons_suppressed, length(gone), label = label)
  if (nrow(res$data)) {
    sizes <- hand_release_sizes(res$data, fx$keys)
    expect_gte(min(sizes), args$k, label = label)
    expect_equal(sort(sizes), sort(res$class_sizes), label = label)
    rk <- risk_kanon(res$data, fx$keys, id = "pid")
    expect_identical(rk$n_persons, length(unique(d$pid)) - length(gone), label = label)
    expect_identical(rk$n_classes, length(sizes), label = label)
  }
  invisible(res)
}

metrics <- c("entropy", "precision", "discernibility", "avg_class_size")

test_that("key sets: at every node the lattice's classes of persons are the hand count", {
  fx <- keyset_fixture(70, 5)
  d <- fx$data
  expect_true(any(tapply(paste(d$age, d$zip), d$pid, function(t) length(unique(t))) > 1L))
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  person <- match(d$pid, unique(d$pid))
  lat <- epimask:::set_lattice_build(d, fx$keys, h, person)
  nodes <- all_nodes(h, fx$keys)
  bottom <- c(lat$bottom, list(levels = integer(3)))
  for (i in seq_len(nrow(nodes))) {
    lv <- as.integer(unname(nodes[i, ]))
    hs <- hand_sets(d, fx$keys, h, lv)
    # rolled up from the bottom and from every finer node
    finer <- which(apply(nodes, 1, function(r) all(r <= lv)))
    for (j in finer) {
      src <- if (j == 1L) bottom else {
        t0 <- epimask:::lattice_rollup(lat, bottom, as.integer(nodes[j, ]))
        t0$levels <- as.integer(nodes[j, ])
        t0
      }
      tab <- epimask:::lattice_rollup(lat, src, lv)
      sc <- epimask:::set_classes(lat, tab, lv, tie = TRUE)
      unit <- epimask:::record_class(lat, lv, sc$codes)
      expect_identical(match(unit, unique(unit)), match(hs$set, unique(hs$set)))
      expect_equal(sc$size[unit], as.vector(table(hs$set)[hs$set]))
      # weights: the distinct (person, original tuple) pairs behind each class
      orig <- paste(d$pid, d$age, d$sex, d$zip)
      u <- !duplicated(orig)
      pt_class <- unit[person[u]]
      expect_equal(as.vector(rowsum(tab$weight, sc$class[tab$group], reorder = TRUE)),
                   as.vector(tabulate(pt_class, max(sc$class))))
    }
    # and the classes of risk_kanon(id =) on the generalized records
    g <- d
    for (v in seq_along(fx$keys)) g[[fx$keys[v]]] <- hs$gen[[v]]
    rk <- risk_kanon(g, fx$keys, id = "pid")
    cl_rec <- match(hs$set, unique(hs$set))[person]
    expect_identical(match(rk$group, unique(rk$group)), match(cl_rec, unique(cl_rec)))
  }
})

test_that("key sets: the optimum with k equals the exhaustive search (4 metrics)", {
  fx <- keyset_fixture(120, 11, 0.6)
  multi <- 0
  for (metric in metrics) for (k in 2:3) for (ms in c(0.02, 0.1)) {
    res <- expect_keyset_optimum(fx, metric, k = k, max_suppress = ms)
    n_tuples <- tapply(do.call(paste, res$data[fx$keys]), res$data$pid,
                       function(t) length(unique(t)))
    multi <- multi + sum(n_tuples > 1L)
  }
  # the releases hold persons with several tuples (the case under test)
  expect_gt(multi, 100)
})

test_that("key sets: failing with l-diversity and the average risk equal the exhaustive search", {
  fx <- keyset_fixture(80, 12, 0.6)
  for (metric in metrics) {
    expect_keyset_optimum(fx, metric, k = 2, max_suppress = 0.15, outliers = "failing",
                          l = 2, ola_args = list(sensitive = "outcome"))
    expect_keyset_optimum(fx, metric, k = 2, max_suppress = 0.2, avg_risk = 0.3)
    expect_keyset_optimum(fx, metric, k = 1, max_suppress = 0.2, avg_risk = 0.25,
                          outliers = "failing")
  }
})

test_that("key sets: ARX's charging (node, block) equals the exhaustive search", {
  fx <- keyset_fixture(100, 13, 0.6)
  for (metric in metrics) for (charge in c("node", "block"))
    expect_keyset_optimum(fx, metric, k = 2, max_suppress = 0.2, charge = charge)
})

test_that("key sets: k-map with a population table of persons equals the exhaustive search", {
  fx <- keyset_fixture(60, 14, 0.6)
  pop <- keyset_fixture(400, 15, 0.6)$data
  # the sample's persons are in the population too
  s <- fx$data
  s$pid <- paste0("s", s$pid)
  pop <- rbind(pop, s)
  for (metric in metrics) for (km in c(3, 6))
    expect_keyset_optimum(fx, metric, k = 2, max_suppress = 0.2, outliers = "failing",
                          k_map = km, population = pop[c("pid", fx$keys)])
  # without the person column each population row is a person with one tuple:
  # a released multi-tuple set then matches no one
  res <- suppressWarnings(deprecated(ola(fx$data, fx$keys, fx$h, k = 2, id = "pid", secret = "s",
                              k_map = 3, population = pop[fx$keys], max_suppress = 0.5,
                              outliers = "failing")))
  rel_sets <- tapply(do.call(paste, res$data[fx$keys]), res$data$pid,
                     function(t) length(unique(t)))
  expect_true(all(rel_sets == 1L))
})

test_that("key sets: population uniqueness equals the exhaustive search", {
  fx <- keyset_fixture(80, 16, 0.6)
  for (metric in c("entropy", "precision"))
    expect_keyset_optimum(fx, metric, k = 1, max_suppress = 0.3,
                          uniqueness = list(share = zayatz_share_by_hand(0.2), max = 0.05),
                          ola_args = list(uniqueness = list(pi = 0.2, model = "zayatz",
                                                            max = 0.05)))
})

test_that("key sets: a person with one tuple searches as the one-row-per-person lattice", {
  # the key-set lattice on persons whose keys are constant gives the same
  # search as ola()'s lattice of one row per person
  fx <- keyset_fixture(90, 17, vary = 0)
  d <- fx$data
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  person <- match(d$pid, unique(d$pid))
  rows <- d[match(unique(d$pid), d$pid), ]
  lat_s <- epimask:::set_lattice_build(d, fx$keys, h, person, "outcome")
  lat_r <- epimask:::lattice_build(rows, fx$keys, h, "outcome")
  models <- list(
    list(k = 3, max_suppress = 0.1),
    list(k = 2, max_suppress = 0.2, l = 2, diversity = "distinct", outliers = "failing"),
    list(k = 2, max_suppress = 0.2, avg_risk = 0.3, outliers = "small"),
    list(k = 2, max_suppress = 0.2, charge = "block"))
  for (model in models) for (metric in metrics) {
    a <- epimask:::lattice_search(lat_s, model, metric)
    b <- epimask:::lattice_search(lat_r, model, metric)
    expect_identical(a$levels, b$levels)
    ev_a <- epimask:::lattice_evaluate(lat_s, epimask:::lattice_rollup(
      lat_s, c(lat_s$bottom, list(levels = integer(3))), a$levels), a$levels, model, metrics)
    ev_b <- epimask:::lattice_evaluate(lat_r, epimask:::lattice_rollup(
      lat_r, c(lat_r$bottom, list(levels = integer(3))), b$levels), b$levels, model, metrics)
    expect_equal(ev_a$loss, ev_b$loss, tolerance = tol_exact)
    expect_identical(ev_a$suppressed, ev_b$suppressed)
  }
})

test_that("key sets: cluster risk and log-linear risk equal the exhaustive search", {
  fx <- keyset_fixture(80, 18, 0.6)
  for (metric in c("entropy", "precision")) {
    res <- expect_keyset_optimum(fx, metric, k = 1, max_suppress = 0.3,
                                 cluster = list(column = "family", max = 0.45),
                                 ola_args = list(cluster_risk = list(cluster = "family",
                                                                     max = 0.45)))
    # the release's cluster share recounted by hand
    rel <- res$data
    fam <- tapply(rel$family, rel$pid, unique)
    sets <- tapply(do.call(paste, c(rel[fx$keys], sep = "\r")), rel$pid,
                   function(t) paste(sort(unique(t)), collapse = "\n"))
    r <- 1 / as.vector(table(sets)[sets])
    ch <- tapply(r, fam, function(x) 1 - prod(1 - x))
    expect_equal(res$criteria$cluster_risk$release, sum(ch[fam]) / length(r),
                 tolerance = tol_exact)
    res <- expect_keyset_optimum(fx, metric, k = 1, max_suppress = 0.1,
                                 loglinear = list(pi = 0.3, max = 0.02),
                                 ola_args = list(loglinear = list(pi = 0.3, max = 0.02)))
    # the release's tau1 share is risk_loglinear(id =)'s on the release
    expect_equal(res$criteria$loglinear$release,
                 risk_loglinear(res$data, fx$keys, pi = 0.3, id = "pid")$tau1_share,
                 tolerance = 1e-10)
  }
})

test_that("key sets: the analysis loss (glm() on the records of the persons kept) equals the exhaustive search", {
  fx <- keyset_fixture(80, 19, 0.6)
  for (ms in c(0.05, 0.2))
    expect_keyset_optimum(fx, "entropy", k = 2, max_suppress = ms,
                          analysis = list(formula = y ~ age + sex, family = poisson(),
                                          term = "sexm"))
})

test_that("key sets: local recoding searches the suppressed persons again, persons whole", {
  fx <- keyset_fixture(120, 20, 0.6)
  d <- fx$data
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  for (metric in c("entropy", "precision")) {
    res <- suppressWarnings(deprecated(ola(d, fx$keys, fx$h, k = 2, max_suppress = 0.2, id = "pid",
                                secret = "s", local = TRUE, metric = metric)))
    glob <- hand_keyset_optimum(d, fx$keys, h, metric, k = 2, max_suppress = 0.2)
    gone <- glob$pids[glob$supp]
    expect_gt(length(gone), 1L)
    # the first round: the exhaustive optimum on the suppressed persons' records
    sub <- d[d$pid %in% gone, ]
    r1 <- hand_keyset_optimum(sub, fx$keys, h, metric, k = 2, max_suppress = 0.2)
    if (is.null(r1)) {
      expect_identical(nrow(res$local), 0L)
    } else {
      expect_identical(res$local$levels[[1L]], paste(r1$levels, collapse = ","))
      expect_identical(res$local$persons[[1L]], sum(!r1$supp))
      expect_identical(res$local$records[[1L]],
                       sum(sub$pid %in% r1$pids[!r1$supp]))
    }
    # every person's records all released or all suppressed, and classes of
    # persons by key set of at least 2 (recount by hand)
    n_in <- table(d$pid)
    n_out <- table(res$data$pid)
    expect_identical(sum(n_out), nrow(d) - length(res$suppressed))
    expect_equal(sort(as.vector(n_out)),
                 sort(as.vector(n_in[!names(n_in) %in% d$pid[res$suppressed]])))
    expect_gte(min(hand_release_sizes(res$data, fx$keys)), 2L)
    expect_equal(sort(hand_release_sizes(res$data, fx$keys)), sort(res$class_sizes))
  }
})

# Pr(re-id | attack) by persons with key sets, by hand: each person's set of
# distinct key tuples (a blank a value of its own), classes of persons by
# equal sets, the strict average (classes per person when every class has at
# least 3 persons, else 1 / smallest class) times each attack's probability.
hand_sets_risk <- function(data, keys, person, context) {
  tuple <- do.call(paste, c(lapply(data[keys], function(v)
    ifelse(is.na(v), "<NA>", as.character(v))), sep = "\r"))
  sets <- tapply(tuple, person, function(t) paste(sort(unique(t)), collapse = "\n"))
  f <- as.vector(table(sets))
  maximum <- 1 / min(f)
  strict <- if (min(f) >= 3) length(f) / length(sets) else maximum
  pr <- c(context$pr_attempt, context$pr_acquaintance, context$pr_breach)
  risk <- if (identical(context$breach_risk, "maximum")) c(pr[1:2] * strict, pr[3] * maximum)
          else pr * strict
  list(risk = risk, overall = max(risk), n_tuples = tapply(tuple, person,
                                                           function(t) length(unique(t))))
}

test_that("deidentify(id =) with key sets: certificate = hand recount by persons, persons whole", {
  fx <- keyset_fixture(150, 21, 0.6)
  d <- fx$data
  copy <- d
  ctx <- release_context(pr_attempt = 0.3, pr_acquaintance = 0.5, threshold = 0.15)
  for (local in c(FALSE, TRUE)) {
    # the columns the column review flags (near-unique with a key) declared:
    # the case under test is the key sets of the keys stated
    rel <- suppressWarnings(deidentify(d, fx$keys, fx$h, ctx, id = "pid",
                                       identifiers = c(pid = "pseudonymise"),
                                       declare = c(outcome = "test fixture", family = "test fixture",
                                                   wt = "test fixture", y = "test fixture"),
                                       secret = "custodian key", local = local))
    expect_identical(d, copy)
    back <- d$pid[match(rel$data$pid, vapply(d$pid, function(p)
      substr(as.character(openssl::sha256(p, key = "custodian key")), 1L, 16L), ""))]
    expect_false(anyNA(back))
    hand <- hand_sets_risk(rel$data, fx$keys, back, ctx)
    # persons with several tuples are released (the case under test)
    expect_gt(sum(hand$n_tuples > 1L), 10L)
    expect_equal(rel$certificate$risk, hand$risk, tolerance = 1e-12)
    expect_equal(rel$overall_risk, hand$overall, tolerance = 1e-12)
    expect_identical(rel$pass, hand$overall <= ctx$threshold)
    # each person's records all kept or all dropped
    n_orig <- table(d$pid)
    n_rel <- table(back)
    expect_equal(as.vector(n_rel), as.vector(n_orig[names(n_rel)]))
    expect_identical(rel$n_persons_released, length(n_rel))
  }
  expect_true(rel$pass)
})

test_that("key sets: persons in classes smaller than k never rise with generalization (the tagged part)", {
  fx <- keyset_fixture(100, 22, 0.6)
  d <- fx$data
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  nodes <- all_nodes(h, fx$keys)
  in_small <- lapply(seq_len(nrow(nodes)), function(i) {
    s <- hand_sets(d, fx$keys, h, unname(nodes[i, ]))$set
    f <- as.vector(table(s)[s])
    vapply(2:5, function(k) sum(f < k), integer(1))
  })
  for (i in seq_len(nrow(nodes))) for (j in seq_len(nrow(nodes))) {
    if (i != j && all(nodes[i, ] <= nodes[j, ]))
      expect_true(all(in_small[[j]] <= in_small[[i]]))
  }
  # the search and its exhaustive twin agree on the key-set lattice
  person <- match(d$pid, unique(d$pid))
  lat <- epimask:::set_lattice_build(d, fx$keys, h, person, "outcome")
  for (model in list(list(k = 3, max_suppress = 0.05),
                     list(k = 2, max_suppress = 0.2, l = 2, diversity = "distinct",
                          outliers = "failing", avg_risk = 0.3)))
    for (metric in metrics)
      expect_identical(epimask:::lattice_search(lat, model, metric)$levels,
                       epimask:::lattice_exhaustive(lat, model, metric)$levels)
})

test_that("key sets: bad input gives classed errors, the data are not modified", {
  fx <- keyset_fixture(40, 23, 0.6)
  d <- fx$data
  copy <- d
  pop <- fx$data[c("pid", fx$keys)]
  pop$pid[3] <- NA
  err <- expect_error(deprecated(ola(d, fx$keys, fx$h, k = 2, id = "pid", secret = "s", k_map = 2,
                          population = pop)), class = "epimask_error_value")
  expect_identical(err$arg, "id")
  d2 <- d
  d2$pid[5] <- NA
  expect_error(deprecated(ola(d2, fx$keys, fx$h, k = 2, id = "pid", secret = "s")),
               class = "epimask_error")
  # a cluster must hold whole persons
  d3 <- d
  d3$family[d3$pid == d3$pid[1]][1] <- "elsewhere"
  if (sum(d3$pid == d3$pid[1]) > 1L)
    expect_error(deprecated(ola(d3, fx$keys, fx$h, k = 2, id = "pid", secret = "s",
                     cluster_risk = list(cluster = "family", max = 0.5))),
                 class = "epimask_error_value")
  expect_identical(d, copy)
})

test_that("key sets: k-map from a sampling fraction is k-anonymity by persons with ARX's derived k", {
  fx <- keyset_fixture(80, 24, 0.6)
  # ARX's derived k by hand: the smallest c with P(Poisson(pi k_map) <= c) >= 1 - alpha,
  # plus 2, capped at k_map and the number of persons
  c0 <- 0
  while (ppois(c0, 0.2 * 10) < 0.99) c0 <- c0 + 1
  derived <- min(c0 + 2, 10, 80)
  expect_gt(derived, 2)
  d <- fx$data
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  ref <- hand_keyset_optimum(d, fx$keys, h, "entropy", k = derived, max_suppress = 0.1)
  res <- deprecated(ola(d, fx$keys, fx$h, k = 2, max_suppress = 0.1, id = "pid", secret = "s",
             k_map = 10, population = population_model(0.2)))
  expect_identical(res$criteria$k_map_model$derived_k, as.integer(derived))
  expect_identical(unname(res$levels), as.integer(ref$levels))
  expect_identical(res$suppressed, which(d$pid %in% ref$pids[ref$supp]))
  expect_gte(min(hand_release_sizes(res$data, fx$keys)), derived)
})
