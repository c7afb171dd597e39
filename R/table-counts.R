# Count tables (methods vignette section 30): the cells of a table over
# dimensions with hierarchies, every margin and sub-total included, and the
# additive relations that tie each sub-total to the cells it sums. The
# table is the unit the table verbs work on: the primary rules
# (risk-criterion-threshold.R, -dominance.R, -ppercent.R), secondary
# suppression and its audit (table-suppress.R, table-audit.R), rounding,
# smoothing and noise (table-mask.R, mask-dp-counts.R) and the profile
# (profile-table.R). The cells are counted in C (src/table.c): every record
# counts once in every cell it falls in, one per choice of a level in each
# dimension.

#' A table of counts with every margin of its hierarchies
#'
#' Tabulates the records of `data` over the dimensions `dims`: one cell per
#' combination of a code or group of each dimension, at every level of its
#' hierarchy (zip code within county within state; single years of age within
#' age groups; days within months within years by [hierarchy_date()]), the
#' totals included. A cell holds the number of records in it (or the sum of
#' `freq`, for data already aggregated) and, with `value`, the sum of that
#' magnitude. The table keeps its additive relations explicitly: each group
#' of a dimension equals the sum of its children, for every combination of
#' the other dimensions' codes and groups. These are what an intruder uses to
#' recover a suppressed cell from the published ones ([suppress_table()],
#' [audit_table()]).
#'
#' A dimension without a hierarchy has its codes and one total (`"*"`). A
#' hierarchy (see [hierarchies]) is applied to the dimension's codes; every
#' level must nest in the next (each group of a level falls in one group of
#' the level above), and a level whose groups are all one is the total. A
#' group with one child is a cell equal to that child (a sub-total of one
#' code): kept, with its relation, so both are published or suppressed
#' together. Factor levels without records are cells of count 0.
#'
#' Every function that takes a table checks it first: a table whose cells
#' were edited so that a sub-total no longer equals the sum of its children
#' is refused with an error of class `epimask_error_inconsistent`.
#'
#' @param data A data frame (tibble, data.table): one row per record, or per
#'   group of records with `freq`.
#' @param dims The columns to tabulate over (names), free of `NA`.
#' @param hierarchies `NULL`, or a named list: for a dimension, a hierarchy
#'   ([hierarchies], or a list of levels for [as_hierarchy()]); dimensions not
#'   named have their codes and a total.
#' @param value `NULL`, or a numeric column of non-negative magnitudes (income,
#'   hours, cost): the cells then hold its sum as well, and the magnitude rules
#'   [dominance()] and [p_percent()] apply; each record is one contributor.
#' @param freq `NULL`, or a column of whole numbers >= 0: the number of units
#'   (persons, deaths) each row stands for, for data already aggregated (the
#'   bundled `zip_mortality`, one row per zip code with its deaths).
#' @return An object of class `epimask_table`: a list with `dims`, `nodes`
#'   (per dimension a data frame of its codes and groups: `code`, `level`,
#'   `parent`, `leaf`, in the order of the table: each group before its
#'   children), `index` (the node of each cell in each dimension),
#'   `count`, `records` (rows per cell), `value` (sums, or `NULL`), `top` (the
#'   largest contributions per cell, for the magnitude rules; custodian-side
#'   only), `relations` (the additive relations as triplets `relation`,
#'   `cell`, `coef`: the cell with coefficient +1 equals the sum of the cells
#'   with -1) and `n_relations`. Methods: `print()`, `format()`, `summary()`,
#'   `as.data.frame()` (one row per cell: the code of each dimension, its
#'   level `<dim>_level` (0 = a code, the top = the total), `count`,
#'   `value`, `interior` (every dimension at level 0)), `tidy()`,
#'   `glance()`, `plot()`.
#' @family count tables
#' @seealso [cell_threshold()], [suppress_table()], [audit_table()],
#'   [mask_dp_counts()], [ru_profile()].
#' @examples
#' tab <- table_counts(dose_cohort, c("city", "sex"))
#' tab
#' head(as.data.frame(tab))
#' # age at exposure in 10-year groups within 20-year groups
#' tab2 <- table_counts(dose_cohort, c("city", "age_exp"),
#'                      hierarchies = list(age_exp = hierarchy_numeric(c(10, 20))))
#' glance(tab2)
#' # aggregated data: deaths by zip code within 3-digit zip areas
#' zips <- table_counts(zip_mortality, "zip", freq = "deaths",
#'                      hierarchies = list(zip = hierarchy_levels(hierarchy_zip(), 2)))
#' zips
#' @export
table_counts <- function(data, dims, hierarchies = NULL, value = NULL, freq = NULL) {
  data <- as_plain_data(check_data(data))
  dims <- check_columns(dims, data, "dims")
  if (anyDuplicated(dims)) abort_value("dims", "distinct column names")
  if (length(dims) > 16L) abort_value("dims", "at most 16 dimensions")
  hierarchies <- check_table_hierarchies(hierarchies, dims)
  value <- table_value_column(data, value)
  freq <- table_freq_column(data, freq)
  parts <- lapply(dims, function(d) table_dimension(data[[d]], hierarchies[[d]], d))
  names(parts) <- dims
  build_table(parts, value$values, freq$values, value$name, freq$name, nrow(data))
}

