/*
 * ring.c - a fine-grained communicating PVM program for bench-payoff.sh:
 * N tasks, one per host, pass a small token around a ring R times.
 *
 *   ring N R OUTFILE [WORK_US [MAX_S]]
 *
 * The first instance (spawned by dts-pvmctl, so it is in its host's gang)
 * spawns N-1 copies of itself, one on every other host in pvm_config order
 * (cycling if N exceeds the hosts), sends everyone the ring's task ids,
 * runs one warm-up round, then R timed rounds.  Every task burns WORK_US of
 * CPU (default 100) before it passes the token on, so the ring is
 * fine-grained: a hop needs the receiver's CPU at once.  The run stops
 * after R rounds or MAX_S seconds (default 60), whichever comes first, and
 * the first instance appends one line to OUTFILE:
 *   ring n=N rounds=DONE of=R work_us=W elapsed_s=S round_us=U complete=0|1
 * Build: cc -O2 -o ring ring.c -lpvm3
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pvm3.h>

#include "burn.h"

#define TAG_TIDS  11
#define TAG_TOKEN 12
#define MAXN      64

/* Token: [round, stop]. */
static void
pass(int to, int round, int stop)
{
	int v[2] = { round, stop };

	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 2, 1);
	pvm_send(to, TAG_TOKEN);
}

static void
take(int from, int *round, int *stop)
{
	int v[2];

	pvm_recv(from, TAG_TOKEN);
	pvm_upkint(v, 2, 1);
	*round = v[0];
	*stop = v[1];
}

static int
child(void)
{
	int n, tids[MAXN], me = -1, mytid = pvm_mytid(), round, stop;

	pvm_setopt(PvmRoute, PvmRouteDirect);

	pvm_recv(pvm_parent(), TAG_TIDS);
	pvm_upkint(&n, 1, 1);
	pvm_upkint(tids, n, 1);
	int work_us;
	pvm_upkint(&work_us, 1, 1);
	for (int i = 0; i < n; i++)
		if (tids[i] == mytid)
			me = i;
	if (me < 1) {
		pvm_exit();
		return 1;
	}
	do {
		take(tids[me - 1], &round, &stop);
		work(work_us);
		pass(tids[(me + 1) % n], round, stop);
	} while (!stop);
	pvm_exit();
	return 0;
}

int
main(int argc, char **argv)
{
	int n, r, work_us = 100, mytid, nhost, narch, tids[MAXN], k = 1;
	int done = 0, round, stop;
	double max_s = 60, t0, el;
	struct pvmhostinfo *hi;
	FILE *f;

	if (argc == 2 && strcmp(argv[1], "child") == 0)
		return child();
	if (argc < 4) {
		fprintf(stderr, "usage: ring N R OUTFILE [WORK_US [MAX_S]]\n");
		return 2;
	}
	n = atoi(argv[1]);
	r = atoi(argv[2]);
	if (argc > 4)
		work_us = atoi(argv[4]);
	if (argc > 5)
		max_s = atof(argv[5]);
	if (n < 2 || n > MAXN || r < 1)
		return 2;
	mytid = pvm_mytid();
	if (mytid < 0)
		return 1;
	/* task-to-task TCP: hops do not go through the two pvmds */
	pvm_setopt(PvmRoute, PvmRouteDirect);
	tids[0] = mytid;
	if (pvm_config(&nhost, &narch, &hi) < 0)
		return 1;
	for (int i = 0; k < n; i = (i + 1) % nhost) {
		char *cargv[] = { "child", NULL };

		if (hi[i].hi_tid == pvm_tidtohost(mytid) && nhost > 1)
			continue;
		if (pvm_spawn(argv[0], cargv, PvmTaskHost, hi[i].hi_name, 1,
			      &tids[k]) != 1) {
			fprintf(stderr, "ring: spawn on %s failed\n", hi[i].hi_name);
			pvm_exit();
			return 1;
		}
		k++;
	}
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&n, 1, 1);
	pvm_pkint(tids, n, 1);
	pvm_pkint(&work_us, 1, 1);
	pvm_mcast(tids + 1, n - 1, TAG_TIDS);

	pass(tids[1], -1, 0); /* warm-up round */
	take(tids[n - 1], &round, &stop);
	t0 = now_s();
	for (int i = 0; i < r; i++) {
		work(work_us);
		pass(tids[1], i, 0);
		take(tids[n - 1], &round, &stop);
		done++;
		if (now_s() - t0 > max_s)
			break;
	}
	el = now_s() - t0;
	pass(tids[1], done, 1);
	take(tids[n - 1], &round, &stop);
	f = fopen(argv[3], "a");
	if (f != NULL) {
		fprintf(f, "ring n=%d rounds=%d of=%d work_us=%d elapsed_s=%.4f "
			"round_us=%.1f complete=%d\n", n, done, r, work_us, el,
			1e6 * el / (done ? done : 1), done == r);
		fclose(f);
	}
	pvm_exit();
	return 0;
}
