# Load a data set of the package whether or not it is lazy-loaded.
load_epimask_data <- function(name) {
  env <- new.env()
  utils::data(list = name, package = "epimask", envir = env)
  env[[name]]
}
