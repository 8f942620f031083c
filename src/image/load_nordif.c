/*
 * load_nordif.c - NORDIF's pattern files: Pattern.dat with the Setting.txt
 * that NORDIF writes beside it (an image_format backend).
 *
 * Pattern.dat has no header: 8-bit patterns back to back, row-major, in
 * scan order (row by row). Everything else is in Setting.txt, a Latin-1
 * text with CRLF line ends, in sections "[Name]" of lines "Key<TAB>Value<TAB>Unit":
 *
 *   [Acquisition settings]  Resolution         WxH (the pattern, width first; required)
 *   [Area]                  Number of samples  AxB (the grid), Step size (µm)
 *   [Microscope]            Tilt angle         the sample tilt (degrees)
 *   [Detector angles]       Elevation          minus the detector tilt, Azimuthal (degrees)
 *
 * kikuchipy reads each value at a fixed line below its section's header;
 * here each key is searched for within its section, so that a line more or
 * less does not shift every value. "Number of samples" is read as rows x
 * columns, as kikuchipy reads it: the only published example is square
 * (3x3), so the order is not confirmed by a file. Without it the pages are
 * as many patterns as Pattern.dat holds, with no grid.
 *
 * Values are read by a parser of its own rather than strtod, whose decimal
 * separator follows the calling program's locale.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/loaders.h"
#include "image/raw_patterns.h"
#include "runtime/message.h"

#define SETTINGS_NAME "Setting.txt"
/* NORDIF's settings files are 1 to 2 KB; anything far larger is not one. */
#define SETTINGS_MAX_BYTES (1 << 20)
/* Digits of a grid or pattern size: up to 999,999,999, which no product can overflow. */
#define COUNT_DIGITS_MAX 9

struct nordif_file {
    int fd;
    int width, height;
    unsigned long long pattern_bytes;
};

/* What an error about the settings names: both files. */
struct settings {
    const char *pattern_path;
    char *path;
    char *text;
};

/* DIR/Setting.txt for DIR/Pattern.dat (malloc'd; NULL when out of memory). */
static char *settings_path_for(const char *pattern_path)
{
    const char *slash = strrchr(pattern_path, '/');
    size_t dir = slash ? (size_t)(slash - pattern_path) + 1 : 0;
    char *path = malloc(dir + sizeof SETTINGS_NAME);
    if (path) {
        memcpy(path, pattern_path, dir);
        memcpy(path + dir, SETTINGS_NAME, sizeof SETTINGS_NAME);
    }
    return path;
}

static int nordif_probe(const char *path, const unsigned char *head, size_t length)
{
    (void)head;
    (void)length;
    if (!raw_name_ends(path, ".dat"))
        return 0;
    char *settings = settings_path_for(path);
    struct stat st;
    int found = settings && stat(settings, &st) == 0 && S_ISREG(st.st_mode);
    free(settings);
    return found;
}

/* ---- Setting.txt ----------------------------------------------------------- */

/* The whole text, NUL-terminated, with any NUL bytes in it made blanks. */
static int settings_load(struct settings *s, clx_message *msg)
{
    if (!(s->path = settings_path_for(s->pattern_path)))
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", s->pattern_path);
    FILE *f = fopen(s->path, "rb");
    if (!f)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: NORDIF patterns need the %s beside them (%s: %s)",
                        s->pattern_path, SETTINGS_NAME, s->path, strerror(errno));
    struct stat st;
    int status = CLX_OK;
    if (fstat(fileno(f), &st) != 0)
        status = msg_fail(msg, CLX_ERR_IO, "%s: %s: %s", s->pattern_path, s->path, strerror(errno));
    else if (st.st_size > SETTINGS_MAX_BYTES)
        status = msg_fail(msg, CLX_ERR_FORMAT, "%s: %s is over %d bytes, not a NORDIF settings file",
                          s->pattern_path, s->path, SETTINGS_MAX_BYTES);
    else if (!(s->text = malloc((size_t)st.st_size + 1)))
        status = msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", s->pattern_path);
    size_t n = status == CLX_OK ? fread(s->text, 1, (size_t)st.st_size, f) : 0;
    if (status == CLX_OK && ferror(f))
        status = msg_fail(msg, CLX_ERR_IO, "%s: %s: %s", s->pattern_path, s->path, strerror(errno));
    fclose(f);
    if (status != CLX_OK)
        return status;
    for (size_t i = 0; i < n; i++)
        if (s->text[i] == '\0')
            s->text[i] = ' ';
    s->text[n] = '\0';
    return CLX_OK;
}

