#!/bin/bash
# A schedule that lasts, set from a script (issue 24: the operator who
# turns DTS off for the night from cron gets what they asked for).
#
#  1. A console run with -c that leaves the nodes "off" says that they
#     follow it only for their silence (1 s here), then their dts.conf's
#     schedule, and that is what the node does: back on static 80 % within
#     the silence plus a second.  So does `stop` (the nodes slice again).
#  2. The way that lasts, as dts-console(1) EXAMPLES gives it for cron:
#     the day master (--daemon, static 60 %) is ended, a night master
#     (--daemon -c "mode off; start") takes its place, and the node stays
#     off for three silences and more; its dead-man switch does not fire.
#     In the morning the night master is killed by the pid it printed and
#     the day master started again: the node follows static 60 % again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup lasting

CON=$BUILD/console/dts-console
t_need_built "$CON"
[ "$(id -u)" = 0 ] || t_skip "needs root: dts is a root service"

# one file for the node and its consoles: SI 500 ms, silence 1 s (the
# first n_conf names the keys)
n_conf
n_conf mode='"static"' ip='"100ms"' ps='"80%"' si='"500ms"' silence='"1s"' \
    console="{ nodes = [\"127.0.0.1\"]; history = \"\"; status_wait = \"300ms\"; sign_key = \"$N_SIGN\"; node_secret = \"$N_SECRET\"; }"
n_start_dts
OUT=$T_DIR/out
ERR=$T_DIR/err
con() {	# con ARGS...: one console without PVM; $OUT, $ERR, status $RC
	"$CON" -n -f "$N_CONF" "$@" > "$OUT" 2> "$ERR" < /dev/null
	RC=$?
	{ echo "\$ dts-console -n $*"; cat "$OUT" "$ERR"; } >> "$T_LOG/console.log"
}
on_config() { [ "$(n_status mode)" = static ] && [ "$(n_status own)" = 1 ] &&
    [ "$(n_status ps_us)" = 80000 ]; }
deadmen() { grep -c "no command from console .* back to the configured schedule" "$T_LOG/dts.log"; }
t_wait_for 5 on_config || t_fail "not on the configured schedule at start: $(n_status | paste -sd' ')"

# ---- 1. a console that goes: what it says is what the node does --------
con -c "mode off; start"
[ "$RC" = 0 ] || t_fail "mode off; start: status $RC: $(cat "$ERR")"
grep -qF "dts-console: the nodes follow this schedule (off) for their silence (1s by this dts.conf), then go back to the schedule of their own dts.conf" "$ERR" ||
	t_fail "no true goodbye after mode off: $(cat "$ERR")"
grep -qF "dts-console --daemon" "$ERR" || t_fail "the goodbye does not name the way that lasts: $(cat "$ERR")"
[ "$(n_status mode)" = off ] && [ "$(n_status own)" = 0 ] ||
	t_fail "the node did not follow mode off: $(n_status | paste -sd' ')"
t_wait_for 4 on_config || t_fail "off outlived the silence by 3 s: $(n_status | paste -sd' ')"
t_logged "no command from console .* back to the configured schedule" ||
	t_fail "dts did not log the dead-man"
t_log "-c \"mode off; start\": back on static 80 % after the silence, as the console said"

con -c "stop"
[ "$RC" = 0 ] || t_fail "stop: status $RC: $(cat "$ERR")"
grep -qF "the nodes stay stopped (gangs released) for their silence (1s by this dts.conf)" "$ERR" ||
	t_fail "no true goodbye after stop: $(cat "$ERR")"
[ "$(n_status active)" = 0 ] || t_fail "stop: the node still slices"
t_wait_for 4 on_config || t_fail "stop outlived the silence by 3 s: $(n_status | paste -sd' ')"
slicing() { [ "$(n_status active)" = 1 ]; }
t_wait_for 2 slicing ||
	t_fail "not slicing again after the silence"

# ---- 2. the cron way: a master that stays ------------------------------
PIDF=$T_DIR/dts-console.pid
# daemon NAME CMDS: dts-console --daemon, its pid into $PIDF.NAME (the
# pipeline of dts-console(1) EXAMPLES)
daemon() {
	"$CON" -n -f "$N_CONF" --daemon -c "$2" 2> "$ERR" < /dev/null |
	    sed -n 's/^dts-console: running in the background, pid //p' > "$PIDF.$1"
	[ -s "$PIDF.$1" ] || t_fail "--daemon $2: no pid: $(cat "$ERR")"
	t_track "$(cat "$PIDF.$1")"
}
undaemon() {	# undaemon NAME: kill it by its pid, wait for it
	local pid
	pid=$(cat "$PIDF.$1")
	kill -TERM "$pid" || t_fail "$1 master $pid is gone"
	t_wait_for 5 sh -c "! kill -0 $pid 2>/dev/null" || t_fail "$1 master did not end on SIGTERM"
	t_untrack "$pid"
}
day() { [ "$(n_status mode)" = static ] && [ "$(n_status own)" = 0 ] &&
    [ "$(n_status ps_us)" = 60000 ]; }
night() { [ "$(n_status mode)" = off ] && [ "$(n_status own)" = 0 ]; }

daemon day "mode static; ps 60%; start"
t_wait_for 3 day || t_fail "the day master is not followed: $(n_status | paste -sd' ')"

# evening: the day master ends, the night master begins
undaemon day
daemon night "mode off; start"
t_wait_for 3 night || t_fail "the night master is not followed: $(n_status | paste -sd' ')"
d0=$(deadmen)
for i in 1 2 3 4 5 6 7; do	# 3.5 s: three silences and more
	t_sleep 0.5
	night || t_fail "the night ended after $i x 0.5 s: $(n_status | paste -sd' ')"
done
[ "$(deadmen)" = "$d0" ] || t_fail "the dead-man switch fired during the night"
t_log "--daemon \"mode off; start\": still off after 3.5 s (silence 1 s), no dead-man"

# morning: the night master ends, the day master begins again
undaemon night
daemon day "mode static; ps 60%; start"
t_wait_for 3 day || t_fail "the day master is not followed in the morning: $(n_status | paste -sd' ')"
undaemon day

t_pass
