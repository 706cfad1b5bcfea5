#!/usr/bin/env python3
"""adoptflood.py - a local user against dts's adoption socket (dts(8),
SECURITY).  Used by tests/system/t92-local-socket.sh and
tests/bench/bench-adopt.sh.

  flood SOCK REQ SECONDS PROCS OUT [TIMEOUT_MS]
      PROCS processes, each looping for SECONDS: connect, send REQ, read
      the reply, close (REQ "garbage" sends a malformed request).  With
      TIMEOUT_MS a process waits that long for a reply, then closes and
      connects again (an impatient attacker); without, it waits as long
      as dts keeps it.  OUT gets "requests=N" (connections that got a
      reply or were closed by dts), "timeouts=N", "errors=N" and one
      "reply <first words>=N" line per kind of reply.

  legit SOCK ROUNDS GANG_PROCS OUT
      The gang's own requests, ROUNDS times: a child asks "ADOPT run"
      (so it becomes the gang), then "JOIN <pid>" for a sleeping sibling
      that is outside the gang; both end, and the round waits until the
      gang (its cgroup.procs file, GANG_PROCS) is empty.  OUT gets one
      line a round: "adopt_ms join_ms adopt_reply|join_reply".

  ask SOCK OUT REQ...
      Each request on a connection of its own; "REQ<TAB>REPLY" lines into
      OUT.

  mute SOCK SLOTS OUT
      Clients that connect and say nothing: SLOTS of them, in turn; the
      first closes and a new one takes its place (so it holds the slot
      freed first, not the last one); then one more, for which dts must
      close the oldest silent connection (the second).  OUT gets one line
      "I REPLY" for each connection I (0..SLOTS, in the order made, the
      replacement as 0) that dts answered or closed.

  reuse SOCK READY GO OUT
      The pid-reuse attack: a process connects, forks a child that keeps
      the connection, and exits (and is reaped).  Its pid goes into READY;
      once the file GO exists (the test has put another process on that
      pid), the child sends "ADOPT run" and writes the reply into OUT.
"""
import os
import socket
import sys
import time


