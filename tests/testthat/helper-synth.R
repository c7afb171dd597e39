# Fixtures and independent references for the synthesis tests.

# A small data set of every column type the synthesis keeps, with NA.
synth_types_fixture <- function(n = 240, seed = 1) {
  set.seed(seed)
  d <- data.frame(
    age = sample(20:80, n, TRUE),
    sex = factor(sample(c("f", "m"), n, TRUE)),
    grade = factor(sample(c("low", "mid", "high"), n, TRUE), levels = c("low", "mid", "high"),
                   ordered = TRUE),
    city = sample(c("north", "south", NA), n, TRUE),
    smoker = sample(c(TRUE, FALSE, NA), n, TRUE),
    stringsAsFactors = FALSE)
  d$bmi <- round(22 + 0.05 * d$age + rnorm(n, 0, 3), 1)
  d$bmi[sample(n, 15)] <- NA
  d$visit <- as.Date("2020-01-01") + sample(0:700, n, TRUE)
  d$seen <- as.POSIXct("2021-03-01 08:00:00", tz = "Europe/Berlin") + sample(0:1e6, n, TRUE)
  d
}

# The R reference of the C donor sampler (src/synth.c): the same random
# numbers in the same order (exponentials per donor leaf by leaf, then a
# uniform per target), a plain loop.
reference_donors <- function(donor_leaf, target_leaf, n_leaf, bayes) {
  order <- order(donor_leaf, seq_along(donor_leaf))
  w <- if (bayes) stats::rexp(length(donor_leaf)) else NULL
  u <- stats::runif(length(target_leaf))
  out <- integer(length(target_leaf))
  for (t in seq_along(target_leaf)) {
    pos <- which(donor_leaf[order] == target_leaf[t])
    donors <- order[pos]
    if (bayes) {
      cum <- cumsum(w[pos])
      j <- which(cum > u[t] * cum[length(cum)])[1L]
    } else {
      j <- min(floor(u[t] * length(donors)) + 1L, length(donors))
    }
    out[t] <- donors[j]
  }
  out
}

# Rows of `syn` equal (on `cols`) to an original record no other original
# record equals: a loop over pasted rows.
reference_reproduced <- function(original, syn, cols) {
  key <- function(d) do.call(paste, c(lapply(d[cols], function(x) ifelse(is.na(x), "<NA>", as.character(x))),
                                      sep = "\r"))
  ko <- key(original)
  uniques <- names(which(table(ko) == 1L))
  which(key(syn) %in% uniques)
}
