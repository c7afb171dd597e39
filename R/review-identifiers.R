# Direct identifiers, quasi-identifiers by name, and free text (methods
# vignette, section 26): what the column review reads from a column's name
# and from the shape of its values. The name patterns follow HIPAA's Safe
# Harbor list of identifiers (45 CFR 164.514(b)(2)) and ARX's matchers
# (RiskModelHIPAASafeHarbor: names of columns, and values as e-mail
# addresses, URLs, IP addresses, social security numbers); the
# quasi-identifiers by name are the demographic, geographic and date
# variables of El Emam & Malin.

# A column name as lower-case words joined by "_": "patientName",
# "Patient Name" and "patient.name" all read "patient_name".
normalize_column_name <- function(name) {
  nm <- gsub("([a-z0-9])([A-Z])", "\\1_\\2", name, perl = TRUE)
  nm <- tolower(nm)
  nm <- gsub("[^a-z0-9]+", "_", nm, perl = TRUE)
  gsub("^_+|_+$", "", nm, perl = TRUE)
}

# Whole words of a normalized name: (^|_)(alternatives)(_|$).
word_pattern <- function(words) sprintf("(^|_)(%s)(_|$)", paste(words, collapse = "|"))

# Direct identifiers by name: what each pattern stands for (HIPAA's
# categories); the first that matches is reported.
identifier_name_patterns <- list(
  list(what = "a personal name", pattern = paste0(
    "^((first|last|given|family|middle|maiden|full|sur|fore|nick|patient|person|client|",
    "subject|participant|member|mother|father|spouse|contact|owner|user)_?)?names?$|",
    word_pattern(c("surname", "forename", "firstname", "lastname", "givenname", "fname",
                   "lname", "fullname", "nickname", "maidenname")))),
  list(what = "an e-mail address",
       pattern = word_pattern(c("e_?mail", "e_?mail_?address", "mail_?address", "mail"))),
  list(what = "a telephone or fax number",
       pattern = word_pattern(c("phone", "telephone", "tel", "mobile", "cell_?phone",
                                "fax", "telefax", "phone_?number"))),
  list(what = "a national or social security number",
       pattern = word_pattern(c("ssn", "social_?security(_number)?", "social_?insurance",
                                "nino", "nhs_?(number|no)", "national_?id",
                                "national_?number", "passport",
                                "tax_?id", "taxpayer", "insurance_?number", "health_?plan",
                                "beneficiary", "bsn", "personnummer"))),
  list(what = "a medical record or case number",
       pattern = word_pattern(c("mrn", "medical_?record", "record_?(number|no|num|nr|id)",
                                "chart_?(number|no|id)", "case_?(number|no|id)",
                                "hospital_?number", "patient_?(number|no|num|nr|id)",
                                "accession"))),
  list(what = "an account, licence or certificate number",
       pattern = word_pattern(c("account", "acct", "iban", "licen[cs]e", "certificate",
                                "permit"))),
  list(what = "a vehicle or device identifier",
       pattern = word_pattern(c("vin", "licen[cs]e_?plate", "number_?plate",
                                "serial_?(number|no)", "device_?id", "imei",
                                "mac_?address"))),
  list(what = "a URL or IP address",
       pattern = word_pattern(c("url", "website", "homepage", "web_?address",
                                "ip_?address", "ipv4", "ipv6"))),
  list(what = "a photograph or biometric identifier",
       pattern = word_pattern(c("photo", "photograph", "fingerprint", "biometric",
                                "face_?image", "voiceprint"))),
  # last: "email_address", "ip_address" and "mac_address" are matched above
  list(what = "a street address",
       pattern = word_pattern(c("address", "addr", "street", "street_?address",
                                "house_?number", "po_?box")))
)

# Generic identifier names ("id", "pid", "subject_id", "patientId"): an
# identifier, unless the column holds a few codes each shared by many
# units (a site or centre code; see generic_code()).
generic_identifier_pattern <- word_pattern(c("id", "ids", "uid", "uuid", "guid", "pid",
                                             "identifier", "ident"))

# Quasi-identifiers by name: the demographic, geographic and date
# variables an intruder may know.
qi_name_patterns <- list(
  list(what = "a geographic area smaller than a state", pattern = word_pattern(c(
    "zip", "zipcode", "zip_?code", "postcode", "post_?code", "postal", "postal_?code", "plz",
    "city", "town", "municipality", "village", "county", "district", "neighbou?rhood",
    "census_?tract", "tract", "block_?group", "geocode", "lat", "latitude", "lon", "lng",
    "longitude", "coordinates?", "gps", "birthplace", "place_?of_?birth"))),
  list(what = "a geographic area", pattern = word_pattern(c(
    "state", "province", "region", "country", "nationality"))),
  list(what = "a demographic variable", pattern = word_pattern(c(
    "age", "sex", "gender", "race", "ethnic", "ethnicity", "marital", "married", "religion",
    "language", "education", "occupation", "job", "profession", "employment", "employer",
    "workclass", "work_?class", "industry"))),
  list(what = "a date of an event", pattern = word_pattern(c(
    "dob", "birth", "birthdate", "birth_?date", "date", "dt", "death", "dod", "admission",
    "discharge")))
)

