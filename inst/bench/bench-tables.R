# Count tables side by side with sdcTable (issue 40): the same tables, the
# number and cost of secondary suppressions, both outputs audited by
# epimask's audit_table() (protection +-1 around every primary cell) and by
# sdcTable's attack() (which only asks that a cell not be recovered exactly),
# and the time of both in one run. sdcTable is not a dependency: install it
# with tools/install-sdctable.sh; without it the epimask rows are printed.
#
#   Rscript inst/bench/bench-tables.R [sections] [--cap=SECONDS] [--methods=M,...] [--sdc=M,...]
#   sections: adult2 adult zip solvers large zip1e5 (default: all, in that order)
#   --methods: epimask's methods to run (heuristic, optimal; default both)
#   --sdc: sdcTable's methods to run (default: each section's list; "none" for none)
#   --exact-audit: epimask's audit of every pattern with both LPs of every
#     sensitive cell (default: the verdict, exact = FALSE)
#
# Every run is capped at --cap seconds (default 300): epimask by its own
# table_control(time_limit = ), each sdcTable call (protectTable(), attack())
# in a separate R process (callr) that is ended at the cap and reported as
# "did not finish"; the script's total time is thus bounded by about
# (number of runs) x cap.
#
# Times are elapsed seconds and CPU seconds (user + system) of this process:
# on a shared machine the elapsed time mostly measures the other jobs.

suppressPackageStartupMessages({
  if (requireNamespace("pkgload", quietly = TRUE) && file.exists("DESCRIPTION")) pkgload::load_all(quiet = TRUE)
  else library(epimask)
})
args <- commandArgs(trailingOnly = TRUE)
cap_arg <- grep("^--cap=", args, value = TRUE)
cap <- if (length(cap_arg)) as.numeric(sub("^--cap=", "", cap_arg[[1]])) else 300
args <- setdiff(args, cap_arg)
list_arg <- function(name) {
  a <- grep(sprintf("^--%s=", name), args, value = TRUE)
  if (length(a)) strsplit(sub(sprintf("^--%s=", name), "", a[[1]]), ",")[[1]]
}
only_methods <- list_arg("methods")
only_sdc <- list_arg("sdc")
args <- args[!grepl("^--(methods|sdc)=", args) & args != "--exact-audit"]
sections <- if (length(args)) args else c("adult2", "adult", "zip", "solvers", "large", "zip1e5")
have_callr <- requireNamespace("callr", quietly = TRUE)
have_sdc <- requireNamespace("sdcTable", quietly = TRUE) && requireNamespace("sdcHierarchies", quietly = TRUE)
cat(sprintf("machine: %s; load: %s\n", paste(R.version.string), paste(readLines("/proc/loadavg"), collapse = "")))
cat(sprintf("solvers: %s; sdcTable %s\n", paste(Filter(function(s) epimask:::solver_installed(s),
                                                       c("glpk", "highs")), collapse = ", "),
            if (have_sdc) format(utils::packageVersion("sdcTable")) else "not installed"))

attack_max <- 100

timed <- function(expr) {
  t0 <- proc.time()
  value <- force(expr)
  t <- proc.time() - t0
  list(value = value, elapsed = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]])
}

adult_path <- file.path("..", "shared", "data", "adult.csv")
if (!file.exists(adult_path)) adult_path <- "/work/shared/data/adult.csv"
read_adult <- function() {
  a <- utils::read.csv(adult_path, stringsAsFactors = FALSE)
  names(a) <- gsub("[.-]", "_", names(a))
  a
}
edu_groups <- data.frame(
  code = c("Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad",
           "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate"),
  group = c(rep("primary", 4), rep("secondary", 5), rep("college", 3), rep("university", 4)))

# ---- sdcTable on the same table -------------------------------------------------------

# The label of a node for sdcTable: the code at level 0, "Total" at the top,
# "L<level>:<code>" for a group (a group's label may equal a code: zip areas).
sdc_labels <- function(nd) {
  ifelse(nd$level == max(nd$level), "Total", ifelse(nd$level == 0, nd$code, paste0("L", nd$level, ":", nd$code)))
}

