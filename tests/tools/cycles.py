#!/usr/bin/env python3
"""
cycles.py - no cycle between the files of a directory of DTS (issue 11).

  tests/tools/cycles.py [-o OBJDIR] DIR...

For each DIR, the graph of its `#include "..."` lines (a file -> the header
it names, in the same directory) must have no cycle.  With -o, the objects
in OBJDIR (e.g. _build/common) must not call each other in a circle either:
an edge a.o -> b.o for each symbol a.o uses and b.o defines (nm).  Prints
every cycle found; exit status 1 if there is one, 0 if none.
"""
import glob
import os
import re
import subprocess
import sys


def cycles(graph):
    found, state = [], {}

    def visit(u, path):
        state[u] = 1
        path.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                found.append(path[path.index(v):] + [v])
            elif v not in state:
                visit(v, path)
        path.pop()
        state[u] = 2

    for u in sorted(graph):
        if u not in state:
            visit(u, [])
    return found


def includes(d):
    graph = {}
    for f in sorted(glob.glob(os.path.join(d, '*.[ch]'))):
        with open(f, errors='replace') as fp:
            for line in fp:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if m and os.path.exists(os.path.join(d, m.group(1))):
                    graph.setdefault(os.path.basename(f), set()).add(
                        m.group(1))
    return graph


def calls(objdir):
    defs, uses = {}, {}
    for o in sorted(glob.glob(os.path.join(objdir, '*.o'))):
        n = os.path.basename(o)[:-2]
        out = subprocess.run(['nm', o], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 2 and p[0] == 'U':
                uses.setdefault(n, set()).add(p[1])
            elif len(p) == 3 and p[1] in 'TDRB':
                defs[p[2]] = n
    return {n: {defs[s] for s in u if s in defs and defs[s] != n}
            for n, u in uses.items()}


def main(argv):
    bad = 0
    objdir = None
    if len(argv) > 1 and argv[0] == '-o':
        objdir, argv = argv[1], argv[2:]
    for d in argv:
        for c in cycles(includes(d)):
            print('%s: include cycle: %s' % (d, ' -> '.join(c)))
            bad = 1
    if objdir:
        for c in cycles(calls(objdir)):
            print('%s: call cycle: %s' % (objdir, ' -> '.join(c)))
            bad = 1
    return bad


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