# The first name pattern a column name matches (its `what`), or NULL.
match_name <- function(name, patterns) {
  nm <- normalize_column_name(name)
  for (p in patterns) if (grepl(p$pattern, nm, perl = TRUE)) return(p$what)
  NULL
}

is_generic_identifier_name <- function(name) {
  grepl(generic_identifier_pattern, normalize_column_name(name), perl = TRUE)
}

# A column named like an identifier that holds at most `code_levels`
# distinct values, each on 5 units or more on average: a code of a
# category (site, centre), reviewed as any other column.
generic_code <- function(distinct, n_units, control) {
  distinct <= control$code_levels && n_units >= 5 * distinct
}

# Direct identifiers by the shape of their values: the share of the
# distinct values examined that match. E-mail addresses, URLs and IP
# addresses as ARX's matchers read them (its e-mail, URL and IP
# validators); social security numbers in ARX's "ddd-dd-dddd" layout (ARX
# also takes any 9 digits, which reads too many counts as identifiers) and
# British national insurance numbers; telephone numbers; street addresses.
identifier_value_patterns <- list(
  list(what = "e-mail addresses",
       test = function(v) grepl("^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$", v, perl = TRUE)),
  list(what = "URLs",
       test = function(v) grepl("^(https?://|ftp://|www\\.)[^[:space:]]+$", v, perl = TRUE,
                                ignore.case = TRUE)),
  list(what = "IP addresses",
       # IPv6 with three colons or more, or "::" (a time of day has two)
       test = function(v) grepl(paste0("^((25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}",
                                       "(25[0-5]|2[0-4]\\d|1?\\d?\\d)$|",
                                       "^(?=.*::|(?:[^:]*:){3})([0-9A-Fa-f]{0,4}:){2,7}",
                                       "[0-9A-Fa-f]{0,4}$"), v, perl = TRUE)),
  list(what = "social security or national insurance numbers",
       test = function(v) grepl("^\\d{3}-\\d{2}-\\d{4}$|^[A-Z]{2}\\d{6}[A-D]$", v, perl = TRUE,
                                ignore.case = TRUE)),
  list(what = "telephone numbers", test = function(v) is_phone_number(v)),
  list(what = "street addresses",
       test = function(v) grepl(paste0(
         "^\\d+[A-Za-z]?,? .*\\b(street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|",
         "court|ct|place|pl|way|terrace|close|crescent|strasse|stra\u00dfe|weg)\\b\\.?(,.*)?$|",
         "^p\\.? ?o\\.? box \\d+"), v, perl = TRUE, ignore.case = TRUE))
)

# Telephone numbers: 7 to 15 digits written with a leading "+" or with
# separators (spaces, dashes, dots, parentheses); not a date, a decimal, a
# ZIP+4 code or a range.
is_phone_number <- function(v) {
  shape <- grepl("^[+(]?[0-9][0-9 ().-]{5,22}[0-9]$", v, perl = TRUE)
  digits <- nchar(gsub("[^0-9]", "", v))
  marked <- grepl("^\\+|[ ()-]|\\..*\\.", v, perl = TRUE)
  other <- grepl("^\\d{1,4}[./-]\\d{1,2}[./-]\\d{1,4}$|^\\d{5}-\\d{4}$", v, perl = TRUE)
  shape & digits >= 7L & digits <= 15L & marked & !other & !is_range_label(v)
}

# "1950-1954", "10000 - 19999": a generalization's label (hierarchy_date()'s
# years, an income band), two numbers of as many digits, the second not
# smaller. A local number written "1234-5678" reads as a range too; a
# telephone column has other values that do not.
is_range_label <- function(v) {
  parts <- regmatches(v, regexec("^\\s*(\\d{1,7})\\s*-\\s*(\\d{1,7})\\s*$", v, perl = TRUE))
  vapply(parts, function(p) length(p) == 3L && nchar(p[[2L]]) == nchar(p[[3L]]) &&
           as.numeric(p[[2L]]) <= as.numeric(p[[3L]]), logical(1))
}

