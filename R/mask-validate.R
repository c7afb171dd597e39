# Two guards that apply_mask() runs on every call.
#
# 1. Re-validation. A scheme is a plain list that a user may edit after
#    construction (`s$direction <- NA`). apply_mask() rebuilds it from its
#    fields with its own constructor, so an edited scheme fails exactly like a
#    bad constructor call (the error names the field), and the C core only
#    ever receives fields a constructor accepted.
# 2. No record released unmasked in silence. Schemes that promise to change
#    every value (kernels and matrices at a positive degree, noise) can leave
#    some records exactly as they were: an isolated record under a kernel (no
#    neighbour within the cutoff), noise below the values' floating-point
#    precision, an identity row of a matrix. Such records are the most
#    identifiable ones, so they are counted and reported with their cause, and
#    the custodian can refuse them or set them to NA.

# One rebuilder per scheme type: the constructor called with the fields.
scheme_rebuilders <- list(
  none = function(s) mask_none(),
  round = function(s) mask_round(s$digits, s$round_type),
  truncate = function(s) mask_truncate(s$digits),
  group = function(s) mask_group(s$breaks, s$value, s$reference),
  noise = function(s) mask_noise(s$amount, s$dist, s$lower),
  matrix = function(s) mask_matrix(s$A, s$B, s$C, s$lambda),
  kernel = function(s) mask_kernel(s$kernel, s$lambda, s$coords, s$source, s$direction,
                                   s$groups, s$rho, s$bandwidth, s$cutoff),
  microagg = function(s) mask_microagg(s$k, s$method),
  pram = function(s) mask_pram(s$pd, s$matrix, s$invariant),
  swap = function(s) mask_swap(s$p),
  topcode = function(s) mask_topcode(s$upper, s$lower, s$value)
)

revalidate_scheme <- function(scheme, arg = "scheme") {
  if (!inherits(scheme, "mask_scheme") || !is.list(scheme))
    abort_type(arg, "a mask_scheme")
  type <- scheme$type
  if (!is.character(type) || length(type) != 1L || is.na(type) ||
      is.null(scheme_rebuilders[[type]]))
    epimask_abort(sprintf("`%s$type` must be one of %s.", arg,
                          paste0("\"", names(scheme_rebuilders), "\"", collapse = ", ")),
                  "epimask_error_value", arg = paste0(arg, "$type"))
  rebuilt <- tryCatch(scheme_rebuilders[[type]](scheme), epimask_error = function(e) {
    field <- if (is.null(e$arg)) "" else e$arg
    kind <- setdiff(class(e), c("epimask_error", "error", "condition"))
    epimask_abort(sprintf("The %s's field `%s` is not valid (was it edited after construction?): %s",
                          arg, field, conditionMessage(e)),
                  kind, arg = paste0(arg, "$", field))
  })
  check_scheme_extras(scheme, arg)
  rebuilt
}

# The fields no constructor argument sets: the label, method and degree every
# scheme carries (printed, the name in a list of schemes, columns of a
# profile), whether it is random (replicates of a profile), and the generator
# and strength that mask_sweep() adds.
check_scheme_extras <- function(scheme, arg) {
  field_error <- function(field, expected)
    epimask_abort(sprintf("The %s's field `%s` is not valid (was it edited after construction?): it must be %s.",
                          arg, field, expected),
                  "epimask_error_type", arg = paste0(arg, "$", field))
  is_string <- function(v) is.character(v) && length(v) == 1L && !is.na(v) && validUTF8(v)
  if (!is_string(scheme$label)) field_error("label", "a single character string (valid UTF-8)")
  if (!is_string(scheme$method)) field_error("method", "a single character string (valid UTF-8)")
  degree <- scheme$degree
  if (!(is.numeric(degree) && length(degree) == 1L && !is.na(degree)))
    field_error("degree", "a single number (not NA)")
  random <- scheme$random
  if (!is.null(random) && !(is.logical(random) && length(random) == 1L && !is.na(random)))
    field_error("random", "NULL, TRUE or FALSE")
  if (!is.null(scheme$generator) && !is_string(scheme$generator))
    field_error("generator", "NULL or a single character string (valid UTF-8)")
  strength <- scheme$strength
  # (a grouping into one unbounded interval is of infinite strength)
  if (!is.null(strength) && !(is.numeric(strength) && length(strength) == 1L &&
                              !is.na(strength)))
    field_error("strength", "NULL or a single number (not NA)")
  invisible(scheme)
}

