/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the workers run and where their state lives: on EAL's lcores with EAL's memory
 * (inline runs, and a replay given --telemetry, whose socket is EAL's), or on plain
 * threads with malloc (every other replay, which starts no EAL).
 *
 * Why a replay goes without EAL: starting it costs about 0.2 s before the first frame,
 * some seven times a whole replay of pcap/dups.pcap without it (0.026-0.033 s a replay,
 * 0.241-0.258 s with EAL, the 2-core EPYC; docs/app.md has the command).
 * 0.1 s of it is EAL's sleep to time the TSC, on CPUs that do not report its frequency,
 * and about half the rest loading the 128 drivers of Debian's DPDK. A replay needs none
 * of what EAL gives: no ports, no mbufs, no hugepages; its workers meet at a pthread
 * barrier (replay.c) and its times come from the monotonic clock (pd_now_s).
 *
 * A replay's threads are not pinned (replays run side by side; with --telemetry its
 * lcores float too: "(0-N)@(0-CPUs)"). Worker 0 is the main thread, the reader; the
 * others start with every signal blocked, so that the stop signals reach the reader,
 * whose blocking read they interrupt (main.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "pktdedup.h"

/* The plain threads of a replay without EAL, by worker index. */
static struct {
	pthread_t tid;
	int (*fn)(void *);
	void *arg;
	int started;
} th[PD_APP_MAX_WORKERS];
static _Atomic unsigned running;

unsigned pd_threads_lcores(unsigned *lcore, unsigned max, int *socket)
{
	unsigned n = 0, l;

	if (!pd_app.eal) {
		for (n = 0; n < max; n++) {
			lcore[n] = n;
			socket[n] = SOCKET_ID_ANY;
		}
		return n;
	}
	RTE_LCORE_FOREACH(l) {
		if (n == max)
			break;
		lcore[n] = l;
		socket[n++] = (int)rte_lcore_to_socket_id(l);
	}
	return n;
}

void *pd_state_zalloc(const char *what, size_t size, int socket)
{
	void *p;

	if (pd_app.eal)
		return rte_zmalloc_socket(what, size, RTE_CACHE_LINE_SIZE, socket);
	size = (size + RTE_CACHE_LINE_SIZE - 1) & ~(size_t)(RTE_CACHE_LINE_SIZE - 1);
	p = aligned_alloc(RTE_CACHE_LINE_SIZE, size);
	if (p != NULL)
		memset(p, 0, size);
	return p;
}

void pd_state_free(void *p)
{
	if (pd_app.eal)
		rte_free(p);
	else
		free(p);
}

/* A thread that takes no signal: they go to the main thread. */
static int start_thread(pthread_t *tid, const char *name, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		pthread_setname_np(*tid, name); /* 15 characters at most: seen in ps and top */
	return rc;
}

/*
 * A replay's threads wait at a gate until all of them are made: if one cannot be (a
 * limit on threads: EAGAIN), the others are sent back before they run, as a worker
 * started alone would wait at replay.c's barrier for the missing one forever.
 */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate; /* 0: wait; 1: run; -1: return without running */

static void set_gate(int how)
{
	pthread_mutex_lock(&gate_lock);
	gate = how;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static void *worker_thread(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;
	int go;

	pthread_mutex_lock(&gate_lock);
	while (gate == 0)
		pthread_cond_wait(&gate_cond, &gate_lock);
	go = gate > 0;
	pthread_mutex_unlock(&gate_lock);
	if (go)
		th[i].fn(th[i].arg);
	atomic_fetch_sub_explicit(&running, 1, memory_order_release);
	return NULL;
}

/* Worker i (not 0) on a thread of its own, held at the gate: 0 or an errno. */
static int start_worker(unsigned i, int (*fn)(void *))
{
	char name[16];
	int rc;

	th[i].fn = fn;
	th[i].arg = pd_app.w[i];
	snprintf(name, sizeof(name), "pd-worker-%u", i);
	atomic_fetch_add_explicit(&running, 1, memory_order_relaxed);
	rc = start_thread(&th[i].tid, name, worker_thread, (void *)(uintptr_t)i);
	th[i].started = rc == 0;
	if (rc != 0)
		atomic_fetch_sub_explicit(&running, 1, memory_order_relaxed);
	return rc;
}

int pd_threads_launch(int (*fn)(void *), int *main_ran)
{
	struct pd_worker *mainw = NULL;

	if (!pd_app.eal)
		set_gate(0);
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		struct pd_worker *w = pd_app.w[i];
		int rc;

		if (pd_app.eal ? w->lcore == rte_get_main_lcore() : i == 0) {
			mainw = w;
			continue;
		}
		rc = pd_app.eal ? -rte_eal_remote_launch(fn, w, w->lcore) : start_worker(i, fn);
		if (rc != 0) {
			PD_LOG(ERR, "cannot start worker %u: %s%s\n", i, strerror(rc),
			       rc == EAGAIN && !pd_app.eal ? " (the limit on processes and"
			       " threads, ulimit -u: raise it or give fewer --workers)" : "");
			pd_force_quit = 1;
			if (!pd_app.eal)
				set_gate(-1);
			return -1;
		}
	}
	if (!pd_app.eal)
		set_gate(1);
	if (mainw != NULL)
		fn(mainw);
	*main_ran = mainw != NULL;
	return 0;
}

int pd_threads_running(void)
{
	unsigned l;
	int any = 0;

	if (!pd_app.eal)
		return atomic_load_explicit(&running, memory_order_acquire) != 0;
	RTE_LCORE_FOREACH_WORKER(l)
		any |= rte_eal_get_lcore_state(l) == RUNNING;
	return any;
}

void pd_threads_wait(void)
{
	if (pd_app.eal) {
		rte_eal_mp_wait_lcore();
		return;
	}
	for (unsigned i = 0; i < PD_APP_MAX_WORKERS; i++)
		if (th[i].started) {
			pthread_join(th[i].tid, NULL);
			th[i].started = 0;
		}
}

int pd_thread_ctrl(pthread_t *tid, const char *name, void *(*fn)(void *))
{
	if (pd_app.eal) /* on the CPUs the lcores leave free */
		return rte_ctrl_thread_create(tid, name, NULL, fn, NULL);
	return start_thread(tid, name, fn, NULL);
}
