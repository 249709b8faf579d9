/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Filter state images and snapshot files (pd_snapshot.h has the file format).
 *
 * A state image is a 256-byte header and a body:
 *
 *     0    8   magic "PDFSTATE"
 *     8    4   image version (2)
 *     12   4   filter number (filters.c: 0 sbf, 1 rsbf, 2 bsbf, 3 bsbfsd, 4 rlbsbf,
 *             5 qht, 6 qhtd, 7 qqhtd, 8 bloom, 9 lru, 10 fpbuffering, 11 timerbf,
 *             12 exact, 13 qhtlru; fixed for good)
 *     16   112 the resolved parameters, 14 x 8 bytes (doubles as their bits)
 *     128  24  keys, duplicates, clock
 *     152  32  PRNG state
 *     184  8   body length
 *     192  4   layout: 0 fixed (sections), 1 variable (the variant's logical image)
 *     196  60  zero
 *
 * A fixed body is the filter's sections in order, each padded with zeros to a multiple
 * of 64 bytes, so that with a 64-byte-aligned header every step boundary of
 * pd_filter_save_state_step() falls on a cache line of the table (a qht row never spans
 * two). Nothing read from a file is trusted: lengths are checked before every copy, the
 * parameters must equal the target filter's, and variants re-derive what the bytes
 * cannot guarantee (post_load).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <pktdedup/pd_snapshot.h>

#include "filter_private.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "snapshot images are little-endian copies of the tables: little-endian hosts only"
#endif

#define IMG_HEADER 256
#define IMG_VERSION 2 /* 2: qht, qhtd, qqhtd rows packed (1: one or more words each) */
#define IMG_FIXED 0
#define IMG_VARIABLE 1
#define FILE_MAGIC PD_SNAPSHOT_MAGIC
#define FILE_BOM 0x01020304u
#define FILE_HEADER 28

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t dbits(double d)
{
	uint64_t v;

	memcpy(&v, &d, 8);
	return v;
}

static double bitsd(uint64_t v)
{
	double d;

	memcpy(&d, &v, 8);
	return d;
}

static uint64_t pad64(uint64_t n)
{
	return (n + 63) & ~(uint64_t)63;
}

/* ---- parameters ------------------------------------------------------------------- */

#define NPARAMS 14

static void params_put(uint8_t *p, const struct pd_filter_params *q)
{
	const uint64_t v[NPARAMS] = {
		q->memory_bytes, q->seed, dbits(q->target_fpr), q->expected_n, q->k,
		q->sbf_max, q->sbf_p, dbits(q->rsbf_pstar), q->qht_b, q->qht_f,
		dbits(q->fpbuf_q), q->window, q->equal_timers, (uint64_t)q->window_mode,
	};

	for (int i = 0; i < NPARAMS; i++)
		put64(p + 8 * i, v[i]);
}

static void params_get(const uint8_t *p, enum pd_filter_type type, struct pd_filter_params *q)
{
	memset(q, 0, sizeof(*q));
	q->type = type;
	q->memory_bytes = get64(p);
	q->seed = get64(p + 8);
	q->target_fpr = bitsd(get64(p + 16));
	q->expected_n = get64(p + 24);
	q->k = (uint32_t)get64(p + 32);
	q->sbf_max = (uint32_t)get64(p + 40);
	q->sbf_p = (uint32_t)get64(p + 48);
	q->rsbf_pstar = bitsd(get64(p + 56));
	q->qht_b = (uint32_t)get64(p + 64);
	q->qht_f = (uint32_t)get64(p + 72);
	q->fpbuf_q = bitsd(get64(p + 80));
	q->window = get64(p + 88);
	q->equal_timers = (uint32_t)get64(p + 96);
	q->window_mode = (enum pd_window_mode)get64(p + 104);
}

/*
 * The fields the state depends on, compared as stored (the target FPR and expected n
 * matter only through the resolved sizes and k, which are compared).
 */
static int params_match(const uint8_t *img, const struct pd_filter_params *have,
			struct pd_error *err)
{
	static const struct {
		const char *name;
		int index;
	} fields[] = {
		{"memory (bytes)", 0}, {"k", 4}, {"max", 5}, {"p", 6}, {"pstar", 7},
		{"b", 8}, {"f", 9}, {"q", 10}, {"window", 11}, {"equal-timers", 12},
		{"window-mode", 13},
	};
	uint8_t mine[NPARAMS * 8];

	params_put(mine, have);
	if (get64(img + 8) != get64(mine + 8))
		return pd_err(err, PD_EMISMATCH, "made with another hash seed (--seed)");
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		int x = fields[i].index;
		uint64_t a = get64(img + 8 * x), b = get64(mine + 8 * x);

		if (a == b)
			continue;
		if (x == 7 || x == 10)
			return pd_err(err, PD_EMISMATCH, "made with %s %s = %g, this filter has %g",
				      pd_filter_type_name(have->type), fields[i].name, bitsd(a),
				      bitsd(b));
		return pd_err(err, PD_EMISMATCH, "made with %s %s = %llu, this filter has %llu",
			      pd_filter_type_name(have->type), fields[i].name,
			      (unsigned long long)a, (unsigned long long)b);
	}
	return 0;
}

