# Two guards that apply_mask() runs on every call.
#
# 1. Re-validation. A scheme is a plain list that a user may edit after
#    construction (`s$direction <- NA`). apply_mask() runs the type's own
#    validator (mask_validate(), which for the package's types calls the
#    constructor with the fields), so an edited scheme fails exactly like a
#    bad constructor call (the error names the field), and the C core only
#    ever receives fields a constructor accepted.
# 2. No record released unmasked in silence. Schemes that promise to change
#    every value (kernels and matrices at a positive degree, noise) can leave
#    some records exactly as they were: an isolated record under a kernel (no
#    neighbour within the cutoff), noise below the values' floating-point
#    precision, an identity row of a matrix. Such records are the most
#    identifiable ones, so they are counted and reported with their cause, and
#    the custodian can refuse them or set them to NA.

revalidate_scheme <- function(scheme, arg = "scheme") {
  if (!inherits(scheme, "mask_scheme") || !is.list(scheme))
    abort_type(arg, "a mask_scheme")
  # the class names the type; a `type` field edited away from it is refused
  type <- scheme$type
  cls <- class(scheme)[1L]
  if (identical(cls, "mask_scheme"))
    abort_type(arg, paste("a mask_scheme of class c(\"mask_<type>\", \"mask_scheme\")",
                          "(a scheme saved by an older version: make it again with its constructor)"))
  if (!is.character(type) || length(type) != 1L || is.na(type) ||
      !identical(paste0("mask_", type), cls))
    epimask_abort(sprintf("`%s$type` must be \"%s\", the type of its class \"%s\".", arg,
                          sub("^mask_", "", cls), cls),
                  "epimask_error_value", arg = paste0(arg, "$type"))
  # the type's own validator (for the package's types, its constructor
  # called with the fields)
  rebuilt <- tryCatch(mask_validate(scheme), epimask_error = function(e) {
    field <- if (is.null(e$arg)) "" else e$arg
    kind <- setdiff(class(e), c("epimask_error", "error", "condition"))
    epimask_abort(sprintf("The %s's field `%s` is not valid (was it edited after construction?): %s",
                          arg, field, conditionMessage(e)),
                  kind, arg = paste0(arg, "$", field))
  })
  if (!inherits(rebuilt, "mask_scheme"))
    abort_type(arg, sprintf("a scheme whose mask_validate() method returns a mask_scheme (class \"%s\" does not)",
                            cls))
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
# changed them (unmasked_records(), a generic: the default checks the schemes
# whose traits promise change): all of their values in the masked columns
# that vary (a constant column cannot be changed by a row-stochastic mask,
# nor identify anyone) equal the originals. Rounding, truncation and grouping
# leave values that are already coarse unchanged by design.
varying_columns <- function(Z) {
  which(apply(Z, 2L, function(z) {
    z <- z[!is.na(z)]
    length(z) > 1L && any(z != z[1L])
  }))
}

# `neutral`: further cells that say nothing either way (a function of the
# original values of the varying columns).
unchanged_rows <- function(Z, Zm, varying, neutral = NULL) {
  if (!length(varying)) return(integer())
  Zv <- Z[, varying, drop = FALSE]
  same <- Zm[, varying, drop = FALSE] == Zv
  # cells that say nothing either way: missing or infinite originals (no mask
  # changes them), and whatever the type adds
  out <- !is.finite(Zv)
  if (!is.null(neutral)) out <- out | neutral(Zv)
  same[out] <- NA
  # unmasked: every informative cell unchanged, and at least one of them
  informative <- rowSums(!is.na(same))
  changed <- rowSums(!same, na.rm = TRUE)
  which(informative > 0L & changed == 0L)
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
