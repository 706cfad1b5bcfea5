/*
 * gang_freezer.c - cgroup v2 backend: the gang lives in its own cgroup
 * "dts.<pid of dts>" and is stopped by writing cgroup.freeze.  Cheaper per
 * member than signals, cannot be undone by a stray SIGCONT, and catches
 * tasks that leave the process group.  The edge path only writes; it never
 * waits for the "frozen" confirmation (its poll notification is rate
 * limited, shared/reference/limits.md §2).
 *
 * The cgroup is <cgroup2 mount>/dts/<pid of dts>.  The shared parent "dts"
 * stays: the mount's root directory is r-x even for root, so removing a
 * child of it needs CAP_DAC_OVERRIDE, which dts has dropped by the time
 * it exits; "dts" itself is root's rwx, so its children can go.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gang.h"
#include "log.h"
#include "proc.h"

static int
cgroup2_mount(char *buf, size_t len)
{
	char dev[256], dir[PATH_MAX], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");
	int found = -1;

	if (f == NULL)
		return -1;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2") == 0) {
			snprintf(buf, len, "%s", dir);
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

static int
gang_freezer_path(char *buf, size_t len, pid_t dts_pid)
{
	char mnt[PATH_MAX];

	if (cgroup2_mount(mnt, sizeof(mnt)) < 0)
		return -1;
	if ((size_t)snprintf(buf, len, "%s/dts/%d", mnt, (int)dts_pid) >= len)
		return -1;
	return 0;
}

static int
write_file(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return rc;
}

static void
move_member(pid_t pid, void *arg)
{
	char text[32];

	snprintf(text, sizeof(text), "%d\n", (int)pid);
	if (write_file(arg, "cgroup.procs", text) < 0)
		log_warn("freezer: cannot move %d into %s", (int)pid, (char *)arg);
}

static int
frz_prepare(struct gang *g)
{
	char path[PATH_MAX];

	if (gang_freezer_path(g->cgroup, sizeof(g->cgroup), getpid()) < 0) {
		log_warnx("freezer: no cgroup2 hierarchy mounted");
		return -1;
	}
	snprintf(path, sizeof(path), "%s", g->cgroup);
	*strrchr(path, '/') = '\0';
	if ((mkdir(path, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(g->cgroup, 0755) < 0 && errno != EEXIST)) {
		log_warn("freezer: mkdir %s", g->cgroup);
		g->cgroup[0] = '\0';
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.freeze", g->cgroup);
	if ((g->freeze_fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
		log_warn("freezer: %s", path);
		rmdir(g->cgroup);
		g->cgroup[0] = '\0';
		return -1;
	}
	return 0;
}

/* pvmd entered the cgroup itself; members that did not (none should) too. */
static int
frz_attach(struct gang *g)
{
	proc_pgid_foreach(g->pgid, move_member, g->cgroup);
	return 0;
}

static int
frz_write(struct gang *g, char c)
{
	return pwrite(g->freeze_fd, &c, 1, 0) == 1 ? 0 : -1;
}

static int
frz_stop(struct gang *g)
{
	return frz_write(g, '1');
}

static int
frz_cont(struct gang *g)
{
	return frz_write(g, '0');
}

/* Move every process of the gang's cgroup (not only the group) to root. */
static void
move_all_back(const char *cgroup, const char *parent)
{
	char path[PATH_MAX];
	FILE *f;
	int pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fscanf(f, "%d", &pid) == 1)
		move_member(pid, (void *)parent);
	fclose(f);
}

static void
frz_detach(struct gang *g)
{
	char root[PATH_MAX];

	if (g->freeze_fd < 0)
		return;
	frz_write(g, '0');
	close(g->freeze_fd);
	g->freeze_fd = -1;
	if (cgroup2_mount(root, sizeof(root)) < 0)
		return;
	move_all_back(g->cgroup, root);
	if (rmdir(g->cgroup) < 0 && errno != ENOENT)
		log_warn("freezer: rmdir %s", g->cgroup);
}

const struct gang_backend gang_freezer_backend = {
	.name = "freezer",
	.prepare = frz_prepare,
	.attach = frz_attach,
	.stop = frz_stop,
	.cont = frz_cont,
	.detach = frz_detach,
};
