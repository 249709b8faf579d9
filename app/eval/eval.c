/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktdedup-eval: run filters on a key stream and score every verdict against the exact
 * oracle. No DPDK. See docs/eval.md.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_plan.h>

#include "../common/cli.h"
#include "../common/json.h"
#include "../common/memavail.h"
#include "delivered.h"
#include "oracle.h"
#include "streams.h"

#define CHUNK 65536

struct opts {
	int all;
	enum pd_filter_type type;
	struct pd_filter_params p;   /* type filled per filter */
	enum stream_kind stream;
	uint64_t n;
	double distinct;
	double alpha;
	uint64_t universe;
	uint64_t stream_seed;
	struct stream_freq freq;  /* poisson, bmodel */
	uint64_t memory_bits;     /* --memory-bits: the paper's M, or 0 */
	unsigned series;          /* --series: checkpoints over the stream, or 0 */
	const char *keys_path;
	const char *verdicts_path;
	enum pd_window_mode truth_mode;
	int json;
	int plan_only;
	int progress;
};

/* Counts at a checkpoint of --series. */
struct point {
	uint64_t n, distinct, fp, fn;
	double state;
};

struct run {
	struct pd_filter *f;
	struct pd_filter *truth;   /* exact oracle with the filter's window (seen), or NULL */
	struct delivered *dtruth;  /* the truth of delivered mode, or NULL */
	struct pd_plan plan;
	uint64_t fp, fn, distinct, dups;
	double seconds;
	FILE *verdicts;
	struct point *pts;         /* --series checkpoints */
	unsigned npts;
};

static void usage(FILE *out)
{
	char windowed[96], names[256], wrapped[512];

	snprintf(names, sizeof(names), "%s,", cli_filter_names());
	fprintf(out,
		"Usage: pktdedup-eval [options]\n"
		"Run duplicate filters on a key stream and score them against the exact oracle.\n"
		"\n"
		"Filter:\n"
		"  --filter NAME      one of: %s\n"
		"                     or all (default: all)\n"
		"  --memory SIZE      state budget per filter: 4096, 64K, 8mb, 1.5G (1024-based)\n"
		"                     (default: 8M; at least 64)\n"
		"  --memory-bits M    the state as a paper gives it, M bits: bit arrays get M\n"
		"                     bits, the qht family the whole lines that hold nearest\n"
		"                     M/(b*f) rows\n"
		"  --fpr TARGET       planner target false-positive rate (default: %g)\n"
		"  --seed N           hash key and PRNG seed of the filters (default: 1)\n"
		"  --k N              sbf K; bloom/timerbf hashes; rsbf/bsbf/bsbfsd/rlbsbf arrays\n"
		"  --max N            sbf Max (cell maximum; default 1)\n"
		"  --p N              sbf P cells decremented per key (default: eq. 17)\n"
		"  --pstar X          rsbf threshold p* (default 0.03)\n"
		"  --b N, --f N       qht/qhtd/qqhtd buckets per row, fingerprint bits\n"
		"  --q X              fpbuffering probability of reporting a miss DUPLICATE\n"
		"  --expected-n N     bloom/timerbf: expected distinct keys (sizes k)\n"
		"  --window N         window in keys: a copy at most N keys back is a duplicate\n"
		"                     (%s;\n"
		"                     default timerbf: capacity)\n"
		"  --equal-timers N   timerbf equal-timers heuristic k' (default off)\n"
		"  --window-mode M    seen or delivered: the window semantics of the filter and\n"
		"                     of its truth (default: seen)\n"
		"  --plan             print the planner's parameters and predicted FPR, then exit\n"
		"\n"
		"Stream:\n"
		"  --stream KIND      uniform, zipf, poisson or bmodel (default: uniform)\n"
		"  --n N              keys in the stream (default: 10000000)\n"
		"  --distinct D       uniform: fraction of distinct keys, 0 < D <= 1\n"
		"                     (default 0.15)\n"
		"  --alpha A          zipf exponent (default: 1.0)\n"
		"  --universe U       zipf ranks (default: 1000000)\n"
		"  --lambda L         poisson: share of positions holding a frequent key\n"
		"                     (default 0.5)\n"
		"  --bias B, --levels L, --volume V\n"
		"                     bmodel: burst bias 0.5..1, halvings, frequent share of the\n"
		"                     stream (default 0.7, 6, 0.1)\n"
		"  --spread U         poisson/bmodel: mean of the exponential spreading the\n"
		"                     frequent arrivals over keys (default 10000)\n"
		"  --stream-seed N    seed of the stream generator (default: 42)\n"
		"  --keys FILE        read keys from FILE: raw little-endian uint64, 8 bytes each\n"
		"\n"
		"Output:\n"
		"  --verdicts FILE    write one byte per key, 1 = DUPLICATE, 0 = DISTINCT\n"
		"                     (one filter only)\n"
		"  --json             JSON: one object, or an array with --filter all\n"
		"  --series N         FPR, FNR and state at N evenly spaced points of the stream\n"
		"  --help             this text\n"
		"  --version          the version\n",
		cli_wrap(names, 29, 21, wrapped, sizeof(wrapped)), PD_DEFAULT_TARGET_FPR,
		cli_filter_list(PD_FILTER_CAN_WINDOW, windowed, sizeof(windowed)));
}

