/* mpi_ranks.c - `clxcorr offsets` across MPI ranks; see mpi_ranks.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mpi_ranks.h"
#include "report.h"

#define MAX_CHUNK_IMAGES 512
#define CHUNK_ROW_BYTES (16u << 20)
#define ROW_BYTES_GUESS 100         /* a row of the CSV, roughly */

/* ---- the split (no MPI calls) ---------------------------------------------- */

void mpi_split_init(struct mpi_split *s, size_t count, size_t region_count)
{
    memset(s, 0, sizeof *s);
    s->count = count;
    s->failed_rank = -1;
    s->rank = mpi_rank();
    s->size = mpi_size();
    size_t chunk = (count + (size_t)s->size - 1) / (size_t)s->size;
    size_t by_bytes = CHUNK_ROW_BYTES / (ROW_BYTES_GUESS * (region_count > 0 ? region_count : 1));
    if (chunk > MAX_CHUNK_IMAGES)
        chunk = MAX_CHUNK_IMAGES;
    if (chunk > by_bytes)
        chunk = by_bytes;
    s->chunk = chunk > 0 ? chunk : 1;
    s->nchunks = (count + s->chunk - 1) / s->chunk;
}

void mpi_split_free(struct mpi_split *s)
{
    csv_text_free(&s->pending);
}

size_t mpi_split_local_count(const struct mpi_split *s)
{
    size_t r = (size_t)s->rank, n = (size_t)s->size;
    if (s->nchunks <= r)
        return 0;
    size_t chunks = (s->nchunks - 1 - r) / n + 1;
    size_t images = chunks * s->chunk;
    /* The run's last chunk may be short. */
    if ((s->nchunks - 1) % n == r)
        images -= s->nchunks * s->chunk - s->count;
    return images;
}

size_t mpi_split_global(const struct mpi_split *s, size_t local)
{
    size_t k = (size_t)s->rank + local / s->chunk * (size_t)s->size;
    return k * s->chunk + local % s->chunk;
}

/* Whether image `global` is the last of its chunk. */
static int chunk_ends_at(const struct mpi_split *s, size_t global)
{
    return (global + 1) % s->chunk == 0 || global + 1 == s->count;
}

static int receive_chunk(struct mpi_split *s, struct csv_output *out, clx_message *msg);

int mpi_split_write_others(struct mpi_split *s, size_t end, struct csv_output *out, clx_message *msg)
{
    while (s->next_chunk < s->nchunks && s->next_chunk * s->chunk < end && s->next_chunk % (size_t)s->size != 0) {
        int status = receive_chunk(s, out, msg);
        if (status != CLX_OK)
            return status;
    }
    return CLX_OK;
}

int mpi_split_write_own(struct mpi_split *s, size_t global, const struct csv_text *rows, struct csv_output *out,
                        clx_message *msg)
{
    int status = mpi_split_write_others(s, global, out, msg);
    if (status == CLX_OK)
        status = csv_output_write(out, rows, msg);
    if (status != CLX_OK)
        return status;
    s->written++;
    if (chunk_ends_at(s, global))
        s->next_chunk = global / s->chunk + 1;
    return CLX_OK;
}

#ifdef HAVE_MPI

#include <mpi.h>

enum { TAG_AGREE = 1, TAG_CHUNK_HEADER, TAG_CHUNK_ROWS };

/* This process's place among the ranks: static, as MPI_Init's state is
 * one per process. */
static struct {
    int active;
    int rank, size, local_rank;
    char host[MPI_MAX_PROCESSOR_NAME];
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
} world = { 0, 0, 1, 0, "", "" };

