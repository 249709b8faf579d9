/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --snapshot FILE: the workers' filters survive a restart.
 *
 * At start (pd_snap_prepare, before the filters exist; pd_snap_load, after) an existing
 * file is read and checked: its tag (key options and dispatch mode), its worker count,
 * then each worker's filter parameters and seed. The seed comes from the snapshot
 * unless --seed is given. After the workers' filter images the file holds, when the
 * live estimate is on, each worker's estimate state (pd_estimate_save_state): the shadow
 * must remember what the filter remembers, or every restored key's first copy would
 * count as a false positive. Any refusal says why; the run then stops with status 3
 * (PD_APP_STATUS_SNAPSHOT: a restart would refuse it again), or
 * with --snapshot-policy fresh starts with empty filters and says so.
 *
 * While running (--snapshot-interval) a thread of its own asks every worker for a copy
 * of its filter. Inline, each worker copies between bursts, at most PD_SNAP_STEP bytes a
 * step (pd_filter_save_state_step), so no step holds the data path for long (the longest
 * step is reported). A replay's workers copy the whole filter after their batch; and
 * while its reader waits for input (pd_snap_idle_begin..end, a slow pipe) the thread
 * copies the idle filters itself, so a snapshot is due by the clock, not by how many
 * frames arrive. Then the thread writes the file (temporary file, fsync, rename). At a
 * clean stop the file is written from the stopped workers' filters.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>

#include <pktdedup/pd_snapshot.h>

#include "../common/cli.h"
#include "../common/json.h"
#include "pktdedup.h"

static struct pd_snapshot *loaded;
static int lock_fd = -1;
static char snap_file[PATH_MAX]; /* where --snapshot leads (pd_snap_lock) */
/* 0: workers may touch their filters; 1: none will until pd_snap_idle_end (a replay's
 * reader waits for input); 2: this thread is copying them meanwhile */
static _Atomic int idle;
static pthread_t thread;
static int thread_running;
static _Atomic int thread_quit;
static char tag[512];
static uint64_t written, failed;
static double last_write_s;
static double final_write_s; /* the final snapshot's write (seconds) */

static void make_tag(void)
{
	char key[400];

	cli_key_describe(&pd_app.cfg.key, key, sizeof(key));
	/* the layout version: state saved when a mode's key bytes were different is refused */
	snprintf(tag, sizeof(tag), "%s; key layout %d; dispatch %s", key, PD_KEY_LAYOUT_VERSION,
		 pd_app.nworkers == 1 ? "none" : pd_app.dispatching ? "software" : "rss");
}

/* A snapshot that cannot be used: 0 to go on with empty filters, -1 to stop. */
static int refuse(const char *why)
{
	PD_LOG(ERR, "snapshot %s refused: %s\n", pd_app.cfg.snapshot, why);
	pd_snapshot_free(loaded);
	loaded = NULL;
	if (!pd_app.cfg.snapshot_fresh) {
		PD_LOG(ERR, "stopping (--snapshot-policy fresh would start with"
			" empty filters and overwrite it)\n");
		return -1;
	}
	PD_LOG(WARNING, "--snapshot-policy fresh: starting with empty filters;"
		" the file will be overwritten\n");
	return 0;
}

/*
 * Before anything starts: take the snapshot's lock for the whole run (two runs sharing
 * one snapshot would each write their own state over the other's, both reporting
 * success), then remove the temporary files of writers that died mid-write.
 */
