# The engine of sequential synthesis (methods vignette section 29; ?mask_synth):
# a plan of the columns (types, roles, visit order, fallbacks), the models of
# every synthesised column fitted once to the original records, and the m
# copies drawn from them, each in its own random-number stream (so that the
# copies on a future backend are those of the serial run). Donor sampling and
# the Bayesian bootstrap of the leaves run in C (src/synth.c).
#
# Data flow: columns are held in a working form while synthesising (numbers,
# dates: doubles; factors, characters, logicals: factors whose NA is a level
# of its own) and restored to their own type in the release. With a person
# column there are two stages: a table of one row per person (person-level
# columns and the number of records) and the records (record-level columns
# given the person's values and the record's position); without, one stage of
# records.

synth_na_prefix <- "<NA>"
synth_many_levels <- 10L   # multi-class trees order factor predictors above this

# ---- entry ------------------------------------------------------------------------

synthesise <- function(data, scheme, vars) {
  input <- synth_input(data)
  data <- input$data
  plan <- synth_plan(data, scheme, vars)
  # stream 1: the holdout and the fits (nnet draws its start weights);
  # streams 2..m+1: the copies. One draw of the caller's generator picks them.
  streams <- rng_streams(scheme$m + 1L, NULL)
  fitted <- with_rng_stream(streams[[1L]], {
    holdout <- synth_holdout(data, plan, scheme$holdout)
    train <- if (length(holdout)) data[-holdout, , drop = FALSE] else data
    if (nrow(train) < 2L)
      abort_value("holdout", "a share that leaves at least two records to synthesise from")
    list(holdout = holdout, train = train, models = synth_fit(train, plan, scheme),
         train_work = if (plan$partial) synth_work_frame(train, plan$visit, plan))
  })
  reference <- synth_reference(data, plan)
  draw <- function(j) with_rng_stream(streams[[j + 1L]],
                                      synth_copy(fitted, plan, scheme, reference))
  copies <- synth_map_copies(scheme$m, draw, scheme$control$parallel, streams[-1L])
  warn_original_records(copies, plan, scheme)
  new_synthetic(lapply(copies, function(cp) synth_output(cp$data, input)),
                synth_info(scheme, plan, fitted, copies))
}

# The input as a plain data frame, with what is needed to give the copies
# the input's class (tibble, data.table, matrix).
synth_input <- function(data) {
  kind <- if (is.matrix(data)) "matrix" else if (inherits(data, "data.table")) "data.table"
          else if (inherits(data, "tbl_df")) "tibble" else "data.frame"
  if (kind == "matrix") {
    if (is.null(colnames(data))) colnames(data) <- paste0("V", seq_len(ncol(data)))
    data <- as.data.frame(data, stringsAsFactors = FALSE)
  } else {
    data <- as.data.frame(data, stringsAsFactors = FALSE)
  }
  attr(data, "row.names") <- .set_row_names(nrow(data))
  list(data = data, kind = kind)
}

synth_output <- function(out, input) {
  switch(input$kind,
         matrix = as.matrix(out),
         data.table = if (requireNamespace("data.table", quietly = TRUE))
           data.table::as.data.table(out) else out,
         tibble = if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(out) else out,
         out)
}

# ---- the plan ---------------------------------------------------------------------

# Which columns are synthesised (in visit order), which kept, their types
# and fallbacks, and with a person column which are person-level.
synth_plan <- function(data, scheme, vars) {
  id <- scheme$id
  if (!is.null(id)) check_person_id(id, data)
  if (!is.null(scheme$vars)) vars <- scheme$vars
  if (is.numeric(vars)) vars <- names(data)[vars]
  visit <- scheme$visit
  if (is.null(vars)) vars <- if (!is.null(visit)) visit else setdiff(names(data), id)
  vars <- unique(check_columns(vars, data, "vars"))
  if (!is.null(id) && id %in% vars)
    abort_value("vars", sprintf("columns other than the person column '%s' (it is never synthesised)", id))
  if (is.null(visit)) {
    visit <- vars
  } else {
    check_columns(visit, data, "visit")
    omitted <- setdiff(vars, visit)
    extra <- setdiff(visit, vars)
    if (length(omitted) || length(extra))
      abort_value("visit", sprintf(paste0("every synthesised column once (%s%s%s)"),
                                   if (length(omitted)) paste0("omitted: ", paste0("'", omitted, "'", collapse = ", ")) else "",
                                   if (length(omitted) && length(extra)) "; " else "",
                                   if (length(extra)) paste0("not synthesised: ", paste0("'", extra, "'", collapse = ", ")) else ""))
  }
  kept <- setdiff(names(data), c(visit, id))
  info <- lapply(stats::setNames(names(data), names(data)), function(v)
    if (identical(v, id)) NULL else synth_column_info(data[[v]], v))
  plan <- list(names = names(data), id = id, visit = visit, kept = kept,
               partial = length(kept) > 0L, info = info)
  plan$fallback <- synth_fallbacks(data, plan, scheme)
  plan$predictor <- vapply(names(plan$info), function(v)
    !is.null(plan$info[[v]]) && synth_usable_predictor(data[[v]], plan$info[[v]], scheme),
    logical(1))
  if (!is.null(id)) plan <- synth_person_plan(data, plan)
  plan
}

