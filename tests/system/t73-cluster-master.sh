#!/bin/bash
# t73-cluster-master.sh - a PVM master started from a shell joins its
# host's gang (dts(8), "Tasks started outside pvmd"), on a real 2-host VM
# of a test user (tests/system/cluster.sh) under STATIC:
#  1. The user's dts-console on h0 starts the master pvmd through the
#     launcher, adds h1 and starts STATIC (IP 100ms, PS 80%).  Each host's
#     gang holds its pvmd and the dts-pvmjoin dts-run started beside it:
#     the user's, at SCHED_RR.  The console, enrolled in h0's pvmd for a
#     second (trace), is left out of the gang.
#  2. From a shell on each host, as the user: a PVM task runs in its
#     host's gang within 2 IP of enrolling, at SCHED_RR (dts-pvmctl
#     joined; a busy machine is measured again); a CPU-bound one (spin) on
#     the slave host is seen stopped in LS.
#  3. pvm-examples' master1 from a shell on h0, its slave1 made to take 3
#     seconds (a wrapper that sleeps first, so that there is time to look):
#     master1 in h0's gang at SCHED_RR and seen stopped in LS, every slave
#     in its host's gang at SCHED_RR, every result right.
#  4. The user halts the VM: every gang empties (pvmd and dts-pvmjoin end).
#  5. A VM with PVM_VMID: a slave pvmd learns it from the master's
#     handshake only, and its dts-pvmjoin finds it all the same (a task
#     from a shell on h1 joins); halt empties the gangs again.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t73-cluster-master
for p in master1 slave1; do
	t_need "$p" pvm-examples
done
for p in console/dts-console run/dts-pvmjoin; do
	t_need_built "$p"
done

N=2
t_make_user
C_GANG_USER=$T_USER	# c_gang_*: the user's job USER:pvm on each host
t_pub_bin "$BUILD/run/dts-run" "$BUILD/run/dts-pvmjoin" "$BUILD/console/dts-console" \
    "$BUILD/tests/pvm/dts-pvmctl" "$BUILD/tests/pvm/spin" || t_fail "t_pub_bin"
C_RUN=$T_DIR/bin/dts-run C_PVMJOIN=$T_DIR/bin/dts-pvmjoin
c_up $N --no-pvm
# the console's keys: root's, readable by the console's user (as README says)
for f in "$C_SIGN" "$C_KEY"; do
	chgrp "$(id -g "$T_USER")" "$f" && chmod 640 "$f" || t_fail "key mode of $f"
done
conf=$T_DIR/console.conf
t_conf "$conf" port="$C_PORT" \
    console="{ launcher = \"$C_LAUNCHER\"; pvm_tmp = \"$T_DIR/h0/tmp\"; history = \"\"; sign_key = \"$C_SIGN\"; node_secret = \"$C_KEY\"; }"
U=(setpriv --reuid="$T_UID" --regid="$(id -g "$T_USER")" --init-groups
    --inh-caps=-all --bounding-set=-all -- env -u PVM_ALLOW_ROOT)
ucons() { c_exec h0 "${U[@]}" "$T_DIR/bin/dts-console" -f "$conf" -c "$1"; }

# ---- 1. the user's VM, STATIC ----------------------------------------------
ucons "add h1; mode static; ip 100ms; ps 80%; start" > "$T_LOG/console1.out" 2>&1 ||
    t_fail "dts-console as $T_USER: $(cat "$T_LOG/console1.out")"
grep -q "^started: mode static, PS 80ms of IP 100ms" "$T_LOG/console1.out" ||
    t_fail "console: $(cat "$T_LOG/console1.out")"
rr_users() {	# rr_users K PID...: each PID in K's gang, the user's, RR
	local k=$1 p
	shift
	for p in "$@"; do
		c_gang_pids "$k" | grep -qx "$p" || return 1
		[ "$(stat -c %u "/proc/$p")" = "$T_UID" ] || return 1
		[ "$(t_policy "$p")" = RR ] || return 1
	done
}
ready() {	# pvmd and dts-pvmjoin in K's gang, the user's, RR; slicing
	local p j
	p=$(c_pvmd_pid "$1") && j=$(c_gang_pids "$1" dts-pvmjoin) && [ -n "$j" ] &&
	    rr_users "$1" "$p" "$j" && [ "$(c_status "$1" mode)" = static ]
}
for ((k = 0; k < N; k++)); do
	t_wait_for 10 ready $k || t_fail "h$k: no pvmd and dts-pvmjoin of $T_USER at RR in the gang: \
$(for p in $(c_gang_pids $k); do echo -n "$p:$(_c_comm "$p"):$(stat -c %u "/proc/$p"):$(t_policy "$p") "; done)"
done
t_log "h0, h1: pvmd and dts-pvmjoin of $T_USER in each gang, RR, STATIC"

# the console stays enrolled for about a second (trace), and stays out
ucons "conf; trace $T_DIR/h0/tmp/trace.out 1s" > "$T_LOG/console2.out" 2>&1 ||
    t_fail "console trace: $(cat "$T_LOG/console2.out")"
grep "joined pid" "$T_LOG/dts-h0.log" | grep -q "(dts-console," &&
    t_fail "dts-console was taken into the gang: $(grep 'joined pid' "$T_LOG/dts-h0.log")"

# ---- 2. a task from a shell on each host ---------------------------------
for ((k = 0; k < N; k++)); do
	t_joined_fast "h$k" c_exec h$k "${U[@]}" "$T_DIR/bin/dts-pvmctl" -T 30 joined 10