/* ---- state images ----------------------------------------------------------------- */

static uint64_t fixed_body(struct pd_filter *f, struct pd_section *sec, unsigned *n)
{
	uint64_t len = 0;

	*n = f->ops->sections(f, sec);
	for (unsigned i = 0; i < *n; i++)
		len += pad64(sec[i].len);
	return len;
}

static uint64_t body_size(const struct pd_filter *f)
{
	struct pd_section sec[PD_MAX_SECTIONS];
	unsigned n;

	if (f->ops->sections == NULL)
		return f->ops->image_size(f);
	/* sections() only reports where the state lives; it changes nothing */
	return fixed_body((struct pd_filter *)(uintptr_t)f, sec, &n);
}

uint64_t pd_filter_state_size(const struct pd_filter *f)
{
	return IMG_HEADER + body_size(f);
}

static void header_put(const struct pd_filter *f, uint8_t *h, uint64_t body)
{
	memset(h, 0, IMG_HEADER);
	memcpy(h, "PDFSTATE", 8);
	put32(h + 8, IMG_VERSION);
	put32(h + 12, pd_filter_desc(f->params.type)->snapshot_id);
	params_put(h + 16, &f->params);
	put64(h + 128, f->keys);
	put64(h + 136, f->duplicates);
	put64(h + 144, f->clock);
	for (int i = 0; i < 4; i++)
		put64(h + 152 + 8 * i, f->prng.s[i]);
	put64(h + 184, body);
	put32(h + 192, f->ops->sections != NULL ? IMG_FIXED : IMG_VARIABLE);
}

int pd_filter_save_state_step(const struct pd_filter *f, void *buf, uint64_t cap,
			      uint64_t *done, uint64_t max_bytes, struct pd_error *err)
{
	struct pd_filter *mf = (struct pd_filter *)(uintptr_t)f;
	uint8_t *out = buf;
	uint64_t total = pd_filter_state_size(f);

	if (total > cap)
		return pd_err(err, PD_EINVAL, "state image: buffer of %llu bytes, need %llu",
			      (unsigned long long)cap, (unsigned long long)total);
	if (f->ops->sections == NULL) {
		/* variable layout: the whole image at once */
		header_put(f, out, total - IMG_HEADER);
		f->ops->image_save(f, out + IMG_HEADER);
		*done = total;
		return 1;
	}
	if (*done == 0) {
		header_put(f, out, total - IMG_HEADER);
		*done = IMG_HEADER;
	}
	if (*done > total || (*done & 63) != 0)
		return pd_err(err, PD_EINVAL, "state image: step offset %llu is not one of ours",
			      (unsigned long long)*done);
	{
		struct pd_section sec[PD_MAX_SECTIONS];
		unsigned n;
		/* at most the image (a larger max_bytes, UINT64_MAX included, is the rest) */
		uint64_t budget = pad64(max_bytes == 0 ? 1 : max_bytes < total ? max_bytes : total);
		uint64_t at = IMG_HEADER; /* image offset of section i */

		fixed_body(mf, sec, &n);
		for (unsigned i = 0; i < n && budget != 0; i++) {
			uint64_t plen = pad64(sec[i].len);

			if (*done < at + plen) {
				uint64_t from = *done - at;
				uint64_t chunk = plen - from < budget ? plen - from : budget;
				uint64_t real = from < sec[i].len ? sec[i].len - from : 0;

				if (real > chunk)
					real = chunk;
				memcpy(out + *done, (const uint8_t *)sec[i].p + from, real);
				memset(out + *done + real, 0, chunk - real);
				*done += chunk;
				budget -= chunk;
			}
			at += plen;
		}
	}
	return *done == total;
}

