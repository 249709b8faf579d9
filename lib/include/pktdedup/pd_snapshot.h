/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Filter state that survives a restart: one filter's state image, and snapshot files
 * holding the images of several filters (one per worker) with a caller's tag.
 *
 * A state image (pd_filter_save_state) holds the filter's resolved parameters, including
 * the hash seed, its counters, its PRNG and its tables. pd_filter_load_state() puts it
 * into a filter created with the same parameters; a filter created with other
 * parameters, or another seed, refuses it (PD_EMISMATCH, with the first field that
 * differs; the seed's value is never part of a message). Any refused load leaves the
 * filter empty, as after pd_filter_reset(): never half loaded.
 *
 * Images of fixed-size filters (all but lru, fpbuffering and exact) can also be taken
 * step by step while the filter keeps working (pd_filter_save_state_step): each 64-byte
 * line of the tables is one the filter held at some moment of the copy, so the image is
 * a valid state, if not one of a single instant. lru, fpbuffering and exact are copied
 * in one step.
 *
 * Snapshot file format, version 1 (little-endian; the whole file is read before use):
 *
 *     offset  size  field
 *     0       8     magic "PKTDSNAP"
 *     8       4     format version (1)
 *     12      4     byte-order mark 0x01020304
 *     16      8     total file length, checksum included
 *     24      4     tag length T (at most PD_SNAPSHOT_MAX_TAG)
 *     28      T     tag: the caller's description of what the state depends on
 *     28+T    4     number of images N (1..PD_SNAPSHOT_MAX_FILTERS)
 *     ...           N times: 8-byte image length L, then L bytes of image: first one
 *                   or more filter states (magic "PDFSTATE"), then any images of the
 *                   caller's (pd_snapshot_image)
 *     end-8   8     XXH3-64 (seed 0) of every byte before it
 *
 * Writing goes to a temporary file beside the target, TARGET.tmp.PID (mode 0600: the
 * images hold the hash secret), created with O_EXCL and O_NOFOLLOW so that nothing
 * planted at that name is written through, fsync'd and renamed over the target, and the
 * directory fsync'd: a crash mid-write leaves the previous snapshot whole (and a temporary
 * file, which pd_snapshot_clean_stale() removes once its process is gone). When the path
 * is a symlink, the file it points to is the target: the link stays.
 */
#ifndef PKTDEDUP_PD_SNAPSHOT_H
#define PKTDEDUP_PD_SNAPSHOT_H

#include <stdint.h>

#include <pktdedup/pd_filter.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PD_SNAPSHOT_VERSION 1
#define PD_SNAPSHOT_MAGIC "PKTDSNAP" /**< a snapshot file's first 8 bytes */
#define PD_SNAPSHOT_MAX_FILTERS 1024
#define PD_SNAPSHOT_MAX_TAG 4096

/** Bytes of f's state image now (lru, fpbuffering and exact grow as they fill). */
PD_API
uint64_t pd_filter_state_size(const struct pd_filter *f);

/**
 * Write f's state image into buf (cap bytes); *len = its length. PD_EINVAL when cap is
 * smaller than pd_filter_state_size(f).
 */
PD_API
int pd_filter_save_state(const struct pd_filter *f, void *buf, uint64_t cap, uint64_t *len,
			 struct pd_error *err);

/**
 * One step of an image taken while f keeps working: continue from *done (0 to start),
 * copy at most about max_bytes (rounded up to 64), advance *done. Returns 1 when the
 * image is complete (its length is then *done), 0 when more steps are needed, -1 on
 * error (cap too small: PD_EINVAL). Between steps f may process keys.
 */
PD_API
int pd_filter_save_state_step(const struct pd_filter *f, void *buf, uint64_t cap,
			      uint64_t *done, uint64_t max_bytes, struct pd_error *err);

/**
 * Load a state image into f. On success f continues exactly as the saved filter would
 * have. On error f is empty (reset) and err says why: PD_ECORRUPT, PD_EVERSION,
 * PD_EMISMATCH (naming the parameter) or PD_ENOMEM.
 */
PD_API
int pd_filter_load_state(struct pd_filter *f, const void *buf, uint64_t len,
			 struct pd_error *err);

/**
 * Write a snapshot file from n state images (as made by pd_filter_save_state or its
 * steps) and a NUL-terminated tag. Temporary file, fsync, rename (see above).
 */
PD_API
int pd_snapshot_write(const char *path, const char *tag, const void *const *images,
		      const uint64_t *lens, unsigned n, struct pd_error *err);

/**
 * Remove the temporary files that writers of the snapshot at @p path left when they died
 * mid-write: TARGET.tmp.PID where PID is no longer a process and the file is provably a
 * writer's (a regular file of this user's, one link, mode 0600, beginning with the
 * snapshot magic or a prefix of it); any other file of that name is left alone.
 * @p files and @p bytes say how many were removed. 0, or -1 when the directory cannot be
 * read.
 */
PD_API
int pd_snapshot_clean_stale(const char *path, uint64_t *files, uint64_t *bytes,
			    struct pd_error *err);

/** Save n filters' current state to a snapshot file (images made here, then written). */
PD_API
int pd_snapshot_save(const char *path, const char *tag, struct pd_filter *const *filters,
		     unsigned n, struct pd_error *err);

/** A snapshot read and checked (magic, version, length, checksum, structure). */
struct pd_snapshot;

/**
 * Read and check a snapshot file. NULL on error: PD_ENOENT (no such file), PD_EIO,
 * PD_ECORRUPT (not a snapshot, truncated, checksum, structure), PD_EVERSION, PD_ENOMEM.
 */
PD_API
struct pd_snapshot *pd_snapshot_read(const char *path, struct pd_error *err);

/** The same from bytes in memory (copied). */
PD_API
struct pd_snapshot *pd_snapshot_parse(const void *data, uint64_t len, struct pd_error *err);

/** The tag given when the snapshot was written (NUL-terminated). */
PD_API
const char *pd_snapshot_tag(const struct pd_snapshot *s);

/** Number of images. */
PD_API
unsigned pd_snapshot_count(const struct pd_snapshot *s);

/** Resolved parameters (seed included) image i was made with. */
PD_API
int pd_snapshot_params(const struct pd_snapshot *s, unsigned i, struct pd_filter_params *p,
		       struct pd_error *err);

/**
 * Image i's bytes, valid until pd_snapshot_free(): 0, or -1 when there is no image i.
 * Images need not all be filters': a caller may store other state after its filters'
 * (pktdedup stores each worker's pd_estimate state there).
 */
PD_API
int pd_snapshot_image(const struct pd_snapshot *s, unsigned i, const void **data,
		      uint64_t *len);

/** pd_filter_load_state() of image i into f. */
PD_API
int pd_snapshot_load(const struct pd_snapshot *s, unsigned i, struct pd_filter *f,
		     struct pd_error *err);

PD_API
void pd_snapshot_free(struct pd_snapshot *s);

#ifdef __cplusplus
}
#endif

#endif