int pd_snap_lock(void)
{
	const char *path = pd_app.cfg.snapshot;
	char lock[PATH_MAX + 8];
	struct pd_error err;
	uint64_t files, bytes;

	if (path == NULL)
		return 0;
	/* the file the name leads to, followed through symlinks (dangling ones too) once:
	 * the lock, the temporary files, the read and every write use it, so two runs
	 * naming one file through two links conflict, and a link made to point elsewhere
	 * during the run changes nothing */
	if (pd_app_resolve(path, snap_file, sizeof(snap_file)) != 0) {
		PD_LOG(ERR, "--snapshot %s: %s\n", path, strerror(errno));
		return -1;
	}
	snprintf(lock, sizeof(lock), "%s.lock", snap_file);
	lock_fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lock_fd < 0) {
		PD_LOG(ERR, "--snapshot %s: cannot open its lock %s: %s\n", path,
			lock, strerror(errno));
		return -1;
	}
	if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
		PD_LOG(ERR, "--snapshot %s: in use by another run (%s is locked):"
			" two runs sharing one snapshot would overwrite each other's state\n",
			path, lock);
		close(lock_fd);
		lock_fd = -1;
		return -1;
	}
	if (pd_snapshot_clean_stale(snap_file, &files, &bytes, &err) != 0) {
		PD_LOG(ERR, "%s\n", err.msg);
		return -1;
	}
	if (files != 0)
		PD_LOG(NOTICE, "snapshot %s: removed %" PRIu64 " temporary file%s"
			" (%" PRIu64 " bytes) left by runs that died while writing it\n", path,
			files, files == 1 ? "" : "s", bytes);
	return 0;
}

/*
 * The first option the snapshot was made with another value of, or 0: the options a
 * user gives (the filter, its memory, the loss budget, the window), then the parameters
 * the planner derives from them when the user gave them too, so that the message names
 * what was changed (--fpr), not what followed from it (b, f).
 */
static int option_differs(const struct pd_filter_params *was, char *why, size_t len)
{
	const struct pd_filter_params *now = &pd_app.plan.params;
	const struct pd_filter_params *given = &pd_app.cfg.filter;
	const struct {
		const char *opt;
		double was, now;
		int derived; /* compared only when the user gave it */
		uint64_t given;
	} o[] = {
		{"--memory", (double)was->memory_bytes, (double)now->memory_bytes, 0, 0},
		{"--fpr", was->target_fpr, now->target_fpr, 0, 0},
		{"--window (ns)", (double)was->window, (double)now->window, 0, 0},
		{"--window-mode (0 seen, 1 delivered)", was->window_mode, now->window_mode, 0, 0},
		{"--expected-n", (double)was->expected_n, (double)now->expected_n, 0, 0},
		{"--k", was->k, now->k, 1, given->k},
		{"--max", was->sbf_max, now->sbf_max, 1, given->sbf_max},
		{"--p", was->sbf_p, now->sbf_p, 1, given->sbf_p},
		{"--pstar", was->rsbf_pstar, now->rsbf_pstar, 1, given->rsbf_pstar != 0},
		{"--b", was->qht_b, now->qht_b, 1, given->qht_b},
		{"--f", was->qht_f, now->qht_f, 1, given->qht_f},
		{"--q", was->fpbuf_q, now->fpbuf_q, 1, given->fpbuf_q != 0},
		{"--equal-timers", was->equal_timers, now->equal_timers, 1, given->equal_timers},
	};

	if (was->type != now->type) {
		snprintf(why, len, "made with --filter %s, this run has --filter %s",
			 pd_filter_type_name(was->type), pd_filter_type_name(now->type));
		return 1;
	}
	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++)
		if (o[i].was != o[i].now && (!o[i].derived || o[i].given)) {
			snprintf(why, len, "made with %s %.10g, this run has %s %.10g", o[i].opt,
				 o[i].was, o[i].opt, o[i].now);
			return 1;
		}
	return 0;
}

/* Whether image i is an estimate's state. */
static int is_estimate(const struct pd_snapshot *snap, unsigned i)
{
	const void *d;
	uint64_t len;

	return pd_snapshot_image(snap, i, &d, &len) == 0 && len >= 8 &&
	       memcmp(d, PD_ESTIMATE_STATE_MAGIC, 8) == 0;
}

/* The workers a snapshot was made with: its images, or half of them when the second
 * half is the estimates'. */