# sdcTable's hierarchy of one of our dimensions (the same groups; root "Total").
sdc_hierarchy <- function(tab, j) {
  nd <- tab$nodes[[j]]
  code <- sdc_labels(nd)
  h <- sdcHierarchies::hier_create(root = "Total", nodes = code[!is.na(nd$parent) & nd$parent == 1])
  for (p in which(!nd$leaf & !is.na(nd$parent))) {
    kids <- code[which(nd$parent == p)]
    h <- sdcHierarchies::hier_add(h, root = code[[p]], nodes = kids)
  }
  h
}

# Our cell of each row of an sdcTable data frame (codes, "Total" for "*").
sdc_cells <- function(tab, df) {
  ours <- do.call(paste, c(lapply(seq_along(tab$dims), function(j)
    sdc_labels(tab$nodes[[j]])[tab$index[, j]]), sep = "\r"))
  theirs <- do.call(paste, c(lapply(tab$dims, function(dm) as.character(df[[dm]])), sep = "\r"))
  match(theirs, ours)
}

# A function run in a fresh R process, ended after `cap` seconds: the value,
# or a condition of class "timeout" (NULL value) when it did not finish.
capped <- function(fun, args) {
  if (!have_callr) return(timed(do.call(fun, args)))
  t0 <- proc.time()
  value <- tryCatch(callr::r(fun, args, timeout = cap),
                    error = function(e) structure(list(message = conditionMessage(e)),
                                                  class = if (inherits(e, "callr_timeout_error"))
                                                    "timeout" else "failed"))
  t <- proc.time() - t0
  list(value = value, elapsed = t[["elapsed"]],
       cpu = t[["user.child"]] + t[["sys.child"]] + t[["user.self"]] + t[["sys.self"]])
}

# sdcTable's protectTable() on our table's hierarchies, in a capped process:
# sdcTable's status of each of our cells ("s", "u", "x"), or NULL if it did
# not finish within the cap.
sdc_run <- function(tab, data, maxN, method, freq = NULL, ...) {
  dims <- stats::setNames(lapply(seq_along(tab$dims), function(j) sdc_hierarchy(tab, j)), tab$dims)
  p <- sdcTable::makeProblem(data = data, dimList = dims, freqVarInd = freq)
  p <- sdcTable::primarySuppression(p, type = "freq", maxN = maxN)
  res <- capped(function(p, method) {
    t <- system.time(out <- suppressMessages(sdcTable::protectTable(p, method = method)))
    list(fd = sdcTable::getInfo(out, type = "finalData"), cpu = t[["user.self"]] + t[["sys.self"]])
  }, list(p = p, method = method))
  if (inherits(res$value, c("timeout", "failed")))
    return(list(problem = p, status = NULL, elapsed = res$elapsed, cpu = NA,
                why = if (inherits(res$value, "timeout")) sprintf("did not finish in %s s", cap)
                      else res$value$message))
  fd <- res$value$fd
  cells <- sdc_cells(tab, fd)
  status <- rep("s", length(tab$count))
  status[cells] <- as.character(fd$sdcStatus)
  list(problem = p, status = status, elapsed = res$elapsed, cpu = if (is.null(res$value$cpu)) res$cpu else res$value$cpu)
}

# sdcTable's attack() on a pattern of ours (primary "u" as sdcTable marks them).
sdc_attack <- function(tab, p, suppressed, primary) {
  sec <- which(suppressed & !primary)
  if (length(sec)) {
    # sdcTable's cells in the order of its problem instance, matched to ours
    df <- sdcTable::sdcProb2df(p, dimCodes = "original", addDups = FALSE)
    # a group of one code is a duplicate of its code, left out of sdcTable's
    # problem: suppressed with it
    ids <- stats::na.omit(match(sec, sdc_cells(tab, df)))
    p <- sdcTable::setInfo(p, type = "sdcStatus", index = ids, input = rep("x", length(ids)))
  }
  # attack() solves the two LPs of a cell on the whole table, from scratch:
  # at most `attack_max` primary cells (a fixed random sample) on large tables
  prim <- which(sdcTable::getInfo(p, type = "sdcStatus") == "u")
  if (length(prim) > attack_max) {
    set.seed(40)
    prim <- sort(sample(prim, attack_max))
  }
  a <- capped(function(p, prim) sdcTable::attack(p, to_attack = prim, verbose = FALSE),
              list(p = p, prim = prim))
  if (inherits(a$value, c("timeout", "failed")))
    return(list(protected = NA, attacked = length(prim), elapsed = a$elapsed, cpu = a$cpu))
  list(protected = sum(a$value$protected), attacked = nrow(a$value), elapsed = a$elapsed, cpu = a$cpu)
}

