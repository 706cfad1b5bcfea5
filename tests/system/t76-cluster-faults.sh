#!/bin/bash
# t76-cluster-faults.sh - faults on a real 3-host PVM virtual machine in
# static mode, driven by dts-console on h0 (tests/system/cluster.sh).
#
# Set-up: every host runs its dts service; dts-console on h0 starts the
# master pvmd through the launcher (no host file), which h0's dts adopts;
# `add h1 h2` at the console starts their pvmd through the launcher
# (console.launcher), each adopted by its own host's dts.  One spin task
# on every host.  The gang of a host is its gang cgroup (frozen in LS).
#
#  1. The console (--daemon) is killed with SIGKILL: past its silence
#     (2 s) every node goes back to the schedule of its own config (the
#     dead-man switch: IP 100 ms, PS 50%) and goes on slicing (slices keep
#     growing, the gang keeps being stopped and continued); status says
#     the nodes are on their own schedule.  A new console takes over: its
#     PS reaches every host.
#  2. h1's dts is killed with SIGKILL while its gang is stopped (IP 1s,
#     PS 30%): the gang runs again within 100 ms (gangwatch, inside h1),
#     dts-load is gone, pvmd and the task are no longer real-time and are
#     never stopped again; pvmd lives on.  The VM goes on: conf still
#     lists every host, and master1 (pvm-examples) completes across all
#     three (h1's pvmd without dts).  Then a new dts on h1 takes over the
#     populated gang: it counts pvmd and the task, slices them again
#     (real time in PS, stopped in LS) and takes the console's schedule.
#  3. `delete h2` at the console: h2's pvmd and task exit and its gang is
#     empty; h2's dts (the service) keeps running, with its dts-load, and
#     answers STATUS with members=0; nothing is left stopped or real-time
#     there.  `add h2`: the same dts adopts the new pvmd, which slices and
#     takes the schedule of the console.
#  4. `halt` at the console: every pvmd exits and every gang is empty;
#     every dts keeps running and answers STATUS with members=0; nothing is
#     left stopped or real-time in any host's namespace.  SIGTERM to every
#     dts: each releases its (empty) gang and exits 0.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t76-cluster-faults

t_need_built console/dts-console
t_need_built tests/tools/gangwatch
t_need master1 pvm-examples
[ -x /usr/bin/slave1 ] || t_fail "needs /usr/bin/slave1: quickstart installs it (apt-get install pvm-examples)"

LIMIT_US=100000
LATE_FAIL=
SPIN=$BUILD/tests/pvm/spin
T0=$(_t_now_us)
# seconds since the start of the test

# Every dts starts from this (the consoles below set their own schedule);
# a node whose console has been silent for 2 s (two SIs) calls itself
# unsynchronized.
C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "50%"; si = "2s"; silence = "2s";'
c_up 3 --no-pvm
c_ft_write_conf || t_fail "cannot write the console's configuration"
# master1 spawns slave1 by name: put it where PVM looks by default (a VM
# the console builds has no host file, so no ep=)
arch=$(/usr/lib/pvm3/lib/pvmgetarch 2>/dev/null) || arch=LINUX64
for h in "${C_HOSTS[@]}"; do
	mkdir -p "$T_DIR/$h/home/pvm3/bin/$arch" &&
	    ln -s /usr/bin/slave1 "$T_DIR/$h/home/pvm3/bin/$arch/slave1" ||
	    t_fail "cannot link slave1 for $h"
done

# ---- the VM, built by the console -----------------------------------------
c_ft_con -c "conf; add h1 h2; conf" || t_fail "console conf/add: $C_FT_OUT $C_FT_ERR"
grep -q "started the master pvmd through $C_LAUNCHER" <<< "$C_FT_ERR" ||
    t_fail "the console did not start the master: $C_FT_ERR"
for h in h1 h2; do
	grep -qx "$h: added" <<< "$C_FT_OUT" || t_fail "add $h: $C_FT_OUT"
done
grep -q "^3 hosts" <<< "$C_FT_OUT" || t_fail "conf after add: $C_FT_OUT"
c_wait_hosts 3 30 || t_fail "the VM does not have 3 hosts"
for k in 0 1 2; do
	c_pvmd_pid h$k > /dev/null || t_fail "h$k: no pvmd in its gang"
	# PVM ran the launcher on every host: each host's own dts (with its
	# own file) adopted the pvmd there
	grep -q "h$k/dts.conf" "/proc/$(c_dts_pid h$k)/cmdline" ||
	    t_fail "h$k: dts does not run with h$k's dts.conf"
	[ "$(grep -c "adopted pid .* into $(c_gang_dir h$k): pvmd" "$T_LOG/dts-h$k.log")" = 1 ] ||
	    t_fail "h$k: its dts did not adopt one pvmd: $(grep adopt "$T_LOG/dts-h$k.log")"
