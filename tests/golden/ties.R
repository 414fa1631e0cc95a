# Reference values for verdict's handling of ties, zeros and rounded values (issue 11),
# computed in R independently of verdict's C code. Run: Rscript tests/golden/ties.R
# It writes tests/golden/r-ties.json, which tests/unit/test_ties.c and test_golden_cli use.
#
# For every case: R's own wilcox.test p-value and interval; the Hodges-Lehmann estimate
# (zeros included); the confidence set found by inverting R's wilcox.test p-value over every
# data difference and every gap between them (the set of shifts the test does not reject);
# the rounding allowance of docs/statistics.md; and the verdict the documented rules give.
options(digits = 17)
margin <- 0.01

walsh <- function(d) { w <- outer(d, d, "+") / 2; w[upper.tri(w, diag = TRUE)] }
pairwise <- function(x, y) as.vector(outer(x, y, "-"))

# p-value of the test of shift m (normal approximation with continuity and tie corrections,
# the branch verdict takes whenever there are ties or zeros)
p_signed <- function(d, m) {
  x <- d - m; x <- x[x != 0]
  if (length(x) == 0) return(1)
  p <- suppressWarnings(wilcox.test(x, exact = FALSE, correct = TRUE)$p.value)
  if (is.na(p)) 1 else p
}
p_sum <- function(x, y, m) {
  p <- suppressWarnings(wilcox.test(x - m, y, exact = FALSE, correct = TRUE)$p.value)
  if (is.na(p)) 1 else p
}

# Hull of {m : p(m) >= alpha} over the candidates (data differences) and the gaps between
# them; an end at a rejected candidate next to an accepted gap is open. When discrete data
# make the test reject every shift (the location-shift model fails), the set is the point
# where the statistic changes sign, the least rejected candidate.
inversion <- function(candidates, p, alpha) {
  c <- sort(unique(candidates))
  gaps <- if (length(c) > 1) (head(c, -1) + tail(c, -1)) / 2 else numeric(0)
  p_c <- sapply(c, p)
  at_c <- p_c >= alpha
  at_g <- if (length(gaps)) sapply(gaps, p) >= alpha else logical(0)
  if (p(min(c) - 1) >= alpha || p(max(c) + 1) >= alpha) return(list(bounded = FALSE))
  if (!any(at_c) && !any(at_g)) {
    point <- c[which.max(p_c)]
    return(list(bounded = TRUE, empty = TRUE, low = point, high = point,
                low_open = FALSE, high_open = FALSE))
  }
  lows <- c(c[at_c], c[-length(c)][at_g]); open_low <- c(rep(FALSE, sum(at_c)), rep(TRUE, sum(at_g)))
  highs <- c(c[at_c], c[-1][at_g]); open_high <- c(rep(FALSE, sum(at_c)), rep(TRUE, sum(at_g)))
  lo <- min(lows); hi <- max(highs)
  list(bounded = TRUE, empty = FALSE, low = lo, high = hi,
       low_open = all(open_low[lows == lo]), high_open = all(open_high[highs == hi]))
}

# The side of 0 the test at 0 puts the shift on, when it rejects: +1 above, -1 below, 0 none.
side_of_zero <- function(statistic, centre, p0, alpha) if (p0 < alpha) sign(statistic - centre) else 0

# Rounding: the largest power of ten every value is a multiple of, the fewest significant
# digits that write every value, and half a step of each sample averaged over its values.
decimal_step <- function(v) {
  for (e in 15:-15) {
    q <- v / 10^e
    if (any(q > 1e12)) return(0)
    r <- round(q)
    if (all(r >= 1 & abs(q - r) <= 1e-9 * q)) return(10^e)
  }
  0
}
significant_digits <- function(v) {
  for (k in 1:15) if (all(abs(signif(v, k) - v) <= 1e-9 * v)) return(k)
  0
}
half_log_step <- function(v, step, digits) {
  own <- pmax(step, if (digits > 0) 10^(floor(log10(v) + 1e-12) - digits + 1) else 0)
  mean(log1p(own / v) / 2)
}

# R's own answer: the p-value, and its interval where R gives one (it stops with an error
# when, for example, each sample is constant).
r_answer <- function(x, y, confidence) {
  p <- suppressWarnings(if (is.null(y)) wilcox.test(x) else wilcox.test(x, y))$p.value
  ci <- tryCatch(suppressWarnings(if (is.null(y)) wilcox.test(x, conf.int = TRUE, conf.level = confidence)
                                  else wilcox.test(x, y, conf.int = TRUE, conf.level = confidence))$conf.int,
                 error = function(e) NULL)
  list(p.value = p, conf.int = ci)
}

