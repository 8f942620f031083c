/*
 * stream.c - many images through several plans on one or more devices at
 * once (clx_stream_run, clx_stream_run_devices).
 *
 * One image's way through:
 *
 *   a loader thread claims image i for the open batch, a run of consecutive
 *   images held in one slot of pinned memory; when the open batch is full,
 *   the next loader opens batch seq + 1 in a free slot of the device that
 *   would finish it first (slot_choose) and fills its place there (the
 *   caller's load callback decodes and converts) ->
 *   a lane thread of that device takes the batch once all its images are in,
 *   pushes them straight from the pinned memory (clx_plan_push_pixels)
 *   through its own plan and queue, and reads the results into the slot ->
 *   the calling thread delivers the batches in seq order, image by image,
 *   and frees the slot.
 *
 * Each device has its own slots (lanes + 2, pinned in its own context, one
 * batch of its own plans' size each) and its own lanes: plans on clones of
 * its context (ctx_clone), each with its own in-order queue, so that one
 * lane's uploads and downloads overlap another's kernels. A device whose
 * lanes finish sooner frees its slots sooner and is given more batches: the
 * shared queue is drained by every device at its own speed.
 *
 * With pairs (plan options.pairs), each item is an image and its own
 * reference: a slot holds the batch's references beside its images, the
 * loader fills both, and the lane pushes them together
 * (clx_plan_push_pair_pixels).
 *
 * With several references (clx_stream_options.references), a batch ends
 * where the next image's reference differs from its first's, and a lane
 * sets its plan's reference to the batch's before pushing it whenever the
 * two differ.
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

#include "runtime/context.h"
#include "runtime/handle.h"
#include "runtime/profile.h"

/*
 * Lanes per GPU, in both modes. The seed mode waits for a batch once, and three lanes keep
 * an H100 busy (16,300 patterns/s against 15,600 with two and 14,600 with
 * four, ebsd-900). The accurate mode once waited twice per batch and took
 * eight (bench/results/gpu-lanes-results.txt); since IC-GN is enqueued by the
 * push it waits once, and on an H200 three lanes of 64-pattern batches run
 * 12,200-12,500 patterns/s against 7,900-9,800 for eight of 172 (three
 * interleaved rounds beside peer_cupy's 10,000-10,300; four lanes 11,800-
 * 12,600, eight 10,100-11,400 at batch 64; bench/gpu-accurate-sweep.sh,
 * bench/results/gpu-accurate-sweep-results.txt, issue 36). Fewer, smaller
 * slots also pin less host memory before the first image moves.
 */
#define DEFAULT_GPU_LANES 3
#define MAX_LOADERS 32
#define MAX_LANES 16            /* per device */
#define MAX_DEVICES 64

struct device {
    struct clx_context *ctx;    /* the caller's */
    int lanes;
    size_t batch;               /* its plans' batch size */
    size_t queued;              /* images in its slots not yet processed */
    size_t images;              /* images its lanes processed */
    double first_taken;         /* when a lane took its first batch (0: not yet) */
    double last_done;           /* when its last batch was processed */
    pthread_cond_t wake_lanes;  /* a batch of its became ready, or the run ends */
};

struct slot {
    int device;
    int used;                   /* holds a batch, from its opening to its delivery */
    size_t seq;                 /* the batch's number: batches are delivered in seq order */
    size_t first, size;         /* its images: first .. first + size - 1 */
    size_t reference;           /* with several references: its images' one */
    size_t claimed, loaded;     /* images claimed by loaders, and filled */
    int taken, done;            /* a lane took it; its results are in (or the lane failed) */
    size_t processed;           /* images the lane correlated */
    struct pinned pixels;       /* its device's batch x image, in the stream's pixel type */
    struct pinned references;   /* with pairs: the images' references, likewise */
    clx_result *results;
};

struct lane {
    struct stream *stream;
    int device;
    struct clx_context *ctx;
    clx_plan *plan;
    size_t reference;           /* with several references: its plan's (SIZE_MAX: the run's own) */
    pthread_t thread;
    int started;
};