# ---- arguments -----------------------------------------------------------------

check_table_hierarchies <- function(hierarchies, dims) {
  if (is.null(hierarchies)) return(list())
  if (inherits(hierarchies, "epimask_hierarchy") || !is.list(hierarchies))
    abort_type("hierarchies", "NULL or a named list of hierarchies, one per dimension")
  nm <- names(hierarchies)
  if (length(hierarchies) && (is.null(nm) || any(!nzchar(nm)) || anyNA(nm)))
    abort_type("hierarchies", "a named list (names: the dimensions)")
  unknown <- setdiff(nm, dims)
  if (length(unknown)) abort_name("hierarchies", unknown, "`dims`")
  lapply(hierarchies, function(h) if (is.null(h)) NULL else as_hierarchy(h))
}

table_value_column <- function(data, value) {
  if (is.null(value)) return(list(name = NULL, values = NULL))
  value <- check_columns(value, data, "value")
  if (length(value) != 1L) abort_length("value", "name one column")
  v <- data[[value]]
  if (!is.numeric(v) || is.object(v)) abort_type("value", sprintf("a numeric column ('%s' is not)", value))
  if (anyNA(v) || any(!is.finite(v)))
    abort_value("value", sprintf("a column of finite magnitudes ('%s' has NA or Inf)", value))
  if (any(v < 0))
    abort_value("value", sprintf(paste0("a column of non-negative magnitudes ('%s' has %d negative ",
                                        "values: the rules of magnitude tables assume contributions >= 0)"),
                                 value, sum(v < 0)))
  list(name = value, values = as.double(v))
}

table_freq_column <- function(data, freq) {
  if (is.null(freq)) return(list(name = NULL, values = NULL))
  freq <- check_columns(freq, data, "freq")
  if (length(freq) != 1L) abort_length("freq", "name one column")
  v <- data[[freq]]
  if (!is.numeric(v) || is.object(v)) abort_type("freq", sprintf("a numeric column ('%s' is not)", freq))
  if (anyNA(v) || any(!is.finite(v)) || any(v < 0) || any(v != round(v)))
    abort_value("freq", sprintf("a column of whole numbers >= 0 ('%s' is not)", freq))
  list(name = freq, values = as.double(v))
}

# ---- one dimension ------------------------------------------------------------------

