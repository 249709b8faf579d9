/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The 512-bit row kernels (row512.h): the tables every variant reads, the portable
 * scalar lookup and step, and the choice of variant by the CPU. The x86 variants are in
 * row512_x86.c.
 */
#include "row512.h"
#include "rows.h"

static int ql_find_scalar(const struct pd_row512 *q, const uint64_t *row, uint64_t fp)
{
	for (unsigned i = 0; i < q->b; i++)
		if (pd_row512_lane(q, row, i) == fp)
			return (int)i;
	return -1;
}

static inline int ql_step_scalar(const struct pd_row512 *q, uint64_t *row, uint64_t fp)
{
	int j = ql_find_scalar(q, row, fp);

	ql_move(q, row, j >= 0 ? (unsigned)j & (unsigned)q->movable : 0, fp);
	return j >= 0;
}

/* The scalar probe: its step inlined into the loop. */
#define QL_PROBE(name, step, attr)                                                          \
	attr static void name(const struct pd_row512 *q, uint64_t *const *row, const uint64_t *fp, \
			      uint8_t *v, unsigned n, unsigned ahead, bool far)                \
	{                                                                                   \
		for (unsigned i = 0; i < n; i++) {                                          \
			if (i + ahead < n)                                                  \
				pd_prefetch_w(far, row[i + ahead]);                         \
			v[i] = (uint8_t)step(q, row[i], fp[i]);                             \
		}                                                                           \
	}
QL_PROBE(ql_probe_scalar, ql_step_scalar, )

/* The permute and shift tables of the SIMD lookups, and the update's masks, for (b, f). */
static void ql_tables(struct pd_row512 *q)
{
	pd_lane_tables8(q->b, q->f, q->idx8, q->sh8);
	for (unsigned i = 0; i < 64; i++) {
		unsigned bit = i < q->b ? i * q->f : 0;
		unsigned d = bit >> 5, d1 = d + 1 < 16 ? d + 1 : 15; /* d = 15: the lane ends
								      * within it */

		q->idx4[i / 4][2 * (i % 4)] = d & 7;
		q->idx4[i / 4][2 * (i % 4) + 1] = d1 & 7;
		q->hi4[i / 4][2 * (i % 4)] = d >= 8 ? ~0u : 0;
		q->hi4[i / 4][2 * (i % 4) + 1] = d1 >= 8 ? ~0u : 0;
		q->sh4[i / 4][i % 4] = bit & 31;
		for (unsigned k = 0; k < 4; k++) {
			unsigned byte = (bit >> 3) + k;

			q->idxb[i / 16][4 * (i % 16) + k] = (uint8_t)(byte < 64 ? byte : 63);
		}
		q->shb[i / 16][i % 16] = bit & 7;
		q->mskb[i / 16][i % 16] = (uint32_t)(q->fpmax << (bit & 7)); /* f <= 25 here */
	}
	for (unsigned g = 0; g < QL_GROUPS8; g++)
		for (unsigned half = 0; half < 2; half++) {
			const unsigned i0 = 8 * g + 4 * half, a0 = i0 < q->b ? i0 * q->f / 8 : 0;
			const unsigned ws = a0 < QL_ROW - 16 ? a0 : QL_ROW - 16;

			q->pws[g][half] = (uint8_t)ws;
			for (unsigned t = 0; t < 4; t++)
				for (unsigned k = 0; k < 4; k++) {
					const unsigned i = i0 + t, byte = i * q->f / 8 + k;

					/* f <= 25: every lane's bytes are in its window */
					q->pb[g][16 * half + 4 * t + k] =
						i < q->b && byte < QL_ROW && byte - ws < 16 ?
						(uint8_t)(byte - ws) : 0x80;
				}
		}
	q->valid = q->b == 64 ? ~0ULL : (1ULL << q->b) - 1;
	for (unsigned w = 0; w < QL_WORDS; w++) {
		const unsigned top = (q->b - 1) * q->f, tw = top >> 6, ts = top & 63;

		q->topl[w] = w == tw ? ts : 64;
		q->topr[w] = w == tw + 1 && ts + q->f > 64 ? 64 - ts : 64;
	}
	for (unsigned j = 0; j < q->b; j++)
		for (unsigned w = 0; w < QL_WORDS; w++) {
			q->keep[j][w] = pd_row512_mask(0, j * q->f, w);
			q->mid[j][w] = pd_row512_mask(j * q->f, (q->b - 1) * q->f, w);
		}
}

int pd_row512_variant_supported(enum pd_qhtlru_variant v)
{
	switch (v) {
	case PD_QHTLRU_SCALAR:
		return 1;
#ifdef QL_X86
	case PD_QHTLRU_AVX2:
		return __builtin_cpu_supports("avx2");
	case PD_QHTLRU_AVX512:
		return __builtin_cpu_supports("avx512f");
	case PD_QHTLRU_VBMI:
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vbmi") &&
		       __builtin_cpu_supports("avx512vbmi2");
#endif
	default:
		return 0;
	}
}

int pd_row512_set_variant(struct pd_row512 *q, enum pd_qhtlru_variant v)
{
	if (!pd_row512_variant_supported(v))
		return -1;
	q->variant = v;
	switch (v) {
#ifdef QL_X86
	case PD_QHTLRU_VBMI:
		if (q->f <= QL_VBMI_MAX_F) {
			q->find = pd_row512_find_vbmi;
			q->probe = pd_row512_probesb[q->movable != 0][(q->b + 15) / 16 - 1];
			break;
		}
		/* wider lanes straddle 4 bytes: AVX-512F's lookup (VBMI implies it) */
		/* fall through */
	case PD_QHTLRU_AVX512:
		q->find = pd_row512_find_avx512;
		q->probe = pd_row512_probes512[q->movable != 0][(q->b + 7) / 8 - 1];
		break;
	case PD_QHTLRU_AVX2:
		if (q->f <= QL_VBMI_MAX_F) { /* a lane within 4 bytes: the byte shuffle */
			q->find = pd_row512_find_avx2b;
			q->probe = pd_row512_probes2b[q->movable != 0][(q->b + 7) / 8 - 1];
			break;
		}
		q->find = pd_row512_find_avx2;
		q->probe = pd_row512_probes2[q->movable != 0];
		break;
#endif
	default:
		q->find = ql_find_scalar;
		q->probe = ql_probe_scalar;
		break;
	}
	return 0;
}

void pd_row512_init(struct pd_row512 *q, unsigned b, unsigned f, bool lru)
{
	q->b = b;
	q->f = f;
	q->fpmax = (1ULL << f) - 1;
	q->movable = lru ? ~0ULL : 0;
	ql_tables(q);
	/* the widest the CPU has: each gives the same lanes (tests/test_qhtlru.c) */
	if (pd_row512_set_variant(q, PD_QHTLRU_VBMI) != 0 &&
	    pd_row512_set_variant(q, PD_QHTLRU_AVX512) != 0 &&
	    pd_row512_set_variant(q, PD_QHTLRU_AVX2) != 0)
		(void)pd_row512_set_variant(q, PD_QHTLRU_SCALAR);
}
