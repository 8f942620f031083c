/*
 * stb_check.c - the checks stb_image 2.27 leaves out, made before it
 * decodes a file (stb_check.h). Each walks the file as stb would and
 * refuses what would make stb read memory it never wrote (garbage pixels
 * that change from run to run) or write past its tables.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "image/stb_check.h"

/* ------------------------------------------------------------------------ */
/* JPEG                                                                      */

/*
 * stb_image 2.27 trusts a JPEG's structure more than it should, and one
 * flipped bit in a file is enough to reach each of these:
 *   - the symbol counts of a Huffman table (DHT): counts adding up to more
 *     than 256 overrun its tables, corrupting memory (fixed upstream in 2.28);
 *   - tables a scan uses but no DQT or DHT defined: it decodes with whatever
 *     its memory held, so the same file gives other pixels each time;
 *   - components no scan covers: their planes are never written, and come
 *     out as whatever the memory held too.
 * So the markers are walked here first, as stb walks them, and such files
 * refused. Where the walk goes astray or the file ends, stb stops there too
 * and reports it. Returns why the file is refused, or NULL.
 */
struct jpeg_walk {
    unsigned quant, dc, ac;      /* bit t: table t is defined */
    int frame;                   /* a SOF0-2 was seen (stb uses the first) */
    int progressive;
    int components;
    int id[4], tq[4];
    unsigned covered;            /* bit i: component i got its data (its first DC scan) */
};

/* A DQT or DHT segment of `length` bytes: the tables it defines. NULL, or why it is refused. */
static const char *jpeg_tables(FILE *f, int marker, long length, struct jpeg_walk *w, int *astray)
{
    /* Like stb: a table is read whole even where it overruns the segment. */
    while (length > 0) {
        int q = getc(f), n = 0, c = 0;
        if (q == EOF)
            break;
        if (marker == 0xdb) {
            int sixteen = q >> 4 != 0;
            w->quant |= (q & 15) < 4 ? 1u << (q & 15) : 0;
            if (fseek(f, sixteen ? 128 : 64, SEEK_CUR) != 0)
                break;
            length -= sixteen ? 129 : 65;
            continue;
        }
        for (int i = 0; i < 16 && (c = getc(f)) != EOF; i++)
            n += c;
        if (n > 256)
            return "a Huffman table has more than 256 symbols";
        if (c == EOF || fseek(f, n, SEEK_CUR) != 0)
            break;
        if ((q & 15) < 4)
            *(q >> 4 ? &w->ac : &w->dc) |= 1u << (q & 15);
        length -= 17 + n;
    }
    /* A segment that does not end where its tables do is refused by stb. */
    *astray = length != 0;
    return NULL;
}

static void jpeg_frame(FILE *f, int marker, struct jpeg_walk *w)
{
    unsigned char h[6];
    if (w->frame || fread(h, 1, sizeof h, f) != sizeof h || h[5] < 1 || h[5] > 4)
        return;   /* stb reads the first frame only, and refuses a bad count */
    w->frame = 1;
    w->progressive = marker == 0xc2;
    w->components = h[5];
    for (int i = 0; i < w->components; i++) {
        int id = getc(f);
        getc(f);   /* sampling factors */
        int tq = getc(f);
        if (tq == EOF)
            return;
        w->id[i] = id;
        w->tq[i] = tq & 3;   /* above 3 stb refuses the frame */
    }
}

/* A scan header: the tables its components use must be defined. */
static const char *jpeg_scan(FILE *f, struct jpeg_walk *w)
{
    int n = getc(f), which[4], tables[4];
    if (!w->frame || n < 1 || n > 4)
        return NULL;   /* stb refuses it */
    for (int i = 0; i < n; i++) {
        int id = getc(f);
        tables[i] = getc(f);
        /* The first component of that id, as stb takes. */
        which[i] = -1;
        for (int c = w->components - 1; c >= 0; c--)
            if (w->id[c] == id)
                which[i] = c;
        if (tables[i] == EOF || which[i] < 0)
            return NULL;
    }
    int ss = getc(f);
    getc(f);   /* the end of the spectral selection */
    int a = getc(f);
    if (a == EOF)
        return NULL;
    /* Baseline scans use both tables; progressive ones the DC table in a first DC scan, the AC table in AC scans. */
    int first_dc = !w->progressive || (ss == 0 && a >> 4 == 0);
    int uses_ac = !w->progressive || ss > 0;
    for (int i = 0; i < n; i++) {
        int dc = tables[i] >> 4, ac = tables[i] & 15;
        if (!(w->quant >> w->tq[which[i]] & 1))
            return "a scan uses a quantization table the file does not define";
        if ((first_dc && dc < 4 && !(w->dc >> dc & 1)) || (uses_ac && ac < 4 && !(w->ac >> ac & 1)))
            return "a scan uses a Huffman table the file does not define";
        if (first_dc)
            w->covered |= 1u << which[i];
    }
    return NULL;
}

