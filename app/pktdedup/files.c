/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The files a run names, checked before anything starts:
 *  - where a name leads (pd_app_resolve): symlinks followed to the end, dangling ones
 *    included, so a link to a file not yet made names that file;
 *  - no two of --pcap-in, --pcap-out, --dup-out, --stats-json and --snapshot are one
 *    file, compared by identity (device and inode of whatever is there: a file, a pipe,
 *    a terminal; for a file not yet made, the path it resolves to), so neither another
 *    spelling (./cap.pcap), a hard link, a symlink (dangling or not), /dev/stdout nor a
 *    redirection of standard input or output lets one overwrite another or two share
 *    one pipe (/dev/null, which loses nothing when shared, is the exception; a socket
 *    or terminal may be the input and an output, its two directions);
 *  - the files net_pcap ports read and write (--vdev net_pcap0,rx_pcap=A,tx_pcap=B):
 *    net_pcap empties a tx_pcap file when EAL starts it, so one that is also a port's
 *    rx_pcap or another port's tx_pcap would be lost, and --stats-json or --snapshot,
 *    written at the end, would replace a port's capture (pd_app_check_vdev_files,
 *    before EAL);
 *  - the files written at the end can be written, so that a long run does not lose its
 *    state to a typo.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pktdedup.h"

struct file_id {
	int known;     /* 0: nothing to compare (a terminal, a pipe, nothing given) */
	int exists;
	int stream;    /* a pipe, socket or terminal: two writers would interleave */
	int duplex;    /* a socket or terminal: it may be read and written at once */
	dev_t dev;
	ino_t ino;
	char path[2 * PATH_MAX]; /* a file not yet made: its directory resolved, then its name */
};

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

/* Symlinks followed at most this many times, as the kernel does (ELOOP). */
#define RESOLVE_HOPS 40

int pd_app_resolve(const char *path, char *out, size_t len)
{
	char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
	const char *slash;
	struct stat st;

	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
		return errno = ENAMETOOLONG, -1;
	for (int hop = 0;; hop++) {
		ssize_t n;

		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			break;
		if (hop == RESOLVE_HOPS)
			return errno = ELOOP, -1;
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			return -1;
		link[n] = '\0';
		dir_of(cur, dir, sizeof(dir));
		if (link[0] == '/')
			snprintf(cur, sizeof(cur), "%s", link);
		else if (snprintf(cur, sizeof(cur), "%s/%s", dir, link) >= (int)sizeof(cur))
			return errno = ENAMETOOLONG, -1;
	}
	if (realpath(cur, real) != NULL) /* there: its canonical name */
		return snprintf(out, len, "%s", real) >= (int)len ? (errno = ENAMETOOLONG, -1) : 0;
	/* not there yet: its directory resolved, then its name */
	slash = strrchr(cur, '/');
	dir_of(cur, dir, sizeof(dir));
	if (realpath(dir, real) == NULL) /* no such directory: as written */
		snprintf(real, sizeof(real), "%s", dir);
	if (snprintf(out, len, "%s/%s", real, slash != NULL ? slash + 1 : cur) >= (int)len)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

static void id_of_stat(struct file_id *id, const struct stat *st)
{
	/* /dev/null: sharing it loses nothing (--pcap-out /dev/null --dup-out /dev/null) */
	if (S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3))
		return;
	id->known = id->exists = 1;
	id->duplex = S_ISSOCK(st->st_mode) || S_ISCHR(st->st_mode);
	id->stream = id->duplex || S_ISFIFO(st->st_mode);
	id->dev = st->st_dev;
	id->ino = st->st_ino;
}

/*
 * The identity of a named file; "-" is standard input (@p output 0) or output (1),
 * compared as whatever it is (`--pcap-in - < cap.pcap`, `--stats-json - | cat` beside
 * `--pcap-out /dev/stdout`).
 */
static void file_id(const char *path, int output, struct file_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (strcmp(path, "-") == 0) {
		if (fstat(output ? STDOUT_FILENO : STDIN_FILENO, &st) == 0)
			id_of_stat(id, &st);
		return;
	}
	if (stat(path, &st) == 0) {
		id_of_stat(id, &st);
		return;
	}
	id->known = 1;
	if (pd_app_resolve(path, id->path, sizeof(id->path)) != 0) /* as written */
		snprintf(id->path, sizeof(id->path), "%s", path);
}

