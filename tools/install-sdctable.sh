#!/usr/bin/env bash
# Installs sdcTable (for the side-by-side comparison of inst/bench/bench-tables.R)
# into the system library on R 4.2.2. Not a dependency of epimask: DESCRIPTION
# does not name it and the check does not need it.
#
# sdcTable (CRAN 0.34) imports highs (HiGHS, whose C++ sources the highs
# package compiles with cmake: the better part of an hour on two cores),
# SSBtools and sdcHierarchies, and needs GLPK's headers. What Debian 12 has
# prebuilt for this R comes from apt (fast); highs, SSBtools, sdcHierarchies
# and sdcTable are built from CRAN source, one compile at a time and niced
# (the machine is shared).
#
# Idempotent: does nothing when sdcTable already loads. Usage:
#   bash tools/install-sdctable.sh
set -euo pipefail

loads() { Rscript --vanilla -e "quit(status = !requireNamespace('$1', quietly = TRUE))" >/dev/null 2>&1; }

if loads sdcTable; then
  echo "install-sdctable: sdcTable $(Rscript --vanilla -e 'cat(format(packageVersion("sdcTable")))') is installed"
  exit 0
fi

debs="cmake libglpk-dev r-cran-rglpk r-cran-slam r-cran-rlang r-cran-stringr r-cran-data.table
      r-cran-jsonlite r-cran-matrix r-cran-rcpp r-cran-checkmate r-cran-shiny r-cran-progressr
      r-cran-knitr r-cran-cli r-cran-glue"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || true
  for d in $debs; do apt-get install -y -qq --no-install-recommends "$d" >/dev/null 2>&1 || echo "install-sdctable: apt could not install $d"; done
else
  echo "install-sdctable: not root or no apt-get: the CRAN builds below need cmake and GLPK's headers" >&2
fi

lib=$(Rscript --vanilla -e 'cat(.libPaths()[1])')
nice Rscript --vanilla -e "
  need <- c('highs', 'SSBtools', 'sdcHierarchies', 'sdcTable')
  need <- need[!vapply(need, requireNamespace, logical(1), quietly = TRUE)]
  if (length(need)) install.packages(need, lib = '$lib', repos = 'https://cloud.r-project.org', Ncpus = 1)"

if loads sdcTable; then
  echo "install-sdctable: sdcTable $(Rscript --vanilla -e 'cat(format(packageVersion("sdcTable")))') installed in $lib"
else
  echo "install-sdctable: sdcTable still does not load" >&2
  exit 1
fi
