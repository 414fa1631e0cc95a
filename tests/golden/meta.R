# Reference values for pooling a change's effect across machines (src/stats/meta_analysis.c),
# computed with R's metafor. Re-record from the repository root: Rscript tests/golden/meta.R
# It writes tests/golden/r-meta.json, which tests/unit/test_meta_analysis.c checks.
#
# Every case is a fixed fleet: per-machine log ratios yi with sampling variances vi (the
# inputs are drawn here once with a fixed seed and written out in full, so the C test never
# depends on R's generator). Each is pooled with rma(yi, vi, method = "REML" | "DL",
# test = "knha", level = 100 * level) and predict(fit) for the prediction interval.
# REML is recorded twice: with metafor's default stopping rule (control$threshold = 1e-5,
# absolute; the number of Fisher-scoring steps is read from verbose output) and converged
# (threshold 1e-12 * mean(vi)), the answer verdict's scale-free default converges to. Where
# Fisher scoring cycles at that threshold and never converges (a fleet of the simulation),
# the converged value is the root of the REML score, found by uniroot in a bracket the case
# gives, and the rest is rma() with tau2 fixed there.
suppressMessages(library(metafor))

num <- function(x) {
  if (is.logical(x)) return(if (x) "true" else "false")
  if (is.character(x)) return(paste0('"', x, '"'))
  if (length(x) != 1L || is.na(x)) stop("not a number: ", deparse(x))
  sprintf("%.17g", x)
}
arr <- function(x) paste0("[", paste(vapply(x, num, ""), collapse = ", "), "]")
obj <- function(fields, indent) {
  pad <- strrep(" ", indent)
  paste0("{\n", paste0(pad, "  \"", names(fields), "\": ", unlist(fields), collapse = ",\n"),
         "\n", pad, "}")
}

# Fisher-scoring steps, from the message metafor prints with verbose = TRUE.
fit_rma <- function(yi, vi, method, level, control) {
  warned <- character(0)
  out <- withCallingHandlers(
    capture.output(fit <- rma(yi, vi, method = method, test = "knha", level = 100 * level,
                              control = control, verbose = method == "REML")),
    warning = function(w) { warned <<- c(warned, conditionMessage(w))
                            invokeRestart("muffleWarning") })
  steps <- 0L
  line <- grep("converged after", out, value = TRUE)
  if (length(line) == 1L) steps <- as.integer(sub(".*after ([0-9]+) iter.*", "\\1", line))
  if (method == "REML") stopifnot(length(line) == 1L)
  list(fit = fit, steps = steps, warned = warned)
}

# The derivative of the restricted log-likelihood in tau2 (e.g. Viechtbauer 2005, eq. 10).
reml_score <- function(t, yi, vi) {
  w <- 1 / (vi + t); mu <- sum(w * yi) / sum(w)
  0.5 * (sum(w^2 * (yi - mu)^2) - (sum(w) - sum(w^2) / sum(w)))
}

reml_root_fit <- function(yi, vi, level, bracket) {
  grid <- seq(bracket[1], bracket[2], length.out = 201)
  stopifnot(sum(diff(sign(vapply(grid, reml_score, 0, yi, vi))) != 0) == 1)
  root <- uniroot(reml_score, bracket, yi = yi, vi = vi, tol = 1e-14 * mean(vi))$root
  fit <- rma(yi, vi, tau2 = root, method = "REML", test = "knha", level = 100 * level)
  list(fit = fit, steps = 0L, warned = character(0))
}

record <- function(yi, vi, method, level, stop_rule, bracket = NULL) {
  control <- if (stop_rule != "converged") list() else
    list(threshold = 1e-12 * mean(vi), maxiter = 1000)
  r <- if (stop_rule == "converged" && !is.null(bracket)) reml_root_fit(yi, vi, level, bracket)
       else fit_rma(yi, vi, method, level, control)
  fit <- r$fit
  pred <- predict(fit, level = 100 * level)
  stopifnot(abs(pred$pred - fit$b[1]) < 1e-15, fit$ddf == length(yi) - 1)
  # the prediction interval as documented: t(k-1) and sqrt(tau2 + se^2)
  crit <- qt((1 - level) / 2, df = length(yi) - 1, lower.tail = FALSE)
  stopifnot(abs(pred$pi.ub - (fit$b[1] + crit * sqrt(fit$tau2 + fit$se^2))) < 1e-12)
  fields <- list(method = num(method), stop = num(stop_rule),
                 threshold = num(if (stop_rule == "converged") control$threshold else 1e-5),
                 iterations = num(r$steps), warnings = num(length(r$warned)),
                 estimate = num(fit$b[1]), se = num(fit$se), ci_low = num(fit$ci.lb),
                 ci_high = num(fit$ci.ub), t = num(fit$zval), p = num(fit$pval),
                 s2w = num(fit$s2w), tau2 = num(fit$tau2), i2 = num(fit$I2),
                 h2 = num(fit$H2), q = num(fit$QE), q_p = num(fit$QEp),
                 pi_low = num(pred$pi.lb), pi_high = num(pred$pi.ub))
  obj(fields, 8)
}

