#!/usr/bin/env python3
"""matrixstat.py - the numbers and pictures of bench-matrix.sh.

  matrixstat.py traceskew TRACE.csv            |h1 PS start - nearest h0 PS start|, us, one a line
  matrixstat.py resumeskew RL0 RL1 SINCE UNTIL |h1 slot resume - nearest h0 resume|, us
  matrixstat.py entry LOG:PID... RL...         per host: s from the adoption of PID (dts's log
                                               line) to its first run; "worst h0/h1/..."
  matrixstat.py exit RLX0,RLX1 A0 B0 [A1 B1]   s from the exited job's last run until, on each
                                               host, jobs A and B each run PS/2 (34-46 ms) in
                                               one piece; "worst h0/h1/..."
  matrixstat.py gantt SINCE TRACE.csv OUT.svg [table=JOBS.txt] JOB:HOST=RL...
                                               (table: default DIR/log/console.out of TRACE's DIR)
  matrixstat.py report CSV OUT.md QUICK ELAPSED WIN JOBS4.txt JOBSGANTT.txt

RL files are tests/bench/runlog.c's: "# t0 t1 n lost=L", then "stop resume"
(CLOCK_REALTIME ns) for every gap in the member's run.  A slot edge is a
resume after a gap of at least 10 ms (shorter gaps: preemption by other
real-time work of the machine, or the hypervisor).
"""
import csv
import os
import sys

SLOT_GAP = 10_000_000      # ns: a gap this long is a slice or slot edge
MATCH = 10_000_000         # ns: two hosts' resumes this close are one edge


def load_rl(path):
    with open(path) as f:
        head = f.readline().split()
        t0, t1 = int(head[1]), int(head[2])
        gaps = [tuple(map(int, l.split())) for l in f if l.strip()]
    return t0, t1, gaps


def resumes(path, lo=0, hi=1 << 62):
    _, _, gaps = load_rl(path)
    return [e for s, e in gaps if e - s >= SLOT_GAP and lo <= e <= hi]


def runs(path, merge=SLOT_GAP):
    """Run intervals (start, end): the complement of the gaps >= merge."""
    t0, t1, gaps = load_rl(path)
    out, cur = [], t0
    for s, e in gaps:
        if e - s < merge:
            continue
        if s > cur:
            out.append((cur, s))
        cur = e
    if t1 > cur:
        out.append((cur, t1))
    return out


def nearest(xs, t):
    best = None
    for x in xs:
        if best is None or abs(x - t) < abs(best - t):
            best = x
    return best


def traceskew(path, phase="PS"):
    ps = {}
    for r in csv.DictReader(open(path)):
        if r["phase"] == phase:
            ps.setdefault(r["host"], []).append(int(r["real_ns"]))
    for t in ps.get("h1", []):
        n = nearest(ps.get("h0", []), t)
        if n is not None and abs(n - t) < 50_000_000:
            print("%.1f" % (abs(t - n) / 1e3))


def resumeskew(rl0, rl1, since, until):
    r0 = resumes(rl0, since, until)
    for t in resumes(rl1, since, until):
        n = nearest(r0, t)
        if n is not None and abs(n - t) < MATCH:
            print("%.1f" % (abs(t - n) / 1e3))


def log_ns(path, pid):
    """CLOCK_REALTIME ns of dts's "adopted pid PID" line in its log (ms)."""
    import datetime
    for line in open(path):
        if "adopted pid %s " % pid in line:
            ts = line.split()[0]
            d = datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%f%z")
            return int(round(d.timestamp() * 1000)) * 1_000_000
    sys.exit("entry: no adoption of pid %s in %s" % (pid, path))


def entry(specs, paths):
    """Per host: first run of the member - its adoption (s)."""
    d = []
    for spec, rl in zip(specs, paths):
        log, pid = spec.rsplit(":", 1)
        d.append((load_rl(rl)[0] - log_ns(log, pid)) / 1e9)
    print("%.3f %s" % (max(d), "/".join("%.3f" % x for x in d)))


