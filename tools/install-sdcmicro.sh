#!/usr/bin/env bash
# Installs sdcMicro (for the side-by-side parts of inst/bench/bench-masks.R and
# inst/bench/bench-risk-measures.R) into the system library on R 4.2.2.
# Not a dependency of epimask: DESCRIPTION does not name it and the check does
# not need it.
#
# Why not simply install.packages("sdcMicro"): sdcMicro imports VIM, whose
# current CRAN version (7.x) imports xgboost, and xgboost's current CRAN
# version needs R >= 4.3, so CRAN's dependency resolution fails on R 4.2.2
# (an earlier attempt also failed on doBy / Deriv, which CRAN's car pulls in
# through pbkrtest). Debian 12 ships VIM 6.2.2 (before xgboost), car 3.1-1 and the rest of
# the tree prebuilt for this R, so they come from apt; only prettydoc and
# sdcMicro itself (5.8.2, Depends: R >= 2.10, C++ via Rcpp) are built from
# CRAN source. CRAN's archive (src/contrib/Archive) is not reachable from this
# workplace, so older versions cannot be pinned from it here.
#
# Idempotent: does nothing when sdcMicro already loads. Usage:
#   bash tools/install-sdcmicro.sh
set -euo pipefail

loads() { Rscript --vanilla -e "quit(status = !requireNamespace('$1', quietly = TRUE))" >/dev/null 2>&1; }

if loads sdcMicro; then
  echo "install-sdcmicro: sdcMicro $(Rscript --vanilla -e 'cat(format(packageVersion("sdcMicro")))') is installed"
  exit 0
fi

# sdcMicro's Imports that R 4.2.2 cannot take from today's CRAN, or that
# Debian has prebuilt (the rest of its Imports - rmarkdown, knitr, data.table,
# xtable, ggplot2, shiny, e1071, Rcpp, jsonlite - come with install-deps.sh).
debs="r-cran-vim r-cran-car r-cran-cardata r-cran-robustbase r-cran-haven r-cran-rhandsontable r-cran-dt r-cran-httr"
if ! loads VIM || ! loads car; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || true
    apt-get install -y -qq --no-install-recommends $debs
  else
    echo "install-sdcmicro: VIM / car missing and apt-get not usable (need root on Debian 12):" >&2
    echo "  CRAN's VIM needs xgboost, which needs R >= 4.3; install VIM 6.2.2 by other means" >&2
    exit 1
  fi
fi

# prettydoc (not packaged by Debian) and sdcMicro from CRAN source, one
# compile at a time and niced (the machine is shared).
lib=$(Rscript --vanilla -e 'cat(.libPaths()[1])')
nice Rscript --vanilla -e "
  need <- c('prettydoc', 'sdcMicro')
  need <- need[!vapply(need, requireNamespace, logical(1), quietly = TRUE)]
  if (length(need)) install.packages(need, lib = '$lib', repos = 'https://cloud.r-project.org', Ncpus = 1)"

if loads sdcMicro; then
  echo "install-sdcmicro: sdcMicro $(Rscript --vanilla -e 'cat(format(packageVersion("sdcMicro")))') installed in $lib"
else
  echo "install-sdcmicro: sdcMicro still does not load" >&2
  exit 1
fi
