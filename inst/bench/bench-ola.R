# ola() (Flash paths with binary search and predictive tagging, then branch
# and bound; class counts rolled up in C) against its exhaustive twin (every
# lattice node rolled up from the bottom counts and evaluated) and against
# Datafly, on synthetic data (1e5 and 1e6 records x 5 keys, 720 nodes) and on
# the Adult census extract (30,162 records, the 9 quasi-identifiers of ARX's
# benchmark, 12,960 nodes; 8 of them, 4,320 nodes). Prints time, nodes
# evaluated and information loss; `same` says whether the search and the
# exhaustive twin chose the same node.
#   Rscript inst/bench/bench-ola.R            (EPIMASK_BENCH_N=1e5 to choose)
suppressPackageStartupMessages(library(epimask))
cat(sprintf("load: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))

# elapsed and CPU seconds (user + system of this process: the machine is
# shared, and the CPU time is the figure that load inflates least)
time_it <- function(expr) {
  t0 <- proc.time()
  value <- force(expr)
  t1 <- proc.time() - t0
  list(value = value, seconds = t1[["elapsed"]],
       cpu = t1[["user.self"]] + t1[["sys.self"]])
}

exhaustive <- function(data, keys, h, k, max_suppress, metric) {
  hh <- epimask:::check_hierarchies(h, keys, data)
  lat <- epimask:::lattice_build(data, keys, hh)
  epimask:::lattice_exhaustive(lat, list(k = k, max_suppress = max_suppress), metric)
}

compare <- function(label, data, keys, h, k, max_suppress, metric = "entropy",
                    reference = TRUE, greedy = TRUE) {
  o <- time_it(suppressWarnings(ola(data, keys, h, k = k, max_suppress = max_suppress,
                                    metric = metric)))
  row <- data.frame(data = label, n = nrow(data), keys = length(keys), k = k,
                    suppress = max_suppress, metric = metric,
                    ola_s = round(o$seconds, 3), ola_cpu = round(o$cpu, 3),
                    evaluated = o$value$nodes_evaluated,
                    nodes = o$value$nodes_total,
                    ola_loss = signif(info_loss(o$value, metric), 6),
                    ola_supp = o$value$n_suppressed)
  if (reference) {
    e <- time_it(exhaustive(data, keys, h, k, max_suppress, metric))
    row$exhaustive_s <- round(e$seconds, 2)
    row$exhaustive_cpu <- round(e$cpu, 2)
    row$ratio <- round(e$seconds / o$seconds, 1)
    row$cpu_ratio <- round(e$cpu / o$cpu, 1)
    row$same <- identical(unname(e$value$levels), unname(o$value$levels))
  }
  if (greedy) {
    d <- time_it(suppressWarnings(datafly(data, keys, h, k = k, max_suppress = max_suppress)))
    row$datafly_s <- round(d$seconds, 3)
    row$datafly_cpu <- round(d$cpu, 3)
    row$datafly_loss <- signif(info_loss(d$value, metric), 6)
    row$datafly_supp <- d$value$n_suppressed
  }
  print(row, row.names = FALSE)
  invisible(row)
}

# --- synthetic: 5 keys with tops 4, 2, 3, 3, 2 (720 nodes) -------------------
synthetic <- function(n, seed = 1) {
  set.seed(seed)
  data.frame(
    age = sample(0:99, n, TRUE),
    ethnicity = sample(sprintf("e%d", 1:8), n, TRUE),
    zip = sprintf("%03d", sample(100:999, n, TRUE)),
    dx = sprintf("D%02d", sample(0:99, n, TRUE, prob = 1 / (1:100))),
    marital = sample(c("married", "partner", "single", "divorced", "widowed", "separated"),
                     n, TRUE))
}
synthetic_h <- list(
  age = hierarchy_numeric(c(5, 10, 20)),
  ethnicity = hierarchy_category(data.frame(v = sprintf("e%d", 1:8),
                                            g = rep(c("A", "B", "C"), c(3, 3, 2)))),
  zip = hierarchy_zip(3),
  dx = hierarchy_category(data.frame(v = sprintf("D%02d", 0:99),
                                     block = sprintf("B%d", (0:99) %/% 5),
                                     chapter = sprintf("C%d", (0:99) %/% 20))),
  marital = hierarchy_category(data.frame(
    v = c("married", "partner", "single", "divorced", "widowed", "separated"),
    g = c("couple", "couple", "alone", "alone", "alone", "alone"))))

sizes <- Sys.getenv("EPIMASK_BENCH_N", "1e5,1e6")
for (n in as.numeric(strsplit(sizes, ",")[[1]])) {
  d <- synthetic(n)
  for (metric in c("entropy", "discernibility"))
    compare(sprintf("synthetic"), d, names(d), synthetic_h, k = 5,
            max_suppress = 0.02, metric = metric, reference = n <= 1e5, greedy = metric == "entropy")
}

# --- Adult, ARX's hierarchies -----------------------------------------------
adult_file <- Sys.getenv("EPIMASK_ADULT", "../shared/data/adult.csv")
if (!file.exists(adult_file)) adult_file <- "/work/shared/data/adult.csv"
if (file.exists(adult_file)) {
  adult <- utils::read.csv(adult_file, check.names = FALSE, stringsAsFactors = FALSE)
  names(adult)[names(adult) == "income"] <- "salary-class"
  education <- data.frame(
    v = c("Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
          "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
          "Doctorate", "5th-6th", "Preschool"),
    a = c("Undergraduate", "Undergraduate", "High School", "High School",
          "Professional Education", "Professional Education", "Professional Education",
          "High School", "High School", "High School", "Graduate", "Primary School",
          "High School", "Graduate", "Primary School", "Primary School"),
    b = c("Higher education", "Higher education", "Secondary education",
          "Secondary education", "Higher education", "Higher education",
          "Higher education", "Secondary education", "Secondary education",
          "Secondary education", "Higher education", "Primary education",
          "Secondary education", "Higher education", "Primary education",
          "Primary education"))
  marital <- data.frame(
    v = c("Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
          "Married-spouse-absent", "Married-AF-spouse"),
    a = c("spouse present", rep("spouse not present", 5), "spouse present"))
  workclass <- data.frame(
    v = c("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
          "State-gov", "Without-pay", "Never-worked"),
    a = c(rep("Non-Government", 3), rep("Government", 3), rep("Unemployed", 2)))
  occupation <- data.frame(
    v = c("Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
          "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
          "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
          "Armed-Forces"),
    a = c("Technical", "Technical", "Other", "Nontechnical", "Nontechnical", "Technical",
          "Nontechnical", "Technical", "Other", "Other", "Other", "Other", "Other", "Other"))
  country <- sort(unique(adult[["native-country"]]))
  continent <- c(
    Cambodia = "Asia", Canada = "North America", China = "Asia", Columbia = "South America",
    Cuba = "North America", `Dominican-Republic` = "North America",
    Ecuador = "South America", `El-Salvador` = "North America", England = "Europe",
    France = "Europe", Germany = "Europe", Greece = "Europe", Guatemala = "North America",
    Haiti = "North America", `Holand-Netherlands` = "Europe", Honduras = "North America",
    Hong = "Asia", Hungary = "Europe", India = "Asia", Iran = "Asia", Ireland = "Europe",
    Italy = "Europe", Jamaica = "North America", Japan = "Asia", Laos = "Asia",
    Mexico = "North America", Nicaragua = "South America",
    `Outlying-US(Guam-USVI-etc)` = "North America", Peru = "South America",
    Philippines = "Asia", Poland = "Europe", Portugal = "Europe",
    `Puerto-Rico` = "North America", Scotland = "Europe", South = "Africa",
    Taiwan = "Asia", Thailand = "Asia", `Trinadad&Tobago` = "South America",
    `United-States` = "North America", Vietnam = "Asia", Yugoslavia = "Europe")
  adult_h <- list(
    age = hierarchy_numeric(c(5, 10, 20)),
    sex = hierarchy_flat(), race = hierarchy_flat(),
    `marital-status` = hierarchy_category(marital),
    education = hierarchy_category(education),
    `native-country` = hierarchy_category(data.frame(v = country,
                                                     a = unname(continent[country]))),
    workclass = hierarchy_category(workclass),
    occupation = hierarchy_category(occupation),
    `salary-class` = hierarchy_flat())
  keys9 <- names(adult_h)
  keys8 <- setdiff(keys9, "occupation")
  for (ms in c(0, 0.01, 0.02, 0.03, 0.04, 0.05))
    compare("adult", adult, keys9, adult_h, k = 5, max_suppress = ms,
            reference = ms %in% c(0, 0.04))
  compare("adult", adult, keys8, adult_h[keys8], k = 5, max_suppress = 0, reference = FALSE)
  compare("adult", adult, keys8, adult_h[keys8], k = 5, max_suppress = 0.05, reference = FALSE)
  for (metric in c("precision", "discernibility", "avg_class_size"))
    compare("adult", adult, keys9, adult_h, k = 5, max_suppress = 0.04, metric = metric,
            reference = FALSE, greedy = TRUE)
}
cat(sprintf("load: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))
