/*
 * mpi_ranks.h - `clxcorr offsets` across MPI ranks (mpirun -n N clxcorr ...).
 *
 * The run's images are cut into chunks of consecutive images, dealt to the
 * ranks in turn: chunk k goes to rank k % N. Each rank correlates its own
 * images on the GPU matching its node-local rank and formats their rows;
 * rank 0 alone writes the output, in input order: before writing its own
 * chunk k it receives and writes chunks k-1, k-2, ... from the other ranks,
 * so no rank holds more than one chunk of rows and the file grows as the run
 * goes. A rank that fails sends its complete rows and the error instead;
 * rank 0 writes those rows, names the rank and the image, and aborts the
 * job, leaving FILE.part with every row before the failure.
 *
 * Set-up failures (a device that does not open on one node, say) are agreed
 * on collectively before any image is read (mpi_agree), so the run then
 * stops on every rank with rank 0 naming the first failing rank.
 *
 * Without MPI in the build, or outside an MPI launcher, mpi_start returns 0
 * and none of the rest is used.
 */
#ifndef CLX_MPI_RANKS_H
#define CLX_MPI_RANKS_H

#include <stddef.h>
#include "clxcorr.h"
#include "output/csv_output.h"

/*
 * Starts MPI when this process was started by an MPI launcher (mpirun,
 * mpiexec, srun) and the build has MPI: returns 1 then, else 0. Ranks other
 * than 0 then report nothing themselves (report_set_silent).
 */
int mpi_start(int *argc, char ***argv);
/* Ends MPI (a no-op when it was not started). */
void mpi_stop(void);
/* Whether mpi_start started MPI, this rank, the number of ranks, this
 * rank's index among the ranks of its node, and the node's name. */
int mpi_active(void);
int mpi_rank(void);
int mpi_size(void);
int mpi_local_rank(void);
const char *mpi_host(void);
/* The MPI library's own version line, for --version ("" without MPI). */
const char *mpi_library_version(void);

/*
 * Collective: every rank says whether its set-up succeeded (text: its
 * error). Returns CLX_OK when all did; otherwise a failure on every rank,
 * and on rank 0 `first` says which rank failed first and why.
 */
int mpi_agree(int status, const char *text, clx_message *first);

/*
 * Collective: rank 0's status and *value (--resume: the images its output
 * already holds) to every rank. Returns rank 0's status.
 */
int mpi_share(int status, size_t *value);

/* Kills every rank of the job after rank 0 reported a failure. */
void mpi_abort(void);

struct mpi_split {
    size_t count;              /* images of the whole run */
    size_t chunk;              /* images per chunk */
    size_t nchunks;
    int rank, size;
    /* rank 0: the next chunk to write, and the images written */
    size_t next_chunk;
    size_t written;
    int failed_rank;           /* a rank that sent a failure (-1: none yet) */
    clx_message failure;       /* its message */
    /* other ranks: the rows of the chunk being filled */
    struct csv_text pending;
    size_t pending_images;
};

/* Cuts `count` images into chunks: at most 512 images and about 16 MB of
 * rows each (region_count rows per image), and at least one per rank when
 * there are enough images. */
void mpi_split_init(struct mpi_split *s, size_t count, size_t region_count);
void mpi_split_free(struct mpi_split *s);
/* This rank's images, and the run's index of its i-th one. */
size_t mpi_split_local_count(const struct mpi_split *s);
size_t mpi_split_global(const struct mpi_split *s, size_t local);

/*
 * Rank 0: writes the rows of its own image `global` (in input order among
 * its own), after receiving and writing every other rank's chunk that comes
 * before it. A failure another rank sent, or a write error, returns an
 * error with msg (the rank, its node and its message).
 */
int mpi_split_write_own(struct mpi_split *s, size_t global, const struct csv_text *rows, struct csv_output *out,
                        clx_message *msg);
/* Rank 0: receives and writes the other ranks' chunks before image `end`
 * (the whole run: count). */
int mpi_split_write_others(struct mpi_split *s, size_t end, struct csv_output *out, clx_message *msg);

/* Other ranks: adds image `global`'s rows and sends the chunk to rank 0 once
 * it is complete. */
int mpi_split_send_own(struct mpi_split *s, size_t global, const struct csv_text *rows, clx_message *msg);
/* Other ranks: sends the rows gathered so far with the error that stopped
 * this rank, then waits for rank 0 to end the job. Does not return. */
void mpi_split_send_failure(struct mpi_split *s, const char *text);

#endif