static int same(const struct file_id *a, const struct file_id *b)
{
	if (!a->known || !b->known || a->exists != b->exists)
		return 0;
	return a->exists ? a->dev == b->dev && a->ino == b->ino : strcmp(a->path, b->path) == 0;
}

/* A capture is binary: written to a terminal it fills the screen, and read from one it
 * waits for typing (gzip and zstd refuse both). "-" for a capture while the standard
 * stream is a terminal is a mistake, said with the fix. */
static int check_terminal(const char *opt, const char *path, int output)
{
	if (path == NULL || strcmp(path, "-") != 0 ||
	    !isatty(output ? STDOUT_FILENO : STDIN_FILENO))
		return 0;
	if (output)
		PD_LOG(ERR, "%s -: standard output is a terminal, and a capture is binary:"
			" redirect it (> out.pcap, | tcpdump -r -) or give a file\n", opt);
	else
		PD_LOG(ERR, "%s -: standard input is a terminal: redirect a capture into it"
			" (< in.pcap, tcpdump -w - |) or give a file\n", opt);
	return -1;
}

int pd_app_check_distinct(const struct pd_app_config *c)
{
	const struct {
		const char *opt, *path;
		int output;
	} f[] = {
		{"--pcap-in", c->pcap_in, 0},
		{"--pcap-out", c->pcap_out, 1},
		{"--dup-out", c->dup_out, 1},
		{"--stats-json", c->stats_json, 1},
		{"--snapshot", c->snapshot, 1},
	};
	struct file_id id[5];
	const size_t n = sizeof(f) / sizeof(f[0]);

	if (check_terminal("--pcap-in", c->pcap_in, 0) != 0 ||
	    check_terminal("--pcap-out", c->pcap_out, 1) != 0 ||
	    check_terminal("--dup-out", c->dup_out, 1) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (f[i].path != NULL)
			file_id(f[i].path, f[i].output, &id[i]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; f[i].path != NULL && j < n; j++) {
			int both_stdout = f[i].output && f[j].output && f[j].path != NULL &&
					  strcmp(f[i].path, "-") == 0 && strcmp(f[j].path, "-") == 0;

			if (f[j].path == NULL || (!both_stdout && !same(&id[i], &id[j])))
				continue;
			/* the input read from a socket or terminal the output goes back to
			 * (socket activation, socat): two directions, nothing shared */
			if (!both_stdout && id[i].duplex && (!f[i].output || !f[j].output))
				continue;
			PD_LOG(ERR, "%s %s: the same %s as %s %s%s; %s\n", f[j].opt, f[j].path,
				id[i].stream ? "stream" : "file", f[i].opt, f[i].path,
				both_stdout ? " (standard output)" : "",
				id[i].stream ? "the two would be interleaved in it" :
					       "writing one would destroy the other");
			return -1;
		}
	return 0;
}

/*
 * Whether @p path can be written when the run ends: an existing file must be a writable
 * regular file; the directory must exist and be writable when the file does not exist or
 * when it is replaced by renaming a temporary file beside it (@p renamed: the snapshot,
 * which is written where a symlink to it points).
 */
static int check_output(const char *opt, const char *path, int renamed)
{
	char dir[PATH_MAX], real[PATH_MAX];
	struct stat st;

	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			PD_LOG(ERR, "%s %s: is a directory\n", opt, path);
			return -1;
		}
		if (renamed && !S_ISREG(st.st_mode)) {
			PD_LOG(ERR, "%s %s: not a regular file\n", opt, path);
			return -1;
		}
		if (access(path, W_OK) != 0) {
			PD_LOG(ERR, "%s %s: %s\n", opt, path, strerror(errno));
			return -1;
		}
		if (!renamed)
			return 0;
		if (realpath(path, real) != NULL)
			path = real;
	} else if (errno != ENOENT) {
		PD_LOG(ERR, "%s %s: %s\n", opt, path, strerror(errno));
		return -1;
	}
	dir_of(path, dir, sizeof(dir));
	if (access(dir, W_OK | X_OK) != 0) {
		PD_LOG(ERR, "%s %s: cannot write in %s: %s\n", opt, path, dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

int pd_app_check_outputs(const struct pd_app_config *c)
{
	if (c->stats_json != NULL && strcmp(c->stats_json, "-") != 0 &&
	    check_output("--stats-json", c->stats_json, 0) != 0)
		return -1;
	if (c->snapshot != NULL && check_output("--snapshot", c->snapshot, 1) != 0)
		return -1;
	return 0;
}

/* One rx_pcap= or tx_pcap= file of a net_pcap --vdev. */
struct vdev_file {
	const char *vdev; /* the --vdev value, as given */
	char key[8];      /* "rx_pcap" or "tx_pcap" */
	char path[PATH_MAX];
	struct file_id id;
};

/* The net_pcap --vdev values' rx_pcap= and tx_pcap= files among EAL's options, into
 * @p out (up to @p max; NULL: counted only). Returns how many. */
static size_t vdev_files(int argc, char **argv, struct vdev_file *out, size_t max)
{
	size_t n = 0;

	for (int i = 1; i < argc; i++) {
		const char *v = NULL, *p;

		if (strcmp(argv[i], "--vdev") == 0 && i + 1 < argc)
			v = argv[++i];
		else if (strncmp(argv[i], "--vdev=", 7) == 0)
			v = argv[i] + 7;
		/* the driver's name and its DPDK alias: net_pcap0, eth_pcap0 */
		if (v == NULL || (strncmp(v, "net_pcap", 8) != 0 && strncmp(v, "eth_pcap", 8) != 0))
			continue;
		for (p = strchr(v, ','); p != NULL; p = strchr(p + 1, ',')) {
			const char *arg = p + 1, *end = strchr(arg, ',');
			const size_t len = end != NULL ? (size_t)(end - arg) : strlen(arg);

			if (len <= 8 || (strncmp(arg, "rx_pcap=", 8) != 0 &&
					 strncmp(arg, "tx_pcap=", 8) != 0))
				continue;
			if (out != NULL && n < max) {
				out[n].vdev = v;
				snprintf(out[n].key, sizeof(out[n].key), "%.7s", arg);
				snprintf(out[n].path, sizeof(out[n].path), "%.*s", (int)(len - 8),
					 arg + 8);
			}
			n++;
		}
	}
	return n;
}

int pd_app_check_vdev_files(int argc, char **argv, const struct pd_app_config *c)
{
	const struct {
		const char *opt, *path;
	} own[] = {{"--stats-json", c->stats_json}, {"--snapshot", c->snapshot}};
	const size_t n = vdev_files(argc, argv, NULL, 0);
	struct vdev_file *f;
	struct file_id ours;
	int rc = 0;

	if (n == 0)
		return 0;
	f = calloc(n, sizeof(*f));
	if (f == NULL) /* nothing checked: said, not fatal */
		return PD_LOG(WARNING, "the net_pcap files were not checked: out of memory\n"), 0;
	vdev_files(argc, argv, f, n);
	for (size_t i = 0; i < n; i++)
		file_id(f[i].path, 1, &f[i].id);
	for (size_t j = 0; j < n && rc == 0; j++) {
		/* a file read on two queues is fine (rx_pcap twice); written, it is emptied */
		for (size_t i = 0; i < n && rc == 0 && f[j].key[0] == 't'; i++) {
			if (i == j || !same(&f[i].id, &f[j].id))
				continue;
			PD_LOG(ERR, "--vdev %s: tx_pcap=%s is the same file as %s=%s%s%s:"
				" net_pcap empties a tx_pcap file when it starts, so %s; give"
				" another file\n", f[j].vdev, f[j].path, f[i].key, f[i].path,
				f[i].vdev == f[j].vdev ? "" : " of --vdev ",
				f[i].vdev == f[j].vdev ? "" : f[i].vdev,
				f[i].key[0] == 'r' ? "the capture read from it would be lost" :
						     "the two would overwrite each other's frames");
			rc = -1;
		}
		for (size_t k = 0; k < sizeof(own) / sizeof(own[0]) && rc == 0; k++) {
			if (own[k].path == NULL)
				continue;
			file_id(own[k].path, 1, &ours);
			if (!same(&ours, &f[j].id))
				continue;
			PD_LOG(ERR, "--vdev %s: %s=%s is the same file as %s %s; writing one"
				" would destroy the other\n", f[j].vdev, f[j].key, f[j].path,
				own[k].opt, own[k].path);
			rc = -1;
		}
	}
	free(f);
	return rc;
}
