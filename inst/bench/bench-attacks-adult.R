# The three attacks on the whole Adult data (30,162 records, 15 columns:
# /work/shared/data/adult.csv or EPIMASK_ADULT), as vignette("attacks") runs
# them on the 4,000-record extract: the data as they are, two masking
# schemes, and deidentify()'s public release (a random half held out as the
# control before de-identifying; the original in the release's coding).
# Prints each attack and the time it took.
#   Rscript inst/bench/bench-attacks-adult.R
# Needs the package installed (R_LIBS pointing at it).

suppressPackageStartupMessages(library(epimask))
path <- Sys.getenv("EPIMASK_ADULT", "/work/shared/data/adult.csv")
if (!file.exists(path)) stop("adult.csv not found: set EPIMASK_ADULT")
d <- utils::read.csv(path, stringsAsFactors = TRUE, check.names = FALSE)
names(d) <- gsub("-", "_", names(d))
cat(sprintf("bench-attacks-adult.R: %d records, %d columns; R %s, epimask %s; load %s\n",
            nrow(d), ncol(d), getRversion(), utils::packageVersion("epimask"),
            paste(readLines("/proc/loadavg"), collapse = " ")))
qi <- c("age", "sex", "race", "marital_status", "education", "native_country", "workclass")
two_sets <- list(c("age", "sex", "race", "marital_status", "native_country"),
                 c("education", "workclass", "occupation", "hours_per_week"))

run <- function(label, original, release, control = NULL) {
  cat(sprintf("\n==== %s\n", label))
  one <- function(name, expr) {
    t <- system.time(a <- force(expr))
    cat(sprintf("%-26s risk %.3f [%.3f, %.3f]  attack %.3f control %.3f baseline %.3f  (%d trials, %.1f s)\n",
                name, a$risk$value, a$risk$interval[[1]], a$risk$interval[[2]], a$attack$rate,
                a$control$rate, a$baseline$rate, a$attack$n, t[["elapsed"]]))
    if (a$type == "singling_out") cat("  e.g.", utils::head(a$details$predicate[a$details$attack], 3), sep = "\n    ")
    invisible(a)
  }
  one("singling out, 1 column", risk_singling_out(original, release, control, seed = 1))
  one("singling out, 4 columns", risk_singling_out(original, release, control, mode = "multivariate",
                                                   n_cols = 4, seed = 1))
  one("linkability", risk_linkability(original, release, control, aux = two_sets, seed = 1))
  one("inference of income", risk_inference(original, release, control, aux = qi,
                                            secret = "income", seed = 1))
}

run("the data as they are", d, d)
set.seed(1)
a <- apply_mask(d, mask_group(seq(15, 95, by = 5), value = "midpoint"), "age")
a <- apply_mask(a, mask_noise(5), "hours_per_week")
run("scheme A: age in 5-year bands, hours +- 5", d, a)
set.seed(2)
b <- apply_mask(d, mask_microagg(k = 5), c("age", "hours_per_week"))
b <- apply_mask(b, mask_pram(0.8), c("marital_status", "education", "workclass", "occupation",
                                     "native_country"))
run("scheme B: microaggregation (age, hours), PRAM 0.8 (5 categories)", d, b)
b2 <- b
b2$fnlwgt <- NULL
run("scheme B without fnlwgt", d[setdiff(names(d), "fnlwgt")], b2)

edu <- data.frame(
  v = c("Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th",
        "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters",
        "Prof-school", "Doctorate"),
  a = rep(c("primary", "secondary", "some college", "degree"), c(4, 5, 3, 4)),
  b = rep(c("school", "college"), c(9, 7)))
marital <- levels(d$marital_status)
work <- levels(d$workclass)
h <- list(
  age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(), race = hierarchy_flat(),
  marital_status = hierarchy_category(data.frame(v = marital, a = ifelse(
    marital %in% c("Married-civ-spouse", "Married-AF-spouse"), "married", "not married"))),
  education = hierarchy_category(edu),
  native_country = hierarchy_rare(d$native_country, min_count = 40),
  workclass = hierarchy_category(data.frame(v = work, a = ifelse(
    grepl("gov", work), "government",
    ifelse(grepl("Self", work), "self-employed", "private or other")))))
set.seed(3)
held <- sort(sample.int(nrow(d), nrow(d) %/% 2))
t <- system.time(rel <- deidentify(d[-held, ], qi, h, release_context(public = TRUE),
                                   drop_proxies = TRUE))
cat(sprintf("\ndeidentify() (public): %.1f s, levels %s\n", t[["elapsed"]],
            paste(names(rel$generalization$levels), rel$generalization$levels, collapse = ", ")))
# the original in the release's coding (a key kept at level 0 keeps its type)
coded <- d[names(rel$data)]
for (key in qi) {
  level <- rel$generalization$levels[[key]]
  if (level > 0) coded[[key]] <- as.character(generalize(d[[key]], h[[key]], level))
}
run("deidentify(), public context", coded[-held, ], rel, coded[held, ])
