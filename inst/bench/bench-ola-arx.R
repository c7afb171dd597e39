# ola() replaying ARX's own test cases on Adult (ARX's test suite,
# src/test/org/deidentifier/arx/test/TestAnonymization*.java, the cases whose
# data set is ./data/adult.csv), with ARX's data and hierarchies
# (data/adult.csv, data/adult_hierarchy_*.csv, data/adult_subset.csv), the
# criteria and metric of each case mapped to ola()'s arguments:
#   outliers = "failing" (ARX suppresses every class failing any criterion),
#   Metric.createPrecomputedEntropyMetric(., monotonic = TRUE) -> entropy with
#     suppressed_loss = "node"; monotonic = FALSE -> suppressed_loss = "block";
#   Metric.createDiscernabilityMetric(TRUE) -> discernibility, "node";
#   Metric.createAECSMetric() -> avg_class_size with "block" (ARX's AECS is
#     epimask's times k);
#   KAnonymity(k); EntropyLDiversity(s, l) with ARX's Shannon estimator ->
#     l-diversity "entropy"; EqualDistanceTCloseness(s, t) -> t on an
#     unordered s; OrderedDistanceTCloseness -> t with `ordered = s` (ARX
#     orders the values of the attribute's data type, strings alphabetically);
#   AverageReidentificationRisk(r) -> avg_risk;
#   KMap(k, DataSubset(adult, adult_subset)) -> data = the subset, population
#     = the whole of adult.csv, k_map (k = 1).
# Not replayed (no counterpart in epimask): the Grassberger entropy estimator,
# HierarchicalDistanceTCloseness (TestAnonymizationTCloseness adds it to its
# cases with k only),
# KMap with an estimated population (ARXPopulationModel), SampleUniqueness and
# PopulationUniqueness (the sample-release issue adds them), and the
# local-recoding cases (they compare a hash of ARX's output).
# Prints, per case, ARX's expected node and loss, ola()'s, and whether they
# agree (loss within a relative 1e-9: ARX prints its loss rounded to the
# double it holds), then the counts.
#   Rscript inst/bench/bench-ola-arx.R
# ARX's repository is read from EPIMASK_ARX_REPO (a git directory or a
# checkout; default: the mirror at /work/.mirror/arx-deidentifier+arx/repo).
suppressPackageStartupMessages(library(epimask))
cat(sprintf("machine: %s, %d cores; load: %s\n", Sys.info()[["nodename"]],
            parallel::detectCores(), paste(readLines("/proc/loadavg"), collapse = "")))

repo <- Sys.getenv("EPIMASK_ARX_REPO", "/work/.mirror/arx-deidentifier+arx/repo")
if (!dir.exists(repo)) {
  cat("ARX's repository not found (set EPIMASK_ARX_REPO); nothing to replay.\n")
  quit(save = "no")
}
arx_file <- function(path) {
  if (file.exists(file.path(repo, path))) return(file.path(repo, path))
  out <- file.path(tempdir(), basename(path))
  status <- system2("git", c("--git-dir", repo, "show", paste0("HEAD:", path)), stdout = out)
  if (status != 0) stop("cannot read ", path, " from ", repo)
  out
}
commit <- tryCatch(system2("git", c("--git-dir", repo, "rev-parse", "--short", "HEAD"),
                           stdout = TRUE), error = function(e) "?")
cat(sprintf("ARX repository %s at %s\n", repo, commit))

read_semicolon <- function(path)
  utils::read.table(path, sep = ";", header = TRUE, check.names = FALSE,
                    colClasses = "character", quote = "", comment.char = "")
adult <- read_semicolon(arx_file("data/adult.csv"))
subset <- read_semicolon(arx_file("data/adult_subset.csv"))
attrs <- names(adult)
hier <- lapply(attrs, function(a) {
  tab <- utils::read.table(arx_file(sprintf("data/adult_hierarchy_%s.csv", a)), sep = ";",
                           colClasses = "character", quote = "", comment.char = "")
  hierarchy_category(tab)
})
names(hier) <- attrs
cat(sprintf("Adult: %d records, subset %d; attributes %s\n", nrow(adult), nrow(subset),
            paste(attrs, collapse = ", ")))

