#!/usr/bin/env python3
"""svg.py - pictures of the DTS benchmarks, python3 standard library only.

    svg.py gantt  IN.csv OUT.svg   Gantt chart of PS/LS per host (like the
                                   thesis's Figure 2.1) from host,phase,real_ns
                                   (bench-sync.sh's gantt-trace.csv)
    svg.py share  IN.csv OUT.svg   parallel share - PS/IP (points) against IP
                                   (log axis), one line per PS %, from
                                   ip_ms,ps_pct,parallel_pct,local_pct,dev_pp
    svg.py payoff IN.csv OUT.svg   completion time of every program per mode
                                   and local load, ÷ its time alone, on a log
                                   axis (bench-payoff.sh's payoff.csv)
    svg.py mpi    IN.csv OUT.svg   µs per iteration of the MPI loops, OFF
                                   against STATIC in phase, log axis, with
                                   the hogs' share (bench-mpi.sh's mpi.csv)
"""
import csv
import math
import sys
from xml.sax.saxutils import escape

FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]


class Svg:
    def __init__(self, w, h):
        self.w, self.h, self.parts = w, h, []

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, size=12, anchor="start", color="#000", weight="normal", rotate=None):
        tr = ' transform="rotate(%d %.1f %.1f)"' % (rotate, x, y) if rotate else ""
        self.add('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" fill="%s" '
                 'font-weight="%s" %s%s>%s</text>' % (x, y, size, anchor, color, weight,
                                                      FONT, tr, escape(str(s))))

    def line(self, x1, y1, x2, y2, color="#000", width=1, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%s"%s/>'
                 % (x1, y1, x2, y2, color, width, d))

    def rect(self, x, y, w, h, fill="none", stroke="#000", width=1):
        self.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s" '
                 'stroke-width="%s"/>' % (x, y, max(w, 0), max(h, 0), fill, stroke, width))

    def save(self, path):
        with open(path, "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                    'viewBox="0 0 %d %d">\n' % (self.w, self.h, self.w, self.h))
            f.write('<rect width="100%" height="100%" fill="white"/>\n')
            f.write("\n".join(self.parts))
            f.write("\n</svg>\n")


def nice_step(span, n=8):
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


# ---- (a) Gantt -------------------------------------------------------------

def gantt(inp, out):
    edges = {}
    for r in csv.DictReader(open(inp)):
        edges.setdefault(r["host"], []).append((int(r["real_ns"]), r["phase"]))
    if not edges:
        sys.exit("svg.py gantt: no edges in %s" % inp)
    hosts = sorted(edges, key=lambda h: int(h.lstrip("h")) if h.lstrip("h").isdigit() else h)
    for h in hosts:
        edges[h].sort()
    t0 = min(e[0][0] for e in edges.values())
    t1 = max(e[-1][0] for e in edges.values())
    # PS starts of the reference host (first one)
    ref = [t for t, p in edges[hosts[0]] if p == "PS"]
    W, H = 1000, 130 + 70 * len(hosts)
    L, R, T = 70, 30, 60
    scale = (W - L - R) / max(t1 - t0, 1)
    X = lambda t: L + (t - t0) * scale
    s = Svg(W, H)
    s.text(W / 2, 24, "DTS slices per host: PS filled, LS empty (from real slice-edge timestamps)",
           15, "middle", weight="bold")
    s.text(W / 2, 44, "skew = PS start − nearest PS start of %s (µs), written under each PS" % hosts[0],
           11, "middle", "#555")
    rowh = 40
    for i, h in enumerate(hosts):
        y = T + i * 70
        s.text(L - 10, y + rowh / 2 + 5, h, 14, "end", weight="bold")
        ev = edges[h]
        last_label = -1e9
        for j, (t, ph) in enumerate(ev):
            tn = ev[j + 1][0] if j + 1 < len(ev) else t1
            if ph == "PS":
                s.rect(X(t), y, X(tn) - X(t), rowh, "#4a7fc1", "#1d3f6e")
                if i > 0 and ref and X(t) - last_label >= 48:
                    last_label = X(t)
                    near = min(ref, key=lambda r: abs(r - t))
                    d = (t - near) / 1e3
                    s.text(X(t) + 2, y + rowh + 13, "%+.0f µs" % d, 10, "start", "#b22222")
                elif i == 0:
                    s.line(X(t), T - 6, X(t), T + 70 * len(hosts) - 20, "#999", 0.6, "3,3")
            else:
                s.rect(X(t), y, X(tn) - X(t), rowh, "none", "#1d3f6e")
    # time axis in ms
    ya = T + 70 * len(hosts) - 10
    s.line(L, ya, W - R, ya)
    span_ms = (t1 - t0) / 1e6
    st = nice_step(span_ms, 10)
    v = 0.0
    while v <= span_ms + 1e-9:
        x = L + v * 1e6 * scale
        s.line(x, ya, x, ya + 5)
        s.text(x, ya + 18, "%g" % v, 11, "middle")
        v += st
    s.text((L + W - R) / 2, ya + 38, "time (ms) from %s's first edge" % hosts[0], 12, "middle")
    # legend
    s.rect(L, H - 22, 14, 10, "#4a7fc1", "#1d3f6e")
    s.text(L + 18, H - 13, "PS (parallel)", 10)
    s.rect(L + 110, H - 22, 14, 10, "none", "#1d3f6e")
    s.text(L + 128, H - 13, "LS (local)   dashed: PS starts of %s" % hosts[0], 10)
    s.save(out)


# ---- (b) share vs IP -------------------------------------------------------

def share(inp, out):
    series = {}
    for r in csv.DictReader(open(inp)):
        ps = float(r["ps_pct"])
        ip = float(r["ip_ms"])
        if "dev_pp" in r and r["dev_pp"] not in ("", None):
            dev = float(r["dev_pp"])
        else:
            dev = float(r["parallel_pct"]) - ps
        series.setdefault(ps, []).append((ip, dev))
    W, H, L, R, T, B = 800, 500, 80, 150, 50, 70
    xmin, xmax = 1.0, 1000.0
    devs = [d for v in series.values() for _, d in v] + [0.0]
    lim = max(1.0, max(abs(d) for d in devs))
    lim = nice_step(lim * 2, 4) * math.ceil(lim / nice_step(lim * 2, 4))
    ymin, ymax = -lim, lim
    X = lambda ip: L + (math.log10(max(min(ip, xmax), xmin)) - 0) / 3 * (W - L - R)
    Y = lambda d: T + (ymax - d) / (ymax - ymin) * (H - T - B)
    s = Svg(W, H)
    s.text((L + W - R) / 2, 28, "Parallel share error vs IP: measured share − PS/IP", 15, "middle",
           weight="bold")
    s.rect(L, T, W - L - R, H - T - B, "none", "#000")
    for dec in (1, 10, 100, 1000):
        for m in range(1, 10):
            v = dec * m
            if v > xmax:
                break
            s.line(X(v), T, X(v), H - B, "#ddd" if m > 1 else "#aaa", 0.6)
        s.text(X(dec), H - B + 18, "%g ms" % dec if dec < 1000 else "1 s", 11, "middle")
    st = nice_step(ymax - ymin, 8)
    v = ymin
    while v <= ymax + 1e-9:
        s.line(L, Y(v), W - R, Y(v), "#aaa" if abs(v) < 1e-9 else "#eee", 1 if abs(v) < 1e-9 else 0.6)
        s.text(L - 8, Y(v) + 4, "%+g" % v if v else "0", 11, "end")
        v += st
    s.text((L + W - R) / 2, H - B + 44, "IP (log scale)", 12, "middle")
    s.text(22, (T + H - B) / 2, "share − PS/IP (points)", 12, "middle", rotate=-90)
    for i, ps in enumerate(sorted(series, reverse=True)):
        pts = sorted(series[ps])
        c = COLORS[i % len(COLORS)]
        s.add('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (
            c, " ".join("%.1f,%.1f" % (X(ip), Y(d)) for ip, d in pts)))
        for ip, d in pts:
            s.add('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>' % (X(ip), Y(d), c))
        s.line(W - R + 15, T + 20 + 22 * i, W - R + 40, T + 20 + 22 * i, c, 2)
        s.text(W - R + 46, T + 24 + 22 * i, "PS %g%%" % ps, 12)
    s.save(out)