# The type of a column and what restoring it needs.
synth_column_info <- function(x, v) {
  arg <- sprintf("data$%s", v)
  if (inherits(x, "POSIXlt")) abort_type(arg, "a column other than POSIXlt (convert with as.POSIXct())")
  if (is.factor(x)) {
    return(list(kind = "cat", type = if (is.ordered(x)) "ordered" else "factor",
                levels = levels(x), has_na = anyNA(x)))
  }
  if (is.character(x)) {
    check_utf8(x, arg)
    return(list(kind = "cat", type = "character", levels = sort(unique(x[!is.na(x)])),
                has_na = anyNA(x)))
  }
  if (is.logical(x) && is.null(dim(x)))
    return(list(kind = "cat", type = "logical", levels = c("FALSE", "TRUE"), has_na = anyNA(x)))
  if (inherits(x, "Date") || inherits(x, "POSIXct") || (is.numeric(x) && is.null(dim(x)))) {
    type <- if (inherits(x, "Date")) "Date" else if (inherits(x, "POSIXct")) "POSIXct"
            else if (is.integer(x)) "integer" else "double"
    w <- as.double(unclass(x))
    if (any(is.infinite(w) | is.nan(w))) abort_value(arg, "free of Inf and NaN (NA is allowed)")
    obs <- w[!is.na(w)]
    return(list(kind = "num", type = type, tz = attr(x, "tzone"), has_na = anyNA(w),
                range = if (length(obs)) range(obs) else c(NA_real_, NA_real_),
                decimals = if (type == "integer") 0L else value_decimals(obs)))
  }
  abort_type(arg, "a number, date (Date, POSIXct), factor, character or logical column to synthesise")
}

# The fewest decimal places (0 to 10) that hold every value; NA when none do.
value_decimals <- function(x) {
  if (!length(x)) return(0L)
  for (d in 0:10) {
    s <- x * 10^d
    if (all(abs(s - round(s)) <= 1e-8 * pmax(1, abs(s)))) return(d)
  }
  NA_integer_
}

# The fallbacks of synthesised columns (NA: the scheme's method).
synth_fallbacks <- function(data, plan, scheme) {
  out <- stats::setNames(rep(NA_character_, length(plan$visit)), plan$visit)
  many <- character()
  for (v in plan$visit) {
    x <- data[[v]]
    info <- plan$info[[v]]
    if (all(is.na(x))) {
      out[[v]] <- "all NA"
    } else if (!anyNA(x) && length(unique(x)) == 1L) {
      out[[v]] <- "constant"
    } else if (info$kind == "cat" && length(unique(x[!is.na(x)])) > scheme$control$max_levels) {
      out[[v]] <- "sample (too many levels)"
      many <- c(many, v)
    }
  }
  if (length(many))
    epimask_warn(sprintf(paste0(
      "%s more than %d categories: drawn from %s marginal and used as a predictor of nothing ",
      "(a column of so many categories is often an identifier: give it as `id` or leave it out; ",
      "or raise synth_control(max_levels = ))."),
      paste(sprintf("'%s' has %d", many, vapply(many, function(v)
        length(unique(data[[v]][!is.na(data[[v]])])), integer(1))), collapse = "; "),
      scheme$control$max_levels, if (length(many) == 1L) "its" else "their"),
      "epimask_warning_synth_levels")
  out
}

# A column informs the models of later ones unless it is all NA, constant,
# or a category column of too many levels.
synth_usable_predictor <- function(x, info, scheme) {
  if (all(is.na(x))) return(FALSE)
  if (!anyNA(x) && length(unique(x)) == 1L) return(FALSE)
  if (info$kind == "cat" && length(unique(x[!is.na(x)])) > scheme$control$max_levels) return(FALSE)
  TRUE
}

# With a person column: the person of each record, and which columns are
# constant within every person (person-level).
synth_person_plan <- function(data, plan) {
  person <- person_index(data[[plan$id]])
  cols <- c(plan$visit, plan$kept)
  level <- vapply(cols, function(v) constant_within(data[[v]], person), logical(1))
  plan$person_level <- cols[level]
  plan
}

constant_within <- function(x, person) {
  codes <- match(key_values(x), unique(key_values(x)))
  first <- codes[first_of_groups(person)]
  all(codes == first[person])
}

# The holdout: a share of the records (of the persons, with `id`) left out
# of the synthesis; their row numbers, increasing.
synth_holdout <- function(data, plan, share) {
  if (share <= 0) return(integer())
  if (is.null(plan$id)) {
    k <- round(share * nrow(data))
    if (k < 1L) return(integer())
    return(sort(sample.int(nrow(data), k)))
  }
  person <- person_index(data[[plan$id]])
  n_p <- max(person)
  k <- round(share * n_p)
  if (k < 1L) return(integer())
  out <- which(person %in% sample.int(n_p, k))
  as.integer(out)
}

# ---- working form ---------------------------------------------------------------

# The working level of NA in a category column: a label none of its levels has.
synth_na_level <- function(levels) {
  lab <- synth_na_prefix
  while (lab %in% levels) lab <- paste0(lab, "_")
  lab
}

