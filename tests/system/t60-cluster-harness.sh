#!/bin/bash
# t60-cluster-harness.sh - self test of tests/system/cluster.sh: a real
# 3-host PVM virtual machine in network namespaces, every host running its
# own dts service, every pvmd adopted into its host's gang.
#
#  1. c_up 3: a dts service on every host, then the master pvmd on h0
#     (through the launcher, adopted by h0's dts) starts h1 and h2 through
#     the rsh shim and the dx= launcher; conf lists h0 h1 h2.  No link
#     appears in the root network namespace and /etc/hosts is untouched.
#  2. Every host has its own name, PVM_TMP, dts (with its socket, its own
#     cgroup subtree and its dts-load child) and pvmd.  That pvmd is in the
#     host's gang cgroup and in no other, SCHED_RR, not a child of dts;
#     dts and dts-load are outside every gang, SCHED_FIFO.  dts logged the
#     adoption of the pvmd (a slave's launcher: the daemon forked from it
#     after the handshake, so the daemon's group is the adopted pid).
#     The rsh shim passes its stdin and stdout to the remote command.
#  3. master1 (pvm-examples) spawns slave1 on every host and gets every
#     result; spin spawned on h2 with -w runs there, in h2's gang; 3 tasks
#     spawned without -w land one on every host, each in its host's gang.
#  4. Every dts answers STATUS over the network with mode static and its
#     host name, and counts its gang's members; one broadcast SCHEDULE to
#     C_BCAST reaches every host.
#  5. c_down: halts PVM, SIGTERMs every dts (each exits 0); no namespace,
#     process, cgroup or file of the run is left.
#  6. A second run, killed with SIGTERM in the middle of a foreground
#     c_exec while h1's dts and dts-load are stopped and its gang frozen
#     and stopped, cleans up after itself just as well.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t60-cluster-harness

_links() { ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | sort; }
links0=$(_links)
hosts0=$(md5sum < /etc/hosts)
N=3
c_up "$N"
t_log "c_up $N: ${C_UP_S} s"
# nothing of ours in the root network namespace or in /etc
new=$(comm -13 <(echo "$links0") <(_links) | grep -E '^(h[0-9]+|br0|eth0)$')
[ -z "$new" ] || t_fail "links in the root netns: $new"
[ "$(md5sum < /etc/hosts)" = "$hosts0" ] || t_fail "/etc/hosts changed"

# ---- 1. the virtual machine ------------------------------------------------
conf=$(c_pvm h0 conf) || t_fail "dts-pvmctl conf failed"
[ "$(awk '{ print $1 }' <<< "$conf" | sort | paste -sd' ')" = "h0 h1 h2" ] ||
    t_fail "conf does not list h0 h1 h2: $(paste -sd';' <<< "$conf")"

# ---- 2. every host: name, PVM_TMP, its dts service, pvmd in its gang -------
declare -a DTS PVMD
mnt=$(t_cg_mount)
for k in 0 1 2; do
	h=h$k
	[ "$(c_exec $h hostname)" = "$h" ] || t_fail "$h: hostname is not $h"
	[ "$(c_exec $h sh -c 'echo $PVM_TMP')" = "$T_DIR/$h/tmp" ] ||
	    t_fail "$h: PVM_TMP is not its own"
	[ "$(c_exec $h getent hosts h2 | awk '{ print $1 }')" = "${C_ADDR[2]}" ] ||
	    t_fail "$h: h2 does not resolve to ${C_ADDR[2]}"
	[ -f "$T_DIR/$h/tmp/pvml.0" ] && [ -f "$T_DIR/$h/tmp/pvmd.0" ] ||
	    t_fail "$h: no pvmd files in its own PVM_TMP"
	[ -S "$T_DIR/$h/dts.sock" ] || t_fail "$h: no adoption socket $T_DIR/$h/dts.sock"
	d=$(c_dts_pid $h) || t_fail "$h: no dts"
	[ "$d" = "${C_DTS_PID[k]}" ] || t_fail "$h: dts $d is not the one c_up started (${C_DTS_PID[k]})"
	a=$(c_agent_pid $h) || t_fail "$h: no dts-load child of dts $d"
	p=$(c_pvmd_pid $h) || t_fail "$h: no pvmd in its gang $(c_gang_dir $h)"
	gang=$(c_gang_dir $h)
	[ "$gang" = "$(t_job_cg root pvm $h)" ] && [ -d "$gang" ] || t_fail "$h: gang cgroup $gang"
	[ "$(sed -n 's/^0:://p' "/proc/$p/cgroup")" = "${gang#"$mnt"}" ] ||
	    t_fail "$h: pvmd $p is in cgroup $(sed -n 's/^0:://p' "/proc/$p/cgroup"), not $gang"
	for q in $d $a; do
		case $(sed -n 's/^0:://p' "/proc/$q/cgroup") in
		*/job.*) t_fail "$h: $(_c_comm $q) $q is in a gang" ;;
		esac
		[ "$(t_policy "$q")" = FF ] || t_fail "$h: $(_c_comm $q) $q is $(t_policy "$q"), not FF"
	done
	[ "$(_c_ppid "$p")" != "$d" ] || t_fail "$h: pvmd $p is a child of dts $d"
	[ "$(t_policy "$p")" = RR ] || t_fail "$h: pvmd $p is $(t_policy "$p"), not RR"
	for j in 0 1 2; do	# in its own host's gang only
		[ $j = $k ] && continue
		grep -qx "$p" "$(c_gang_dir h$j)/cgroup.procs" && t_fail "$h: pvmd $p is in h$j's gang"
	done
	g=$(_c_pgid "$p")
	args=$(tr '\0' ' ' < "/proc/$p/cmdline")
	if [ $k = 0 ]; then
		case $args in *" $C_HOSTFILE "*) ;; *) t_fail "h0: pvmd is not the master: $args" ;; esac
		[ "$p" = "$C_MASTER_PID" ] || t_fail "h0: pvmd $p is not the one c_up started ($C_MASTER_PID)"
		ad=$p
	else
		# a slave's daemon: forked from the pvmd the launcher became
		case $args in *" -s "*" -n$h "*) ;; *) t_fail "$h: not a slave pvmd: $args" ;; esac
		[ "$g" != "$p" ] || t_fail "$h: pvmd $p did not fork (expected a slave daemon)"
		ad=$g
	fi
	t_logged "dts\[$d\] .*adopted pid $ad (user root) into $gang: pvmd" "$T_LOG/dts-$h.log" ||
	    t_fail "$h: dts did not log the adoption of pid $ad: $(grep adopt "$T_LOG/dts-$h.log")"
	DTS[k]=$d PVMD[k]=$p
