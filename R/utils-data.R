# Data as the verbs take them, shared by many: key data checked (data frame,
# rows, UTF-8 text), a plain data frame of a tibble or data.table, and the
# identity of the records a result refers to.

# tibbles and data.tables become plain data frames, so `[[<-` and model.frame
# behave the same whatever the caller used.
as_plain_data <- function(data) {
  if (is.matrix(data)) return(as.data.frame(data, stringsAsFactors = FALSE))
  if (!identical(class(data), "data.frame")) data <- as.data.frame(data)
  data
}

# Key data as a data frame with at least one row (matrices become data frames).
check_key_data <- function(data, arg) {
  if (is.matrix(data)) data <- as.data.frame(data, stringsAsFactors = FALSE)
  if (!is.data.frame(data)) abort_type(arg, "a data frame or a matrix")
  if (nrow(data) == 0L || ncol(data) == 0L) abort_empty(arg)
  check_column_names(data, arg)
  # key values are compared and hashed as text
  check_utf8_data(data, arg)
  data
}

# Row names of the data when they carry information, else NULL (IDs 1..n).
record_ids <- function(data) {
  if (.row_names_info(data) < 0L || inherits(data, "data.table")) return(NULL)
  row.names(data)
}
