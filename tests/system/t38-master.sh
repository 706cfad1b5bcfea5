#!/bin/bash
# One master per node.  Two consoles (sendgram from 127.0.0.1 and from
# 127.0.0.2, two console hosts) both hold the key.  The first to send a
# SCHEDULE becomes the node's master; the other's schedules are refused,
# counted (rejected: master) and answered with a STATUS that names the
# master and says "not yours".  A SCHEDULE with the TAKEOVER flag moves
# the node to the new console, and the old one is refused in turn.  When
# the master falls silent (dead-man switch), the node has no master and
# the next console is followed without a takeover.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup master

A=127.0.0.1
B=127.0.0.2
n_conf mode='"static"' ip='"100ms"' ps='"50%"'
n_start_dts
from() { local src=$1; shift; n_send -b "$src" "$@"; }
field() { sed -n "s/^$1=//p" <<< "$2"; }

out=$(n_status) || t_fail "no status"
[ "$(field master "$out")" = 0.0.0.0 ] || t_fail "a master before any console: $(field master "$out")"

# A speaks first: A is the master
out=$(from $A -S 500000 schedule static 60000 100000) || t_fail "A: no reply"
[ "$(field master "$out")" = $A ] && [ "$(field yours "$out")" = 1 ] &&
    [ "$(field ps_us "$out")" = 60000 ] || t_fail "A is not the master: $(paste -sd' ' <<< "$out")"

# B is refused, three times, and told who the master is
for i in 1 2 3; do
	out=$(from $B -S 500000 schedule static 20000 100000) || t_fail "B: no reply"
done
[ "$(field ps_us "$out")" = 60000 ] || t_fail "B's schedule was followed: ps_us $(field ps_us "$out")"
[ "$(field master "$out")" = $A ] && [ "$(field yours "$out")" = 0 ] ||
    t_fail "B not told that A is the master: $(paste -sd' ' <<< "$out")"
[ "$(field rej_master "$out")" = 3 ] || t_fail "refused schedules counted $(field rej_master "$out"), want 3"
# B's hpdt too: nothing of B reaches the scheduler
out=$(from $B -S 500000 schedule hpdt 20000 100000) || t_fail "B: no reply"
[ "$(field mode "$out")" = static ] || t_fail "B's hpdt was followed"
t_logged "schedule from console $B refused: console $A is the master" ||
    t_fail "the refusal is not logged"

# B takes over
out=$(from $B -T -S 500000 schedule static 20000 100000) || t_fail "B takeover: no reply"
[ "$(field master "$out")" = $B ] && [ "$(field yours "$out")" = 1 ] &&
    [ "$(field ps_us "$out")" = 20000 ] || t_fail "takeover failed: $(paste -sd' ' <<< "$out")"
t_logged "console $B takes over from console $A: it is now the master" ||
    t_fail "the takeover is not logged"
# now A is refused and learns it
out=$(from $A -S 500000 schedule static 60000 100000) || t_fail "A: no reply"
[ "$(field ps_us "$out")" = 20000 ] && [ "$(field yours "$out")" = 0 ] &&
    [ "$(field master "$out")" = $B ] || t_fail "old master A still obeyed: $(paste -sd' ' <<< "$out")"
# read-only requests of a non-master are answered
out=$(from $A status) || t_fail "A's status request not answered"
[ "$(field master "$out")" = $B ] || t_fail "status to A: master $(field master "$out")"

# B falls silent (SI 500 ms: silence 1.5 s): no master, A follows freely
nomaster() { [ "$(n_status master)" = 0.0.0.0 ] && [ "$(n_status own)" = 1 ]; }
t_wait_for 5 nomaster || t_fail "node still has master $(n_status master) after B's silence"
out=$(from $A -S 500000 schedule static 70000 100000) || t_fail "A: no reply"
[ "$(field master "$out")" = $A ] && [ "$(field ps_us "$out")" = 70000 ] ||
    t_fail "A not followed after B fell silent: $(paste -sd' ' <<< "$out")"
t_logged "console $A is now the master" || t_fail "the new master is not logged"
t_log "master A, B refused 3x (counted), B took over, A refused, B silent: A master again"

# A flood of forged commands (under the console key's id, so each one that
# gets a token costs a signature check) from A's own address, other ports:
# the master's commands, from its one port, are followed all the same (a
# socket of their own), and dts spends at most its intake budget on the rest
APORT=$((N_PORT + 2))
out=$(from $A -P $APORT -S 500000 schedule static 50000 100000) || t_fail "A: no reply"
[ "$(field ps_us "$out")" = 50000 ] || t_fail "A: $(paste -sd' ' <<< "$out")"
"$BUILD/tests/tools/flood" -a 127.0.0.1 -p "$N_PORT" -t 5 -i "${N_PUB:0:8}" \
    > "$T_LOG/flood.out" 2>&1 & t_track $!
flood=$!
t_sleep 0.5
k0=$(t_udp_drops "$N_PORT")
read -r u0 s0 < <(awk '{ print $14, $15 }' "/proc/$N_DTS/stat")
w0=$(_t_now_us)
ok=0
for ps in 60000 40000 60000 40000 60000 40000; do
	out=$(from $A -P $APORT -t 500 -S 500000 schedule static $ps 100000) &&
	    [ "$(field ps_us "$out")" = $ps ] && ok=$((ok + 1))
	t_sleep 0.3
done
read -r u1 s1 < <(awk '{ print $14, $15 }' "/proc/$N_DTS/stat")
w1=$(_t_now_us)
k1=$(t_udp_drops "$N_PORT")
wait "$flood"; t_untrack "$flood"
# dts's CPU (all threads) in % of one core over the window; CPU time, so
# other work on the machine does not raise it
pct=$(( (u1 + s1 - u0 - s0) * 100000000 / $(getconf CLK_TCK) / (w1 - w0) ))
t_log "flood: $(cat "$T_LOG/flood.out"); the kernel dropped $((k1 - k0)); $ok of 6 commands of the master followed; dts used $pct% of a core"
[ "$((k1 - k0))" -gt 1000 ] || t_fail "the flood did not fill dts's socket (dropped $((k1 - k0))): it tested nothing"
[ "$ok" = 6 ] || t_fail "only $ok of 6 commands of the master were followed during the flood"
# the budget is 3 %; before it, dts spent two thirds of a core on such a
# flood (docs/performance.md, bench-flood)
[ "$pct" -le 12 ] || t_fail "dts used $pct% of a core during the flood (its budget is 3%)"

# The master's port closes before the reply arrives (-n: no wait): the
# ICMP error lands on the master's socket, and dts must not spin on it
from $A -P $APORT -n -S 500000 schedule static 60000 100000 || t_fail "A: send failed"
t_sleep 0.5
read -r u0 s0 < <(awk '{ print $14, $15 }' "/proc/$N_DTS/stat")
t_sleep 2
read -r u1 s1 < <(awk '{ print $14, $15 }' "/proc/$N_DTS/stat")
ticks=$((u1 + s1 - u0 - s0))
t_log "dts after a refused reply to its master: $ticks ticks of CPU in 2 s"
[ "$ticks" -le $(( $(getconf CLK_TCK) / 5 )) ] ||
    t_fail "dts used $ticks ticks of CPU in 2 s after a refused reply (a busy loop?)"

n_halt || t_fail "dts did not exit after halt"
n_no_leftovers || t_fail "left over after halt"
t_pass
