/*
 * handle.h - the objects the library has handed out and not yet released
 * (contexts, plans, filters), so that a pointer passed back after its
 * release, or one that never came from the library, is refused with
 * CLX_ERR_STATE instead of being read (internal).
 *
 * Why a table and not a magic number in each struct: checking a magic field
 * of a released object reads freed memory, which is undefined (malloc
 * reuses the first bytes of a freed block, and sanitizers stop there);
 * looking the pointer up in a table of live objects never dereferences it.
 * What it cannot catch: a stale pointer whose address a new object of the
 * same kind has since been given (malloc may reuse it).
 */
#ifndef CLX_HANDLE_H
#define CLX_HANDLE_H

#include <stddef.h>

enum handle_kind {
    HANDLE_CONTEXT = 1,
    HANDLE_PLAN = 2,
    HANDLE_FILTER = 3,
    HANDLE_WARP = 4,
    HANDLE_MULTIPASS = 5
};

/* Frees an object whose entry is gone from the table. */
typedef void (*handle_free_fn)(void *object);

/* Records a new object of `kind` made on `owner` (its context; NULL for a
 * context), and how to free it when its owner goes first. CLX_OK, or
 * CLX_ERR_HOST_MEMORY. */
int handle_add(const void *object, enum handle_kind kind, const void *owner, handle_free_fn free_fn);

/* Forgets the object: it is being released. Returns 1 if it was live, 0 if
 * not (released already, or never handed out): the caller then frees nothing. */
int handle_remove(const void *object, enum handle_kind kind);

/* CLX_OK when `object` is live and of `kind`; CLX_ERR_ARGUMENT when it is
 * NULL; CLX_ERR_STATE otherwise (released, or not one of ours). */
int handle_check(const void *object, enum handle_kind kind);

/*
 * Frees the live objects of `kind` still open on `owner`, each through the
 * free function it was added with, and returns how many there were. This is
 * how a context releases the plans and filters made on it without knowing
 * them: they are layers above it.
 */
size_t handle_free_owned(const void *owner, enum handle_kind kind);

#endif