record_case <- function(id, about, yi, vi, level = 0.95, bracket = NULL) {
  fits <- c(record(yi, vi, "REML", level, "metafor"),
            record(yi, vi, "REML", level, "converged", bracket),
            record(yi, vi, "DL", level, "none"))
  fields <- list(id = num(id), about = num(about), level = num(level), yi = arr(yi),
                 vi = arr(vi), fits = paste0("[\n        ", paste(fits, collapse = ",\n        "),
                                             "\n      ]"))
  obj(fields, 4)
}

# A fleet around a true log ratio mu: machine i's true effect mu + u_i, u_i ~ N(0, tau^2),
# observed with its own standard error.
fleet <- function(k, mu, tau, se_low, se_high) {
  se <- exp(runif(k, log(se_low), log(se_high)))
  list(yi = mu + rnorm(k, 0, tau) + rnorm(k, 0, se), vi = se^2)
}

set.seed(20240611)
cases <- list()
add <- function(id, about, f, level = 0.95, bracket = NULL)
  cases[[length(cases) + 1L]] <<- record_case(id, about, f$yi, f$vi, level, bracket)

add("two-machines", "k = 2: one df, a very wide honest interval",
    list(yi = c(0.2231435513142098, 0.2010), vi = c(2.5e-4, 4e-4)))
add("three-homogeneous", "k = 3, spread below the noise: tau2 = 0",
    list(yi = c(0.0953, 0.0961, 0.0949), vi = c(1e-4, 3e-4, 2e-4)))
add("five-realistic", "k = 5 around log(1.25), vi 1e-4..1e-3, tau 1%",
    fleet(5, log(1.25), 0.01, 0.01, 0.032))
add("eight-heterogeneous", "k = 8, tau 10% against se 1-2%",
    fleet(8, log(1.25), 0.10, 0.01, 0.02))
add("twenty-realistic", "k = 20 around log(1.25), tau 2%",
    fleet(20, log(1.25), 0.02, 0.01, 0.032))
add("tiny-vi", "k = 5, one machine measured a hundred times more precisely",
    list(yi = c(0.051, 0.032, 0.074, 0.046, 0.060), vi = c(1e-6, 4e-4, 6e-4, 5e-4, 3e-4)))
add("mixed-signs", "k = 6: better on some machines, worse on others",
    list(yi = c(-0.041, 0.035, -0.012, 0.058, -0.030, 0.022),
         vi = c(2e-4, 1.5e-4, 3e-4, 2.5e-4, 1e-4, 4e-4)))
add("equal-vi", "k = 4, every machine with the same variance",
    list(yi = c(0.110, 0.082, 0.131, 0.095), vi = rep(2e-4, 4)))
add("five-realistic-975", "k = 5 at a Bonferroni-adjusted 97.5%",
    fleet(5, log(1.1), 0.015, 0.01, 0.032), level = 0.975)
add("three-heterogeneous-975", "k = 3, strongly heterogeneous, 97.5%",
    list(yi = c(0.02, 0.15, 0.31), vi = c(3e-4, 5e-4, 2e-4)), level = 0.975)
add("ten-homogeneous", "k = 10 drawn with tau = 0",
    fleet(10, -0.05, 0, 0.01, 0.032))
# Two fleets of tests/simulation/test_meta_simulation.c on which Fisher scoring, held to a
# tight threshold, creeps (191 steps) or cycles for ever (metafor gives up; verdict bisects).
add("three-creeping", "k = 3, a flat likelihood: Fisher scoring takes 191 steps to converge",
    list(yi = c(0.17283844738083143, 0.23142648660172596, 0.2331932550493705),
         vi = c(0.0008268130332427224, 0.0001034299742561635, 0.00030990608838045843)))
add("ten-cycling", "k = 10: tightly held, Fisher scoring cycles around the REML maximum",
    list(yi = c(0.22084744772322332, 0.21275533928856702, 0.2263473626114062,
                0.2168696979068456, 0.22527606298242139, 0.24795782337312766,
                0.2286559784695005, 0.2348909423821178, 0.24244483146632906,
                0.24357547764307727),
         vi = c(0.00072358742937014549, 0.00012470074156627805, 0.00062667044262235811,
                0.00084037794407718113, 0.00045432627251704817, 0.00046906247656861949,
                0.00024277022821845841, 0.00085802943281477518, 0.00025813119967468709,
                0.00020477006471239926)),
    bracket = c(1e-7, 1e-5))
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
add("bcg", "metafor's classic BCG trials: log risk ratios, vi 0.004..0.5",
    list(yi = as.vector(bcg$yi), vi = as.vector(bcg$vi)))

doc <- paste0("{\n  \"r_version\": ", num(paste(R.version$major, R.version$minor, sep = ".")),
              ",\n  \"metafor_version\": ", num(as.character(packageVersion("metafor"))),
              ",\n  \"cases\": [\n    ", paste(unlist(cases), collapse = ",\n    "), "\n  ]\n}\n")
writeLines(doc, "tests/golden/r-meta.json", sep = "")
