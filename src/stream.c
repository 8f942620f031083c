/*
 * stream.c - many images through several plans at once (clx_stream_run).
 *
 * One image's way through:
 *
 *   a loader thread claims image i, which belongs to batch b = i / batch,
 *   kept in slot b % nslots; it fills its place in the slot's pinned memory
 *   (the caller's load callback decodes and converts) ->
 *   a lane thread takes batch b once all its images are in, pushes them
 *   straight from the pinned memory (clx_plan_push_pixels) through its own
 *   plan and queue, and reads the results into the slot ->
 *   the calling thread delivers batch b's results image by image, in input
 *   order, and hands the slot over to batch b + nslots.
 *
 * Lanes are plans on clones of the caller's context (ctx_clone): each has
 * its own in-order queue, so the device overlaps one lane's uploads and
 * downloads with another's kernels. With lanes + 2 slots the loaders can fill
 * two batches ahead of the lanes.
 *
 * A failure (an image that does not load, a lane's device error, a delivery
 * the caller refuses) sets `limit`, the first image not to deliver: loaders
 * claim nothing from there on, lanes push only the images before it, and
 * the run ends once everything before it was delivered.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "handle.h"
#include "plan.h"

#define DEFAULT_GPU_LANES 3
#define MAX_LOADERS 32
#define MAX_LANES 16

struct slot {
    size_t batch;               /* the batch it holds now */
    size_t claimed, loaded;     /* images of it claimed by loaders, and filled */
    int done;                   /* its results are in (or its lane failed) */
    size_t processed;           /* images its lane correlated */
    struct pinned pixels;       /* batch x image, in the stream's pixel type */
    clx_result *results;
};

struct lane {
    struct stream *stream;
    struct clx_context *ctx;
    clx_plan *plan;
    pthread_t thread;
    int started;
};

struct stream {
    struct clx_context *ctx;
    size_t count, batch, nregions;
    int width, height;
    clx_pixel_type type;
    size_t image_bytes;
    clx_stream_load_fn load;
    int (*finish)(void *user, size_t index, const clx_result *results, size_t nregions, clx_message *msg);
    void *user;

    pthread_mutex_t lock;
    pthread_cond_t changed;     /* any slot's state, `limit` or `next_*` moved */
    struct slot *slots;
    size_t nslots;
    size_t next_image;          /* the next image a loader claims */
    size_t next_lane_batch;     /* the next batch a lane takes */
    size_t limit;               /* images from here on are not delivered (SIZE_MAX: no failure) */
    int status;
    char message[sizeof(clx_message)];
    int stopping;               /* the run ends: threads leave */
};

/* Records the first failure (the one at the lowest image wins). Locked. */
static void fail_at(struct stream *s, size_t image, int status, const char *text)
{
    if (image < s->limit) {
        s->limit = image;
        s->status = status;
        snprintf(s->message, sizeof s->message, "%s", text);
    }
    pthread_cond_broadcast(&s->changed);
}

static size_t batch_first(const struct stream *s, size_t b)
{
    return b * s->batch;
}

/* Images of batch b that are to be processed: up to the end or the limit. */
static size_t batch_wanted(const struct stream *s, size_t b)
{
    size_t first = batch_first(s, b), end = s->limit < s->count ? s->limit : s->count;
    if (end <= first)
        return 0;
    return end - first < s->batch ? end - first : s->batch;
}

static struct slot *slot_of(struct stream *s, size_t b)
{
    return &s->slots[b % s->nslots];
}

/* ---- loaders ------------------------------------------------------------- */

