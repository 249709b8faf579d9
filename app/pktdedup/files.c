/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The files a run names, checked before anything starts:
 *  - no two of --pcap-in, --pcap-out, --dup-out, --stats-json and --snapshot are one
 *    file, compared by identity (device and inode; for a file not yet made, its resolved
 *    path), so neither another spelling (./cap.pcap), a hard link, a symlink nor a
 *    redirection of standard input or output lets one overwrite another;
 *  - the files written at the end can be written, so that a long run does not lose its
 *    state to a typo.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pktdedup.h"

struct file_id {
	int known;     /* 0: nothing to compare (a terminal, a pipe, nothing given) */
	int exists;
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

/*
 * The identity of a named file; "-" is standard input (@p output 0) or output (1),
 * compared when it is a file (`--pcap-in - < cap.pcap`).
 */
static void file_id(const char *path, int output, struct file_id *id)
{
	struct stat st;
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash, *base;

	memset(id, 0, sizeof(*id));
	if (strcmp(path, "-") == 0) {
		if (fstat(output ? STDOUT_FILENO : STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
			id->known = id->exists = 1;
			id->dev = st.st_dev;
			id->ino = st.st_ino;
		}
		return;
	}
	id->known = 1;
	if (stat(path, &st) == 0) {
		id->exists = 1;
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		return;
	}
	slash = strrchr(path, '/');
	base = slash != NULL ? slash + 1 : path;
	dir_of(path, dir, sizeof(dir));
	if (realpath(dir, real) == NULL) /* no such directory: compared as written */
		snprintf(real, sizeof(real), "%s", dir);
	snprintf(id->path, sizeof(id->path), "%s/%s", real, base);
}

static int same(const struct file_id *a, const struct file_id *b)
{
	if (!a->known || !b->known || a->exists != b->exists)
		return 0;
	return a->exists ? a->dev == b->dev && a->ino == b->ino : strcmp(a->path, b->path) == 0;
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

	for (size_t i = 0; i < n; i++)
		if (f[i].path != NULL)
			file_id(f[i].path, f[i].output, &id[i]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; f[i].path != NULL && j < n; j++) {
			int both_stdout = f[i].output && f[j].output && f[j].path != NULL &&
					  strcmp(f[i].path, "-") == 0 && strcmp(f[j].path, "-") == 0;

			if (f[j].path == NULL || (!both_stdout && !same(&id[i], &id[j])))
				continue;
			PD_LOG(ERR, "%s %s: the same file as %s %s%s; writing one"
				" would destroy the other\n", f[j].opt, f[j].path, f[i].opt,
				f[i].path, both_stdout ? " (standard output)" : "");
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