reference <- function(id, a, b, paired, confidence = 0.95, departs = FALSE) {
  alpha <- 1 - confidence
  la <- log(a); lb <- log(b)
  if (paired) {
    d <- lb - la
    p <- r_answer(d, NULL, confidence)
    estimate <- median(walsh(d))
    set <- inversion(walsh(d), function(m) p_signed(d, m), alpha)
    usable <- sum(d != 0)
    floor <- 2 / 2^usable
    # R's rule for the ends, at the extreme differences, zeros included
    extremes <- c(p_signed(d, min(d)), p_signed(d, max(d)))
    spread <- mad(d)
    nz <- d[d != 0]
    side <- side_of_zero(sum(rank(abs(nz))[nz > 0]), length(nz) * (length(nz) + 1) / 4, p_signed(d, 0), alpha)
  } else {
    p <- r_answer(lb, la, confidence)
    estimate <- median(pairwise(lb, la))
    set <- inversion(pairwise(lb, la), function(m) p_sum(lb, la, m), alpha)
    floor <- 2 / choose(length(a) + length(b), length(a))
    extremes <- c(p_sum(lb, la, min(pairwise(lb, la)) - 1), p_sum(lb, la, max(pairwise(lb, la)) + 1))
    spread <- sqrt((mad(la)^2 + mad(lb)^2) / 2)
    side <- side_of_zero(sum(rank(c(lb, la))[seq_along(lb)]) - length(lb) * (length(lb) + 1) / 2,
                         length(a) * length(b) / 2, p_sum(lb, la, 0), alpha)
  }
  pooled <- c(a, b)
  step <- decimal_step(pooled); digits <- significant_digits(pooled)
  log_step <- half_log_step(a, step, digits) + half_log_step(b, step, digits)
  reachable <- set$bounded && all(extremes < alpha) && !(floor - alpha > alpha / 2)
  out <- list(id = id, paired = paired, departs = departs, confidence = confidence, a = a, b = b,
              r_p_value = p$p.value, r_ci = if (is.null(p$conf.int)) NULL else exp(as.vector(p$conf.int)),
              estimate = exp(estimate), reachable = reachable, log_step = log_step,
              spread = spread)
  if (!set$bounded) { out$verdict <- "inconclusive"; return(out) }
  low <- set$low; high <- set$high; low_open <- set$low_open; high_open <- set$high_open
  if (set$empty && side > 0 && !(low > 0)) { low <- 0; low_open <- TRUE; high <- max(high, low) }
  if (set$empty && side < 0 && !(high < 0)) { high <- 0; high_open <- TRUE; low <- min(low, high) }
  out$set <- exp(c(low, high)); out$set_open <- c(low_open, high_open)
  limited <- log_step > 0 && (!(spread >= 2 * log_step) || log_step > (high - low) / 2)
  if (limited) {
    was_above <- low > 0 || (low == 0 && low_open)
    was_below <- high < 0 || (high == 0 && high_open)
    low <- low - log_step; high <- high + log_step; low_open <- FALSE; high_open <- FALSE
    if (was_above && !(low > log_step * 1e-9)) { low <- 0; low_open <- TRUE }
    if (was_below && !(high < -log_step * 1e-9)) { high <- 0; high_open <- TRUE }
  }
  band <- log1p(margin)
  above <- low > 0 || (low == 0 && low_open); below <- high < 0 || (high == 0 && high_open)
  verdict <- if (!reachable) "inconclusive" else if (above) "worse" else if (below) "better" else
    if (low >= -band && high <= band) "equivalent" else "inconclusive"
  c(out, list(ci = exp(c(low, high)), ci_open = c(low_open, high_open),
              resolution_limited = limited, verdict = verdict))
}

# A sample of R's golden file (../shared/golden/stats/r-reference.json, or its copy in
# tests/golden), read without a JSON package: the numbers after "id": ID, then "a": or "b":.
golden_case <- function(id, which) {
  path <- if (file.exists("../shared/golden/stats/r-reference.json"))
    "../shared/golden/stats/r-reference.json" else "tests/golden/r-reference.json"
  text <- paste(readLines(path, warn = FALSE), collapse = " ")
  after <- substring(text, regexpr(paste0('"id": "', id, '"'), text, fixed = TRUE))
  array <- regmatches(after, regexpr(paste0('"', which, '": \\[[^]]*\\]'), after))
  as.numeric(strsplit(gsub(".*\\[|\\]", "", array), ",")[[1]])
}