/* Set by the launchers of Open MPI, MPICH (Hydra), and Slurm's srun with PMI or PMIx. */
static int started_by_launcher(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", NULL };
    for (int i = 0; vars[i]; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

int mpi_start(int *argc, char ***argv)
{
    if (!started_by_launcher())
        return 0;
    int provided;
    /* Only the thread that calls clx_stream_run (and delivers) calls MPI. */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return 0;
    world.active = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world.size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &world.local_rank);
    MPI_Comm_free(&node);
    int len;
    MPI_Get_processor_name(world.host, &len);
    if (world.rank != 0)
        report_set_silent(1);
    return 1;
}

void mpi_stop(void)
{
    if (world.active)
        MPI_Finalize();
    world.active = 0;
}

int mpi_active(void) { return world.active; }
int mpi_rank(void) { return world.rank; }
int mpi_size(void) { return world.size; }
int mpi_local_rank(void) { return world.local_rank; }
const char *mpi_host(void) { return world.host; }

const char *mpi_library_version(void)
{
    int len;
    if (!world.version[0]) {
        MPI_Get_library_version(world.version, &len);
        /* Its first line is enough. */
        world.version[strcspn(world.version, "\n,")] = '\0';
    }
    return world.version;
}

int mpi_agree(int status, const char *text, clx_message *first)
{
    int mine = status == CLX_OK ? world.size : world.rank, failed;
    MPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (failed == world.size)
        return CLX_OK;
    char line[sizeof first->text];
    if (world.rank == failed) {
        snprintf(line, sizeof line, "rank %d on %s: %s", world.rank, world.host, text ? text : "failed");
        if (failed != 0)
            MPI_Send(line, (int)sizeof line, MPI_CHAR, 0, TAG_AGREE, MPI_COMM_WORLD);
    }
    if (world.rank == 0) {
        if (failed != 0)
            MPI_Recv(line, (int)sizeof line, MPI_CHAR, failed, TAG_AGREE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        snprintf(first->text, sizeof first->text, "%s", line);
    }
    return CLX_ERR_ARGUMENT;
}

int mpi_share(int status, size_t *value)
{
    long long v[2] = { status, (long long)*value };
    MPI_Bcast(v, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    *value = (size_t)v[1];
    return (int)v[0];
}

void mpi_abort(void)
{
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* What a rank sends to rank 0 for each of its chunks. */
struct chunk_header {
    long long status;           /* CLX_OK, or the error that stopped the rank */
    long long images;           /* images whose rows follow */
    long long rows;
    long long bytes;
    char text[sizeof(clx_message)];   /* the error, naming the rank */
};

static int send_chunk(struct mpi_split *s, int status, const char *text)
{
    struct chunk_header h;
    memset(&h, 0, sizeof h);
    h.status = status;
    h.images = (long long)s->pending_images;
    h.rows = (long long)s->pending.rows;
    h.bytes = (long long)s->pending.len;
    if (text)
        snprintf(h.text, sizeof h.text, "%s", text);
    MPI_Send(&h, (int)sizeof h, MPI_BYTE, 0, TAG_CHUNK_HEADER, MPI_COMM_WORLD);
    if (h.bytes > 0)
        MPI_Send(s->pending.text, (int)h.bytes, MPI_BYTE, 0, TAG_CHUNK_ROWS, MPI_COMM_WORLD);
    s->pending.len = s->pending.rows = 0;
    s->pending_images = 0;
    return CLX_OK;
}

int mpi_split_send_own(struct mpi_split *s, size_t global, const struct csv_text *rows, clx_message *msg)
{
    struct csv_text *p = &s->pending;
    if (p->cap - p->len < rows->len) {
        size_t cap = 2 * p->cap + rows->len;
        char *grown = realloc(p->text, cap);
        if (!grown) {
            snprintf(msg->text, sizeof msg->text, "out of memory");
            return CLX_ERR_HOST_MEMORY;
        }
        p->text = grown;
        p->cap = cap;
    }
    memcpy(p->text + p->len, rows->text, rows->len);
    p->len += rows->len;
    p->rows += rows->rows;
    s->pending_images++;
    return chunk_ends_at(s, global) ? send_chunk(s, CLX_OK, NULL) : CLX_OK;
}

void mpi_split_send_failure(struct mpi_split *s, const char *text)
{
    char line[sizeof(clx_message)];
    snprintf(line, sizeof line, "rank %d on %s: %s", world.rank, world.host, text);
    send_chunk(s, CLX_ERR_IO, line);
    /* Rank 0 reaches this chunk in input order, reports it and aborts the
     * job; finishing here instead would make the launcher end the job
     * before rank 0 has written the rows before the failure. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(EXIT_FAILURE_RUN);
}

/* Rank 0: receives chunk next_chunk from its rank and writes it. */
static int receive_chunk(struct mpi_split *s, struct csv_output *out, clx_message *msg)
{
    int from = (int)(s->next_chunk % (size_t)s->size);
    struct chunk_header h;
    MPI_Recv(&h, (int)sizeof h, MPI_BYTE, from, TAG_CHUNK_HEADER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    struct csv_text t = { 0 };
    int status = CLX_OK;
    if (h.bytes > 0) {
        t.text = malloc((size_t)h.bytes);
        if (!t.text) {
            snprintf(msg->text, sizeof msg->text, "out of memory receiving rank %d's rows", from);
            return CLX_ERR_HOST_MEMORY;
        }
        MPI_Recv(t.text, (int)h.bytes, MPI_BYTE, from, TAG_CHUNK_ROWS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t.len = (size_t)h.bytes;
        t.rows = (size_t)h.rows;
        status = csv_output_write(out, &t, msg);
        free(t.text);
    }
    if (status != CLX_OK)
        return status;
    s->written += (size_t)h.images;
    if (h.status != CLX_OK) {
        s->failed_rank = from;
        snprintf(s->failure.text, sizeof s->failure.text, "%s", h.text);
        snprintf(msg->text, sizeof msg->text, "%s", h.text);
        return (int)h.status;
    }
    s->next_chunk++;
    return CLX_OK;
}

#else /* no MPI in this build: always one process */

int mpi_start(int *argc, char ***argv) { return 0; }
void mpi_stop(void) {}
int mpi_active(void) { return 0; }
int mpi_rank(void) { return 0; }
int mpi_size(void) { return 1; }
int mpi_local_rank(void) { return 0; }
const char *mpi_host(void) { return ""; }
const char *mpi_library_version(void) { return ""; }

/* A single process is rank 0 of 1: every chunk is its own, so it never
 * agrees with, receives from or sends to another rank. */
int mpi_agree(int status, const char *text, clx_message *first)
{
    if (status != CLX_OK)
        snprintf(first->text, sizeof first->text, "%s", text ? text : "failed");
    return status;
}

int mpi_share(int status, size_t *value)
{
    return status;
}

void mpi_abort(void)
{
    exit(EXIT_FAILURE_RUN);
}

static int receive_chunk(struct mpi_split *s, struct csv_output *out, clx_message *msg)
{
    abort();
}

int mpi_split_send_own(struct mpi_split *s, size_t global, const struct csv_text *rows, clx_message *msg)
{
    abort();
}

void mpi_split_send_failure(struct mpi_split *s, const char *text)
{
    abort();
}

#endif
