/*
 * fuzz_patterns.c - libFuzzer harness for the binary EBSD pattern files
 * (src/image/load_up.c, load_nordif.c, load_ebsp.c), which the loader
 * recognises by their names: the input's first byte chooses the name
 * (fuzz_patterns.h), the rest is written as the file in a private
 * directory.
 *
 * Each file must keep the loader's promises (fuzz_image_check.c), and a
 * pattern file those of its scan: a format name of the file's kind, a grid
 * of rows x columns = pages or none (0 x 0), finite steps, reads that may
 * be shared between threads. A Pattern.dat without its Setting.txt is no
 * NORDIF file.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "clxcorr.h"
#include "fuzz_file.h"
#include "fuzz_image_check.h"
#include "fuzz_patterns.h"

static void scan_check(const char *path, enum pattern_kind kind)
{
    static const char *const formats[PATTERN_KINDS] = { "EDAX UP1", "EDAX UP2", "Oxford ebsp", "NORDIF", NULL };
    clx_image_file *file;
    clx_message msg;
    if (clx_image_file_open(path, &file, &msg) != CLX_OK)
        return;
    const clx_scan_info *s = clx_image_file_scan(file);
    int pages = clx_image_file_pages(file);
    /* No scan: the content has a magic number (a TIFF named .up2 is a TIFF). */
    if (s && (!formats[kind] || strcmp(s->format, formats[kind]) != 0))
        fuzz_fail("a %s file read as '%s'", formats[kind] ? formats[kind] : "Pattern.dat alone", s->format);
    if (s && !(s->rows == 0 && s->cols == 0) && (s->rows < 1 || s->cols < 1 || (long long)s->rows * s->cols != pages))
        fuzz_fail("a grid of %d x %d for %d pages", s->rows, s->cols, pages);
    if (s && (!isfinite(s->step_x) || !isfinite(s->step_y)))
        fuzz_fail("steps %g, %g", s->step_x, s->step_y);
    if (s && !clx_image_file_shared(file))
        fuzz_fail("a %s file whose reads cannot be shared", s->format);
    clx_image_file_close(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[PATTERN_KINDS] = { "patterns.up1", "patterns.up2", "patterns.ebsp",
                                                      "Pattern.dat", "Pattern.dat" };
    if (size < 1)
        return 0;
    enum pattern_kind kind = (enum pattern_kind)(data[0] % PATTERN_KINDS);
    data++;
    size--;
    if (kind == PATTERN_NORDIF) {
        size_t length = size >= 2 ? (size_t)data[0] | (size_t)data[1] << 8 : 0, skip = size >= 2 ? 2 : size;
        if (length > size - skip)
            length = size - skip;
        fuzz_named_file_write("Setting.txt", data + skip, length);
        data += skip + length;
        size -= skip + length;
    } else if (kind == PATTERN_NORDIF_ALONE) {
        fuzz_named_file_remove("Setting.txt");
    }
    const char *path = fuzz_named_file_write(names[kind], data, size);
    fuzz_image_file_check(path);
    scan_check(path, kind);
    return 0;
}
