# ask.py SOCK OUT REQ: one request on dts's adoption socket (SOCK_SEQPACKET),
# its one-line reply written into OUT.  Run as the user whose request it
# is (t100, t103): the socket learns the asker from its credentials.
import socket
import sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(5)
s.connect(sys.argv[1])
s.send(sys.argv[3].encode())
with open(sys.argv[2], "w") as f:
    f.write(s.recv(512).decode())