# epimask's audit of any pattern (sensitive cells of the rule, protection +-1):
# the verdict (exact = FALSE: an LP is skipped where a table already found
# proves the direction; the same verdict, and 4.7 s instead of 238 s CPU on
# the Adult 3-D table's pattern; --exact-audit for both LPs of every cell)
exact_audit <- "--exact-audit" %in% commandArgs(trailingOnly = TRUE)
our_audit <- function(tab, rule, suppressed) {
  req <- epimask:::table_requirements(tab, list(rule))
  a <- timed(epimask:::run_audit(tab, suppressed, req, epimask:::pick_solver(NULL, prefer = "highs"),
                                 sensitive_only = TRUE, exact = exact_audit))
  d <- as.data.frame(a$value)
  list(protected = sum(d$protected[d$status == "primary"]), sensitive = sum(req$sensitive),
       unsuppressed = sum(req$sensitive & !suppressed), elapsed = a$elapsed, cpu = a$cpu)
}

compare <- function(name, tab, rule, data, maxN, methods, sdc_methods, freq = NULL, time_limit = cap) {
  if (!is.null(only_methods)) methods <- intersect(methods, only_methods)
  if (!is.null(only_sdc)) sdc_methods <- intersect(sdc_methods, only_sdc)
  rows <- list()
  # cells in sdcTable's problem (it leaves out a group of one code, a duplicate)
  in_sdc <- rep(TRUE, length(tab$count))
  add <- function(tool, method, supp, primary, elapsed, cpu, attack = NULL) {
    v <- tab$count
    sec <- supp & !primary & in_sdc
    au <- our_audit(tab, rule, supp)
    rows[[length(rows) + 1L]] <<- data.frame(
      table = name, tool = tool, method = method, cells = length(v), primary = sum(primary),
      secondary = sum(sec), cost_counts = sum(v[sec]), dup_cells = sum(!in_sdc), seconds = round(elapsed, 1), cpu = round(cpu, 1),
      audit_ok = sprintf("%d/%d", au$protected, au$sensitive), audit_cpu = round(au$cpu, 1),
      attack_ok = if (is.null(attack)) NA else if (is.na(attack$protected)) sprintf("not finished in %s s", cap)
                  else sprintf("%d/%d", attack$protected, attack$attacked),
      stringsAsFactors = FALSE)
    print(rows[[length(rows)]], row.names = FALSE)
    utils::flush.console()
  }
  p0 <- NULL
  # sdcTable weighs a suppression by its count (its default costs): cost = "value" alike
  for (m in methods) {
    r <- timed(suppressWarnings(suppress_table(tab, rule, method = m, cost = "value",
                                               control = table_control(time_limit = time_limit))))
    att <- NULL
    if (have_sdc) {
      if (is.null(p0)) {
        dims <- stats::setNames(lapply(seq_along(tab$dims), function(j) sdc_hierarchy(tab, j)), tab$dims)
        p0 <- sdcTable::makeProblem(data = data, dimList = dims, freqVarInd = freq)
        p0 <- sdcTable::primarySuppression(p0, type = "freq", maxN = maxN)
        in_sdc[] <- FALSE
        in_sdc[stats::na.omit(sdc_cells(tab, sdcTable::sdcProb2df(p0, dimCodes = "original")))] <- TRUE
      }
      att <- sdc_attack(tab, p0, r$value$suppressed, r$value$primary)
    }
    add("epimask", paste0(m, if (m == "optimal" && !r$value$optimal) " (time limit: heuristic)" else ""),
        r$value$suppressed, r$value$primary, r$elapsed, r$cpu, att)
  }
  if (have_sdc) for (m in sdc_methods) {
    s <- tryCatch(sdc_run(tab, data, maxN, m, freq = freq), error = function(e) e)
    if (inherits(s, "error") || is.null(s$status)) {
      cat(sprintf("  sdcTable %s: %s (elapsed %.0f s)\n", m,
                  if (inherits(s, "error")) conditionMessage(s) else s$why,
                  if (inherits(s, "error")) NA else s$elapsed))
      rows[[length(rows) + 1L]] <- data.frame(
        table = name, tool = "sdcTable", method = paste(m, "(did not finish)"), cells = length(tab$count),
        primary = NA, secondary = NA, cost_counts = NA, dup_cells = sum(!in_sdc),
        seconds = if (inherits(s, "error")) NA else round(s$elapsed, 1), cpu = NA, audit_ok = NA,
        audit_cpu = NA, attack_ok = NA, stringsAsFactors = FALSE)
      next
    }
    supp <- s$status %in% c("u", "x")
    prim <- s$status == "u"
    att <- sdc_attack(tab, s$problem, supp, prim)
    add("sdcTable", m, supp, prim, s$elapsed, s$cpu, att)
  }
  out <- do.call(rbind, rows)
  print(out, row.names = FALSE)
  invisible(out)
}

