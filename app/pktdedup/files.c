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
