/*
 * filter_spec.c - parsing pre-filter specs ("background:30+gaussian:1") into
 * stages with their taps, with one clear line for whatever is wrong.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/filter_chain.h"
#include "runtime/message.h"

/* Stage names, their kinds and epilogues. */
static const struct {
    const char *name;
    enum filter_kind kind;
    enum filter_epilogue epilogue;
} kinds[] = {
    { "gaussian", FILTER_GAUSSIAN, EPILOGUE_FILTERED },
    { "highpass", FILTER_HIGHPASS, EPILOGUE_SUBTRACT },
    { "background", FILTER_BACKGROUND, EPILOGUE_SUBTRACT },
    { "background-divide", FILTER_BACKGROUND_DIVIDE, EPILOGUE_DIVIDE },
    { "taps", FILTER_TAPS, EPILOGUE_FILTERED },
};

#define KIND_LIST "gaussian, highpass, background, background-divide or taps"

/* What the error messages quote: the whole spec and, for chains, the stage. */
struct spec_text {
    const char *spec;
    int nstages;
    int index;                   /* 1-based */
    char *stage;                 /* the stage's text */
};

static int stage_fail(const struct spec_text *t, clx_message *msg, const char *fmt, ...) CLX_PRINTF(3, 4);

static int stage_fail(const struct spec_text *t, clx_message *msg, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (t->nstages > 1)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "filter spec '%.300s': stage %d '%.300s': %s", t->spec, t->index,
                        t->stage, why);
    return msg_fail(msg, CLX_ERR_ARGUMENT, "filter spec '%.300s': %s", t->stage, why);
}

/* A '+' joins stages unless a digit or '.' follows it (a sign or exponent). */
static int is_separator(const char *p)
{
    return p[0] == '+' && !(p[1] == '.' || (p[1] >= '0' && p[1] <= '9'));
}

static int count_stages(const char *spec)
{
    int n = 1;
    for (const char *p = spec; *p; p++)
        n += is_separator(p);
    return n;
}

/* Parses the whole of `text` as a finite number. */
static int parse_number(const char *text, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    return end != text && *end == '\0' && errno != ERANGE && isfinite(*v) ? 0 : -1;
}

/* ceil(3 sigma), except that 3 sigma a hair above an integer (3 x 0.1 =
 * 0.30000000000000004) counts as that integer. */
static double gaussian_reach(double sigma)
{
    return ceil(3 * sigma - 1e-9);
}

static void gaussian_taps(struct filter_stage *s)
{
    double sum = 0;
    for (int k = -s->radius; k <= s->radius; k++) {
        s->taps[k + s->radius] = exp(-(double)k * k / (2 * s->sigma * s->sigma));
        sum += s->taps[k + s->radius];
    }
    for (int k = 0; k <= 2 * s->radius; k++)
        s->taps[k] /= sum;
}

static int parse_sigma(const struct spec_text *t, const char *name, const char *value, struct filter_stage *s,
                       clx_message *msg)
{
    if (!*value)
        return stage_fail(t, msg, "expected %s:SIGMA (e.g. %s:2)", name, name);
    if (parse_number(value, &s->sigma))
        return stage_fail(t, msg, "'%s' is not a finite number", value);
    if (s->sigma <= 0)
        return stage_fail(t, msg, "sigma must be positive");
    if (gaussian_reach(s->sigma) > CLX_FILTER_MAX_RADIUS)
        return stage_fail(t, msg, "sigma %g needs a radius of ceil(3 x %g) = %.0f; at most %d (sigma <= %.2f)",
                          s->sigma, s->sigma, gaussian_reach(s->sigma), CLX_FILTER_MAX_RADIUS,
                          floor(CLX_FILTER_MAX_RADIUS / 3.0 * 100) / 100);
    s->radius = (int)gaussian_reach(s->sigma);
    gaussian_taps(s);
    return CLX_OK;
}

static int parse_taps(const struct spec_text *t, const char *value, struct filter_stage *s, clx_message *msg)
{
    char item[64];
    int n = 0;
    if (!*value)
        return stage_fail(t, msg, "expected taps:a,b,c,... (an odd count from 3 to %d)", FILTER_MAX_TAPS);
    for (const char *p = value;; n++) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return stage_fail(t, msg, "tap %d is empty", n + 1);
        if (len >= sizeof item)
            return stage_fail(t, msg, "tap %d is too long", n + 1);
        memcpy(item, p, len);
        item[len] = '\0';
        double v;
        if (parse_number(item, &v))
            return stage_fail(t, msg, "tap %d '%s' is not a finite number", n + 1, item);
        if (n < FILTER_MAX_TAPS)
            s->taps[n] = v;
        if (p[len] == '\0') {
            n++;
            break;
        }
        p += len + 1;
    }
    if (n < 3 || n > FILTER_MAX_TAPS || n % 2 == 0)
        return stage_fail(t, msg, "%d tap%s; need an odd count from 3 to %d", n, n == 1 ? "" : "s",
                          FILTER_MAX_TAPS);
    s->radius = (n - 1) / 2;
    return CLX_OK;
}

static int parse_stage(const struct spec_text *t, struct filter_stage *s, clx_message *msg)
{
    char name[64];
    const char *colon = strchr(t->stage, ':');
    size_t len = colon ? (size_t)(colon - t->stage) : strlen(t->stage);
    if (len >= sizeof name)
        len = sizeof name - 1;
    memcpy(name, t->stage, len);
    name[len] = '\0';
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strcmp(name, kinds[i].name) != 0)
            continue;
        s->kind = kinds[i].kind;
        s->epilogue = kinds[i].epilogue;
        const char *value = colon ? colon + 1 : "";
        if (s->kind == FILTER_TAPS)
            return parse_taps(t, value, s, msg);
        return parse_sigma(t, name, value, s, msg);
    }
    return stage_fail(t, msg, "unknown filter '%s' (%s)", name, KIND_LIST);
}

int filter_spec_parse(const char *spec, struct filter_chain *chain, clx_message *msg)
{
    struct spec_text t;
    msg_clear(msg);
    memset(chain, 0, sizeof *chain);
    if (!spec || !*spec)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "filter spec is empty (e.g. gaussian:2 or background:20+gaussian:1)");
    t.spec = spec;
    t.nstages = count_stages(spec);
    if (t.nstages > CLX_FILTER_MAX_STAGES)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "filter spec '%.300s': %d stages; at most %d", spec, t.nstages,
                        CLX_FILTER_MAX_STAGES);
    const char *p = spec;
    for (t.index = 1; t.index <= t.nstages; t.index++) {
        size_t len = 0;
        while (p[len] && !is_separator(p + len))
            len++;
        if (len == 0)
            return msg_fail(msg, CLX_ERR_ARGUMENT, "filter spec '%.300s': stage %d is empty", spec, t.index);
        if (!(t.stage = strndup(p, len)))
            return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
        int status = parse_stage(&t, &chain->stages[t.index - 1], msg);
        free(t.stage);
        if (status != CLX_OK)
            return status;
        p += len + (p[len] != '\0');
    }
    chain->nstages = t.nstages;
    return CLX_OK;
}

int clx_filter_spec_check(const char *spec, clx_message *msg)
{
    struct filter_chain chain;
    return filter_spec_parse(spec, &chain, msg);
}
