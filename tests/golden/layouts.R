# Reference values for the layout-twins analysis (issue 19), computed in R independently of
# verdict's C code. Run from the repository root: Rscript tests/golden/layouts.R
# It writes tests/golden/r-layouts.json, which tests/unit/test_layouts.c checks.
#
# Every case is a fixed data set: K_a baseline and K_b candidate layouts, each measured once in
# each of n blocks. Stage 1: the logs, each block's mean over all units removed, one location
# per unit (mean, or the median of its Walsh averages). Stage 2: t.test or wilcox.test on the
# K_a + K_b locations; with tied locations, the set of shifts wilcox.test does not reject.
# Beside them: aov's mean squares, the binary-level comparison of the first layouts, the noise
# band, the rounding rule and the verdict the documented rules give.
options(digits = 17)
margin <- 0.01
confidence <- 0.95

walsh <- function(d) { w <- outer(d, d, "+") / 2; w[upper.tri(w, diag = TRUE)] }
hl_one <- function(d) median(walsh(d))

# Units as rows of an (K_a + K_b) x n matrix of logs, baseline rows first.
stage1 <- function(logs, method) {
  z <- sweep(logs, 2, colMeans(logs))
  if (method == "welch") rowMeans(z) else apply(z, 1, hl_one)
}

# aov's mean squares for units nested in variants, crossed with blocks.
components <- function(logs, ka) {
  u <- nrow(logs); n <- ncol(logs)
  d <- data.frame(y = as.vector(logs), unit = factor(rep(seq_len(u), n)),
                  variant = factor(rep(c(rep("a", ka), rep("b", u - ka)), n)),
                  block = factor(rep(seq_len(n), each = u)))
  table <- summary(aov(y ~ block + variant + unit, data = d))[[1]]
  ms <- setNames(table[["Mean Sq"]], trimws(rownames(table)))
  stopifnot(table[["Df"]][trimws(rownames(table)) == "unit"] == u - 2)
  list(layouts_ms = ms[["unit"]], noise_ms = ms[["Residuals"]],
       layout_var = max(0, (ms[["unit"]] - ms[["Residuals"]]) / n))
}

# Hull of the shifts the rank-sum test (normal approximation with continuity and tie
# corrections, the branch tied locations take) does not reject, over every pairwise
# difference and every gap between two; an end at a rejected difference next to an accepted
# gap is open.
p_sum <- function(x, y, m) {
  p <- suppressWarnings(wilcox.test(x - m, y, exact = FALSE, correct = TRUE)$p.value)
  if (is.na(p)) 1 else p
}
inverted_set <- function(x, y, alpha) {
  c <- sort(unique(as.vector(outer(x, y, "-"))))
  gaps <- (head(c, -1) + tail(c, -1)) / 2
  in_c <- sapply(c, function(m) p_sum(x, y, m) >= alpha)
  in_g <- sapply(gaps, function(m) p_sum(x, y, m) >= alpha)
  open <- c(rep(FALSE, sum(in_c)), rep(TRUE, sum(in_g)))
  lows <- c(c[in_c], head(c, -1)[in_g]); low_open <- open
  highs <- c(c[in_c], tail(c, -1)[in_g]); high_open <- open
  lo <- min(lows); hi <- max(highs)
  list(low = lo, high = hi, low_open = all(low_open[lows == lo]),
       high_open = all(high_open[highs == hi]))
}

stage2 <- function(lb, lc, method) {
  alpha <- 1 - confidence
  if (method == "welch") {
    t <- t.test(lc, lb, conf.level = confidence)
    return(list(estimate = unname(t$estimate[1] - t$estimate[2]), low = t$conf.int[1],
                high = t$conf.int[2], low_open = FALSE, high_open = FALSE, p = t$p.value,
                statistic = unname(t$statistic), df = unname(t$parameter), exact = FALSE,
                achieved = confidence))
  }
  w <- suppressWarnings(wilcox.test(lc, lb, conf.int = TRUE, conf.level = confidence))
  estimate <- median(as.vector(outer(lc, lb, "-")))
  tied <- anyDuplicated(c(lb, lc)) > 0
  if (!tied)
    return(list(estimate = estimate, low = w$conf.int[1], high = w$conf.int[2],
                low_open = FALSE, high_open = FALSE, p = w$p.value,
                statistic = unname(w$statistic), df = NA, exact = TRUE,
                achieved = attr(w$conf.int, "conf.level")))
  # tied locations: the normal branch. Where even shifts beyond every difference are not
  # rejected at alpha, alpha doubles until they are (the set at the level settled on); the
  # level is also capped by what the permutation distribution of this many values can reach
  # (R's rule: achieved alpha within alpha / 2 of the requested one)
  diffs <- as.vector(outer(lc, lb, "-"))
  a <- alpha
  unreached <- function(a) p_sum(lc, lb, min(diffs) - 1) > a || p_sum(lc, lb, max(diffs) + 1) > a
  while (a < 2 && unreached(a)) a <- a * 2
  achieved <- if (a >= 1 || alpha < a * 0.75) 1 - min(1, a) else confidence
  floor <- 2 / choose(length(lb) + length(lc), length(lb))
  if (floor - alpha > alpha / 2) achieved <- min(achieved, max(0, 1 - floor))
  set <- inverted_set(lc, lb, a)
  list(estimate = estimate, low = set$low, high = set$high, low_open = set$low_open,
       high_open = set$high_open, p = w$p.value, statistic = unname(w$statistic), df = NA,
       exact = FALSE, achieved = achieved)
}