# The codes and groups of one dimension: the codes of the records (and the
# unused levels of a factor) through every level of the hierarchy, checked
# to nest, numbered in the table's order (each group before its children,
# children in the order of their first code). `anc` (codes x levels, 0-based
# node numbers) gives each code's group at every level, `leaf` each record's
# code (0-based).
table_dimension <- function(x, h, name) {
  arg <- sprintf("data$%s", name)
  if (is.list(x) || !is.atomic(x)) abort_type("dims", sprintf("atomic columns ('%s' is not)", name))
  if (anyNA(x))
    abort_value("dims", sprintf(paste0("columns free of NA ('%s' has %d; recode a missing value ",
                                       "as a category of its own)"), name, sum(is.na(x))))
  check_utf8(x, arg)
  u <- if (is.factor(x)) factor(levels(x), levels = levels(x)) else sort(unique(x))
  if (is.factor(x)) u <- u[!is.na(u)]
  codes0 <- as.character(u)
  levels <- dimension_levels(u, h, name)
  nlev <- length(levels$codes)
  # nesting: each group of a level falls in one group of the next
  for (l in seq_len(nlev - 1L)) {
    lo <- levels$codes[[l]]
    hi <- levels$codes[[l + 1L]]
    pair <- unique(data.frame(lo = lo, hi = hi, stringsAsFactors = FALSE))
    split <- pair$lo[duplicated(pair$lo)]
    if (length(split))
      abort_value("hierarchies", sprintf(paste0(
        "levels that nest: for '%s', the group '%s' of level %d (%s) falls in more than one ",
        "group of level %d (%s)"), name, split[[1L]], l - 1L, levels$labels[[l]], l,
        paste0("'", utils::head(pair$hi[pair$lo == split[[1L]]], 3L), "'", collapse = ", ")))
  }
  # nodes: (level, code), with the rank of their first code for ordering
  nodes <- do.call(rbind, lapply(seq_len(nlev), function(l) {
    cd <- levels$codes[[l]]
    first <- !duplicated(cd)
    data.frame(code = cd[first], level = l - 1L, rank = which(first), stringsAsFactors = FALSE)
  }))
  key <- paste(nodes$level, nodes$code, sep = "\r")
  # ancestors of every code at every level (as keys)
  anc_key <- vapply(seq_len(nlev), function(l) paste(l - 1L, levels$codes[[l]], sep = "\r"),
                    character(length(codes0)))
  anc_key <- matrix(anc_key, ncol = nlev)
  # order: the path of first-code ranks from the top down, a group before its
  # children (-1 below a node's own level sorts it first)
  path <- matrix(-1L, nrow(nodes), nlev)
  for (l in seq_len(nlev)) {
    first <- match(anc_key[, l], anc_key[, l])
    above <- nodes$level < l
    path[above, nlev - l + 1L] <- first[nodes$rank[above]]
  }
  ord <- do.call(order, c(as.data.frame(path), list(method = "radix")))
  nodes <- nodes[ord, , drop = FALSE]
  key <- key[ord]
  anc <- matrix(match(anc_key, key) - 1L, ncol = nlev)
  parent_key <- vapply(seq_len(nrow(nodes)), function(i) {
    l <- nodes$level[[i]]
    if (l == nlev - 1L) return(NA_character_)
    anc_key[nodes$rank[[i]], l + 2L]
  }, character(1))
  nodes$parent <- match(parent_key, key)
  nodes$leaf <- nodes$level == 0L
  nodes$rank <- NULL
  rownames(nodes) <- NULL
  leaf_index <- match(as.character(x), codes0) - 1L
  list(name = name, nodes = nodes, anc = anc, leaf = leaf_index, level_labels = levels$labels,
       leaf_values = u, nlev = nlev)
}

# The codes of a dimension's values at every level: the hierarchy's levels
# (as text), a total "*" added when its top level is not one group.
dimension_levels <- function(u, h, name) {
  if (is.null(h)) {
    return(list(codes = list(as.character(u), rep("*", length(u))), labels = c("code", "*")))
  }
  top <- length(h$levels) - 1L
  codes <- lapply(0:top, function(l) {
    out <- apply_level(h, if (is.factor(u)) as.character(u) else u, l)
    out <- as.character(out)
    if (anyNA(out))
      abort_value("hierarchies", sprintf(paste0(
        "a hierarchy covering every code of '%s' (level %d gives NA for %s)"), name, l,
        paste0("'", utils::head(as.character(u)[is.na(out)], 3L), "'", collapse = ", ")))
    out
  })
  codes[[1L]] <- as.character(u)
  labels <- h$labels %||% sprintf("level %d", 0:top)
  if (length(unique(codes[[length(codes)]])) > 1L) {
    codes <- c(codes, list(rep("*", length(u))))
    labels <- c(labels, "*")
  }
  # a level below the top that is already one group is the total: stop there
  one <- which(vapply(codes, function(cd) length(unique(cd)) == 1L, logical(1)))
  if (length(u) > 1L && length(one) && min(one) < length(codes)) {
    keep <- seq_len(min(one))
    codes <- codes[keep]
    labels <- labels[keep]
  }
  if (length(u) == 1L) {
    codes <- list(codes[[1L]], rep("*", 1L))
    labels <- c(labels[[1L]], "*")
  }
  codes[[length(codes)]] <- rep("*", length(u))
  list(codes = codes, labels = labels)
}

# ---- the table -----------------------------------------------------------------------

# Largest number of cells a table may have (its relations and the solver's
# models grow with it).
table_max_cells <- 5e7

