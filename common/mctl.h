/*
 * mctl.h - the control protocol of dts-master's local socket
 * (console.master_socket), spoken by dts-console and dts-master.
 *
 * A Unix stream socket; one request a connection.  The client sends one
 * line, at most MCTL_REQ_MAX bytes with its newline:
 *
 *	"DTSM1 " COMMAND "\n"
 *
 * COMMAND is one console command (dts-console(1)) of those the master
 * takes (mctl_kind): no control character, no ';'.  The master answers
 * once the command has run (a status round: once it is over), then
 * closes:
 *
 *	"DTSM1 " RC " " OUTLEN " " ERRLEN "\n" OUTPUT ERROR
 *
 * RC 0 (done) or 1 (failed); OUTPUT the command's output, OUTLEN bytes;
 * ERROR the one-line reason of a failure, ERRLEN bytes (0 if none).
 * The master checks the peer's credentials (SO_PEERCRED): a command of
 * kind MCTL_WRITE is refused unless the peer is root or in
 * console.operator_group.  Version: 1 (the "1" of "DTSM1"); a request of
 * another version gets a failure naming both.
 */
#ifndef DTS_COMMON_MCTL_H
#define DTS_COMMON_MCTL_H

#include <stddef.h>
#include <stdio.h>

#define MCTL_VERSION	1
#define MCTL_REQ_MAX	1024
#define MCTL_HEAD_MAX	64		/* a reply's first line, at most */
#define MCTL_OUT_MAX	(64u << 20)	/* a reply's output, at most */

enum mctl_kind {
	MCTL_READ = 1,		/* shows: every local user */
	MCTL_WRITE = 2		/* changes the schedule: root, operators */
};

/*
 * The kind of the command line: MCTL_READ or MCTL_WRITE; -1 with a
 * one-line err if the master does not take it (the console's own
 * commands, PVM's, `metrics FILE`, `set KEY` other than weight).
 */
int mctl_kind(const char *line, char *err, size_t errlen);

/*
 * One request as read (len bytes, its newline last): the command line
 * into cmd (NUL-terminated), its kind into *kind.  0, or -1 with a
 * one-line err (empty, too long, not one line, another version, a
 * control character, ';', or a command the master does not take).
 */
int mctl_parse(const char *buf, size_t len, char *cmd, size_t cmdlen,
    int *kind, char *err, size_t errlen);

/* A reply's first line into buf; its length, or -1 if buf is short. */
int mctl_reply_head(char *buf, size_t len, int rc, size_t outlen,
    size_t errlen);

/*
 * A reply's first line (len bytes, its newline included): 0 with rc,
 * outlen and errlen, or -1 (not a reply of this version).
 */
int mctl_reply_parse(const char *buf, size_t len, int *rc, size_t *outlen,
    size_t *errlen);

/*
 * Client: run cmd on the master at path, waiting at most timeout_ms.
 * The output goes to out.  Returns 0 (done), -1 (the master refused or
 * the command failed: err says why, as the master put it), or -2 (no
 * master answered: err says why, naming path).
 */
int mctl_call(const char *path, const char *cmd, FILE *out, char *err,
    size_t errlen, int timeout_ms);

#endif /* DTS_COMMON_MCTL_H */