# ---- (c) payoff: completion time on a log axis ------------------------------

MODE_ORDER = ["off", "hpdt", "static-stop", "static-idle", "balanced"]
MODE_LABEL = {"off": "OFF (plain Linux)", "hpdt": "HPDT", "static-stop": "STATIC 50% stop",
              "static-idle": "STATIC 50% idle", "balanced": "BALANCED"}
MODE_COLOR = {"off": "#555555", "hpdt": "#9467bd", "static-stop": "#1f77b4",
              "static-idle": "#2ca02c", "balanced": "#ff7f0e"}


def payoff(inp, out):
    """One panel per local load (hogs per host); in each, every program's
    completion time divided by its time alone (the faster of OFF and HPDT
    with no hog), one marker per mode, on a log axis.  Hollow = hit the time
    cap (extrapolated); faded = other tenants took > 15% of the CPUs."""
    rows = []
    for r in csv.DictReader(open(inp)):
        try:
            c = float(r["completion_s"])
        except (KeyError, ValueError):
            continue
        if r.get("tph", "1") != "1" or c <= 0 or r.get("status", "ok").startswith("failed"):
            continue
        r["c"] = c
        rows.append(r)
    if not rows:
        sys.exit("svg.py payoff: no completed rows in %s" % inp)
    names = {"np-lat": "NPpvm latency", "np-bw": "NPpvm bandwidth"}
    prog = lambda r: names.get(r["prog"], r["prog"]) if r["prog"] != "bsp" else "bsp G=%s ms" % r["g_ms"]
    progs = []
    for r in rows:
        if prog(r) not in progs:
            progs.append(prog(r))
    loads = sorted({r["hogs"] for r in rows}, key=lambda h: float(h))
    modes = [m for m in MODE_ORDER if any(r["mode"] == m for r in rows)]
    base = {}
    for p in progs:
        alone = [r["c"] for r in rows if prog(r) == p and r["mode"] in ("off", "hpdt")
                 and r["hogs"] == loads[0]]
        base[p] = min(alone) if alone else min(r["c"] for r in rows if prog(r) == p)
    pts = [(r, r["c"] / base[prog(r)]) for r in rows]
    steps = [m * 10 ** e for e in range(-3, 4) for m in (1, 2, 5)]
    lo = max(x for x in steps if x <= min(v for _, v in pts) * 0.9)
    hi = min(x for x in steps if x >= max(v for _, v in pts) * 1.1)
    PW, L, R, T, B = max(260, 34 * len(progs)), 70, 20, 84, 120
    W, H = L + len(loads) * (PW + 30) + R, 520
    s = Svg(W, H)
    s.text(W / 2, 24, "Completion time ÷ time alone (no local load, not sliced): 2 hosts, log scale", 15,
           "middle", weight="bold")
    s.text(W / 2, 44, "lower is better; 1 = as fast as alone; hollow = hit the time cap (extrapolated)",
           11, "middle", "#555")
    s.text(W / 2, 58, "faded = other tenants took > 15% of the CPUs meanwhile", 11, "middle", "#555")
    Y = lambda v: T + (math.log10(hi) - math.log10(v)) / (math.log10(hi) - math.log10(lo)) * (H - T - B)
    for i, h in enumerate(loads):
        x0 = L + i * (PW + 30)
        s.rect(x0, T, PW, H - T - B, "none", "#000")
        s.text(x0 + PW / 2, T - 8, "%s hog(s) per host" % h, 13, "middle", weight="bold")
        dec = 10 ** math.floor(math.log10(lo))
        while dec <= hi * 1.0001:
            for m in (1, 2, 5):
                v = dec * m
                if v < lo * 0.999 or v > hi * 1.001:
                    continue
                s.line(x0, Y(v), x0 + PW, Y(v), "#999" if abs(v - 1) < 1e-9 else "#e5e5e5",
                       1.2 if abs(v - 1) < 1e-9 else 0.6)
                if i == 0:
                    s.text(x0 - 6, Y(v) + 4, "%g×" % v, 10, "end")
            dec *= 10
        bw = PW / len(progs)
        for j, p in enumerate(progs):
            xc = x0 + (j + 0.5) * bw
            s.text(xc, H - B + 12, p, 10, "end", rotate=-50)
            for k, m in enumerate(modes):
                for r, v in pts:
                    if prog(r) != p or r["mode"] != m or r["hogs"] != h:
                        continue
                    x = xc + (k - (len(modes) - 1) / 2) * min(5, bw / (len(modes) + 1))
                    capped = r.get("status", "ok").startswith("capped")
                    try:
                        noisy = float(r.get("foreign_pct", "0")) > 15
                    except ValueError:
                        noisy = False
                    s.add('<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s" stroke-width="1.5"%s/>'
                          % (x, Y(v), "white" if capped else MODE_COLOR[m], MODE_COLOR[m],
                             ' opacity="0.3"' if noisy else ""))
    s.text(22, (T + H - B) / 2, "time ÷ time alone (log)", 12, "middle", rotate=-90)
    for k, m in enumerate(modes):
        x = L + k * 170
        s.add('<circle cx="%.1f" cy="%.1f" r="5" fill="%s"/>' % (x, H - 18, MODE_COLOR[m]))
        s.text(x + 10, H - 14, MODE_LABEL[m], 11)
    s.save(out)


