/* handle.c - the table of live contexts, plans and filters (see handle.h). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "clxcorr.h"
#include "runtime/handle.h"

struct handle {
    const void *object;
    const void *owner;
    enum handle_kind kind;
    handle_free_fn free_fn;
};

/* One table for the process: contexts may be used from several threads at
 * once, and a plan does not say which context it belongs to before it has
 * been checked. A program holds tens of objects, so a linear search costs
 * nothing beside a push. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct handle *table;
static size_t used, allocated;

/* The index of `object` in the table, or `used` if it is not there. Call with the lock held. */
static size_t find(const void *object)
{
    size_t i;
    for (i = 0; i < used; i++)
        if (table[i].object == object)
            break;
    return i;
}

int handle_add(const void *object, enum handle_kind kind, const void *owner, handle_free_fn free_fn)
{
    int status = CLX_OK;
    pthread_mutex_lock(&lock);
    if (used == allocated) {
        size_t grown = allocated ? 2 * allocated : 16;
        struct handle *t = realloc(table, grown * sizeof *t);
        if (!t) {
            status = CLX_ERR_HOST_MEMORY;
            goto done;
        }
        table = t;
        allocated = grown;
    }
    table[used].object = object;
    table[used].owner = owner;
    table[used].kind = kind;
    table[used].free_fn = free_fn;
    used++;
done:
    pthread_mutex_unlock(&lock);
    return status;
}

int handle_remove(const void *object, enum handle_kind kind)
{
    int was_live = 0;
    pthread_mutex_lock(&lock);
    size_t i = find(object);
    if (i < used && table[i].kind == kind) {
        table[i] = table[used - 1];
        used--;
        was_live = 1;
    }
    pthread_mutex_unlock(&lock);
    return was_live;
}

int handle_check(const void *object, enum handle_kind kind)
{
    if (!object)
        return CLX_ERR_ARGUMENT;
    pthread_mutex_lock(&lock);
    size_t i = find(object);
    int live = i < used && table[i].kind == kind;
    pthread_mutex_unlock(&lock);
    return live ? CLX_OK : CLX_ERR_STATE;
}

/* Takes the first live object of `kind` owned by `owner` out of the table;
 * 0 when there is none. */
static int take_owned(const void *owner, enum handle_kind kind, struct handle *out)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < used && !found; i++)
        if (table[i].owner == owner && table[i].kind == kind) {
            *out = table[i];
            table[i] = table[used - 1];
            used--;
            found = 1;
        }
    pthread_mutex_unlock(&lock);
    return found;
}

size_t handle_free_owned(const void *owner, enum handle_kind kind)
{
    struct handle h;
    size_t n = 0;
    /* One at a time and outside the lock: freeing an object may take other
     * objects out of the table (a plan its own filter). */
    while (take_owned(owner, kind, &h)) {
        if (h.free_fn)
            h.free_fn((void *)h.object);
        n++;
    }
    return n;
}