struct stream {
    struct device *devices;
    size_t ndevices;
    size_t count, nregions;
    int width, height;
    clx_pixel_type type;
    size_t image_bytes;
    clx_stream_load_fn load;
    clx_stream_load_fn load_reference;  /* pairs: each item's reference; NULL: one reference */
    const clx_image *references;        /* several references, and each image's (NULL: one) */
    const size_t *reference_of;
    int (*cancelled)(void *user);
    int (*finish)(void *user, size_t index, const clx_result *results, size_t nregions, clx_message *msg);
    void *user;

    /*
     * One lock; each kind of thread waits on its own condition, signalled
     * only when what it waits for may have happened, so that tens of loader
     * threads claiming images one by one do not wake every lane each time.
     */
    pthread_mutex_t lock;
    pthread_cond_t wake_loaders;  /* a slot was freed, or a device measured */
    pthread_cond_t wake_delivery; /* a batch is done */
    struct slot *slots;
    size_t nslots;
    struct slot *open;          /* the batch loaders claim images for; NULL: open a new one */
    size_t next_image;          /* the next image a loader claims */
    size_t next_seq;            /* the next batch's number */
    size_t limit;               /* images from here on are not delivered (SIZE_MAX: no failure) */
    int status;
    char message[sizeof(clx_message)];
    int stopping;               /* the run ends: threads leave */

    struct lane *lanes;         /* device d's lanes are lanes[d * MAX_LANES ...] */
    const clx_plan **first_plans; /* each device's first lane's plan */
};

/* Wakes every thread: the limit moved, or the run ends. Locked. */
static void wake_all(struct stream *s)
{
    pthread_cond_broadcast(&s->wake_loaders);
    pthread_cond_broadcast(&s->wake_delivery);
    for (size_t d = 0; d < s->ndevices; d++)
        pthread_cond_broadcast(&s->devices[d].wake_lanes);
}

/* Records the first failure (the one at the lowest image wins). Locked. */
static void fail_at(struct stream *s, size_t image, int status, const char *text)
{
    if (image < s->limit) {
        s->limit = image;
        s->status = status;
        snprintf(s->message, sizeof s->message, "%s", text);
    }
    wake_all(s);
}

/* The first image not to process: the end, or the first failure. */
static size_t stream_end(const struct stream *s)
{
    return s->limit < s->count ? s->limit : s->count;
}

/* Images of a slot's batch that are to be processed: up to the end. */
static size_t slot_wanted(const struct stream *s, const struct slot *sl)
{
    size_t end = stream_end(s);
    if (end <= sl->first)
        return 0;
    return end - sl->first < sl->size ? end - sl->first : sl->size;
}

/* ---- loaders ------------------------------------------------------------- */

/* A device's speed in images/s from its processed batches; 0: none yet. */
static double device_rate(const struct device *d)
{
    double busy = d->last_done - d->first_taken;
    return d->images > 0 && busy > 0 ? d->images / busy : 0;
}

/*
 * The free slot for the next batch: on the device that would finish it
 * first, judged by its measured speed and the images already queued on it.
 * NULL when that device has no free slot yet: the loaders wait for it rather
 * than hand the batch to a slower device, which would hold up the in-order
 * delivery. Until every device is measured, the one with the most free
 * slots is chosen, so that the first batches go round the devices; once one
 * is measured, a device still unmeasured gets one batch at a time, so that
 * a slow one cannot hoard batches before its speed is known. Locked.
 */
static struct slot *slot_choose(struct stream *s)
{
    size_t free_slots[MAX_DEVICES] = { 0 };
    struct slot *free_slot[MAX_DEVICES] = { NULL };
    for (size_t k = 0; k < s->nslots; k++) {
        struct slot *sl = &s->slots[k];
        if (!sl->used) {
            free_slots[sl->device]++;
            free_slot[sl->device] = sl;
        }
    }
    int all_measured = 1, any_measured = 0;
    for (size_t d = 0; d < s->ndevices; d++) {
        int measured = device_rate(&s->devices[d]) > 0;
        all_measured &= measured;
        any_measured |= measured;
    }