done
[ "$(printf '%s\n' "$(c_gang_dir h0)" "$(c_gang_dir h1)" "$(c_gang_dir h2)" | sort -u | wc -l)" = 3 ] ||
    t_fail "the hosts share a gang cgroup"
t_log "dts ${DTS[*]}, pvmd ${PVMD[*]}"
# the rsh shim hands pvmd's own stdin/stdout to the remote command
for i in 1 2 3 4 5 6 7 8 9 10; do
	out=$(echo "in$i" | c_exec h0 rsh h2 'hostname; cat')
	[ "$out" = "h2
in$i" ] || t_fail "rsh h2: got '$out' (try $i), not h2 and in$i"
done

# ---- 3. PVM programs across hosts ------------------------------------------
c_master1 ""

tid=$(c_pvm h0 spawn -w h2 "$BUILD/tests/pvm/spin" 60) || t_fail "spawn -w h2 failed"
tasks=$(c_pvm h0 tasks) || t_fail "tasks failed"
awk -v t="$tid" '$1 == t && $4 == "h2" { f = 1 } END { exit !f }' <<< "$tasks" ||
    t_fail "task $tid not listed on h2: $(paste -sd';' <<< "$tasks")"
t_wait_for 10 eval '[ -n "$(c_gang_pids h2 spin)" ]' || t_fail "spin is not in h2's gang"
[ -z "$(c_gang_pids h1 spin)$(c_gang_pids h0 spin)" ] || t_fail "spin ran elsewhere too"

# 3 tasks without -w: one per host (sleep, not spin: the 2 CPUs stay free)
tids=$(c_pvm h0 spawn -n 3 /bin/sleep 60) || t_fail "spawn -n 3 failed"
tasks=$(c_pvm h1 tasks) || t_fail "tasks (asked on h1) failed"
hosts=$(awk -v l="$(paste -sd' ' <<< "$tids")" 'BEGIN { split(l, a, " "); for (i in a) w[a[i]] = 1 }
    $1 in w { print $4 }' <<< "$tasks" | sort | paste -sd' ')
[ "$hosts" = "h0 h1 h2" ] || t_fail "3 spawned tasks are on '$hosts', not h0 h1 h2"
for k in 0 1 2; do
	[ -n "$(c_gang_pids h$k sleep)" ] || t_fail "h$k: the spawned sleep is not in its gang"
done

# ---- 4. dts on every host answers over the network -------------------------
for k in 0 1 2; do
	st=$(c_status h$k) || t_fail "h$k: no STATUS reply from ${C_ADDR[$k]}"
	[ "$(sed -n 's/^mode=//p' <<< "$st")" = static ] ||
	    t_fail "h$k: mode is not static: $(paste -sd' ' <<< "$st")"
	[ "$(sed -n 's/^name=//p' <<< "$st")" = "h$k" ] ||
	    t_fail "h$k: STATUS came from '$(sed -n 's/^name=//p' <<< "$st")'"
done
for k in 0 1 2; do	# pvmd + sleep (+ spin on h2)
	m=$(c_status h$k members)
	[ "$m" = "$(c_gang_pids h$k | wc -l)" ] && [ "$m" -ge 2 ] ||
	    t_fail "h$k: STATUS members=$m, gang $(c_gang_pids h$k | paste -sd' ')"
done
[ "$(c_status h2 members)" -ge 3 ] || t_fail "h2: gang has < 3 members (pvmd + spin + sleep)"
c_exec h0 sendgram -k "$C_KEY" -s "$C_SIGN" -a "$C_BCAST" -p "$C_PORT" \
    schedule static 50000 100000 > /dev/null || t_fail "broadcast SCHEDULE: no reply"
for k in 0 1 2; do
	t_wait_for 5 eval '[ "$(c_status h$k ps_us)" = 50000 ]' ||
	    t_fail "h$k: broadcast to $C_BCAST did not arrive (ps_us $(c_status h$k ps_us))"
done

# ---- 5. teardown ------------------------------------------------------------
prefix=$C_PREFIX dir=$T_DIR
cgs="$(c_cg_dir h0) $(c_cg_dir h1) $(c_cg_dir h2)"
ids=$(_c_ids | paste -sd' ')
[ -n "$ids" ] || t_fail "no processes in our namespaces?"
c_down || t_fail "c_down reported leftovers"
t_log "c_down: ${C_DOWN_S} s"
for k in 0 1 2; do
	v=C_DTS_RC_$k
	[ "${!v:-}" = 0 ] || t_fail "h$k: dts ended with status '${!v:-}' on SIGTERM, not 0"
done
c_down || t_fail "a second c_down failed"
ns=$(ip netns list | awk -v p="$prefix" 'index($1, p) == 1 { print $1 }' | paste -sd' ')
[ -z "$ns" ] || t_fail "namespaces left after c_down: $ns"
for id in $ids; do	# PID:START, so that a reused PID is not ours
	t_id_alive "$id" && t_fail "process ${id%%:*} ($(_c_comm "${id%%:*}")) survived c_down"
done
for c in $cgs; do
	[ ! -e "$c" ] || t_fail "cgroup $c left after c_down"
done
if [ "${KEEP:-0}" != 1 ] && [ -e "$dir" ]; then
	t_fail "run dir $dir left after c_down"
fi

# ---- 6. killed midway -------------------------------------------------------
# A child run: 2 hosts, a spin on h1; h1's dts and dts-load stopped, its
# gang frozen and every member stopped too (as if dts hung in a local
# slice and its fail-safe with it), then a long foreground c_exec.
# SIGTERM must end it at once and leave nothing behind.
mkdir -p "$T_LOG" || t_fail "cannot make $T_LOG"  # c_down removed $T_DIR
ready=$T_DIR/child.ready clog=$T_LOG/child.log
KEEP=0 READY=$ready bash -c '
	set -u
	. "$SRC/tests/system/lib.sh"
	. "$SRC/tests/system/cluster.sh"
	t_setup t60-child
	c_up 2
	c_pvm h0 spawn -w h1 "$BUILD/tests/pvm/spin" 0 > /dev/null || t_fail spawn
	spin_in() { [ -n "$(c_gang_pids h1 spin)" ]; }
	t_wait_for 10 spin_in || t_fail "no spin"
	kill -STOP "$(c_agent_pid h1)" "$(c_dts_pid h1)"
	echo 1 > "$(c_gang_dir h1)/cgroup.freeze"
	for p in $(c_gang_pids h1); do kill -STOP "$p"; done
	echo "$C_PREFIX $T_DIR $(c_cg_dir h0) $(c_cg_dir h1) $(_c_ids | paste -sd" ")" > "$READY.tmp"
	mv "$READY.tmp" "$READY"
	c_exec h1 sleep 300
	t_pass' > "$clog" 2>&1 &
child=$!
t_track "$child"
t_wait_for 120 test -s "$ready" || t_fail "the child run did not come up"
read -r cprefix cdir ccg0 ccg1 cids < "$ready"
t_sleep 0.5
t0=$(_t_now_us)
kill -TERM "$child"
t_wait_for 60 eval '! kill -0 "$child" 2>/dev/null || [ "$(t_proc_state "$child")" = Z ]' ||
    t_fail "the child run did not end within 60 s of SIGTERM"
wait "$child"
crc=$?
t_untrack "$child"	# reaped: cleanup must not signal this PID again
t_log "killed run ended in $(awk -v d="$(($(_t_now_us) - t0))" 'BEGIN { printf "%.2f", d / 1e6 }') s, status $crc"
[ "$crc" = 143 ] || t_fail "killed run: status $crc, not 143 (see log/child.log)"
ns=$(ip netns list | awk -v p="$cprefix" 'index($1, p) == 1 { print $1 }' | paste -sd' ')
[ -z "$ns" ] || t_fail "killed run left namespaces: $ns"
for id in $cids; do
	p=${id%%:*}
	t_id_alive "$id" && t_fail "killed run left process $p ($(_c_comm "$p"), state $(t_proc_state "$p"))"
done
for c in $ccg0 $ccg1; do
	[ ! -e "$c" ] || t_fail "killed run left cgroup $c"
done
[ ! -e "$cdir" ] || t_fail "killed run left $cdir"
t_pass