static const char *blanks_skip(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/*
 * The value of `key` under `section` ("[Area]"): the field after
 * "key<TAB>", up to the next TAB or the line's end, without surrounding
 * blanks or the CR of a CRLF line end. 0 when the key is not in the section.
 */
static int settings_value(const struct settings *s, const char *section, const char *key, char *value,
                          size_t size)
{
    size_t section_len = strlen(section), key_len = strlen(key);
    int in_section = 0;
    for (const char *line = s->text; *line;) {
        const char *end = line + strcspn(line, "\n");
        const char *p = blanks_skip(line, end);
        if (p < end && *p == '[') {
            in_section = (size_t)(end - p) >= section_len && memcmp(p, section, section_len) == 0;
        } else if (in_section && (size_t)(end - p) > key_len && memcmp(p, key, key_len) == 0 && p[key_len] == '\t') {
            const char *v = blanks_skip(p + key_len + 1, end), *v_end = v;
            while (v_end < end && *v_end != '\t')
                v_end++;
            while (v_end > v && (v_end[-1] == '\r' || v_end[-1] == ' '))
                v_end--;
            size_t n = (size_t)(v_end - v) < size - 1 ? (size_t)(v_end - v) : size - 1;
            memcpy(value, v, n);
            value[n] = '\0';
            return 1;
        }
        line = *end ? end + 1 : end;
    }
    return 0;
}

/* A plain decimal number ("-20", "1.5"), all of text: 0, or -1 when it is none. */
static int decimal_parse(const char *text, double *out)
{
    const char *p = text;
    int negative = *p == '-', digits = 0, scale = 0;
    double mantissa = 0;
    if (*p == '-' || *p == '+')
        p++;
    for (int fraction = 0;; p++) {
        if (*p == '.' && !fraction) {
            fraction = 1;
        } else if (*p >= '0' && *p <= '9') {
            /* Digits past the 17th cannot change a double; count their scale only. */
            if (digits < 17) {
                mantissa = mantissa * 10 + (*p - '0');
                scale -= fraction;
            } else {
                scale += !fraction;
            }
            digits++;
        } else {
            break;
        }
    }
    if (digits == 0 || *p != '\0')
        return -1;
    /* A power of ten up to 10^22 is exact, so this rounds once. */
    double value = scale < 0 ? mantissa / pow(10, -scale) : mantissa * pow(10, scale);
    *out = negative ? -value : value;
    return 0;
}

/* "AxB" with two whole numbers of at most COUNT_DIGITS_MAX digits: 0, or -1. */
static int pair_parse(const char *text, long long *a, long long *b)
{
    long long *out[2] = { a, b };
    const char *p = text;
    for (int i = 0; i < 2; i++) {
        int digits = 0;
        *out[i] = 0;
        for (; *p >= '0' && *p <= '9' && digits < COUNT_DIGITS_MAX; p++, digits++)
            *out[i] = *out[i] * 10 + (*p - '0');
        if (digits == 0 || (i == 0 && *p != 'x' && *p != 'X'))
            return -1;
        p += i == 0;
    }
    return *p == '\0' ? 0 : -1;
}

static int value_refuse(const struct settings *s, const char *section, const char *key, const char *value,
                        const char *expected, clx_message *msg)
{
    /* The value as printable ASCII: a damaged file's bytes must not reach a terminal as they are. */
    char shown[64];
    size_t n = 0;
    for (; value[n] && n < sizeof shown - 1; n++)
        shown[n] = value[n] >= 0x20 && value[n] < 0x7f ? value[n] : '?';
    shown[n] = '\0';
    return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s: %s %s is '%s', not %s", s->pattern_path, s->path, section,
                    key, shown, expected);
}

/* An optional number: *out is left alone where the key is missing; a value that is no number is an error. */
static int settings_number(const struct settings *s, const char *section, const char *key, double *out,
                           clx_message *msg)
{
    char value[64];
    double v;
    if (!settings_value(s, section, key, value, sizeof value))
        return CLX_OK;
    if (decimal_parse(value, &v) != 0 || !isfinite(v))
        return value_refuse(s, section, key, value, "a number", msg);
    *out = v;
    return CLX_OK;
}

/* The pattern size, which Pattern.dat cannot be read without. */
static int pattern_size_read(const struct settings *s, struct nordif_file *n, clx_message *msg)
{
    static const char section[] = "[Acquisition settings]", key[] = "Resolution";
    char value[64];
    long long width, height;
    if (!settings_value(s, section, key, value, sizeof value))
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s has no '%s' under %s (the size of the patterns)",
                        s->pattern_path, s->path, key, section);
    if (pair_parse(value, &width, &height) != 0)
        return value_refuse(s, section, key, value, "WIDTHxHEIGHT", msg);
    int status = image_size_check(s->pattern_path, "patterns", width, height, msg);
    if (status == CLX_OK) {
        n->width = (int)width;
        n->height = (int)height;
        n->pattern_bytes = (unsigned long long)width * (unsigned long long)height;
    }
    return status;
}

