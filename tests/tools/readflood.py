# readflood.py CONF PORT [-n N] [-a AHEAD_S] [-g GAP_S] [-s SECONDS] [-x STOP]
# A flood of read requests (STATUS_REQ under the read key of CONF's first
# console key) to a node's control port on 127.0.0.1, each from its own
# sender: N of them (-n), or for SECONDS (-s) or till the file STOP is
# there (-x); each stamped AHEAD_S seconds ahead (-a, default 0), one
# every GAP_S (-g, default 0.002: ~500 a second; 0: as fast as python
# sends).  Prints the replies (STATUS) it got and the milliseconds it spent
# sending.  t104 (the master not evicted, the token bucket), t113 (dts
# beside a job of thousands of members).
import argparse, hashlib, hmac, os, re, socket, struct, time

ap = argparse.ArgumentParser()
ap.add_argument("conf")
ap.add_argument("port", type=int)
ap.add_argument("-n", type=int, default=0)
ap.add_argument("-a", type=float, default=0.0)
ap.add_argument("-g", type=float, default=0.002)
ap.add_argument("-s", type=float, default=0.0)
ap.add_argument("-x", default=None)
o = ap.parse_args()
if o.n <= 0 and o.s <= 0:
    ap.error("give -n N or -s SECONDS")
pub = bytes.fromhex(re.search(r'console_keys\s*=\s*\[\s*"([0-9a-f]{64})"',
                              open(o.conf).read()).group(1))
rk = hashlib.blake2b(b"dts read v5", digest_size=32, key=pub).digest()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setblocking(False)
got = 0


def drain():
    global got
    while True:
        try:
            if s.recv(2048)[5] == 3:
                got += 1
        except BlockingIOError:
            return


t0 = time.time()
end = t0 + o.s if o.s > 0 else None
i = 0
while (o.n <= 0 or i < o.n) and (end is None or time.time() < end) and \
        not (o.x and os.path.exists(o.x)):
    i += 1
    seq = int((time.time() + o.a) * 1e6)
    sender = struct.unpack("I", os.urandom(4))[0]
    msg = struct.pack(">IBBHIIQ", 0x44545331, 6, 2, 424, sender, 0xffffffff,
                      seq) + bytes(424)
    s.sendto(msg + hmac.new(rk, msg, hashlib.sha256).digest() + bytes(32),
             ("127.0.0.1", o.port))
    drain()
    if o.g > 0:
        time.sleep(o.g)
sent_ms = int((time.time() - t0) * 1000)
t = time.time() + 1
while time.time() < t:
    drain()
    time.sleep(0.01)
print(got, sent_ms)
