/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "streams.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unit(uint64_t *x)
{
	return (double)(splitmix64(x) >> 11) * 0x1.0p-53;
}

double stream_uniform_universe(uint64_t n, double delta)
{
	/* g(U) = U (1 - e^(-N/U)) grows from 0 to N as U grows: bisect on log U. */
	double N = (double)n, target = delta * N;
	double lo = target, hi = target;

	while (hi * -expm1(-N / hi) < target)
		hi *= 2.0;
	for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; i++) {
		double mid = 0.5 * (lo + hi);

		if (mid * -expm1(-N / mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

int stream_open_uniform(struct stream *s, uint64_t n, double delta, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->kind = STREAM_UNIFORM;
	s->n = n;
	s->rng = seed;
	s->universe = delta >= 1.0 ? 0.0 : floor(stream_uniform_universe(n, delta) + 0.5);
	return 0;
}

/* Zipf rejection-inversion helpers: H(x) = integral of x^-alpha, and its inverse. */
static double helper1(double x) /* log1p(x)/x */
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x / 3.0);
}

static double helper2(double x) /* expm1(x)/x */
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0);
}

static double zipf_H(const struct stream *s, double x)
{
	double lx = log(x);

	return helper2((1.0 - s->alpha) * lx) * lx;
}

static double zipf_Hinv(const struct stream *s, double x)
{
	double t = x * (1.0 - s->alpha);

	if (t < -1.0)
		t = -1.0; /* guard rounding at the edge of the domain */
	return exp(helper1(t) * x);
}

static double zipf_h(const struct stream *s, double x)
{
	return exp(-s->alpha * log(x));
}

int stream_open_zipf(struct stream *s, uint64_t n, double alpha, uint64_t universe,
		     uint64_t seed, char *msg, size_t len)
{
	memset(s, 0, sizeof(*s));
	if (!(alpha > 0.0) || universe < 1) {
		snprintf(msg, len, "--alpha must be > 0 and --universe >= 1");
		return -1;
	}
	s->kind = STREAM_ZIPF;
	s->n = n;
	s->rng = seed;
	s->alpha = alpha;
	s->universe = (double)universe;
	s->h_x1 = zipf_H(s, 1.5) - 1.0;
	s->h_n = zipf_H(s, s->universe + 0.5);
	s->s = 2.0 - zipf_Hinv(s, zipf_H(s, 2.5) - zipf_h(s, 2.0));
	return 0;
}

static uint64_t zipf_next(struct stream *s)
{
	for (;;) {
		double u = s->h_n + unit(&s->rng) * (s->h_x1 - s->h_n);
		double x = zipf_Hinv(s, u);
		double k = floor(x + 0.5);

		if (k < 1.0)
			k = 1.0;
		else if (k > s->universe)
			k = s->universe;
		if (k - x <= s->s || u >= zipf_H(s, k + 0.5) - zipf_h(s, k))
			return (uint64_t)k;
	}
}

/* b-model densities: the frequent arrivals per position in each of 2^levels equal
 * sub-intervals, splitting the volume recursively with a share `bias` to a random half. */
static int bmodel_density(struct stream *s, const struct stream_freq *fq, char *msg,
			  size_t len)
{
	const size_t cells = (size_t)1 << fq->levels;

	if (fq->volume * pow(2.0 * fq->bias, fq->levels) > 1.0) {
		snprintf(msg, len, "--volume %g with --bias %g cannot take %u --levels: the densest "
			 "sub-interval would need %.3g arrivals per position (the b-model needs "
			 "volume * (2 bias)^levels <= 1)", fq->volume, fq->bias, fq->levels,
			 fq->volume * pow(2.0 * fq->bias, fq->levels));
		return -1;
	}
	s->density = malloc(cells * sizeof(*s->density));
	if (s->density == NULL) {
		snprintf(msg, len, "out of memory");
		return -1;
	}
	s->density[0] = fq->volume;
	for (unsigned l = 0; l < fq->levels; l++) /* level l has 2^l cells: split each */
		for (size_t j = ((size_t)1 << l); j-- > 0;) {
			const double w = s->density[j];
			const int first = (splitmix64(&s->rng) & 1) != 0;

			s->density[2 * j] = 2.0 * w * (first ? fq->bias : 1.0 - fq->bias);
			s->density[2 * j + 1] = 2.0 * w * (first ? 1.0 - fq->bias : fq->bias);
		}
	s->levels = fq->levels;
	return 0;
}