# A column in its working form: numbers and dates as doubles, categories as a
# factor whose NA is a level of its own.
synth_work <- function(x, info) {
  if (info$kind == "num") return(as.double(unclass(x)))
  lv <- info$levels
  na <- synth_na_level(lv)
  v <- as.character(x)
  v[is.na(v)] <- na
  factor(v, levels = c(lv, na))
}

synth_work_frame <- function(data, cols, plan) {
  out <- lapply(stats::setNames(cols, cols), function(v) synth_work(data[[v]], plan$info[[v]]))
  as.data.frame(out, optional = TRUE, stringsAsFactors = FALSE)
}

# A working column back in its own type.
synth_restore <- function(w, info) {
  if (info$kind == "cat") {
    v <- as.character(w)
    v[v == synth_na_level(info$levels)] <- NA
    return(switch(info$type,
                  factor = factor(v, levels = info$levels),
                  ordered = factor(v, levels = info$levels, ordered = TRUE),
                  character = v,
                  logical = as.logical(v)))
  }
  switch(info$type,
         integer = as.integer(round(w)),
         double = w,
         Date = structure(round(w), class = "Date"),
         POSIXct = .POSIXct(w, tz = info$tz))
}

# ---- fitting ----------------------------------------------------------------------

# The models of every synthesised column, stage by stage.
synth_fit <- function(train, plan, scheme) {
  if (is.null(plan$id)) {
    frame <- synth_work_frame(train, c(plan$visit, plan$kept), plan)
    return(list(records = fit_stage(frame, plan$visit, plan$kept, plan, scheme)))
  }
  stages <- person_stages(train, plan)
  persons <- stages$persons
  visit1 <- intersect(plan$visit, plan$person_level)
  kept1 <- intersect(plan$kept, plan$person_level)
  if (!plan$partial) visit1 <- c(".n_records", visit1)
  visit2 <- setdiff(plan$visit, plan$person_level)
  fixed2 <- c(plan$person_level, ".seq", setdiff(plan$kept, plan$person_level))
  list(persons = fit_stage(persons, visit1, kept1, plan, scheme),
       records = fit_stage(stages$records, visit2, fixed2, plan, scheme))
}

# The two training tables of a synthesis by persons: one row per person
# (person-level columns, the number of records) and the records with their
# position within the person.
person_stages <- function(train, plan) {
  person <- person_index(train[[plan$id]])
  first <- first_of_groups(person)
  records <- synth_work_frame(train, c(plan$visit, plan$kept), plan)
  records$.seq <- as.double(within_rank(person))
  persons <- records[first, plan$person_level, drop = FALSE]
  persons$.n_records <- as.double(tabulate(person, length(first)))
  attr(persons, "row.names") <- .set_row_names(length(first))
  list(persons = persons, records = records, person = person)
}

# The rank of each record within its person, in row order.
within_rank <- function(person) {
  o <- order(person, seq_along(person))
  r <- integer(length(person))
  r[o] <- sequence(tabulate(person, max(person)))
  r
}

# The models of one stage, in visit order: each column's predictors are the
# stage's fixed columns and the columns visited before it that can predict.
fit_stage <- function(frame, visit, fixed, plan, scheme) {
  can_predict <- function(v) {
    if (v %in% c(".n_records", ".seq")) return(TRUE)
    isTRUE(plan$predictor[[v]])
  }
  available <- Filter(can_predict, fixed)
  models <- list()
  for (v in visit) {
    models[[v]] <- fit_column(frame, v, available, plan, scheme)
    if (can_predict(v)) available <- c(available, v)
  }
  models
}

synth_column_kind <- function(v, plan) if (v %in% c(".n_records", ".seq")) "num" else plan$info[[v]]$kind

# One column's model: a fallback, its method's model, or, for a number or
# date with missing values, a model of the missingness and one of the values.
fit_column <- function(frame, v, predictors, plan, scheme) {
  y <- frame[[v]]
  kind <- synth_column_kind(v, plan)
  fallback <- if (v %in% names(plan$fallback)) plan$fallback[[v]] else NA_character_
  method <- if (!is.na(fallback)) fallback
            else if (scheme$method == "sample" || !length(predictors)) "sample"
            else scheme$method
  label <- if (method == "sample" && scheme$method != "sample" && is.na(fallback))
    "sample (first column)" else method
  base <- list(var = v, method = method, label = label, predictors = predictors, kind = kind)
  if (method %in% c("all NA", "constant")) {
    first <- which(!is.na(y))
    return(c(base, list(value = list(type = "constant",
                                     value = y[[if (length(first)) first[[1L]] else 1L]]))))
  }
  if (method %in% c("sample", "sample (too many levels)")) {
    smooth <- if (scheme$smooth && kind == "num") smoothing_spec(y)
    return(c(base, list(value = donor_model(y, smooth), na = NULL)))
  }
  if (kind == "num" && anyNA(y)) {
    missing <- factor(ifelse(is.na(y), "TRUE", "FALSE"), levels = c("FALSE", "TRUE"))
    ok <- !is.na(y)
    return(c(base, list(
      na = fit_response(frame, missing, "cat", predictors, method, scheme, plan),
      value = fit_response(frame[ok, , drop = FALSE], y[ok], "num", predictors, method, scheme,
                           plan))))
  }
  c(base, list(na = NULL, value = fit_response(frame, y, kind, predictors, method, scheme, plan)))
}

