/*
 * stiffness.c - stiffness tensors: "cubic:C11,C12,C44" and
 * "hexagonal:C11,C12,C13,C33,C44" as Voigt 6x6 matrices, and Hooke's law in
 * the sample frame (stiffness.h).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/message.h"
#include "strain/frames.h"
#include "strain/stiffness.h"

/* Voigt order 11 22 33 23 13 12: index of the tensor component (i, j). */
static const int voigt[3][3] = { { 0, 5, 4 }, { 5, 1, 3 }, { 4, 3, 2 } };

void stiffness_stress(const double c[36], const double g[9], const double e[9], double sigma[9])
{
    double ec[9], sc[9], ev[6], sv[6];
    mat3_rotate(g, e, ec);
    /* Engineering shears: e_voigt = (e11, e22, e33, 2 e23, 2 e13, 2 e12). */
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++)
            ev[voigt[i][j]] = (i == j ? 1 : 2) * 0.5 * (ec[3 * i + j] + ec[3 * j + i]);
    for (int i = 0; i < 6; i++) {
        sv[i] = 0;
        for (int k = 0; k < 6; k++)
            sv[i] += c[6 * i + k] * ev[k];
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            sc[3 * i + j] = sv[voigt[i][j]];
    mat3_rotate_back(g, sc, sigma);
}

/* Cholesky without storing the factor: positive definite or not. */
static int positive_definite(const double c[36])
{
    double l[36] = { 0 };
    for (int j = 0; j < 6; j++) {
        double d = c[6 * j + j];
        for (int k = 0; k < j; k++)
            d -= l[6 * j + k] * l[6 * j + k];
        /* Relative to the diagonal: a tensor singular up to rounding is not definite. */
        if (!(d > 1e-12 * fabs(c[6 * j + j])) || !(d > 0))
            return 0;
        l[6 * j + j] = sqrt(d);
        for (int i = j + 1; i < 6; i++) {
            double s = c[6 * i + j];
            for (int k = 0; k < j; k++)
                s -= l[6 * i + k] * l[6 * j + k];
            l[6 * i + j] = s / l[6 * j + j];
        }
    }
    return 1;
}

static const struct symmetry {
    const char *name;
    int count;
    const char *constants;
} symmetries[] = {
    { "cubic", 3, "C11,C12,C44" },
    { "hexagonal", 5, "C11,C12,C13,C33,C44" },
};

int clx_stiffness_parse(const char *spec, double c[36], clx_message *msg)
{
    if (!spec || !c)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "stiffness: no specification");
    const char *colon = strchr(spec, ':');
    if (!colon)
        return msg_fail(msg, CLX_ERR_ARGUMENT,
                        "stiffness '%s': expected cubic:C11,C12,C44 or hexagonal:C11,C12,C13,C33,C44 (GPa)", spec);
    const struct symmetry *sym = NULL;
    size_t name_length = (size_t)(colon - spec);
    for (size_t i = 0; i < sizeof symmetries / sizeof symmetries[0]; i++)
        if (strlen(symmetries[i].name) == name_length && !strncmp(spec, symmetries[i].name, name_length))
            sym = &symmetries[i];
    if (!sym)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "stiffness '%s': unknown symmetry '%.*s' (cubic or hexagonal)", spec,
                        (int)name_length, spec);

    /* Count the comma-separated fields first, so that a wrong count is
     * reported as such rather than as the field that is missing. */
    int fields = 1;
    for (const char *p = colon + 1; *p; p++)
        fields += *p == ',';
    if (fields != sym->count)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "stiffness '%s': %s needs %d constants %s, found %d", spec, sym->name,
                        sym->count, sym->constants, fields);
    double k[5];
    const char *p = colon + 1;
    for (int i = 0; i < sym->count; i++) {
        char *end;
        size_t field_length = strcspn(p, ",");
        k[i] = strtod(p, &end);
        while (end < p + field_length && (*end == ' ' || *end == '\t'))
            end++;
        if (end == p || end != p + field_length || !isfinite(k[i])) {
            char name[4];
            memcpy(name, sym->constants + 4 * i, 3);
            name[3] = '\0';
            return msg_fail(msg, CLX_ERR_ARGUMENT, "stiffness '%s': %s '%.*s' is not a number", spec, name,
                            (int)field_length, p);
        }
        p += field_length + (p[field_length] == ',');
    }

    double m[36] = { 0 };
    double c11 = k[0], c12 = k[1], c13, c33, c44, c66;
    if (sym->count == 3) {
        c13 = c12;
        c33 = c11;
        c44 = k[2];
        c66 = c44;
    } else {
        c13 = k[2];
        c33 = k[3];
        c44 = k[4];
        c66 = 0.5 * (c11 - c12);
    }
    m[0] = m[7] = c11;
    m[1] = m[6] = c12;
    m[2] = m[12] = m[8] = m[13] = c13;
    m[14] = c33;
    m[21] = m[28] = c44;
    m[35] = c66;
    if (!positive_definite(m))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "stiffness '%s': not positive definite (no stable crystal has it)",
                        spec);
    memcpy(c, m, sizeof m);
    msg_clear(msg);
    return CLX_OK;
}