    size_t best = SIZE_MAX;
    double best_finish = 0;
    for (size_t d = 0; d < s->ndevices; d++) {
        const struct device *dev = &s->devices[d];
        double rate = device_rate(dev);
        if (!all_measured) {
            if (rate == 0 && dev->queued > 0 && any_measured)
                continue;
            if (free_slots[d] > 0 && (best == SIZE_MAX || free_slots[d] > free_slots[best]))
                best = d;
            continue;
        }
        double finish = (double)(dev->queued + dev->batch) / rate;
        if (best == SIZE_MAX || finish < best_finish) {
            best = d;
            best_finish = finish;
        }
    }
    return best == SIZE_MAX ? NULL : free_slot[best];
}

/* Opens batch next_seq at image i in slot sl. Locked. */
static void batch_open(struct stream *s, struct slot *sl, size_t i)
{
    struct device *dev = &s->devices[sl->device];
    sl->used = 1;
    sl->seq = s->next_seq++;
    sl->first = i;
    sl->size = s->count - i < dev->batch ? s->count - i : dev->batch;
    if (s->references) {
        /* The batch ends before the first image of another reference. */
        sl->reference = s->reference_of[i];
        for (size_t k = 1; k < sl->size; k++)
            if (s->reference_of[i + k] != sl->reference) {
                sl->size = k;
                break;
            }
    }
    sl->claimed = sl->loaded = sl->processed = 0;
    sl->taken = sl->done = 0;
    dev->queued += sl->size;
    s->open = sl;
}