# One response on its predictors by the method; a response with one value is
# a constant.
fit_response <- function(frame, y, kind, predictors, method, scheme, plan) {
  distinct <- if (kind == "cat") unique(as.integer(y)) else unique(y)
  if (length(distinct) == 1L) return(list(type = "constant", value = y[[1L]]))
  model <- if (method == "cart") cart_model(frame, y, kind, predictors, scheme)
           else parametric_model(frame, y, kind, predictors, scheme)
  model$smooth <- if (scheme$smooth && kind == "num" && method == "cart") smoothing_spec(y)
  model
}

# Donors in one leaf: sampling from the marginal (NA values included).
donor_model <- function(y, smooth = NULL) {
  list(type = "donors", tree = NULL, donor_leaf = integer(length(y)), n_leaf = 1L,
       values = y, smooth = smooth)
}

# ---- CART ---------------------------------------------------------------------------

# A regression (numbers) or classification (categories) tree through rpart,
# its leaves numbered 0..L-1 and each training record's leaf; the tree's
# yval is replaced by the row of its node in the frame, so predict() gives a
# new record's node.
cart_model <- function(frame, y, kind, predictors, scheme) {
  x <- frame[predictors]
  names(x) <- safe <- paste0("p", seq_along(predictors))
  recode <- list()
  if (kind == "cat" && length(unique(as.integer(y))) > 2L) {
    for (j in seq_along(x)) {
      if (is.factor(x[[j]]) && nlevels(x[[j]]) > synth_many_levels) {
        recode[[safe[[j]]]] <- pc1_level_scores(x[[j]], y)
        x[[j]] <- unname(recode[[safe[[j]]]][as.integer(x[[j]])])
      }
    }
  }
  d <- x
  d$.y <- if (kind == "cat") droplevels(y) else y
  # cp 0: no pruning by complexity (rpart keeps a split only above cp, and a
  # classification split can leave the misclassification risk as it was)
  cp <- if (scheme$control$cp == 0) -1 else scheme$control$cp
  control <- rpart::rpart.control(minbucket = scheme$minbucket, cp = cp, xval = 0L,
                                  maxcompete = 0L, maxsurrogate = 0L, usesurrogate = 2L)
  fit <- rpart::rpart(.y ~ ., data = d, method = if (kind == "cat") "class" else "anova",
                      control = control, model = FALSE, x = FALSE, y = FALSE)
  is_leaf <- fit$frame$var == "<leaf>"
  frame_leaf <- rep(NA_integer_, nrow(fit$frame))
  frame_leaf[is_leaf] <- seq_len(sum(is_leaf)) - 1L
  model <- list(type = "donors", tree = tree_arrays(fit, safe), predictors = predictors,
                safe = safe, recode = recode, frame_leaf = frame_leaf, n_leaf = sum(is_leaf),
                values = y)
  # the donors' leaves by the same predictor as the synthetic records' (rpart
  # leaves a training record with a missing split value at the inner node)
  model$donor_leaf <- cart_leaves(model, frame)
  model
}

# An rpart tree (one split per inner node) as the arrays of the C predictor
# (src/synth.c): per frame row its split, children and the way a missing
# value goes (the child with more training records, as rpart's
# usesurrogate = 2 without surrogates).
tree_arrays <- function(fit, safe) {
  fr <- fit$frame
  nn <- nrow(fr)
  leaf <- fr$var == "<leaf>"
  node <- as.integer(rownames(fr))
  index <- 1L + c(0L, cumsum((!leaf) + fr$ncompete + fr$nsurrogate))[seq_len(nn)]
  out <- list(leaf = as.integer(leaf), var = integer(nn), kind = integer(nn), cut = numeric(nn),
              dir = integer(nn), crow = integer(nn), left = integer(nn), right = integer(nn),
              major = integer(nn))
  inner <- which(!leaf)
  if (length(inner)) {
    sp <- fit$splits[index[inner], , drop = FALSE]
    ncat <- sp[, "ncat"]
    out$var[inner] <- match(rownames(sp), safe) - 1L
    out$kind[inner] <- as.integer(ncat > 1)
    out$cut[inner] <- ifelse(ncat > 1, 0, sp[, "index"])
    out$dir[inner] <- as.integer(ifelse(ncat > 1, 0, sign(ncat)))
    out$crow[inner] <- as.integer(ifelse(ncat > 1, sp[, "index"] - 1, 0))
    out$left[inner] <- match(2L * node[inner], node) - 1L
    out$right[inner] <- match(2L * node[inner] + 1L, node) - 1L
    out$major[inner] <- as.integer(fr$n[out$right[inner] + 1L] > fr$n[out$left[inner] + 1L])
  }
  csplit <- fit$csplit
  out$csplit <- if (is.null(csplit)) matrix(0L, 0L, 0L) else {
    storage.mode(csplit) <- "integer"
    csplit
  }
  out
}

