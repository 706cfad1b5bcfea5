#!/usr/bin/env python3
# schedsniff.py PORT OUT: every SCHEDULE (DTS1, type 1) to PORT, with its
# flags and slot table (doc/protocol.txt), one line each, into OUT:
# "REALTIME flags=F nslots=N JOB@START_US+LEN_US ... [held=JOB,...]"
# (held=: the held jobs after the slots, only if there are any; tests/system/
# cluster.sh's c_sched_watch; t114 counts the SYNCs by the flags)
import socket, struct, sys, time
port = int(sys.argv[1])
out = open(sys.argv[2], "a", buffering=1)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(0x0800))
while True:
    pkt, addr = s.recvfrom(65535)
    t = time.time()
    if addr[2] == socket.PACKET_OUTGOING:
        continue
    ip = pkt[14:]
    if len(ip) < 20 or ip[9] != 17:
        continue
    udp = ip[(ip[0] & 15) * 4:]
    if len(udp) < 8 or struct.unpack("!H", udp[2:4])[0] != port:
        continue
    d = udp[8:]
    if len(d) < 24 + 32 or d[:4] != b"DTS1" or d[5] != 1:
        continue
    p = d[24:]
    n = p[24]
    slots = []
    for i in range(min(n, 8)):
        o = 32 + 40 * i
        name = p[o:o + 32].split(b"\0")[0].decode("ascii", "replace")
        st, ln = struct.unpack("!II", p[o + 32:o + 40])
        slots.append("%s@%d+%d" % (name, st, ln))
    held = []
    for i in range(min(n, 8), min(n + p[25], 8)):   # held jobs (nheld)
        o = 32 + 40 * i
        held.append(p[o:o + 32].split(b"\0")[0].decode("ascii", "replace"))
    out.write("%.6f flags=%d nslots=%d %s%s\n" % (t, p[2], n, " ".join(slots),
              " held=" + ",".join(held) if held else ""))
