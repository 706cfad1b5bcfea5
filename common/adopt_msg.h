/*
 * adopt_msg.h - the local adoption request: how a launcher (the PVM launch
 * script through dts-run, or dts-run -- CMD) asks the node's dts to take
 * the calling process into the gang before it execs the daemon.
 *
 * Unix socket, SOCK_SEQPACKET, one request and one reply, text:
 *
 *   request   "ADOPT pvmd"     adopt me; tell me which pvmd to exec
 *             "ADOPT run"      adopt me; I exec a command of my own
 *   reply     "OK <path>"      adopted; for pvmd, the real pvmd to exec
 *             "ERR <reason>"   not adopted, one line for the user
 *
 * dts learns who asks from SO_PEERCRED (pid, uid), never from the request.
 */
#ifndef DTS_ADOPT_MSG_H
#define DTS_ADOPT_MSG_H

#define ADOPT_SOCKET_DEFAULT "/run/dts/dts.sock"
#define ADOPT_SOCKET_ENV     "DTS_SOCKET"   /* dts-run: another socket */
#define ADOPT_MSG_MAX        512            /* request or reply, bytes */
#define ADOPT_REPLY_WAIT_MS  10000          /* dts-run gives up after this */

#endif /* DTS_ADOPT_MSG_H */