static unsigned snap_workers(const struct pd_snapshot *snap)
{
	const unsigned n = pd_snapshot_count(snap);

	return n % 2 == 0 && is_estimate(snap, n / 2) ? n / 2 : n;
}

/* Each worker's estimate state from the snapshot, when both have it. */
static void load_estimates(uint64_t keys)
{
	const unsigned n = pd_app.nworkers;
	struct pd_error err;

	if (pd_app.w[0]->est == NULL)
		return;
	if (pd_snapshot_count(loaded) != 2 * n) {
		if (keys != 0)
			PD_LOG(WARNING, "snapshot %s holds no state of the live estimate (made"
				" with it off, or by an older build): the first copy of each key"
				" it remembers counts as a false positive in the estimate\n",
				pd_app.cfg.snapshot);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		const void *d;
		uint64_t len;

		snprintf(err.msg, sizeof(err.msg), "no image");
		if (pd_snapshot_image(loaded, n + i, &d, &len) != 0 ||
		    pd_estimate_load_state(pd_app.w[i]->est, d, len, &err) != 0)
			PD_LOG(WARNING, "snapshot %s: worker %u's estimate state not taken (%s):"
				" its estimate counts the first copy of each key the filter"
				" remembers as a false positive\n", pd_app.cfg.snapshot, i,
				err.msg);
	}
}

/* Whether the file at @p path is a snapshot, whole or not: its first bytes are the
 * magic (a file cut short before the magic was whole, or empty, holds a prefix of it).
 * --snapshot-policy fresh writes over a snapshot it cannot use, never over a file of
 * another kind (a capture named by mistake), as pd_snapshot_clean_stale leaves alone a
 * temporary-looking file that is not one of its own. */
static int is_snapshot(const char *path)
{
	char head[8];
	struct stat st;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), ours;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	got = pread(fd, head, sizeof(head), 0);
	ours = got >= 0 && got == (st.st_size < 8 ? st.st_size : 8) &&
	       memcmp(head, PD_SNAPSHOT_MAGIC, (size_t)got) == 0;
	close(fd);
	return ours;
}

int pd_snap_prepare(void)
{
	struct pd_app_config *c = &pd_app.cfg;
	struct pd_filter_params p;
	struct pd_error err;
	char why[600];

	if (c->snapshot == NULL)
		return 0;
	make_tag();
	loaded = pd_snapshot_read(snap_file, &err);
	if (loaded == NULL) {
		if (err.code == PD_ENOENT) {
			PD_LOG(INFO, "snapshot %s does not exist yet: starting with"
				" empty filters\n", c->snapshot);
			return 0;
		}
		if (c->snapshot_fresh && !is_snapshot(snap_file)) {
			PD_LOG(ERR, "snapshot %s refused: %s\n", c->snapshot, err.msg);
			PD_LOG(ERR, "stopping, the file left alone: --snapshot-policy fresh"
				" writes over a snapshot it cannot use, not over a file of"
				" another kind; give another --snapshot path\n");
			return -1;
		}
		return refuse(err.msg);
	}
	if (snap_workers(loaded) != pd_app.nworkers) {
		snprintf(why, sizeof(why), "made with %u worker%s, this run has %u",
			 snap_workers(loaded), snap_workers(loaded) == 1 ? "" : "s",
			 pd_app.nworkers);
		return refuse(why);
	}
	if (strcmp(pd_snapshot_tag(loaded), tag) != 0) {
		snprintf(why, sizeof(why), "made with \"%s\", this run has \"%s\"",
			 pd_snapshot_tag(loaded), tag);
		return refuse(why);
	}
	if (pd_snapshot_params(loaded, 0, &p, &err) == 0) {
		if (option_differs(&p, why, sizeof(why)))
			return refuse(why);
		if (!c->seed_given) /* the hash secret carries over, into the plan the
				     * workers' filters are made from */
			c->filter.seed = pd_app.plan.params.seed = p.seed;
	}
	return 0;
}