# ---- (d) mpi: the MPI loops, OFF against STATIC --------------------------

MPI_LABEL = {"busy": "busy polling (Open MPI default)",
             "yield": "mpi_yield_when_idle", "sleep": "the program sleeps"}


def mpi(inp, out):
    rows = [r for r in csv.DictReader(open(inp))
            if r["part"] == "payoff" and r["iter_us"] not in ("", None)]
    progs = [p for p in MPI_LABEL if any(r["prog"] == p for r in rows)]
    modes = [("off", "OFF (plain Linux)", "#555555"), ("static", "STATIC 50/50 in phase", "#1f77b4")]
    val = {(r["prog"], r["mode"]): r for r in rows}
    W, H, L, R, T, B = 760, 420, 80, 40, 60, 90
    ys = [float(r["iter_us"]) for r in rows] or [1.0]
    lo = 10 ** math.floor(math.log10(min(ys)))
    hi = 10 ** math.ceil(math.log10(max(ys)))
    if hi <= lo:
        hi = lo * 10
    Y = lambda v: T + (math.log10(hi) - math.log10(v)) / (math.log10(hi) - math.log10(lo)) * (H - T - B)
    s = Svg(W, H)
    s.text(W / 2, 24, "MPI ping-pong + allreduce, 2 hosts with a CPU hog each: time per iteration",
           14, "middle", weight="bold")
    s.text(W / 2, 42, "log scale, lower is better; label: the hogs' CPU share (the lower host)",
           11, "middle", color="#555")
    s.rect(L, T, W - L - R, H - T - B, "none", "#000")
    d = lo
    while d <= hi * 1.0001:
        s.line(L, Y(d), W - R, Y(d), "#ddd", 0.6)
        s.text(L - 8, Y(d) + 4, "%g µs" % d, 11, "end")
        d *= 10
    gw = (W - L - R) / max(len(progs), 1)
    bw = gw / (len(modes) + 1.5)
    for i, p in enumerate(progs):
        x0 = L + i * gw + bw * 0.75
        for j, (m, _, c) in enumerate(modes):
            r = val.get((p, m))
            if r is None:
                continue
            v = float(r["iter_us"])
            x = x0 + j * bw
            s.rect(x, Y(v), bw * 0.9, H - B - Y(v), c, c)
            s.text(x + bw * 0.45, Y(v) - 5, "%.0f" % v, 10, "middle")
            hog = min(float(r["hog0_pct"] or 0), float(r["hog1_pct"] or 0))
            s.text(x + bw * 0.45, H - B + 14, "hog %.0f%%" % hog, 9, "middle", color="#555")
        s.text(L + (i + 0.5) * gw, H - B + 32, MPI_LABEL[p], 11, "middle")
    for j, (_, lab, c) in enumerate(modes):
        s.rect(L + 10 + j * 220, H - 30, 14, 14, c, c)
        s.text(L + 30 + j * 220, H - 19, lab, 12)
    s.save(out)


def main(argv):
    cmds = {"gantt": gantt, "share": share, "payoff": payoff, "mpi": mpi}
    if len(argv) != 4 or argv[1] not in cmds:
        sys.stderr.write(__doc__)
        return 2
    cmds[argv[1]](argv[2], argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