# Scores of a factor's levels on the first principal component of their
# class profiles (Coppersmith, Hong & Hosking 1999): the rows of the
# level-by-class table as shares, centred on the overall shares and
# weighted by the levels' counts. Levels absent from the training records
# score NA (missing in the tree).
pc1_level_scores <- function(x, y) {
  tab <- table(x, droplevels(y))
  count <- rowSums(tab)
  seen <- count > 0
  shares <- tab[seen, , drop = FALSE] / count[seen]
  w <- count[seen] / sum(count)
  centre <- colSums(w * shares)
  centred <- sweep(shares, 2L, centre)
  cov <- crossprod(sqrt(w) * centred)
  v <- eigen(cov, symmetric = TRUE)$vectors[, 1L]
  out <- rep(NA_real_, nlevels(x))
  out[seen] <- drop(centred %*% v)
  names(out) <- levels(x)
  out
}

# The leaf (0-based) of each record of a prediction frame, by the C
# predictor: factors as their level codes, recoded factors as their scores.
cart_leaves <- function(model, newdata) {
  x <- vapply(seq_along(model$predictors), function(j) {
    v <- newdata[[model$predictors[[j]]]]
    rec <- model$recode[[model$safe[[j]]]]
    if (!is.null(rec)) return(unname(rec[as.integer(v)]))
    as.double(if (is.factor(v)) as.integer(v) else v)
  }, numeric(nrow(newdata)))
  x <- matrix(x, nrow = nrow(newdata))
  row <- call_c(C_synth_tree_leaves, c(list(x = x), model$tree), arg = "model")
  model$frame_leaf[row + 1L]
}

# ---- parametric models --------------------------------------------------------------

# The design of the parametric models: an intercept, numeric predictors
# standardised (a missing value at the mean, with an indicator), factors as
# treatment dummies of the levels seen in training.
synth_design_spec <- function(frame, predictors) {
  lapply(stats::setNames(predictors, predictors), function(p) {
    x <- frame[[p]]
    if (is.factor(x)) {
      seen <- levels(x)[tabulate(as.integer(x), nlevels(x)) > 0]
      return(list(kind = "cat", levels = seen))
    }
    obs <- x[!is.na(x)]
    s <- if (length(obs) > 1L) stats::sd(obs) else 0
    list(kind = "num", mean = if (length(obs)) mean(obs) else 0, sd = if (is.finite(s) && s > 0) s else 1,
         indicator = anyNA(x))
  })
}

synth_design <- function(spec, newdata) {
  n <- nrow(newdata)
  blocks <- lapply(names(spec), function(p) {
    s <- spec[[p]]
    x <- newdata[[p]]
    if (s$kind == "cat") {
      if (length(s$levels) < 2L) return(NULL)
      v <- as.character(x)
      return(vapply(s$levels[-1L], function(l) as.double(v == l), numeric(n)))
    }
    z <- (as.double(x) - s$mean) / s$sd
    miss <- is.na(z)
    z[miss] <- 0
    if (s$indicator) cbind(z, as.double(miss)) else matrix(z, ncol = 1L)
  })
  x <- do.call(cbind, c(list(rep(1, n)), blocks))
  matrix(as.double(x), nrow = n)
}

parametric_model <- function(frame, y, kind, predictors, scheme) {
  spec <- synth_design_spec(frame, predictors)
  x <- synth_design(spec, frame)
  qx <- qr(x)
  keep <- sort(qx$pivot[seq_len(qx$rank)])
  x <- x[, keep, drop = FALSE]
  base <- list(spec = spec, keep = keep)
  if (kind == "num") {
    fit <- stats::lm.fit(x, y)
    df <- nrow(x) - ncol(x)
    if (df < 1L) return(donor_model(y))
    rss <- sum(fit$residuals^2)
    r <- qr.R(qr(x))
    return(c(base, list(type = "normal", beta = unname(fit$coefficients), rss = rss, df = df,
                        vcov_unscaled = chol2inv(r), range = range(y),
                        decimals = value_decimals(y))))
  }
  observed <- levels(y)[tabulate(as.integer(y), nlevels(y)) > 0]
  if (length(observed) == 2L) {
    y01 <- as.double(y == observed[[2L]])
    fit <- withCallingHandlers(irls_fit(x, y01, family = stats::binomial()),
                               epimask_warning = function(w) invokeRestart("muffleWarning"))
    beta <- ifelse(is.na(fit$coefficients), 0, fit$coefficients)
    vc <- fit$vcov
    vc[is.na(vc)] <- 0
    return(c(base, list(type = "logistic", beta = beta, vcov = vc, levels = observed,
                        template = y[0])))
  }
  yy <- factor(as.character(y), levels = observed)
  fit <- multinom_fit(x, yy, scheme$control$maxit)
  c(base, list(type = "multinomial", coef = fit, levels = observed, template = y[0],
               x = if (scheme$proper) x, y = if (scheme$proper) yy))
}

# Multinomial logistic coefficients ((K - 1) x p, baseline the first level)
# by nnet::multinom on the design (its intercept column dropped: multinom
# adds its own).
multinom_fit <- function(x, y, maxit) {
  xx <- x[, -1L, drop = FALSE]
  k <- nlevels(y)
  fit <- if (ncol(xx)) nnet::multinom(y ~ xx, trace = FALSE, maxit = maxit,
                                      MaxNWts = (ncol(x) + 1L) * k + 10L)
         else nnet::multinom(y ~ 1, trace = FALSE, maxit = maxit, MaxNWts = k + 10L)
  cf <- stats::coef(fit)
  if (!is.matrix(cf)) cf <- matrix(cf, nrow = 1L)
  unname(cf)
}

