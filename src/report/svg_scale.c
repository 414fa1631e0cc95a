/* Data-to-pixel scales and tick choice for the SVG charts. Ticks fall on 1, 2 and 5
 * times powers of ten so that readers can interpolate between them by eye. */
#include "report/svg_scale.h"

#include <math.h>
#include <stdio.h>

#define RANGE_PADDING 0.05
#define TARGET_TICKS 6

bool svg_placeable(svg_scale kind, double value)
{
    return isfinite(value) && (kind == SVG_SCALE_LINEAR || value > 0);
}

static bool finish_linear(double *min, double *max)
{
    if (*min == *max) {
        double half = *min != 0 ? fabs(*min) * 0.1 : 1.0;
        *min -= half;
        *max += half;
    }
    double pad = (*max - *min) * RANGE_PADDING;
    *min -= pad;
    *max += pad;
    return true;
}

static bool finish_log(double *min, double *max)
{
    double low = log10(*min), high = log10(*max);
    if (low == high) {
        low -= 0.1;
        high += 0.1;
    }
    double pad = (high - low) * RANGE_PADDING;
    *min = pow(10, low - pad);
    *max = pow(10, high + pad);
    return true;
}

bool svg_range_finish(svg_scale kind, double *min, double *max)
{
    if (!isfinite(*min) || !isfinite(*max) || *min > *max)
        return false;
    if (kind == SVG_SCALE_LOG)
        return *min > 0 && finish_log(min, max);
    return finish_linear(min, max);
}

double svg_map(const svg_mapping *m, double value)
{
    double position = m->kind == SVG_SCALE_LOG
                          ? (log10(value) - log10(m->min)) / (log10(m->max) - log10(m->min))
                          : (value - m->min) / (m->max - m->min);
    return m->pixel_from + position * (m->pixel_to - m->pixel_from);
}

static double nice_step(double span)
{
    double raw = span / TARGET_TICKS;
    double magnitude = pow(10, floor(log10(raw)));
    double normalized = raw / magnitude;
    double nice = normalized < 1.5 ? 1 : normalized < 3.5 ? 2 : normalized < 7.5 ? 5 : 10;
    return nice * magnitude;
}

static size_t linear_ticks(double min, double max, double *at, size_t capacity)
{
    double step = nice_step(max - min);
    size_t n = 0;
    for (double k = ceil(min / step); k * step <= max && n < capacity; k++) {
        double value = k * step;
        at[n++] = fabs(value) < step * 1e-9 ? 0.0 : value;
    }
    return n;
}

/* 1, 2, 5 per decade (only 1 when many decades are shown). */
static size_t log_ticks(double min, double max, double *at, size_t capacity)
{
    static const double mantissas[] = {1, 2, 5};
    double decades = log10(max) - log10(min);
    size_t per_decade = decades > 4 ? 1 : 3;
    size_t n = 0;
    for (double k = floor(log10(min)); k <= ceil(log10(max)) && n < capacity; k++)
        for (size_t i = 0; i < per_decade && n < capacity; i++) {
            double value = mantissas[i] * pow(10, k);
            if (value >= min && value <= max)
                at[n++] = value;
        }
    return n;
}

size_t svg_auto_ticks(const svg_mapping *m, double *at, size_t capacity)
{
    if (m->kind == SVG_SCALE_LOG) {
        size_t n = log_ticks(m->min, m->max, at, capacity);
        if (n >= 3)
            return n;
    }
    return linear_ticks(m->min, m->max, at, capacity);
}

void svg_format_number(double value, char *buf, size_t len)
{
    if (value == 0) /* also turns -0 into 0 */
        value = 0;
    /* whole numbers such as throughputs read better as 80000 than as 8e+04 */
    if (fabs(value) >= 1e4 && fabs(value) < 1e9 && value == floor(value))
        snprintf(buf, len, "%.0f", value);
    else
        snprintf(buf, len, "%.4g", value);
}