# ---- the sections -------------------------------------------------------------------------

if ("adult" %in% sections) {
  cat("\n== Adult: age (5-year within 20-year groups) x education (4 groups) x race; counts 1-3 sensitive\n")
  adult <- read_adult()
  h <- list(age = hierarchy_numeric(c(5, 20)), education = hierarchy_category(edu_groups))
  built <- timed(table_counts(adult, c("age", "education", "race"), hierarchies = h))
  tab <- built$value
  cat(sprintf("table_counts: %d cells in %.1f s (cpu %.1f)\n", length(tab$count), built$elapsed, built$cpu))
  compare("adult 3-D", tab, cell_threshold(4), adult[c("age", "education", "race")], 3,
          c("heuristic", "optimal"), c("SIMPLEHEURISTIC", "GAUSS"))
}

if ("adult2" %in% sections) {
  cat("\n== Adult: age (5-year within 20-year groups) x education (4 groups); counts 1-3 sensitive\n")
  adult <- read_adult()
  h <- list(age = hierarchy_numeric(c(5, 20)), education = hierarchy_category(edu_groups))
  tab <- table_counts(adult, c("age", "education"), hierarchies = h)
  compare("adult 2-D", tab, cell_threshold(4), adult[c("age", "education")], 3,
          c("heuristic", "optimal"), c("SIMPLEHEURISTIC", "GAUSS", "OPT"))
}

if ("zip" %in% sections) {
  cat("\n== zip_mortality: deaths by zip code within 3-digit areas; counts 1-10 sensitive\n")
  h <- list(zip = hierarchy_levels(hierarchy_zip(), 2))
  tab <- table_counts(zip_mortality, "zip", hierarchies = h, freq = "deaths")
  compare("zip_mortality", tab, cell_threshold(11), zip_mortality[c("zip", "deaths")], 10,
          c("heuristic", "optimal"), c("SIMPLEHEURISTIC", "GAUSS", "OPT"), freq = "deaths")
}

if ("solvers" %in% sections && epimask:::solver_installed("highs") && epimask:::solver_installed("glpk")) {
  cat("\n== solvers: GLPK and HiGHS on the same work (Adult age x education, counts 1-3 sensitive)\n")
  adult <- read_adult()
  tab <- table_counts(adult, c("age", "education"),
                      hierarchies = list(age = hierarchy_numeric(c(5, 20)),
                                         education = hierarchy_category(edu_groups)))
  for (s in c("glpk", "highs")) {
    ctl <- table_control(solver = s, time_limit = cap)
    h <- timed(suppress_table(tab, cell_threshold(4), method = "heuristic", control = ctl))
    a <- timed(audit_table(h$value, control = ctl))
    cat(sprintf("%-5s heuristic: %d secondary, %.1f s (cpu %.1f); audit of %d suppressed cells: %.1f s (cpu %.1f)\n",
                s, h$value$n_secondary, h$elapsed, h$cpu, nrow(a$value), a$elapsed, a$cpu))
  }
}

