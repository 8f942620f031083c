/*
 * api_example.c - libclxcorr's public API end to end, as a program of your
 * own would use it: nothing but <clxcorr.h>.
 *
 *     api_example REFERENCE WINDOWS IMAGE...
 *
 * Opens a device (CLXCORR_DEVICE picks one, as for the clxcorr command),
 * reads the reference image and the windows file ("x y w h" per line),
 * makes a plan with the default options (the accurate mode), pushes the
 * images through it batch by batch and prints one CSV row per image and
 * window:
 *
 *     image,region,x,y,dx,dy,flags
 *
 * where (x, y) is the window's centre in the reference and (dx, dy) the
 * offset: where a feature is in the image minus where it is in the
 * reference. Errors are one line on standard error ("api_example: error:
 * ..."), after the rows of every complete batch; the exit status is 0
 * on success, 1 when the run failed and 2 for a wrong command line.
 *
 * Build it against an installed libclxcorr:
 *
 *     cc api_example.c $(pkg-config --cflags --libs clxcorr) -o api_example
 *
 * `make` also builds it in samples/, and tests/api_example.sh runs it on the
 * sample set.
 */
#include <stdio.h>
#include <stdlib.h>

#include <clxcorr.h>

/* The library never prints; its warnings (a device skipped, say) come here. */
static void print_warning(void *user, clx_log_level level, const char *line)
{
    (void)user;
    (void)level;    /* warnings only: the level the options ask for */
    fprintf(stderr, "api_example: warning: %s\n", line);
}

/* Loads the images at paths[0 .. count-1] into batch[]; on failure frees what it loaded. */
static int load_batch(char **paths, size_t count, clx_image *batch, clx_message *msg)
{
    for (size_t i = 0; i < count; i++) {
        int status = clx_image_load(paths[i], 0, &batch[i], msg);
        if (status != CLX_OK) {
            while (i > 0)
                clx_image_free(&batch[--i]);
            return status;
        }
    }
    return CLX_OK;
}

static void print_rows(const char *image_path, const clx_region *regions, size_t nregions,
                       const clx_result *results)
{
    for (size_t r = 0; r < nregions; r++) {
        /* The centre of a window of w pixels starting at x is x + (w - 1) / 2. */
        double cx = regions[r].x + (regions[r].w - 1) / 2.0;
        double cy = regions[r].y + (regions[r].h - 1) / 2.0;
        printf("%s,%zu,%.1f,%.1f,%.6f,%.6f,%u\n", image_path, r, cx, cy, results[r].dx, results[r].dy,
               results[r].flags);
    }
}

int main(int argc, char **argv)
{
    clx_context *ctx = NULL;
    clx_plan *plan = NULL;
    clx_image reference = { 0 };
    clx_image *batch = NULL;
    clx_region *regions = NULL;
    clx_result *results = NULL;
    size_t nregions = 0;
    clx_message msg;
    int status, exit_status = 1;

    if (argc < 4) {
        fprintf(stderr, "Usage: api_example REFERENCE WINDOWS IMAGE...\n");
        return 2;
    }
    char **image_paths = argv + 3;
    size_t nimages = (size_t)argc - 3;

    /* 1. A device: options NULL would take the defaults too; here the
     *    warnings go to standard error. */
    clx_context_options copt;
    clx_context_options_init(&copt);
    copt.log = print_warning;
    if ((status = clx_context_open(&copt, &ctx, &msg)) != CLX_OK) {
        fprintf(stderr, "api_example: error: %s\n", msg.text);
        return 1;
    }

    /* 2. The reference and the windows (functions without a context report
     *    through a clx_message). */
    if ((status = clx_image_load(argv[1], 0, &reference, &msg)) != CLX_OK ||
        (status = clx_regions_read(argv[2], &regions, &nregions, &msg)) != CLX_OK) {
        fprintf(stderr, "api_example: error: %s\n", msg.text);
        goto done;
    }

    /* 3. A plan: kernels, FFT plans, device buffers and the reference's
     *    windows, made once for every image. Its errors are kept in the
     *    context. */
    clx_plan_options popt;
    clx_plan_options_init(&popt);
    popt.expected_images = nimages;    /* no batch larger than the run */
    if ((status = clx_plan_create(ctx, &reference, regions, nregions, &popt, &plan)) != CLX_OK) {
        fprintf(stderr, "api_example: error: %s\n", clx_context_message(ctx));
        goto done;
    }
    size_t batch_size = (size_t)clx_plan_batch_size(plan);
    batch = calloc(batch_size, sizeof *batch);
    results = malloc(batch_size * nregions * sizeof *results);
    if (!batch || !results) {
        fprintf(stderr, "api_example: error: out of memory\n");
        goto done;
    }

    /* 4. The images, a batch at a time: push uploads and enqueues, read
     *    waits and fills one result per image and window. */
    for (size_t first = 0; first < nimages; first += batch_size) {
        size_t n = nimages - first < batch_size ? nimages - first : batch_size;
        if ((status = load_batch(image_paths + first, n, batch, &msg)) != CLX_OK) {
            fprintf(stderr, "api_example: error: %s\n", msg.text);
            goto done;
        }
        status = clx_plan_push(plan, batch, n);
        /* The pixels were copied by the push: free them now. */
        for (size_t i = 0; i < n; i++)
            clx_image_free(&batch[i]);
        if (status == CLX_OK)
            status = clx_plan_read(plan, results, n * nregions);
        if (status != CLX_OK) {
            fprintf(stderr, "api_example: error: %s (%s)\n", clx_context_message(ctx), clx_status_name(status));
            goto done;
        }
        if (first == 0)
            printf("image,region,x,y,dx,dy,flags\n");
        for (size_t i = 0; i < n; i++)
            print_rows(image_paths[first + i], regions, nregions, results + i * nregions);
    }
    if (fflush(stdout) != 0) {
        perror("api_example: error: standard output");
        goto done;
    }
    exit_status = 0;

done:
    /* 5. Plans before their context. */
    clx_plan_release(plan);
    clx_context_release(ctx);
    clx_image_free(&reference);
    free(regions);
    free(batch);
    free(results);
    return exit_status;
}