enum {
	O_FILTER = 256, O_WINDOW, O_EQT, O_WMODE, O_PLAN, O_STREAM, O_N, O_DISTINCT, O_ALPHA,
	O_UNIVERSE, O_SSEED, O_KEYS, O_VERDICTS, O_JSON, O_HELP, O_LAMBDA, O_BIAS, O_LEVELS,
	O_VOLUME, O_SPREAD, O_SERIES, O_MEMBITS, O_VERSION,
};

static const struct option longopts[] = {
	{"filter", required_argument, NULL, O_FILTER},
	CLI_FILTER_LONGOPTS,
	{"window", required_argument, NULL, O_WINDOW},
	{"equal-timers", required_argument, NULL, O_EQT},
	{"window-mode", required_argument, NULL, O_WMODE},
	{"plan", no_argument, NULL, O_PLAN},
	{"stream", required_argument, NULL, O_STREAM},
	{"n", required_argument, NULL, O_N},
	{"distinct", required_argument, NULL, O_DISTINCT},
	{"alpha", required_argument, NULL, O_ALPHA},
	{"universe", required_argument, NULL, O_UNIVERSE},
	{"stream-seed", required_argument, NULL, O_SSEED},
	{"keys", required_argument, NULL, O_KEYS},
	{"verdicts", required_argument, NULL, O_VERDICTS},
	{"json", no_argument, NULL, O_JSON},
	{"help", no_argument, NULL, O_HELP},
	{"version", no_argument, NULL, O_VERSION},
	{"lambda", required_argument, NULL, O_LAMBDA},
	{"bias", required_argument, NULL, O_BIAS},
	{"levels", required_argument, NULL, O_LEVELS},
	{"volume", required_argument, NULL, O_VOLUME},
	{"spread", required_argument, NULL, O_SPREAD},
	{"series", required_argument, NULL, O_SERIES},
	{"memory-bits", required_argument, NULL, O_MEMBITS},
	{NULL, 0, NULL, 0},
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	int c, li = -1, stream_set = 0, zipf_opt = 0, uniform_opt = 0, poisson_opt = 0;
	int bmodel_opt = 0, freq_opt = 0, memory_set = 0;
	uint32_t u32;
	const char *specific = NULL; /* the first option of one filter's parameters */

	cli_prog = "pktdedup-eval";
	memset(o, 0, sizeof(*o));
	o->all = 1;
	o->p.memory_bytes = 8u << 20;
	o->p.seed = 1;
	o->stream = STREAM_UNIFORM;
	o->n = 10000000;
	o->distinct = 0.15;
	o->alpha = 1.0;
	o->universe = 1000000;
	o->stream_seed = 42;
	o->truth_mode = PD_WINDOW_SEEN;
	o->freq = (struct stream_freq){.lambda = 0.5, .bias = 0.7, .levels = 6, .volume = 0.1,
				       .spread = 10000.0};

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, &li)) != -1) {
		const char *a = optarg;
		char word[3];
		const char *name = cli_refused(c, argv, word);
		int r = 0, choice;

		switch (c) {
		case O_FILTER:
			if (strcmp(a, "all") == 0) {
				o->all = 1;
			} else if (pd_filter_type_parse(a, &o->type) == 0) {
				o->all = 0;
			} else {
				char why[300];

				snprintf(why, sizeof(why), "unknown filter (%s all)",
					 cli_filter_names());
				return cli_bad("--filter", a, why);
			}
			break;
		case O_WINDOW:
			r = cli_count("--window", a, &o->p.window);
			if (r == 0 && o->p.window == 0)
				r = cli_bad("--window", a, "must be at least 1");
			break;
		case O_EQT:
			specific = specific ? specific : longopts[li].name;
			r = cli_u32("--equal-timers", a, &o->p.equal_timers);
			break;
		case O_WMODE:
			r = cli_choice("--window-mode", a, (const char *const[]){"seen", "delivered",
					NULL}, &choice);
			if (r == 0)
				o->truth_mode = choice == 1 ? PD_WINDOW_DELIVERED : PD_WINDOW_SEEN;
			break;
		case O_PLAN:
			o->plan_only = 1;
			break;
		case O_STREAM:
			stream_set = 1;
			r = cli_choice("--stream", a, (const char *const[]){"uniform", "zipf", "poisson",
					"bmodel", NULL}, &choice);
			if (r == 0)
				o->stream = (enum stream_kind[]){STREAM_UNIFORM, STREAM_ZIPF,
					STREAM_POISSON, STREAM_BMODEL}[choice];
			break;
		case O_LAMBDA:
			poisson_opt = 1;
			r = cli_real("--lambda", a, 1e-9, 1.0, &o->freq.lambda);
			break;
		case O_BIAS:
			bmodel_opt = 1;
			r = cli_real("--bias", a, 0.5, 0.999999, &o->freq.bias);
			break;
		case O_LEVELS:
			bmodel_opt = 1;
			r = cli_u32("--levels", a, &u32);
			if (r == 0 && u32 > 24)
				r = cli_bad("--levels", a, "at most 24");
			o->freq.levels = u32;
			break;
		case O_VOLUME:
			bmodel_opt = 1;
			r = cli_real("--volume", a, 1e-9, 1.0, &o->freq.volume);
			break;
		case O_SPREAD:
			freq_opt = 1;
			r = cli_real("--spread", a, 1.0, 1e15, &o->freq.spread);
			break;
		case O_SERIES:
			r = cli_u32("--series", a, &u32);
			if (r == 0 && (u32 < 1 || u32 > 100000))
				r = cli_bad("--series", a, "must be 1..100000");
			o->series = u32;
			break;
		case O_MEMBITS:
			r = cli_count("--memory-bits", a, &o->memory_bits);
			if (r == 0 && o->memory_bits < 512)
				r = cli_bad("--memory-bits", a, "at least 512 (one 64-byte line)");
			break;
		case O_N:
			r = cli_count("--n", a, &o->n);
			break;
		case O_DISTINCT:
			uniform_opt = 1;
			r = cli_real("--distinct", a, 1e-9, 1.0, &o->distinct);
			break;
		case O_ALPHA:
			zipf_opt = 1;
			r = cli_real("--alpha", a, 1e-6, 100.0, &o->alpha);
			break;
		case O_UNIVERSE:
			zipf_opt = 1;
			r = cli_count("--universe", a, &o->universe);
			if (r == 0 && o->universe == 0)
				r = cli_bad("--universe", a, "must be at least 1");
			break;
		case O_SSEED:
			r = cli_count("--stream-seed", a, &o->stream_seed);
			break;
		case O_KEYS: /* files once: a second would replace the first without a word */
			r = o->keys_path ? cli_bad("--keys", a, "given twice") : 0;
			o->keys_path = a;
			break;
		case O_VERDICTS:
			r = o->verdicts_path ? cli_bad("--verdicts", a, "given twice") : 0;
			o->verdicts_path = a;
			break;
		case O_JSON:
			o->json = 1;
			break;
		case 'h':
		case O_HELP:
			usage(stdout);
			exit(0);
		case O_VERSION:
			cli_version();
			exit(0);
		case ':':
			fprintf(stderr, "pktdedup-eval: %s needs a value\n", name);
			return -1;
		default:
			if (c == CLI_O_MEMORY) { /* smaller than the app's: the papers' sizes */
				memory_set = 1;
				r = cli_size("--memory", a, &o->p.memory_bytes);
				if (r == 0 && o->p.memory_bytes < 64)
					r = cli_bad("--memory", a, "at least 64 bytes (one line)");
				break;
			}
			if (c >= CLI_O_MEMORY && c < CLI_O_FILTER_END) {
				if (c >= CLI_O_K && specific == NULL)
					specific = longopts[li].name;
				r = cli_filter_option(c, a, &o->p);
				break;
			}
			fprintf(stderr, "pktdedup-eval: unknown option %s (see --help)\n", name);
			return -1;
		}
		if (r != 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "pktdedup-eval: unexpected argument %s (see --help)\n",
			argv[optind]);
		return -1;
	}
	if (o->all && specific != NULL) {
		fprintf(stderr, "pktdedup-eval: --%s needs a single --filter: one value cannot suit"
			" 13 filters\n", specific);
		return -1;
	}
	if (o->keys_path != NULL && stream_set) {
		fprintf(stderr, "pktdedup-eval: --keys and --stream are exclusive\n");
		return -1;
	}
	if (o->keys_path != NULL)
		o->stream = STREAM_FILE;
	if (o->stream != STREAM_ZIPF && zipf_opt) {
		fprintf(stderr, "pktdedup-eval: --alpha/--universe need --stream zipf\n");
		return -1;
	}
	if (o->stream != STREAM_POISSON && poisson_opt) {
		fprintf(stderr, "pktdedup-eval: --lambda needs --stream poisson\n");
		return -1;
	}
	if (o->stream != STREAM_BMODEL && bmodel_opt) {
		fprintf(stderr, "pktdedup-eval: --bias/--levels/--volume need --stream bmodel\n");
		return -1;
	}
	if (o->stream != STREAM_POISSON && o->stream != STREAM_BMODEL && freq_opt) {
		fprintf(stderr, "pktdedup-eval: --spread needs --stream poisson or bmodel\n");
		return -1;
	}
	if (memory_set && o->memory_bits != 0) {
		fprintf(stderr, "pktdedup-eval: --memory and --memory-bits are exclusive\n");
		return -1;
	}
	if (o->memory_bits != 0)
		o->p.memory_bytes = (o->memory_bits + 7) / 8;
	if (o->stream != STREAM_UNIFORM && uniform_opt) {
		fprintf(stderr, "pktdedup-eval: --distinct needs --stream uniform\n");
		return -1;
	}
	if (o->verdicts_path != NULL && o->all) {
		fprintf(stderr, "pktdedup-eval: --verdicts needs a single --filter\n");
		return -1;
	}
	if (o->verdicts_path != NULL && o->keys_path != NULL) {
		struct stat k, v; /* the keys file itself, by any name: emptied before read */

		if (stat(o->keys_path, &k) == 0 && stat(o->verdicts_path, &v) == 0 &&
		    k.st_dev == v.st_dev && k.st_ino == v.st_ino) {
			fprintf(stderr, "pktdedup-eval: --verdicts %s: the same file as --keys"
				" %s; writing the verdicts would destroy the keys\n",
				o->verdicts_path, o->keys_path);
			return -1;
		}
	}
	if (o->n == 0 && o->stream != STREAM_FILE) {
		fprintf(stderr, "pktdedup-eval: --n must be at least 1\n");
		return -1;
	}
	return 0;
}

