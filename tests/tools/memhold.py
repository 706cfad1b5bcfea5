#!/usr/bin/env python3
# memhold.py MIB [STEP]: MIB MiB touched; "ready SECONDS" (the touch's
# time) on stdout, then sleep.  With STEP: STEP MiB at a time, "at T"
# (monotonic s) after each, growing to MIB (a job that its memory limit
# stops on the way).  The memory tests' owner and jobs.
import sys
import time

mib = int(sys.argv[1])
if len(sys.argv) > 2:
    step, held = int(sys.argv[2]), []
    for i in range(mib // step):
        held.append(bytearray(b'\1') * (step << 20))
        print("at %.6f" % time.monotonic(), flush=True)
else:
    t0 = time.monotonic()
    b = bytearray(b'\1') * (mib << 20)
    print("ready %.3f" % (time.monotonic() - t0), flush=True)
time.sleep(3600)
