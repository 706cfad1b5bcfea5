#!/usr/bin/env python3
"""syncstat.py - skew and drift of PS starts between hosts, from dts traces.

    syncstat.py skew IP_NS SYNCS_FILE TRACE_h0.csv TRACE_h1.csv ...

Each trace is `sendgram trace` output (phase,real_ns,late_ns,op_ns).  For
every PS edge of host k > 0 the nearest PS edge of h0 is taken (pairs more
than IP/2 apart are not the same slice and are skipped); skew = t_k - t_h0.
SYNCS_FILE has one CLOCK_REALTIME ns per line: when a sync was sent.  Only
edges from the first sync to the end of the trace count.

Prints one line of key=value: n, p50/p99/max of |skew| in us, mean signed
skew in us, and the drift: per host and per sync interval, the median
signed skew of the interval's second half minus that of its first half,
reported as the median and max of its absolute value in us.

    syncstat.py gantt OUT.csv TRACE_h0.csv ... -- FROM_NS TO_NS
writes host,phase,real_ns rows of every edge in [FROM_NS, TO_NS).
"""
import bisect
import sys


def read_trace(path):
    edges = []
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) < 2 or p[0] == "phase":
                continue
            try:
                edges.append((p[0], int(p[1])))
            except ValueError:
                continue
    edges.sort(key=lambda e: e[1])
    return edges


def pct(sorted_vals, q):
    if not sorted_vals:
        return float("nan")
    i = min(len(sorted_vals) - 1, max(0, int(round(q / 100.0 * (len(sorted_vals) - 1)))))
    return sorted_vals[i]


def slope(pts):
    n = len(pts)
    if n < 3:
        return None
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx <= 0:
        return None
    return sum((x - mx) * (y - my) for x, y in pts) / sxx


def skew(ip_ns, syncs_file, traces):
    with open(syncs_file) as f:
        syncs = sorted(int(l) for l in f if l.strip())
    start = syncs[0] if syncs else 0
    ref = [t for ph, t in read_trace(traces[0]) if ph == "PS" and t >= start]
    absk, signed, slopes = [], [], []
    for path in traces[1:]:
        groups = {}
        for ph, t in read_trace(path):
            if ph != "PS" or t < start or not ref:
                continue
            i = bisect.bisect_left(ref, t)
            best = None
            for j in (i - 1, i):
                if 0 <= j < len(ref):
                    d = t - ref[j]
                    if best is None or abs(d) < abs(best):
                        best = d
            if best is None or abs(best) > ip_ns / 2:
                continue
            absk.append(abs(best))
            signed.append(best)
            s = bisect.bisect_right(syncs, t) - 1
            if s >= 0:
                groups.setdefault(s, []).append(((t - syncs[s]) / 1e9, best / 1e3))
        for pts in groups.values():
            # drift accumulated over one sync interval: median signed skew
            # of its second half minus that of its first half (robust to
            # the wake-up outliers a least-squares slope would follow)
            if len(pts) < 4:
                continue
            pts.sort()
            h = len(pts) // 2
            a = sorted(y for _, y in pts[:h])
            b = sorted(y for _, y in pts[h:])
            slopes.append(abs(b[len(b) // 2] - a[len(a) // 2]))
    absk.sort()
    slopes.sort()
    out = {
        "n": len(absk),
        "p50_us": pct(absk, 50) / 1e3,
        "p99_us": pct(absk, 99) / 1e3,
        "max_us": (absk[-1] / 1e3) if absk else float("nan"),
        "mean_signed_us": (sum(signed) / len(signed) / 1e3) if signed else float("nan"),
        "drift_p50_us": pct(slopes, 50),
        "drift_max_us": slopes[-1] if slopes else float("nan"),
    }
    print(" ".join("%s=%s" % (k, ("%.1f" % v) if isinstance(v, float) else v)
                   for k, v in out.items()))


def gantt(out, traces, t_from, t_to):
    with open(out, "w") as f:
        f.write("host,phase,real_ns\n")
        for k, path in enumerate(traces):
            for ph, t in read_trace(path):
                if t_from <= t < t_to:
                    f.write("h%d,%s,%d\n" % (k, ph, t))


def main(argv):
    if len(argv) >= 5 and argv[1] == "skew":
        skew(int(argv[2]), argv[3], argv[4:])
    elif len(argv) >= 6 and argv[1] == "gantt" and "--" in argv:
        i = argv.index("--")
        gantt(argv[2], argv[3:i], int(argv[i + 1]), int(argv[i + 2]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
