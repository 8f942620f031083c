/*
 * fuzz_image.c - libFuzzer harness for the image loader (src/image/image.c and the
 * TIFF, PNM and stb_image backends) on arbitrary bytes: the input is a
 * whole file, in memory under a name that says no format, so the formats
 * known by their first bytes are reached; fuzz_image_check.c says what
 * each file must keep. The pattern files known by their names have their
 * own harness, fuzz_patterns.c.
 */
#include "config.h"

#include <stdint.h>

#include "fuzz_file.h"
#include "fuzz_image_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_image_file_check(fuzz_file_write(data, size));
    return 0;
}
