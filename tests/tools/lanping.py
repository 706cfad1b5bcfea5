#!/usr/bin/env python3
"""lanping.py - UDP echo round trips between two hosts of a test cluster
(this machine has no ping(8); t61 uses this one).

  lanping.py serve PORT
      echo every datagram back to its sender until SIGTERM.
  lanping.py ping ADDR PORT COUNT [TIMEOUT_MS]
      send COUNT probes one after the other (the next one as soon as the
      reply came or TIMEOUT_MS, default 100, passed: a flood like ping -f)
      and print one line:
        sent=N received=N lost=F min_us=U p50_us=U max_us=U
      (round trip times of the replies, in microseconds; a late reply of
      an earlier probe is not counted as this one's).

Exit status: 0; 2 on bad arguments (a one-line error).
"""
import signal
import socket
import struct
import sys
import time


def die(msg):
    sys.stderr.write("lanping: %s\n" % msg)
    sys.exit(2)


def num(s, what, lo, hi):
    try:
        v = int(s)
    except ValueError:
        die("bad %s '%s'" % (what, s))
    if not lo <= v <= hi:
        die("bad %s '%s' (%d..%d)" % (what, s, lo, hi))
    return v


def serve(port):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("", port))
    while True:
        data, peer = s.recvfrom(2048)
        s.sendto(data, peer)


def ping(addr, port, count, timeout_ms):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((addr, port))
    rtts = []
    for seq in range(count):
        t0 = time.perf_counter_ns()
        deadline = t0 + timeout_ms * 1000000
        s.send(struct.pack("!I", seq) + b"lanping")
        while True:
            left = deadline - time.perf_counter_ns()
            if left <= 0:
                break
            s.settimeout(left / 1e9)
            try:
                data = s.recv(2048)
            except (socket.timeout, ConnectionRefusedError):
                break
            t1 = time.perf_counter_ns()
            if len(data) >= 4 and struct.unpack("!I", data[:4])[0] == seq:
                rtts.append((t1 - t0) / 1000.0)
                break
    rtts.sort()
    n = len(rtts)
    if n:
        print("sent=%d received=%d lost=%.4f min_us=%.0f p50_us=%.0f max_us=%.0f" % (
            count, n, 1 - n / count, rtts[0], rtts[n // 2], rtts[-1]))
    else:
        print("sent=%d received=0 lost=1.0000 min_us=nan p50_us=nan max_us=nan" % count)


def main(a):
    if len(a) == 2 and a[0] == "serve":
        serve(num(a[1], "PORT", 1, 65535))
    elif len(a) in (4, 5) and a[0] == "ping":
        ping(a[1], num(a[2], "PORT", 1, 65535), num(a[3], "COUNT", 1, 1000000),
             num(a[4], "TIMEOUT_MS", 1, 60000) if len(a) == 5 else 100)
    else:
        die("usage: lanping.py serve PORT | ping ADDR PORT COUNT [TIMEOUT_MS]")


if __name__ == "__main__":
    main(sys.argv[1:])
