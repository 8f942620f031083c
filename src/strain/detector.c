/*
 * detector.c - the pattern centre on the screen, its checks, and how it
 * moves with the beam across the scan (doc/hrebsd-conventions.md, "Pattern
 * centres across the scan").
 */
#include "config.h"

#include <math.h>

#include "runtime/message.h"
#include "strain/detector.h"
#include "strain/frames.h"

/* A centre this far off the screen (in its widths) is no geometry of a
 * real detector; percentages given for fractions land there. */
#define PC_OFF_SCREEN 1.0
#define PCZ_MAX 10.0

int clx_detector_pc_check(const double pc[3], clx_message *msg)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(pc[k]))
            return msg_fail(msg, CLX_ERR_ARGUMENT, "pattern centre (%g, %g, %g) is not finite", pc[0], pc[1], pc[2]);
    int off_x = pc[0] < -PC_OFF_SCREEN || pc[0] > 1 + PC_OFF_SCREEN;
    int off_y = pc[1] < -PC_OFF_SCREEN || pc[1] > 1 + PC_OFF_SCREEN;
    if (off_x || off_y || !(pc[2] > 0) || pc[2] > PCZ_MAX) {
        /* Three values of 2 to 100 are percentages. */
        int percent = pc[0] >= 2 && pc[0] <= 100 && pc[1] >= 2 && pc[1] <= 100 && pc[2] >= 2 && pc[2] <= 100;
        if (percent)
            return msg_fail(msg, CLX_ERR_ARGUMENT,
                            "pattern centre (%g, %g, %g) looks like percentages: give fractions of the pattern's "
                            "width and height, e.g. (%g, %g, %g)", pc[0], pc[1], pc[2], pc[0] / 100, pc[1] / 100,
                            pc[2] / 100);
        if (off_x || off_y)
            return msg_fail(msg, CLX_ERR_ARGUMENT,
                            "pattern centre (%g, %g, %g): PC%c is %g pattern %s off the screen (Bruker's convention: "
                            "PCx and PCy are fractions of the width and height, 0 to 1 on the screen)",
                            pc[0], pc[1], pc[2], off_x ? 'x' : 'y', off_x ? fmax(-pc[0], pc[0] - 1) : fmax(-pc[1], pc[1] - 1),
                            off_x ? "widths" : "heights");
        return msg_fail(msg, CLX_ERR_ARGUMENT,
                        "pattern centre (%g, %g, %g): PCz, the detector distance over the pattern's height, must be "
                        "more than 0 and at most %g", pc[0], pc[1], pc[2], PCZ_MAX);
    }
    msg_clear(msg);
    return CLX_OK;
}

int detector_check(const clx_detector *d, clx_message *msg)
{
    if (!d)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "no detector geometry");
    if (d->width <= 0 || d->height <= 0)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "detector: pattern size %dx%d is not positive", d->width, d->height);
    double pc[3] = { d->pcx, d->pcy, d->pcz };
    int status = clx_detector_pc_check(pc, msg);
    if (status)
        return status;
    if (!isfinite(d->sample_tilt) || !isfinite(d->detector_tilt))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "detector: tilts %g, %g degrees are not finite", d->sample_tilt,
                        d->detector_tilt);
    if (fabs(d->sample_tilt) > 90)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "detector: sample tilt %g degrees is beyond +-90", d->sample_tilt);
    if (fabs(d->detector_tilt) > 90)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "detector: detector tilt %g degrees is beyond +-90", d->detector_tilt);
    return CLX_OK;
}

void screen_from_pc(const clx_detector *d, const double pc[3], struct screen *s)
{
    double x = pc ? pc[0] : d->pcx, y = pc ? pc[1] : d->pcy, z = pc ? pc[2] : d->pcz;
    s->x0 = x * d->width - 0.5;
    s->y0 = -(y * d->height - 0.5);
    s->L = z * d->height;
}

void screen_to_pc(const clx_detector *d, const struct screen *s, double pc[3])
{
    pc[0] = (s->x0 + 0.5) / d->width;
    pc[1] = (0.5 - s->y0) / d->height;
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

    /* The map's columns run along -y_s and its rows along -x_s (kikuchipy's
     * EBSDDetector.extrapolate_pc, after Singh et al. 2017): the source moves
     * by p = -y_um x_s - x_um y_s; p_d = R_ds^T p, in pattern pixels. */
    double r_ds[9], p_s[3] = { -y_um / pixel_um, -x_um / pixel_um, 0 }, p_d[3];
    frames_detector_to_sample(reference->sample_tilt, reference->detector_tilt, r_ds);
    mat3_apply_transpose(r_ds, p_s, p_d);

    struct screen s;
    screen_from_pc(reference, NULL, &s);
    s.x0 += p_d[0];
    s.y0 += p_d[1];
    s.L -= p_d[2];
    screen_to_pc(reference, &s, pc);
    msg_clear(msg);
    return CLX_OK;
}
