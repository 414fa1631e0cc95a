# Reference values for Harrell-Davis quantiles and the paired quantile comparison (issue 27),
# computed in R independently of verdict's C code. Run from the repository root:
#   Rscript tests/golden/quantiles.R     (about 6 minutes: the enumerations of part 2)
# It writes tests/golden/r-quantiles.json, which tests/unit/test_quantile.c checks.
#
# Part 1: Hmisc::hdquantile of fixed samples (n = 5 ... 200; ties, rounding, a slow mode) at
# several quantiles. Part 2: the paired comparison with every within-block swap enumerated
# (n <= 12): the statistic log hd(candidate) - log hd(baseline), its exact p-value, and the
# interval of shifts d the swap test does not reject when the candidate is divided by
# exp(d), each end found by bisection on the enumerated p-value. Part 3: the same for two
# unpaired samples, every assignment of the pooled runs to the two sides enumerated (combn).
suppressMessages(library(Hmisc))
options(digits = 17)
set.seed(27)

num <- function(x) paste0("[", paste(sprintf("%.17g", x), collapse = ", "), "]")
probs <- c(0, 0.05, 0.1, 0.25, 0.5, 0.9, 1)

# Samples: lognormal, a fast mode with 40% slow runs, rounded to 2 and 3 significant digits
# (many ties), integer ticks, all equal but one.
slow_mode <- function(n) 42 * exp(rnorm(n, 0, 0.01)) * ifelse(runif(n) < 0.4, runif(n, 1.2, 1.35), 1)
samples <- list(
  list(id = "lognormal-5", x = exp(rnorm(5, 3, 0.1))),
  list(id = "lognormal-7", x = exp(rnorm(7, 3, 0.1))),
  list(id = "two-mode-10", x = slow_mode(10)),
  list(id = "two-mode-20", x = slow_mode(20)),
  list(id = "two-mode-40", x = slow_mode(40)),
  list(id = "two-mode-200", x = slow_mode(200)),
  list(id = "rounded-2-digits-30", x = signif(slow_mode(30), 2)),
  list(id = "rounded-3-digits-60", x = signif(slow_mode(60), 3)),
  list(id = "ticks-25", x = 4 * round(slow_mode(25) / 4)),
  list(id = "heavy-tail-100", x = 10 * (1 + 0.02 * (runif(100)^(-1 / 1.5) - 1))),
  list(id = "all-tied-but-one-12", x = c(rep(5, 11), 6)),
  list(id = "unsorted-8", x = c(9, 1, 8, 2, 7, 3, 6, 4))
)
entries <- sapply(samples, function(s) {
  hd <- hdquantile(s$x, probs = probs, names = FALSE)
  sprintf('{"id": "%s", "x": %s, "probs": %s, "hd": %s}', s$id, num(s$x), num(probs), num(hd))
})

# Harrell-Davis with weights computed once per n (the same formula as hdquantile, checked
# against it below), so that every swap of a block can be evaluated quickly.
hd_weights <- function(n, q) { m <- n + 1; diff(pbeta((0:n) / n, q * m, (1 - q) * m)) }
flips_of <- function(n) as.matrix(expand.grid(rep(list(c(FALSE, TRUE)), n)))

# The swap statistics for candidate divided by exp(d): every one of the 2^n flips.
swap_statistics <- function(a, b, d, q, flips) {
  b <- b * exp(-d)
  w <- hd_weights(length(a), q)
  A <- ifelse(flips, matrix(b, nrow(flips), length(b), byrow = TRUE),
              matrix(a, nrow(flips), length(a), byrow = TRUE))
  B <- ifelse(flips, matrix(a, nrow(flips), length(a), byrow = TRUE),
              matrix(b, nrow(flips), length(b), byrow = TRUE))
  sort_rows <- function(M) t(apply(M, 1, sort))
  log(drop(sort_rows(B) %*% w)) - log(drop(sort_rows(A) %*% w))
}
p_at <- function(a, b, d, q, flips) {
  s <- swap_statistics(a, b, d, q, flips)
  observed <- log(hdquantile(b * exp(-d), q, names = FALSE)) - log(hdquantile(a, q, names = FALSE))
  mean(abs(s) >= abs(observed) * (1 - 1e-12))
}
# The end of the non-rejected set on one side, by bisection between the estimate (p = 1) and
# a shift far enough to be rejected.
end_of <- function(a, b, q, flips, alpha, estimate, side, p_fun = p_at) {
  inside <- estimate; step <- 0.01
  while (p_fun(a, b, estimate + side * step, q, flips) > alpha) { inside <- estimate + side * step; step <- step * 2 }
  outside <- estimate + side * step
  for (i in 1:60) {
    mid <- (inside + outside) / 2
    if (p_fun(a, b, mid, q, flips) > alpha) inside <- mid else outside <- mid
  }
  (inside + outside) / 2
}