def exit_(ends, paths):
    """From the exited job's last run (the latest of its members' last
    clock reads) to the first run, on each host, in which jobs A and B
    each run PS/2 (34-46 ms) in one piece, less than 100 ms apart (s)."""
    t_out = max(load_rl(p)[1] for p in ends.split(","))
    d = []
    for i in range(0, len(paths), 2):
        ra = [r for r in runs(paths[i]) if r[0] >= t_out]
        rb = [r for r in runs(paths[i + 1]) if r[0] >= t_out]
        ok = lambda r: 34e6 <= r[1] - r[0] <= 46e6
        t = None
        for a in ra:
            if ok(a) and any(ok(b) and abs(b[0] - a[0]) < 100e6 for b in rb):
                t = a[0]
                break
        if t is None:   # not a failure of the bench: a finding
            d.append(float("inf"))
            continue
        d.append((t - t_out) / 1e9)
    print("%.3f %s" % (max(d), "/".join("%.3f" % x if x != float("inf") else "never" for x in d)))


COLORS = ["#4a7fc1", "#e08a2c", "#4caf50", "#b04ab0", "#c14a4a"]


def jobs_table(path):
    """The last table `jobs` printed in PATH: [(start_ms, len_ms, {host: job})]."""
    rows, hosts, cur = [], [], None
    for line in open(path):
        w = line.split()
        if w[:3] == ["ROW", "START_MS", "LEN_MS"]:
            hosts, cur = w[5:], []
            rows.append(cur)
        elif cur is not None and w and w[0].isdigit() and len(w) >= 5 + len(hosts):
            cur.append((float(w[1]), float(w[2]), dict(zip(hosts, w[5:5 + len(hosts)]))))
        elif cur is not None and w and not w[0].isdigit():
            cur = None
    if not rows or not rows[-1]:
        sys.exit("gantt: no jobs table in %s" % path)
    return rows[-1]


