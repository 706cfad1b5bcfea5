/*
 * spin.c - a CPU-bound PVM task for system tests and the demo.
 *
 *   spin [SECONDS [report]]
 *
 * Enrolls in PVM (pvm_mytid; without a pvmd it just spins), burns CPU in a
 * tight loop until SECONDS of wall-clock time have passed (0 or absent:
 * forever), then leaves PVM.  It looks at the clock after about every
 * millisecond of work, so a task that was stopped past its deadline ends
 * right after it is continued.  With "report" it prints
 *   spin pid=P cpu_s=X wall_s=Y
 * on stdout before it exits (for a spawned task, that goes to pvmd's log or
 * to the parent's pvm_catchout).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pvm3.h>

#define CHUNK_NS  1000000LL /* aim: one deadline check per ms of CPU */
#define ITERS_MIN 1000ULL
#define ITERS_MAX (1ULL << 30)

static volatile uint64_t sink;

static int64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
burn(uint64_t iters)
{
	uint64_t i, x = sink;

	for (i = 0; i < iters; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

/* New chunk size so that one chunk takes about CHUNK_NS of CPU. */
static uint64_t
retune(uint64_t iters, int64_t cpu_ns)
{
	uint64_t want;

	if (cpu_ns <= 0)
		return iters < ITERS_MAX / 2 ? iters * 2 : ITERS_MAX;
	want = (uint64_t)((double)iters * (double)CHUNK_NS / (double)cpu_ns);
	want = (iters + want) / 2; /* smooth out a preempted chunk */
	if (want < ITERS_MIN)
		want = ITERS_MIN;
	if (want > ITERS_MAX)
		want = ITERS_MAX;
	return want;
}

/* Spin until the monotonic clock passes end_ns (0: forever). */
static void
spin_until(int64_t end_ns)
{
	uint64_t iters = 100000;
	int64_t c0, c1;

	while (end_ns == 0 || clock_ns(CLOCK_MONOTONIC) < end_ns) {
		c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		burn(iters);
		c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		iters = retune(iters, c1 - c0);
	}
}

/*
 * Enroll only if a pvmd can be there: libpvm3 prints a banner and exits if
 * root runs it without PVM_ALLOW_ROOT, and complains on stderr if no pvmd
 * runs.  A spawned task has PVMEPID; otherwise look for pvmd's address
 * file in PVM_TMP.
 */
static int
pvmd_present(void)
{
	const char *tmp = getenv("PVM_TMP"), *vmid = getenv("PVM_VMID");
	char path[4096];
	int n;

	if (getuid() == 0 && !getenv("PVM_ALLOW_ROOT"))
		return 0;
	if (getenv("PVMEPID"))
		return 1;
	if (!tmp)
		tmp = "/tmp";
	if (vmid && *vmid)
		n = snprintf(path, sizeof(path), "%s/pvmd.%d.%s", tmp, (int)getuid(), vmid);
	else
		n = snprintf(path, sizeof(path), "%s/pvmd.%d", tmp, (int)getuid());
	return n > 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0;
}

static int
parse_secs(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return (errno || end == s || *end || !(*out >= 0) || *out > 1e8) ? -1 : 0;
}

int
main(int argc, char **argv)
{
	double secs = 0;
	int64_t w0, cpu0, end_ns;
	int report, tid;

	if (argc > 3 || (argc > 1 && parse_secs(argv[1], &secs))) {
		fprintf(stderr, "usage: spin [SECONDS [report]]\n");
		return 2;
	}
	report = argc > 2 && strcmp(argv[2], "report") == 0;
	w0 = clock_ns(CLOCK_MONOTONIC);
	cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	tid = -1;
	if (pvmd_present()) {
		pvm_setopt(PvmAutoErr, 0);
		tid = pvm_mytid();
	}
	end_ns = secs > 0 ? w0 + (int64_t)(secs * 1e9) : 0;
	spin_until(end_ns);
	if (report) {
		printf("spin pid=%ld cpu_s=%.3f wall_s=%.3f\n", (long)getpid(),
		       (double)(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / 1e9,
		       (double)(clock_ns(CLOCK_MONOTONIC) - w0) / 1e9);
		fflush(stdout);
	}
	if (tid >= 0)
		pvm_exit();
	return 0;
}
