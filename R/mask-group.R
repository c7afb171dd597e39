# Grouping (methods vignette section 1.2): each value replaced by its interval's mean or
# midpoint.

#' @rdname mask_scheme
#' @export
mask_group <- function(breaks, value = c("mean", "midpoint"), reference = NULL) {
  value <- check_choice(value, c("mean", "midpoint"), arg = "value")
  if (!is.numeric(breaks) || length(breaks) < 2L || anyNA(breaks))
    abort_type("breaks", "a numeric vector of at least two interval limits")
  if (any(diff(breaks) <= 0)) abort_value("breaks", "strictly increasing")
  breaks <- as.double(breaks)
  if (value == "midpoint" && any(is.infinite(breaks)))
    abort_value("breaks", "finite for `value = \"midpoint\"`")
  if (!is.null(reference)) reference <- check_group_reference(reference)
  widths <- diff(breaks)
  degree <- mean(widths[is.finite(widths)])
  if (is.nan(degree)) degree <- Inf
  new_mask_scheme("group", method = "group", degree = degree,
                  label = sprintf("group %d", length(breaks) - 1L),
                  breaks = breaks, value = value, reference = reference,
                  generator = sprintf("grouping (%s)", if (value == "mean") "means" else "midpoints"),
                  strength = degree)
}

check_group_reference <- function(reference) {
  if (is.list(reference)) {
    if (is.null(names(reference)) || any(!nzchar(names(reference))))
      abort_type("reference", "a numeric vector or a named list of numeric vectors")
    for (nm in names(reference))
      reference[[nm]] <- check_numeric_vector(reference[[nm]], "reference", finite = FALSE)
    return(as.list(reference))
  }
  check_numeric_vector(reference, "reference", finite = FALSE)
}

#' @export
mask_validate.mask_group <- function(scheme, ...) {
  mask_group(scheme$breaks, scheme$value, scheme$reference)
}

#' @export
mask_values.mask_group <- function(scheme, x, data, ...) mask_group_values(scheme, x)

#' @export
format.mask_group <- function(x, ...) {
  revalidate_scheme(x, "x")
  sprintf("grouping into %d intervals (%s)", length(x$breaks) - 1L,
          if (x$value == "mean") "interval means" else "midpoints")
}

#' @export
scheme_label.mask_group <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  sprintf("%d groups (%s)", length(scheme$breaks) - 1L,
          if (scheme$value == "mean") "mean" else "mid")
}

# (the constructor records "grouping (means)" / "grouping (midpoints)"; this
# is the name of a scheme whose generator field was removed)
#' @export
mask_generator.mask_group <- function(scheme, ...) {
  if (identical(scheme$value, "midpoint")) "grouping (midpoints)" else "grouping (interval means)"
}

#' @export
mask_strength.mask_group <- function(scheme, ...) -(length(scheme$breaks) - 1)

mask_group_values <- function(scheme, Z) {
  breaks <- scheme$breaks
  nb <- length(breaks)
  mids <- (breaks[-1L] + breaks[-nb]) / 2
  for (j in seq_len(ncol(Z))) {
    z <- Z[, j]
    bin <- findInterval(z, breaks, rightmost.closed = TRUE)
    outside <- !is.na(z) & (bin == 0L | bin == nb)
    if (any(outside))
      abort_value("data", sprintf("within the `breaks` of the grouping scheme [%s, %s]; %d value(s) are outside",
                                  format(breaks[1L]), format(breaks[nb]), sum(outside)))
    level <- mids
    if (scheme$value == "mean") level <- group_means(scheme, z, colnames(Z)[j], breaks, bin)
    Z[, j] <- level[bin]
  }
  Z
}

# bin: findInterval() of z (all within the breaks), reused when z is its own reference.
group_means <- function(scheme, z, var, breaks, bin) {
  nb <- length(breaks)
  ref <- scheme$reference
  if (is.list(ref)) {
    if (is.null(var) || !var %in% names(ref))
      abort_name("reference", if (is.null(var)) "(unnamed column)" else var,
                 "the masked columns")
    ref <- ref[[var]]
  }
  if (is.null(ref)) {
    ok <- !is.na(z)
    ref <- z[ok]
    rbin <- bin[ok]
  } else {
    ref <- ref[!is.na(ref)]
    rbin <- findInterval(ref, breaks, rightmost.closed = TRUE)
  }
  keep <- rbin >= 1L & rbin < nb
  # one pass over the reference values, whatever the number of intervals
  counts <- tabulate(rbin[keep], nb - 1L)
  sums <- numeric(nb - 1L)
  if (any(keep)) {
    by_bin <- rowsum(ref[keep], rbin[keep], reorder = TRUE)
    sums[as.integer(rownames(by_bin))] <- by_bin[, 1L]
  }
  means <- sums / counts
  used <- which(tabulate(bin, nb - 1L) > 0L)
  empty <- intersect(used, which(counts == 0L))
  if (length(empty)) {
    epimask_warn(sprintf("%d interval(s) hold data but no reference values; their midpoints are used.",
                         length(empty)), "epimask_warning_reference")
    means[empty] <- (breaks[empty] + breaks[empty + 1L]) / 2
  }
  means
}
