#!/usr/bin/env bash
# Installs synthpop (for the side-by-side of inst/bench/bench-synth.R) into
# the system library on R 4.2.2. Not a dependency of epimask: DESCRIPTION does
# not name it and neither the tests nor the check need it.
#
# Most of synthpop's Imports are prebuilt by Debian 12 for this R (party,
# polspline, randomForest, ranger, plyr, proto, rmutil, Rsolnp, numDeriv, ...);
# those Debian does not package (mipfp with its cmm, broman) and synthpop
# itself (Depends: R >= 3.5.0, no compiled code) are built from CRAN source.
#
# Idempotent: does nothing when synthpop already loads. Usage:
#   bash tools/install-synthpop.sh
set -euo pipefail

loads() { Rscript --vanilla -e "quit(status = !requireNamespace('$1', quietly = TRUE))" >/dev/null 2>&1; }

if loads synthpop; then
  echo "install-synthpop: synthpop $(Rscript --vanilla -e 'cat(format(packageVersion("synthpop")))') is installed"
  exit 0
fi

debs="r-cran-party r-cran-polspline r-cran-randomforest r-cran-ranger r-cran-plyr r-cran-proto
      r-cran-rmutil r-cran-rsolnp r-cran-numderiv r-cran-classint r-cran-stringr r-cran-forcats
      r-cran-ggplot2 r-cran-lattice r-cran-mass r-cran-nnet r-cran-rpart r-cran-foreign
      r-cran-survival"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || true
  apt-get install -y -qq --no-install-recommends $debs
else
  echo "install-synthpop: not root or no apt-get; synthpop's Imports must come from CRAN" >&2
fi

lib=$(Rscript --vanilla -e 'cat(.libPaths()[1])')
nice Rscript --vanilla -e "
  need <- c('cmm', 'mipfp', 'broman', 'synthpop')
  need <- need[!vapply(need, requireNamespace, logical(1), quietly = TRUE)]
  if (length(need)) install.packages(need, lib = '$lib', repos = 'https://cloud.r-project.org', Ncpus = 1)"

if loads synthpop; then
  echo "install-synthpop: synthpop $(Rscript --vanilla -e 'cat(format(packageVersion("synthpop")))') installed in $lib"
else
  echo "install-synthpop: synthpop still does not load" >&2
  exit 1
fi
