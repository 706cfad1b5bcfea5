#!/usr/bin/env python3
"""condrive.py LOG SPIN CONSOLE [ARG...] - one long-running dts-console,
driven command by command for bench-control.

Starts CONSOLE ARG... with its stdin a pipe (so it reads commands one a
line, as a script) and its stdout and stderr merged into another pipe.
Then reads operations on its own stdin, one a line (spawn, add, delete,
tasks, halt), and for each writes the console command to the console and
reads, in blocks, until the command's result line has come (for tasks,
its header and every row); it answers on stdout with one line:
    MS ok|fail SPINROWS
MS is the time from the write of the command to the read of its last
line (CLOCK_MONOTONIC), SPINROWS the rows of `tasks` that run SPIN.
Everything the console printed goes to LOG.  A result that does not come
within 20 s is a fail.  EOF on stdin closes the console's input; the
console then ends.
"""
import os
import re
import subprocess
import sys
import time
import select

WAIT_S = 20


def main():
    log_path, spin, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    log = open(log_path, "a", buffering=1)
    con = subprocess.Popen(argv, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = con.stdout.fileno()
    buf = b""
    cmds = {
        "spawn": ("spawn -n 1 %s 0" % spin, r"^spawned 1 of 1: t[0-9a-f]+$"),
        "add": ("add nosuchhost.invalid", r"^nosuchhost\.invalid: "),
        "delete": ("delete nosuchhost.invalid", r"^nosuchhost\.invalid: "),
        "tasks": ("tasks", r"^[0-9]+ tasks?$"),
        "halt": ("halt", r"^halted the virtual machine"),
    }
    for req in sys.stdin:
        op = req.strip()
        if op not in cmds:
            print("0 fail 0 no such operation", flush=True)
            continue
        cmd, want = cmds[op]
        log.write("> %s\n" % cmd)
        t0 = time.monotonic()
        con.stdin.write((cmd + "\n").encode())
        con.stdin.flush()
        ok, rows, spins, end = False, -1, 0, t0 + WAIT_S
        while not ok:
            while b"\n" not in buf:
                left = end - time.monotonic()
                if left <= 0 or not select.select([out], [], [], left)[0]:
                    break
                chunk = os.read(out, 65536)
                if not chunk:
                    break
                buf += chunk
            if b"\n" not in buf:
                break
            line, buf = buf.split(b"\n", 1)
            text = line.decode(errors="replace")
            log.write(text + "\n")
            if rows >= 0:
                # the command's column, whatever follows it (PLACED:
                # where dts-place or the console's spawn placed it)
                spins += any(t.endswith("/" + os.path.basename(spin))
                             for t in text.split())
                rows -= 1
                ok = rows == 0
            elif re.search(want, text):
                if op == "tasks":
                    rows = int(text.split()[0]) + 1
                else:
                    ok = True
        ms = (time.monotonic() - t0) * 1000
        print("%.3f %s %d" % (ms, "ok" if ok else "fail", spins), flush=True)
    con.stdin.close()
    con.wait(timeout=10)


if __name__ == "__main__":
    main()