int pd_filter_save_state(const struct pd_filter *f, void *buf, uint64_t cap, uint64_t *len,
			 struct pd_error *err)
{
	uint64_t done = 0;
	int r = pd_filter_save_state_step(f, buf, cap, &done, UINT64_MAX - 63, err);

	if (r < 0)
		return -1;
	*len = done;
	return 0;
}

static int load_body(struct pd_filter *f, const uint8_t *img, uint64_t len,
		     struct pd_error *err)
{
	const char *name = pd_filter_type_name(f->params.type);
	uint64_t body;
	uint32_t layout;

	if (len < IMG_HEADER)
		return pd_err(err, PD_ECORRUPT, "state image: %llu bytes, shorter than its header",
			      (unsigned long long)len);
	if (memcmp(img, "PDFSTATE", 8) != 0)
		return pd_err(err, PD_ECORRUPT, "state image: bad magic");
	if (get32(img + 8) != IMG_VERSION)
		return pd_err(err, PD_EVERSION, "state image version %u, this build reads %u",
			      get32(img + 8), IMG_VERSION);
	if (get32(img + 12) != pd_filter_desc(f->params.type)->snapshot_id) {
		enum pd_filter_type t;
		const struct pd_filter_desc *d = pd_filter_desc_of_id(get32(img + 12), &t);

		return pd_err(err, PD_EMISMATCH, "made with filter %s, this filter is %s",
			      d != NULL ? pd_filter_type_name(t) : "(unknown)", name);
	}
	if (params_match(img + 16, &f->params, err) != 0)
		return -1;
	body = get64(img + 184);
	layout = get32(img + 192);
	if (body != len - IMG_HEADER)
		return pd_err(err, PD_ECORRUPT, "state image: body of %llu bytes in %llu",
			      (unsigned long long)body, (unsigned long long)(len - IMG_HEADER));
	if (layout != (f->ops->sections != NULL ? IMG_FIXED : IMG_VARIABLE))
		return pd_err(err, PD_ECORRUPT, "state image: wrong layout for %s", name);
	for (int i = 0; i < 4; i++)
		f->prng.s[i] = get64(img + 152 + 8 * i);
	if ((f->prng.s[0] | f->prng.s[1] | f->prng.s[2] | f->prng.s[3]) == 0)
		return pd_err(err, PD_ECORRUPT, "state image: PRNG state all zero");
	f->keys = get64(img + 128);
	f->duplicates = get64(img + 136);
	f->clock = get64(img + 144);
	if (f->ops->sections == NULL)
		return f->ops->image_load(f, img + IMG_HEADER, body, err);
	{
		struct pd_section sec[PD_MAX_SECTIONS];
		unsigned n;
		uint64_t want = fixed_body(f, sec, &n), at = IMG_HEADER;

		if (body != want)
			return pd_err(err, PD_ECORRUPT, "state image: %s tables of %llu bytes, this"
				      " filter has %llu", name, (unsigned long long)body,
				      (unsigned long long)want);
		for (unsigned i = 0; i < n; i++) {
			memcpy(sec[i].p, img + at, sec[i].len);
			at += pad64(sec[i].len);
		}
		if (f->ops->post_load != NULL)
			f->ops->post_load(f);
	}
	return 0;
}

int pd_filter_load_state(struct pd_filter *f, const void *buf, uint64_t len,
			 struct pd_error *err)
{
	pd_filter_reset(f);
	if (load_body(f, buf, len, err) != 0) {
		pd_filter_reset(f); /* never half loaded */
		return -1;
	}
	return 0;
}

/* ---- files ------------------------------------------------------------------------ */