static void *loader_main(void *arg)
{
    struct stream *s = arg;
    clx_message msg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        size_t i = s->next_image;
        if (s->stopping || i >= stream_end(s))
            break;
        if (s->cancelled && s->cancelled(s->user)) {
            fail_at(s, i, CLX_ERR_CANCELLED, "interrupted");
            break;
        }
        struct slot *sl = s->open;
        if (!sl) {
            sl = slot_choose(s);
            if (!sl) {
                /* Wait for a delivery or a measurement to change the choice. */
                pthread_cond_wait(&s->wake_loaders, &s->lock);
                continue;
            }
            batch_open(s, sl, i);
        }
        s->next_image++;
        if (++sl->claimed == sl->size)
            s->open = NULL;
        if (s->next_image == stream_end(s))
            /* Lanes that wait for more batches may now stop. */
            for (size_t d = 0; d < s->ndevices; d++)
                pthread_cond_broadcast(&s->devices[d].wake_lanes);
        pthread_mutex_unlock(&s->lock);

        clx_image img = { 0 };
        img.width = s->width;
        img.height = s->height;
        img.type = s->type;
        msg_clear(&msg);
        int status = CLX_OK;
        if (s->load_reference) {
            img.pixels = (char *)sl->references.host + (i - sl->first) * s->image_bytes;
            status = s->load_reference(s->user, i, &img, &msg);
        }
        img.pixels = (char *)sl->pixels.host + (i - sl->first) * s->image_bytes;
        if (status == CLX_OK)
            status = s->load(s->user, i, &img, &msg);

        pthread_mutex_lock(&s->lock);
        if (status != CLX_OK)
            fail_at(s, i, status, msg.text[0] ? msg.text : "an image could not be loaded");
        sl->loaded++;
        if (sl->loaded == sl->claimed && sl->claimed >= slot_wanted(s, sl))
            pthread_cond_signal(&s->devices[sl->device].wake_lanes);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- lanes --------------------------------------------------------------- */

/* The device's batch with the lowest seq that no lane took yet and whose
 * wanted images are all filled; *pending: whether it has any untaken one. Locked. */
static struct slot *slot_ready(struct stream *s, int device, int *pending)
{
    struct slot *best = NULL;
    *pending = 0;
    for (size_t k = 0; k < s->nslots; k++) {
        struct slot *sl = &s->slots[k];
        if (sl->device != device || !sl->used || sl->taken)
            continue;
        *pending = 1;
        if (sl->claimed >= slot_wanted(s, sl) && sl->loaded == sl->claimed && (!best || sl->seq < best->seq))
            best = sl;
    }
    return best;
}

/* A device error as the caller sees it: with the device named when there are several. */
static void lane_message(const struct lane *lane, clx_message *msg)
{
    const struct stream *s = lane->stream;
    if (s->ndevices > 1)
        snprintf(msg->text, sizeof msg->text, "device %d (%s): %s", lane->device,
                 clx_context_device(lane->ctx)->name, clx_context_message(lane->ctx));
    else
        snprintf(msg->text, sizeof msg->text, "%s", clx_context_message(lane->ctx));
}

static void *lane_main(void *arg)
{
    struct lane *lane = arg;
    struct stream *s = lane->stream;
    struct device *dev = &s->devices[lane->device];
    pthread_mutex_lock(&s->lock);
    for (;;) {
        if (s->stopping)
            break;
        int pending;
        struct slot *sl = slot_ready(s, lane->device, &pending);
        if (!sl) {
            /* No batch will come to this device any more. */
            if (!pending && s->next_image >= stream_end(s))
                break;
            pthread_cond_wait(&dev->wake_lanes, &s->lock);
            continue;
        }
        sl->taken = 1;
        size_t n = slot_wanted(s, sl);
        if (dev->first_taken == 0)
            dev->first_taken = profile_seconds();
        pthread_mutex_unlock(&s->lock);

        /* Images of the batch that reach delivery: all n, none after a
         * device error, those before the first one `finish` refuses. */
        size_t ok = 0;
        int status = CLX_OK;
        clx_message msg;
        msg_clear(&msg);
        if (n > 0 && s->references && sl->reference != lane->reference) {
            status = clx_plan_set_reference(lane->plan, &s->references[sl->reference]);
            lane->reference = status == CLX_OK ? sl->reference : SIZE_MAX;
        }
        if (n > 0 && status == CLX_OK) {
            status = s->load_reference
                         ? clx_plan_push_pair_pixels(lane->plan, sl->references.host, sl->pixels.host, s->type, n)
                         : clx_plan_push_pixels(lane->plan, sl->pixels.host, s->type, n);
            if (status == CLX_OK)
                status = clx_plan_read(lane->plan, sl->results, n * s->nregions);
        }
        if (status != CLX_OK)
            lane_message(lane, &msg);
        while (status == CLX_OK && ok < n) {
            if (s->finish &&
                (status = s->finish(s->user, sl->first + ok, sl->results + ok * s->nregions, s->nregions, &msg)) !=
                    CLX_OK)
                break;
            ok++;
        }

        pthread_mutex_lock(&s->lock);
        if (status != CLX_OK)
            fail_at(s, sl->first + ok, status, msg.text[0] ? msg.text : "an image's results were refused");
        sl->processed = ok;
        sl->done = 1;
        dev->queued -= sl->size;
        dev->images += ok;
        dev->last_done = profile_seconds();
        pthread_cond_signal(&s->wake_delivery);
        pthread_cond_broadcast(&s->wake_loaders);
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

/* The lane's context and plan; a failure's message goes to the first device's context. */
static int lane_open(struct stream *s, struct lane *lane, int device, const clx_image *reference,
                     const clx_region *regions, const clx_plan_options *o)
{
    lane->stream = s;
    lane->device = device;
    lane->reference = SIZE_MAX;
    int status = ctx_clone(s->devices[device].ctx, &lane->ctx);
    if (status != CLX_OK)
        return ctx_fail(s->devices[0].ctx, status, "%s", clx_context_message(s->devices[device].ctx));
    if ((status = clx_plan_create(lane->ctx, reference, regions, s->nregions, o, &lane->plan)) != CLX_OK) {
        clx_message msg;
        lane_message(lane, &msg);
        ctx_fail(s->devices[0].ctx, status, "%s", msg.text);
    }
    return status;
}

/*
 * A device's lanes, one plan after the other: the first chooses the method
 * (measuring, when auto) and the batch for this device, the others take its
 * choices so that every image on it goes the same way. No more lanes than
 * batches: a short run gains nothing from the rest.
 */
static int device_open_lanes(struct stream *s, size_t d, struct lane *lanes, const clx_image *reference,
                             const clx_region *regions, const clx_plan_options *popt)
{
    struct device *dev = &s->devices[d];
    clx_plan_options o = *popt;
    if (o.expected_images == 0)
        o.expected_images = (s->count + s->ndevices - 1) / s->ndevices;
    o.plans_sharing_device = dev->lanes;
    int status = lane_open(s, &lanes[0], (int)d, reference, regions, &o);
    if (status != CLX_OK)
        return status;
    dev->batch = (size_t)clx_plan_batch_size(lanes[0].plan);
    size_t batches = (s->count + dev->batch - 1) / dev->batch;
    if ((size_t)dev->lanes > batches)
        dev->lanes = (int)batches;
    o.method = clx_plan_method(lanes[0].plan);
    o.batch = (int)dev->batch;
    for (int l = 1; l < dev->lanes && status == CLX_OK; l++)
        status = lane_open(s, &lanes[l], (int)d, reference, regions, &o);
    return status;
}

/* lanes + 2 slots per device: the loaders can fill two batches ahead of its lanes. */
static int slots_create(struct stream *s)
{
    s->nslots = 0;
    for (size_t d = 0; d < s->ndevices; d++)
        s->nslots += (size_t)s->devices[d].lanes + 2;
    s->slots = calloc(s->nslots, sizeof *s->slots);
    if (!s->slots)
        return ctx_fail(s->devices[0].ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    size_t k = 0;
    for (size_t d = 0; d < s->ndevices; d++) {
        struct device *dev = &s->devices[d];
        for (int n = 0; n < dev->lanes + 2; n++, k++) {
            struct slot *sl = &s->slots[k];
            sl->device = (int)d;
            int status = ctx_pinned_alloc(dev->ctx, s->image_bytes * dev->batch, &sl->pixels, "images in flight");
            if (status == CLX_OK && s->load_reference)
                status = ctx_pinned_alloc(dev->ctx, s->image_bytes * dev->batch, &sl->references,
                                          "references in flight");
            if (status != CLX_OK)
                return ctx_fail(s->devices[0].ctx, status, "%s", clx_context_message(dev->ctx));
            sl->results = malloc(sizeof *sl->results * dev->batch * s->nregions);
            if (!sl->results)
                return ctx_fail(s->devices[0].ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
        }
    }
    return CLX_OK;
}

static void slots_free(struct stream *s)
{
    for (size_t k = 0; s->slots && k < s->nslots; k++) {
        ctx_pinned_free(s->devices[s->slots[k].device].ctx, &s->slots[k].pixels);
        ctx_pinned_free(s->devices[s->slots[k].device].ctx, &s->slots[k].references);
        free(s->slots[k].results);
    }
    free(s->slots);
}

/* ---- the run ------------------------------------------------------------- */

/* The slot of batch seq, if it is open. Locked. */
static struct slot *slot_of_batch(struct stream *s, size_t seq)
{
    for (size_t k = 0; k < s->nslots; k++)
        if (s->slots[k].used && s->slots[k].seq == seq)
            return &s->slots[k];
    return NULL;
}

/* Delivers the batches in seq order, that is in input order, until the end
 * or the limit. Runs in the calling thread while loaders and lanes work. */
static void deliver_all(struct stream *s, const clx_stream_options *so, clx_stream_deliver_fn deliver,
                        size_t *delivered)
{
    clx_message msg;
    size_t next = 0;            /* the first image of the next batch to deliver */
    pthread_mutex_lock(&s->lock);
    for (size_t seq = 0; next < stream_end(s);) {
        struct slot *sl = slot_of_batch(s, seq);
        if (!sl || !sl->done) {
            pthread_cond_wait(&s->wake_delivery, &s->lock);
            continue;
        }
        size_t n = sl->processed;
        pthread_mutex_unlock(&s->lock);

        int status = CLX_OK;
        size_t k = 0;
        for (; k < n && status == CLX_OK; k++) {
            msg_clear(&msg);
            status = deliver(s->user, sl->first + k, sl->results + k * s->nregions, s->nregions, &msg);
            if (status == CLX_OK)
                (*delivered)++;
        }
        if (so->progress)
            so->progress(s->user, *delivered, s->count);

        pthread_mutex_lock(&s->lock);
        if (status != CLX_OK)
            fail_at(s, sl->first + k - 1, status, msg.text[0] ? msg.text : "delivery refused");
        next = sl->first + sl->size;
        seq++;
        sl->used = 0;
        pthread_cond_broadcast(&s->wake_loaders);
    }
    s->stopping = 1;
    wake_all(s);
    pthread_mutex_unlock(&s->lock);
}

/* Starts the threads, delivers, and waits for the threads to end. */
static void stream_work(struct stream *s, struct lane *lanes, int nlanes, int nloaders,
                        const clx_stream_options *sopt, clx_stream_deliver_fn deliver, size_t *delivered)
{
    pthread_t loaders[MAX_LOADERS];
    int nloaders_started = 0, nlanes_started = 0;
    for (int l = 0; l < nlanes; l++)
        if (pthread_create(&lanes[l].thread, NULL, lane_main, &lanes[l]) == 0) {
            lanes[l].started = 1;
            nlanes_started++;
        }
    for (; nloaders_started < nloaders; nloaders_started++)
        if (pthread_create(&loaders[nloaders_started], NULL, loader_main, s) != 0)
            break;
    if (nlanes_started < nlanes || nloaders_started == 0) {
        pthread_mutex_lock(&s->lock);
        fail_at(s, 0, CLX_ERR_HOST_MEMORY, "cannot start the stream's threads");
        s->stopping = 1;
        wake_all(s);
        pthread_mutex_unlock(&s->lock);
    } else {
        deliver_all(s, sopt, deliver, delivered);
    }
    for (int k = 0; k < nloaders_started; k++)
        pthread_join(loaders[k], NULL);
    for (int l = 0; l < nlanes; l++)
        if (lanes[l].started)
            pthread_join(lanes[l].thread, NULL);
}

/* The arguments clx_stream_run_devices refuses before it starts anything. */
static int check_arguments(clx_context *const *contexts, size_t ndevices, const clx_image *reference,
                           const clx_region *regions, const clx_plan_options *popt, const clx_stream_options *sopt,
                           int nloaders, clx_stream_load_fn load, clx_stream_deliver_fn deliver)
{
    int status;
    if (!contexts || ndevices == 0)
        return CLX_ERR_ARGUMENT;
    for (size_t d = 0; d < ndevices; d++)
        if ((status = handle_check(contexts[d], HANDLE_CONTEXT)) != CLX_OK)
            return status;
    clx_context *ctx = contexts[0];
    msg_clear(&ctx->message);
    if (!reference || !regions || !load || !deliver)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_stream_run: NULL argument");
    if (ndevices > MAX_DEVICES)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "%zu devices: at most %d", ndevices, MAX_DEVICES);
    if (!sopt->load_reference != !popt->pairs)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, popt->pairs ? "a stream of pairs needs load_reference"
                                                           : "load_reference is for plans made with pairs");
    if (sopt->reference_count > 0) {
        if (popt->pairs)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "several references are not for plans made with pairs");
        if (!sopt->references || !sopt->reference_of)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "several references: NULL references or reference_of");
        for (size_t k = 0; k < sopt->reference_count; k++)
            if (sopt->references[k].width != reference->width || sopt->references[k].height != reference->height ||
                sopt->references[k].type != reference->type || !sopt->references[k].pixels)
                return ctx_fail(ctx, CLX_ERR_SIZE, "reference %zu is %dx%d pixels of type %d, where the run's is "
                                "%dx%d of type %d", k, sopt->references[k].width, sopt->references[k].height,
                                (int)sopt->references[k].type, reference->width, reference->height,
                                (int)reference->type);
    }
    if (sopt->lanes > MAX_LANES || nloaders > MAX_LOADERS)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "%d lanes and %d loader threads: at most %d and %d", sopt->lanes,
                        nloaders, MAX_LANES, MAX_LOADERS);
    return CLX_OK;
}

