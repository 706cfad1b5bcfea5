#!/usr/bin/env python3
"""svg.py - pictures of the DTS benchmarks, python3 standard library only.

    svg.py gantt  IN.csv OUT.svg   Gantt chart of PS/LS per host (like the
                                   thesis's Figure 2.1) from host,phase,real_ns
                                   (bench-sync.sh's gantt-trace.csv)
    svg.py share  IN.csv OUT.svg   parallel share - PS/IP (points) against IP
                                   (log axis), one line per PS %, from
                                   ip_ms,ps_pct,parallel_pct,local_pct,dev_pp
    svg.py payoff IN.csv OUT.svg   completion time and hog share per mode,
                                   from bench-payoff.sh's payoff.csv
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


# ---- (c) payoff bars -------------------------------------------------------

def payoff(inp, out):
    rows = list(csv.DictReader(open(inp)))
    if not rows:
        sys.exit("svg.py payoff: no rows in %s" % inp)
    W, H, L, T, B = 900, 470, 80, 60, 90
    mid = W / 2
    s = Svg(W, H)
    s.text(W / 2, 26, "Coscheduling payoff per mode (ring program, 2 hosts, hog on each CPU)", 15,
           "middle", weight="bold")

    def panel(x0, x1, key, title, unit, color, marks=None):
        vals = [float(r[key]) for r in rows]
        vmax = max(vals + [1e-9]) * 1.15
        if marks:
            vmax = max(vmax, max(marks.values()) * 1.1)
        s.text((x0 + x1) / 2, T - 12, title, 13, "middle", weight="bold")
        s.rect(x0, T, x1 - x0, H - T - B, "none", "#000")
        st = nice_step(vmax, 6)
        v = 0.0
        Y = lambda v: H - B - v / vmax * (H - T - B)
        while v <= vmax + 1e-9:
            s.line(x0, Y(v), x1, Y(v), "#eee", 0.6)
            s.text(x0 - 6, Y(v) + 4, "%g" % round(v, 6), 10, "end")
            v += st
        s.text(x0 - 48, (T + H - B) / 2, unit, 11, "middle", rotate=-90)
        bw = (x1 - x0) / len(rows)
        for i, r in enumerate(rows):
            v = float(r[key])
            x = x0 + i * bw + bw * 0.15
            capped = r.get("complete", "1") != "1" and key == "completion_s"
            s.rect(x, Y(v), bw * 0.7, H - B - Y(v), "#f4b6b6" if capped else color, "#333")
            s.text(x + bw * 0.35, Y(v) - 4, ("%.3g" % v) + (" *" if capped else ""), 10, "middle")
            s.text(x + bw * 0.35, H - B + 14, r["mode"], 10, "end", rotate=-35)
            if marks and r["mode"] in marks:
                m = marks[r["mode"]]
                s.line(x - 3, Y(m), x + bw * 0.7 + 3, Y(m), "#d62728", 2, "4,2")

    panel(L, mid - 40, "completion_s", "ring completion time (lower is better)", "seconds", "#4a7fc1")
    marks = {}
    for r in rows:
        try:
            if r.get("ls_pct") not in (None, "", "-") and r["mode"] not in ("off", "hpdt"):
                marks[r["mode"]] = float(r["ls_pct"])
        except ValueError:
            pass
    panel(mid + 60, W - 20, "hog_pct", "local hog CPU share (min of hosts)", "% of CPU", "#6aa84f",
          marks)
    s.text(L, H - 12, "* = hit the time cap: extrapolated from its rate.   Red dashes: the LS share "
           "the hog is due (LS/IP).", 10, "start", "#555")
    s.save(out)


def main(argv):
    cmds = {"gantt": gantt, "share": share, "payoff": payoff}
    if len(argv) != 4 or argv[1] not in cmds:
        sys.stderr.write(__doc__)
        return 2
    cmds[argv[1]](argv[2], argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
