# Builds data/zip_mortality.rda: SYNTHETIC zip-code-level mortality data in the
# spirit of the application of Zhou, Dominici & Louis (2010), who aggregated
# the Medicare enrollees aged 65+ of 2,095 zip codes in the north-eastern US
# to zip-code level (composition by race, age and sex; person-years; deaths).
# No real person or real area is behind any record: locations, compositions
# and counts are drawn below from stated distributions, and the zip codes are
# made-up identifiers.
#
# Run from the package root:  Rscript data-raw/zip_mortality.R

set.seed(20100325)   # fixed: the data set is reproducible

n_zip <- 2000

# Individual-level model for the probability of death in one year,
#   logit p = b0 + b_race black + b_age[a] + b_female female + b_int[a] female
#             + u_zip,  u_zip ~ N(0, sd_zip^2)  (extra zip-level variation),
# applied to every race x age x sex cell of every zip.
b0 <- -4.0
b_race <- 0.4                                   # log odds ratio, Black vs White
age_classes <- c("65_69", "70_74", "75_79", "80_84", "85plus")
b_age <- c(0, 0.45, 0.95, 1.5, 2.3)
b_female <- -0.45
b_int <- c(0, -0.02, -0.05, -0.1, -0.15)        # age x female interaction
sd_zip <- 0.1

# Centroids: clusters around the large cities of the north-east corridor plus
# a rural background along the coast, kept inside lon -80..-70, lat 39..45.
cities <- data.frame(
  name = c("Baltimore", "Philadelphia", "New York", "New Haven", "Hartford",
           "Providence", "Boston"),
  lon = c(-76.61, -75.17, -74.00, -72.93, -72.68, -71.41, -71.06),
  lat = c(39.29, 39.95, 40.71, 41.31, 41.76, 41.82, 42.36),
  weight = c(0.10, 0.16, 0.34, 0.05, 0.05, 0.07, 0.13),
  spread = c(0.20, 0.25, 0.35, 0.12, 0.12, 0.15, 0.25)
)
p_background <- 0.25
in_box <- function(lon, lat) lon > -80 & lon < -70 & lat > 39 & lat < 45

draw_centroids <- function(m) {
  background <- stats::runif(m) < p_background
  city <- sample.int(nrow(cities), m, replace = TRUE, prob = cities$weight)
  lon <- cities$lon[city] + stats::rnorm(m, sd = cities$spread[city])
  lat <- cities$lat[city] + stats::rnorm(m, sd = cities$spread[city])
  # background: a band along the coast from Maryland to Maine
  lon_bg <- stats::runif(m, -77.8, -70.2)
  lat_bg <- 39.2 + 0.55 * (lon_bg + 77.8) + stats::rnorm(m, sd = 0.45)
  lon[background] <- lon_bg[background]
  lat[background] <- lat_bg[background]
  data.frame(lon = lon, lat = lat)
}
centroids <- draw_centroids(3 * n_zip)
centroids <- centroids[in_box(centroids$lon, centroids$lat), ][seq_len(n_zip), ]

# Urbanity: closeness to the nearest city centre (1 at the centre, ~0 far away).
km_per_degree <- 111 * c(cos(41 * pi / 180), 1)
dist_km <- sapply(seq_len(nrow(cities)), function(k)
  sqrt(((centroids$lon - cities$lon[k]) * km_per_degree[1])^2 +
       ((centroids$lat - cities$lat[k]) * km_per_degree[2])^2))
urban <- exp(-apply(dist_km, 1, min) / 15)