def gantt(since, trace, out, specs):
    """Per host: the schedule (its PS and LS edges from dts's TRACE, the
    slots of the table `jobs` printed inside each PS), and under it a thin
    band of when each job's member really ran (runlog)."""
    import os
    edges = {}
    for line in open(trace):
        h, ph, real = line.strip().split(",")[:3]
        if ph != "slot":    # the slots come from the table
            edges.setdefault(h, []).append((int(real), ph))
    table = None
    lanes = {}
    jobs = []
    for spec in specs:
        k, path = spec.split("=", 1)
        if k == "table":
            table = path
            continue
        job, host = k.split(":")
        if job not in jobs:
            jobs.append(job)
        lanes.setdefault(host, []).append((job, runs(path, merge=500_000)))
    if table is None:
        table = os.path.join(os.path.dirname(trace), "log", "console.out")
    tab = jobs_table(table)
    for _, _, cells in tab:
        for j in cells.values():
            j = j.split(":")[-1]
            if j != "-" and j not in jobs:
                jobs.append(j)
    hosts = sorted(set(lanes) | set(edges))
    for h in edges:
        edges[h].sort()
    t0 = min(t for t, p in edges["h0"] if p == "PS" and t >= since)
    span = 400_000_000
    t1 = t0 + span
    W, L, R, T, rowh, runh = 1000, 70, 30, 60, 34, 10
    H = T + 80 * len(hosts) + 80
    sc = (W - L - R) / span
    X = lambda t: L + (min(max(t, t0), t1) - t0) * sc
    col = lambda j: COLORS[jobs.index(j) % len(COLORS)]
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">' % (W, H),
         '<rect width="100%" height="100%" fill="#fff"/>',
         '<text x="%d" y="22" font-size="15" text-anchor="middle" font-weight="bold">'
         'The gang matrix: 3 jobs on 3 hosts, IP 100 ms, PS 80 %%</text>' % (W / 2),
         '<text x="%d" y="40" font-size="11" text-anchor="middle" fill="#555">wide bars: each host\'s slots '
         '(its PS and LS edges from dts\'s TRACE, the slot table `jobs` printed); thin bars: when the job\'s '
         'member really ran (runlog)</text>' % (W / 2)]
    for i, h in enumerate(hosts):
        y = T + i * 80
        o.append('<text x="%d" y="%d" font-size="14" text-anchor="end" font-weight="bold">%s</text>'
                 % (L - 10, y + rowh / 2 + 5, h))
        ev = edges.get(h, [])
        for k, (t, ph) in enumerate(ev):
            tn = ev[k + 1][0] if k + 1 < len(ev) else t1
            if tn <= t0 or t >= t1:
                continue
            if ph != "PS":
                o.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="none" stroke="#1d3f6e"/>'
                         % (X(t), y, X(tn) - X(t), rowh))
                continue
            for st, ln, cells in tab:
                j = cells.get(h, "-").split(":")[-1]
                a, b = t + int(st * 1e6), min(t + int((st + ln) * 1e6), tn)
                if j == "-" or b <= a:
                    continue
                o.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="#333"/>'
                         % (X(a), y, max(X(b) - X(a), 0.5), rowh, col(j)))
                if X(b) - X(a) > 24:
                    o.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="#fff">%s</text>'
                             % ((X(a) + X(b)) / 2, y + rowh / 2 + 4, j))
        for li, (job, rr) in enumerate(lanes.get(h, [])):
            yy = y + rowh + 3 + li * (runh / len(lanes[h]))
            for a, b in rr:
                if b <= t0 or a >= t1:
                    continue
                o.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                         % (X(a), yy, max(X(b) - X(a), 0.5), runh / len(lanes[h]), col(job)))
    ya = T + 80 * len(hosts) - 10
    o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>' % (L, ya, W - R, ya))
    for ms in range(0, 401, 20):
        x = L + ms * 1e6 * sc
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000"/>' % (x, ya, x, ya + 5))
        o.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%d</text>' % (x, ya + 18, ms))
    o.append('<text x="%d" y="%d" font-size="12" text-anchor="middle">time (ms) from a PS start of h0</text>'
             % ((L + W - R) / 2, ya + 36))
    for k, job in enumerate(jobs):
        x = L + 140 * k
        o.append('<rect x="%d" y="%d" width="14" height="10" fill="%s"/>' % (x, H - 22, col(job)))
        o.append('<text x="%d" y="%d" font-size="11">job root:%s</text>' % (x + 18, H - 13, job))
    o.append('<rect x="%d" y="%d" width="14" height="10" fill="none" stroke="#1d3f6e"/>' % (L + 140 * len(jobs), H - 22))
    o.append('<text x="%d" y="%d" font-size="11">LS (the owner\'s)</text>' % (L + 140 * len(jobs) + 18, H - 13))
    o.append('</svg>')
    open(out, "w").write("\n".join(o) + "\n")