paired <- list(
  list(id = "two-mode-shift-2pct-10", n = 10, shift = 1.02),
  list(id = "two-mode-aa-12", n = 12, shift = 1),
  list(id = "two-mode-shift-5pct-8", n = 8, shift = 1.05),
  list(id = "rounded-shift-3pct-11", n = 11, shift = 1.03, digits = 2),
  list(id = "two-mode-5", n = 5, shift = 1.1)
)
comparisons <- sapply(paired, function(case) {
  a <- slow_mode(case$n); b <- slow_mode(case$n) * case$shift
  if (!is.null(case$digits)) { a <- signif(a, case$digits); b <- signif(b, case$digits) }
  q <- 0.1; alpha <- 0.05; flips <- flips_of(case$n)
  estimate <- log(hdquantile(b, q, names = FALSE)) - log(hdquantile(a, q, names = FALSE))
  p <- p_at(a, b, 0, q, flips)
  reachable <- 2 / 2^case$n <= alpha
  low <- if (reachable) end_of(a, b, q, flips, alpha, estimate, -1) else -Inf
  high <- if (reachable) end_of(a, b, q, flips, alpha, estimate, +1) else Inf
  fmt <- function(v) if (is.finite(v)) sprintf("%.17g", v) else "null"
  sprintf(paste0('{"id": "%s", "baseline": %s, "candidate": %s, "q": %s, "confidence": %s, ',
                 '"estimate": %.17g, "p_value": %.17g, "ci_low": %s, "ci_high": %s}'),
          case$id, num(a), num(b), q, 1 - alpha, estimate, p, fmt(low), fmt(high))
})

# Part 3: the permutation statistics for candidate divided by exp(d): every assignment of
# the pooled runs (columns of combn: the runs that go to the baseline side, the observed one
# among them, as the p-value counts it).
permutation_statistics <- function(a, b, d, q, combos) {
  pooled <- c(a, b * exp(-d))
  wa <- hd_weights(length(a), q); wb <- hd_weights(length(b), q)
  apply(combos, 2, function(idx) log(sum(sort(pooled[-idx]) * wb)) - log(sum(sort(pooled[idx]) * wa)))
}
permutation_p_at <- function(a, b, d, q, combos) {
  s <- permutation_statistics(a, b, d, q, combos)
  observed <- log(hdquantile(b * exp(-d), q, names = FALSE)) - log(hdquantile(a, q, names = FALSE))
  mean(abs(s) >= abs(observed) * (1 - 1e-12))
}
unpaired <- list(
  list(id = "two-mode-unpaired-6-6-shift-5pct", na = 6, nb = 6, shift = 1.05),
  list(id = "two-mode-unpaired-5-8-shift-3pct", na = 5, nb = 8, shift = 1.03),
  list(id = "rounded-unpaired-7-7-shift-4pct", na = 7, nb = 7, shift = 1.04, digits = 2),
  list(id = "two-mode-unpaired-aa-4-6", na = 4, nb = 6, shift = 1),
  list(id = "two-mode-unpaired-3-3", na = 3, nb = 3, shift = 1.1)
)
unpaired_comparisons <- sapply(unpaired, function(case) {
  a <- slow_mode(case$na); b <- slow_mode(case$nb) * case$shift
  if (!is.null(case$digits)) { a <- signif(a, case$digits); b <- signif(b, case$digits) }
  q <- 0.1; alpha <- 0.05; combos <- combn(case$na + case$nb, case$na)
  estimate <- log(hdquantile(b, q, names = FALSE)) - log(hdquantile(a, q, names = FALSE))
  p <- permutation_p_at(a, b, 0, q, combos)
  smallest <- (if (case$na == case$nb) 2 else 1) / ncol(combos)
  reachable <- smallest <= alpha
  low <- if (reachable) end_of(a, b, q, combos, alpha, estimate, -1, permutation_p_at) else -Inf
  high <- if (reachable) end_of(a, b, q, combos, alpha, estimate, +1, permutation_p_at) else Inf
  fmt <- function(v) if (is.finite(v)) sprintf("%.17g", v) else "null"
  sprintf(paste0('{"id": "%s", "baseline": %s, "candidate": %s, "q": %s, "confidence": %s, ',
                 '"estimate": %.17g, "p_value": %.17g, "ci_low": %s, "ci_high": %s}'),
          case$id, num(a), num(b), q, 1 - alpha, estimate, p, fmt(low), fmt(high))
})

writeLines(paste0('{"generator": "tests/golden/quantiles.R", "R": "', R.version.string,
                  '", "Hmisc": "', packageVersion("Hmisc"), '",\n"quantiles": [\n',
                  paste(entries, collapse = ",\n"), '\n],\n"paired": [\n',
                  paste(comparisons, collapse = ",\n"), '\n],\n"unpaired": [\n',
                  paste(unpaired_comparisons, collapse = ",\n"), "\n]}"),
           "tests/golden/r-quantiles.json")