const char *jpeg_check(FILE *f)
{
    struct jpeg_walk w = { 0 };
    if (fseek(f, 0, SEEK_SET) != 0)
        return NULL;
    for (;;) {
        /* The next marker; entropy-coded data, stuffed 0xff00 and restarts are skipped. */
        int c;
        do
            c = getc(f);
        while (c != 0xff && c != EOF);
        while (c == 0xff)
            c = getc(f);
        if (c == EOF)
            return NULL;
        if (c == 0xd9) {
            if (w.frame && w.covered != (1u << w.components) - 1)
                return "a component has no scan";
            return NULL;
        }
        if (c == 0x00 || c == 0x01 || (c >= 0xd0 && c <= 0xd8))
            continue;   /* no segment follows */
        int high = getc(f), low = getc(f);
        if (low == EOF)
            return NULL;
        long length = (long)(high << 8 | low) - 2, start = ftell(f);
        const char *why = NULL;
        int astray = 0;
        if (c == 0xdb || c == 0xc4)
            why = jpeg_tables(f, c, length, &w, &astray);
        else if (c >= 0xc0 && c <= 0xc2)
            jpeg_frame(f, c, &w);
        else if (c == 0xda)
            why = jpeg_scan(f, &w);
        if (why || astray)
            return why;
        if (length < 0 || start < 0 || fseek(f, start + length, SEEK_SET) != 0)
            return NULL;
    }
}

/* ------------------------------------------------------------------------ */
/* BMP                                                                       */

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
    return le16(p) | le16(p + 2) << 16;
}

/*
 * stb_image 2.27 keeps a palette image's colours in an array on its stack,
 * and fills only the entries the file has: a pixel whose index is past them
 * (or a palette of a negative size, from a pixel offset inside the header)
 * takes whatever the stack held. So the palette's size is found as stb
 * finds it, and where it has fewer colours than the pixels can index, every
 * pixel is checked against it.
 */
const char *bmp_check(FILE *f)
{
    unsigned char h[30];
    if (fseek(f, 0, SEEK_SET) != 0 || fread(h, 1, sizeof h, f) != sizeof h)
        return NULL;
    int64_t offset = le32(h + 10), header = le32(h + 14), width, height, bits;
    if (header == 12) {
        width = le16(h + 18);
        height = le16(h + 20);
        bits = le16(h + 24);
    } else {
        width = (int32_t)le32(h + 18);
        height = (int32_t)le32(h + 22);
        bits = le16(h + 28);
    }
    if (bits != 1 && bits != 4 && bits != 8)
        return NULL;   /* no palette, or stb refuses the depth */
    if (offset > INT32_MAX || width < 1 || width > 65536 || height == 0 || height < -65536 || height > 65536)
        return NULL;   /* stb refuses the header */
    /* stb's arithmetic, its 24 for OS/2 headers included. */
    int64_t entry = header == 12 ? 3 : 4;
    int64_t room = header == 12 ? offset - 14 - 24 : offset - 14 - header;
    int64_t colours = room / entry;
    if (room < 0 || colours < 1 || offset - 14 - header - colours * entry < 0)
        return "its pixel data starts inside its header";
    if (colours >= (int64_t)1 << bits || colours > 256)
        return NULL;   /* every index has a colour, or stb refuses the palette */

    int64_t row = bits == 1 ? (width + 7) / 8 : bits == 4 ? (width + 1) / 2 : width;
    int64_t pad = (4 - row % 4) % 4;
    if (fseek(f, (long)offset, SEEK_SET) != 0)
        return NULL;
    for (int64_t y = 0; y < (height < 0 ? -height : height); y++) {
        for (int64_t x = 0; x < width; x += 8 / bits) {
            int c = getc(f);
            if (c == EOF)
                return NULL;   /* stb reads zeros, and the file is refused as truncated */
            for (int64_t i = 0; i < 8 / bits && x + i < width; i++)
                if ((c >> (8 - bits * (i + 1)) & ((1 << bits) - 1)) >= colours)
                    return "a pixel's colour index is past the palette";
        }
        for (int64_t i = 0; i < pad; i++)
            getc(f);
    }
    return NULL;
}
