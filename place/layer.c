/*
 * layer.c - the spawning side of a placement.  See layer.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

int
place_request(char *buf, size_t cap, const char *file, int ntask,
    const struct pvmhostinfo *hi, int nhost)
{
	int	 i, len;

	len = snprintf(buf, cap, "SPAWN %d %s\n", ntask, file);
	for (i = 0; i < nhost && len > 0 && (size_t)len < cap; i++)
		len += snprintf(buf + len, cap - (size_t)len, "H %s %d\n",
		    hi[i].hi_name, hi[i].hi_speed);
	return len > 0 && (size_t)len < cap ? len : -1;
}

/*
 * "\nHOST" or " TID" to the TIDS message msg (of length *len).  Once one
 * does not fit, *len is cap and nothing more is added: msg ends before
 * it.
 */
static void
tid_add(char *msg, size_t cap, size_t *len, const char *host, int tid)
{
	int	 n;

	if (*len >= cap)
		return;
	if (host != NULL)
		n = snprintf(msg + *len, cap - *len, "\n%s", host);
	else
		n = snprintf(msg + *len, cap - *len, " %x", (unsigned)tid);
	if (n > 0 && *len + (size_t)n < cap) {
		*len += (size_t)n;
		return;
	}
	msg[*len] = '\0';
	*len = cap;
}

int
place_by_plan(place_spawn_fn spawn, char *reply, char *file, char **argv,
    int flags, int ntask, int *tids, char *msg, size_t cap, size_t *mlen)
{
	int	*one, *errs, ok = 0, ne = 0, rc, k, j, syserr = 0;
	char	*line, *save, host[256];

	if ((one = calloc((size_t)ntask, sizeof(int))) == NULL ||
	    (errs = calloc((size_t)ntask, sizeof(int))) == NULL) {
		free(one);
		return spawn(file, argv, flags, NULL, ntask, tids);
	}
	line = strtok_r(reply, "\n", &save);	/* "PLAN" */
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		if (sscanf(line, "%255s %d", host, &k) != 2 || k <= 0 ||
		    k > ntask - ok - ne)
			continue;
		rc = spawn(file, argv, (flags & ~PvmHostCompl) | PvmTaskHost,
		    host, k, one);
		if (rc < 0) {
			syserr = rc;
			for (j = 0; j < k; j++)
				errs[ne++] = rc;
			continue;
		}
		tid_add(msg, cap, mlen, host, 0);
		for (j = 0; j < k; j++)
			if (one[j] > 0) {
				tid_add(msg, cap, mlen, NULL, one[j]);
				tids[ok++] = one[j];
			} else
				errs[ne++] = one[j] < 0 ? one[j] : PvmSysErr;
	}
	for (j = 0; j < ne && ok + j < ntask; j++)
		tids[ok + j] = errs[j];
	free(one);
	free(errs);
	return ok == 0 && syserr < 0 ? syserr : ok;
}

void
place_by_host(const struct pvmhostinfo *hi, int nhost,
    place_tidtohost_fn tidtohost, const int *tids, int n, char *msg,
    size_t cap, size_t *len)
{
	int	 i, j;

	for (i = 0; i < nhost; i++) {
		for (j = 0; j < n; j++)
			if (tids[j] > 0 && tidtohost(tids[j]) == hi[i].hi_tid)
				break;
		if (j == n)
			continue;
		tid_add(msg, cap, len, hi[i].hi_name, 0);
		for (; j < n; j++)
			if (tids[j] > 0 && tidtohost(tids[j]) == hi[i].hi_tid)
				tid_add(msg, cap, len, NULL, tids[j]);
	}
}
