#!/bin/bash
# t102-cluster-jobs-disjoint.sh - two users' jobs on disjoint host sets
# share one row of the gang matrix (dts-console(1), THE GANG MATRIX), on a
# real 3-host cluster (tests/system/cluster.sh) driven by the operator's
# console (root, `dts-console -n --daemon` with the console key; STATIC,
# IP 100 ms, PS 80 %, SI 1 s):
#  1. User A's VM from a shell on h0 only (its master pvmd through the
#     launcher with a host file of h0), user B's through B's own
#     dts-console on h1 (`add h2`): h1 and h2.  Each spawns a CPU-bound
#     task (spin) on each of its hosts.
#  2. `jobs` (the operator's) shows one row of the whole PS with both
#     jobs, A's on h0 and B's on h1 and h2; every node's STATUS lists its
#     one job; no node's SCHEDULE gives its job less than the whole PS
#     (no table, or one slot of 80 ms).
#  3. Each job gets the whole PS on each of its hosts: one host at a time
#     on CPU 1 beside a local hog (the other hosts on CPU 0), each task
#     gets 80 % of CPU 1 within 4 pt (deviation printed), and the local
#     load keeps at least LS - 2 pt.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t102-cluster-jobs-disjoint
c_jobs_need
t_need python3 python3

N=3
SI_S=1
TOL=4	# points of CPU share a job may miss its slot's by (the issue: 1)
c_user_a
c_make_user UB b
B=$UB
t_pub_bin "$BUILD/run/dts-run" "$BUILD/run/dts-pvmjoin" "$BUILD/console/dts-console" \
    "$BUILD/tests/pvm/dts-pvmctl" "$BUILD/tests/pvm/spin" || t_fail "t_pub_bin"
C_RUN=$T_DIR/bin/dts-run C_PVMJOIN=$T_DIR/bin/dts-pvmjoin
C_CONF_EXTRA="mode = \"static\"; ip = \"100ms\"; ps = \"80%\"; si = \"${SI_S}s\";"
C_FT_STATUS_WAIT=400ms
c_up $N --no-pvm
c_sched_watch
c_op_start "mode static; ip 100ms; ps 80%; si ${SI_S}s; start" ||
    t_fail "the operator's console: $C_FT_OUT $C_FT_ERR"
ja=$A:pvm jb=$B:pvm

# ---- 1. A on h0, B on h1 and h2 -----------------------------------------------
{ head -n 1 "$C_HOSTFILE"; echo h0; } > "$T_DIR/hostfile-a"
c_bg h0 a-master "${UA[@]}" env -C "$T_DIR/h0/home" setsid "$C_LAUNCHER" "$T_DIR/hostfile-a"
t_wait_for 30 grep -q pvmtmp "$T_LOG/a-master.log" || t_fail "A's master pvmd: $(cat "$T_LOG/a-master.log")"
c_exec h0 "${UA[@]}" "$T_DIR/bin/dts-pvmctl" spawn -w h0 "$T_DIR/bin/spin" 0 > /dev/null ||
    t_fail "A's spawn on h0 failed"

bconf=$T_DIR/b-console.conf
t_conf "$bconf" port="$C_PORT" \
    console="{ launcher = \"$C_LAUNCHER\"; pvm_tmp = \"$T_DIR/h1/tmp\"; history = \"\"; sign_key = \"$T_DIR/none/console.key\"; node_secret = \"$T_DIR/none/nodes.key\"; }"
c_exec h1 "${UB_ARGV[@]}" "$T_DIR/bin/dts-console" -f "$bconf" \
    -c "add h2; spawn -w h1 $T_DIR/bin/spin 0; spawn -w h2 $T_DIR/bin/spin 0" \
    > "$T_LOG/b-console.out" 2> "$T_LOG/b-console.err" < /dev/null ||
    t_fail "B's console: $(cat "$T_LOG/b-console.out" "$T_LOG/b-console.err")"