# Composition. Black share: high in city cores, low elsewhere. Age mix: a
# Dirichlet draw around the Medicare 65+ age profile (older in the cities).
# Female share within each age class grows with age (women live longer).
p_black_true <- stats::plogis(-3.5 + 4 * urban + stats::rnorm(n_zip, sd = 0.9))
age_profile <- c(0.29, 0.26, 0.21, 0.14, 0.10)
rdirichlet <- function(alpha) {
  g <- matrix(stats::rgamma(length(alpha), shape = alpha), nrow = nrow(alpha))
  g / rowSums(g)
}
age_shift <- outer(0.3 * urban, c(-1, -0.5, 0, 0.5, 1))
age_mix <- rdirichlet(60 * t(t(exp(age_shift)) * age_profile))
female_by_age <- stats::plogis(outer(stats::rnorm(n_zip, 0.1, 0.15),
                                     c(0, 0.15, 0.35, 0.6, 1.0), "+"))

# Person-years (1999-2002, four years of follow-up): more in the cities.
person_years <- round(stats::rlnorm(n_zip, log(4000) + 1.2 * urban, 0.9))
person_years <- pmax(person_years, 20)

# Split each zip's person-years into the 20 race x age x sex cells and draw
# deaths cell by cell from the individual-level model.
cell_grid <- expand.grid(race = c("white", "black"), sex = c("male", "female"),
                         age = seq_along(age_classes), stringsAsFactors = FALSE)
cell_share <- sapply(seq_len(nrow(cell_grid)), function(k) {
  race_p <- if (cell_grid$race[k] == "black") p_black_true else 1 - p_black_true
  fem <- female_by_age[, cell_grid$age[k]]
  sex_p <- if (cell_grid$sex[k] == "female") fem else 1 - fem
  race_p * sex_p * age_mix[, cell_grid$age[k]]
})
cell_py <- t(vapply(seq_len(n_zip), function(j)
  as.vector(stats::rmultinom(1, person_years[j], cell_share[j, ])), numeric(nrow(cell_grid))))
u_zip <- stats::rnorm(n_zip, sd = sd_zip)
cell_logit <- outer(u_zip, b0 +
  b_race * (cell_grid$race == "black") + b_age[cell_grid$age] +
  (b_female + b_int[cell_grid$age]) * (cell_grid$sex == "female"), "+")
cell_deaths <- matrix(stats::rbinom(length(cell_py), cell_py, stats::plogis(cell_logit)),
                      nrow = n_zip)

# Zip-level aggregates: realized shares of the person-years.
share <- function(select) rowSums(cell_py[, select, drop = FALSE]) / person_years
zip_mortality <- data.frame(
  zip = sprintf("%05d", sort(sample(1000:29999, n_zip))),
  lon = round(centroids$lon, 4),
  lat = round(centroids$lat, 4),
  person_years = as.integer(person_years),
  deaths = as.integer(rowSums(cell_deaths)),
  p_black = share(cell_grid$race == "black"),
  p_female = share(cell_grid$sex == "female")
)
for (a in seq_along(age_classes))
  zip_mortality[[paste0("p_age", age_classes[a])]] <- share(cell_grid$age == a)
for (a in seq_along(age_classes))
  zip_mortality[[paste0("p_female", age_classes[a])]] <-
    share(cell_grid$age == a & cell_grid$sex == "female")
rownames(zip_mortality) <- NULL

# Population-level odds ratio of death, Black vs White, at the individual
# level (METHODS 3.1 with the true model): recorded in the documentation.
p_cell <- stats::plogis(cell_logit)
white <- cell_grid$race == "white"
pair <- match(paste(cell_grid$sex[white], cell_grid$age[white]),
              paste(cell_grid$sex[!white], cell_grid$age[!white]))
py_both <- cell_py[, white] + cell_py[, !white][, pair]
p_w <- sum(py_both * p_cell[, white]) / sum(py_both)
p_b <- sum(py_both * p_cell[, !white][, pair]) / sum(py_both)
message(sprintf(paste("zip_mortality: %d zips, %d person-years, %d deaths,",
                      "population OR Black vs White %.3f"),
                nrow(zip_mortality), sum(zip_mortality$person_years),
                sum(zip_mortality$deaths), (p_b / (1 - p_b)) / (p_w / (1 - p_w))))
save(zip_mortality, file = file.path("data", "zip_mortality.rda"), compress = "xz")