# One ARX case: criteria, metric (+ monotone flag), suppression limit, the
# expected loss and node (NULL: ARX finds no solution).
case <- function(test, id, limit, metric, monotone, loss, node, k = NULL, l = NULL,
                 t = NULL, ordered = FALSE, sensitive = NULL, avg_risk = NULL,
                 k_map = NULL)
  list(test = test, id = id, limit = limit, metric = metric, monotone = monotone,
       loss = loss, node = node, k = k, l = l, t = t, ordered = ordered,
       sensitive = sensitive, avg_risk = avg_risk, k_map = k_map)
E <- "entropy"; D <- "discernibility"; A <- "avg_class_size"
o <- "occupation"
cases <- list(
  # TestAnonymizationKAnonymity (the practical-monotonicity duplicates, ids 4
  # and 5, expect the same as 0 and 1)
  case("KAnonymity", 0, 0.04, E, TRUE, 255559.85455731067, c(1, 0, 1, 1, 3, 2, 2, 0, 1), k = 5),
  case("KAnonymity", 1, 0.04, E, TRUE, 379417.3460570988, c(1, 1, 1, 1, 3, 2, 2, 1, 1), k = 100),
  case("KAnonymity", 2, 0, E, TRUE, 407289.5388925293, c(1, 2, 1, 1, 3, 2, 2, 1, 1), k = 5),
  case("KAnonymity", 3, 0, E, TRUE, 453196.8932458743, c(0, 4, 1, 1, 3, 2, 2, 1, 1), k = 100),
  case("KAnonymity", 4, 0.04, E, TRUE, 255559.85455731067, c(1, 0, 1, 1, 3, 2, 2, 0, 1), k = 5),
  case("KAnonymity", 5, 0.04, E, TRUE, 379417.3460570988, c(1, 1, 1, 1, 3, 2, 2, 1, 1), k = 100),
  # TestAnonymizationLDiversity (EntropyLDiversity, Shannon)
  case("LDiversity", 0, 0.04, E, FALSE, 228878.2039109517, c(1, 0, 1, 1, 2, 2, 2, 1), l = 5, sensitive = o),
  case("LDiversity", 1, 0.04, E, FALSE, NA, NULL, l = 100, sensitive = o),
  case("LDiversity", 2, 0, E, FALSE, 324620.5269918692, c(1, 1, 1, 1, 3, 2, 2, 1), l = 5, sensitive = o),
  case("LDiversity", 3, 0, E, FALSE, NA, NULL, l = 100, sensitive = o),
  case("LDiversity", 4, 0.04, E, FALSE, 228878.2039109517, c(1, 0, 1, 1, 2, 2, 2, 1), l = 5, sensitive = o),
  case("LDiversity", 5, 0.04, E, FALSE, NA, NULL, l = 100, sensitive = o),
  # TestAnonymizationEntropyLDiversity, the Shannon cases (1, 4)
  case("EntropyLDiversity", 1, 0.04, E, FALSE, NA, NULL, l = 100, sensitive = o),
  case("EntropyLDiversity", 4, 0.04, E, FALSE, 228878.2039109517, c(1, 0, 1, 1, 2, 2, 2, 1), l = 5, sensitive = o),
  # TestAnonymizationTCloseness, the EqualDistanceTCloseness cases (its
  # cases 2, 3, 6, 7, 10 and 11 name k only, but the test adds
  # HierarchicalDistanceTCloseness on occupation: not replayed)
  case("TCloseness", 0, 0.04, D, TRUE, 3.11880088E8, c(1, 4, 1, 0, 3, 2, 2, 1), k = 5, t = 0.2, sensitive = o),
  case("TCloseness", 1, 0.04, D, TRUE, 3.11880088E8, c(1, 4, 1, 0, 3, 2, 2, 1), k = 100, t = 0.2, sensitive = o),
  case("TCloseness", 4, 0, D, TRUE, 4.56853172E8, c(1, 4, 1, 1, 3, 2, 2, 1), k = 5, t = 0.2, sensitive = o),
  case("TCloseness", 5, 0, D, TRUE, 4.56853172E8, c(1, 4, 1, 1, 3, 2, 2, 1), k = 100, t = 0.2, sensitive = o),
  case("TCloseness", 8, 0.04, D, TRUE, 3.11880088E8, c(1, 4, 1, 0, 3, 2, 2, 1), k = 5, t = 0.2, sensitive = o),
  case("TCloseness", 9, 0.04, D, TRUE, 3.11880088E8, c(1, 4, 1, 0, 3, 2, 2, 1), k = 100, t = 0.2, sensitive = o),
  # TestAnonymizationOrderedDistanceTCloseness
  case("OrderedDistanceTCloseness", 0, 0.04, D, TRUE, 2712340.0, c(0, 0, 1, 1, 2, 2, 2, 0), k = 5, t = 0.2, ordered = TRUE, sensitive = o),
  case("OrderedDistanceTCloseness", 1, 0.04, D, TRUE, 1.9937246E7, c(1, 0, 1, 2, 3, 2, 2, 1), k = 100, t = 0.2, ordered = TRUE, sensitive = o),
  case("OrderedDistanceTCloseness", 2, 0, D, TRUE, 9.786802E7, c(1, 1, 1, 2, 3, 2, 2, 1), k = 5, t = 0.1, ordered = TRUE, sensitive = o),
  case("OrderedDistanceTCloseness", 3, 0, D, TRUE, 1.6231213E8, c(1, 4, 1, 1, 1, 2, 2, 1), k = 100, t = 0.2, ordered = TRUE, sensitive = o),
  case("OrderedDistanceTCloseness", 4, 0.04, D, TRUE, 2.01413138E8, c(1, 4, 1, 0, 3, 2, 2, 0), k = 5, t = 0.05, ordered = TRUE, sensitive = o),
  case("OrderedDistanceTCloseness", 5, 0.04, D, TRUE, 1.9937246E7, c(1, 0, 1, 2, 3, 2, 2, 1), k = 100, t = 0.2, ordered = TRUE, sensitive = o),
  # TestAnonymizationRiskBased, the average-risk case (NM entropy)
  case("RiskBased", 0, 0.04, E, FALSE, 314637.8461904862, c(1, 0, 1, 1, 3, 2, 2, 1, 1), avg_risk = 0.01),
  # TestAnonymizationKMap with DataSubset (the released data: adult_subset)
  case("KMap", 2, 0, A, NA, 45.014925373134325, c(1, 0, 1, 2, 3, 2, 2, 1), k_map = 5, sensitive = o),
  case("KMap", 3, 0, E, TRUE, 23387.494246375998, c(0, 0, 1, 2, 3, 2, 2, 0), k_map = 3, sensitive = o),
  case("KMap", 4, 0, E, FALSE, 28551.7222913157, c(1, 0, 1, 2, 3, 2, 2, 1), k_map = 5, sensitive = o),
  case("KMap", 5, 0.05, A, NA, 11.424242424242424, c(1, 0, 1, 1, 3, 2, 1, 0), k_map = 20, sensitive = o),
  case("KMap", 6, 0.05, E, TRUE, 17075.7181747451, c(0, 0, 1, 1, 2, 2, 2, 0), k_map = 7, sensitive = o),
  case("KMap", 7, 0.05, E, FALSE, 15121.633326877098, c(0, 0, 1, 1, 1, 2, 1, 0), k_map = 3, sensitive = o),
  case("KMap", 8, 0, A, NA, 45.014925373134325, c(1, 0, 1, 2, 3, 2, 2, 1), k_map = 5, sensitive = o),
  case("KMap", 9, 0, E, TRUE, 23108.1673304724, c(1, 0, 1, 1, 3, 2, 2, 0), k_map = 2, sensitive = o),
  case("KMap", 10, 0, E, FALSE, 30238.2081484441, c(0, 1, 1, 2, 3, 2, 2, 0), k_map = 10, sensitive = o),
  case("KMap", 11, 0.05, A, NA, 7.215311004784689, c(0, 0, 1, 1, 3, 2, 1, 0), k_map = 10, sensitive = o),
  case("KMap", 12, 0.05, E, TRUE, 17053.8743069776, c(0, 0, 1, 0, 2, 2, 2, 1), k_map = 5, sensitive = o),
  case("KMap", 13, 0.05, E, FALSE, 15121.633326877098, c(0, 0, 1, 1, 1, 2, 1, 0), k_map = 3, sensitive = o))