# The values' rounding (docs/statistics.md, "Ties, zeros and rounded values"): the largest
# power of ten all values are multiples of, the fewest significant digits that write them,
# and half a step of each variant's values on the log scale, averaged over them.
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

# Layouts that move apart by less than half a rounding step within a block round alike:
# the interval is widened by the allowance, keeping the side of 0 the test established.
widen <- function(s, a, b, dither) {
  pooled <- c(a, b); step <- decimal_step(pooled); digits <- significant_digits(pooled)
  log_step <- half_log_step(a, step, digits) + half_log_step(b, step, digits)
  s$limited <- log_step > 0 && dither < log_step / 2
  if (!s$limited) return(s)
  above <- s$low > 0 || (s$low == 0 && s$low_open)
  below <- s$high < 0 || (s$high == 0 && s$high_open)
  s$low <- s$low - log_step; s$high <- s$high + log_step; s$low_open <- s$high_open <- FALSE
  if (above && !(s$low > log_step * 1e-9)) { s$low <- 0; s$low_open <- TRUE }
  if (below && !(s$high < -log_step * 1e-9)) { s$high <- 0; s$high_open <- TRUE }
  s
}

# The verdict rules (docs/statistics.md, "The verdict"), lower is better, with the layouts as
# the sample size of the projection of how many would likely decide.
decide <- function(s, k, method) {
  band <- log1p(margin)
  above <- s$low > 0 || (s$low == 0 && s$low_open)
  below <- s$high < 0 || (s$high == 0 && s$high_open)
  reachable <- !(s$achieved < confidence - 1e-12)
  kind <- if (!reachable) "inconclusive" else if (above) "worse" else if (below) "better" else
    if (s$low >= -band && s$high <= band) "equivalent" else "inconclusive"
  needed <- -1
  if (kind == "inconclusive" && !(reachable && s$limited)) {
    half <- (s$high - s$low) / 2
    if (s$achieved < confidence && s$achieved > 0)
      half <- half * qnorm(1 - (1 - confidence) / 2) / qnorm(1 - (1 - s$achieved) / 2)
    target <- max(abs(s$estimate), band - abs(s$estimate))
    total <- max(ceiling(k * (half / target)^2 * 1.2), if (method == "welch") 2 else 4)
    needed <- k + max(1, total - k)
  }
  list(kind = kind, needed = needed)
}

binary <- function(a1, b1, method) {
  d <- log(b1) - log(a1)
  if (method == "welch") return(list(ratio = exp(mean(d)), p = t.test(d)$p.value))
  list(ratio = exp(hl_one(d)), p = suppressWarnings(wilcox.test(d))$p.value)
}

analyse <- function(a, b, method) {
  ka <- nrow(a); kb <- nrow(b); n <- ncol(a)
  logs <- log(rbind(a, b))
  loc <- stage1(logs, method)
  lb <- loc[seq_len(ka)]; lc <- loc[ka + seq_len(kb)]
  parts <- components(logs, ka)
  dither <- sqrt(parts$layout_var + parts$noise_ms)
  s <- widen(stage2(lb, lc, method), as.vector(a), as.vector(b), dither)
  verdict <- decide(s, min(ka, kb), method)
  bin <- binary(a[1, ], b[1, ], method)
  band <- qnorm(1 - (1 - confidence) / 2) * sqrt(2 * parts$layout_var + 2 * parts$noise_ms / n)
  claimed <- verdict$kind %in% c("better", "worse")
  list(baseline_locations = lb, candidate_locations = lc, ratio = exp(s$estimate),
       ci = exp(c(s$low, s$high)), ci_open = c(s$low_open, s$high_open), p_value = s$p,
       statistic = s$statistic, df = s$df, exact = s$exact, achieved_confidence = s$achieved,
       resolution_limited = s$limited, verdict = verdict$kind, needed_layouts = verdict$needed,
       layouts_ms = parts$layouts_ms, noise_ms = parts$noise_ms,
       layout_spread = sqrt(parts$layout_var), noise_sd = sqrt(parts$noise_ms),
       layout_share = parts$layout_var / (parts$layout_var + parts$noise_ms / n),
       binary_ratio = bin$ratio, binary_p_value = bin$p, binary_noise_band = band,
       within_noise = !claimed && abs(log(bin$ratio)) <= band)
}

