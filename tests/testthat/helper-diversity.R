# Brute-force references for l-diversity and t-closeness (methods vignette
# section 12), the only R copies of the formulas of src/diversity.c: dense
# per-class tables and explicit loops, no prefix-sum tricks.

# --- from the records: split() by the keys, table() the values -----------------

na_label <- function(x) {
  v <- as.character(x)
  v[is.na(x)] <- "\001NA"
  v
}

split_classes <- function(data, keys) {
  key <- do.call(paste, c(lapply(data[keys], na_label), sep = "\r"))
  factor(key, levels = unique(key))   # classes in order of first appearance
}

ldiv_plain <- function(data, keys, s, const) {
  cls <- split(na_label(data[[s]]), split_classes(data, keys))
  t(vapply(cls, function(v) {
    r <- sort(as.vector(table(v)), decreasing = TRUE)
    p <- r / sum(r)
    m <- length(r)
    rec <- 1
    for (l in seq_len(m)) if (r[1] < const * sum(r[l:m])) rec <- max(rec, l)
    # (c()'s own `recursive` argument forbids c(..., recursive = rec))
    stats::setNames(c(m, exp(-sum(p * log(p))), rec), c("distinct", "entropy", "recursive"))
  }, numeric(3)))
}

# Ordered values: numbers by value, factors by level, strings sorted; NA last.
value_levels <- function(x, ordered) {
  if (!ordered) return(unique(na_label(x)))
  u <- if (is.factor(x)) levels(droplevels(x)) else as.character(sort(unique(x[!is.na(x)]), method = "radix"))
  if (anyNA(x)) u <- c(u, "\001NA")
  u
}

emd_plain <- function(data, keys, s, ordered) {
  x <- data[[s]]
  lev <- value_levels(x, ordered)
  v <- factor(na_label(x), levels = lev)
  q <- as.vector(table(v)) / length(v)
  m <- length(lev)
  vapply(split(v, split_classes(data, keys)), function(vj) {
    p <- as.vector(table(vj)) / length(vj)
    if (ordered) {
      if (m == 1L) return(0)
      # the EMD with ground distance |i - k| / (m - 1), as a transport LP
      # has the cumulative form; the dense double sum below spells it out
      sum(abs(vapply(seq_len(m), function(i) sum(p[1:i] - q[1:i]), 0))) / (m - 1)
    } else {
      sum(abs(p - q)) / 2
    }
  }, 0)
}

# --- from rows (class, value, count), as the C routine takes them ---------------

# Per class: distinct, entropy l, recursive (c, l) (c > 0) and the EMD to q
# (ordered: ground distance |i - k| / (m - 1), in its cumulative form spelt
# out as a double loop; else half the L1 distance). A class x value table of
# counts is filled row by row; everything is then read off that dense table.
diversity_brute <- function(class, value, n_classes, m, count = rep(1, length(class)),
                            q = NULL, ordered = FALSE, c = 0) {
  tab <- matrix(0, n_classes, m)
  for (i in seq_along(class)) tab[class[i], value[i]] <- tab[class[i], value[i]] + count[i]
  out <- list(distinct = numeric(n_classes), entropy_l = numeric(n_classes),
              recursive = numeric(n_classes), emd = numeric(n_classes))
  for (j in seq_len(n_classes)) {
    r <- tab[j, ]
    f <- sum(r)
    p <- r / f
    present <- r > 0
    out$distinct[j] <- sum(present)
    h <- 0
    for (v in which(present)) h <- h - p[v] * log(p[v])
    out$entropy_l[j] <- exp(h)
    if (c > 0) {
      rs <- sort(r[present], decreasing = TRUE)
      rec <- 1
      for (l in seq_along(rs)) {
        tail <- 0
        for (t in l:length(rs)) tail <- tail + rs[t]
        if (rs[1] < c * tail) rec <- max(rec, l)
      }
      out$recursive[j] <- rec
    }
    if (!is.null(q)) {
      if (ordered) {
        if (m == 1L) next
        total <- 0
        for (i in seq_len(m)) {
          cum <- 0
          for (k in seq_len(i)) cum <- cum + p[k] - q[k]
          total <- total + abs(cum)
        }
        out$emd[j] <- total / (m - 1)
      } else {
        total <- 0
        for (k in seq_len(m)) total <- total + abs(p[k] - q[k])
        out$emd[j] <- total / 2
      }
    }
  }
  if (c <= 0) out$recursive <- NULL
  if (is.null(q)) out$emd <- NULL
  out
}