static int write_all(int fd, const void *p, uint64_t n)
{
	const uint8_t *c = p;

	while (n != 0) {
		ssize_t w = write(fd, c, n > (1u << 30) ? (1u << 30) : (size_t)n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (uint64_t)w;
	}
	return 0;
}

/* Append bytes to the file and to the running checksum. */
struct wfile {
	int fd;
	XXH3_state_t *xs;
	int failed;
};

static void wput(struct wfile *w, const void *p, uint64_t n)
{
	if (w->failed)
		return;
	if (write_all(w->fd, p, n) != 0)
		w->failed = errno != 0 ? errno : EIO;
	else
		(void)XXH3_64bits_update(w->xs, p, n);
}

/* The directory part of a path: ".", "/" or what comes before the last '/'. */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/*
 * Where a snapshot named @p path is written: the file a symlink points to (the link
 * stays), else @p path. -1 for a symlink to nothing or a path that is not a regular file.
 */
static int snapshot_target(const char *path, char *out, size_t len, struct pd_error *err)
{
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) {
		if (snprintf(out, len, "%s", path) >= (int)len)
			return pd_err(err, PD_EINVAL, "snapshot: path too long");
		return 0;
	}
	if (stat(path, &st) != 0)
		return pd_err(err, PD_EIO, "snapshot %s: a symlink to nothing: %s", path,
			      strerror(errno));
	if (!S_ISREG(st.st_mode))
		return pd_err(err, PD_EIO, "snapshot %s: a symlink to something that is not a "
			      "regular file", path);
	if (len < PATH_MAX || realpath(path, out) == NULL)
		return pd_err(err, PD_EIO, "snapshot %s: %s", path, strerror(errno));
	return 0;
}

/*
 * The temporary file beside the target, made by this call alone: O_EXCL and O_NOFOLLOW,
 * so that a symlink or file planted at its name is never written through; such a name
 * (or one left by a process that had this PID before) is removed and made anew, once.
 */
