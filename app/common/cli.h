/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Option-value parsing shared by the command-line tools. Each parser prints
 * "<prog>: <option> <value>: <why>" to stderr and returns -1 on a bad value, 0 otherwise.
 */
#ifndef PKTDEDUP_CLI_H
#define PKTDEDUP_CLI_H

#include <stdint.h>

#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_key.h>

/** Program name used in messages ("pktdedup", "pktdedup-eval"). */
extern const char *cli_prog;

/** Print "<prog>: <opt> <val>: <why>"; returns -1. */
int cli_bad(const char *opt, const char *val, const char *why);
/** --version: "<cli_prog> <version>" on stdout. */
void cli_version(void);
/** The option getopt_long just refused (it returned '?' or ':'), as the user wrote it:
 * "-x" for a short one, also inside a group ("-qx", "-l0-1", where argv[optind - 1] is
 * still the word before), else the word read ("--frob", "--frob=1"). @p buf: 3 bytes. */
const char *cli_refused(int c, char **argv, char buf[3]);
/** Bytes: digits, an optional fraction and an optional unit in any case, powers of 1024
 * ("4096", "8M", "64mb", "8MiB", "1.5G", "1T"); a fraction must give whole bytes. */
int cli_size(const char *opt, const char *s, uint64_t *out);
/** A non-negative integer in decimal digits (all 64 bits; no sign, spaces, 0x, 1e7). */
int cli_count(const char *opt, const char *s, uint64_t *out);
/** cli_count limited to 32 bits. */
int cli_u32(const char *opt, const char *s, uint32_t *out);
/** A real number in [lo, hi]. */
int cli_real(const char *opt, const char *s, double lo, double hi, double *out);
/** A duration with a unit: ns, us, ms or s ("50us", "1.5s"); out in nanoseconds. */
int cli_duration(const char *opt, const char *s, uint64_t *out_ns);
/* One of a NULL-terminated list of names: *out = its index; else "expected a, b or c". */
int cli_choice(const char *opt, const char *s, const char *const *names, int *out);

/* Seconds: a plain number (seconds) or a duration with a unit (500ms, 2s), lo..hi s. */
int cli_seconds(const char *opt, const char *s, double lo, double hi, double *out);

/* Every filter's name, space-separated, from the library's table ("sbf rsbf ..."). */
const char *cli_filter_names(void);

/* @p words (space-separated) into @p buf, a newline and @p indent spaces put in
 * where a line started at column @p col would pass 80 columns. */
const char *cli_wrap(const char *words, unsigned col, unsigned indent, char *buf, size_t len);

/* "a, b or c": the filters with every capability in caps (PD_FILTER_CAN_*), into buf. */
const char *cli_filter_list(unsigned caps, char *buf, size_t len);

/* The option that sets the parameter a library message ("qht_b: ...") is about. */
const char *cli_param_option(const char *msg);

/*
 * The filter-parameter options every tool takes: getopt_long entries (values from
 * CLI_O_FILTER_BASE up) and their parser. --filter itself is left to each tool.
 */
enum {
	CLI_O_MEMORY = 1000, CLI_O_FPR, CLI_O_SEED, CLI_O_K, CLI_O_MAX, CLI_O_P, CLI_O_PSTAR,
	CLI_O_B, CLI_O_F, CLI_O_Q, CLI_O_EXPN, CLI_O_FILTER_END
};
#define CLI_FILTER_LONGOPTS                                                  \
	{"memory", 1, NULL, CLI_O_MEMORY}, {"fpr", 1, NULL, CLI_O_FPR},      \
	{"seed", 1, NULL, CLI_O_SEED}, {"k", 1, NULL, CLI_O_K},              \
	{"max", 1, NULL, CLI_O_MAX}, {"p", 1, NULL, CLI_O_P},                \
	{"pstar", 1, NULL, CLI_O_PSTAR}, {"b", 1, NULL, CLI_O_B},            \
	{"f", 1, NULL, CLI_O_F}, {"q", 1, NULL, CLI_O_Q},                    \
	{"expected-n", 1, NULL, CLI_O_EXPN}

/** Parse filter option @p opt (CLI_O_MEMORY..CLI_O_EXPN) into @p p: 0 or -1. */
int cli_filter_option(int opt, const char *arg, struct pd_filter_params *p);

/*
 * The key options every tool takes (docs/keys.md): getopt_long entries and their
 * parser. Values are parsed as they come; cli_key_check() then refuses the ones that do
 * not belong to the --key mode (which may come before or after them).
 */
enum {
	CLI_O_KEY = 1100, CLI_O_CLICK_PARAM, CLI_O_IGNORE, CLI_O_COMPARE_FROM, CLI_O_FRAG,
	CLI_O_COMPARE_BYTES, CLI_O_VLAN_MODE, CLI_O_DECAP, CLI_O_VXLAN_PORT, CLI_O_KEY_END
};
#define CLI_KEY_LONGOPTS                                                     \
	{"key", 1, NULL, CLI_O_KEY}, {"click-param", 1, NULL, CLI_O_CLICK_PARAM}, \
	{"ignore", 1, NULL, CLI_O_IGNORE},                                   \
	{"compare-from", 1, NULL, CLI_O_COMPARE_FROM}, {"frag", 1, NULL, CLI_O_FRAG}, \
	{"compare-bytes", 1, NULL, CLI_O_COMPARE_BYTES},                     \
	{"vlan-mode", 1, NULL, CLI_O_VLAN_MODE}, {"decap", 1, NULL, CLI_O_DECAP},   \
	{"vxlan-port", 1, NULL, CLI_O_VXLAN_PORT}

/** The key options given, by option, for cli_key_check(). */
struct cli_key_given {
	const char *value[CLI_O_KEY_END - CLI_O_KEY];
};

/** Parse key option @p opt (CLI_O_KEY..CLI_O_VXLAN_PORT) into @p k (initialised with
 * pd_key_config_init()): 0 or -1. */
int cli_key_option(int opt, const char *arg, struct pd_key_config *k, struct cli_key_given *g);
/** Refuse options that need another --key mode or contradict each other: 0 or -1. */
int cli_key_check(const struct pd_key_config *k, const struct cli_key_given *g);

/** The key options as one line ("key packet; ignore ttl,checksum; ..."): every field
 * that changes keys, for logs and snapshot tags. */
void cli_key_describe(const struct pd_key_config *k, char *buf, size_t len);

/** The --key options' help text, shared by the tools that take them. */
extern const char cli_key_help[];

#endif
