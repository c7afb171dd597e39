# Fixtures for the k-anonymity risk and Datafly tests, typed in from
# the methods vignette, section 9 (El Emam & Malin 2014 Table 1; El Emam & Dankar 2008
# Figures 1 and 2; Sweeney 1997 Table 6a).

# El Emam & Malin Table 1, ID:Sex:YOB.
malin_table1 <- data.frame(
  id = 1:27,
  sex = c("M", "M", "F", "M", "F", "F", "F", "F", "M", "M", "M", "F", "M", "M",
          "F", "F", "M", "F", "F", "M", "F", "M", "M", "F", "F", "M", "M"),
  yob = c(1959, 1969, 1955, 1959, 1942, 1975, 1966, 1987, 1959, 1967, 1968,
          1955, 1967, 1967, 1966, 1955, 1967, 1956, 1956, 1978, 1966, 1967,
          1971, 1954, 1977, 1944, 1965),
  stringsAsFactors = FALSE)

# Identification database Z of El Emam & Dankar Figure 1: IDs 1-14 are the
# sample to disclose, IDs 15-31 the rest of the population.
dankar_population <- data.frame(
  id = 1:31,
  sex = c("M", "M", "F", "M", "F", "F", "F", "F", "M", "M", "F", "M", "F", "M",
          "M", "M", "F", "F", "F", "M", "F", "M", "M", "F", "F", "M", "M", "F",
          "F", "F", "F"),
  yob = c(1959, 1962, 1955, 1959, 1942, 1975, 1966, 1987, 1975, 1978, 1964,
          1959, 1975, 1967, 1961, 1974, 1978, 1961, 1968, 1973, 1966, 1967,
          1971, 1974, 1977, 1968, 1954, 1952, 1956, 1988, 1941),
  stringsAsFactors = FALSE)
dankar_sample <- dankar_population[1:14, ]

# Bins of year of birth written out by hand, independent of the hierarchy code.
decade_of <- function(y) paste0(y %/% 10 * 10, "-", y %/% 10 * 10 + 9)
five_years_of <- function(y) paste0(y %/% 5 * 5, "-", y %/% 5 * 5 + 4)

# Sweeney Table 6a (SSNs from the paper; dates as in the paper, 19xx).
sweeney_6a <- data.frame(
  ssn = c("819181496", "195925972", "902750852", "985820581", "209559459",
          "679392975", "819491049", "749201844", "985302952", "874593560",
          "703872052", "963963603"),
  ethnicity = c(rep("Black", 6), rep("Caucasian", 6)),
  birth = as.Date(c("1965-09-20", "1965-02-14", "1965-10-23", "1965-08-24",
                    "1964-11-07", "1964-12-01", "1964-10-23", "1965-03-15",
                    "1964-08-13", "1964-05-05", "1967-02-13", "1967-03-21")),
  sex = c("m", "m", "f", "f", "f", "f", "m", "f", "m", "m", "m", "m"),
  zip = c("02141", "02141", "02138", "02138", "02138", "02138", "02138",
          "02139", "02139", "02139", "02138", "02138"),
  problem = c("shortness of breath", "chest pain", "hypertension",
              "hypertension", "obesity", "chest pain", "chest pain",
              "hypertension", "obesity", "shortness of breath", "chest pain",
              "chest pain"),
  stringsAsFactors = FALSE)

# Sweeney Table 6b (the Datafly release, SSNs aside).
sweeney_6b <- data.frame(
  ethnicity = c(rep("Black", 6), rep("Caucasian", 5)),
  birth = c("1965", "1965", "1965", "1965", "1964", "1964", "1964", "1964",
            "1964", "1967", "1967"),
  sex = c("m", "m", "f", "f", "f", "f", "m", "m", "m", "m", "m"),
  zip = c("02140", "02140", rep("02130", 9)),
  problem = c("shortness of breath", "chest pain", "hypertension",
              "hypertension", "obesity", "chest pain", "chest pain", "obesity",
              "shortness of breath", "chest pain", "chest pain"),
  stringsAsFactors = FALSE)

# D3 / D4 reference values of methods vignette section 7 (alpha = 0.1, capped at k).
k_prime_reference <- data.frame(
  k  = c(5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10),
  pi = c(0.1, 0.2, 0.3, 0.5, 0.7, 1, 0.1, 0.2, 0.3, 0.5, 0.7, 1),
  D3 = c(2, 3, 4, 5, 5, 5, 3, 5, 6, 9, 10, 10),
  D4 = c(3, 4, 4, 5, 5, 5, 4, 5, 6, 9, 10, 10))
