# References for the three attacks (methods vignette section 28), written
# from the definitions on the raw data frames, not on the package's coding.

# Gower's distance from record a (a one-row data frame) to every row of `b`
# on `cols`: a number's difference over the range of the column in `all`
# (every record of the attack), a category 0 / 1; NA as a category (NA = NA
# is 0, NA against a value 1) or, with na = "ignore", the column left out
# (no column left: 1). Returns the column sums (na = "category") or the
# means (na = "ignore"), summed column by column in order as the C core does.
ref_gower_sums <- function(a, b, cols, all, na = "category") {
  s <- numeric(nrow(b))
  cnt <- numeric(nrow(b))
  for (col in cols) {
    x <- all[[col]]
    num <- is.numeric(x) || inherits(x, c("Date", "POSIXt")) || is.ordered(x)
    as_num <- function(v) {
      if (inherits(v, "POSIXt")) return(as.double(v) / 86400)
      if (is.ordered(v)) return(as.double(as.integer(v)))
      as.double(v)
    }
    if (num) {
      r <- diff(range(as_num(x), na.rm = TRUE))
      if (!is.finite(r) || r == 0) r <- 1
      u <- as_num(a[[col]]) / r
      v <- as_num(b[[col]]) / r
      t <- ifelse(is.na(u) & is.na(v), 0, ifelse(is.na(u) | is.na(v), 1, abs(u - v)))
      skip <- is.na(u) | is.na(v)
    } else {
      u <- as.character(a[[col]])
      v <- as.character(b[[col]])
      t <- ifelse(is.na(u) & is.na(v), 0, ifelse(is.na(u) | is.na(v), 1,
                                                  ifelse(u == v, 0, 1)))
      skip <- is.na(u) | is.na(v)
    }
    if (na == "ignore") t[skip] <- 0
    s <- s + t
    cnt <- cnt + if (na == "ignore") !skip else 1
  }
  if (na == "category") return(s)
  ifelse(cnt > 0, s / cnt, 1)
}

# The k nearest rows of `b` to each row of `a`: order by (sum, row).
ref_knn <- function(a, b, cols, k, all, na = "category") {
  idx <- matrix(0L, k, nrow(a))
  dist <- matrix(0, k, nrow(a))
  p <- length(cols)
  for (i in seq_len(nrow(a))) {
    s <- ref_gower_sums(a[i, , drop = FALSE], b, cols, all, na)
    o <- order(s, seq_along(s))[seq_len(k)]
    idx[, i] <- o
    dist[, i] <- if (na == "category") s[o] / p else s[o]
  }
  list(idx = idx, dist = dist)
}

# Coded data and the package's search, for comparison with the references.
pkg_knn <- function(a, b, cols, k, na = "category", search = "auto", threads = NULL) {
  codes <- epimask:::attack_code(cols, list(original = a, release = b))
  epimask:::gower_nearest(codes$coded$release, codes$coded$original, codes, cols, k,
                          attack_options(na = na, search = search, threads = threads))
}

# Mixed data with ties, duplicates and missing values.
mixed_data <- function(n, seed, na_share = 0.05, dup = TRUE) {
  set.seed(seed)
  d <- data.frame(
    age = sample(20:80, n, replace = TRUE),
    bmi = round(rnorm(n, 26, 4), 1),
    sex = factor(sample(c("f", "m"), n, replace = TRUE)),
    region = sample(c("north", "south", "east", "west", "centre"), n, replace = TRUE),
    smoker = sample(c(TRUE, FALSE), n, replace = TRUE),
    visit = as.Date("2020-01-01") + sample(0:700, n, replace = TRUE),
    stage = factor(sample(c("I", "II", "III"), n, replace = TRUE),
                   levels = c("I", "II", "III"), ordered = TRUE),
    stringsAsFactors = FALSE)
  if (dup) d[seq(2, n, by = 7), ] <- d[seq(1, n - 1, by = 7)[seq_along(seq(2, n, by = 7))], ]
  for (col in c("bmi", "region", "visit")) d[[col]][sample.int(n, round(na_share * n))] <- NA
  d
}

# Evaluate one predicate (rows of the result's `predicates` table) on the
# raw data frame `data`: the NA rules of methods vignette 28.4 (NA equals no
# value, is neither below nor above anything, != holds for it).
ref_predicate_match <- function(conds, data) {
  ok <- rep(TRUE, nrow(data))
  for (i in seq_len(nrow(conds))) {
    x <- data[[conds$column[[i]]]]
    num <- !(is.factor(x) && !is.ordered(x)) && !is.character(x) && !is.logical(x)
    xv <- if (inherits(x, "POSIXt")) as.double(x) / 86400 else
      if (is.ordered(x)) as.double(as.integer(x)) else if (num) as.double(x) else as.character(x)
    v <- if (num) conds$number[[i]] else conds$value[[i]]
    na <- is.na(xv)
    hit <- switch(conds$op[[i]],
                  `==` = !na & xv == v, `!=` = na | xv != v,
                  `<` = !na & xv < v, `<=` = !na & xv <= v,
                  `>` = !na & xv > v, `>=` = !na & xv >= v,
                  `is NA` = na, `is not NA` = !na)
    hit[is.na(hit)] <- FALSE
    ok <- ok & hit
  }
  ok
}

# Whether each predicate of a table matches exactly one unit of `data`.
ref_singles <- function(table, data, unit = seq_len(nrow(data))) {
  vapply(split(table, table$predicate), function(conds) {
    m <- ref_predicate_match(conds, data)
    length(unique(unit[m])) == 1L
  }, logical(1))
}
