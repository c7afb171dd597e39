# Count tables side by side with sdcTable (issue 40): the same tables, the
# number and cost of secondary suppressions, both outputs audited by
# epimask's audit_table() (protection +-1 around every primary cell) and by
# sdcTable's attack() (which only asks that a cell not be recovered exactly),
# and the time of both in one run. sdcTable is not a dependency: install it
# with tools/install-sdctable.sh; without it the epimask rows are printed.
#
#   Rscript inst/bench/bench-tables.R [sections]   sections: adult adult2 zip large solvers
#
# Times are elapsed seconds and CPU seconds (user + system) of this process:
# on a shared machine the elapsed time mostly measures the other jobs.

suppressPackageStartupMessages({
  if (requireNamespace("pkgload", quietly = TRUE) && file.exists("DESCRIPTION")) pkgload::load_all(quiet = TRUE)
  else library(epimask)
})
args <- commandArgs(trailingOnly = TRUE)
sections <- if (length(args)) args else c("adult2", "adult", "zip", "solvers", "large")
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

sdc_run <- function(tab, data, maxN, method, freq = NULL, ...) {
  dims <- stats::setNames(lapply(seq_along(tab$dims), function(j) sdc_hierarchy(tab, j)), tab$dims)
  p <- sdcTable::makeProblem(data = data, dimList = dims, freqVarInd = freq)
  p <- sdcTable::primarySuppression(p, type = "freq", maxN = maxN)
  res <- timed(suppressMessages(sdcTable::protectTable(p, method = method, ...)))
  fd <- sdcTable::getInfo(res$value, type = "finalData")
  cells <- sdc_cells(tab, fd)
  status <- rep("s", length(tab$count))
  status[cells] <- as.character(fd$sdcStatus)
  list(problem = p, status = status, elapsed = res$elapsed, cpu = res$cpu)
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
  a <- timed(sdcTable::attack(p, to_attack = prim, verbose = FALSE))
  list(protected = sum(a$value$protected), attacked = nrow(a$value), elapsed = a$elapsed, cpu = a$cpu)
}

# epimask's audit of any pattern (sensitive cells of the rule, protection +-1).
our_audit <- function(tab, rule, suppressed) {
  req <- epimask:::table_requirements(tab, list(rule))
  a <- timed(epimask:::run_audit(tab, suppressed, req, epimask:::pick_solver(NULL, prefer = "highs"),
                                 sensitive_only = TRUE))
  d <- as.data.frame(a$value)
  list(protected = sum(d$protected[d$status == "primary"]), sensitive = sum(req$sensitive),
       unsuppressed = sum(req$sensitive & !suppressed), elapsed = a$elapsed, cpu = a$cpu)
}

compare <- function(name, tab, rule, data, maxN, methods, sdc_methods, freq = NULL, time_limit = 600) {
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
      attack_ok = if (is.null(attack)) NA else sprintf("%d/%d", attack$protected, attack$attacked),
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
    if (inherits(s, "error")) {
      cat(sprintf("  sdcTable %s failed: %s\n", m, conditionMessage(s)))
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
          c("heuristic", "optimal"), c("SIMPLEHEURISTIC", "GAUSS"), time_limit = 900)
}

if ("adult2" %in% sections) {
  cat("\n== Adult: age (5-year within 20-year groups) x education (4 groups); counts 1-3 sensitive\n")
  adult <- read_adult()
  h <- list(age = hierarchy_numeric(c(5, 20)), education = hierarchy_category(edu_groups))
  tab <- table_counts(adult, c("age", "education"), hierarchies = h)
  compare("adult 2-D", tab, cell_threshold(4), adult[c("age", "education")], 3,
          c("heuristic", "optimal"), c("SIMPLEHEURISTIC", "GAUSS", "OPT"), time_limit = 600)
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
    ctl <- table_control(solver = s, time_limit = 600)
    h <- timed(suppress_table(tab, cell_threshold(4), method = "heuristic", control = ctl))
    a <- timed(audit_table(h$value, control = ctl))
    cat(sprintf("%-5s heuristic: %d secondary, %.1f s (cpu %.1f); audit of %d suppressed cells: %.1f s (cpu %.1f)\n",
                s, h$value$n_secondary, h$elapsed, h$cpu, nrow(a$value), a$elapsed, a$cpu))
  }
}

if ("large" %in% sections) {
  cat("\n== a table of about 1e5 cells: Adult age x occupation x education x sex; counts 1-3 sensitive\n")
  adult <- read_adult()
  h <- list(age = hierarchy_numeric(c(5, 20)), education = hierarchy_category(edu_groups))
  built <- timed(table_counts(adult, c("age", "occupation", "education", "sex"), hierarchies = h))
  tab <- built$value
  n_sens <- nrow(sensitive_cells(tab, cell_threshold(4)))
  cat(sprintf("table_counts: %d cells, %d sensitive, in %.1f s (cpu %.1f)\n", length(tab$count), n_sens,
              built$elapsed, built$cpu))
  r <- timed(suppress_table(tab, cell_threshold(4), method = "heuristic",
                            control = table_control(time_limit = 3600)))
  cat(sprintf("heuristic + audit: %d secondary, %.1f s (cpu %.1f); audit alone cpu %.1f s; every sensitive cell protected: %s\n",
              r$value$n_secondary, r$elapsed, r$cpu, attr(r$value$audit, "seconds"),
              length(r$value$unprotected) == 0L))
}
