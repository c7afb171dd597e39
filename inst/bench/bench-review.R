# Benchmark: the column review (review_columns(), methods vignette section 26).
#  - on Adult (30,162 records x 15 columns, the five usual keys), and on
#    1e6 records x 20 columns of mixed types (identifiers, e-mail addresses,
#    keys, a proxy, dates as Date and as text, free text, measurements);
#  - time (elapsed and CPU) and memory: the R heap's peak from gc() and the
#    process's resident peak during the call (VmHWM of /proc/self/status,
#    reset before it), each against the size of the data itself, so that
#    O(n) memory shows as a small multiple;
#  - the same figures by plain R (table() over pasted values for every
#    column and every column-key cross-table) on Adult and at 1e5, with the
#    largest difference between the two.
# Prints seconds, ratios, megabytes and the load average. Run:
#   Rscript inst/bench/bench-review.R   (EPIMASK_BENCH_QUICK=1: 2e4 and 1e5 records)

suppressPackageStartupMessages(library(epimask))
quick <- nzchar(Sys.getenv("EPIMASK_BENCH_QUICK"))
big <- if (quick) 1e5 else 1e6
load_avg <- function() tryCatch(trimws(sub(".*load average: ", "", system("uptime", intern = TRUE))),
                                error = function(e) "?")
last_cpu <- NA
secs <- function(expr) {
  tm <- system.time(expr)
  last_cpu <<- sum(tm[c("user.self", "sys.self")], na.rm = TRUE)
  unname(tm[["elapsed"]])
}
proc_mb <- function(field) {
  s <- tryCatch(readLines("/proc/self/status"), error = function(e) character())
  line <- grep(sprintf("^%s:", field), s, value = TRUE)
  if (!length(line)) return(NA_real_)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}
# Linux resets the resident peak (VmHWM) when "5" is written to clear_refs
reset_peak <- function() invisible(tryCatch(writeLines("5", "/proc/self/clear_refs"),
                                            error = function(e) NULL))
# the R heap's peak while `expr` runs above what it held before (gc() after
# a reset), in MB
heap_peak <- function(expr) {
  g0 <- gc(reset = TRUE)
  force(expr)
  g <- gc()
  sum(g[, 6L]) - sum(g0[, 2L])
}
row <- function(what, n, time, ratio = NA, note = "") {
  cat(sprintf("%-46s n = %-6s %7.2f s (cpu %6.2f s)  ratio %-6s load %s %s\n", what,
              format(n, scientific = TRUE), time, last_cpu,
              if (is.na(ratio)) "" else format(round(ratio, 1)), load_avg(), note))
}

# ---- data --------------------------------------------------------------------------
words <- c("patient", "reported", "pain", "after", "the", "second", "visit", "and", "was",
           "given", "a", "new", "prescription", "for", "two", "weeks", "no", "fever")
make_mixed <- function(n, seed = 1) {
  set.seed(seed)
  edu <- c("Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th",
           "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters",
           "Prof-school", "Doctorate")
  e <- sample.int(16L, n, TRUE, prob = c(1, 2, 4, 6, 5, 9, 11, 4, 110, 70, 14, 11, 55, 18, 6, 4))
  sex <- sample(c("Female", "Male"), n, TRUE, prob = c(0.33, 0.67))
  married <- runif(n) < 0.45
  visit <- as.Date("2015-01-01") + sample.int(2000L, n, TRUE)
  note_len <- sample(6:14, n, TRUE)
  data.frame(
    record = sprintf("R%07d", sample.int(n)),
    email = sprintf("user%d@example.org", sample.int(10 * n, n)),
    age = sample(17:90, n, TRUE),
    sex = sex,
    zip = sprintf("%05d", sample(10000:10999, n, TRUE)),
    education = factor(edu[e], levels = edu),
    education_num = e,
    spouse = ifelse(married, ifelse(sex == "Male", "Husband", "Wife"), "none"),
    visit_date = visit,
    admitted = format(visit - sample(0:5, n, TRUE)),
    income = round(rlnorm(n, 10, 0.7), 2),
    weight = round(rnorm(n, 75, 14), 1),
    height = as.integer(round(rnorm(n, 170, 10))),
    sbp = as.integer(round(rnorm(n, 130, 18))),
    diagnosis = factor(sprintf("%s%02d", sample(LETTERS[1:10], n, TRUE), sample(0:19, n, TRUE))),
    notes = vapply(note_len, function(k) paste(sample(words, k, TRUE), collapse = " "), ""),
    site_id = sprintf("S%02d", sample.int(20L, n, TRUE)),
    smoker = runif(n) < 0.2,
    lab = round(rgamma(n, 2, 0.5), 3),
    arm = sample(0:1, n, TRUE),
    stringsAsFactors = FALSE)
}
keys4 <- c("age", "sex", "zip", "education")