/* The stream's shared state, before any device is opened. */
static int stream_init(struct stream *s, size_t ndevices, const clx_image *reference, size_t nregions, size_t count,
                       clx_stream_load_fn load, const clx_stream_options *sopt, void *user)
{
    memset(s, 0, sizeof *s);
    s->ndevices = ndevices;
    s->count = count;
    s->limit = SIZE_MAX;
    s->nregions = nregions;
    s->width = reference->width;
    s->height = reference->height;
    s->type = reference->type == CLX_PIXEL_F32 ? CLX_PIXEL_F32 : CLX_PIXEL_U16;
    s->image_bytes = (size_t)s->width * s->height * clx_pixel_size(s->type);
    s->load = load;
    s->load_reference = sopt->load_reference;
    if (sopt->reference_count > 0) {
        s->references = sopt->references;
        s->reference_of = sopt->reference_of;
    }
    s->cancelled = sopt->cancelled;
    s->finish = sopt->finish;
    s->user = user;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake_loaders, NULL);
    pthread_cond_init(&s->wake_delivery, NULL);
    s->devices = calloc(ndevices, sizeof *s->devices);
    s->lanes = calloc(ndevices * MAX_LANES, sizeof *s->lanes);
    s->first_plans = calloc(ndevices, sizeof *s->first_plans);
    if (!s->devices || !s->lanes || !s->first_plans)
        return CLX_ERR_HOST_MEMORY;
    for (size_t d = 0; d < ndevices; d++)
        pthread_cond_init(&s->devices[d].wake_lanes, NULL);
    return CLX_OK;
}