def report(csvp, md, quick, elapsed, win, jobs4, jobsg):
    rows = list(csv.DictReader(open(csvp)))
    f = lambda x: float(x) if x not in ("", None) else None
    pick = lambda **kw: [r for r in rows if all(r[k] == v for k, v in kw.items())]
    L = ["## Several jobs a node: the gang matrix (bench-matrix)\n"]
    L.append("A 3-host namespace cluster driven by `dts-console -n` (mode static, IP 100 ms, PS 80 %%, SI 1 s); "
             "h0 pinned to CPU 0 and h1 to CPU 1, a CPU hog (SCHED_OTHER) on each. Jobs are root's, "
             "`dts-run --job LABEL` on each host they span; their members are `tests/bench/runlog.c`, a spinner "
             "that logs every gap in its own clock reads, so it sees its slots from the inside. "
             "*foreign* = the share of both CPUs busy with work that is neither the hogs nor the jobs "
             "(/proc/stat minus their CPU time): other sessions' builds and tests on this shared VM. "
             "%s, %s s windows; took %s s.\n" % ("Quick form" if quick == "1" else "Full form", win, elapsed))
    # row 2
    L.append("CPU share of each job (its cgroup's cpu.stat) and of the hog, per host, over one window:\n")
    L.append("| jobs | job | h0 % | h1 % | slot share % | foreign % |")
    L.append("|---|---|---|---|---|---|")
    err = {}
    for n in ("1x4", "1", "2", "4"):
        sh = pick(part="A", what="share", jobs=n)
        for job in sorted({r["job"] for r in sh}, key=lambda j: (j == "hog", j)):
            v = {r["host"]: r for r in sh if r["job"] == job}
            slot = v["h0"]["note"].replace("slot share ", "") if job != "hog" else "-"
            L.append("| %s | %s | %s | %s | %s | %s |" % (n, job, v["h0"]["value"], v["h1"]["value"], slot, v["h0"]["foreign_pct"]))
            if job != "hog" and n in ("2", "4"):
                for h in ("h0", "h1"):
                    d = abs(float(v[h]["value"]) - float(slot))
                    err[n] = max(err.get(n, 0), d)
    L.append("")
    # row 3 / 4
    L.append("Edges (µs): skew of h1 against h0 and the gang operation, per window:\n")
    L.append("| jobs | TRACE PS-start skew p50 / p99 / max (n) | TRACE slot-edge skew p50 / p99 / max (n) | slot resume skew p50 / p99 / max (n), all jobs | PS edge op p50 / mean / p99 | LS edge op p50 / mean / p99 | every edge's op, mean h0 / h1 (edges) | late p50 / p99 |")
    L.append("|---|---|---|---|---|---|---|---|")
    allop = {}
    slot = {}
    sk, op = {}, {}
    for n in ("1x4", "1", "2", "4"):
        t = pick(part="A", what="trace_ps_skew", jobs=n)
        rs = pick(part="A", what="slot_resume_skew", jobs=n)
        ps = pick(part="A", what="edge_op", jobs=n)
        la = pick(part="A", what="edge_late", jobs=n)
        if not t:
            continue
        t = t[0]
        ts = pick(part="A", what="trace_slot_skew", jobs=n)
        if ts and ts[0]["p99"] not in ("", "nan"):
            slot[n] = f(ts[0]["p99"])
        tst = "%s / %s / %s (%s)" % (ts[0]["p50"], ts[0]["p99"], ts[0]["max"], ts[0]["n"]) if ts else "-"
        # all jobs' resumes: the worst job's p99 (each job's own list)
        worst = max(rs, key=lambda r: f(r["p99"]) or 0) if rs else None
        sk[n] = (f(t["p99"]), f(worst["p99"]) if worst else None)
        o = {r["note"][:2]: r for r in ps}
        op[n] = o
        al = {r["host"]: r for r in pick(part="A", what="edge_op_all", jobs=n)}
        if al and all(f(r["value"]) for r in al.values()):
            allop[n] = max(f(r["value"]) for r in al.values())
        alt = " / ".join("%s (%s)" % (al[h]["value"], al[h]["n"]) for h in ("h0", "h1") if h in al) or "-"
        L.append("| %s | %s / %s / %s (%s) | %s | %s | %s / %s / %s | %s / %s / %s | %s | %s / %s |" % (
            n, t["p50"], t["p99"], t["max"], t["n"], tst,
            "; ".join("%s: %s / %s / %s (%s)" % (r["job"], r["p50"], r["p99"], r["max"], r["n"]) for r in rs),
            o["PS"]["p50"], "%.1f" % f(o["PS"]["value"]), o["PS"]["p99"],
            o["LS"]["p50"], "%.1f" % f(o["LS"]["value"]), o["LS"]["p99"], alt,
            la[0]["p50"] if la else "-", la[0]["p99"] if la else "-"))
    L.append("")
    L.append("*TRACE PS-start skew*: |h1's PS start − the nearest PS start of h0| from dts's own trace (bench-sync's "
             "measure). *Slot resume skew*: |h1 member's resume − h0 member's resume| of the same job after a gap of "
             "10 ms or more (a slice or slot edge, seen by the member: the node's edge plus the thaw and the "
             "wake-up); with 1 job that is the PS start, with 4 jobs three of the four jobs resume at a slot edge "
             "inside the PS. *TRACE slot-edge skew*: the same as the PS-start skew for the slot edges inside "
             "the PS (TRACE phase `slot`, with 2 or more jobs).\n")
    # row 5
    en = [float(r["value"]) for r in pick(part="B", what="entry")]
    ex = [float(r["value"]) for r in pick(part="B", what="exit")]
    if en:
        L.append("Entry and exit of a third job e (on h0 and h1, beside a and b), s, worst host of each "
                 "repetition (per host h0/h1; *never*: not within the %s s looked at): entry %s; exit %s.\n"
                 % ("3", ", ".join(r["note"].split("per host: ")[-1] for r in pick(part="B", what="entry")),
                    ", ".join(r["note"].split("per host: ")[-1] for r in pick(part="B", what="exit"))))
    # row 1
    d = {(r["what"], r["job"], r["note"].split(",")[0]): r for r in rows if r["part"] == "D"}
    alone = pick(part="D", what="bsp_alone")
    if alone:
        L.append("Row 1: a PVM job (bsp, 1 task a host, G = 10 ms per round) and an MPI job (mpiloop over "
                 "Open MPI, busy polling, 50 µs of work per iteration) on h0 and h1, a hog on each CPU:\n")
        L.append("| run | mode | mpiloop µs / iteration (iterations) | bsp s |")
        L.append("|---|---|---|---|")
        L.append("| bsp alone, no hog | OFF | - | %s |" % alone[0]["value"])
        for what in ("together", "sequential"):
            for mode in ("off", "static"):
                m = d.get((what, "mpi", mode))
                b = d.get((what, "pvm", mode))
                if m or b:
                    L.append("| %s | %s | %s (%s) | %s |" % ("both at once" if what == "together" else "one after the other",
                             mode.upper(), m["value"] if m else "-", m["n"] if m else "-", b["value"] if b else "-"))
        L.append("")
    # goals
    L.append("| # | goal | measured | verdict |")
    L.append("|---|---|---|---|")
    why = []
    goals = []

    def v(name, ok):
        # a speed goal's verdict; bench-matrix.sh reads them back (b_goal)
        goals.append("speed %s %d" % (name, 1 if ok else 0))
        return "met" if ok else "MISSED"
    moff, mst = d.get(("together", "mpi", "off")), d.get(("together", "mpi", "static"))
    bst = d.get(("together", "pvm", "static"))
    if moff and mst and bst and alone:
        x = f(moff["value"]) / f(mst["value"])
        want = f(alone[0]["value"]) / 0.40
        e = 100 * (f(bst["value"]) - want) / want
        L.append("| 1 | mpiloop ≥ 3x faster under the matrix than OFF; bsp within 10 %% of alone / share (share 40 %%: half of PS 80 %%) | %.2fx (%s vs %s µs); bsp %s s vs %.2f s: %+.1f %% | %s; %s |"
                 % (x, moff["value"], mst["value"], bst["value"], want, e, v("1-mpiloop", x >= 3), v("1-bsp", abs(e) <= 10)))
    else:
        L.append("| 1 | mpiloop ≥ 3x, bsp within 10 %% | not measured in this run | - |")
    for n in ("2", "4"):
        if n in err:
            L.append("| 2 | each job's CPU share within 1 pt of its slot share, %s jobs | worst %.2f pt | %s |"
                     % (n, err[n], v("2-share-%sjobs" % n, err[n] <= 1)))
    if "4" in sk and "1" in sk:
        # dts's own slot edges (TRACE) against its own PS starts, same run;
        # and the members' view (resumes) against the single gang's
        s4 = slot.get("4")
        ok = s4 is not None and (s4 < 200 or (sk["1"][0] is not None and s4 <= sk["1"][0]))
        L.append("| 3 | slot-edge skew p99 < 200 µs, as today's PS edges (the single gang in the same run) | TRACE slot edges, 4 jobs: p99 %s µs; single gang TRACE PS p99 %s µs (4 jobs: %s µs); members' resumes, 4 jobs: worst job's p99 %s µs, single gang %s µs | %s |"
                 % (s4, sk["1"][0], sk["4"][0], sk["4"][1], sk["1"][1],
                    v("3-skew", ok)))
    # row 4 against a single gang of 1 member a host, and of 4 (as many
    # tasks as the 4 jobs: what the jobs cost, not the tasks)
    for base, what in (("1x4", "a single gang of 4 members a host (the same tasks)"),
                       ("1", "a single gang of 1 member a host")):
        if "4" not in op or base not in op:
            continue
        rp = f(op["4"]["PS"]["value"]) / f(op[base]["PS"]["value"])
        rl = f(op["4"]["LS"]["value"]) / f(op[base]["LS"]["value"])
        rp50 = f(op["4"]["PS"]["p50"]) / f(op[base]["PS"]["p50"])
        rl50 = f(op["4"]["LS"]["p50"]) / f(op[base]["LS"]["p50"])
        ao = ("; every edge (slot edges too, METRICS), mean of the worse host: %.2fx (%.1f vs %.1f µs)"
              % (allop["4"] / allop[base], allop["4"], allop[base])) if "4" in allop and base in allop else ""
        ok = max(rp50, rl50) <= 1.25 and (not ao or allop["4"] / allop[base] <= 1.25)
        L.append("| 4 | edge cost with 4 gangs ≤ 1.25x %s (TRACE op_ns of the PS and LS edges; METRICS for every edge) | PS edge mean %.2fx, p50 %.2fx; LS edge mean %.2fx, p50 %.2fx%s | %s |"
                 % (what, rp, rp50, rl, rl50, ao, v("4-vs-" + base, ok)))
    if en and ex:
        L.append("| 5 | entry and exit in every node's schedule within one SI (1 s) | entry worst %.3f s, exit worst %.3f s | %s |"
                 % (max(en), max(ex), v("5-entry-exit", max(en + ex) <= 1.0)))
        if max(ex) == float("inf"):
            why.append("Row 5, exit: on a host where it says *never*, the two jobs left did not both get "
                       "their PS/2 slot within the 3 s looked at: see the notes below the table.")
    L.append("")
    for w in why:
        L.append("- " + w)
    for title, p in (("The matrix with 4 jobs on h0 and h1, as `jobs` printed it:", jobs4),
                     ("The matrix of the Gantt below (3 jobs on 3 hosts), as `jobs` printed it:", jobsg)):
        try:
            txt = open(p).read().rstrip()
        except OSError:
            continue
        L.append(title + "\n")
        L.append("```\n" + txt + "\n```\n")
    # the picture: run.sh links every OUTDIR/*.svg (matrix-gantt.svg) at the end
    open(md, "w").write("\n".join(L) + "\n")
    if os.environ.get("MATRIX_GOALS"):
        open(os.environ["MATRIX_GOALS"], "w").write("".join(g + "\n" for g in goals))


def main(a):
    if len(a) < 2:
        sys.exit(__doc__)
    c = a[1]
    if c == "traceskew":
        traceskew(a[2], *a[3:4])
    elif c == "resumeskew":
        resumeskew(a[2], a[3], int(a[4]), int(a[5]))
    elif c == "entry":
        n = (len(a) - 2) // 2
        entry(a[2:2 + n], a[2 + n:])
    elif c == "exit":
        exit_(a[2], a[3:])
    elif c == "gantt":
        gantt(int(a[2]), a[3], a[4], a[5:])
    elif c == "report":
        report(*a[2:9])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
