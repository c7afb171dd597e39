library(testthat)
library(epimask)

test_check("epimask")
