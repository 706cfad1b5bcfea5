#!/usr/bin/env python3
# mempark.py MIB GO: MIB MiB with a pattern, its checksum, "ready"; once
# the file GO exists, the checksum again and the major faults that took:
# "intact MAJFLT" or "corrupt".  A parked job whose pages go to swap
# (t116, bench-memory row 4).
import os
import sys
import time
import zlib

mib, go = int(sys.argv[1]), sys.argv[2]
b = bytearray(range(256)) * (mib << 12)
h = zlib.adler32(b)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.05)


def majflt():
    with open("/proc/self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[9])


m0 = majflt()
ok = zlib.adler32(b) == h
print("intact" if ok else "corrupt", majflt() - m0, flush=True)
time.sleep(3600)