build_table <- function(parts, value, freq, value_name, freq_name, n_records) {
  d <- length(parts)
  n_nodes <- vapply(parts, function(p) nrow(p$nodes), numeric(1))
  n_cells <- prod(n_nodes)
  if (n_cells > table_max_cells)
    abort_value("dims", sprintf(paste0("dimensions whose table has at most %s cells (these have ",
                                       "%s: %s nodes); use coarser hierarchies or fewer dimensions"),
                                format_num(table_max_cells), format_num(n_cells),
                                paste(n_nodes, collapse = " x ")))
  stride <- cumprod(c(1, n_nodes))[seq_len(d)]
  n_top <- if (is.null(value)) 0L else 10L
  agg <- call_c(C_table_aggregate, list(
    leaf = matrix(vapply(parts, function(p) as.integer(p$leaf), integer(n_records)), ncol = d),
    anc = as.integer(unlist(lapply(parts, function(p) as.vector(p$anc)))),
    nleaf = vapply(parts, function(p) nrow(p$anc), integer(1)),
    nlev = vapply(parts, function(p) as.integer(p$nlev), integer(1)),
    stride = as.double(stride), n_cells = as.double(n_cells),
    freq = if (is.null(freq)) double() else freq,
    value = if (is.null(value)) double() else value, n_top = n_top), arg = "data")
  index <- cell_index_matrix(n_nodes)
  rel <- table_relations(parts, n_nodes, stride)
  nodes <- lapply(parts, `[[`, "nodes")
  levels <- lapply(parts, `[[`, "level_labels")
  structure(list(dims = names(parts), nodes = nodes, level_labels = levels, index = index,
                 count = agg$count, records = agg$rows, value = agg$sum,
                 top = agg$top, relations = rel$triplets, n_relations = rel$n,
                 value_name = value_name, freq_name = freq_name, n_records = n_records),
            class = "epimask_table")
}

# The node (1-based) of every cell in every dimension; dimension 1 varies
# fastest, as the cells are numbered.
cell_index_matrix <- function(n_nodes) {
  n_cells <- prod(n_nodes)
  out <- matrix(0L, n_cells, length(n_nodes))
  each <- 1
  for (j in seq_along(n_nodes)) {
    out[, j] <- rep(rep(seq_len(n_nodes[[j]]), each = each), length.out = n_cells)
    each <- each * n_nodes[[j]]
  }
  out
}

# The additive relations: for each dimension j, each group p of j with
# children C(p), and each combination of the other dimensions' nodes,
# cell(p, rest) = sum over c in C(p) of cell(c, rest). As triplets
# (relation, cell, coef), cells 1-based: +1 for the group, -1 for a child.
table_relations <- function(parts, n_nodes, stride) {
  n_cells <- prod(n_nodes)
  out <- list()
  base <- 0
  for (j in seq_along(parts)) {
    nodes <- parts[[j]]$nodes
    # the cells whose node in dimension j is the first (offsets of the rest)
    rest <- which(cell_index_in_dim(n_nodes, j) == 1L) - 1
    groups <- which(!nodes$leaf)
    if (!length(groups)) next
    n_rest <- length(rest)
    for (g in seq_along(groups)) {
      p <- groups[[g]]
      kids <- which(nodes$parent == p)
      rid <- base + (g - 1) * n_rest + seq_len(n_rest)
      cells <- c(rest + (p - 1) * stride[[j]],
                 as.vector(outer(rest, (kids - 1) * stride[[j]], `+`))) + 1
      out[[length(out) + 1L]] <- list(relation = rep(rid, 1L + length(kids)), cell = cells,
                                      coef = rep(c(1, -1), c(n_rest, n_rest * length(kids))))
    }
    base <- base + length(groups) * n_rest
  }
  triplets <- if (length(out))
    data.frame(relation = unlist(lapply(out, `[[`, "relation")),
               cell = as.integer(unlist(lapply(out, `[[`, "cell"))),
               coef = unlist(lapply(out, `[[`, "coef")))
  else data.frame(relation = double(), cell = integer(), coef = double())
  triplets <- triplets[order(triplets$relation, triplets$cell, method = "radix"), , drop = FALSE]
  triplets$relation <- as.integer(triplets$relation)
  rownames(triplets) <- NULL
  list(triplets = triplets, n = as.integer(base))
}

