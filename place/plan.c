/*
 * plan.c - a placement's decisions, their record and counters.  See
 * plan.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "plan.h"
#include "timeutil.h"

#define MSG_MAX 65536

int
placer_init(struct placer *p, const struct dts_conf *c, const char *job,
    const char *record, pid_t pid, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	if (hosts_init(&p->t, c, job, err, errlen) == -1)
		return -1;
	snprintf(p->record, sizeof(p->record), "%s", record);
	p->pid = pid;
	p->wait_ns = c->place.wait_ns;
	p->interval_ns = c->place.interval_ns;
	return 0;
}

void
placer_fini(struct placer *p)
{
	if (p->pend.n > 0)
		placer_flush(p, NULL);
	hosts_fini(&p->t);
}

/* The per-host counters, Prometheus text, written whole (RECORD.prom). */
static void
write_metrics(const struct placer *p)
{
	char	 path[600], tmp[620];
	FILE	*f;
	int	 i;

	snprintf(path, sizeof(path), "%s.prom", p->record);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "we")) == NULL)
		return;
	fprintf(f, "# HELP dts_place_spawns_total spawns that named no host\n"
	    "# TYPE dts_place_spawns_total counter\n"
	    "dts_place_spawns_total %llu\n"
	    "# HELP dts_place_circle_total of them left to PVM's circle\n"
	    "# TYPE dts_place_circle_total counter\n"
	    "dts_place_circle_total %llu\n"
	    "# HELP dts_place_tasks_total tasks placed on the host\n"
	    "# TYPE dts_place_tasks_total counter\n",
	    (unsigned long long)p->spawns, (unsigned long long)p->circles);
	for (i = 0; i < p->t.n; i++)
		fprintf(f, "dts_place_tasks_total{host=\"%s\"} %llu\n",
		    p->t.h[i].name, (unsigned long long)p->t.h[i].total);
	fprintf(f, "# HELP dts_place_goodness the host's goodness at the "
	    "last spawn\n# TYPE dts_place_goodness gauge\n");
	for (i = 0; i < p->t.n; i++)
		fprintf(f, "dts_place_goodness{host=\"%s\",class=\"%s\"} "
		    "%.4f\n", p->t.h[i].name,
		    place_class_names[p->t.h[i].cls], p->t.h[i].good);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		unlink(tmp);
}

/*
 * One line per host of a decision: "TIME PID FILE HOST N good=G ...
 * tids=T,T" (the tids in hexadecimal, when the program said them).
 */
