/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every part of the library shares, below all of them (filter_private.h): error
 * messages, table memory, the PRNG's seeding and the window's time units. Calls nothing
 * of the library's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "filter_private.h"

int pd_err(struct pd_error *err, int code, const char *fmt, ...)
{
	if (err != NULL) {
		va_list ap;

		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

#define PD_HUGE_PAGE (2u << 20)

void *pd_variant_new(size_t size, const struct pd_filter_ops *ops, struct pd_error *err)
{
	const size_t bytes = (size + PD_CACHE_LINE - 1) & ~(size_t)(PD_CACHE_LINE - 1);
	struct pd_filter *f = aligned_alloc(PD_CACHE_LINE, bytes);

	if (f == NULL) {
		pd_err(err, PD_ENOMEM, "out of memory");
		return NULL;
	}
	memset(f, 0, bytes);
	f->ops = ops;
	return f;
}

void *pd_variant_table(size_t bytes, struct pd_error *err)
{
	void *t = pd_alloc_zero(bytes);

	if (t == NULL)
		pd_err(err, PD_ENOMEM, "cannot allocate %llu bytes", (unsigned long long)bytes);
	return t;
}

void *pd_alloc_zero(size_t size)
{
	void *p = NULL;
	size_t align = size >= PD_HUGE_PAGE ? PD_HUGE_PAGE : PD_CACHE_LINE;
	size_t rounded = (size + align - 1) & ~(align - 1);

	if (size == 0 || rounded < size)
		return NULL;
	if (posix_memalign(&p, align, rounded) != 0)
		return NULL;
	if (align == PD_HUGE_PAGE)
		(void)madvise(p, rounded, MADV_HUGEPAGE); /* advice only: failure is harmless */
	memset(p, 0, rounded);
	return p;
}

void pd_free(void *p, size_t size)
{
	(void)size;
	free(p);
}

/* splitmix64 expands the seed into the four xoshiro words (never all zero). */
void pd_prng_seed(struct pd_prng *r, uint64_t seed)
{
	uint64_t x = seed ^ 0x5045544445445550ULL; /* "PKTDEDUP": PRNG stream != hash key */

	for (int i = 0; i < 4; i++) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

unsigned pd_window_shift(uint64_t window, unsigned bits)
{
	unsigned s = 0;

	while ((window >> s) >= (1ULL << (bits - 1)))
		s++;
	return s;
}

uint64_t pd_window_units(uint64_t window, unsigned shift)
{
	return shift == 0 ? window : (window >> shift) - 1;
}
