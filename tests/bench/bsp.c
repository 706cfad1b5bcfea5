/*
 * bsp.c - a CPU-heavy bulk-synchronous PVM program for bench-payoff.sh:
 * T tasks on every host compute G microseconds of CPU, then exchange a
 * small message with every other task, and start over.
 *
 *   bsp T G_US ROUNDS OUTFILE [MAX_S]
 *
 * The first instance (spawned by dts-pvmctl, so it is in its host's gang)
 * spawns the rest of the set: T-1 more copies on its own host and T on
 * every other host in pvm_config order.  It sends everyone the task ids,
 * all tasks do one exchange without work (the warm-up: it opens the
 * task-to-task connections), then the timed rounds.  A round is: burn
 * G_US of CPU (the thread's CPU clock, so time spent preempted does not
 * count as work), send [round, stop] to every other task, receive the
 * same from every other task.  No task starts round r+1 before every
 * task has finished the work of round r, so a round lasts as long as its
 * slowest task: the program needs every host's CPU at the same time.
 * The run stops after ROUNDS rounds or MAX_S seconds (default 60),
 * whichever comes first: the first instance raises "stop" in its message
 * of the last round.  It then appends one line to OUTFILE:
 *   bsp n=N tph=T g_us=G rounds=DONE of=R elapsed_s=S round_us=U complete=0|1
 * Build: cc -O2 -o bsp bsp.c -lpvm3
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pvm3.h>

#include "burn.h"

#define TAG_TIDS  21
#define TAG_WARM  22
#define TAG_ROUND 23 /* and 24: rounds alternate, a fast peer may be one ahead */
#define MAXN      256

/*
 * One exchange: send [round, stop] to every task but ourselves, then take
 * one message with this tag from each of them.  Returns the stop flag
 * of the first task (tids[0]: the one we sent, or the one we got), or -1.
 */
static int
exchange(const int *tids, int n, int me, int tag, int round, int stop)
{
	int v[2] = { round, stop }, from, bytes, mtag, any_stop = me == 0 && stop;

	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 2, 1);
	for (int i = 0; i < n; i++)
		if (i != me)
			pvm_send(tids[i], tag);
	for (int i = 0; i < n - 1; i++) {
		int buf = pvm_recv(-1, tag);

		if (buf < 0)
			return -1;
		pvm_bufinfo(buf, &bytes, &mtag, &from);
		pvm_upkint(v, 2, 1);
		if (from == tids[0] && v[1])
			any_stop = 1;
	}
	return any_stop;
}

/* The rounds every task runs; returns the number done. */
static int
rounds(const int *tids, int n, int me, int g_us, int r, double max_s, double t0)
{
	int done = 0, stop = 0;

	while (!stop) {
		work(g_us);
		if (me == 0)
			stop = done + 1 >= r || now_s() - t0 > max_s;
		stop = exchange(tids, n, me, TAG_ROUND + (done & 1), done, stop);
		if (stop < 0)
			break;
		done++;
	}
	return done;
}

static int
child(void)
{
	int n, tids[MAXN], me = -1, mytid = pvm_mytid(), g_us;

	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (pvm_recv(pvm_parent(), TAG_TIDS) < 0) {
		pvm_exit();
		return 1;
	}
	pvm_upkint(&n, 1, 1);
	if (n < 2 || n > MAXN) {
		pvm_exit();
		return 1;
	}
	pvm_upkint(tids, n, 1);
	pvm_upkint(&g_us, 1, 1);
	for (int i = 0; i < n; i++)
		if (tids[i] == mytid)
			me = i;
	if (me < 1) {
		pvm_exit();
		return 1;
	}
	if (exchange(tids, n, me, TAG_WARM, -1, 0) >= 0)
		rounds(tids, n, me, g_us, 0, 0, 0);
	pvm_exit();
	return 0;
}

/* Spawn count copies on host name into tids[*k...]; 0 or -1. */
static int
spawn_on(const char *prog, char *name, int count, int *tids, int *k)
{
	char *cargv[] = { "child", NULL };

	if (count <= 0)
		return 0;
	if (pvm_spawn((char *)prog, cargv, PvmTaskHost, name, count, &tids[*k]) != count) {
		fprintf(stderr, "bsp: spawn of %d on %s failed\n", count, name);
		return -1;
	}
	*k += count;
	return 0;
}

int
main(int argc, char **argv)
{
	int t, g_us, r, mytid, nhost, narch, n, k = 1, done, me_host = -1;
	int tids[MAXN];
	double max_s = 60, t0, el;
	struct pvmhostinfo *hi;
	FILE *f;

	if (argc == 2 && strcmp(argv[1], "child") == 0)
		return child();
	if (argc < 5) {
		fprintf(stderr, "usage: bsp T G_US ROUNDS OUTFILE [MAX_S]\n");
		return 2;
	}
	t = atoi(argv[1]);
	g_us = atoi(argv[2]);
	r = atoi(argv[3]);
	if (argc > 5)
		max_s = atof(argv[5]);
	if (t < 1 || g_us < 0 || r < 1)
		return 2;
	mytid = pvm_mytid();
	if (mytid < 0)
		return 1;
	/* task-to-task TCP: messages do not go through the pvmds */
	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (pvm_config(&nhost, &narch, &hi) < 0)
		return 1;
	n = t * nhost;
	if (n > MAXN) {
		fprintf(stderr, "bsp: %d tasks, at most %d\n", n, MAXN);
		pvm_exit();
		return 2;
	}
	tids[0] = mytid;
	for (int i = 0; i < nhost; i++)
		if (hi[i].hi_tid == pvm_tidtohost(mytid))
			me_host = i;
	for (int i = 0; i < nhost; i++)
		if (spawn_on(argv[0], hi[i].hi_name, i == me_host ? t - 1 : t, tids, &k) < 0) {
			for (int j = 1; j < k; j++)
				pvm_kill(tids[j]);
			pvm_exit();
			return 1;
		}
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&n, 1, 1);
	pvm_pkint(tids, n, 1);
	pvm_pkint(&g_us, 1, 1);
	for (int i = 1; i < n; i++)
		pvm_send(tids[i], TAG_TIDS);

	if (exchange(tids, n, 0, TAG_WARM, -1, 0) < 0) {
		pvm_exit();
		return 1;
	}
	t0 = now_s();
	done = rounds(tids, n, 0, g_us, r, max_s, t0);
	el = now_s() - t0;
	f = fopen(argv[4], "a");
	if (f != NULL) {
		fprintf(f, "bsp n=%d tph=%d g_us=%d rounds=%d of=%d elapsed_s=%.4f "
			"round_us=%.1f complete=%d\n", n, t, g_us, done, r, el,
			1e6 * el / (done ? done : 1), done == r);
		fclose(f);
	}
	pvm_exit();
	return 0;
}