/* The grid, the step and the angles, where the settings give them. */
static int scan_read(const struct settings *s, clx_scan_info *scan, clx_message *msg)
{
    char value[64];
    long long rows, cols;
    if (settings_value(s, "[Area]", "Number of samples", value, sizeof value)) {
        if (pair_parse(value, &rows, &cols) != 0 || rows < 1 || cols < 1)
            return value_refuse(s, "[Area]", "Number of samples", value, "ROWSxCOLUMNS", msg);
        if (rows * cols > INT_MAX)
            return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s: a grid of %lld x %lld, more patterns than clxcorr "
                            "reads from one file (%d)", s->pattern_path, s->path, rows, cols, INT_MAX);
        scan->rows = (int)rows;
        scan->cols = (int)cols;
    }
    double step = 0, elevation = NAN;
    int status = settings_number(s, "[Area]", "Step size", &step, msg);
    if (status == CLX_OK)
        status = settings_number(s, "[Microscope]", "Tilt angle", &scan->sample_tilt, msg);
    if (status == CLX_OK)
        status = settings_number(s, "[Detector angles]", "Azimuthal", &scan->azimuthal, msg);
    if (status == CLX_OK)
        status = settings_number(s, "[Detector angles]", "Elevation", &elevation, msg);
    scan->step_x = scan->step_y = step;
    /* The camera looks down at the elevation: kikuchipy's detector tilt is its negative (and 0, not -0). */
    scan->detector_tilt = elevation == 0 ? 0 : -elevation;
    return status;
}

/* ---- the backend ------------------------------------------------------------ */

/* The pages: the grid's, which Pattern.dat must hold, or without a grid every pattern it holds. */
static int pages_count(clx_image_file *file, const struct nordif_file *n, unsigned long long size,
                       clx_message *msg)
{
    unsigned long long held = size / n->pattern_bytes;
    if (file->scan.rows > 0) {
        unsigned long long wanted = (unsigned long long)file->scan.rows * (unsigned long long)file->scan.cols;
        if (wanted > held)
            return msg_fail(msg, CLX_ERR_FORMAT, "%s: truncated: a grid of %d x %d patterns of %dx%d needs %llu "
                            "bytes, the file holds %llu", file->path, file->scan.rows, file->scan.cols, n->width,
                            n->height, wanted * n->pattern_bytes, size);
        file->pages = (int)wanted;
        return CLX_OK;
    }
    if (held == 0 || size % n->pattern_bytes != 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %llu bytes are not a whole number of %dx%d patterns (and "
                        "Setting.txt gives no grid)", file->path, size, n->width, n->height);
    if (held > INT_MAX)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %llu patterns, more than clxcorr reads from one file (%d)",
                        file->path, held, INT_MAX);
    file->pages = (int)held;
    return CLX_OK;
}

static void nordif_close(clx_image_file *file);

static int nordif_open(clx_image_file *file, const char *scan, clx_message *msg)
{
    (void)scan;
    struct nordif_file *n = calloc(1, sizeof *n);
    if (!n)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", file->path);
    n->fd = -1;
    file->handle = n;
    image_scan_init(&file->scan, "NORDIF");
    struct settings s = { file->path, NULL, NULL };
    unsigned long long size = 0;
    int status = settings_load(&s, msg);
    if (status == CLX_OK)
        status = pattern_size_read(&s, n, msg);
    if (status == CLX_OK)
        status = scan_read(&s, &file->scan, msg);
    if (status == CLX_OK)
        status = raw_file_open(file->path, &n->fd, &size, msg);
    if (status == CLX_OK)
        status = pages_count(file, n, size, msg);
    free(s.path);
    free(s.text);
    if (status != CLX_OK)
        nordif_close(file);
    return status;
}

static int nordif_read_into(clx_image_file *file, int page, clx_image *dst, clx_message *msg)
{
    const struct nordif_file *n = file->handle;
    return raw_pattern_read(file, page, n->fd, (unsigned long long)page * n->pattern_bytes, n->width, n->height,
                            CLX_PIXEL_U8, dst, msg);
}

static int nordif_read(clx_image_file *file, int page, clx_image *image, clx_message *msg)
{
    const struct nordif_file *n = file->handle;
    int status = image_make(file->path, n->width, n->height, CLX_PIXEL_U8, image, msg);
    return status == CLX_OK ? nordif_read_into(file, page, image, msg) : status;
}

static void nordif_close(clx_image_file *file)
{
    struct nordif_file *n = file->handle;
    if (!n)
        return;
    if (n->fd >= 0)
        close(n->fd);
    free(n);
    file->handle = NULL;
}

const struct image_format image_format_nordif = {
    .name = "NORDIF",
    .probe = nordif_probe,
    .open = nordif_open,
    .read = nordif_read,
    .read_into = nordif_read_into,
    .close = nordif_close,
    .shared_reads = 1,
};
