/*
 * detector.c - the pattern centre in pattern pixels, and how it moves with
 * the beam across the scan (doc/hrebsd-conventions.md, "Pattern-centre
 * shift across the scan").
 */
#include "config.h"

#include <math.h>

#include "runtime/message.h"
#include "strain/detector.h"
#include "strain/frames.h"

int detector_check(const clx_detector *d, clx_message *msg)
{
    if (!d)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "no detector geometry");
    if (d->width <= 0 || d->height <= 0)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "detector: pattern size %dx%d is not positive", d->width, d->height);
    if (!isfinite(d->pcx) || !isfinite(d->pcy) || !isfinite(d->pcz) || !(d->pcz > 0))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "detector: pattern centre (%g, %g, %g) is not usable (PCz must be > 0)",
                        d->pcx, d->pcy, d->pcz);
    if (!isfinite(d->sample_tilt) || !isfinite(d->detector_tilt))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "detector: tilts %g, %g degrees are not finite", d->sample_tilt,
                        d->detector_tilt);
    return CLX_OK;
}

void screen_from_pc(const clx_detector *d, const double pc[3], struct screen *s)
{
    double x = pc ? pc[0] : d->pcx, y = pc ? pc[1] : d->pcy, z = pc ? pc[2] : d->pcz;
    s->xpc = x * d->width - 0.5;
    s->ypc = y * d->height - 0.5;
    s->L = z * d->height;
}

void screen_to_pc(const clx_detector *d, const struct screen *s, double pc[3])
{
    pc[0] = (s->xpc + 0.5) / d->width;
    pc[1] = (s->ypc + 0.5) / d->height;
    pc[2] = s->L / d->height;
}

int clx_detector_shift(const clx_detector *reference, double x_um, double y_um, double pixel_um, double pc[3],
                       clx_message *msg)
{
    int status = detector_check(reference, msg);
    if (status)
        return status;
    if (!pc)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "detector shift: no output pattern centre");
    if (!(pixel_um > 0) || !isfinite(pixel_um))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "detector shift: pattern pixel size %g um is not positive", pixel_um);
    if (!isfinite(x_um) || !isfinite(y_um))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "detector shift: beam offset (%g, %g) um is not finite", x_um, y_um);

    /* The source moves by p = X x_s + Y y_s; p_d = R_ds^T p, in pattern pixels. */
    double r_ds[9], p_s[3] = { x_um / pixel_um, y_um / pixel_um, 0 }, p_d[3];
    frames_detector_to_sample(reference->sample_tilt, reference->detector_tilt, r_ds);
    mat3_apply_transpose(r_ds, p_s, p_d);

    struct screen s;
    screen_from_pc(reference, NULL, &s);
    s.xpc += p_d[0];
    s.ypc += p_d[1];
    s.L -= p_d[2];
    screen_to_pc(reference, &s, pc);
    msg_clear(msg);
    return CLX_OK;
}