run_case <- function(cs) {
  # ARX's test cases name occupation as the sensitive attribute whenever
  # the case has one: it is then not a quasi-identifier
  s <- cs$sensitive
  keys <- setdiff(attrs, s)
  data <- if (!is.null(cs$k_map)) subset else adult
  charge <- if (identical(cs$metric, A)) "block" else if (isTRUE(cs$monotone)) "node" else "block"
  k <- if (is.null(cs$k)) 1L else cs$k
  with_s <- !is.null(cs$l) || !is.null(cs$t)
  t0 <- proc.time()[["elapsed"]]
  res <- withCallingHandlers(
    ola(data, keys, hier[keys], k = k, max_suppress = cs$limit, metric = cs$metric,
        l = cs$l, t = cs$t, sensitive = if (with_s) s, diversity = "entropy",
        ordered = if (cs$ordered) s, outliers = "failing", avg_risk = cs$avg_risk,
        k_map = cs$k_map, population = if (!is.null(cs$k_map)) adult[keys],
        suppressed_loss = charge),
    warning = function(w) invokeRestart("muffleWarning"))
  secs <- proc.time()[["elapsed"]] - t0
  loss <- info_loss(res, cs$metric)
  if (identical(cs$metric, A)) loss <- loss * k      # ARX's AECS is not divided by k
  got <- unname(res$levels)
  if (is.null(cs$node)) {
    same_node <- !res$acceptable
    same_loss <- !res$acceptable
  } else {
    same_node <- res$acceptable && identical(as.integer(got), as.integer(cs$node))
    same_loss <- res$acceptable && abs(loss - cs$loss) <= 1e-9 * abs(cs$loss)
  }
  data.frame(test = cs$test, id = cs$id, metric = sprintf("%s/%s", cs$metric, charge),
             arx_node = if (is.null(cs$node)) "none" else paste(cs$node, collapse = ""),
             ola_node = if (res$acceptable) paste(got, collapse = "") else "none",
             arx_loss = signif(cs$loss, 10), ola_loss = if (res$acceptable) signif(loss, 10) else NA,
             node = same_node, loss = same_loss, evaluated = res$nodes_evaluated,
             seconds = round(secs, 2), stringsAsFactors = FALSE)
}

only <- Sys.getenv("EPIMASK_ARX_CASES", "")   # e.g. "KAnonymity,KMap" to run some
if (nzchar(only)) cases <- Filter(function(cs) cs$test %in% strsplit(only, ",")[[1]], cases)
rows <- NULL
for (cs in cases) {
  row <- run_case(cs)
  print(row, row.names = FALSE)
  rows <- rbind(rows, row)
}
cat("\n")
print(rows, row.names = FALSE)
cat(sprintf(paste0("\n%d ARX cases on Adult replayed: ARX's node in %d, ARX's loss in %d, ",
                   "both in %d.\n"), nrow(rows), sum(rows$node), sum(rows$loss),
            sum(rows$node & rows$loss)))
cat(sprintf("load: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))
