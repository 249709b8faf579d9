/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The disposition step: what happens to a frame between its bytes and its way out, the
 * same for inline (worker.c: mbufs, ports, dispatch) and replay (replay.c: batches,
 * files). Like VPP's nexts[] and step 3 of DPDK's l3fwd, it decides and counts; the
 * caller carries the decision out on its own frames.
 *
 *   1. pd_disp_key: the key of a frame's bytes, and where its IP header is (for a mark);
 *      a frame without one is counted by reason and gets its class: keyless, or
 *      unjudged when its key needs bytes it lacks but the packet has (a capture's snap
 *      length cut them, an HTTP request goes on in another segment).
 *   2. pd_disp_filter: one filter burst over the keys' hashes, with the bookkeeping
 *      around it (times, the delay histogram, --suggest-window's span, the live
 *      estimate's shadow, --allow) and each verdict counted: unique, duplicate, allowed.
 *   3. pd_disp_next: a frame's class (its verdict, or keyless, or bypassed) to the set of
 *      PD_NEXT_* steps the options give it, read from one table made at start
 *      (pd_disp_init); a frame that goes nowhere is counted as dropped.
 *   4. pd_disp_mark: --action mark's DSCP at the IP header step 1 found, counted as
 *      marked or unmarkable.
 *
 * The caller does, in this order: PD_NEXT_COPY (the frame as it came, to the copies'
 * file), PD_NEXT_MARK, then PD_NEXT_OUT (the kept output: the peer port, --pcap-out) or
 * PD_NEXT_DUP (--dup-port, instead). None of COPY, OUT and DUP: dropped.
 *
 * Steps 1, 3 and 4 run once per frame and are inline here; step 2 runs once per burst.
 */
#ifndef PKTDEDUP_APP_DISPOSITION_H
#define PKTDEDUP_APP_DISPOSITION_H

#include <pktdedup/pd_allow.h>
#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_key.h>

#include "mark.h"
#include "pktdedup.h"

/* A frame's class: its verdict (PD_DISTINCT, PD_DUPLICATE, PD_ALLOWED) or why it has
 * none. */
enum pd_class {
	PD_CLASS_KEYLESS = PD_ALLOWED + 1, /* no key: unparseable (counted by pd_disp_key) */
	PD_CLASS_BYPASS,                   /* not looked up: outside --bpf, owner's ring full */
	/* no key for want of bytes its packet has (pd_disp_key): forwarded, --unparseable
	 * drop or not, as it is neither malformed nor of another kind */
	PD_CLASS_UNJUDGED,
	PD_CLASS_COUNT
};

/* The steps of a frame's way out (one byte of the table, pd_app.next). */
enum {
	PD_NEXT_COPY = 1, /* a copy as it came to --dup-out (replay) */
	PD_NEXT_MARK = 2, /* the DSCP written (--action mark) */
	PD_NEXT_OUT = 4,  /* to the kept output: the peer port, --pcap-out */
	PD_NEXT_DUP = 8,  /* to --dup-port instead (inline) */
};

/* The table of steps by class, from the options: once, before the workers run. */
void pd_disp_init(struct pd_app *app);
/* The delay histogram's bucket finder, before the workers run. */
void pd_delay_buckets_init(void);

/* Step 1: the key of @p p (len bytes of a frame of @p wire bytes, of kc's link type)
 * into buf (cap bytes), its length in *klen, and where its IP header is in *ip: 0, or
 * the class of a frame without one (PD_CLASS_KEYLESS, PD_CLASS_UNJUDGED) with the reason
 * counted. A frame captured in part (wire > len: replay's snap length) has no key where
 * the key needs the bytes cut (pd_key_extract_cut); inline, wire is len and the test
 * folds away. */
static inline int pd_disp_key(struct pd_worker *w, const struct pd_key_config *kc,
			      const uint8_t *p, uint32_t len, uint32_t wire, uint8_t *buf,
			      size_t cap, size_t *klen, struct pd_key_ip *ip)
{
	enum pd_key_reason r = wire <= len ? pd_key_extract_ip(kc, p, len, buf, cap, klen, ip) :
			       pd_key_extract_cut(kc, p, len, wire, buf, cap, klen, ip);

	if (unlikely(ip->encaps != 0)) /* never without --decap */
		for (unsigned k = 0; k < PD_DECAP_KINDS; k++)
			w->c.decap[k] += (ip->encaps >> k) & 1;
	if (r != PD_KEY_OK) {
		w->c.reasons[r]++;
		w->c.unparseable++;
		return r == PD_KEY_SPLIT_REQUEST || r == PD_KEY_SEVERAL_REQUESTS ||
		       (r == PD_KEY_TRUNCATED && wire > len) ? PD_CLASS_UNJUDGED :
							       PD_CLASS_KEYLESS;
	}
	return 0;
}

/* A frame with no key because it is too long to key here (counted as unparseable):
 * keyless. */
static inline void pd_disp_oversize(struct pd_worker *w)
{
	w->c.oversize++;
	w->c.unparseable++;
}

/* Step 2: the verdicts of n hashes into v (ts: their times, read when the run is timed). */
void pd_disp_filter(struct pd_worker *w, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		    unsigned n);

/* Step 3: the steps of a frame of class @p cls; dropped and bypassed counted. */
static inline unsigned pd_disp_next(struct pd_worker *w, unsigned cls)
{
	const unsigned next = w->app->next[cls];

	/* branches, not adds of 0 or 1: an add to the same counter for every frame chains
	 * each frame's load on the last one's store */
	if ((next & (PD_NEXT_OUT | PD_NEXT_DUP)) == 0)
		w->c.dropped++;
	if (unlikely(cls == PD_CLASS_BYPASS))
		w->c.bypassed++;
	return next;
}

/* Step 4: the mark on @p frame (len bytes) at @p ip. */
static inline void pd_disp_mark(struct pd_worker *w, uint8_t *frame, size_t len,
				struct pd_key_ip ip)
{
	if (pd_mark_dscp(frame, len, ip, w->app->cfg.mark_dscp) == 0)
		w->c.marked++;
	else
		w->c.unmarkable++;
}

#endif