set.seed(20261201)
levels4 <- c(1, 1.1, 1.2, 1.3)
cases <- list(
  reference("issue-1-unpaired-tie-at-1",
            c(1, 1.1, 1, 1.1, 1, 1.2, 1.2, 1.2, 1.1, 1, 1.1, 1, 1, 1.1, 1.1),
            c(1.2, 1, 1.2, 1.1, 1.2, 1, 1.1, 1.2), FALSE),
  reference("issue-1-paired-tie-at-1", c(1, 1, 1, 1.1, 1, 1, 1, 1.1),
            c(1.1, 1.1, 1.1, 1, 1.2, 1, 1.1, 1.32), TRUE),
  reference("issue-1-unpaired-excludes-1",
            c(4.9, 4.9, 5.1, 4.9, 5.1, 4.8, 4.7, 4.8, 4.8, 5.2, 5.1, 5, 5, 4.9, 5.2),
            c(5.1, 5.3, 5.1, 5.2, 5, 5.1, 4.9, 5.1, 5.4, 5.2), FALSE),
  reference("issue-1-four-levels-400",
            sample(levels4, 400, TRUE, c(4, 3, 2, 1)), sample(levels4, 400, TRUE, c(3.8, 3.1, 2.1, 1)), FALSE),
  reference("issue-2-two-against-two", c(1, 1), c(2, 3), FALSE),
  reference("issue-2-three-at-999", c(1, 1, 1.2), c(2, 2, 2.4), FALSE, 0.999),
  reference("issue-2-200-against-3-at-999", round(exp(rnorm(200, 0, 0.05)), 6), c(1.5, 1.6, 1.7), FALSE, 0.999),
  reference("issue-3-zeros-and-equal", rep(1, 26), c(rep(1, 20), rep(1.1, 6)), TRUE),
  reference("issue-3-ten-zeros-fifteen-equal", rep(1, 25), c(rep(1, 10), rep(1.1, 15)), TRUE),
  local({ a <- round(runif(40, 90, 110), 2)
          b <- c(a[1:15], round(a[16:40] * 1.02 * runif(25, 0.999, 1.001), 2))
          reference("issue-4-fifteen-zeros-of-forty", a, b, TRUE) }),
  reference("issue-5-three-blocks", c(5.2, 5.0, 5.1), c(5.1, 5.0, 5.2), TRUE),
  reference("issue-6-alternating", rep(c(1, 2), 10), rep(c(2, 1), 10), FALSE),
  reference("issue-6-two-levels-shifted", sample(c(1, 2), 20, TRUE, c(0.5, 0.5)),
            sample(c(1, 2), 20, TRUE, c(0.4, 0.6)), FALSE),
  reference("issue-8-constant-samples", rep(2, 10), rep(2.1, 10), FALSE),
  # golden cases and a special case whose interval departs from R's on purpose: R drops
  # zero differences before searching its interval (docs/statistics.md)
  reference("paired-ties-zeros", golden_case("paired-ties-zeros", "a"),
            golden_case("paired-ties-zeros", "b"), TRUE, departs = TRUE),
  reference("unpaired-ties", golden_case("unpaired-ties", "a"), golden_case("unpaired-ties", "b"), FALSE),
  reference("s1", rep(1, 4), exp(c(0.1, 0.1, 0, 0.2)), TRUE)
)

# Write JSON by hand (no extra R packages needed): numbers with 17 significant digits.
num <- function(x) if (is.numeric(x) && !is.finite(x)) "null" else if (is.logical(x)) tolower(as.character(x)) else
  if (is.character(x)) paste0('"', x, '"') else formatC(x, digits = 17, format = "g")
field <- function(name, value) {
  if (is.null(value)) return(NULL)
  body <- if (length(value) == 1 && !(name %in% c("a", "b", "ci", "r_ci", "ci_open", "set", "set_open"))) num(value) else
    paste0("[", paste(sapply(value, num), collapse = ", "), "]")
  paste0('"', name, '": ', body)
}
entries <- sapply(cases, function(c) paste0("    {", paste(unlist(mapply(field, names(c), c)), collapse = ", "), "}"))
header <- paste0('{"generator": "', R.version.string, ', tests/golden/ties.R", "margin": ', margin, ',\n "cases": [\n')
writeLines(paste0(header, paste(entries, collapse = ",\n"), "\n]}"), "tests/golden/r-ties.json")
