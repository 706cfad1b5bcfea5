#!/usr/bin/env python3
# memforks.py N MIB: children of MIB MiB each, touched, until a fork fails
# or N run; "forked K" when done (K children started), then sleep.  The
# job of [R4 1/5]'s scenario (t110, bench-memory).
import os
import sys
import time

n, mib = int(sys.argv[1]), int(sys.argv[2])
k = 0
for i in range(n):
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.close(r)
        b = bytearray(b'\1') * (mib << 20)
        os.write(w, b"x")
        time.sleep(3600)
        os._exit(0)
    os.close(w)
    os.read(r, 1)	# touched, or killed ("" at its end)
    os.close(r)
    k += 1
print("forked", k, flush=True)
time.sleep(3600)