done
c_bg h1 spin-h1 "${U[@]}" "$T_DIR/bin/spin" 60
spin=$C_BG_PID
in_gang() { c_gang_pids "$1" | grep -qx "$2"; }
t_wait_for 5 in_gang h1 "$spin" || t_fail "spin from a shell on h1 did not join h1's gang"
rr_users h1 "$spin" || t_fail "spin on h1: $(t_policy "$spin")"
seen_stopped() {	# seen_stopped K PID SECONDS: sampled stopped at least once
	local end=$(($(_t_now_us) + $(_t_secs_to_us "$3")))
	while [ "$(_t_now_us)" -lt "$end" ] && [ -e "/proc/$2" ]; do
		c_is_stopped "$1" "$2" && return 0
		sleep 0.003
	done
	return 1
}
# (a busy machine may keep this shell from looking in LS: 3 windows)
for try in 1 2 3; do
	seen_stopped h1 "$spin" 1.5 && break
	[ "$try" = 3 ] && t_fail "spin on h1 never seen stopped in 4.5 s (load $(cut -d' ' -f1-3 /proc/loadavg))"
done
kill "$spin"
t_wait_for 5 eval '! _c_alive "$spin"' || t_fail "spin did not end"

# ---- 3. master1 from a shell ----------------------------------------------
cat > "$T_DIR/bin/slave1" <<-'EOF'
	#!/bin/sh
	# slave1, 3 seconds late: time for the test to look at the tasks
	sleep 3
	exec /usr/bin/slave1 "$@"
EOF
chmod 755 "$T_DIR/bin/slave1"
c_sc_link_progs "$T_DIR/bin/slave1" || t_fail "cannot link slave1"
c_bg h0 master1 "${U[@]}" master1
master=$C_BG_PID
is_master() { [ "$(_c_comm "$master")" = master1 ]; }
t_wait_for 5 is_master || t_fail "master1 did not start: $(cat "$T_LOG/master1.log")"
t_wait_for 3 in_gang h0 "$master" || t_fail "master1 ($master) did not join h0's gang"
rr_users h0 "$master" || t_fail "master1 in the gang at $(t_policy "$master")"
t_logged "joined pid $master (master1, uid $T_UID) into $(c_gang_dir h0)" "$T_LOG/dts-h0.log" ||
    t_fail "the join of master1 is not logged"
want=$((3 * N))
slaves() {	# SLAVES = "K:PID ..." of every slave1 (the wrapper) in a gang
	local k p
	SLAVES=
	for ((k = 0; k < N; k++)); do
		for p in $(c_gang_pids h$k slave1); do SLAVES="$SLAVES h$k:$p"; done
	done
	[ "$(wc -w <<< "$SLAVES")" = "$want" ]
}
seen_stopped h0 "$master" 1.5 ||
    t_fail "master1 never seen stopped in LS (load $(cut -d' ' -f1-3 /proc/loadavg))"
t_wait_for 5 slaves || t_fail "not $want slave1 in the gangs: $SLAVES"
for s in $SLAVES; do	# (pvmd spawned them: in the gang from the start)
	p=${s#*:}
	[ "$(stat -c %u "/proc/$p")" = "$T_UID" ] && [ "$(t_policy "$p")" = RR ] ||
	    t_fail "slave1 $p on ${s%%:*}: uid $(stat -c %u "/proc/$p"), $(t_policy "$p")"
done
_c_alive "$master" || t_fail "master1 ended before its slaves were seen: $(cat "$T_LOG/master1.log")"
t_log "master1 $master in h0's gang, RR, stopped in LS; slaves:$SLAVES, RR"
t_wait_for 60 eval '! _c_alive "$master"' || t_fail "master1 did not finish within 60 s"
wait "$master"
rc=$?
t_untrack "$master"
out=$(cat "$T_LOG/master1.log")
[ "$rc" = 0 ] || t_fail "master1 exit status $rc: $out"
c_master1_check "" "$out"

# ---- 4. halt ---------------------------------------------------------------
c_exec h0 "${U[@]}" "$T_DIR/bin/dts-pvmctl" -T 10 halt > /dev/null 2>&1
gang_empty() { [ -z "$(c_gang_pids "$1")" ]; }
for ((k = 0; k < N; k++)); do
	t_wait_for 10 gang_empty h$k ||
	    t_fail "h$k: gang not empty after halt: $(for p in $(c_gang_pids h$k); do echo -n "$p:$(_c_comm "$p") "; done)"
done
t_log "halt: every gang empty (pvmd and dts-pvmjoin ended)"

# ---- 5. PVM_VMID ---------------------------------------------------------------
UV=("${U[@]}" PVM_VMID=t73vm)
c_exec h0 "${UV[@]}" "$T_DIR/bin/dts-console" -f "$conf" -c "add h1" > "$T_LOG/console3.out" 2>&1 ||
    t_fail "dts-console (PVM_VMID): $(cat "$T_LOG/console3.out")"
for ((k = 0; k < N; k++)); do
	t_wait_for 10 ready $k || t_fail "h$k (PVM_VMID): no pvmd and dts-pvmjoin at RR"
done
out=$(c_exec h1 "${UV[@]}" "$T_DIR/bin/dts-pvmctl" -T 30 joined 10 2>&1) ||
    t_fail "h1 (PVM_VMID): joined: $out"
grep -q " policy=RR$" <<< "$out" || t_fail "h1 (PVM_VMID): joined, but at $out"
t_log "PVM_VMID: a task from a shell on h1 ran in the gang after $(sed -n 's/^joined_ms=\([0-9.]*\) .*/\1/p' <<< "$out") ms"
c_exec h0 "${UV[@]}" "$T_DIR/bin/dts-pvmctl" -T 10 halt > /dev/null 2>&1
for ((k = 0; k < N; k++)); do
	t_wait_for 10 gang_empty h$k || t_fail "h$k (PVM_VMID): gang not empty after halt"
done
t_pass