int pd_snap_load(void)
{
	struct pd_error err;
	uint64_t keys = 0;

	if (loaded == NULL)
		return 0;
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		struct pd_filter_stats st;

		if (pd_snapshot_load(loaded, i, pd_app.w[i]->filter, &err) != 0) {
			char why[400];

			snprintf(why, sizeof(why), "worker %u: %s", i, err.msg);
			for (unsigned j = 0; j < i; j++)
				pd_filter_reset(pd_app.w[j]->filter);
			return refuse(why);
		}
		pd_filter_stats(pd_app.w[i]->filter, &st);
		keys += st.keys;
	}
	PD_LOG(INFO, "snapshot %s loaded: %u worker%s, %" PRIu64
		" keys seen before\n", pd_app.cfg.snapshot, pd_app.nworkers,
		pd_app.nworkers == 1 ? "" : "s", keys);
	load_estimates(keys);
	pd_snapshot_free(loaded);
	loaded = NULL;
	return 0;
}

/* Worker side: one step of the requested copy (called between bursts). */
void pd_snap_step(struct pd_worker *w, uint64_t max_bytes)
{
	struct pd_worker_snap *s = &w->snap;
	struct pd_error err;
	uint64_t t0 = pd_now_ns(), dt;
	int r;

	r = pd_filter_save_state_step(w->filter, s->buf, s->cap, &s->done, max_bytes, &err);
	/* then the estimate's 1 MiB in the same step: 32 us (pd_estimate_save_state of a
	 * 32,768-entry set, best of 50 on the 2-core EPYC), counted in the step's time */
	if (r > 0 && s->est_buf != NULL)
		s->est_len = (uint64_t)pd_estimate_save_state(w->est, s->est_buf,
							      pd_estimate_state_size(w->est));
	dt = pd_now_ns() - t0;
	s->steps++;
	s->copy_ns += dt;
	if (dt > s->step_max_ns)
		s->step_max_ns = dt;
	if (r == 0)
		return;
	if (r < 0)
		s->need = pd_filter_state_size(w->filter);
	atomic_store_explicit(&s->state, r > 0 ? PD_SNAP_COPIED : PD_SNAP_TOO_SMALL,
			      memory_order_release); /* the copy (or need) before the state */
}

static int grow(struct pd_worker_snap *s, uint64_t need)
{
	uint8_t *b;

	if (s->cap >= need)
		return 0;
	need += need / 4 + (1u << 20); /* room for exact and lru to grow meanwhile */
	b = realloc(s->buf, need);
	if (b == NULL)
		return -1;
	memset(b, 0, need); /* fault the pages in here, not in the worker's copy steps */
	s->buf = b;
	s->cap = need;
	return 0;
}

/* The buffer of a worker's estimate state (none without the estimate). */
static int est_buffer(struct pd_worker *w)
{
	if (w->est == NULL || w->snap.est_buf != NULL)
		return 0;
	w->snap.est_buf = malloc(pd_estimate_state_size(w->est));
	return w->snap.est_buf == NULL ? -1 : 0;
}

void pd_snap_idle_begin(void)
{
	atomic_store_explicit(&idle, 1, memory_order_release);
}

void pd_snap_idle_end(void)
{
	for (;;) {
		int one = 1;

		if (atomic_compare_exchange_weak_explicit(&idle, &one, 0, memory_order_acq_rel,
							  memory_order_acquire))
			return;
		if (one == 2) /* the snapshot thread is copying: it takes a few ms */
			rte_delay_us_sleep(50);
	}
}

/* While the workers leave their filters alone (idle), the thread copies worker w's
 * filter itself, whole: 1 when it did. */
static int copy_while_idle(struct pd_worker *w)
{
	int one = 1;

	if (!atomic_compare_exchange_strong_explicit(&idle, &one, 2, memory_order_acq_rel,
						     memory_order_acquire))
		return 0;
	while (atomic_load_explicit(&w->snap.state, memory_order_acquire) == PD_SNAP_REQUESTED)
		pd_snap_step(w, UINT64_MAX);
	atomic_store_explicit(&idle, 1, memory_order_release);
	return 1;
}