static void stream_free(struct stream *s)
{
    slots_free(s);
    for (size_t l = 0; s->lanes && l < s->ndevices * MAX_LANES; l++) {
        clx_plan_release(s->lanes[l].plan);
        clx_context_release(s->lanes[l].ctx);
    }
    free(s->lanes);
    free(s->first_plans);
    for (size_t d = 0; s->devices && d < s->ndevices; d++)
        pthread_cond_destroy(&s->devices[d].wake_lanes);
    free(s->devices);
    pthread_cond_destroy(&s->wake_loaders);
    pthread_cond_destroy(&s->wake_delivery);
    pthread_mutex_destroy(&s->lock);
}

/* Every device's lanes (kept device by device: device d's are lanes[d *
 * MAX_LANES ...]), then the slots; *nlanes counts the lanes opened. */
static int open_all_devices(struct stream *s, clx_context *const *contexts, const clx_image *reference,
                            const clx_region *regions, const clx_plan_options *popt,
                            const clx_stream_options *sopt, int *nlanes)
{
    int status = CLX_OK;
    *nlanes = 0;
    for (size_t d = 0; d < s->ndevices && status == CLX_OK; d++) {
        struct device *dev = &s->devices[d];
        dev->ctx = contexts[d];
        dev->lanes = sopt->lanes > 0 ? sopt->lanes : dev->ctx->dev.info.type == CLX_DEVICE_GPU ? DEFAULT_GPU_LANES : 1;
        status = device_open_lanes(s, d, &s->lanes[d * MAX_LANES], reference, regions, popt);
        s->first_plans[d] = s->lanes[d * MAX_LANES].plan;
        *nlanes += dev->lanes;
    }
    return status == CLX_OK ? slots_create(s) : status;
}