if ("large" %in% sections) {
  adult <- read_adult()
  h <- list(age = hierarchy_numeric(c(5, 20)), education = hierarchy_category(edu_groups))
  cat("\n== a 3-D table of about 1e5 cells: Adult age x education x native-country; counts 1-3 sensitive\n")
  tab <- table_counts(adult, c("age", "education", "native_country"), hierarchies = h)
  cat(sprintf("%d cells, %d sensitive\n", length(tab$count), nrow(sensitive_cells(tab, cell_threshold(4)))))
  for (s in Filter(function(s) epimask:::solver_installed(s), c("glpk", "highs"))) {
    r <- timed(tryCatch(suppress_table(tab, cell_threshold(4), method = "heuristic", cost = "value",
                                       control = table_control(solver = if (s == "glpk") "glpk",
                                                               time_limit = cap)),
                        epimask_error_time_limit = function(e) e))
    if (inherits(r$value, "condition")) cat(sprintf("  %s: did not finish within %s s\n", s, cap))
    else cat(sprintf("  heuristic + audit, %s: %d secondary (cost %s), %.1f s (cpu %.1f); last audit %.1f s; all protected: %s\n",
                     if (s == "glpk") "GLPK" else "GLPK + HiGHS", r$value$n_secondary,
                     format(round(r$value$cost)), r$elapsed, r$cpu, attr(r$value$audit, "seconds"),
                     length(r$value$unprotected) == 0L))
  }
  cat("\n== a table of about 1e5 cells: Adult age x occupation x education x sex; counts 1-3 sensitive\n")
  built <- timed(table_counts(adult, c("age", "occupation", "education", "sex"), hierarchies = h))
  tab <- built$value
  n_sens <- nrow(sensitive_cells(tab, cell_threshold(4)))
  cat(sprintf("table_counts: %d cells, %d sensitive, in %.1f s (cpu %.1f)\n", length(tab$count), n_sens,
              built$elapsed, built$cpu))
  gc(reset = TRUE)
  r <- timed(tryCatch(suppress_table(tab, cell_threshold(4), method = "heuristic", cost = "value",
                                     control = table_control(time_limit = cap)),
                      epimask_error_time_limit = function(e) e))
  mem <- sum(gc()[, 6])
  if (inherits(r$value, "condition")) {
    cat(sprintf("heuristic: did not finish within the cap of %s s (%.1f s elapsed, cpu %.1f)\n", cap,
                r$elapsed, r$cpu))
  } else {
    cat(sprintf(paste0("heuristic + audit: %d secondary (cost %s), %.1f s (cpu %.1f); audit alone %.1f s; ",
                       "every sensitive cell protected: %s; clean-up complete: %s; peak R memory %.0f MB\n"),
                r$value$n_secondary, format(round(r$value$cost)), r$elapsed, r$cpu,
                attr(r$value$audit, "seconds"), length(r$value$unprotected) == 0L,
                r$value$cleanup_complete, mem))
  }
  if (have_sdc && (is.null(only_sdc) || "SIMPLEHEURISTIC" %in% only_sdc)) {
    s <- sdc_run(tab, adult[c("age", "occupation", "education", "sex")], 3, "SIMPLEHEURISTIC")
    if (is.null(s$status)) cat(sprintf("sdcTable SIMPLEHEURISTIC: %s\n", s$why))
    else cat(sprintf("sdcTable SIMPLEHEURISTIC: %d secondary (count %s), %.1f s (cpu %.1f)\n",
                     sum(s$status == "x"), format(sum(tab$count[s$status == "x"])), s$elapsed, s$cpu))
  }
}