# ---- drawing ------------------------------------------------------------------------

# One copy: the stages drawn, records that reproduce original ones drawn
# again (fully synthetic) or counted (partially synthetic), the output frame.
synth_copy <- function(fitted, plan, scheme, reference) {
  train <- fitted$train
  state <- synth_draw_stages(fitted, plan, scheme)
  out <- synth_assemble(state, plan, train)
  redrawn <- 0L
  if (!plan$partial) {
    for (attempt in seq_len(scheme$control$max_redraw)) {
      rows <- reproduced_rows(out, reference)
      if (!length(rows)) break
      redrawn <- redrawn + length(rows)
      state <- synth_redraw(state, rows, fitted, plan, scheme)
      out <- synth_assemble(state, plan, train)
    }
    left <- length(reproduced_rows(out, reference))
  } else {
    left <- unchanged_own_rows(state$records, fitted$train_work, plan)
  }
  list(data = out, original = left, redrawn = redrawn)
}

# The stages of one copy in working form.
synth_draw_stages <- function(fitted, plan, scheme) {
  train <- fitted$train
  models <- fitted$models
  if (is.null(plan$id)) {
    frame <- if (plan$partial) synth_work_frame(train, c(plan$visit, plan$kept), plan)
             else empty_work_frame(nrow(train), plan$visit, plan)
    frame <- draw_stage(models$records, frame, NULL, plan, scheme)
    return(list(records = frame))
  }
  stages <- person_stages(train, plan)
  persons <- if (plan$partial) stages$persons else {
    p <- empty_work_frame(nrow(stages$persons), intersect(plan$visit, plan$person_level), plan)
    p$.n_records <- rep(NA_real_, nrow(stages$persons))
    p
  }
  persons <- draw_stage(models$persons, persons, NULL, plan, scheme)
  records <- person_records(persons, stages, plan)
  records <- draw_stage(models$records, records, NULL, plan, scheme)
  list(persons = persons, records = records)
}

# The records of the synthetic persons: fully synthetic, each person's row
# repeated for its number of records with their positions; partially
# synthetic, the original records with their person's synthetic values.
person_records <- function(persons, stages, plan) {
  if (plan$partial) {
    records <- stages$records
    for (v in plan$person_level) records[[v]] <- persons[[v]][stages$person]
    return(records)
  }
  count <- as.integer(round(persons$.n_records))
  rows <- rep.int(seq_len(nrow(persons)), count)
  records <- persons[rows, plan$person_level, drop = FALSE]
  attr(records, "row.names") <- .set_row_names(length(rows))
  records$.seq <- as.double(sequence(count))
  record_cols <- setdiff(plan$visit, plan$person_level)
  for (v in record_cols) records[[v]] <- empty_work_column(length(rows), plan$info[[v]])
  attr(records, "person") <- rows
  records
}

empty_work_frame <- function(n, cols, plan) {
  out <- lapply(stats::setNames(cols, cols), function(v) empty_work_column(n, plan$info[[v]]))
  structure(out, class = "data.frame", row.names = .set_row_names(n))
}

empty_work_column <- function(n, info) {
  if (info$kind == "num") return(rep(NA_real_, n))
  factor(rep(NA_character_, n), levels = c(info$levels, synth_na_level(info$levels)))
}

# Draw the stage's columns in visit order for the rows `rows` (NULL: all),
# each from its model at the synthetic values drawn before it.
draw_stage <- function(models, frame, rows, plan, scheme, skip = character()) {
  for (v in names(models)) {
    if (v %in% skip) next
    target <- if (is.null(rows)) frame else frame[rows, , drop = FALSE]
    values <- draw_column(models[[v]], target, plan, scheme)
    if (is.null(rows)) frame[[v]] <- values else frame[[v]][rows] <- values
  }
  frame
}

draw_column <- function(model, target, plan, scheme) {
  n <- nrow(target)
  if (is.null(model$na)) return(draw_response(model$value, target, n, scheme))
  missing <- draw_response(model$na, target, n, scheme) == "TRUE"
  out <- rep(NA_real_, n)
  if (any(!missing))
    out[!missing] <- draw_response(model$value, target[!missing, , drop = FALSE], sum(!missing),
                                   scheme)
  out
}

draw_response <- function(model, target, n, scheme) {
  switch(model$type,
         constant = rep(model$value, n),
         donors = draw_donors(model, target, n, scheme),
         normal = draw_normal(model, target, scheme),
         logistic = draw_logistic(model, target, scheme),
         multinomial = draw_multinomial(model, target, scheme))
}

# Donor values: each target's leaf (one leaf for sampling), a donor of that
# leaf drawn in C (uniformly, or by Bayesian-bootstrap weights when proper).
draw_donors <- function(model, target, n, scheme) {
  leaf <- if (is.null(model$tree)) integer(n) else cart_leaves(model, target)
  idx <- synth_donors(model$donor_leaf, leaf, model$n_leaf, scheme$proper)
  values <- model$values[idx]
  if (!is.null(model$smooth)) values <- smooth_values(values, model$smooth)
  values
}