static int create_temp(const char *tmp)
{
	for (int tries = 0; tries < 2; tries++) {
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

		if (fd >= 0 || errno != EEXIST)
			return fd;
		if (unlink(tmp) != 0)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int pd_snapshot_write(const char *path_given, const char *tag, const void *const *images,
		      const uint64_t *lens, unsigned n, struct pd_error *err)
{
	char path[PATH_MAX], tmp[PATH_MAX + 32], dir[PATH_MAX];
	uint8_t head[FILE_HEADER], b8[8];
	uint64_t total;
	size_t taglen = tag != NULL ? strlen(tag) : 0;
	struct wfile w = {-1, NULL, 0};
	int rc = -1;

	if (n == 0 || n > PD_SNAPSHOT_MAX_FILTERS)
		return pd_err(err, PD_EINVAL, "snapshot: %u filters (1..%d)", n,
			      PD_SNAPSHOT_MAX_FILTERS);
	if (taglen > PD_SNAPSHOT_MAX_TAG)
		return pd_err(err, PD_EINVAL, "snapshot: tag of %zu bytes (at most %d)", taglen,
			      PD_SNAPSHOT_MAX_TAG);
	if (snapshot_target(path_given, path, sizeof(path), err) != 0)
		return -1;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return pd_err(err, PD_EINVAL, "snapshot: path too long");
	total = FILE_HEADER + taglen + 4 + 8;
	for (unsigned i = 0; i < n; i++)
		total += 8 + lens[i];
	memcpy(head, FILE_MAGIC, 8);
	put32(head + 8, PD_SNAPSHOT_VERSION);
	put32(head + 12, FILE_BOM);
	put64(head + 16, total);
	put32(head + 24, (uint32_t)taglen);

	w.xs = XXH3_createState();
	if (w.xs == NULL)
		return pd_err(err, PD_ENOMEM, "snapshot: out of memory");
	(void)XXH3_64bits_reset(w.xs);
	w.fd = create_temp(tmp);
	if (w.fd < 0) {
		pd_err(err, PD_EIO, "snapshot %s: cannot create %s: %s", path, tmp, strerror(errno));
		goto out;
	}
	if (fchmod(w.fd, 0600) != 0) {
		pd_err(err, PD_EIO, "snapshot %s: chmod: %s", tmp, strerror(errno));
		goto out;
	}
	wput(&w, head, FILE_HEADER);
	wput(&w, tag, taglen);
	put32(b8, n);
	wput(&w, b8, 4);
	for (unsigned i = 0; i < n; i++) {
		put64(b8, lens[i]);
		wput(&w, b8, 8);
		wput(&w, images[i], lens[i]);
	}
	put64(b8, XXH3_64bits_digest(w.xs));
	if (!w.failed && write_all(w.fd, b8, 8) != 0)
		w.failed = errno;
	if (w.failed) {
		pd_err(err, PD_EIO, "snapshot %s: writing %s: %s", path, tmp, strerror(w.failed));
		goto out;
	}
	if (fsync(w.fd) != 0) {
		pd_err(err, PD_EIO, "snapshot %s: fsync: %s", tmp, strerror(errno));
		goto out;
	}
	if (close(w.fd) != 0) {
		w.fd = -1;
		pd_err(err, PD_EIO, "snapshot %s: close: %s", tmp, strerror(errno));
		goto out;
	}
	w.fd = -1;
	if (rename(tmp, path) != 0) {
		pd_err(err, PD_EIO, "snapshot %s: rename from %s: %s", path, tmp, strerror(errno));
		goto out;
	}
	/* the rename itself reaches the disk with the directory */
	dir_of(path, dir, sizeof(dir));
	{
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
	}
	rc = 0;
out:
	if (w.fd >= 0)
		close(w.fd);
	if (rc != 0)
		(void)unlink(tmp);
	XXH3_freeState(w.xs);
	return rc;
}

int pd_snapshot_save(const char *path, const char *tag, struct pd_filter *const *filters,
		     unsigned n, struct pd_error *err)
{
	void **img;
	uint64_t *lens;
	int rc = -1;
	unsigned made = 0;

	if (n == 0 || n > PD_SNAPSHOT_MAX_FILTERS)
		return pd_err(err, PD_EINVAL, "snapshot: %u filters (1..%d)", n,
			      PD_SNAPSHOT_MAX_FILTERS);
	img = calloc(n, sizeof(*img));
	lens = calloc(n, sizeof(*lens));
	if (img == NULL || lens == NULL) {
		pd_err(err, PD_ENOMEM, "snapshot: out of memory");
		goto out;
	}
	for (; made < n; made++) {
		uint64_t size = pd_filter_state_size(filters[made]);

		img[made] = malloc(size);
		if (img[made] == NULL) {
			pd_err(err, PD_ENOMEM, "snapshot: cannot allocate %llu bytes",
			       (unsigned long long)size);
			goto out;
		}
		if (pd_filter_save_state(filters[made], img[made], size, &lens[made], err) != 0)
			goto out;
	}
	rc = pd_snapshot_write(path, tag, (const void *const *)img, lens, n, err);
out:
	for (unsigned i = 0; img != NULL && i < n; i++)
		free(img[i]);
	free(img);
	free(lens);
	return rc;
}

struct pd_snapshot {
	uint8_t *data;
	uint64_t len;
	char *tag;
	unsigned n;
	unsigned nfilters; /* images 0..nfilters-1 are filter states */
	const uint8_t **img;
	uint64_t *ilen;
};

void pd_snapshot_free(struct pd_snapshot *s)
{
	if (s == NULL)
		return;
	free(s->data);
	free(s->tag);
	free(s->img);
	free(s->ilen);
	free(s);
}

/* Takes ownership of data (malloc'd). */
static struct pd_snapshot *parse_owned(uint8_t *data, uint64_t len, struct pd_error *err)
{
	struct pd_snapshot *s;
	uint64_t total, at, taglen;

	if (len < 8 || memcmp(data, FILE_MAGIC, 8) != 0) {
		pd_err(err, PD_ECORRUPT, "not a pktdedup snapshot (no \"%s\" magic)", FILE_MAGIC);
		goto bad;
	}
	if (len < FILE_HEADER) {
		pd_err(err, PD_ECORRUPT, "truncated: %llu bytes, shorter than the header",
		       (unsigned long long)len);
		goto bad;
	}
	if (get32(data + 8) != PD_SNAPSHOT_VERSION) {
		pd_err(err, PD_EVERSION, "format version %u, this build reads version %d",
		       get32(data + 8), PD_SNAPSHOT_VERSION);
		goto bad;
	}
	if (get32(data + 12) != FILE_BOM) {
		pd_err(err, PD_ECORRUPT, "corrupt: byte-order mark 0x%08x",
		       get32(data + 12));
		goto bad;
	}
	total = get64(data + 16);
	if (len < total) {
		pd_err(err, PD_ECORRUPT, "truncated: %llu of %llu bytes",
		       (unsigned long long)len, (unsigned long long)total);
		goto bad;
	}
	if (len > total) {
		pd_err(err, PD_ECORRUPT, "corrupt: %llu bytes where the header says %llu",
		       (unsigned long long)len, (unsigned long long)total);
		goto bad;
	}
	if (total < FILE_HEADER + 4 + 8 ||
	    XXH3_64bits(data, total - 8) != get64(data + total - 8)) {
		pd_err(err, PD_ECORRUPT, "corrupt: checksum mismatch");
		goto bad;
	}
	/* from here the bytes are as written, but still checked as if they were not */
	taglen = get32(data + 24);
	if (taglen > PD_SNAPSHOT_MAX_TAG || FILE_HEADER + taglen + 4 + 8 > total) {
		pd_err(err, PD_ECORRUPT, "corrupt: tag of %llu bytes", (unsigned long long)taglen);
		goto bad;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		pd_err(err, PD_ENOMEM, "snapshot: out of memory");
		goto bad;
	}
	s->data = data;
	s->len = len;
	s->tag = malloc(taglen + 1);
	if (s->tag == NULL) {
		pd_err(err, PD_ENOMEM, "snapshot: out of memory");
		goto bad_s;
	}
	memcpy(s->tag, data + FILE_HEADER, taglen);
	s->tag[taglen] = '\0';
	if (strlen(s->tag) != taglen) {
		pd_err(err, PD_ECORRUPT, "corrupt: NUL byte in the tag");
		goto bad_s;
	}
	at = FILE_HEADER + taglen;
	s->n = get32(data + at);
	at += 4;
	if (s->n == 0 || s->n > PD_SNAPSHOT_MAX_FILTERS) {
		pd_err(err, PD_ECORRUPT, "corrupt: %u filter images", s->n);
		goto bad_s;
	}
	s->img = calloc(s->n, sizeof(*s->img));
	s->ilen = calloc(s->n, sizeof(*s->ilen));
	if (s->img == NULL || s->ilen == NULL) {
		pd_err(err, PD_ENOMEM, "snapshot: out of memory");
		goto bad_s;
	}
	for (unsigned i = 0; i < s->n; i++) {
		uint64_t room = total - 8 - at;

		if (room < 8 || get64(data + at) > room - 8) {
			pd_err(err, PD_ECORRUPT, "corrupt: image %u runs past the end", i);
			goto bad_s;
		}
		s->ilen[i] = get64(data + at);
		s->img[i] = data + at + 8;
		at += 8 + s->ilen[i];
		/* filter states first (at least one), then any a caller added */
		if (s->ilen[i] >= 8 && memcmp(s->img[i], "PDFSTATE", 8) == 0) {
			if (s->ilen[i] < IMG_HEADER || get32(s->img[i] + 12) >= PD_FILTER_COUNT ||
			    s->nfilters != i) {
				pd_err(err, PD_ECORRUPT, "corrupt: image %u is not a filter state"
				       " that can be read", i);
				goto bad_s;
			}
			s->nfilters++;
		} else if (i == 0) {
			pd_err(err, PD_ECORRUPT, "corrupt: image 0 is not a filter state");
			goto bad_s;
		}
	}
	if (at != total - 8) {
		pd_err(err, PD_ECORRUPT, "corrupt: %llu bytes after the last image",
		       (unsigned long long)(total - 8 - at));
		goto bad_s;
	}
	return s;
bad_s:
	pd_snapshot_free(s);
	return NULL;
bad:
	free(data);
	return NULL;
}

struct pd_snapshot *pd_snapshot_parse(const void *data, uint64_t len, struct pd_error *err)
{
	uint8_t *copy = malloc(len != 0 ? len : 1);

	if (copy == NULL) {
		pd_err(err, PD_ENOMEM, "snapshot: out of memory");
		return NULL;
	}
	if (len != 0)
		memcpy(copy, data, len);
	return parse_owned(copy, len, err);
}

struct pd_snapshot *pd_snapshot_read(const char *path, struct pd_error *err)
{
	struct stat st;
	uint8_t *data;
	uint64_t got = 0;
	/* O_NONBLOCK: a FIFO would wait for a writer in open(); it is refused below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		pd_err(err, errno == ENOENT ? PD_ENOENT : PD_EIO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		pd_err(err, PD_EIO, "%s: not a regular file", path);
		close(fd);
		return NULL;
	}
	data = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
	if (data == NULL) {
		pd_err(err, PD_ENOMEM, "%s: cannot allocate %lld bytes", path,
		       (long long)st.st_size);
		close(fd);
		return NULL;
	}
	while (got < (uint64_t)st.st_size) {
		ssize_t r = read(fd, data + got, (size_t)((uint64_t)st.st_size - got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			pd_err(err, PD_EIO, "%s: read: %s", path, r < 0 ? strerror(errno) :
				       "file shrank while reading");
			free(data);
			close(fd);
			return NULL;
		}
		got += (uint64_t)r;
	}
	close(fd);
	return parse_owned(data, got, err);
}

const char *pd_snapshot_tag(const struct pd_snapshot *s)
{
	return s->tag;
}

unsigned pd_snapshot_count(const struct pd_snapshot *s)
{
	return s->n;
}

int pd_snapshot_params(const struct pd_snapshot *s, unsigned i, struct pd_filter_params *p,
		       struct pd_error *err)
{
	enum pd_filter_type t;

	if (i >= s->nfilters)
		return pd_err(err, PD_EINVAL, "snapshot: image %u of %u is not a filter state", i,
			      s->n);
	if (pd_filter_desc_of_id(get32(s->img[i] + 12), &t) == NULL)
		return pd_err(err, PD_ECORRUPT, "snapshot: image %u: unknown filter number %u", i,
			      get32(s->img[i] + 12));
	params_get(s->img[i] + 16, t, p);
	return 0;
}

int pd_snapshot_image(const struct pd_snapshot *s, unsigned i, const void **data,
		      uint64_t *len)
{
	if (i >= s->n)
		return -1;
	*data = s->img[i];
	*len = s->ilen[i];
	return 0;
}

int pd_snapshot_load(const struct pd_snapshot *s, unsigned i, struct pd_filter *f,
		     struct pd_error *err)
{
	if (i >= s->nfilters)
		return pd_err(err, PD_EINVAL, "snapshot: image %u of %u is not a filter state", i,
			      s->n);
	return pd_filter_load_state(f, s->img[i], s->ilen[i], err);
}

/*
 * Whether NAME.tmp.PID in @p dirfd is provably a temporary file a snapshot writer left:
 * a regular file of this user's with one link, mode 0600 as create_temp makes it, whose
 * bytes begin with the file magic (or, cut short before the magic was whole, are a prefix
 * of it). Anything else (a capture or snapshot a user named so, a hard link to one, a
 * symlink, another user's file) is not ours to remove.
 */
static int stale_temp_is_ours(int dirfd, const char *name, struct stat *st)
{
	char head[8];
	ssize_t got;
	int fd, ours;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_nlink != 1 ||
	    st->st_uid != geteuid() || (st->st_mode & 07777) != 0600) {
		close(fd);
		return 0;
	}
	got = pread(fd, head, sizeof(head), 0);
	ours = got >= 0 && got == (st->st_size < 8 ? st->st_size : 8) &&
	       memcmp(head, FILE_MAGIC, (size_t)got) == 0;
	close(fd);
	return ours;
}

int pd_snapshot_clean_stale(const char *path_given, uint64_t *files, uint64_t *bytes,
			    struct pd_error *err)
{
	char path[PATH_MAX], dir[PATH_MAX];
	const char *base, *slash;
	size_t blen;
	DIR *d;
	struct dirent *e;

	*files = *bytes = 0;
	if (snapshot_target(path_given, path, sizeof(path), err) != 0)
		return -1;
	slash = strrchr(path, '/');
	base = slash != NULL ? slash + 1 : path;
	dir_of(path, dir, sizeof(dir));
	blen = strlen(base);
	d = opendir(dir);
	if (d == NULL)
		return errno == ENOENT ? 0 : pd_err(err, PD_EIO, "snapshot %s: %s: %s", path_given,
						    dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		const char *p = e->d_name;
		char *end;
		long pid;
		struct stat st;

		/* NAME.tmp.PID, PID a process that no longer exists */
		if (strncmp(p, base, blen) != 0 || strncmp(p + blen, ".tmp.", 5) != 0)
			continue;
		p += blen + 5;
		if (*p < '1' || *p > '9')
			continue;
		errno = 0;
		pid = strtol(p, &end, 10);
		if (*end != '\0' || errno != 0 || pid <= 0 || pid > INT_MAX)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive, or not ours to judge */
		if (!stale_temp_is_ours(dirfd(d), e->d_name, &st))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0) {
			(*files)++;
			*bytes += (uint64_t)st.st_size;
		}
	}
	closedir(d);
	return 0;
}