# Shapes that identify only with many distinct values: record numbers
# (letters then 4 or more digits, "P0001", "MRN-123456") and personal names
# ("Jane Smith", "Smith, Jane", "Jane A. Smith"). Site codes and city names
# have these shapes too, so they count with near-unique values only.
weak_value_patterns <- list(
  list(what = "record numbers",
       test = function(v) grepl("^[A-Za-z]{0,5}[-_#/]?\\d{4,}$", v, perl = TRUE)),
  list(what = "personal names",
       test = function(v) grepl("^[A-Z][a-z'-]+(,? +[A-Z]\\.?)?,? +[A-Z][a-z'-]+$", v, perl = TRUE))
)

# Share of the values matching each pattern; the best one when it reaches
# the share, else NULL. A first look at up to 1,000 of the values keeps only
# the patterns that could reach the share.
match_values <- function(values, patterns, share) {
  if (!length(values)) return(NULL)
  # identifiers are short: longer values count as not matching (and are
  # not read: a pattern on a megabyte string costs)
  len <- nchar(values, type = "chars", allowNA = TRUE)
  short <- !is.na(len) & len <= 260L
  if (mean(short) < share) return(NULL)
  probe <- values[probe_index(length(values))]
  probe <- trimws(probe[short[probe_index(length(values))]])
  candidates <- Filter(function(p) sum(p$test(probe)) >= share / 2 * min(length(values), 1000L),
                       patterns)
  if (!length(candidates)) return(NULL)
  v <- character(length(values))
  v[short] <- trimws(values[short])
  short <- short & nchar(v) <= 254L
  best <- NULL
  for (p in candidates) {
    hit <- short
    hit[short] <- p$test(v[short])
    s <- mean(hit)
    if (s >= share && (is.null(best) || s > best$share)) best <- list(what = p$what, share = s)
  }
  best
}

# Up to 1,000 positions spread evenly over 1..n.
probe_index <- function(n) unique(round(seq(1, n, length.out = min(n, 1000L))))

# Free text: most values are several words, or long. `values` are the
# distinct values examined; words (runs of characters between spaces) are
# counted in their first 2,000 characters, so a column of very long strings
# costs little, and on up to 1,000 of them first.
review_free_text <- function(values, control) {
  if (!length(values)) return(NULL)
  measure <- function(v) {
    head <- gsub("[[:space:]]+", " ", trimws(substr(v, 1L, 2000L)), perl = TRUE)
    spaces <- nchar(head) - nchar(gsub(" ", "", head, fixed = TRUE))
    words <- ifelse(nzchar(head), spaces + 1L, 0L)
    chars <- nchar(v, type = "chars", allowNA = TRUE)
    chars[is.na(chars)] <- 0L
    list(words = words, chars = chars)
  }
  first <- measure(values[probe_index(length(values))])
  if (mean(first$words >= control$text_words) < control$pattern_share / 2 &&
      stats::median(first$chars) < control$text_chars / 2) return(NULL)
  m <- measure(values)
  many_words <- mean(m$words >= control$text_words)
  long <- stats::median(m$chars)
  if (many_words < control$pattern_share && long < control$text_chars) return(NULL)
  list(words = many_words, median_chars = long, median_words = stats::median(m$words))
}

# The distinct values of a column examined by the patterns: the distinct
# non-missing values (text for factors), at most `max_values` of them taken
# evenly over the distinct values in the order of their codes (first
# appearance for text; deterministic).
examined_values <- function(x, max_values, record = NULL) {
  if (!(is.factor(x) || is.character(x) || (is.numeric(x) && !is.object(x)))) return(NULL)
  # one record of each value (the codes are dense), in the order of the codes
  first <- if (is.null(record)) which(!duplicated(x)) else first_rows(record)
  v <- if (is.factor(x)) as.character(x[first]) else x[first]
  v <- v[!is.na(v)]
  if (length(v) > max_values) v <- v[unique(round(seq(1, length(v), length.out = max_values)))]
  v
}

# Character or factor columns with a distinct value on every record: they
# may identify people (datafly() and ola() warn; review_columns() flags
# them as direct identifiers).
warn_possible_identifiers <- function(data, known) {
  others <- setdiff(names(data), known)
  if (nrow(data) < 2L) return(invisible())
  looks_like_id <- vapply(others, function(col) {
    x <- data[[col]]
    (is.character(x) || is.factor(x)) && !anyDuplicated(x)
  }, logical(1))
  if (any(looks_like_id))
    epimask_warn(sprintf(paste0(
      "Column(s) %s have a distinct value on every record and may identify ",
      "people; name them in `id` to replace them by pseudonyms."),
      paste0("'", others[looks_like_id], "'", collapse = ", ")),
      "epimask_warning_identifier")
  invisible()
}
