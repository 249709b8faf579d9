/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software dispatch's ring (app/pktdedup/spsc.h) against a plain model and across two
 * threads:
 *  - one thread, a ring of 8 slots of 3 bytes (slots that straddle nothing, so a wrong
 *    offset shows), publishing every put, in batches of 3 and in batches of 6: random
 *    puts, gets and flushes (everything, whole lines, stale rings), every count, room
 *    and byte checked against a model queue written here (an array and four counters:
 *    put, published, taken, published at the last stale flush), room never more than
 *    the model's and never short of a burst that fits, a get never seeing an
 *    unpublished slot, the ring empty to the consumer exactly when every published slot
 *    is taken. A batch's put and a flush of lines publish up to the last whole line: 21
 *    slots of 3 bytes fit a 64-byte line, counted as the power of two below that, the
 *    batch and the ring (16, capped to 2 for batches of 3 and to 4 for batches of 6).
 *    A stale flush publishes everything when nothing was published since the last one.
 *    Puts and gets in place (a writer's slots, peek and release) take their turns
 *    among the others and are checked the same way;
 *  - two threads, a ring of 16 slots of 16 bytes (4 a line), publishing every put and
 *    in batches of 5: a producer puts 4,000,000 numbered slots in bursts of 1 to 32
 *    (flushing whole lines, stale rings or everything now and then, and everything at
 *    the end), a consumer takes them in bursts of 1 to 32 and checks that they come
 *    complete, once each and in order (the ring is full and empty often); then again
 *    with both sides in place, as worker.c puts and gets its lookups. A thread that
 *    finds the ring full or empty yields its CPU: spinning, the two threads on one CPU
 *    (taskset -c 0, as on a loaded 2-CPU machine) took over 120 s, and the sanitizers'
 *    suite spent 45 s here; yielding, 1.5 s. A planted race (the consumer giving its
 *    slots back before copying them out) still fails every run on two CPUs.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../app/pktdedup/spsc.h"

static _Alignas(PD_SPSC_LINE) unsigned char mem_small[sizeof(struct pd_spsc) + 8 * 3];

static uint64_t rng = 88172645463325252ULL;

static unsigned draw(unsigned n) /* 0..n-1, xorshift64 */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void model_run(unsigned batch, unsigned line)
{
	struct pd_spsc *r = pd_spsc_init(mem_small, 8, 3, batch);
	static unsigned char model[1 << 16][3]; /* every slot ever put, in order */
	unsigned put = 0, pub = 0, got = 0, seen = 0;

	assert_int_equal(pd_spsc_bytes(8, 3), sizeof(mem_small));
	for (int step = 0; step < 20000; step++) {
		unsigned char buf[12][3];
		const unsigned n = draw(12), what = draw(9);

		if (what == 0) {
			pd_spsc_flush(r);
			pub = put;
		} else if (what == 6) {
			pd_spsc_flush_stale(r);
			if (pub == seen)
				pub = put;
			seen = pub;
		} else if (what == 5) {
			pd_spsc_flush_lines(r);
			if (put / line * line > pub)
				pub = put / line * line;
		} else if (what <= 2 || what == 7) {
			const unsigned want = n < 8 - (put - got) ? n : 8 - (put - got);

			for (unsigned i = 0; i < n; i++)
				for (int b = 0; b < 3; b++)
					buf[i][b] = (unsigned char)draw(256);
			/* a lower bound, exact when short of n (the consumer's index re-read) */
			const unsigned room = pd_spsc_room(r, n);

			assert_true(room <= 8 - (put - got));
			assert_true(room >= want);
			if (what == 7) { /* in place: each slot written where it lies */
				struct pd_spsc_writer wr;
				unsigned char *slot;
				unsigned k = 0;

				pd_spsc_writer_begin(r, &wr, n);
				while ((slot = pd_spsc_writer_next(&wr, 3)) != NULL)
					memcpy(slot, buf[k++], 3);
				assert_int_equal(k, want);
				assert_int_equal(pd_spsc_writer_end(r, &wr), want);
			} else {
				assert_int_equal(pd_spsc_put(r, buf, n, 3), want);
			}
			for (unsigned i = 0; i < want; i++)
				memcpy(model[(put + i) & 0xffff], buf[i], 3);
			put += want;
			if (put - pub >= batch && put / line * line > pub)
				pub = put / line * line;
		} else if (what == 8) { /* read in place */
			const unsigned want = n < pub - got ? n : pub - got;

			assert_int_equal(pd_spsc_peek(r, n), want);
			for (unsigned i = 0; i < want; i++)
				assert_memory_equal(pd_spsc_peek_slot(r, i, 3),
						    model[(got + i) & 0xffff], 3);
			pd_spsc_release(r, want);
			got += want;
		} else {
			const unsigned want = n < pub - got ? n : pub - got;

			assert_int_equal(pd_spsc_empty(r), pub == got);
			assert_int_equal(pd_spsc_get(r, buf, n, 3), want);
			for (unsigned i = 0; i < want; i++)
				assert_memory_equal(buf[i], model[(got + i) & 0xffff], 3);
			got += want;
		}
	}
	assert_true(put > 10000);
}

static void test_model(void **state)
{
	(void)state;
	model_run(1, 1);
	model_run(3, 2);
	model_run(6, 4);
}

#define SLOTS 4000000ULL

struct slot {
	uint64_t seq, check;
};

static int in_place; /* threads_run: both sides put and get in place (spsc.h's writer, peek) */

/* Up to n slots from s put in place, as worker.c's dispatch_burst_as puts them. */
static unsigned put_in_place(struct pd_spsc *r, const struct slot *s, unsigned n)
{
	struct pd_spsc_writer wr;
	struct slot *l;
	unsigned k = 0;

	pd_spsc_writer_begin(r, &wr, n);
	while ((l = pd_spsc_writer_next(&wr, sizeof(*l))) != NULL)
		*l = s[k++];
	return pd_spsc_writer_end(r, &wr);
}

/* Up to n slots into s, read in place, as worker.c's decide_handed reads them. */
static unsigned get_in_place(struct pd_spsc *r, struct slot *s, unsigned n)
{
	n = pd_spsc_peek(r, n);
	for (unsigned i = 0; i < n; i++)
		memcpy(&s[i], pd_spsc_peek_slot(r, i, sizeof(s[0])), sizeof(s[0]));
	pd_spsc_release(r, n);
	return n;
}

static void *producer(void *arg)
{
	struct pd_spsc *r = arg;
	uint64_t next = 0, x = 1;
	unsigned puts = 0;

	while (next < SLOTS) {
		struct slot s[32];
		unsigned n;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		n = 1 + (unsigned)(x >> 59);
		if (n > SLOTS - next)
			n = (unsigned)(SLOTS - next);
		for (unsigned i = 0; i < n; i++)
			s[i] = (struct slot){next + i, ~(next + i) * 3};
		for (unsigned done = 0; done < n;) {
			const unsigned put = in_place ? put_in_place(r, s + done, n - done)
						      : pd_spsc_put(r, s + done, n - done, sizeof(s[0]));

			done += put;
			if (put == 0) /* full: let the consumer run, if it shares this CPU */
				sched_yield();
		}
		next += n;
		if (++puts % 7 == 0)
			pd_spsc_flush(r);
		else if (puts % 3 == 0)
			pd_spsc_flush_lines(r);
		else if (puts % 5 == 0)
			pd_spsc_flush_stale(r);
	}
	pd_spsc_flush(r);
	return NULL;
}

static void threads_run(unsigned batch)
{
	void *mem = aligned_alloc(PD_SPSC_LINE, pd_spsc_bytes(16, sizeof(struct slot)));
	struct pd_spsc *r = pd_spsc_init(mem, 16, sizeof(struct slot), batch);
	uint64_t next = 0, bad = 0, x = 7;
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, producer, r), 0);
	while (next < SLOTS) {
		struct slot s[32];
		unsigned n;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		n = in_place ? get_in_place(r, s, 1 + (unsigned)(x >> 59))
			     : pd_spsc_get(r, s, 1 + (unsigned)(x >> 59), sizeof(s[0]));
		if (n == 0) /* empty: let the producer run, if it shares this CPU */
			sched_yield();
		for (unsigned i = 0; i < n; i++)
			bad += s[i].seq != next + i || s[i].check != ~(next + i) * 3;
		next += n;
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(bad, 0);
	assert_int_equal(pd_spsc_get(r, (struct slot[1]){{0, 0}}, 1, sizeof(struct slot)), 0);
	free(mem);
}

static void test_threads(void **state)
{
	(void)state;
	threads_run(1);
	threads_run(5);
	in_place = 1;
	threads_run(1);
	threads_run(5);
	in_place = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
