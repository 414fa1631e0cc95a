# Reference values for verdict calibrate's analysis (issue 27, src/stats/calibration.c),
# computed in R independently of verdict's C code. Run from the repository root:
#   Rscript tests/golden/calibration.R
# It writes tests/golden/r-calibration.json, which tests/unit/test_calibration.c checks:
# binom.test's exact (Clopper-Pearson) intervals of a false-positive rate, and acf's lag-1
# autocorrelation of run sequences with and without serial dependence.
options(digits = 17)
set.seed(27)

num <- function(x) paste0("[", paste(sprintf("%.17g", x), collapse = ", "), "]")

rates <- list(c(0, 20), c(1, 20), c(3, 20), c(20, 20), c(2, 40), c(0, 3), c(3, 3), c(7, 100),
              c(1, 1))
binom <- sapply(rates, function(r) {
  sapply(c(0.95, 0.9), function(level) {
    ci <- binom.test(r[1], r[2], conf.level = level)$conf.int
    sprintf('{"successes": %d, "trials": %d, "confidence": %s, "low": %.17g, "high": %.17g}',
            r[1], r[2], level, ci[1], ci[2])
  })
})

ar1 <- function(n, phi) { x <- numeric(n); x[1] <- rnorm(1)
  for (t in 2:n) x[t] <- phi * x[t - 1] + rnorm(1); 40 + x }
sequences <- list(
  list(id = "iid-40", x = 40 * exp(rnorm(40, 0, 0.02))),
  list(id = "ar1-0.6-200", x = ar1(200, 0.6)),
  list(id = "two-mode-80", x = 42 * ifelse(runif(80) < 0.4, runif(80, 1.2, 1.35), 1)),
  list(id = "alternating-10", x = rep(c(1, 2), 5))
)
lags <- sapply(sequences, function(s) {
  sprintf('{"id": "%s", "x": %s, "lag1": %.17g}', s$id, num(s$x),
          acf(s$x, lag.max = 1, plot = FALSE)$acf[2])
})

writeLines(paste0('{"generator": "tests/golden/calibration.R", "R": "', R.version.string,
                  '",\n"binom": [\n', paste(binom, collapse = ",\n"), '\n],\n"lag1": [\n',
                  paste(lags, collapse = ",\n"), "\n]}"),
           "tests/golden/r-calibration.json")