done
c_ft_con -c "spawn -w h0 $SPIN 0; spawn -w h1 $SPIN 0; spawn -w h2 $SPIN 0" ||
    t_fail "spawn: $C_FT_OUT $C_FT_ERR"
# Three hosts share this machine's CPUs: the spins (real time in every PS)
# go to the last CPU, so the test can watch the gangs during PS too
cpu=$(($(nproc) - 1))
declare -a SP
for k in 0 1 2; do
	t_wait_for 10 eval '[ -n "$(c_gang_pids h$k spin)" ]' || t_fail "h$k: no spin in its gang"
	SP[k]=$(c_gang_pids h$k spin | head -n 1)
	[ "$cpu" = 0 ] || taskset -a -p -c "$cpu" "${SP[k]}" > /dev/null ||
	    t_fail "taskset of spin ${SP[k]}"
done
t_log "VM of 3 hosts built by the console, a spin on each: $(t_secs "$T0") s"

# st K FIELD=VALUE...: K's STATUS has every FIELD=VALUE
st() {
	local out kv k=$1
	shift
	out=$(c_status "$k") || return 1
	for kv in "$@"; do grep -qx "$kv" <<< "$out" || return 1; done
}
# every_host FIELD=VALUE...: st on h0 h1 h2, each within 5 s
every_host() {
	local k
	for k in 0 1 2; do
		t_wait_for 5 st h$k "$@" ||
		    t_fail "h$k: want $*, STATUS: $(c_status h$k | paste -sd' ')"
	done
}
# stops_and_runs SECS K:PID...: each PID (in host K's gang) is seen both
# stopped and running within SECS (the gang is really sliced)
stops_and_runs() {
	local rc
	# the polls on CPU 0, away from the spins: on their CPU this shell
	# runs only when every gang is in LS, and sees each one stopped (CI
	# beside stress-ng: h1 never seen running)
	[ "$cpu" = 0 ] || taskset -p -c 0 $$ > /dev/null
	_stops_and_runs "$@"
	rc=$?
	[ "$cpu" = 0 ] || taskset -p -c "0-$cpu" $$ > /dev/null
	return "$rc"
}
_stops_and_runs() {
	local secs=$1 i kp
	shift
	local -A seen_t seen_r cpu0
	# running: seen running, or its CPU time grew (three spins share one
	# CPU and their own schedules after the console died, so one may get
	# little of its PS); stopped: seen stopped (or frozen)
	for kp in "$@"; do cpu0[$kp]=$(t_cpu_ns "${kp#*:}"); done
	for ((i = 0; i < secs * 100; i++)); do
		for kp in "$@"; do
			[ -e "/proc/${kp#*:}/stat" ] || return 1
			if c_is_stopped "${kp%%:*}" "${kp#*:}"; then
				seen_t[$kp]=1
			else
				seen_r[$kp]=1
			fi
		done
		sleep 0.01
	done
	for kp in "$@"; do
		[ -n "${seen_t[$kp]:-}" ] ||
		    { t_log "host ${kp%%:*}: pid ${kp#*:} never seen stopped"; return 1; }
		[ -n "${seen_r[$kp]:-}" ] ||
		    [ "$(t_cpu_ns "${kp#*:}")" -gt "$((cpu0[$kp] + 20000000))" ] ||
		    { t_log "host ${kp%%:*}: pid ${kp#*:} never seen running, ran $((($(t_cpu_ns "${kp#*:}") - cpu0[$kp]) / 1000000)) ms in $secs s"; return 1; }
	done
}

# ---- 1. the console is killed; a new one takes over -------------------------
c_ft_con_daemon "mode static; ip 1s; ps 20%; si 1s; start" ||
    t_fail "console --daemon: $C_FT_OUT $C_FT_ERR"
con1=$C_FT_CON_PID
every_host mode=static active=1 ps_us=200000 ip_us=1000000
t_log "console $con1 (--daemon) drives IP 1s PS 20%: $(t_secs "$T0") s"
declare -a S0
for k in 0 1 2; do S0[k]=$(c_status h$k slices); done
kill -KILL "$con1"
t_wait_for 5 eval '! _t_alive "$con1"' || t_fail "the console $con1 survived kill -9"
t_untrack "$con1"
# longer than the nodes' silence (2 s, two SIs)
t_sleep 3.5
# the dead-man switch fired: every node says it is on its own schedule
c_ft_con -n -c "status -v" || t_fail "status -v: $C_FT_ERR"
n=$(grep -c "on its own configured schedule (no command from a console within its silence)" <<< "$C_FT_OUT")
if [ "$n" != 3 ]; then	# reported at the end: the rest still runs
	LATE_FAIL="$n of 3 nodes said they were back on their own schedule 3.5 s after the console died (silence 2 s): $(paste -sd'|' <<< "$C_FT_OUT")"
	t_log "FAILED (reported at the end): $LATE_FAIL"
fi
grep -q "^3 nodes answered" <<< "$C_FT_OUT" || t_fail "status -v: $C_FT_OUT"
for k in 0 1 2; do
	s=$(c_status h$k slices)
	[ "$s" -ge $((S0[k] + 2)) ] ||
	    t_fail "h$k: slices went ${S0[k]} -> $s in 3 s without a console"
	# the dead-man switch: back to the schedule of its own config
	st h$k mode=static active=1 ps_us=50000 ip_us=100000 ||
	    t_fail "h$k: not back on its configured schedule without a console: $(c_status h$k | paste -sd' ')"
done
stops_and_runs 3 "0:${SP[0]}" "1:${SP[1]}" "2:${SP[2]}" ||
    t_fail "a gang is no longer sliced without a console"
t_log "console killed: slices ${S0[*]} -> $(for k in 0 1 2; do c_status h$k slices; done | paste -sd' ') 3 s later"
# a new console takes over
c_ft_con_daemon "mode static; ip 1s; ps 30%; si 1s; start" ||
    t_fail "second console --daemon: $C_FT_OUT $C_FT_ERR"
con2=$C_FT_CON_PID
every_host mode=static active=1 ps_us=300000 ip_us=1000000
c_ft_con -n -c "status -v" || t_fail "status -v: $C_FT_ERR"
grep -q "^3 nodes answered" <<< "$C_FT_OUT" || t_fail "status -v: $C_FT_OUT"
[ "$(grep -c "following a console" <<< "$C_FT_OUT")" = 3 ] ||
    t_fail "not every node is synchronized by the new console: $C_FT_OUT"
t_log "1. console killed and replaced: $(t_secs "$T0") s"

# ---- 2. h1's dts killed -9 in LS --------------------------------------------
d1=$(c_dts_pid h1) || t_fail "h1: no dts"
a1=$(c_agent_pid h1) || t_fail "h1: no dts-load"
p1=$(c_pvmd_pid h1) || t_fail "h1: no pvmd"
g1=$(c_gang_dir h1)
sp=${SP[1]}
is_t() { c_is_stopped h1 "$1"; }
not_t() { [ -e "/proc/$1/stat" ] && ! c_is_stopped h1 "$1"; }
us=
for try in 1 2 3; do
	# right after the gang stopped: most of the 700 ms LS is still ahead
	t_wait_for 3 not_t "$sp" && t_wait_for 3 is_t "$sp" ||
	    t_fail "h1: the gang is not sliced (spin $sp state $(t_proc_state "$sp"), $(paste -sd' ' "$g1/cgroup.events"))"
	out=$(c_exec h1 gangwatch -k "$d1" -c "$g1" -t 2000 "$sp")
	case $? in
	0) us=${out#resumed_us=}; break ;;
	3) t_log "h1: LS was over before gangwatch looked (try $try)" ;;
	*) t_fail "h1: gang still stopped 2 s after kill -9 of dts $d1: $out" ;;
	esac
done
[ -n "$us" ] || t_fail "h1: could not catch the gang stopped"
t_log "h1: dts killed -9 in LS, gang resumed after $us us (limit $LIMIT_US)"
[ "$us" -lt "$LIMIT_US" ] || t_fail "h1: gang resumed only after $us us"
t_wait_for 3 eval '! _t_alive "$d1"' || t_fail "h1: dts $d1 survived kill -9"
wait "$d1" 2> /dev/null	# our child (c_up started it)
t_untrack "$d1"
t_wait_for 3 eval '! _t_alive "$a1"' || t_fail "h1: dts-load $a1 did not end after the release"
t_logged "dts-load\[$a1\] .*released" "$T_LOG/dts-h1.log" ||
    t_fail "h1: dts-load $a1 did not log the release of the gang"
_t_alive "$p1" || t_fail "h1: pvmd $p1 died with its dts"
_t_alive "$sp" || t_fail "h1: the task $sp died with dts"
normal() { local p; for p; do case $(t_policy "$p") in FF | RR | '') return 1 ;; esac; done; }
t_wait_for 2 normal "$p1" "$sp" ||
    t_fail "h1: still real-time: pvmd $(t_policy "$p1"), spin $(t_policy "$sp")"
for _ in $(seq 50); do	# 1 s: more than the LS it would be stopped in
	is_t "$sp" && t_fail "h1: the task was stopped again without dts"
	sleep 0.02
done
left=$(c_ft_leftovers h1)
[ -z "$left" ] || t_fail "h1: stopped, frozen or real-time after dts died: $left"
[ "$(c_ft_daemons h1)" = "pvmd:$p1" ] || t_fail "h1: daemons left: $(c_ft_daemons h1)"
# the VM goes on
conf=$(c_pvm h0 -T 20 conf) || t_fail "dts-pvmctl conf failed"
[ "$(awk '{ print $1 }' <<< "$conf" | sort | paste -sd' ')" = "h0 h1 h2" ] ||
    t_fail "conf does not list h0 h1 h2 any more: $(paste -sd';' <<< "$conf")"
t1=$(_t_now_us)
c_master1 ""
t_log "master1 across h0 h1 h2 (h1 without dts): $(awk -v d="$(($(_t_now_us) - t1))" 'BEGIN { printf "%.1f", d / 1e6 }') s"
# a new dts on h1 takes over the gang that is still there
c_start_dts h1
n1=$(c_dts_pid h1) || t_fail "h1: no new dts"
t_logged "dts\[$n1\] .*taking over the gang in $g1" "$T_LOG/dts-h1.log" ||
    t_fail "h1: the new dts $n1 did not take over the gang: $(grep "dts\[$n1\]" "$T_LOG/dts-h1.log" | head -n 5)"
m=$(c_status h1 members) || t_fail "h1: the new dts does not answer"
[ "$m" -ge 2 ] && [ "$m" = "$(c_gang_pids h1 | wc -l)" ] ||
    t_fail "h1: the new dts counts $m members, the gang has $(c_gang_pids h1 | paste -sd' ')"
t_wait_for 5 st h1 mode=static active=1 ps_us=300000 ip_us=1000000 ||
    t_fail "h1: the new dts did not take the console's schedule: $(c_status h1 | paste -sd' ')"
stops_and_runs 3 "1:$sp" || t_fail "h1: the new dts does not slice the gang it took over"
rt() { [ "$(t_policy "$1")" = RR ]; }
t_wait_for 3 rt "$sp" && t_wait_for 3 rt "$p1" ||
    t_fail "h1: the gang the new dts took over is not real-time in PS: pvmd $(t_policy "$p1"), spin $(t_policy "$sp")"
t_log "2. dts killed on h1, a new one ($n1) took over its gang: $(t_secs "$T0") s"

# ---- 3. h2 deleted and added again -----------------------------------------
d2=$(c_dts_pid h2) || t_fail "h2: no dts"
a2=$(c_agent_pid h2) || t_fail "h2: no dts-load"
c_ft_con -c "delete h2" || t_fail "delete h2: $C_FT_OUT $C_FT_ERR"
grep -qx "h2: deleted" <<< "$C_FT_OUT" || t_fail "delete h2: $C_FT_OUT"
gang_empty() { [ -z "$(c_gang_pids "$1")" ]; }
t_wait_for 15 gang_empty h2 ||
    t_fail "h2: gang not empty after delete: $(for p in $(c_gang_pids h2); do printf '%s:%s ' "$p" "$(_c_comm "$p")"; done)"
sorted() { tr ' ' '\n' | LC_ALL=C sort | paste -sd' '; }
[ "$(c_ft_daemons h2 | sorted)" = "$(echo "dts:$d2 dts-load:$a2" | sorted)" ] ||
    t_fail "h2: after delete, want only its service (dts:$d2 dts-load:$a2), have: $(c_ft_daemons h2)"
t_wait_for 3 st h2 name=h2 members=0 ||
    t_fail "h2: dts does not answer members=0 after delete: $(c_status h2 | paste -sd' ')"
left=$(c_ft_leftovers h2)
[ -z "$left" ] || t_fail "h2: stopped, frozen or real-time after delete: $left"
sp=${SP[2]}
t_wait_for 5 eval '! _t_alive "$sp"' ||
    t_fail "h2: the task $sp outlived its pvmd (state $(t_proc_state "$sp"), $(t_policy "$sp"))"
conf=$(c_pvm h0 -T 20 conf) || t_fail "dts-pvmctl conf failed"
[ "$(awk '{ print $1 }' <<< "$conf" | sort | paste -sd' ')" = "h0 h1" ] ||
    t_fail "conf after delete h2: $(paste -sd';' <<< "$conf")"
c_ft_con -c "add h2" || t_fail "add h2: $C_FT_OUT $C_FT_ERR"
grep -qx "h2: added" <<< "$C_FT_OUT" || t_fail "add h2: $C_FT_OUT"
c_wait_hosts 3 30 || t_fail "h2 did not come back"
t_wait_for 10 c_pvmd_pid h2 > /dev/null || t_fail "h2: no pvmd in its gang after add"
[ "$(c_dts_pid h2)" = "$d2" ] || t_fail "h2: dts $d2 was replaced by $(c_dts_pid h2)"
pvmd_adoptions() { [ "$(grep -c "dts\[$d2\] .*adopted pid .*: pvmd" "$T_LOG/dts-h2.log")" = "$1" ]; }
t_wait_for 5 pvmd_adoptions 2 ||
    t_fail "h2: dts $d2 did not adopt the new pvmd (want 2 pvmd adoptions in its log): $(grep "dts\[$d2\] .*\(adopt\|join\|refus\)" "$T_LOG/dts-h2.log" | cut -c25- | paste -sd';')"
st h2 name=h2 || t_fail "h2: dts does not answer"
s=$(c_status h2 slices)
# the console's next SI broadcast gives it the console's schedule (it
# kept the last one anyway)
t_wait_for 5 st h2 mode=static active=1 ps_us=300000 ip_us=1000000 ||
    t_fail "h2: dts did not take the console's schedule: $(c_status h2 | paste -sd' ')"
t_wait_for 5 eval '[ "$(c_status h2 slices)" -ge $((s + 2)) ]' ||
    t_fail "h2: dts does not slice (slices $s -> $(c_status h2 slices))"
p2=$(c_pvmd_pid h2)
stops_and_runs 3 "2:$p2" || t_fail "h2: the new pvmd is not sliced"
t_log "3. h2 deleted (gang empty, dts $d2 kept) and added (adopted by dts $d2): $(t_secs "$T0") s"

# ---- 4. halt ------------------------------------------------------------------
declare -a D
for k in 0 1 2; do D[k]=$(c_dts_pid h$k) || t_fail "h$k: no dts"; done
c_ft_con -c "halt" || t_fail "halt: $C_FT_OUT $C_FT_ERR"
grep -q "^halted the virtual machine" <<< "$C_FT_OUT" || t_fail "halt: $C_FT_OUT"
no_pvmd() {
	local k
	for k in 0 1 2; do
		gang_empty h$k || return 1
		case " $(c_ft_daemons h$k) " in *" pvmd:"*) return 1 ;; esac
	done
}
t_wait_for 15 no_pvmd ||
    t_fail "still running after halt: $(for k in 0 1 2; do echo "h$k: $(c_ft_daemons h$k) gang: $(c_gang_pids h$k | paste -sd' ')"; done | paste -sd' ')"