spin_of() {	# spin_of K USER: the spin of USER's job on hK into SPIN
	SPIN=$(c_job_pids "$1" "$2" pvm spin | head -n 1)
	[ -n "$SPIN" ]
}
t_wait_for 10 spin_of h0 "$A" || t_fail "no spin in A's job on h0"
C_SPIN[0]="$ja=$SPIN"
for k in 1 2; do
	t_wait_for 10 spin_of h$k "$B" || t_fail "no spin in B's job on h$k"
	C_SPIN[$k]="$jb=$SPIN"
done
for k in 0 1 2; do
	[ "$(t_policy "${C_SPIN[$k]#*=}")" = RR ] || t_fail "h$k: ${C_SPIN[$k]} at $(t_policy "${C_SPIN[$k]#*=}")"
	[ -z "$(c_job_pids h$k "$([ $k = 0 ] && echo "$B" || echo "$A")" pvm)" ] ||
	    t_fail "h$k runs the other user's job too"
done
t_log "A's VM on h0 (from a shell), B's on h1 h2 (B's console on h1), a spin of each on its hosts: ${C_SPIN[*]}"

# ---- 2. one row -----------------------------------------------------------------
S='' J=''
one_row() {
	local k l
	S=$(c_op_status) && J=$(c_op_jobs) || return 1
	grep -qx "h0 $ja" <<< "$S" && grep -qx "h1 $jb" <<< "$S" && grep -qx "h2 $jb" <<< "$S" || return 1
	grep -qx "rows 1" <<< "$J" && grep -qx "row 0 0 80000 $(printf '%s\n' "$ja" "$jb" | sort | paste -sd,)" <<< "$J" &&
	    grep -qx "node h0 $ja" <<< "$J" && grep -qx "node h1 $jb" <<< "$J" &&
	    grep -qx "node h2 $jb" <<< "$J" || return 1
	for ((k = 0; k < N; k++)); do
		l=$(tail -n 1 "$T_LOG/sched-h$k.log")
		case $l in
		*" nslots=0 "* | *" nslots=0") ;;
		*" nslots=1 "*"@0+80000") ;;
		*) return 1 ;;
		esac
	done
}
t_wait_for 10 one_row || t_fail "not one row with both jobs: status: $S; jobs: $J; tables: $(for k in 0 1 2; do tail -n 1 "$T_LOG/sched-h$k.log"; done)"
t_log "operator's jobs: $(paste -sd';' <<< "$J"); each node's STATUS: $(paste -sd';' <<< "$S")"
t_log "tables: $(for k in 0 1 2; do echo -n "h$k: $(tail -n 1 "$T_LOG/sched-h$k.log" | cut -d' ' -f2-); "; done)"
c_op jobs > /dev/null
t_log "$(printf '%s\n' "$C_FT_OUT" | grep -v '^ *h[0-9] \|hosts from' | sed 's/^/  /')"

# ---- 3. the whole PS for each ------------------------------------------------------
"$BUILD/tests/tools/hog" -c 1 -t 0 -p "$T_DIR/hog.pid" &
t_track $!
t_wait_for 5 test -s "$T_DIR/hog.pid" || t_fail "no hog"
HOG=$(cat "$T_DIR/hog.pid")
c_host_shares 80 "$TOL" 20 "$HOG"
t_log "disjoint jobs in one row: each task within $C_MAXDEV pt of the whole PS (80 %) of CPU 1"
kill "$HOG"
c_exec h0 "${UA[@]}" "$T_DIR/bin/dts-pvmctl" -T 10 halt > /dev/null 2>&1
c_exec h1 "${UB_ARGV[@]}" "$T_DIR/bin/dts-pvmctl" -T 10 halt > /dev/null 2>&1
t_wait_for 10 eval '[ -z "$(c_job_pids h0 "$A" pvm)$(c_job_pids h1 "$B" pvm)$(c_job_pids h2 "$B" pvm)" ]' ||
    t_fail "the gangs are not empty after the halts"
t_pass