/* Filter-specific parameters make no sense for `all` unless they fit every filter. */
static struct pd_filter_params params_for(const struct opts *o, enum pd_filter_type t)
{
	struct pd_filter_params p = o->p;

	p.type = t;
	if (o->all) {
		/* filter parameters were refused with `all`; the window is timerbf's only */
		if (t != PD_FILTER_TIMERBF)
			p.window = 0;
	}
	p.window_mode = o->truth_mode;
	/* windowed rows: a copy counts only within W keys (time is one unit a key here), so W
	 * is the gap the planner weighs unless --expected-n says otherwise (docs/eval.md) */
	if (p.window != 0 && p.expected_n == 0 &&
	    (t == PD_FILTER_QHTLRU || t == PD_FILTER_QQHTD))
		p.expected_n = p.window;
	return p;
}

/*
 * --memory-bits for the qht family: rows are packed whole into 64-byte lines, so M bits
 * hold M/(b f) rows only up to a line. Give the filter the whole lines whose rows come
 * nearest M/(b f), within half a line of rows. Table 1 of Geraud et al., "Quotient hash
 * tables" (seed 004), has b = 16, f = 6 at 65,536 bits: 680 rows here for the paper's
 * 682.7, where M/8 bytes would hold 640.
 */
static int fit_memory_bits(const struct opts *o, struct pd_filter_params *p, struct pd_error *err)
{
	struct pd_plan plan, line;
	struct pd_filter_params q;
	uint64_t rpl, lines;

	if (o->memory_bits == 0 || (p->type != PD_FILTER_QHT && p->type != PD_FILTER_QHTD &&
				    p->type != PD_FILTER_QQHTD && p->type != PD_FILTER_QHTLRU))
		return 0;
	if (pd_plan(p, &plan, err) != 0)
		return -1;
	q = plan.params;
	q.memory_bytes = 64;
	if (pd_plan(&q, &line, err) != 0)
		return -1;
	rpl = line.remembers / q.qht_b; /* rows in one line */
	lines = (uint64_t)llround((double)o->memory_bits / ((double)q.qht_b * q.qht_f * rpl));
	p->qht_b = q.qht_b;
	p->qht_f = q.qht_f;
	p->memory_bytes = (lines ? lines : 1) * 64;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void print_json(struct json *j, const struct run *r, uint64_t n)
{
	const struct pd_filter_params *p = pd_filter_params(r->f);
	struct pd_filter_stats st;
	char desc[128];

	pd_filter_stats(r->f, &st);
	pd_filter_params_describe(p, desc, sizeof(desc));
	json_open(j, NULL, '{', 0);
	json_str(j, "filter", pd_filter_type_name(p->type));
	json_str(j, "params", desc);
	json_u64(j, "memory_bytes", st.memory_bits / 8);
	json_u64(j, "footprint_bytes", st.footprint_bytes);
	json_u64(j, "n", n);
	json_u64(j, "distinct", r->distinct);
	json_u64(j, "duplicates", r->dups);
	json_u64(j, "fp", r->fp);
	json_u64(j, "fn", r->fn);
	json_f64(j, "fpr", "%.9g", r->distinct ? (double)r->fp / r->distinct : 0.0);
	json_f64(j, "fnr", "%.9g", r->dups ? (double)r->fn / r->dups : 0.0);
	json_f64(j, "error_rate", "%.9g", n ? (double)(r->fp + r->fn) / n : 0.0);
	json_f64(j, "keys_per_sec", "%.6g", r->seconds > 0 ? n / r->seconds : 0.0);
	json_f64(j, "ns_per_key", "%.4g", n ? r->seconds * 1e9 / n : 0.0);
	json_f64(j, "predicted_fpr", "%.6g", r->plan.predicted_fpr);
	json_f64(j, "predicted_fnr", "%.6g", r->plan.predicted_fnr);
	json_u64(j, "assumed_gap", r->plan.assumed_gap);
	json_f64(j, "state", "%.6g", st.state);
	json_str(j, "state_name", st.state_name);
	if (r->npts) {
		json_open(j, "series", '[', 0);
		for (unsigned i = 0; i < r->npts; i++) {
			const struct point *a = i ? &r->pts[i - 1] : &(struct point){0};
			const struct point *b = &r->pts[i];
			const uint64_t dd = b->distinct - a->distinct;
			const uint64_t du = (b->n - a->n) - dd;

			json_open(j, NULL, '{', 1);
			json_u64(j, "n", b->n);
			json_u64(j, "distinct", b->distinct);
			json_f64(j, "fpr", "%.9g", b->distinct ? (double)b->fp / b->distinct : 0.0);
			json_f64(j, "fnr", "%.9g", b->n - b->distinct ?
				 (double)b->fn / (b->n - b->distinct) : 0.0);
			json_f64(j, "fpr_interval", "%.9g", dd ? (double)(b->fp - a->fp) / dd : 0.0);
			json_f64(j, "fnr_interval", "%.9g", du ? (double)(b->fn - a->fn) / du : 0.0);
			json_f64(j, "state", "%.6g", b->state);
			json_close(j);
		}
		json_close(j);
	}
	json_close(j);
}

static void print_row(const struct run *r, uint64_t n)
{
	const struct pd_filter_params *p = pd_filter_params(r->f);
	struct pd_filter_stats st;
	char desc[128];

	pd_filter_stats(r->f, &st);
	pd_filter_params_describe(p, desc, sizeof(desc));
	printf("%-11s %-18s %10llu %10llu %10llu %9.3e %9.3e %9.3e %9.3e %7.2f %6.1f %6.3f\n",
	       pd_filter_type_name(p->type), desc, (unsigned long long)(st.memory_bits / 8),
	       (unsigned long long)r->fp, (unsigned long long)r->fn,
	       r->distinct ? (double)r->fp / r->distinct : 0.0,
	       r->dups ? (double)r->fn / r->dups : 0.0, n ? (double)(r->fp + r->fn) / n : 0.0,
	       r->plan.predicted_fpr, r->seconds > 0 ? n / r->seconds / 1e6 : 0.0,
	       n ? r->seconds * 1e9 / n : 0.0, st.state);
}

static void print_series(const struct run *r)
{
	printf("\n%s: %12s %10s %10s %10s\n", pd_filter_type_name(pd_filter_params(r->f)->type),
	       "keys", "FPR", "FNR", "state");
	for (unsigned i = 0; i < r->npts; i++) {
		const struct point *b = &r->pts[i];

		printf("%*s  %12llu %10.4e %10.4e %10.4f\n",
		       (int)strlen(pd_filter_type_name(pd_filter_params(r->f)->type)), "",
		       (unsigned long long)b->n, b->distinct ? (double)b->fp / b->distinct : 0.0,
		       b->n - b->distinct ? (double)b->fn / (b->n - b->distinct) : 0.0, b->state);
	}
}

static int plan_only(const struct opts *o)
{
	struct json j;
	int rc = 0;

	json_begin(&j, stdout);
	if (o->json)
		json_open(&j, NULL, '[', 0);
	else
		printf("%-11s %-22s %12s %12s %10s %12s  %s\n", "filter", "parameters", "memory",
		       "pred. FPR", "pred. FNR", "at gap", "basis");
	for (unsigned t = 0; t < PD_FILTER_COUNT; t++) {
		struct pd_filter_params p;
		struct pd_plan plan;
		struct pd_error err = {0};
		char desc[128];

		if (!o->all && t != o->type)
			continue;
		p = params_for(o, (enum pd_filter_type)t);
		if (pd_plan(&p, &plan, &err) != 0) {
			fprintf(stderr, "pktdedup-eval: %s: %s\n", pd_filter_type_name(p.type), err.msg);
			rc = 2;
			continue;
		}
		pd_filter_params_describe(&plan.params, desc, sizeof(desc));
		if (o->json) {
			json_open(&j, NULL, '{', 1);
			json_str(&j, "filter", pd_filter_type_name(p.type));
			json_str(&j, "params", desc);
			json_u64(&j, "memory_bytes", plan.params.memory_bytes);
			json_f64(&j, "predicted_fpr", "%.6g", plan.predicted_fpr);
			json_str(&j, "basis", plan.basis);
			json_u64(&j, "capacity", plan.capacity);
			json_u64(&j, "remembers", plan.remembers);
			json_f64(&j, "predicted_fnr", "%.6g", plan.predicted_fnr);
			json_u64(&j, "assumed_gap", plan.assumed_gap);
			json_close(&j);
		} else if (plan.assumed_gap != 0)
			printf("%-11s %-22s %12llu %12.6g %10.3g %12llu  %s\n",
			       pd_filter_type_name(p.type), desc,
			       (unsigned long long)plan.params.memory_bytes, plan.predicted_fpr,
			       plan.predicted_fnr, (unsigned long long)plan.assumed_gap, plan.basis);
		else
			printf("%-11s %-22s %12llu %12.6g %10s %12s  %s\n", pd_filter_type_name(p.type),
			       desc, (unsigned long long)plan.params.memory_bytes, plan.predicted_fpr,
			       "-", "-", plan.basis);
	}
	if (o->json)
		json_close(&j);
	if (json_end(&j) != 0) {
		fprintf(stderr, "pktdedup-eval: writing failed: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}

static int open_stream(const struct opts *o, struct stream *s)
{
	char msg[512];

	switch (o->stream) {
	case STREAM_UNIFORM:
		return stream_open_uniform(s, o->n, o->distinct, o->stream_seed);
	case STREAM_ZIPF:
		if (stream_open_zipf(s, o->n, o->alpha, o->universe, o->stream_seed, msg,
				     sizeof(msg)) == 0)
			return 0;
		break;
	case STREAM_POISSON:
	case STREAM_BMODEL:
		if (stream_open_freq(s, o->stream, o->n, &o->freq, o->stream_seed, msg,
				     sizeof(msg)) == 0)
			return 0;
		break;
	case STREAM_FILE:
		if (stream_open_file(s, o->keys_path, msg, sizeof(msg)) == 0)
			return 0;
		break;
	}
	fprintf(stderr, "pktdedup-eval: %s\n", msg);
	return -1;
}

/* The bytes the filters of this run allocate together (pd_plan_footprint); those that
 * cannot be planned count for nothing (the run stops at them). */
static uint64_t footprint_all(const struct opts *o)
{
	uint64_t sum = 0;

	for (unsigned t = 0; t < PD_FILTER_COUNT; t++) {
		struct pd_filter_params p;
		struct pd_error err;
		struct pd_plan plan;

		if (!o->all && t != o->type)
			continue;
		p = params_for(o, (enum pd_filter_type)t);
		if (fit_memory_bits(o, &p, &err) == 0 && pd_plan(&p, &plan, &err) == 0)
			sum += pd_plan_footprint(&plan);
	}
	return sum;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct run runs[PD_FILTER_COUNT];
	unsigned nruns = 0;
	struct oracle *truth = NULL;
	struct pd_error err = {0};
	char msg[512];
	struct stream s;
	uint64_t *keys = NULL;
	uint8_t *truth_v = NULL, *wtruth_v = NULL, *v = NULL;
	uint64_t done = 0, distinct = 0, next_point = UINT64_MAX, need = 0, avail;
	const char *whose = "";
	unsigned point = 0;
	double last_progress = 0.0;
	int rc = 0;

	if (parse_args(argc, argv, &o) != 0)
		return 2;
	if (o.plan_only)
		return plan_only(&o);
	if (open_stream(&o, &s) != 0)
		return 2;

	memset(runs, 0, sizeof(runs));
	avail = cli_mem_available(&whose);
	for (unsigned t = 0; t < PD_FILTER_COUNT; t++) {
		struct pd_filter_params p;
		struct run *r;

		if (!o.all && t != o.type)
			continue;
		r = &runs[nruns];
		p = params_for(&o, (enum pd_filter_type)t);
		if (fit_memory_bits(&o, &p, &err) != 0 || pd_plan(&p, &r->plan, &err) != 0) {
			fprintf(stderr, "pktdedup-eval: %s: %s\n", pd_filter_type_name(p.type),
				err.msg);
			rc = 2;
			goto out;
		}
		/* every filter runs at once, each zeroed as it is made: a total above what
		 * the machine has gets the run killed by the OOM killer partway */
		if (nruns == 0 && avail != 0 && (need = footprint_all(&o)) > avail) {
			const int lru = !o.all && (o.type == PD_FILTER_LRU ||
						   o.type == PD_FILTER_FPBUFFERING);

			fprintf(stderr, "pktdedup-eval: %s%s %.1f GiB%s, more than the %.1f GiB"
				" this machine has available (%s): lower --memory%s\n",
				o.all ? "the filters" : pd_filter_type_name(o.type),
				o.all ? " need" : " needs", (double)need / (1 << 30),
				o.all ? " together (all run at once)" :
				lru ? " (4 times --memory: its nodes and index)" : "",
				(double)avail / (1 << 30), whose,
				o.all ? " or give one --filter" : "");
			rc = 1;
			goto out;
		}
		if ((r->f = pd_filter_create(&p, &err)) == NULL) {
			fprintf(stderr, "pktdedup-eval: %s: %s\n", pd_filter_type_name(p.type),
				err.msg);
			rc = 2;
			goto out;
		}
		/* A windowed filter is scored against a windowed oracle: in delivered mode
		 * one that counts the deliveries of the filter under test (Definition 4) */
		if (pd_filter_params(r->f)->window != 0 && o.truth_mode == PD_WINDOW_DELIVERED) {
			r->dtruth = delivered_new(pd_filter_params(r->f)->window);
			if (r->dtruth == NULL) {
				fprintf(stderr, "pktdedup-eval: oracle: out of memory\n");
				rc = 1;
				goto out;
			}
		} else if (pd_filter_params(r->f)->window != 0) {
			struct pd_filter_params wp = {.type = PD_FILTER_EXACT, .seed = o.p.seed};

			wp.window = pd_filter_params(r->f)->window;
			wp.window_mode = o.truth_mode;
			r->truth = pd_filter_create(&wp, &err);
			if (r->truth == NULL) {
				fprintf(stderr, "pktdedup-eval: oracle: %s\n", err.msg);
				rc = 2;
				goto out;
			}
		}
		if (o.series != 0 && (r->pts = calloc(o.series, sizeof(*r->pts))) == NULL) {
			fprintf(stderr, "pktdedup-eval: out of memory\n");
			rc = 1;
			goto out;
		}
		nruns++;
	}
	if (o.verdicts_path != NULL) {
		runs[0].verdicts = fopen(o.verdicts_path, "wb");
		if (runs[0].verdicts == NULL) {
			fprintf(stderr, "pktdedup-eval: --verdicts %s: %s\n", o.verdicts_path,
				strerror(errno));
			rc = 2;
			goto out;
		}
	}
	truth = oracle_new(stream_key_bound(&s), o.p.seed, msg, sizeof(msg));
	if (truth == NULL) {
		fprintf(stderr, "pktdedup-eval: %s\n", msg);
		rc = 1;
		goto out;
	}
	keys = malloc(CHUNK * sizeof(*keys));
	truth_v = malloc(CHUNK);
	wtruth_v = malloc(CHUNK);
	v = malloc(CHUNK);
	if (truth == NULL || keys == NULL || truth_v == NULL || wtruth_v == NULL || v == NULL) {
		fprintf(stderr, "pktdedup-eval: out of memory\n");
		rc = 1;
		goto out;
	}

	o.progress = isatty(2);
	if (o.series > s.n) /* at most a point a key: the points stay strictly increasing */
		o.series = (unsigned)s.n;
	if (o.series != 0) /* checkpoint i at ceil(n i / series) keys, the last at n */
		next_point = s.n / o.series + ((s.n % o.series) + o.series - 1) / o.series;
	for (;;) {
		long c = stream_next(&s, keys, next_point - done < CHUNK ? next_point - done : CHUNK);

		if (c < 0) {
			fprintf(stderr, "pktdedup-eval: --keys %s: read error after %llu keys\n",
				o.keys_path, (unsigned long long)done);
			rc = 1;
			goto out;
		}
		if (c == 0)
			break;
		oracle_score(truth, keys, truth_v, (size_t)c);
		for (long j = 0; j < c; j++)
			distinct += truth_v[j] == 0;
		for (unsigned i = 0; i < nruns; i++) {
			struct run *r = &runs[i];
			const uint8_t *tv = truth_v;
			double t0;

			t0 = now_s();
			pd_filter_burst_u64(r->f, keys, NULL, v, (size_t)c);
			r->seconds += now_s() - t0;
			if (r->truth != NULL) { /* windowed oracle for this filter */
				pd_filter_burst_u64(r->truth, keys, NULL, wtruth_v, (size_t)c);
				tv = wtruth_v;
			} else if (r->dtruth != NULL) {
				if (delivered_score(r->dtruth, keys, v, wtruth_v, (size_t)c) != 0) {
					fprintf(stderr, "pktdedup-eval: oracle: out of memory\n");
					rc = 1;
					goto out;
				}
				tv = wtruth_v;
			}
			for (long j = 0; j < c; j++) {
				r->distinct += tv[j] == 0;
				r->fp += tv[j] == 0 && v[j] != 0;
				r->fn += tv[j] != 0 && v[j] == 0;
			}
			if (r->verdicts != NULL && fwrite(v, 1, (size_t)c, r->verdicts) != (size_t)c) {
				fprintf(stderr, "pktdedup-eval: --verdicts %s: write error\n",
					o.verdicts_path);
				rc = 1;
				goto out;
			}
		}
		done += (uint64_t)c;
		if (done == next_point) {
			for (unsigned i = 0; i < nruns; i++) {
				struct run *r = &runs[i];
				struct pd_filter_stats st;

				pd_filter_stats(r->f, &st);
				r->pts[point] = (struct point){done, r->distinct, r->fp, r->fn, st.state};
				r->npts = point + 1;
			}
			point++;
			next_point = point < o.series ?
				s.n / o.series * (point + 1) +
				((s.n % o.series) * (point + 1) + o.series - 1) / o.series :
				UINT64_MAX;
		}
		if (o.progress && now_s() - last_progress > 0.5) {
			last_progress = now_s();
			fprintf(stderr, "\rpktdedup-eval: %llu / %llu keys (%.0f%%)",
				(unsigned long long)done, (unsigned long long)s.n,
				100.0 * done / (s.n ? s.n : 1));
		}
	}
	if (o.progress)
		fprintf(stderr, "\r%60s\r", "");
	for (unsigned i = 0; i < nruns; i++)
		runs[i].dups = done - runs[i].distinct;
	/* a truth that could not record every key is not the truth: no scores from it */
	for (unsigned i = 0; i <= nruns; i++) {
		struct pd_filter_stats st = {0};

		if (i < nruns && runs[i].truth != NULL)
			pd_filter_stats(runs[i].truth, &st);
		else if (i == nruns)
			st.unstored = oracle_unstored(truth);
		if (st.unstored != 0) {
			fprintf(stderr, "pktdedup-eval: the exact oracle ran out of memory: %llu keys"
				" not recorded, so the scores would be wrong; give fewer keys (--n)"
				" or more memory\n", (unsigned long long)st.unstored);
			rc = 1;
			goto out;
		}
	}

	if (o.json) {
		struct json j;

		json_begin(&j, stdout);
		if (o.all)
			json_open(&j, NULL, '[', 0);
		for (unsigned i = 0; i < nruns; i++)
			print_json(&j, &runs[i], done);
		if (o.all)
			json_close(&j);
		if (json_end(&j) != 0) {
			fprintf(stderr, "pktdedup-eval: writing the JSON failed: %s\n",
				strerror(errno));
			rc = 1;
		}
	} else {
		printf("stream: %s, n = %llu keys, distinct (exact) = %llu; memory budget %llu bytes"
		       " per filter; filter seed %llu\n",
		       o.stream == STREAM_FILE ? o.keys_path :
		       (const char *[]){"uniform", "zipf", "poisson", "bmodel"}[o.stream],
		       (unsigned long long)done,
		       (unsigned long long)distinct,
		       (unsigned long long)o.p.memory_bytes, (unsigned long long)o.p.seed);
		printf("%-11s %-18s %10s %10s %10s %9s %9s %9s %9s %7s %6s %6s\n", "filter",
		       "parameters", "M (bytes)", "FP", "FN", "FPR", "FNR", "error", "pred.FPR",
		       "Mkeys/s", "ns/key", "state");
		for (unsigned i = 0; i < nruns; i++)
			print_row(&runs[i], done);
		for (unsigned i = 0; i < nruns; i++)
			if (runs[i].npts)
				print_series(&runs[i]);
	}
out:
	for (unsigned i = 0; i < nruns; i++) {
		pd_filter_destroy(runs[i].f);
		pd_filter_destroy(runs[i].truth);
		delivered_free(runs[i].dtruth);
		free(runs[i].pts);
		if (runs[i].verdicts != NULL && fclose(runs[i].verdicts) != 0 && rc == 0) {
			fprintf(stderr, "pktdedup-eval: --verdicts: %s\n", strerror(errno));
			rc = 1;
		}
	}
	oracle_free(truth);
	stream_close(&s);
	free(keys);
	free(truth_v);
	free(wtruth_v);
	free(v);
	if (fflush(stdout) != 0 || ferror(stdout)) { /* the table or the JSON: not whole */
		fprintf(stderr, "pktdedup-eval: write error: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}
