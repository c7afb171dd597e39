# ola(id =) with key sets (persons whose key values differ between records,
# methods vignette section 23) against its exhaustive twin on the key-set
# lattice (every node rolled up from the bottom set table and evaluated) and
# against ola() on the records (the cost of counting persons), on the Adult
# census made a registry: each of the 30,162 persons has 1-4 stays, the age
# at a stay grows with the years and the marital status changes at some
# later stays (seed 25). Prints time (elapsed and CPU), nodes evaluated, the
# loss and whether the search and the exhaustive twin chose the same node,
# and the ratios against the twin in the same run.
#   Rscript inst/bench/bench-ola-keysets.R /path/to/adult.csv
suppressPackageStartupMessages(library(epimask))
cat(sprintf("load: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))
cat(sprintf("machine: %s, %d cores\n", R.version$platform, parallel::detectCores()))
path <- commandArgs(TRUE)[1]
if (is.na(path)) path <- "/work/shared/data/adult.csv"
a <- read.csv(path, check.names = FALSE, stringsAsFactors = FALSE)
names(a) <- gsub("-", "_", names(a))
keys <- c("age", "sex", "race", "marital_status", "education")
a <- a[complete.cases(a[keys]), ]
edu <- data.frame(
  v = c("Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th",
        "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters",
        "Prof-school", "Doctorate"),
  a = rep(c("primary", "secondary", "some college", "degree"), c(4, 5, 3, 4)),
  b = rep(c("school", "college"), c(9, 7)))
mar <- data.frame(v = c("Married-civ-spouse", "Married-AF-spouse", "Married-spouse-absent",
                        "Never-married", "Divorced", "Separated", "Widowed"),
                  a = c("married", "married", "married", "never", "was", "was", "was"))
h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(), race = hierarchy_flat(),
          marital_status = hierarchy_category(mar), education = hierarchy_category(edu))
set.seed(25)
P <- nrow(a)
a$person <- sprintf("R%05d", seq_len(P))
m <- sample(1:4, P, TRUE, prob = c(0.4, 0.3, 0.2, 0.1))
reg <- a[rep(seq_len(P), m), c("person", keys)]
first <- sequence(m) == 1L
reg$age <- reg$age + ave(ifelse(first, 0L, sample(0:2, nrow(reg), TRUE)), cumsum(first),
                         FUN = cumsum)
change <- !first & runif(nrow(reg)) < 0.1
reg$marital_status[change & reg$marital_status == "Never-married"] <- "Married-civ-spouse"
reg$marital_status[change & reg$marital_status == "Married-civ-spouse"] <- "Divorced"
nt <- tapply(do.call(paste, reg[keys]), reg$person, function(t) length(unique(t)))
cat(sprintf("registry: %d stays of %d persons, %d with several key tuples\n", nrow(reg), P,
            sum(nt > 1)))

time_it <- function(expr) {
  t0 <- proc.time()
  value <- force(expr)
  t1 <- proc.time() - t0
  list(value = value, seconds = t1[["elapsed"]], cpu = t1[["user.self"]] + t1[["sys.self"]])
}
hh <- epimask:::check_hierarchies(h, keys, reg)
person <- match(reg$person, unique(reg$person))
rows <- list()
for (k in c(3, 5)) for (metric in c("entropy", "discernibility")) {
  o <- time_it(ola(reg, keys, h, k = k, metric = metric, id = "person", secret = "bench"))
  x <- time_it({
    lat <- epimask:::set_lattice_build(reg, keys, hh, person)
    epimask:::lattice_exhaustive(lat, list(k = k, max_suppress = 0.05), metric)
  })
  r <- time_it(suppressWarnings(ola(reg[keys], keys, h, k = k, metric = metric)))
  rows[[length(rows) + 1L]] <- data.frame(
    k = k, metric = metric, ola_s = round(o$seconds, 2), ola_cpu = round(o$cpu, 2),
    evaluated = o$value$nodes_evaluated, nodes = o$value$nodes_total,
    exhaustive_cpu = round(x$cpu, 2), same = identical(unname(o$value$levels), x$value$levels),
    cpu_ratio = round(x$cpu / o$cpu, 1), records_ola_cpu = round(r$cpu, 2),
    persons_over_records = round(o$cpu / max(r$cpu, 1e-3), 1),
    loss = signif(info_loss(o$value, metric), 6))
}
print(do.call(rbind, rows), row.names = FALSE)
cat(sprintf("load after: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))