# ---- unmasked records ----------------------------------------------------------------

# Which records a scheme left exactly as they were although it should have
# changed them: all of their values in the masked columns that vary (a
# constant column cannot be changed by a row-stochastic mask, nor identify
# anyone) equal the originals. Only schemes that promise change are checked:
# rounding, truncation and grouping leave values that are already coarse
# unchanged by design.
unmasked_records <- function(scheme, Z, Zm) {
  if (!scheme_promises_change(scheme)) return(integer())
  varying <- which(apply(Z, 2L, function(z) {
    z <- z[!is.na(z)]
    length(z) > 1L && any(z != z[1L])
  }))
  # independent noise changes constant columns too; correlated noise (covariance
  # amount * Sigma) leaves a column without variance as it is, by design
  if (scheme$type == "noise" && !identical(scheme$dist, "correlated")) varying <- seq_len(ncol(Z))
  if (!length(varying)) return(integer())
  Zv <- Z[, varying, drop = FALSE]
  same <- Zm[, varying, drop = FALSE] == Zv
  # cells that say nothing either way: missing or infinite originals (no mask
  # changes them) and, for noise floored at `lower`, values at the floor
  # (Cologne: zero doses stay zero; a shared floor value identifies nobody)
  neutral <- !is.finite(Zv)
  if (scheme$type == "noise" && !is.null(scheme$lower))
    neutral <- neutral | (!is.na(Zv) & Zv <= scheme$lower)
  same[neutral] <- NA
  # unmasked: every informative cell unchanged, and at least one of them
  informative <- rowSums(!is.na(same))
  changed <- rowSums(!same, na.rm = TRUE)
  which(informative > 0L & changed == 0L)
}

scheme_promises_change <- function(scheme) {
  switch(scheme$type,
    kernel = scheme$lambda > 0,
    matrix = TRUE,
    noise = TRUE,
    FALSE)
}

# The cause, named by the parameter that produced it.
unmasked_cause <- function(scheme, Z, rows) {
  switch(scheme$type,
    kernel = {
      if (scheme$kernel == "shrink")
        sprintf("no other record is close enough for `bandwidth` = %s to give it weight",
                format(scheme$bandwidth, digits = 4))
      else if (scheme$cutoff < 36)
        sprintf("no other record lies within the weight `cutoff` = %s (relative weight exp(-%s); the default is 36)",
                format(scheme$cutoff, digits = 4), format(scheme$cutoff, digits = 4))
      else
        sprintf("no other record is within reach of `lambda` = %s (isolated records; a larger lambda smooths them)",
                format(scheme$lambda, digits = 4))
    },
    noise = sprintf("the noise `amount` = %s is below the precision of values that large (|x| up to %s)",
                    format(scheme$amount, digits = 4),
                    format(max(abs(Z[rows, ]), na.rm = TRUE), digits = 4)),
    matrix = "their rows of the matrix `A` are rows of the identity",
    "the scheme left them unchanged")
}

# Applies the `unmasked` policy; returns Zm (with NA rows when suppressed) and
# the count.
handle_unmasked <- function(scheme, Z, Zm, policy) {
  rows <- unmasked_records(scheme, Z, Zm)
  if (!length(rows)) return(list(values = Zm, count = 0L))
  cols <- colnames(Z)
  what <- sprintf("%d of %d records are left unmasked (their values in %s equal the originals): %s.",
                  length(rows), nrow(Z),
                  if (is.null(cols)) "the masked columns" else paste0("'", cols, "'", collapse = ", "),
                  unmasked_cause(scheme, Z, rows))
  if (policy == "error")
    epimask_abort(paste(what, "Refused (`unmasked = \"error\"`)."), "epimask_error_unmasked",
                  arg = "scheme")
  if (policy == "suppress") {
    Zm[rows, ] <- NA_real_
    return(list(values = Zm, count = length(rows)))
  }
  # every record unchanged: the release is the original data
  everyone <- if (length(rows) == nrow(Z)) "epimask_warning_nomask"
  epimask_warn(paste(what, "Use `unmasked = \"suppress\"` to set them to NA or \"error\" to refuse."),
               c(everyone, "epimask_warning_unmasked"))
  list(values = Zm, count = length(rows))
}