static void *loader_main(void *arg)
{
    struct stream *s = arg;
    clx_message msg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        size_t i = s->next_image;
        if (s->stopping || i >= s->limit || i >= s->count)
            break;
        size_t b = i / s->batch;
        struct slot *sl = slot_of(s, b);
        if (sl->batch != b) {
            /* Its slot still holds an earlier batch: wait for the delivery. */
            pthread_cond_wait(&s->changed, &s->lock);
            continue;
        }
        s->next_image++;
        sl->claimed++;
        pthread_mutex_unlock(&s->lock);

        clx_image img = { 0 };
        img.width = s->width;
        img.height = s->height;
        img.type = s->type;
        img.pixels = (char *)sl->pixels.host + (i - batch_first(s, b)) * s->image_bytes;
        msg_clear(&msg);
        int status = s->load(s->user, i, &img, &msg);

        pthread_mutex_lock(&s->lock);
        if (status != CLX_OK)
            fail_at(s, i, status, msg.text[0] ? msg.text : "an image could not be loaded");
        sl->loaded++;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- lanes --------------------------------------------------------------- */

/* Whether batch b's wanted images are all filled. Locked. */
static int batch_ready(struct stream *s, size_t b)
{
    struct slot *sl = slot_of(s, b);
    size_t wanted = batch_wanted(s, b);
    return sl->batch == b && sl->claimed >= wanted && sl->loaded == sl->claimed;
}

static void *lane_main(void *arg)
{
    struct lane *lane = arg;
    struct stream *s = lane->stream;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        size_t b = s->next_lane_batch;
        if (s->stopping || batch_first(s, b) >= s->limit || batch_first(s, b) >= s->count)
            break;
        s->next_lane_batch++;
        while (!s->stopping && !batch_ready(s, b))
            pthread_cond_wait(&s->changed, &s->lock);
        if (s->stopping)
            break;
        struct slot *sl = slot_of(s, b);
        size_t n = batch_wanted(s, b);
        pthread_mutex_unlock(&s->lock);

        /* Images of the batch that reach delivery: all n, none after a
         * device error, those before the first one `finish` refuses. */
        size_t ok = 0;
        int status = CLX_OK;
        clx_message msg;
        msg_clear(&msg);
        if (n > 0) {
            status = clx_plan_push_pixels(lane->plan, sl->pixels.host, s->type, n);
            if (status == CLX_OK)
                status = clx_plan_read(lane->plan, sl->results, n * s->nregions);
            if (status != CLX_OK)
                snprintf(msg.text, sizeof msg.text, "%s", clx_context_message(lane->ctx));
        }
        while (status == CLX_OK && ok < n) {
            if (s->finish &&
                (status = s->finish(s->user, batch_first(s, b) + ok, sl->results + ok * s->nregions, s->nregions,
                                    &msg)) != CLX_OK)
                break;
            ok++;
        }

        pthread_mutex_lock(&s->lock);
        if (status != CLX_OK)
            fail_at(s, batch_first(s, b) + ok, status, msg.text[0] ? msg.text : "an image's results were refused");
        sl->processed = ok;
        sl->done = 1;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- set-up -------------------------------------------------------------- */

static int default_loaders(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > MAX_LOADERS ? MAX_LOADERS : (int)cores;
}

void clx_stream_options_init(clx_stream_options *o)
{
    memset(o, 0, sizeof *o);
    /* Filled in, so that a caller can report how many run. */
    o->loaders = default_loaders();
}

/* The lane's context and plan; a failure's message goes to the caller's context. */
static int lane_open(struct stream *s, struct lane *lane, const clx_image *reference, const clx_region *regions,
                     const clx_plan_options *o)
{
    lane->stream = s;
    int status = ctx_clone(s->ctx, &lane->ctx);
    if (status == CLX_OK && (status = clx_plan_create(lane->ctx, reference, regions, s->nregions, o,
                                                      &lane->plan)) != CLX_OK)
        ctx_fail(s->ctx, status, "%s", clx_context_message(lane->ctx));
    return status;
}

static int slots_create(struct stream *s)
{
    for (size_t k = 0; k < s->nslots; k++) {
        struct slot *sl = &s->slots[k];
        sl->batch = k;
        int status = ctx_pinned_alloc(s->ctx, s->image_bytes * s->batch, &sl->pixels, "images in flight");
        if (status != CLX_OK)
            return status;
        sl->results = malloc(sizeof *sl->results * s->batch * s->nregions);
        if (!sl->results)
            return ctx_fail(s->ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    }
    return CLX_OK;
}

/* ---- the run ------------------------------------------------------------- */

/* Delivers the batches in order until the end or the limit. Runs in the
 * calling thread while loaders and lanes work. */
static void deliver_all(struct stream *s, const clx_stream_options *so, clx_stream_deliver_fn deliver,
                        size_t *delivered)
{
    clx_message msg;
    pthread_mutex_lock(&s->lock);
    for (size_t b = 0; batch_first(s, b) < s->count && batch_first(s, b) < s->limit; b++) {
        struct slot *sl = slot_of(s, b);
        /* A failure before it (limit) means no lane may ever take it. */
        while (!(sl->batch == b && sl->done) && batch_first(s, b) < s->limit)
            pthread_cond_wait(&s->changed, &s->lock);
        if (!(sl->batch == b && sl->done))
            break;
        size_t n = sl->processed;
        pthread_mutex_unlock(&s->lock);

        int status = CLX_OK;
        size_t k = 0;
        for (; k < n && status == CLX_OK; k++) {
            msg_clear(&msg);
            status = deliver(s->user, batch_first(s, b) + k, sl->results + k * s->nregions, s->nregions, &msg);
            if (status == CLX_OK)
                (*delivered)++;
        }
        if (so->progress)
            so->progress(s->user, *delivered, s->count);

        pthread_mutex_lock(&s->lock);
        if (status != CLX_OK)
            fail_at(s, batch_first(s, b) + k - 1, status, msg.text[0] ? msg.text : "delivery refused");
        /* The slot takes its next batch. */
        sl->batch = b + s->nslots;
        sl->claimed = sl->loaded = sl->processed = 0;
        sl->done = 0;
        pthread_cond_broadcast(&s->changed);
    }
    s->stopping = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

int clx_stream_run(clx_context *ctx, const clx_image *reference, const clx_region *regions, size_t nregions,
                   const clx_plan_options *popt, const clx_stream_options *sopt, size_t count,
                   clx_stream_load_fn load, clx_stream_deliver_fn deliver, void *user, size_t *delivered_out)
{
    clx_stream_options defaults_s;
    clx_plan_options defaults_p;
    struct lane lanes[MAX_LANES];
    pthread_t loaders[MAX_LOADERS];
    int nloaders_started = 0, status = CLX_OK;
    size_t delivered = 0;

    if ((status = handle_check(ctx, HANDLE_CONTEXT)) != CLX_OK)
        return status;
    msg_clear(&ctx->message);
    if (delivered_out)
        *delivered_out = 0;
    if (!reference || !regions || !load || !deliver)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_stream_run: NULL argument");
    if (!sopt) {
        clx_stream_options_init(&defaults_s);
        sopt = &defaults_s;
    }
    if (!popt) {
        clx_plan_options_init(&defaults_p);
        popt = &defaults_p;
    }
    int nlanes = sopt->lanes > 0 ? sopt->lanes : ctx->dev.info.type == CLX_DEVICE_GPU ? DEFAULT_GPU_LANES : 1;
    int nloaders = sopt->loaders > 0 ? sopt->loaders : default_loaders();
    if (nlanes > MAX_LANES || nloaders > MAX_LOADERS)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "%d lanes and %d loader threads: at most %d and %d", nlanes,
                        nloaders, MAX_LANES, MAX_LOADERS);
    if (count == 0)
        return CLX_OK;

    struct stream s;
    memset(&s, 0, sizeof s);
    memset(lanes, 0, sizeof lanes);
    s.ctx = ctx;
    s.count = count;
    s.limit = SIZE_MAX;
    s.nregions = nregions;
    s.width = reference->width;
    s.height = reference->height;
    s.type = reference->type == CLX_PIXEL_F32 ? CLX_PIXEL_F32 : CLX_PIXEL_U16;
    s.image_bytes = (size_t)s.width * s.height * clx_pixel_size(s.type);
    s.load = load;
    s.finish = sopt->finish;
    s.user = user;
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.changed, NULL);

    /*
     * The lanes' plans, one after the other: the first chooses the method
     * (measuring, when auto) and the batch, the others take its choices so
     * that every image goes the same way. No more lanes than batches: a
     * short run gains nothing from the rest.
     */
    clx_plan_options first = *popt;
    if (first.expected_images == 0)
        first.expected_images = count;
    first.plans_sharing_device = nlanes;
    for (int l = 0; l < nlanes && status == CLX_OK; l++) {
        status = lane_open(&s, &lanes[l], reference, regions, &first);
        if (status == CLX_OK && l == 0) {
            int batch = clx_plan_batch_size(lanes[0].plan);
            size_t batches = (count + (size_t)batch - 1) / (size_t)batch;
            if ((size_t)nlanes > batches)
                nlanes = (int)batches;
            first.method = clx_plan_method(lanes[0].plan);
            first.batch = batch;
        }
    }
    if (status != CLX_OK)
        goto done;
    s.batch = (size_t)clx_plan_batch_size(lanes[0].plan);
    s.nslots = (size_t)nlanes + 2;
    s.slots = calloc(s.nslots, sizeof *s.slots);
    if (!s.slots) {
        status = ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
        goto done;
    }
    if ((status = slots_create(&s)) != CLX_OK)
        goto done;
    if (sopt->started) {
        clx_message msg;
        msg_clear(&msg);
        if ((status = sopt->started(user, lanes[0].plan, nlanes, &msg)) != CLX_OK) {
            ctx_fail(ctx, status, "%s", msg.text);
            goto done;
        }
    }

    for (int l = 0; l < nlanes; l++) {
        if (pthread_create(&lanes[l].thread, NULL, lane_main, &lanes[l]) != 0)
            break;
        lanes[l].started = 1;
    }
    for (; nloaders_started < nloaders; nloaders_started++)
        if (pthread_create(&loaders[nloaders_started], NULL, loader_main, &s) != 0)
            break;
    if (!lanes[0].started || nloaders_started == 0) {
        pthread_mutex_lock(&s.lock);
        fail_at(&s, 0, CLX_ERR_HOST_MEMORY, "cannot start the stream's threads");
        s.stopping = 1;
        pthread_cond_broadcast(&s.changed);
        pthread_mutex_unlock(&s.lock);
    } else {
        deliver_all(&s, sopt, deliver, &delivered);
    }
    for (int k = 0; k < nloaders_started; k++)
        pthread_join(loaders[k], NULL);
    for (int l = 0; l < nlanes; l++)
        if (lanes[l].started)
            pthread_join(lanes[l].thread, NULL);
    if (s.limit != SIZE_MAX)
        status = ctx_fail(ctx, s.status, "%s", s.message);

done:
    for (size_t k = 0; s.slots && k < s.nslots; k++) {
        ctx_pinned_free(ctx, &s.slots[k].pixels);
        free(s.slots[k].results);
    }
    free(s.slots);
    for (int l = 0; l < MAX_LANES; l++) {
        clx_plan_release(lanes[l].plan);
        clx_context_release(lanes[l].ctx);
    }
    pthread_cond_destroy(&s.changed);
    pthread_mutex_destroy(&s.lock);
    if (delivered_out)
        *delivered_out = delivered;
    return status;
}