cell_index_in_dim <- function(n_nodes, j) {
  each <- prod(n_nodes[seq_len(j - 1L)])
  rep(rep(seq_len(n_nodes[[j]]), each = each), length.out = prod(n_nodes))
}

# ---- checks ----------------------------------------------------------------------------

# A table as the verbs take it: the structure intact, counts whole and >= 0,
# and every relation holding (a table whose cells were edited is refused).
check_table <- function(x, arg = "table") {
  if (!inherits(x, "epimask_table"))
    abort_type(arg, "a count table from table_counts()")
  n <- length(x$count)
  if (!is.numeric(x$count) || !n || !is.matrix(x$index) || nrow(x$index) != n ||
      !is.data.frame(x$relations) || !all(c("relation", "cell", "coef") %in% names(x$relations)))
    abort_type(arg, "a count table from table_counts() (its structure was changed)")
  if (anyNA(x$count) || any(!is.finite(x$count)) || any(x$count < 0) ||
      any(abs(x$count - round(x$count)) > 1e-9))
    abort_value(arg, "a table of whole counts >= 0")
  if (!is.null(x$value) && (length(x$value) != n || anyNA(x$value) || any(x$value < 0)))
    abort_value(arg, "a table of non-negative magnitudes")
  bad <- table_inconsistency(x, x$count)
  if (is.null(bad) && !is.null(x$value)) bad <- table_inconsistency(x, x$value, "value")
  if (!is.null(bad)) epimask_abort(bad, c("epimask_error_inconsistent", "epimask_error_value"),
                                   arg = arg)
  invisible(x)
}

# NULL when the values satisfy every relation, else a sentence naming the
# first relation that fails.
table_inconsistency <- function(x, v, what = "count") {
  rel <- x$relations
  if (!nrow(rel)) return(NULL)
  gap <- rowsum(rel$coef * v[rel$cell], rel$relation, reorder = TRUE)
  scale <- max(1, max(abs(v)))
  bad <- which(abs(gap) > 1e-9 * scale)
  if (!length(bad)) return(NULL)
  r <- as.integer(rownames(gap)[bad[[1L]]])
  cells <- rel$cell[rel$relation == r]
  top <- cells[rel$coef[rel$relation == r] > 0]
  sprintf(paste0("The table is inconsistent with its margins: %d relation%s fail (the %s of cell ",
                 "%s is %s, its parts sum to %s). Was it edited? Build it again with table_counts()."),
          length(bad), if (length(bad) == 1L) "" else "s", what, cell_label(x, top),
          format_num(v[top], 6, TRUE), format_num(v[top] - gap[bad[[1L]]], 6, TRUE))
}

# "age = 20-29, sex = *": a cell's codes, for messages and reports.
cell_label <- function(x, cells) {
  vapply(cells, function(c) {
    paste(vapply(seq_along(x$dims), function(j) {
      sprintf("%s = %s", x$dims[[j]], x$nodes[[j]]$code[[x$index[c, j]]])
    }, character(1)), collapse = ", ")
  }, character(1))
}

# Cells whose every dimension is at level 0 (the codes of the records).
table_interior <- function(x) {
  ok <- rep(TRUE, nrow(x$index))
  for (j in seq_along(x$dims)) ok <- ok & x$nodes[[j]]$leaf[x$index[, j]]
  ok
}

# The level of every cell in each dimension (0 = code).
table_cell_levels <- function(x) {
  vapply(seq_along(x$dims), function(j) x$nodes[[j]]$level[x$index[, j]], integer(nrow(x$index)))
}

# ---- methods ---------------------------------------------------------------------------

#' @rdname table_counts
#' @param x An `epimask_table`.
#' @param ... Ignored.
#' @param row.names,optional As for [as.data.frame()].
#' @export
as.data.frame.epimask_table <- function(x, row.names = NULL, optional = FALSE, ...) {
  out <- table_cells_frame(x)
  apply_row_names(out, row.names, optional)
}

table_cells_frame <- function(x, values = NULL) {
  cols <- list()
  for (j in seq_along(x$dims)) {
    nd <- x$nodes[[j]]
    cols[[x$dims[[j]]]] <- nd$code[x$index[, j]]
    cols[[paste0(x$dims[[j]], "_level")]] <- nd$level[x$index[, j]]
  }
  out <- as.data.frame(cols, stringsAsFactors = FALSE, optional = TRUE)
  if (is.null(values)) {
    out$count <- x$count
    if (!is.null(x$value)) out$value <- x$value
  } else {
    for (nm in names(values)) out[[nm]] <- values[[nm]]
  }
  out$interior <- table_interior(x)
  out
}