/* Periodic writes failed in a row, and the last one's reason: a failure is said when its
 * reason is new (a full disk every 10 ms said once, not 100 times a second), and a
 * success after failures says how many there were. */
static uint64_t failed_since;
static char last_failure[sizeof(((struct pd_error *)0)->msg)];

static int periodic_failed(const char *why)
{
	if (strcmp(why, last_failure) != 0) {
		PD_LOG(ERR, "snapshot: %s%s\n", why, failed_since != 0 ? "" :
		       " (said again only when the reason changes; --stats-json counts the"
		       " failed writes)");
		snprintf(last_failure, sizeof(last_failure), "%s", why);
	}
	failed_since++;
	return -1;
}

/* One periodic snapshot: every worker copies (or, while they are idle, this thread
 * copies for them), then the file is written. */
static int periodic(void)
{
	const void *img[2 * PD_APP_MAX_WORKERS];
	uint64_t len[2 * PD_APP_MAX_WORKERS];
	const unsigned n = pd_app.nworkers;
	struct pd_error err;
	double t0 = pd_now_s();

	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		struct pd_worker_snap *s = &pd_app.w[i]->snap;

		for (;;) {
			int st;

			s->done = 0;
			atomic_store_explicit(&s->state, PD_SNAP_REQUESTED, memory_order_release);
			while ((st = atomic_load_explicit(&s->state, memory_order_acquire)) ==
			       PD_SNAP_REQUESTED) {
				if (thread_quit || atomic_load_explicit(&s->stopped,
									memory_order_acquire))
					return 1; /* stopping: the final snapshot follows */
				if (!copy_while_idle(pd_app.w[i]))
					rte_delay_us_sleep(100);
			}
			if (st == PD_SNAP_COPIED)
				break;
			if (grow(s, s->need) != 0) {
				atomic_store_explicit(&s->state, PD_SNAP_IDLE, memory_order_relaxed);
				snprintf(err.msg, sizeof(err.msg), "cannot allocate %" PRIu64
					 " bytes for worker %u's copy", s->need, i);
				return periodic_failed(err.msg);
			}
		}
		img[i] = s->buf;
		len[i] = s->done;
		img[n + i] = s->est_buf;
		len[n + i] = s->est_len;
		atomic_store_explicit(&s->state, PD_SNAP_IDLE, memory_order_relaxed);
	}
	if (pd_snapshot_write(snap_file, tag, img, len, pd_app.w[0]->est != NULL ? 2 * n : n,
			      &err) != 0)
		return periodic_failed(err.msg);
	if (failed_since != 0)
		PD_LOG(NOTICE, "snapshot %s written again, after %" PRIu64 " failed write%s\n",
		       snap_file, failed_since, failed_since == 1 ? "" : "s");
	failed_since = 0;
	last_failure[0] = '\0';
	last_write_s = pd_now_s() - t0;
	return 0;
}

static void *snap_thread(void *arg)
{
	double next = pd_now_s() + pd_app.cfg.snapshot_interval;
	sigset_t stop;

	(void)arg;
	/* the stop signals go to the main thread, whose reads they must interrupt */
	pd_stop_signals(&stop);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	while (!thread_quit) {
		int r;

		if (pd_now_s() < next) {
			rte_delay_us_sleep(10000);
			continue;
		}
		r = periodic();
		if (r > 0)
			break;
		if (r == 0)
			written++;
		else
			failed++;
		next = pd_now_s() + pd_app.cfg.snapshot_interval;
	}
	return NULL;
}

