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

    syncstat.py floor IP_NS SYNCS_FILE FLOOR_h0.csv ... -- OWD_h0.csv ...
the floor of the same run: FLOOR_hK.csv are tests/bench/floor.c -O traces
(phase,late_ns,op_ns,real_ns: bare RT loops, one per host, at the same
CLOCK_REALTIME grid), OWD_hK.csv tests/bench/owd.c recv files
(seq,tx_ns,rx_ns,user_ns) of the probes h0 broadcast meanwhile.  Prints
one key=value line (us):
  n, p50_us/p99_us/max_us: skew of the bare loops, as `skew` computes it
    (the floor of clock sync);
  late_p50_us/late_p99_us: their wake-up lateness (every edge, every host);
  owd_n, owd_p50_us/owd_p99_us: one-way delay rx - tx of hosts k > 0;
  spread_p50_us/spread_p99_us: |rx_k - rx_h0| of the same probe, k > 0
    (h0, the skew's reference, gets its own broadcast looped back);
  rxwake_p50_us/rxwake_p99_us: user_ns - rx_ns, every host (the wake-up
    of a bare receiver after the kernel's stamp);
  arr_n, arr_p50_us/arr_p99_us/arr_max_us: the floor of arrival sync:
    for every bare-loop pair (k, h0), |spread + skew|, the spread of the
    last probe host k received before that edge: the skew of loops that
    each start a PS at the kernel's receive stamp of one broadcast plus
    a fixed delay.
"""
import bisect
import sys


def read_trace(path):
    """(phase, real_ns) of every edge, by time: `sendgram trace` output
    (phase,real_ns,...) or a floor.c file (its header names real_ns)."""
    edges = []
    col = 1
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if p[0] == "phase":
                if "real_ns" in p:
                    col = p.index("real_ns")
                continue
            if len(p) <= col:
                continue
            try:
                edges.append((p[0], int(p[col])))
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


def read_syncs(syncs_file):
    with open(syncs_file) as f:
        return sorted(int(l) for l in f if l.strip())


def pairs(ip_ns, start, traces):
    """(k, t, skew) for every PS edge t >= start of host k > 0 that has a
    PS edge of h0 within IP/2: skew = t - the nearest of them."""
    ref = [t for ph, t in read_trace(traces[0]) if ph == "PS" and t >= start]
    out = []
    for k, path in enumerate(traces[1:], 1):
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
            out.append((k, t, best))
    return out


def fmt(out):
    return " ".join("%s=%s" % (k, ("%.1f" % v) if isinstance(v, float) else v)
                    for k, v in out.items())


def skew(ip_ns, syncs_file, traces):
    syncs = read_syncs(syncs_file)
    pr = pairs(ip_ns, syncs[0] if syncs else 0, traces)
    absk = [abs(d) for _, _, d in pr]
    signed = [d for _, _, d in pr]
    groups, slopes = {}, []
    for k, t, best in pr:
        s = bisect.bisect_right(syncs, t) - 1
        if s >= 0:
            groups.setdefault((k, s), []).append(((t - syncs[s]) / 1e9, best / 1e3))
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
    print(fmt(out))


def read_owd(path):
    """{seq: (tx_ns, rx_ns, user_ns)} of an owd.c recv file."""
    out = {}
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) < 4 or p[0] == "seq":
                continue
            try:
                out[int(p[0])] = (int(p[1]), int(p[2]), int(p[3]))
            except ValueError:
                continue
    return out


def floor(ip_ns, syncs_file, traces, owds):
    syncs = read_syncs(syncs_file)
    start = syncs[0] if syncs else 0
    pr = pairs(ip_ns, start, traces)
    absk = sorted(abs(d) for _, _, d in pr)
    late = []
    for path in traces:
        with open(path) as f:
            hdr = f.readline().strip().split(",")
            if "late_ns" not in hdr or "real_ns" not in hdr:
                continue
            li, ri = hdr.index("late_ns"), hdr.index("real_ns")
            for line in f:
                p = line.strip().split(",")
                try:
                    if int(p[ri]) >= start:
                        late.append(int(p[li]))
                except (ValueError, IndexError):
                    continue
    late.sort()
    rx = [read_owd(p) for p in owds]
    owd, spread, rxwake = [], [], []
    for h in rx:
        rxwake.extend(u - r for _, r, u in h.values())
    # per host k > 0: its receive stamps of the probes h0 got too, by
    # time, with the spread rx_k - rx_h0 of each
    last = {}
    for k in range(1, len(rx)):
        owd.extend(r - t for t, r, _ in rx[k].values())
        both = sorted((rx[k][s][1], rx[k][s][1] - rx[0][s][1])
                      for s in rx[k] if rx and s in rx[0])
        spread.extend(abs(d) for _, d in both)
        last[k] = both
    arr = []
    for k, t, d in pr:
        both = last.get(k, [])
        i = bisect.bisect_right(both, (t, float("inf"))) - 1
        if i >= 0:
            arr.append(abs(both[i][1] + d))
    for v in (owd, spread, rxwake, arr):
        v.sort()
    out = {
        "n": len(absk),
        "p50_us": pct(absk, 50) / 1e3,
        "p99_us": pct(absk, 99) / 1e3,
        "max_us": (absk[-1] / 1e3) if absk else float("nan"),
        "late_p50_us": pct(late, 50) / 1e3,
        "late_p99_us": pct(late, 99) / 1e3,
        "owd_n": len(owd),
        "owd_p50_us": pct(owd, 50) / 1e3,
        "owd_p99_us": pct(owd, 99) / 1e3,
        "spread_p50_us": pct(spread, 50) / 1e3,
        "spread_p99_us": pct(spread, 99) / 1e3,
        "rxwake_p50_us": pct(rxwake, 50) / 1e3,
        "rxwake_p99_us": pct(rxwake, 99) / 1e3,
        "arr_n": len(arr),
        "arr_p50_us": pct(arr, 50) / 1e3,
        "arr_p99_us": pct(arr, 99) / 1e3,
        "arr_max_us": (arr[-1] / 1e3) if arr else float("nan"),
    }
    print(fmt(out))


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
    elif len(argv) >= 7 and argv[1] == "floor" and "--" in argv:
        i = argv.index("--")
        floor(int(argv[2]), argv[3], argv[4:i], argv[i + 1:])
    elif len(argv) >= 6 and argv[1] == "gantt" and "--" in argv:
        i = argv.index("--")
        gantt(argv[2], argv[3:i], int(argv[i + 1]), int(argv[i + 2]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
