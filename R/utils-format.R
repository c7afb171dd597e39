# The one number formatter and the one table formatter of the printed
# output: print methods, summaries, the workbench's tables and the release
# report all go through them.

# Numbers as text to `digits` significant digits ("fg": 0.0500, 12.0, 1234),
# very small or large ones in scientific notation (not 0.0000000000000128),
# NA as "NA". With `integers = TRUE`, whole numbers (counts, replicates)
# are written without decimals.
format_num <- function(x, digits = 3, integers = FALSE) {
  out <- formatC(signif(x, digits), digits = digits, format = "fg", flag = "#")
  out <- sub("\\.$", "", trimws(out))
  sci <- !is.na(x) & x != 0 & (abs(x) < 1e-5 | abs(x) >= 1e7)
  if (integers) {
    whole <- is.finite(x) & abs(x - round(x)) < 1e-9 & abs(x) < 1e15
    out[whole] <- format(round(x[whole]), scientific = FALSE, trim = TRUE)
    sci <- sci & !whole
  }
  if (any(sci)) out[sci] <- formatC(signif(x[sci], digits), digits = digits - 1L, format = "e")
  out[is.na(x)] <- "NA"
  out
}

# A table for display: numeric columns through format_num() (whole numbers
# without decimals), the text columns named in `left` left-justified with
# their headers (so scheme labels read naturally in a right-justified print).
format_table <- function(d, digits = 3, left = character()) {
  for (j in seq_along(d)) {
    if (is.numeric(d[[j]])) d[[j]] <- format_num(d[[j]], digits, integers = TRUE)
  }
  for (col in intersect(left, names(d))) {
    w <- max(nchar(c(col, d[[col]])))
    d[[col]] <- formatC(d[[col]], width = -w)
    names(d)[names(d) == col] <- formatC(col, width = -w)
  }
  d
}