for k in 0 1 2; do
	[ "$(c_dts_pid h$k)" = "${D[k]}" ] || t_fail "h$k: dts ${D[k]} did not survive the halt"
	c_agent_pid h$k > /dev/null || t_fail "h$k: no dts-load after the halt"
	st h$k name=h$k members=0 ||
	    t_fail "h$k: after the halt, STATUS: $(c_status h$k | paste -sd' ')"
	left=$(c_ft_leftovers h$k)
	[ -z "$left" ] || t_fail "h$k: stopped, frozen or real-time after halt: $left"
done
t_log "halted: every gang empty, every dts (${D[*]}) still answers with members=0"
for k in 0 1 2; do
	c_stop_dts h$k || t_fail "h$k: dts ${D[k]} did not end on SIGTERM"
	[ "$C_DTS_RC" = 0 ] || t_fail "h$k: dts ${D[k]} exited with status '$C_DTS_RC' on SIGTERM"
	t_logged "dts\[${D[k]}\] .*gang released; exiting" "$T_LOG/dts-h$k.log" ||
	    t_fail "h$k: dts ${D[k]} did not log that it released its gang and exited"
	[ -z "$(c_ft_daemons h$k)" ] || t_fail "h$k: left after SIGTERM to dts: $(c_ft_daemons h$k)"
done
# (pvmd's SIGTERM to its tasks should not end the console daemon, but
# it does when pvmd is gone before the console looks at the sender)
if _t_alive "$con2"; then
	kill -TERM "$con2"
	t_wait_for 5 eval '! _t_alive "$con2"' || t_fail "the console daemon did not end on SIGTERM"
else
	t_log "NOTE: the console daemon ended with the halt (pvmd's SIGTERM)"
fi
t_log "4. halted: $(t_secs "$T0") s"
[ -z "$LATE_FAIL" ] || t_fail "$LATE_FAIL"
t_pass