/* The caller's started callback: the plans are ready, the images not yet read. */
static int report_started(struct stream *s, const clx_stream_options *sopt, int nlanes)
{
    clx_stream_info info;
    clx_message msg;
    if (!sopt->started)
        return CLX_OK;
    info.plan = s->first_plans[0];
    info.device_plans = s->first_plans;
    info.devices = s->ndevices;
    info.lanes = nlanes;
    info.images_in_flight = 0;
    for (size_t k = 0; k < s->nslots; k++)
        info.images_in_flight += s->devices[s->slots[k].device].batch;
    msg_clear(&msg);
    int status = sopt->started(s->user, &info, &msg);
    return status == CLX_OK ? CLX_OK : ctx_fail(s->devices[0].ctx, status, "%s", msg.text);
}

/* The lanes that were opened, packed for their threads, at work until the end. */
static int run_lanes(struct stream *s, int nlanes, int nloaders, const clx_stream_options *sopt,
                     clx_stream_deliver_fn deliver, size_t *delivered)
{
    struct lane *packed = calloc((size_t)nlanes, sizeof *packed);
    if (!packed)
        return ctx_fail(s->devices[0].ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    int n = 0;
    for (size_t d = 0; d < s->ndevices; d++)
        for (int l = 0; l < s->devices[d].lanes; l++)
            packed[n++] = s->lanes[d * MAX_LANES + l];
    stream_work(s, packed, nlanes, nloaders, sopt, deliver, delivered);
    free(packed);
    if (sopt->device_images)
        for (size_t d = 0; d < s->ndevices; d++)
            sopt->device_images[d] = s->devices[d].images;
    return s->limit != SIZE_MAX ? ctx_fail(s->devices[0].ctx, s->status, "%s", s->message) : CLX_OK;
}

int clx_stream_run_devices(clx_context *const *contexts, size_t ndevices, const clx_image *reference,
                           const clx_region *regions, size_t nregions, const clx_plan_options *popt,
                           const clx_stream_options *sopt, size_t count, clx_stream_load_fn load,
                           clx_stream_deliver_fn deliver, void *user, size_t *delivered_out)
{
    clx_stream_options defaults_s;
    clx_plan_options defaults_p;
    size_t delivered = 0;
    struct stream s;
    int nlanes, status;

    if (!sopt) {
        clx_stream_options_init(&defaults_s);
        sopt = &defaults_s;
    }
    if (!popt) {
        clx_plan_options_init(&defaults_p);
        popt = &defaults_p;
    }
    int nloaders = sopt->loaders > 0 ? sopt->loaders : default_loaders();
    if (delivered_out)
        *delivered_out = 0;
    if ((status = check_arguments(contexts, ndevices, reference, regions, popt, sopt, nloaders, load, deliver)) !=
        CLX_OK)
        return status;
    if (sopt->device_images)
        memset(sopt->device_images, 0, sizeof *sopt->device_images * ndevices);
    if (count == 0)
        return CLX_OK;

    if (stream_init(&s, ndevices, reference, nregions, count, load, sopt, user) != CLX_OK)
        status = ctx_fail(contexts[0], CLX_ERR_HOST_MEMORY, "out of host memory");
    else if ((status = open_all_devices(&s, contexts, reference, regions, popt, sopt, &nlanes)) == CLX_OK &&
             (status = report_started(&s, sopt, nlanes)) == CLX_OK)
        status = run_lanes(&s, nlanes, nloaders, sopt, deliver, &delivered);
    stream_free(&s);
    if (delivered_out)
        *delivered_out = delivered;
    return status;
}

int clx_stream_run(clx_context *ctx, const clx_image *reference, const clx_region *regions, size_t nregions,
                   const clx_plan_options *popt, const clx_stream_options *sopt, size_t count,
                   clx_stream_load_fn load, clx_stream_deliver_fn deliver, void *user, size_t *delivered_out)
{
    return clx_stream_run_devices(&ctx, 1, reference, regions, nregions, popt, sopt, count, load, deliver, user,
                                  delivered_out);
}