static void
record(const struct placer *p, int64_t at, const char *file,
    const struct place_host *h, int count, const char *tids)
{
	FILE	*f;
	int	 fd;

	fd = open(p->record, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd == -1 || (f = fdopen(fd, "a")) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	fprintf(f, "%lld %d %s %s %d good=%.3f class=%s runnable=%.2f "
	    "load=%.2f ncpu=%d ram=%u users=%d gangs=%d own=%d%s%s\n",
	    (long long)(at / NS_PER_SEC), (int)p->pid, file,
	    h->name, count, h->good, place_class_names[h->cls], h->runnable,
	    h->q, h->ncpu, h->mem_mib, h->users, h->rt, h->own,
	    tids != NULL && *tids != '\0' ? " tids=" : "",
	    tids != NULL ? tids : "");
	fclose(f);
}

/*
 * The pending decision into the record, each host with the tids that
 * msg ("HOST TID TID ..." lines, TIDS's body; NULL: none known) gives
 * it: a host's first line not used yet.  A host's count is its tids'
 * when they are known (after a SAME spawn PVM's circle chose among hosts
 * as good as each other), the plan's otherwise.
 */
void
placer_flush(struct placer *p, char *msg)
{
	static char	*line[PLACE_HOSTS_MAX];
	static char	 tids[MSG_MAX];
	char		*save, *s, *tok, *end;
	size_t		 len, nl;
	int		 n = 0, k, i, cnt;
	unsigned long	 t;

	for (s = msg != NULL ? strtok_r(msg, "\n", &save) : NULL;
	    s != NULL && n < PLACE_HOSTS_MAX; s = strtok_r(NULL, "\n", &save))
		line[n++] = s;
	for (k = 0; k < p->pend.n; k++) {
		tids[0] = '\0';
		cnt = p->pend.cnt[k];
		nl = strlen(p->pend.h[k].name);
		for (i = 0; i < n; i++)
			if (line[i] != NULL && strncmp(line[i],
			    p->pend.h[k].name, nl) == 0 && line[i][nl] == ' ')
				break;
		if (i < n) {
			len = 0;
			cnt = 0;
			tok = strtok_r(line[i] + nl, " ", &save);
			for (; tok != NULL; tok = strtok_r(NULL, " ", &save)) {
				errno = 0;
				t = strtoul(tok, &end, 16);
				if (*end != '\0' || errno != 0 || t == 0 ||
				    t > 0x7fffffffUL ||
				    len + 12 >= sizeof(tids))
					continue;
				len += (size_t)snprintf(tids + len,
				    sizeof(tids) - len, "%s%lx",
				    len > 0 ? "," : "", t);
				cnt++;
			}
			line[i] = NULL;
		}
		record(p, p->pend.at, p->pend.file, &p->pend.h[k], cnt,
		    tids);
	}
	p->pend.n = 0;
}

/*
 * The reply to req ("SPAWN N FILE" and "H NAME SPEED" lines) into out:
 * "PLAN" and "HOST COUNT" lines, "SAME ..." or "CIRCLE REASON".
 */
int
placer_decide(struct placer *p, char *req, char *out, size_t cap)
{
	static int		 idx[PLACE_HOSTS_MAX], plan[4096];
	static struct place_host view[PLACE_HOSTS_MAX], before[PLACE_HOSTS_MAX];
	char			 file[256], name[PLACE_NAME_LEN], *line, *save;
	const char		*why;
	int			 ntask = 0, n = 0, i, j, k, speed, len, cnt;
	int64_t			 asked;

	if (p->pend.n > 0)
		placer_flush(p, NULL);
	line = strtok_r(req, "\n", &save);
	if (line == NULL || sscanf(line, "SPAWN %d %255s", &ntask, file) != 2
	    || ntask <= 0)
		return snprintf(out, cap, "CIRCLE bad request\n");
	while ((line = strtok_r(NULL, "\n", &save)) != NULL && n <
	    PLACE_HOSTS_MAX)
		if (sscanf(line, "H %63s %d", name, &speed) == 2 &&
		    (i = hosts_find(&p->t, name, speed)) != -1)
			idx[n++] = i;
	p->spawns++;
	if (ntask > (int)(sizeof(plan) / sizeof(plan[0]))) {
		why = "more tasks than dts-place plans at once";
		goto circle;
	}
	/* fresh reports for the next spawn; a host not heard yet (with
	 * fresh: not since this ask) is waited for (place.wait) */
	hosts_read(&p->t);
	asked = now_mono_ns();
	hosts_ask(&p->t, idx, n);
	hosts_wait(&p->t, idx, n, p->wait_ns, p->fresh ? asked : 0);
	for (i = 0; i < n; i++)
		view[i] = p->t.h[idx[i]];
	place_eval(view, n, &p->t.pc);
	for (i = 0; i < n; i++) {
		before[i] = view[i];
		log_debug("%s: %s %s: class %s goodness %.3f runnable %.2f "
		    "(load %.2f x %d CPUs, other gangs %d, own %d, sent %d) "
		    "free RAM %u MiB, users %d, W %.2f", __func__, file,
		    view[i].name, place_class_names[view[i].cls], view[i].good,
		    view[i].runnable, view[i].q, view[i].ncpu, view[i].rt,
		    view[i].own, view[i].placed, view[i].mem_mib,
		    view[i].users, view[i].w);
	}
	if (place_plan(view, n, &p->t.pc, ntask, n > 0 ? p->start % n : 0,
	    now_mono_ns(), plan, &why) == -1)
		goto circle;
	for (i = 0; i < n; i++)
		p->t.h[idx[i]] = view[i];
	p->start = n > 0 ? (p->start + ntask) % n : 0;
	p->tasks += (uint64_t)ntask;
	len = snprintf(out, cap, "PLAN\n");
	snprintf(p->pend.file, sizeof(p->pend.file), "%s", file);
	p->pend.at = now_real_ns();
	/* hosts in the order the plan first uses them */
	for (k = 0; k < ntask; k++) {
		for (j = 0; j < k; j++)
			if (plan[j] == plan[k])
				break;
		if (j < k)
			continue;
		for (cnt = 0, j = k; j < ntask; j++)
			cnt += plan[j] == plan[k];
		len += snprintf(out + len, cap - (size_t)len, "%s %d\n",
		    view[plan[k]].name, cnt);
		log_info("%s: %d of %d task%s to %s (goodness %.3f, %s)",
		    file, cnt, ntask, ntask > 1 ? "s" : "", view[plan[k]].name,
		    before[plan[k]].good,
		    place_class_names[before[plan[k]].cls]);
		p->pend.h[p->pend.n] = before[plan[k]];
		p->pend.cnt[p->pend.n++] = cnt;
		if ((size_t)len >= cap)
			return -1;
	}
	write_metrics(p);
	/* PVM's circle spawns the same in one call, not one a host */
	if (place_same_as_circle(before, n, p->pend.cnt, p->pend.n, ntask)) {
		log_debug("%s: PVM's circle spawns as the plan would, in one "
		    "call", file);
		return snprintf(out, cap, "SAME as the circle\n");
	}
	return len;
circle:
	p->circles++;
	if (!p->circle_said++) {
		snprintf(p->circle_why, sizeof(p->circle_why), "%s%s%s", why,
		    p->t.why[0] ? ": " : "", p->t.why);
		log_info("%s: PVM's circle places the tasks: %s (said once)",
		    file, p->circle_why);
	} else
		log_debug("%s: PVM's circle: %s", file, why);
	write_metrics(p);
	return snprintf(out, cap, "CIRCLE %s\n", why);
}

