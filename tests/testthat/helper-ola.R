# The reference for ola(): every lattice node generalized with generalize(),
# its classes counted with table(), its privacy model and information loss
# written out from methods vignette section 12 and 16 by hand, and the optimum picked by the
# tie rule (least loss within 1e-9, then lower sum of levels, then the
# lexicographically smaller level vector).

brute_node <- function(data, keys, hierarchies, levels, k, max_suppress,
                       l = NULL, t = NULL, sensitive = NULL,
                       diversity = "distinct", ordered = character()) {
  n <- nrow(data)
  gen <- lapply(seq_along(keys), function(v)
    as.character(generalize(data[[keys[v]]], hierarchies[[keys[v]]], levels[[v]])))
  class_id <- do.call(paste, c(gen, sep = "\r"))
  f <- table(class_id)
  size <- as.vector(f[class_id])
  suppressed <- size < k
  s <- sum(suppressed)
  ok <- s <= max_suppress * n
  for (sv in sensitive) {
    x <- data[[sv]]
    for (cl in unique(class_id[!suppressed])) {
      v <- x[class_id == cl]
      p <- as.vector(table(factor(v, levels = unique(x)), useNA = "ifany")) / length(v)
      p <- p[p > 0]
      if (!is.null(l)) {
        lj <- if (diversity == "distinct") length(unique(v)) else exp(-sum(p * log(p)))
        if (lj < l - 1e-9) ok <- FALSE
      }
      if (!is.null(t)) {
        vals <- unique(x)
        if (sv %in% ordered) vals <- sort(vals)
        P <- vapply(vals, function(a) mean(v == a), numeric(1))
        Q <- vapply(vals, function(a) mean(x == a), numeric(1))
        m <- length(vals)
        emd <- if (sv %in% ordered) {
          if (m == 1) 0 else sum(abs(cumsum(P - Q))) / (m - 1)
        } else sum(abs(P - Q)) / 2
        if (emd > t + 1e-9) ok <- FALSE
      }
    }
  }
  top <- vapply(keys, function(key) length(hierarchies[[key]]$levels) - 1L, integer(1))
  A <- length(keys)
  # precision: levels of released records, tops of suppressed ones
  prec <- sum(vapply(seq_len(A), function(v)
    sum(ifelse(suppressed, 1, levels[[v]] / top[[v]])), numeric(1))) / (n * A)
  dm <- sum(as.double(table(class_id[!suppressed]))^2) + n * s
  ent <- 0
  for (v in seq_len(A)) {
    x <- as.character(data[[keys[v]]])
    x[is.na(x)] <- "<NA>"
    g <- gen[[v]]
    g[is.na(g)] <- "<NA>"
    n_x <- as.vector(table(x)[x])
    n_g <- as.vector(table(g)[g])
    n_g[suppressed] <- n
    ent <- ent + sum(-log2(n_x / n_g))
  }
  avg <- if (n > s) (n - s) / length(unique(class_id[!suppressed])) / k else n / k
  list(ok = ok, loss = c(entropy = ent, precision = prec, discernibility = dm,
                         avg_class_size = avg))
}

# (`qi`, not `keys`: a `k = ` in `...` would partially match `keys`)
brute_optimum <- function(data, qi, hierarchies, metric, ...) {
  keys <- qi
  nodes <- all_nodes(hierarchies, keys)
  best <- NULL
  for (i in seq_len(nrow(nodes))) {
    lv <- unname(nodes[i, ])
    r <- brute_node(data, keys, hierarchies, lv, ...)
    if (!r$ok) next
    loss <- r$loss[[metric]]
    if (beats(lv, loss, best)) best <- list(levels = lv, loss = loss, all = r$loss)
  }
  best
}

# Every node of the lattice, one row per vector of levels.
all_nodes <- function(hierarchies, keys) {
  tops <- vapply(keys, function(key) length(hierarchies[[key]]$levels) - 1L, integer(1))
  as.matrix(expand.grid(lapply(tops, function(h) 0:h)))
}

# The tie rule of methods vignette section 16: least loss (within 1e-9 relative), then the
# lower sum of levels, then the lexicographically smaller vector.
beats <- function(lv, loss, best) {
  is.null(best) || loss < best$loss - 1e-9 * max(1, abs(best$loss)) ||
    (abs(loss - best$loss) <= 1e-9 * max(1, abs(best$loss)) &&
       (sum(lv) < sum(best$levels) ||
          (sum(lv) == sum(best$levels) && lex_less(lv, best$levels))))
}

lex_less <- function(a, b) {
  d <- which(a != b)
  length(d) > 0 && a[d[1]] < b[d[1]]
}

# Small random data with nested hierarchies of heights 3, 1, 2, 2.
ola_fixture <- function(n, seed) {
  set.seed(seed)
  d <- data.frame(
    age = sample(20:59, n, TRUE),
    sex = sample(c("f", "m"), n, TRUE, prob = c(0.6, 0.4)),
    zip = sample(c("021", "022", "031", "032", "041"), n, TRUE),
    dx = sample(c("I21", "I22", "J45", "J46", "K50"), n, TRUE),
    outcome = sample(c("a", "b", "c"), n, TRUE, prob = c(0.6, 0.3, 0.1)),
    score = sample(1:4, n, TRUE),
    stringsAsFactors = FALSE)
  h <- list(
    age = hierarchy_numeric(c(10, 20)),
    sex = hierarchy_flat(),
    zip = hierarchy_category(data.frame(v = c("021", "022", "031", "032", "041"),
                                        a = c("02", "02", "03", "03", "04"))),
    dx = hierarchy_category(data.frame(v = c("I21", "I22", "J45", "J46", "K50"),
                                       a = c("I2", "I2", "J4", "J4", "K5"))))
  list(data = d, h = h, keys = c("age", "sex", "zip", "dx"))
}