if ("zip1e5" %in% sections) {
  # Small-area counts of about 1e5 cells, the shape of the seeds' application
  # (deaths by zip code): a simulated population (fixed seed) of n_zip zip
  # codes within 3-digit areas within 1-digit regions, zip sizes lognormal
  # (median 150 people), ages from a declining pyramid. 2-D: zip x 18 5-year
  # age groups; 3-D: zip x 9 10-year groups x sex. Counts 1-3 sensitive,
  # cost "value"; the whole suppress_table() with its audit, GLPK alone (as
  # in CI) and with HiGHS when installed (the audit's LPs go to it).
  simulated_zips <- function(n_zip, seed = 1) {
    set.seed(seed)
    zips <- sprintf("%05d", sort(sample(10000:99999, n_zip)))
    size <- round(stats::rlnorm(n_zip, log(150), 1))
    zip <- rep(zips, size)
    age <- sample(0:89, length(zip), replace = TRUE, prob = pmax(0.2, 1 - (0:89) / 100))
    sex <- sample(c("F", "M"), length(zip), replace = TRUE)
    list(data = data.frame(zip = zip, age = age, sex = sex, stringsAsFactors = FALSE),
         hierarchy = hierarchy_category(data.frame(code = zips, area = substr(zips, 1, 3),
                                                   region = substr(zips, 1, 1))))
  }
  zip_table <- function(n_zip, shape) {
    pop <- simulated_zips(n_zip)
    d <- pop$data
    if (shape == "2-D") {
      d$age <- cut(d$age, seq(0, 90, 5), right = FALSE)
      table_counts(d, c("zip", "age"), hierarchies = list(zip = pop$hierarchy))
    } else {
      d$age <- cut(d$age, seq(0, 90, 10), right = FALSE)
      table_counts(d, c("zip", "age", "sex"), hierarchies = list(zip = pop$hierarchy))
    }
  }
  report <- function(label, r) {
    if (inherits(r$value, "condition")) {
      cat(sprintf("  %-34s did not finish within %s s (%.1f s elapsed)\n", label, cap, r$elapsed))
      return(invisible())
    }
    p <- r$value
    cat(sprintf("  %-34s %6d secondary (count %7s) %7.1f s (cpu %.1f); audit %.1f s: all protected %s\n",
                label, p$n_secondary, format(round(p$cost)), r$elapsed, r$cpu,
                attr(p$audit, "seconds"), length(p$unprotected) == 0L))
  }
  solvers <- Filter(function(s) epimask:::solver_installed(s), c("glpk", "highs"))
  for (case in list(list(4500, "2-D"), list(3000, "3-D"))) {
    tab <- zip_table(case[[1]], case[[2]])
    n_sens <- nrow(sensitive_cells(tab, cell_threshold(4)))
    cat(sprintf("\n== simulated zip codes, %s: %d zip codes, %d cells, %d sensitive (counts 1-3)\n",
                case[[2]], case[[1]], length(tab$count), n_sens))
    for (s in solvers) {
      # solver NULL with HiGHS installed: GLPK for the search, HiGHS for the audit
      ctl <- table_control(solver = if (s == "glpk") "glpk", time_limit = cap)
      r <- timed(tryCatch(suppress_table(tab, cell_threshold(4), method = "heuristic", cost = "value",
                                         control = ctl),
                          epimask_error_time_limit = function(e) e))
      report(sprintf("heuristic (sub-tables), %s", if (s == "glpk") "GLPK" else "GLPK + HiGHS"), r)
    }
  }
  # the ratio against the neighbourhood heuristic with its clean-up, which
  # 2-D tables up to 10,000 cells keep, on a table it finishes (500 zip codes)
  tab <- zip_table(500, "2-D")
  cat(sprintf("\n== simulated zip codes, 2-D: 500 zip codes, %d cells: sub-tables against neighbourhoods\n",
              length(tab$count)))
  ctl <- table_control(solver = "glpk", time_limit = cap)
  sub <- timed(suppress_table(tab, cell_threshold(4), method = "heuristic", cost = "value", control = ctl))
  report("heuristic (sub-tables)", sub)
  req <- epimask:::table_requirements(tab, list(cell_threshold(4)))
  costs <- epimask:::suppression_costs("value", tab, req)
  whole <- timed({
    h <- epimask:::heuristic_suppression(tab, req, costs, "glpk", ctl, subtables = FALSE)
    a <- epimask:::run_audit(tab, h$suppressed, req, "glpk", cap, sensitive_only = TRUE, exact = FALSE)
    list(n_secondary = sum(h$suppressed & !req$sensitive),
         cost = sum(req$value[h$suppressed & !req$sensitive]),
         audit = structure(a, seconds = NA), unprotected = which(req$sensitive)[!a$protected])
  })
  report("heuristic (neighbourhoods, clean-up)", whole)
  cat(sprintf("  time ratio neighbourhoods / sub-tables: %.1f\n", whole$elapsed / sub$elapsed))
}
