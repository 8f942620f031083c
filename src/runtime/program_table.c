/* program_table.c - one OpenCL context's programs, keyed by file and build options. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "clxcorr.h"
#include "runtime/program_table.h"

struct program_entry {
    char *file;
    char *options;
    cl_program program;          /* the table's own reference */
};

struct program_table {
    pthread_mutex_t lock;
    int references;
    struct program_entry *entries;
    size_t used, allocated;
};

struct program_table *program_table_create(void)
{
    struct program_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    t->references = 1;
    return t;
}

void program_table_retain(struct program_table *t)
{
    pthread_mutex_lock(&t->lock);
    t->references++;
    pthread_mutex_unlock(&t->lock);
}

void program_table_release(struct program_table *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    int left = --t->references;
    pthread_mutex_unlock(&t->lock);
    if (left > 0)
        return;
    for (size_t i = 0; i < t->used; i++) {
        clReleaseProgram(t->entries[i].program);
        free(t->entries[i].file);
        free(t->entries[i].options);
    }
    free(t->entries);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* The entry for (file, options), or NULL. Called with the lock held. */
static struct program_entry *find(struct program_table *t, const char *file, const char *options)
{
    for (size_t i = 0; i < t->used; i++)
        if (strcmp(t->entries[i].file, file) == 0 && strcmp(t->entries[i].options, options) == 0)
            return &t->entries[i];
    return NULL;
}

/* Keeps `program` under (file, options). Called with the lock held. */
static int keep(struct program_table *t, const char *file, const char *options, cl_program program)
{
    if (t->used == t->allocated) {
        size_t grown = t->allocated ? 2 * t->allocated : 16;
        struct program_entry *e = realloc(t->entries, grown * sizeof *e);
        if (!e)
            return CLX_ERR_HOST_MEMORY;
        t->entries = e;
        t->allocated = grown;
    }
    struct program_entry *e = &t->entries[t->used];
    e->file = strdup(file);
    e->options = strdup(options);
    if (!e->file || !e->options) {
        free(e->file);
        free(e->options);
        return CLX_ERR_HOST_MEMORY;
    }
    e->program = program;
    t->used++;
    return CLX_OK;
}

int program_table_get(struct program_table *t, const char *file, const char *options, program_make_fn make,
                      void *user, cl_program *program, int *made)
{
    int status = CLX_OK;
    *program = NULL;
    *made = 0;
    /* Held while a program is made: a second caller asking for it waits
     * and then finds it, instead of making it again. */
    pthread_mutex_lock(&t->lock);
    struct program_entry *e = find(t, file, options);
    if (e) {
        *program = e->program;
    } else if ((status = make(user, file, options, program)) == CLX_OK) {
        *made = 1;
        /* Not kept when the table cannot grow: the caller still has it. */
        if (keep(t, file, options, *program) != CLX_OK) {
            pthread_mutex_unlock(&t->lock);
            return CLX_OK;
        }
    }
    if (status == CLX_OK)
        clRetainProgram(*program);
    pthread_mutex_unlock(&t->lock);
    return status;
}
