#!/bin/bash
# The dead-man switch: a console that stops speaking must not leave the
# node in its last mode.  A console (sendgram) puts the node in HPDT with
# SI 500 ms and then falls silent: within silence (0 = 3 SI = 1.5 s) plus
# one second the node is back on its configured schedule (static, 50 % of
# 100 ms), says so in STATUS (own=1) and in its log, and the gang is no
# longer at real-time priority without pause.  A console that speaks again
# is followed again.  With silence set in dts.conf, that value counts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup deadman
n_split_cpus

n_conf mode='"static"' ip='"100ms"' ps='"50%"'
n_start
n_spawn_spin
t_wait_for 5 n_phase_is LS || t_fail "not slicing on the configured schedule"
[ "$(n_status own)" = 1 ] || t_fail "STATUS does not say own schedule at start"

# a console: HPDT, SI 500 ms; then silence
n_send -S 500000 schedule hpdt 50000 100000 > /dev/null || t_fail "schedule refused"
[ "$(n_status mode)" = hpdt ] || t_fail "node not in hpdt"
[ "$(n_status own)" = 0 ] || t_fail "STATUS says own schedule while a console commands"
[ "$(t_policy "$N_SPIN")" = RR ] || t_fail "HPDT gang not at RT: $(t_policy "$N_SPIN")"

on_config() { [ "$(n_status mode)" = static ] && [ "$(n_status own)" = 1 ]; }
t_wait_for 4 on_config || t_fail "still $(n_status mode) 4 s after the console fell silent"
# from dts's own log: when the command came, when the dead-man fired (the
# test's clock reads can be late by a PS on a busy machine)
log_ms() {	# log_ms PATTERN: ms since the epoch of the last line matching
	local ts
	t_logged "$1" || return 1
	ts=$(grep "$1" "$T_LOG/dts.log" | tail -n 1 | cut -d' ' -f1)
	[ -n "$ts" ] && date -d "$ts" +%s%3N
}
t0=$(log_ms "info: schedule: mode hpdt") || t_fail "no log of the hpdt schedule"
t1=$(log_ms "no command from console .* back to the configured schedule") ||
	t_fail "dts did not log the dead-man"
ms=$((t1 - t0))
t_log "console silent: back on the configured schedule after $ms ms (silence 1.5 s)"
[ "$ms" -ge 1400 ] || t_fail "dead-man fired after $ms ms, before silence (1.5 s)"
[ "$ms" -le 2600 ] || t_fail "dead-man fired after $ms ms, later than silence + 1 s"
t_wait_for 2 n_phase_is LS || t_fail "not slicing after the dead-man"
t_wait_for 2 n_is_stopped "$N_SPIN" || t_fail "gang not stopped in LS after the dead-man"
t_logged "no command from console .* back to the configured schedule" ||
	t_fail "dts did not log the dead-man"

# the console speaks again: followed
n_send -S 500000 schedule static 80000 100000 > /dev/null || t_fail "schedule refused"
[ "$(n_status ps_us)" = 80000 ] && [ "$(n_status own)" = 0 ] ||
	t_fail "node does not follow the console again"
t_logged "console .* is now the master" || t_fail "no log of the console's return"

# silence from dts.conf: 3 s, whatever the SI
n_halt || t_fail "dts did not exit"
n_conf mode='"static"' ip='"100ms"' ps='"50%"' silence='"3s"'
n_start
n_send -S 100000 schedule hpdt 50000 100000 > /dev/null || t_fail "schedule refused"
sleep 2
[ "$(n_status mode)" = hpdt ] || t_fail "dead-man fired before the configured silence (3 s)"
t_wait_for 3 on_config || t_fail "configured silence: still $(n_status mode) after 5 s"
t_log "silence = 3s: still hpdt after 2 s, back on the configured schedule by 5 s"

n_halt || t_fail "dts did not exit after halt"
n_no_leftovers || t_fail "left over after halt"
t_pass
