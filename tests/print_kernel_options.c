/*
 * print_kernel_options.c - prints, one per line, the build options the
 * library gives its kernels for a spread of configurations (precision,
 * pixel type, window and layout sizes, vendors), through the same function
 * the library uses (kernel_options_format). kernels_spir.sh compiles every
 * kernel with each line.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>

#include "kernel_build.h"

int main(void)
{
    const struct { int w, h, pw, ph; } sizes[] = { { 7, 5, 14, 10 }, { 100, 100, 200, 200 }, { 11, 13, 24, 28 } };
    const clx_pixel_type pixels[] = { CLX_PIXEL_U8, CLX_PIXEL_U16, CLX_PIXEL_F32 };
    const enum device_vendor vendors[] = { VENDOR_OTHER, VENDOR_NVIDIA, VENDOR_AMD, VENDOR_INTEL, VENDOR_POCL };
    struct device_entry dev = { 0 };
    char buf[1024];

    dev.max_work_group_size = 1024;
    for (int s = 0; s < 3; s++)
        for (int px = 0; px < 3; px++)
            for (int dbl = 0; dbl < 2; dbl++) {
                struct kernel_params p;
                dev.vendor = vendors[(s * 6 + px * 2 + dbl) % 5];
                kernel_params_defaults(&p, &dev);
                p.win_w = sizes[s].w;
                p.win_h = sizes[s].h;
                p.pad_w = sizes[s].pw;
                p.pad_h = sizes[s].ph;
                p.pixel = pixels[px];
                p.use_double = dbl;
                p.fit_size = s == 1 ? 7 : 5;
                if (kernel_options_format(&p, buf, sizeof buf))
                    return 1;
                puts(buf);
            }
    return 0;
}
