/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A file written whole or not at all (--stats-json): where PATH leads (symlinks followed,
 * pd_app_resolve), a regular file or none yet is written as a temporary file beside it,
 * flushed to the disk and renamed over it at the end. A reader (a monitoring job polling
 * the file) sees the old content or the new, never half of it; a write that fails (a full
 * disk) leaves the old file as it was; the link stays a link. The file keeps its mode and,
 * as root, its owner, as a write in place would. Anything else (a FIFO, a device, a file
 * in a directory this user cannot write in) is written in place, as before.
 * The snapshot has its own, in the library (pd_snapshot_write).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pktdedup.h"

int pd_open_waiting(const char *opt, const char *path, int flags)
{
	int fd = open(path, flags | O_NONBLOCK, 0666);

	if (fd >= 0) { /* writes wait as with any file */
		const int fl = fcntl(fd, F_GETFL);

		if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
			const int err = errno;

			close(fd);
			errno = err;
			return -1;
		}
		return fd;
	}
	if (errno != ENXIO) /* ENXIO: a FIFO with no reader */
		return -1;
	PD_LOG(NOTICE, "%s %s is a FIFO with no reader: waiting for one to open it\n", opt,
	       path);
	return open(path, flags, 0666);
}

/* In place (pd_open_waiting: the JSON is written at the stop, and a wait nobody explains
 * after Ctrl-C looks like a hang). A stop signal that ends the wait is said: NULL with
 * errno 0. */
static FILE *open_in_place(const char *opt, const char *path)
{
	const int fd = pd_open_waiting(opt, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
	FILE *f;

	if (fd < 0 && errno == EINTR) {
		PD_LOG(ERR, "%s %s: the wait for a reader ended by a signal: not written\n",
			opt, path);
		errno = 0;
		return NULL;
	}
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (f == NULL) {
		const int err = errno;

		close(fd);
		errno = err;
	}
	return f;
}

FILE *pd_replace_open(struct pd_replace *r, const char *opt, const char *path)
{
	struct stat st;
	int have = stat(path, &st) == 0, fd = -1;

	r->tmp[0] = '\0';
	r->f = NULL;
	if ((have && !S_ISREG(st.st_mode)) || pd_app_resolve(path, r->target,
							     sizeof(r->target)) != 0 ||
	    snprintf(r->tmp, sizeof(r->tmp), "%s.tmp.%ld", r->target, (long)getpid()) >=
		    (int)sizeof(r->tmp)) {
		r->tmp[0] = '\0';
		return r->f = open_in_place(opt, path); /* in place */
	}
	for (int tries = 0; tries < 2 && fd < 0; tries++) {
		/* O_EXCL|O_NOFOLLOW: a file or link planted at the name is not written through;
		 * one there (a run with this PID that was killed) is removed, once */
		fd = open(r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && (errno != EEXIST || unlink(r->tmp) != 0))
			break;
	}
	if (fd < 0) { /* a directory this user cannot write in, say: in place */
		r->tmp[0] = '\0';
		return r->f = open_in_place(opt, path);
	}
	if (have) { /* as a write in place would leave it */
		(void)fchmod(fd, st.st_mode & 07777);
		if (geteuid() == 0)
			(void)fchown(fd, st.st_uid, st.st_gid);
	}
	r->f = fdopen(fd, "w");
	if (r->f == NULL) {
		const int err = errno;

		close(fd);
		(void)unlink(r->tmp);
		errno = err;
	}
	return r->f;
}

int pd_replace_close(struct pd_replace *r, int whole)
{
	int rc = 0, err = 0;

	if (fflush(r->f) != 0 || (r->tmp[0] != '\0' && whole && fsync(fileno(r->f)) != 0)) {
		rc = -1;
		err = errno;
	}
	if (fclose(r->f) != 0 && rc == 0) {
		rc = -1;
		err = errno;
	}
	r->f = NULL;
	if (r->tmp[0] == '\0')
		return rc == 0 ? 0 : (errno = err, -1);
	if (rc == 0 && whole && rename(r->tmp, r->target) != 0) {
		rc = -1;
		err = errno;
	}
	if (rc != 0 || !whole)
		(void)unlink(r->tmp); /* the old file stays as it was */
	errno = err;
	return rc;
}