# K layouts of n blocks: a base time, block states shared by every unit, layout effects,
# run noise, the change on every candidate layout; rounded to `digits` significant digits.
simulate <- function(ka, kb, n, layout_sd, change, digits = 7, noise = 0.02, base = 3) {
  block <- rnorm(n, 0, 0.05)
  unit <- function(shift)
    signif(base * exp(shift + rnorm(1, 0, layout_sd) + block + rnorm(n, 0, noise)), digits)
  list(a = t(sapply(seq_len(ka), function(i) unit(0))),
       b = t(sapply(seq_len(kb), function(i) unit(change))))
}

set.seed(20261219)
cases <- list(
  list(id = "k2-change", data = simulate(2, 2, 8, 0.03, log(1.05))),
  list(id = "k3-change", data = simulate(3, 3, 10, 0.03, log(1.08))),
  list(id = "k6-no-op", data = simulate(6, 6, 10, 0.03, 0)),
  list(id = "k6-change", data = simulate(6, 6, 12, 0.02, log(1.10))),
  list(id = "k4-against-3", data = simulate(4, 3, 10, 0.01, log(1.03))),
  list(id = "k10-small-change", data = simulate(10, 10, 6, 0.005, log(1.02), noise = 0.01)),
  # identical links (the shuffle gave one order twice): tied locations, the normal branch
  list(id = "k6-tied-links", data = local({ d <- simulate(6, 6, 10, 0.03, log(1.06))
                                            d$a[2, ] <- d$a[1, ]; d$b[4, ] <- d$b[3, ]
                                            d$b[5, ] <- d$b[3, ]; d })),
  list(id = "k3-tied-links", data = local({ d <- simulate(3, 3, 8, 0.03, log(1.2))
                                            d$b[2, ] <- d$b[1, ]; d })),
  # two significant digits: at 3 the step (3%) is dithered by the run noise; at 1.2 (8%) the
  # layouts round alike, their locations tie, and the interval is widened by the allowance
  list(id = "k6-rounded", data = simulate(6, 6, 10, 0, log(1.1), digits = 2)),
  list(id = "k6-coarse",
       data = simulate(6, 6, 10, 0, log(1.1), digits = 2, noise = 0.01, base = 1.2)),
  list(id = "k6-coarse-no-op", data = simulate(6, 6, 10, 0.002, 0, digits = 2, base = 1.2))
)

# JSON by hand (no extra R packages needed): numbers with 17 significant digits.
num <- function(x) {
  if (is.na(x) || (is.numeric(x) && !is.finite(x))) return("null")
  if (is.logical(x)) return(tolower(as.character(x)))
  if (is.character(x)) return(paste0('"', x, '"'))
  formatC(x, digits = 17, format = "g")
}
vec <- function(x) paste0("[", paste(sapply(x, num), collapse = ", "), "]")
rows <- function(m) paste0("[", paste(apply(m, 1, vec), collapse = ",\n      "), "]")
arrays <- c("baseline_locations", "candidate_locations", "ci", "ci_open")
member <- function(k, v) paste0('"', k, '": ', if (k %in% arrays) vec(v) else num(v))
object <- function(l) paste0("{", paste(mapply(member, names(l), l), collapse = ", "), "}")
entries <- sapply(cases, function(c) paste0(
  '  {"id": "', c$id, '", "n_blocks": ', ncol(c$data$a),
  ',\n   "baseline": ', rows(c$data$a), ',\n   "candidate": ', rows(c$data$b),
  ',\n   "welch": ', object(analyse(c$data$a, c$data$b, "welch")),
  ',\n   "rank": ', object(analyse(c$data$a, c$data$b, "rank")), "}"))
header <- paste0('{"generator": "', R.version.string, ', tests/golden/layouts.R", "confidence": ',
                 confidence, ', "margin": ', margin, ',\n "cases": [\n')
writeLines(paste0(header, paste(entries, collapse = ",\n"), "\n]}"), "tests/golden/r-layouts.json")