# The C core of donor sampling (src/synth.c): the 1-based donor of each
# target, donors and targets in 0-based leaves.
synth_donors <- function(donor_leaf, target_leaf, n_leaf, bayes) {
  call_c(C_synth_donors, list(donor_leaf = as.integer(donor_leaf),
                              target_leaf = as.integer(target_leaf),
                              n_leaf = as.integer(n_leaf), bayes = as.integer(bayes)),
         arg = "model")
}

# A parameter vector drawn from N(mean, cov) (the eigen square root, so a
# covariance that is only semi-definite does not fail).
draw_mvn <- function(mean, cov) {
  e <- eigen((cov + t(cov)) / 2, symmetric = TRUE)
  root <- e$vectors %*% diag(sqrt(pmax(e$values, 0)), length(mean))
  mean + drop(root %*% stats::rnorm(length(mean)))
}

draw_normal <- function(model, target, scheme) {
  x <- synth_design(model$spec, target)[, model$keep, drop = FALSE]
  sigma2 <- model$rss / model$df
  beta <- model$beta
  if (scheme$proper) {
    sigma2 <- model$rss / stats::rchisq(1L, model$df)
    beta <- draw_mvn(beta, model$vcov_unscaled * sigma2)
  }
  tidy_numeric_draws(drop(x %*% beta) + stats::rnorm(nrow(x), 0, sqrt(sigma2)), model)
}

draw_logistic <- function(model, target, scheme) {
  x <- synth_design(model$spec, target)[, model$keep, drop = FALSE]
  beta <- if (scheme$proper) draw_mvn(model$beta, model$vcov) else model$beta
  p <- stats::plogis(drop(x %*% beta))
  hit <- stats::runif(nrow(x)) < p
  factor(ifelse(hit, model$levels[[2L]], model$levels[[1L]]), levels = levels(model$template))
}

draw_multinomial <- function(model, target, scheme) {
  x <- synth_design(model$spec, target)[, model$keep, drop = FALSE]
  coef <- model$coef
  if (scheme$proper) {
    boot <- sample.int(nrow(model$x), nrow(model$x), replace = TRUE)
    yb <- model$y[boot]
    if (all(tabulate(as.integer(yb), nlevels(yb)) > 0))
      coef <- multinom_fit(model$x[boot, , drop = FALSE], yb, scheme$control$maxit)
  }
  eta <- cbind(0, x %*% t(coef))
  eta <- eta - apply(eta, 1L, max)
  p <- exp(eta)
  cum <- t(apply(p / rowSums(p), 1L, cumsum))
  if (ncol(p) == 1L) cum <- matrix(cum, ncol = 1L)
  u <- stats::runif(nrow(x))
  k <- pmin(1L + rowSums(u > cum), length(model$levels))
  factor(model$levels[k], levels = levels(model$template))
}

# Smoothing of donor values (synthpop's "density"): Gaussian noise with the
# observed values' bandwidth, a dominant value (over 70%) left as it is,
# kept within the observed range, rounded to the column's precision.
smoothing_spec <- function(y) {
  obs <- y[!is.na(y)]
  if (length(unique(obs)) < 2L) return(NULL)
  bw <- tryCatch(suppressWarnings(stats::bw.SJ(obs)), error = function(e) stats::bw.nrd0(obs))
  if (!is.finite(bw) || bw <= 0) bw <- stats::bw.nrd0(obs)
  if (!is.finite(bw) || bw <= 0) return(NULL)
  tab <- table(obs)
  top <- which.max(tab)
  list(bw = bw, range = range(obs), decimals = value_decimals(obs),
       dominant = if (tab[[top]] / length(obs) > 0.7) as.double(names(tab)[[top]]) else NULL)
}

smooth_values <- function(v, s) {
  ok <- !is.na(v)
  if (!is.null(s$dominant)) ok <- ok & v != s$dominant
  if (!any(ok)) return(v)
  z <- v[ok] + stats::rnorm(sum(ok), 0, s$bw)
  z <- pmin(pmax(z, s$range[[1L]]), s$range[[2L]])
  if (!is.na(s$decimals)) z <- round(z, s$decimals)
  v[ok] <- z
  v
}

# Parametric draws of a number kept within the observed range and rounded
# to the column's precision (`info`: the model's range and decimals).
tidy_numeric_draws <- function(w, info) {
  ok <- !is.na(w)
  if (!any(ok) || anyNA(info$range)) return(w)
  w[ok] <- pmin(pmax(w[ok], info$range[[1L]]), info$range[[2L]])
  if (!is.na(info$decimals)) w[ok] <- round(w[ok], info$decimals)
  w
}

# ---- the copy as released ---------------------------------------------------------

# The copy in the data's column order and types: synthesised columns
# restored, kept ones as they were (partially synthetic), the person column
# replaced by new labels.
synth_assemble <- function(state, plan, train) {
  records <- state$records
  n <- nrow(records)
  out <- vector("list", length(plan$names))
  names(out) <- plan$names
  for (v in plan$names) {
    if (identical(v, plan$id)) {
      out[[v]] <- person_labels(synth_persons_of(state, plan, train), train[[v]])
    } else if (v %in% plan$visit) {
      out[[v]] <- synth_restore(records[[v]], plan$info[[v]])
    } else {
      out[[v]] <- train[[v]]
    }
  }
  structure(out, class = "data.frame", row.names = .set_row_names(n))
}