#' @rdname table_counts
#' @export
format.epimask_table <- function(x, ...) {
  n <- length(x$count)
  interior <- table_interior(x)
  dims <- vapply(seq_along(x$dims), function(j) {
    nd <- x$nodes[[j]]
    sprintf("  %s: %s codes, %s groups (%s)", x$dims[[j]], format_num(sum(nd$leaf), integers = TRUE),
            format_num(sum(!nd$leaf), integers = TRUE),
            paste(x$level_labels[[j]], collapse = " -> "))
  }, character(1))
  total <- max(x$count)
  counts <- x$count[interior]
  bins <- c(zero = sum(counts == 0), small = sum(counts >= 1 & counts < 11),
            large = sum(counts >= 11))
  c(sprintf("<count table> %d dimension%s, %s cells (%s interior, %s margins and sub-totals), %s additive relations",
            length(x$dims), if (length(x$dims) == 1L) "" else "s", format_num(n, integers = TRUE),
            format_num(sum(interior), integers = TRUE), format_num(sum(!interior), integers = TRUE),
            format_num(x$n_relations, integers = TRUE)),
    dims,
    sprintf("  total %s%s from %s records%s", format_num(total, integers = TRUE),
            if (!is.null(x$freq_name)) sprintf(" (sum of '%s')", x$freq_name) else "",
            format_num(x$n_records, integers = TRUE),
            if (!is.null(x$value)) sprintf("; magnitude '%s' totals %s", x$value_name,
                                           format_num(max(x$value), 4)) else ""),
    sprintf("  interior cells: %s empty, %s with counts 1-10, %s with 11 or more",
            format_num(bins[["zero"]], integers = TRUE), format_num(bins[["small"]], integers = TRUE),
            format_num(bins[["large"]], integers = TRUE)))
}

#' @rdname table_counts
#' @param n Number of cells to print.
#' @export
print.epimask_table <- function(x, n = 10L, ...) {
  cat(format(x), sep = "\n")
  d <- utils::head(as.data.frame(x), n)
  if (nrow(d)) {
    cat("\n")
    print(format_table(d), row.names = FALSE)
    if (length(x$count) > n) cat(sprintf("  ... %s more cells (as.data.frame() lists them)\n",
                                         format_num(length(x$count) - n, integers = TRUE)))
  }
  invisible(x)
}

#' @rdname table_counts
#' @param object An `epimask_table`.
#' @export
summary.epimask_table <- function(object, ...) {
  structure(list(glance = glance(object), levels = table_level_summary(object)),
            class = "summary.epimask_table")
}

#' @export
format.summary.epimask_table <- function(x, ...) {
  c("Count table", utils::capture.output(print(format_table(x$glance), row.names = FALSE)), "",
    "Cells by level of each dimension:",
    utils::capture.output(print(format_table(x$levels), row.names = FALSE)))
}

#' @export
print.summary.epimask_table <- function(x, ...) print_formatted(x, ...)

table_level_summary <- function(x) {
  lev <- table_cell_levels(x)
  key <- apply(lev, 1L, paste, collapse = ",")
  groups <- split(seq_along(x$count), key)
  rows <- lapply(groups, function(g) {
    data.frame(levels = key[[g[[1L]]]], cells = length(g), total = sum(x$count[g]),
               zeros = sum(x$count[g] == 0), small = sum(x$count[g] >= 1 & x$count[g] < 11),
               stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, rows)
  names(out)[[1L]] <- paste0("level (", paste(x$dims, collapse = ", "), ")")
  rownames(out) <- NULL
  out
}

#' @rdname epimask-tidiers
#' @method tidy epimask_table
#' @export
tidy.epimask_table <- function(x, ...) as.data.frame(x)

#' @rdname epimask-tidiers
#' @method glance epimask_table
#' @export
glance.epimask_table <- function(x, ...) {
  interior <- table_interior(x)
  data.frame(dims = paste(x$dims, collapse = " x "), cells = length(x$count),
             interior = sum(interior), relations = x$n_relations, total = max(x$count),
             records = x$n_records, empty = sum(x$count[interior] == 0),
             small = sum(x$count[interior] >= 1 & x$count[interior] < 11),
             value = x$value_name %||% NA_character_, stringsAsFactors = FALSE)
}