int stream_open_freq(struct stream *s, enum stream_kind kind, uint64_t n,
		     const struct stream_freq *fq, uint64_t seed, char *msg, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->n = n;
	s->rng = seed;
	s->spread = fq->spread;
	if (!(fq->spread >= 1.0)) {
		snprintf(msg, len, "--spread must be at least 1");
		return -1;
	}
	if (kind == STREAM_POISSON) {
		if (!(fq->lambda > 0.0 && fq->lambda <= 1.0)) {
			snprintf(msg, len, "--lambda must be in (0, 1]");
			return -1;
		}
		s->lambda = fq->lambda;
		return 0;
	}
	if (!(fq->bias >= 0.5 && fq->bias < 1.0) || fq->levels > 24 ||
	    !(fq->volume > 0.0 && fq->volume <= 1.0)) {
		snprintf(msg, len, "--bias must be in [0.5, 1), --levels at most 24, --volume in "
			 "(0, 1]");
		return -1;
	}
	return bmodel_density(s, fq, msg, len);
}

static uint64_t freq_next(struct stream *s, uint64_t t)
{
	double p = s->lambda;

	if (s->kind == STREAM_BMODEL) /* the sub-interval of position t */
		p = s->density[(size_t)((long double)t * ((size_t)1 << s->levels) / s->n)];
	if (unit(&s->rng) >= p)
		return t; /* a key of its own */
	/* 1 - unit is in (0, 1]: the log is finite */
	return s->n + (uint64_t)fmin(-s->spread * log(1.0 - unit(&s->rng)), 64.0 * s->spread);
}

int stream_open_file(struct stream *s, const char *path, char *msg, size_t len)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->kind = STREAM_FILE;
	s->file = fopen(path, "rb");
	if (s->file == NULL) {
		snprintf(msg, len, "--keys %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(s->file), &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(msg, len, "--keys %s: not a regular file", path);
		fclose(s->file);
		return -1;
	}
	if (st.st_size == 0) { /* an evaluation of nothing would print a row of zeros */
		snprintf(msg, len, "--keys %s: empty: no keys to evaluate", path);
		fclose(s->file);
		return -1;
	}
	if (st.st_size % 8 != 0) {
		snprintf(msg, len, "--keys %s: size %lld is not a multiple of 8 bytes", path,
			 (long long)st.st_size);
		fclose(s->file);
		return -1;
	}
	s->n = (uint64_t)st.st_size / 8;
	return 0;
}

long stream_next(struct stream *s, uint64_t *keys, size_t max)
{
	size_t c = s->n - s->produced < max ? (size_t)(s->n - s->produced) : max;

	switch (s->kind) {
	case STREAM_UNIFORM:
		for (size_t i = 0; i < c; i++) {
			if (s->universe == 0.0) /* all distinct */
				keys[i] = s->produced + i;
			else
				keys[i] = (uint64_t)(unit(&s->rng) * s->universe);
		}
		break;
	case STREAM_ZIPF:
		for (size_t i = 0; i < c; i++)
			keys[i] = zipf_next(s);
		break;
	case STREAM_POISSON:
	case STREAM_BMODEL:
		for (size_t i = 0; i < c; i++)
			keys[i] = freq_next(s, s->produced + i);
		break;
	case STREAM_FILE: {
		unsigned char buf[8];

		for (size_t i = 0; i < c; i++) {
			uint64_t v = 0;

			if (fread(buf, 1, 8, s->file) != 8)
				return -1;
			for (int b = 7; b >= 0; b--)
				v = v << 8 | buf[b];
			keys[i] = v;
		}
		break;
	}
	}
	s->produced += c;
	return (long)c;
}

uint64_t stream_key_bound(const struct stream *s)
{
	switch (s->kind) {
	case STREAM_UNIFORM:
		return s->universe == 0.0 ? s->n : (uint64_t)s->universe;
	case STREAM_ZIPF:
		return (uint64_t)s->universe + 1;
	case STREAM_POISSON:
	case STREAM_BMODEL:
		return s->n + (uint64_t)(64.0 * s->spread) + 1;
	case STREAM_FILE:
		break;
	}
	return 0;
}

void stream_close(struct stream *s)
{
	free(s->density);
	s->density = NULL;
	if (s->file != NULL)
		fclose(s->file);
	s->file = NULL;
}
