/*
 * gang_freezer.c - cgroup v2 backend: the gang is stopped by writing its
 * cgroup.freeze.  Cheaper per member than signals and cannot be undone by
 * a stray SIGCONT.  The edge path only writes; it never waits for the
 * "frozen" confirmation (its poll notification is rate limited,
 * shared/reference/limits.md §2).
 */
#include <fcntl.h>
#include <unistd.h>

#include "gang.h"
#include "log.h"

static int
frz_open(struct gang *g)
{
	if ((g->freeze_fd = cg_open(g->cg, "cgroup.freeze", O_WRONLY)) == -1) {
		log_warn("freezer: %s/cgroup.freeze", g->cg);
		return -1;
	}
	return 0;
}

static int
frz_stop(struct gang *g)
{
	return cg_write_fd(g->freeze_fd, "1");
}

static int
frz_cont(struct gang *g)
{
	return cg_write_fd(g->freeze_fd, "0");
}

static void
frz_close(struct gang *g)
{
	if (g->freeze_fd == -1)
		return;
	(void)frz_cont(g);
	close(g->freeze_fd);
	g->freeze_fd = -1;
}

const struct gang_backend gang_freezer_backend = {
	.name = "freezer",
	.open = frz_open,
	.stop = frz_stop,
	.cont = frz_cont,
	.close = frz_close,
};
