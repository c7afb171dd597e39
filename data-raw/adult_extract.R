# adult_extract: 4,000 records drawn at random (seed 29) from the UCI Adult
# census extract (Becker & Kohavi 1996, UCI Machine Learning Repository,
# CC BY 4.0; the 30,162 records of the training file without a missing
# value, as used by ARX and the OLA and Flash papers), with the columns a
# de-identification example needs. Run from the package root:
#   Rscript data-raw/adult_extract.R [path to adult.csv]
args <- commandArgs(trailingOnly = TRUE)
path <- if (length(args)) args[[1]] else "../shared/data/adult.csv"
adult <- utils::read.csv(path, check.names = FALSE, stringsAsFactors = FALSE)
stopifnot(nrow(adult) == 30162L)
set.seed(29)
rows <- sort(sample(nrow(adult), 4000L))
a <- adult[rows, ]
adult_extract <- data.frame(
  age = as.integer(a$age),
  sex = factor(a$sex),
  race = factor(a$race),
  marital_status = factor(a[["marital-status"]]),
  education = factor(a$education),
  native_country = factor(a[["native-country"]]),
  workclass = factor(a$workclass),
  occupation = factor(a$occupation),
  hours_per_week = as.integer(a[["hours-per-week"]]),
  income = factor(a$income, levels = c("<=50K", ">50K")),
  stringsAsFactors = FALSE)
rownames(adult_extract) <- NULL
save(adult_extract, file = "data/adult_extract.rda", compress = "xz")