# The synthetic person of each record (1..P).
synth_persons_of <- function(state, plan, train) {
  if (plan$partial) return(person_index(train[[plan$id]]))
  attr(state$records, "person")
}

# New person labels: 1, 2, ... (numeric columns) or "s1", "s2", ... in the
# order of the persons in the copy.
person_labels <- function(person, original) {
  first <- match(person, unique(person))
  if (is.numeric(original)) return(first)
  lab <- paste0("s", first)
  if (is.factor(original)) factor(lab, levels = unique(lab)) else lab
}

# The original records in the released columns, for the check that no copy
# reproduces a record that only one original person has.
synth_reference <- function(data, plan) {
  cols <- setdiff(plan$names, plan$id)
  list(data = data[cols], cols = cols)
}

# Rows of a fully synthetic copy that equal an original record no other
# original record equals.
reproduced_rows <- function(out, reference) {
  codes <- key_codes(reference$data, reference$cols, other = out[reference$cols])
  count <- call_c(C_freq_match, list(ref = codes[[1L]], qry = codes[[2L]]), arg = "data")
  which(count == 1L)
}

# Records of a partially synthetic copy whose synthesised values all equal
# their own original ones (the records are the original ones, in order).
unchanged_own_rows <- function(records, original, plan) {
  same <- rep(TRUE, nrow(records))
  for (v in plan$visit) {
    a <- records[[v]]
    b <- original[[v]]
    same <- same & ((is.na(a) & is.na(b)) | (!is.na(a) & !is.na(b) & a == b))
  }
  sum(same)
}

# Draw again the records `rows` of a copy (whole records; with persons, the
# record-level columns, or the person-level ones of their persons when
# there are none; never the number of records).
synth_redraw <- function(state, rows, fitted, plan, scheme) {
  if (is.null(plan$id)) {
    state$records <- draw_stage(fitted$models$records, state$records, rows, plan, scheme)
    return(state)
  }
  if (length(fitted$models$records)) {
    state$records <- draw_stage(fitted$models$records, state$records, rows, plan, scheme)
    return(state)
  }
  who <- unique(attr(state$records, "person")[rows])
  state$persons <- draw_stage(fitted$models$persons, state$persons, who, plan, scheme,
                              skip = ".n_records")
  person <- attr(state$records, "person")
  hit <- person %in% who
  for (v in plan$person_level) state$records[[v]][hit] <- state$persons[[v]][person[hit]]
  state
}

# ---- the m copies -------------------------------------------------------------------

synth_map_copies <- function(m, draw, parallel, streams) {
  if (!parallel) return(lapply(seq_len(m), draw))
  if (!requireNamespace("future.apply", quietly = TRUE))
    abort_value("control$parallel", "FALSE unless the future.apply package is installed")
  # a sequential plan runs in this process and leaves the last stream behind:
  # the caller's generator is put back as the serial run leaves it
  with_saved_rng(tryCatch(
    future.apply::future_lapply(seq_len(m), draw, future.seed = streams),
    FutureError = function(e) epimask_abort(sprintf(paste0(
      "A parallel worker failed, so the synthesis returns nothing (a release with copies ",
      "missing would pass unnoticed): %s"), conditionMessage(e)),
      "epimask_error_worker", arg = "control$parallel")))
}

warn_original_records <- function(copies, plan, scheme) {
  left <- vapply(copies, `[[`, integer(1), "original")
  if (!any(left > 0L)) return(invisible())
  epimask_warn(sprintf(paste0(
    "%s: %s record%s equal to an original record (%s). %s"),
    if (length(left) == 1L) "The synthetic copy" else sprintf("The %d synthetic copies", length(left)),
    paste(left, collapse = ", "), if (length(left) == 1L && left == 1L) " is" else "s are",
    if (plan$partial) "its synthesised values all came out as its own"
    else if (scheme$control$max_redraw > 0L) "one no other original record equals, still so after the redraws"
    else "one no other original record equals: a person's whole record",
    if (plan$partial) paste("In a partially synthetic release the kept columns are original;",
                            "synthesise more columns or coarser ones to change these records.")
    else paste("Donors give original values, so few columns or exact numbers make such records",
               "common: smooth the numbers and dates (smooth = TRUE), synthesise more columns,",
               "or draw these records again (synth_control(max_redraw = ), which biases the",
               "synthesis away from the data's own combinations; see ?mask_synth).")),
    "epimask_warning_synth_original")
}

# What the release records of its making (never the models, the seed or any
# original value): see ?epimask_synthetic.
synth_info <- function(scheme, plan, fitted, copies) {
  models <- c(fitted$models$persons, fitted$models$records)
  methods <- vapply(plan$visit, function(v) models[[v]]$label, character(1))
  list(method = scheme$method, scheme = format(scheme), m = scheme$m,
       n = nrow(fitted$train), k = vapply(copies, function(cp) nrow(cp$data), integer(1)),
       proper = scheme$proper, rules = scheme$rules, partial = plan$partial,
       synthesised = plan$visit, kept = plan$kept, id = plan$id,
       person_level = plan$person_level, methods = methods, minbucket = scheme$minbucket,
       smooth = scheme$smooth, holdout = fitted$holdout,
       original_records = vapply(copies, `[[`, integer(1), "original"),
       redrawn = vapply(copies, `[[`, integer(1), "redrawn"))
}
