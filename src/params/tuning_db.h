/*
 * tuning_db.h - where a plan's kernel parameters, FFT library and batch size
 * come from (internal): the tuning file `clxcorr tune` writes, one entry per
 * (device, driver, workload class), else the defaults shipped per vendor.
 *
 * The file is <cache dir>/tuning.tsv ($XDG_CACHE_HOME/clxcorr), one line
 * per entry, tab-separated:
 *   device  driver  workload  params  batch  rate  default_rate  date
 * where params is "KEY=VALUE,..." as kernel_params_override takes it and the
 * rates are the images/s tune measured for params and for the defaults.
 */
#ifndef CLX_TUNING_DB_H
#define CLX_TUNING_DB_H

#include <stddef.h>
#include "clxcorr.h"
#include "params/kernel_params.h"

struct clx_context;

/* The workload class a plan belongs to: "seed 100x100 float u16". */
void tuning_class(clx_mode mode, const struct kernel_params *p, char *out, size_t len);

/* The tuning file's path for a cache directory. Returns 0, or -1 when there is none. */
int tuning_path(const char *cache_dir, char *out, size_t len);

/* The tuning file a context reads and `clxcorr tune` writes (in its
 * tuning_dir). Returns 0, or -1 when it has none (no cache directory, or
 * opened with no_tuning). */
int tuning_path_of(const struct clx_context *ctx, char *out, size_t len);

/*
 * What a plan of `mode` with base parameters p runs with on the context's
 * device: the tuning file's entry for it if there is one (and the context
 * does not ignore the file), else the shipped defaults for its vendor.
 * `how` says which, in words, for --explain.
 */
void tuning_for(const struct clx_context *ctx, clx_mode mode, const struct kernel_params *p, clx_tuning *out,
                char *how, size_t how_len);

/* The defaults shipped for the device's vendor and type, for `mode`. */
void tuning_shipped(const struct device_entry *dev, clx_mode mode, clx_tuning *out, const char **why);

/* Replaces (or adds) the entry with e's device, driver and workload. */
int tuning_store(const char *path, const clx_tuning *e, clx_message *msg);

#endif
