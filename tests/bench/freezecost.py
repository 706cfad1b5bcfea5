#!/usr/bin/env python3
# freezecost.py OUTDIR [K ...] - what a freeze costs per task (dts(8), The
# gang; docs/performance.md).
#
# For each K (default 16 64 256 1024 2048): K processes that spin at
# SCHED_RR 10 on every CPU, in a cgroup of their own under the cgroup2
# mount (a child of our own cgroup, as a job's is of dts's), frozen REPS
# times (default 9; env FREEZE_REPS): the time from the write of
# cgroup.freeze to cgroup.events saying "frozen 1", polled every 50 us by
# this process at SCHED_FIFO 50 (so the figures include up to ~0.1 ms of
# polling: K = 16 measures that floor).  The kernel freezes a task when it
# next runs: each spinner must be scheduled once.  Prints a table, writes
# OUTDIR/freeze.csv (K,rep,freeze_us).  Root.  Every process it made is
# killed by PID and the cgroup removed, on any exit.
import os
import signal
import sys
import time


def cg2_mount():
    with open("/proc/mounts") as f:
        for line in f:
            dev, path, kind = line.split()[:3]
            if kind == "cgroup2":
                return path
    sys.exit("freezecost: no cgroup2 mount")


def own_cgroup(root):
    with open("/proc/self/cgroup") as f:
        for line in f:
            if line.startswith("0::"):
                return root + line[3:].strip().rstrip("/")
    return root


def measure(base, k, reps):
    cg = "%s/freezecost.%d.%d" % (base, os.getpid(), k)
    os.mkdir(cg)
    kids = []
    try:
        for _ in range(k):
            pid = os.fork()
            if pid == 0:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(10))
                while True:
                    pass
            kids.append(pid)
            with open(cg + "/cgroup.procs", "w") as f:
                f.write(str(pid))
        out = []
        for _ in range(reps):
            time.sleep(0.05)
            with open(cg + "/cgroup.freeze", "w") as f:
                t0 = time.monotonic_ns()
                f.write("1")
            while True:
                with open(cg + "/cgroup.events") as e:
                    if "frozen 1" in e.read():
                        break
                time.sleep(0.00005)
            out.append((time.monotonic_ns() - t0) / 1000)
            time.sleep(0.01)
            with open(cg + "/cgroup.freeze", "w") as f:
                f.write("0")
        return out
    finally:
        for p in kids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            with open(cg + "/cgroup.freeze", "w") as f:
                f.write("0")
        except OSError:
            pass
        for p in kids:
            os.waitpid(p, 0)
        os.rmdir(cg)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: freezecost.py OUTDIR [K ...]")
    outdir = sys.argv[1]
    ks = [int(a) for a in sys.argv[2:]] or [16, 64, 256, 1024, 2048]
    reps = int(os.environ.get("FREEZE_REPS", "9"))
    os.makedirs(outdir, exist_ok=True)
    # a SIGTERM ends us through the finally clauses
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    base = own_cgroup(cg2_mount())
    # above the spinners, or forking them would wait for the throttling
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
    rows = []
    try:
        for k in ks:
            for i, v in enumerate(measure(base, k, reps)):
                rows.append((k, i, v))
    finally:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    with open(os.path.join(outdir, "freeze.csv"), "w") as f:
        f.write("k,rep,freeze_us\n")
        for k, i, v in rows:
            f.write("%d,%d,%.1f\n" % (k, i, v))
    print("| spinning tasks | freezes | p50 ms | max ms | p50 per task us |")
    print("|---|---|---|---|---|")
    for k in ks:
        v = sorted(x for kk, _, x in rows if kk == k)
        p50 = v[len(v) // 2]
        print("| %d | %d | %.2f | %.2f | %.1f |" %
              (k, len(v), p50 / 1000, v[-1] / 1000, p50 / k))
    print("(%d CPUs, load average %s)" %
          (os.cpu_count(), open("/proc/loadavg").read().split()[0]))


if __name__ == "__main__":
    main()
