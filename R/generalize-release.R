# The release at chosen generalization levels, shared by datafly(), ola() and
# deidentify(): the arguments they share checked, the keys replaced by their
# generalized values, suppressed records withheld, identifiers replaced by
# keyed pseudonyms (the columns that undo a generalization, proxies, are found
# by review-proxies.R).

# Arguments shared by datafly() and ola(), checked and normalized.
check_generalize_args <- function(data, keys, hierarchies, max_suppress, id,
                                  secret, drop_proxies) {
  data <- check_key_data(data, "data")
  keys <- check_columns(keys, data)
  if (anyDuplicated(keys)) abort_value("keys", "distinct column names")
  # key values reach regular expressions and hashing as text
  check_utf8_data(as.data.frame(data)[keys], "data")
  max_suppress <- check_number(max_suppress, lower = 0, upper = 1)
  id <- check_columns(id, data, allow_null = TRUE)
  if (length(intersect(id, keys)))
    abort_value("id", "identifier columns that are not also `keys`")
  check_flag(drop_proxies)
  list(data = data, max_suppress = max_suppress,
       hierarchies = check_hierarchies(hierarchies, keys, data),
       secret = check_secret(secret, id))
}

build_release <- function(data, current, keys, id, kept, secret) {
  out <- as.data.frame(data, stringsAsFactors = FALSE)
  for (key in keys) out[[key]] <- current[[key]]
  for (col in id) out[[col]] <- pseudonymize(out[[col]], secret)
  out <- out[kept, , drop = FALSE]
  rownames(out) <- NULL
  restore_frame_class(out, data)
}

restore_frame_class <- function(out, like) {
  if (inherits(like, "data.table") && requireNamespace("data.table", quietly = TRUE))
    return(data.table::as.data.table(out))
  if (inherits(like, "tbl_df") && requireNamespace("tibble", quietly = TRUE))
    return(tibble::as_tibble(out))
  out
}

# The custodian's secret for the keyed pseudonyms: a string or raw vector, or
# (NULL) 32 bytes from the operating system's random source, never R's RNG,
# so that set.seed() cannot regenerate the pseudonyms.
check_secret <- function(secret, id) {
  if (is.null(secret)) {
    if (!length(id)) return(NULL)
    return(openssl::rand_bytes(32L))
  }
  if (is.raw(secret) && length(secret) > 0L) return(secret)
  if (is.character(secret) && length(secret) == 1L && !is.na(secret) &&
      nzchar(secret)) return(check_utf8(secret, "secret"))
  abort_type("secret", "NULL, a non-empty string or a raw vector")
}

# Keyed pseudonyms: HMAC-SHA-256 of each identifier value under the secret,
# the first 16 hexadecimal digits (64 bits; the full 64 digits if two values
# would share a pseudonym). The same value always gets the same pseudonym
# under one secret; NA stays NA.
pseudonymize <- function(x, secret) {
  values <- unique(x[!is.na(x)])
  hashes <- as.character(openssl::sha256(as.character(values), key = secret))
  short <- substr(hashes, 1L, 16L)
  codes <- if (anyDuplicated(short)) hashes else short
  out <- codes[match(x, values)]
  out[is.na(x)] <- NA_character_
  out
}

# Released columns that determine a generalized key one-to-one undo its
# generalization: a warning names them unless they are dropped.
warn_proxies <- function(undone, drop_proxies) {
  if (nrow(undone) && !drop_proxies)
    epimask_warn(sprintf(paste0(
      "Released column(s) determine generalized key(s) one-to-one and undo ",
      "their generalization: %s. Drop them (`drop_proxies = TRUE`) or ",
      "generalize them too."),
      paste0("'", undone$column, "' -> '", undone$key, "'", collapse = ", ")),
      "epimask_warning_proxy")
  invisible(undone)
}