# several visits per person (as trial_visits): the person is the unit
make_visits <- function(n, seed = 2) {
  set.seed(seed)
  visits <- sample(2:10, ceiling(n / 6), TRUE)
  visits <- visits[cumsum(visits) <= n]
  P <- length(visits)
  person <- rep(seq_len(P), visits)
  birth <- as.Date("1940-01-01") + sample.int(20000L, P, TRUE)
  start <- as.Date("2015-01-01") + sample.int(1500L, P, TRUE)
  data.frame(
    pid = sprintf("P%07d", person),
    site = sample(sprintf("site%02d", 1:30), P, TRUE)[person],
    sex = sample(c("F", "M"), P, TRUE)[person],
    birth = birth[person],
    visit = sequence(visits),
    visit_date = start[person] + 30L * (sequence(visits) - 1L) + sample(0:6, length(person), TRUE),
    sbp = as.integer(round(rnorm(length(person), 130, 18))),
    exit_date = (start + 30L * visits + 60L)[person],
    arm = sample(0:1, P, TRUE)[person],
    event = sample(0:1, P, TRUE)[person],
    stringsAsFactors = FALSE)
}

# ---- plain R references: the figures by table() ------------------------------------
plain_label <- function(x) {
  v <- if (inherits(x, "Date")) format(x) else as.character(x)
  v[is.na(x)] <- "\001NA"
  v
}
plain_distinction <- function(d, cols) {
  f <- as.numeric(table(do.call(paste, c(lapply(d[cols], plain_label), sep = "\r"))))
  N <- sum(f)
  c(distinction = length(f) / N, separation = 1 - sum(f * (f - 1)) / (N * (N - 1)))
}
plain_determined <- function(col, key, purity = 0.99) {
  t <- table(plain_label(col), plain_label(key))
  dom <- apply(t, 1L, max)
  sum(dom[dom >= ceiling(purity * rowSums(t) - 1e-7)]) / length(key)
}

compare <- function(d, keys, label, reference = TRUE, id = NULL) {
  # the data are made before anything is measured (an argument is a promise)
  force(d)
  rev <- NULL
  invisible(gc())
  rss0 <- proc_mb("VmRSS")
  reset_peak()
  peak <- heap_peak(t_new <- secs(rev <- review_columns(d, keys, id = id)))
  cpu_new <- last_cpu
  hwm <- proc_mb("VmHWM")
  size <- as.numeric(utils::object.size(d)) / 2^20
  note <- "| plain R not run at this size"
  ratio <- NA
  if (reference) {
    # the plain R figures: every column's distinction and separation, every
    # column-key determination
    t_ref <- secs({
      single <- t(vapply(names(d), function(c) plain_distinction(d, c), numeric(2)))
      det <- vapply(seq_len(nrow(rev$proxies)), function(i)
        plain_determined(d[[rev$proxies$column[[i]]]], d[[rev$proxies$key[[i]]]]), numeric(1))
    })
    diff_single <- max(abs(single[, "distinction"] - rev$columns$distinction),
                       abs(single[, "separation"] - rev$columns$separation))
    diff_det <- if (length(det)) max(abs(det - rev$proxies$determined)) else 0
    ratio <- t_ref / t_new
    note <- sprintf("| plain R (columns + %d determinations) %.2f s; largest difference %.1e",
                    length(det), t_ref, max(diff_single, diff_det))
  }
  last_cpu <<- cpu_new
  row(sprintf("%s: review_columns()", label), nrow(d), t_new, ratio, note)
  cat(sprintf("   memory: data %.0f MB; R heap peak above its level before the call %.0f MB (%.1f x the data); resident %.0f MB before, peak %.0f MB during (+%.0f MB, %.1f x the data)\n",
              size, peak, peak / size, rss0, hwm, hwm - rss0, (hwm - rss0) / size))
  cat(sprintf("   %d columns: %s\n", ncol(d), paste(sprintf("%s=%s", rev$columns$column,
                                                          rev$columns$role), collapse = ", ")))
  invisible(rev)
}

# Each case runs in a fresh R process (this script with arguments), so that
# its memory figures are not those of the cases before it.
run_case <- function(case, n) {
  if (case == "adult") {
    adult_path <- Sys.getenv("EPIMASK_ADULT", "../shared/data/adult.csv")
    if (!file.exists(adult_path)) adult_path <- "/work/shared/data/adult.csv"
    if (!file.exists(adult_path)) return(cat("Adult: adult.csv not found\n"))
    adult <- utils::read.csv(adult_path, check.names = FALSE, stringsAsFactors = FALSE)
    compare(adult, c("age", "sex", "race", "marital-status", "education"), "Adult")
  } else if (case == "mixed") {
    compare(make_mixed(n), keys4, "mixed 20 columns", reference = n <= 1e5)
  } else if (case == "visits") {
    d <- make_visits(n)
    # persons: plain R's figures would be those of records, so none is compared
    compare(d, c("site", "sex", "birth"), sprintf("visits of %d persons, id", length(unique(d$pid))),
            reference = FALSE, id = "pid")
  }
  invisible()
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) == 2L) {
  # a warm-up on a small copy, so that the timed call is not the first
  invisible(review_columns(make_mixed(200), keys4))
  run_case(args[[1L]], as.numeric(args[[2L]]))
} else {
  cat("machine:", Sys.info()[["nodename"]], "|", R.version.string, "| cores",
      parallel::detectCores(), "\n")
  self <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  small <- if (quick) 2e4 else 1e5
  cases <- list(c("adult", 0), c("mixed", small), c("mixed", big), c("visits", big))
  for (case in cases)
    system2(file.path(R.home("bin"), "Rscript"), c(shQuote(self), case))
}