def connect(path, timeout=None, wait=False):
    """wait: a blocking connect() (as dts-run's), which waits while the
    socket's backlog is full; else with a timeout a full backlog fails at
    once (EAGAIN) and the caller tries again."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    if not wait:
        s.settimeout(timeout)
    s.connect(path)
    s.settimeout(timeout)
    return s


def ask(path, req, timeout=5.0):
    s = connect(path, timeout, wait=True)
    try:
        s.send(req.encode())
        return s.recv(512).decode(errors="replace")
    finally:
        s.close()


def flood_one(path, req, until, timeout, counts):
    while time.monotonic() < until:
        try:
            s = connect(path, timeout)
        except OSError:
            counts["errors"] = counts.get("errors", 0) + 1
            continue
        try:
            s.send(req)
            rep = s.recv(512).decode(errors="replace")
            key = "reply " + (" ".join(rep.split()[:3]) if rep else "(closed)")
            counts[key] = counts.get(key, 0) + 1
            counts["requests"] = counts.get("requests", 0) + 1
        except socket.timeout:
            counts["timeouts"] = counts.get("timeouts", 0) + 1
        except OSError:
            counts["errors"] = counts.get("errors", 0) + 1
        finally:
            s.close()


def flood(path, req, secs, procs, out, timeout_ms=None):
    req = b"GARBAGE \x01\x02 xyzzy" if req == "garbage" else req.encode()
    timeout = timeout_ms / 1000.0 if timeout_ms else None
    until = time.monotonic() + secs
    kids = []
    for i in range(procs):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            counts = {}
            try:
                flood_one(path, req, until, timeout, counts)
            finally:
                os.write(w, repr(counts).encode())
                os._exit(0)
        os.close(w)
        kids.append((pid, r))
    total = {}
    for pid, r in kids:
        data = b""
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            data += chunk
        os.waitpid(pid, 0)
        try:
            counts = eval(data.decode(), {"__builtins__": {}})
        except Exception:
            counts = {}
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
    with open(out, "w") as f:
        for k in ("requests", "timeouts", "errors"):
            f.write("%s=%d\n" % (k, total.pop(k, 0)))
        for k, v in sorted(total.items()):
            f.write("%s=%d\n" % (k, v))


def gang_empty(procs):
    try:
        with open(procs) as f:
            return f.read().strip() == ""
    except OSError:
        return True


def legit(path, rounds, procs, out):
    with open(out, "w") as f:
        for _ in range(rounds):
            target = os.fork()
            if target == 0:
                time.sleep(30)
                os._exit(0)
            r, w = os.pipe()
            child = os.fork()
            if child == 0:
                os.close(r)
                line = ""
                try:
                    t0 = time.monotonic()
                    rep1 = ask(path, "ADOPT run")
                    t1 = time.monotonic()
                    rep2 = ask(path, "JOIN %d" % target)
                    t2 = time.monotonic()
                    line = "%.3f %.3f %s|%s" % ((t1 - t0) * 1e3,
                                                (t2 - t1) * 1e3,
                                                rep1.split("\n")[0].strip(),
                                                rep2.strip())
                except OSError as e:
                    line = "nan nan ERROR %s" % e
                os.write(w, line.encode())
                os._exit(0)
            os.close(w)
            line = os.read(r, 4096).decode()
            os.close(r)
            os.waitpid(child, 0)
            os.kill(target, 9)
            os.waitpid(target, 0)
            f.write(line + "\n")
            f.flush()
            end = time.monotonic() + 2
            while not gang_empty(procs) and time.monotonic() < end:
                time.sleep(0.005)
            time.sleep(0.05)


def ask_all(path, out, reqs):
    with open(out, "w") as f:
        for req in reqs:
            try:
                rep = ask(path, req)
            except OSError as e:
                rep = "NOANSWER %s" % e
            f.write("%s\t%s\n" % (req, rep.split("\n")[0]))


def mute(path, slots, out):
    time.sleep(2)       # the uid's budget, spent by earlier requests, back
    held = []
    for _ in range(slots):
        held.append(connect(path, wait=True))
        time.sleep(0.15)        # served in turn (10 a second)
    held[0].close()
    time.sleep(0.3)
    held[0] = connect(path, wait=True)
    time.sleep(0.3)
    held.append(connect(path, wait=True))
    time.sleep(0.5)
    with open(out, "w") as f:
        for i, s in enumerate(held):
            s.setblocking(False)
            try:
                rep = s.recv(512).decode(errors="replace")
            except BlockingIOError:
                continue
            except OSError as e:
                rep = "error %s" % e
            f.write("%d %s\n" % (i, rep.split("\n")[0] or "EOF"))
    for s in held:
        s.close()


def reuse(path, ready, go, out):
    a = os.fork()
    if a == 0:
        # A: connect, hand the connection to a child, exit
        s = connect(path)
        c = os.fork()
        if c == 0:
            os.setsid()
            while not os.path.exists(go):
                time.sleep(0.01)
            s.settimeout(10)
            try:
                s.send(b"ADOPT run")
                rep = s.recv(512).decode(errors="replace")
            except OSError as e:
                rep = "NOANSWER %s" % e
            with open(out + ".tmp", "w") as f:
                f.write(rep + "\n")
            os.rename(out + ".tmp", out)
            os._exit(0)
        os._exit(0)
    os.waitpid(a, 0)    # reaped: the pid is free
    with open(ready + ".tmp", "w") as f:
        f.write("%d\n" % a)
    os.rename(ready + ".tmp", ready)


def main(argv):
    if len(argv) >= 7 and argv[1] == "flood":
        flood(argv[2], argv[3], float(argv[4]), int(argv[5]), argv[6],
              int(argv[7]) if len(argv) > 7 else None)
    elif len(argv) == 6 and argv[1] == "legit":
        legit(argv[2], int(argv[3]), argv[4], argv[5])
    elif len(argv) >= 5 and argv[1] == "ask":
        ask_all(argv[2], argv[3], argv[4:])
    elif len(argv) == 5 and argv[1] == "mute":
        mute(argv[2], int(argv[3]), argv[4])
    elif len(argv) == 6 and argv[1] == "reuse":
        reuse(argv[2], argv[3], argv[4], argv[5])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
