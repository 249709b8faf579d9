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

FILE *pd_replace_open(struct pd_replace *r, const char *path)
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
		return r->f = fopen(path, "w"); /* in place */
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
		return r->f = fopen(path, "w");
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
