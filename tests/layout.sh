#!/bin/bash
# layout.sh - the source tree's layout follows its programs (run by
# tests/run-all.sh's unit stage; no build, no root, a second).
#
# 1. master/ (the engine, libmaster.a, and dts-master) includes no
#    console/ header, and libmaster.a is built without -I console.
#    One exception, named here: master/main.c, dts-master's main, which
#    runs the console's command table on its control socket until the
#    master has a command layer of its own.
# 2. No include cycle, between headers or between modules: a module is
#    a directory's NAME.c with NAME.h, and its parts NAME_PART.[ch]
#    (STYLE.md's <subsystem>_<part>.c: conf_value.c is conf's); module A
#    depends on B when a file of A includes a header of B (master.c <->
#    standby.c through console.h was one).
# 3. The engine prints nothing: master/*.c but main.c call no printf,
#    puts, putchar, perror, name no stdout or stderr, and write nothing
#    to the client's stream (out.f); errors, notices and lines go
#    through out.h, tables through the client's printers.
# Exit 0 if all hold, 1 with one line per breach.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "$src" <<'EOF'
import os, re, sys

src = sys.argv[1]
# where "X.h" is looked for after the includer's own directory: the -I
# directories of Makefile.am (console/ code includes master/ headers)
search = ["common", "master", "console", "dts", "load", "place", "slurm"]
allow_console = {"master/main.c"}
bad = []

def strip(text):
    """C source without comments and string or character literals."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', '""', text)

files = []
for d in sorted(os.listdir(src)):
    p = os.path.join(src, d)
    if not os.path.isdir(p) or d.startswith(".") or d in (
            "_build", "autom4te.cache", "debian", "m4", "build-aux"):
        continue
    for root, dirs, names in os.walk(p):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(root, n), src))
fileset = set(files)

def resolve(includer, name):
    own = os.path.normpath(os.path.join(os.path.dirname(includer), name))
    if own in fileset:
        return own
    for d in search:
        p = os.path.join(d, name)
        if p in fileset:
            return p
    return None

inc = {}
for f in files:
    with open(os.path.join(src, f), errors="replace") as fh:
        text = fh.read()
    names = re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, flags=re.M)
    inc[f] = [r for r in (resolve(f, n) for n in names) if r is not None]
    # 1. master/ includes no console/ header
    if f.startswith("master/") and f not in allow_console:
        for r in inc[f]:
            if r.startswith("console/"):
                bad.append("%s includes %s: master/ includes no console/ "
                           "header" % (f, r))
    # 3. the engine prints nothing
    if f.startswith("master/") and f.endswith(".c") and f != "master/main.c":
        body = strip(text)
        for i, line in enumerate(body.split("\n"), 1):
            if (re.search(r"\b(printf|vprintf|puts|putchar|perror)\s*\(",
                          line) or re.search(r"\b(stdout|stderr)\b", line)
                    or re.search(r"\b(v?fprintf|fputs|fputc|putc|fwrite)\s*"
                                 r"\([^;]*\bout(\.|->)f\b", line)):
                bad.append("%s:%d writes to the output: %s" %
                           (f, i, line.strip()))

# libmaster.a: master/ alone
with open(os.path.join(src, "Makefile.am")) as fh:
    am = fh.read().replace("\\\n", " ")
m = re.search(r"^master_libmaster_a_CPPFLAGS\s*=(.*)$", am, flags=re.M)
if m and "/console" in m.group(1):
    bad.append("Makefile.am: master_libmaster_a_CPPFLAGS has -I console")
m = re.search(r"^master_libmaster_a_SOURCES\s*=(.*)$", am, flags=re.M)
if m:
    srcs = m.group(1).split()
    while any(s.startswith("$(") for s in srcs):
        out = []
        for s in srcs:
            v = re.match(r"\$\((\w+)\)$", s)
            if v:
                d = re.search(r"^%s\s*=(.*)$" % v.group(1), am, flags=re.M)
                out += d.group(1).split() if d else []
            else:
                out.append(s)
        srcs = out
    for s in srcs:
        if not s.startswith("master/"):
            bad.append("Makefile.am: libmaster.a is built from %s, not "
                       "master/ alone" % s)

# 2. cycles: headers, then modules
def cycles(graph):
    found, state, stack = [], {}, []
    def visit(n):
        state[n] = 1
        stack.append(n)
        for k in sorted(graph.get(n, ())):
            if state.get(k) == 1:
                found.append(stack[stack.index(k):] + [k])
            elif k not in state:
                visit(k)
        stack.pop()
        state[n] = 2
    sys.setrecursionlimit(10000)
    for n in sorted(graph):
        if n not in state:
            visit(n)
    return found

hgraph = {f: set(r for r in inc[f] if r.endswith(".h"))
          for f in files if f.endswith(".h")}
for c in cycles(hgraph):
    bad.append("include cycle: " + " -> ".join(c))
def mod(p):
    stem = os.path.splitext(p)[0]
    d, b = os.path.split(stem)
    if "_" in b and os.path.join(d, b.split("_")[0] + ".h") in fileset:
        return os.path.join(d, b.split("_")[0])
    return stem
modules = set(mod(f) for f in files if f.endswith(".c"))
mgraph = {}
for f in files:
    a = mod(f)
    for r in inc[f]:
        if r.endswith(".h") and mod(r) != a and mod(r) in modules:
            mgraph.setdefault(a, set()).add(mod(r))
for c in cycles(mgraph):
    bad.append("module cycle: " + " -> ".join(c))

for b in bad:
    print("layout: " + b)
print("layout: %d files, %d breach%s" % (len(files), len(bad),
      "" if len(bad) == 1 else "es"))
sys.exit(1 if bad else 0)
EOF
