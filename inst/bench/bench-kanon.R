# Benchmark: risk_kanon() (hashed equivalence classes in C) against plain R
# counts of the key combinations on the same data, with 5 quasi-identifiers of
# mixed types: paste() + table() (the usual idiom; run up to `table_max`
# records, since table() sorts the pasted strings and takes minutes beyond),
# and paste() + match(unique()) + tabulate() (plain R hashing, every size).
# Prints seconds, the ratios, and the peak memory of the risk_kanon() call
# (R's "max used" after gc(reset = TRUE)).
# Run: Rscript inst/bench/bench-kanon.R [sizes...]   (default 1e6 5e6)

suppressPackageStartupMessages(library(epimask))

args <- commandArgs(trailingOnly = TRUE)
sizes <- if (length(args)) as.numeric(args) else c(1e6, 5e6)

make_data <- function(n) {
  data.frame(
    sex = factor(sample(c("F", "M"), n, TRUE)),
    yob = sample(1920:2005, n, TRUE),
    zip3 = sprintf("%03d", sample(100:999, n, TRUE)),
    admitted = as.Date("2020-01-01") + sample(0:365, n, TRUE),
    race = factor(sample(c("A", "B", "C", "D", "E", NA), n, TRUE)),
    stringsAsFactors = FALSE)
}

keys <- c("sex", "yob", "zip3", "admitted", "race")

table_max <- 1e6

# Plain R: one string per record, counted with table(); record risk 1 / f.
paste_key <- function(data, keys)
  do.call(paste, c(lapply(data[keys], as.character), sep = "\r"))

table_risk <- function(data, keys) {
  key <- paste_key(data, keys)
  f <- table(key)
  1 / as.vector(f[key])
}

match_risk <- function(data, keys) {
  key <- paste_key(data, keys)
  g <- match(key, unique(key))
  1 / tabulate(g)[g]
}

peak_mb <- function(expr) {
  invisible(gc(reset = TRUE))
  base <- sum(gc()[, 2L])
  force(expr)
  sum(gc()[, 6L]) - base
}

set.seed(1)
rows <- list()
for (n in sizes) {
  data <- make_data(n)
  data_mb <- as.numeric(utils::object.size(data)) / 2^20
  t_kanon <- system.time(r <- risk_kanon(data, keys))[["elapsed"]]
  mem <- peak_mb(risk_kanon(data, keys))
  t_match <- system.time(p <- match_risk(data, keys))[["elapsed"]]
  stopifnot(isTRUE(all.equal(r$record_risk, p)))
  t_table <- NA_real_
  if (n <= table_max) {
    t_table <- system.time(p <- table_risk(data, keys))[["elapsed"]]
    stopifnot(isTRUE(all.equal(r$record_risk, p)))
  }
  rows[[length(rows) + 1L]] <- data.frame(
    n = format(n, big.mark = ",", scientific = FALSE), keys = length(keys),
    classes = r$n_classes, risk_kanon_s = round(t_kanon, 2),
    paste_match_s = round(t_match, 2), ratio_match = round(t_match / t_kanon, 1),
    paste_table_s = round(t_table, 2), ratio_table = round(t_table / t_kanon, 1),
    data_mb = round(data_mb), peak_mb = round(mem))
  rm(data, r, p)
  invisible(gc())
}
cat("risk_kanon() vs plain R counts, 5 keys (factor, integer, character, Date, factor with NA)\n")
cat("ratio_* = plain R seconds / risk_kanon seconds; paste/table skipped (NA) above",
    format(table_max, scientific = FALSE), "records\n")
cat("peak_mb = peak R memory of the risk_kanon call; data_mb = size of the data\n")
print(do.call(rbind, rows), row.names = FALSE)