int pd_snap_start(void)
{
	const struct pd_app_config *c = &pd_app.cfg;

	if (c->snapshot == NULL || c->snapshot_interval <= 0)
		return 0;
	for (unsigned i = 0; i < pd_app.nworkers; i++)
		if (grow(&pd_app.w[i]->snap, pd_filter_state_size(pd_app.w[i]->filter)) != 0 ||
		    est_buffer(pd_app.w[i]) != 0) {
			PD_LOG(ERR, "snapshot: cannot allocate the copy buffers\n");
			return -1;
		}
	/* named in ps; inline, on the CPUs the lcores leave free */
	if (pd_thread_ctrl(&thread, "pd-snapshot", snap_thread) != 0) {
		PD_LOG(ERR, "snapshot: cannot start its thread\n");
		return -1;
	}
	thread_running = 1;
	return 0;
}

/* After the workers stopped: stop the thread, write the final snapshot. */
int pd_snap_finish(void)
{
	const void *img[2 * PD_APP_MAX_WORKERS];
	uint64_t len[2 * PD_APP_MAX_WORKERS];
	const unsigned n = pd_app.nworkers;
	const int est = n != 0 && pd_app.w[0]->est != NULL;
	struct pd_error err;
	int rc = 0;

	if (pd_app.cfg.snapshot == NULL)
		return 0;
	thread_quit = 1;
	if (thread_running)
		pthread_join(thread, NULL);
	thread_running = 0;
	for (unsigned i = 0; i < n; i++)
		if (pd_app.w[i]->filter == NULL)
			return 0; /* never started: nothing to save */
	final_write_s = pd_now_s();
	for (unsigned i = 0; i < n && rc == 0; i++) { /* the stopped workers' state */
		struct pd_worker *w = pd_app.w[i];
		struct pd_worker_snap *s = &w->snap;

		if (grow(s, pd_filter_state_size(w->filter)) != 0 || est_buffer(w) != 0) {
			snprintf(err.msg, sizeof(err.msg), "cannot allocate the images");
			rc = -1;
			break;
		}
		if (pd_filter_save_state(w->filter, s->buf, s->cap, &len[i], &err) != 0) {
			rc = -1;
			break;
		}
		img[i] = s->buf;
		if (est) {
			img[n + i] = s->est_buf;
			len[n + i] = (uint64_t)pd_estimate_save_state(w->est, s->est_buf,
								      pd_estimate_state_size(w->est));
		}
	}
	if (rc == 0)
		rc = pd_snapshot_write(snap_file, tag, img, len, est ? 2 * n : n, &err);
	final_write_s = pd_now_s() - final_write_s;
	if (rc != 0) {
		PD_LOG(ERR, "snapshot: %s\n", err.msg);
		rc = -1;
	} else {
		PD_LOG(INFO, "snapshot %s written (%u worker%s)\n",
			pd_app.cfg.snapshot, pd_app.nworkers, pd_app.nworkers == 1 ? "" : "s");
	}
	for (unsigned i = 0; i < n; i++) {
		free(pd_app.w[i]->snap.buf);
		free(pd_app.w[i]->snap.est_buf);
		pd_app.w[i]->snap.buf = pd_app.w[i]->snap.est_buf = NULL;
	}
	return rc;
}

/* The "snapshot" object of the JSON summary (nothing without --snapshot). */
void pd_snap_json(struct json *j)
{
	uint64_t steps = 0, maxns = 0, ns = 0;

	if (pd_app.cfg.snapshot == NULL)
		return;
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		const struct pd_worker_snap *s = &pd_app.w[i]->snap;

		steps += s->steps;
		ns += s->copy_ns;
		if (s->step_max_ns > maxns)
			maxns = s->step_max_ns;
	}
	json_open(j, "snapshot", '{', 1);
	json_u64(j, "periodic_written", written);
	json_u64(j, "periodic_failed", failed);
	json_u64(j, "copy_steps", steps);
	json_f64(j, "step_max_us", "%.1f", maxns / 1e3);
	json_f64(j, "copy_total_ms", "%.3f", ns / 1e6);
	json_f64(j, "last_write_ms", "%.3f", last_write_s * 1e3);
	json_f64(j, "final_write_ms", "%.3f", final_write_s * 1e3);
	json_close(j);
}

double pd_snap_final_write_s(void)
{
	return final_write_s;
}
