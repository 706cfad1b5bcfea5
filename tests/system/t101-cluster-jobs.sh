#!/bin/bash
# t101-cluster-jobs.sh - two users' PVM virtual machines on the same 3
# hosts, coscheduled by the operator's console through the gang matrix
# (dts-console(1), THE GANG MATRIX; dts(8), JOBS), on a real 3-host
# cluster (tests/system/cluster.sh):
#  1. The operator's console (root, `dts-console -n --daemon` with the
#     console key: hosts h0 h1 h2, STATIC, IP 100 ms, PS 80 %, SI 1 s).
#     User A's VM from a shell (its master pvmd through the launcher with
#     the host file: h0 h1 h2); user B's through B's own dts-console
#     (`add h1 h2`), which has no key: the PVM commands work, start,
#     stop and status are refused in one line each.  `jobs` (the
#     operator's) shows 2 rows, one job each, on the 3 hosts, 40 ms
#     each; every node's STATUS lists both jobs, and every node gets a
#     slot table of both.
#  2. B spawns a CPU-bound task (spin) on each host from its console;
#     A runs pvm-examples' master1 from a shell on h0 (its slaves on
#     every host): every result right.  A spawns spin on each host too.
#  3. Shares: with both jobs CPU-bound on every host and a local hog,
#     one host at a time on CPU 1 (its two spinners and the hog; the
#     other hosts' spinners on CPU 0): each job gets its slot's share of
#     CPU 1 (40 %), and the local load (the hog and whatever else of
#     the machine ran there) keeps at least LS - 2 pt.  The deviation
#     from 40 is printed; the test allows 4 pt (a noisy 2-core machine).
#  4. B halts its VM: within one SI of the end of B's gangs no node's
#     slot table names B (the SCHEDULEs each host got, sniffed), and
#     neither STATUS nor `jobs` does; A's share rises to the whole PS
#     (80 % of CPU 1, one host at a time).
#  5. A third user C starts a job mid-run with dts-run --job c1 on h0
#     and h1: within one SI both nodes' tables have it beside A's; h2's
#     has A's only; `jobs` shows C's row on h0 and h1; C's job ends.
# Every number measured is printed.  The harness's traps leave nothing
# frozen or real-time, no user and no namespace.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t101-cluster-jobs
for p in master1 slave1; do
	t_need "$p" pvm-examples
done
c_jobs_need

N=3
SI_S=1
TOL=4	# points of CPU share a job may miss its slot's by (the issue: 1)
c_user_a
c_make_user UB b
c_make_user UC c
B=$UB C=$UC
t_pub_bin "$BUILD/run/dts-run" "$BUILD/run/dts-pvmjoin" "$BUILD/console/dts-console" \
    "$BUILD/tests/pvm/dts-pvmctl" "$BUILD/tests/pvm/spin" || t_fail "t_pub_bin"
C_RUN=$T_DIR/bin/dts-run C_PVMJOIN=$T_DIR/bin/dts-pvmjoin
C_CONF_EXTRA="mode = \"static\"; ip = \"100ms\"; ps = \"80%\"; si = \"${SI_S}s\";"
C_FT_STATUS_WAIT=400ms
c_up $N --no-pvm
c_sched_watch
HOG=

# ---- the operator's console ---------------------------------------------------
c_op_start "mode static; ip 100ms; ps 80%; si ${SI_S}s; start" ||
    t_fail "the operator's console: $C_FT_OUT $C_FT_ERR"
grep -q "^started: mode static, PS 80ms of IP 100ms, SI ${SI_S}s" <<< "$C_FT_OUT" ||
    t_fail "operator's start: $C_FT_OUT"

# ---- 1. A's VM from a shell, B's through its own console ------------------------
ja=$A:pvm jb=$B:pvm jc=$C:c1
for f in "$T_DIR/h0/tmp"/pvml.*; do [ -f "$f" ] && mv "$f" "$f.old"; done
c_bg h0 a-master "${UA[@]}" env -C "$T_DIR/h0/home" setsid "$C_LAUNCHER" "$C_HOSTFILE"
t_wait_for 30 grep -q pvmtmp "$T_LOG/a-master.log" || t_fail "A's master pvmd: $(cat "$T_LOG/a-master.log")"
c_exec h0 "${UA[@]}" "$T_DIR/bin/dts-pvmctl" wait $N 60 > /dev/null ||
    t_fail "A's VM did not reach $N hosts"
for ((k = 0; k < N; k++)); do
	t_wait_for 10 eval '[ -n "$(c_job_pids h$k "$A" pvm pvmd)" ]' || t_fail "h$k: no pvmd of A in job $ja"
done
t_log "A's VM from a shell: pvmd of $A in job $ja on h0 h1 h2"

bconf=$T_DIR/b-console.conf
t_conf "$bconf" port="$C_PORT" \
    console="{ launcher = \"$C_LAUNCHER\"; pvm_tmp = \"$T_DIR/h0/tmp\"; history = \"\"; sign_key = \"$T_DIR/none/console.key\"; node_secret = \"$T_DIR/none/nodes.key\"; }"
# bcons K CMDS: B's dts-console on host K; output in $T_LOG/bcons.out/.err
bcons() {
	c_exec "$1" "${UB_ARGV[@]}" "$T_DIR/bin/dts-console" -f "$bconf" -c "$2" \
	    > "$T_LOG/bcons.out" 2> "$T_LOG/bcons.err" < /dev/null
	BRC=$?
	{ echo "\$ (B on $1) $2   # $BRC"; cat "$T_LOG/bcons.out" "$T_LOG/bcons.err"; } >> "$T_LOG/b-console.log"
	return "$BRC"
}
bcons h0 "add h1 h2" || t_fail "B's console: add: $(cat "$T_LOG/bcons.out" "$T_LOG/bcons.err")"
grep -q "^h1: added" "$T_LOG/bcons.out" && grep -q "^h2: added" "$T_LOG/bcons.out" ||
    t_fail "B's add: $(cat "$T_LOG/bcons.out")"
# its dts.conf has no console_keys: no read key either (t104 has one)
grep -q "^dts-console: no console key (.*): the PVM commands only$" "$T_LOG/bcons.err" ||
    t_fail "B's console does not say it has no key: $(cat "$T_LOG/bcons.err")"
for ((k = 0; k < N; k++)); do
	t_wait_for 10 eval '[ -n "$(c_job_pids h$k "$B" pvm pvmd)" ]' || t_fail "h$k: no pvmd of B in job $jb"
done
for cmd in start stop status "mode off"; do
	bcons h0 "$cmd"
	err=$(grep -v '^dts-console: no console key' "$T_LOG/bcons.err")
	[ "$cmd" = start ] && refusal=$err
	case $cmd in
	mode*)	# its own setting: fine, and nothing is sent
		[ "$BRC" = 0 ] || t_fail "B's console: $cmd: $err" ;;
	status)	# a read request needs a read key: none without console_keys
		[ "$BRC" != 0 ] && [ "$(wc -l <<< "$err")" = 1 ] &&
		    grep -q "^\(dts-console: \)\?$cmd: no console key (.*), and console_keys is empty in .* too, so there is no read key either" <<< "$err" ||
		    t_fail "B's console: $cmd: exit $BRC, '$err'" ;;
	*)	[ "$BRC" != 0 ] && [ "$(wc -l <<< "$err")" = 1 ] &&
		    grep -q "^\(dts-console: \)\?$cmd: no console key (.*): this console runs the PVM commands, and status and jobs read-only" <<< "$err" ||
		    t_fail "B's console: $cmd: exit $BRC, '$err'" ;;
	esac
done
t_log "B's console (no key): add h1 h2 done; start, stop, status refused in one line each: $refusal"

t_wait_for 10 c_two_rows "$ja" "$jb" || t_fail "not 2 rows of 40 ms, both jobs on every node: status: $C_S; jobs: $C_J; tables: $(for k in 0 1 2; do tail -n 1 "$T_LOG/sched-h$k.log"; done)"
t_log "operator's jobs: $(paste -sd';' <<< "$C_J")"
t_log "every node's STATUS lists both jobs; tables: $(for k in 0 1 2; do echo -n "h$k: $(tail -n 1 "$T_LOG/sched-h$k.log" | cut -d' ' -f2-); "; done)"
c_op jobs > /dev/null
t_log "$(printf '%s\n' "$C_FT_OUT" | grep -v '^ *h[0-9] \|hosts from\|HOST  *ADDRESS' | sed 's/^/  /')"

# ---- 2. CPU-bound tasks of both, master1 --------------------------------------
bcons h0 "spawn -w h0 $T_DIR/bin/spin 0; spawn -w h1 $T_DIR/bin/spin 0; spawn -w h2 $T_DIR/bin/spin 0" ||
    t_fail "B's spawn: $(cat "$T_LOG/bcons.out" "$T_LOG/bcons.err")"
declare -A SP
spinners() {	# spinners USER TAG: SP[TAG,K] = the spin of USER's job on hK
	local k p
	for ((k = 0; k < N; k++)); do
		p=$(c_job_pids h$k "$1" pvm spin | head -n 1)
		[ -n "$p" ] || return 1
		SP[$2,$k]=$p
	done
}
t_wait_for 10 spinners "$B" B || t_fail "B's spin not in B's job on every host"
for ((k = 0; k < N; k++)); do
	[ "$(t_policy "${SP[B,$k]}")" = RR ] ||
	    t_fail "B's spin on h$k: $(t_policy "${SP[B,$k]}")"
done

c_master1 "A's " "${UA[@]}"
want=$((3 * N))
t_log "A's master1 beside B's spinners: $want slaves on $N hosts, every result right"

for ((k = 0; k < N; k++)); do
	c_exec h0 "${UA[@]}" "$T_DIR/bin/dts-pvmctl" spawn -w h$k "$T_DIR/bin/spin" 0 > /dev/null ||
	    t_fail "A's spawn on h$k failed"
done
t_wait_for 10 spinners "$A" A || t_fail "A's spin not in A's job on every host"

# ---- 3. each job's share of CPU 1, one host at a time -------------------------------
"$BUILD/tests/tools/hog" -c 1 -t 0 -p "$T_DIR/hog.pid" &
t_track $!
t_wait_for 5 test -s "$T_DIR/hog.pid" || t_fail "no hog"
HOG=$(cat "$T_DIR/hog.pid")
spin_list() {	# C_SPIN[K] = "JOB=PID ..." of the tags given
	local k t
	for ((k = 0; k < N; k++)); do
		C_SPIN[$k]=
		for t in "$@"; do
			C_SPIN[$k]="${C_SPIN[$k]} $([ "$t" = A ] && echo "$ja" || echo "$jb")=${SP[$t,$k]}"
		done
	done
}
spin_list A B
c_host_shares 40 "$TOL" 20 "$HOG"
t_log "2 jobs on 3 hosts, PS 80 % in 2 slots: each job within $C_MAXDEV pt of 40 % of CPU 1 on every host"

# ---- 4. B halts its VM mid-run ------------------------------------------------------
t_halt=$(_t_now_us)
bcons h0 halt || t_fail "B's halt: $(cat "$T_LOG/bcons.out" "$T_LOG/bcons.err")"
t_ret=$(_t_now_us)
gone_b() { local k; for ((k = 0; k < N; k++)); do [ -z "$(c_job_pids h$k "$B" pvm)" ] || return 1; done; }
t_wait_for 20 gone_b || t_fail "B's gangs not empty 20 s after its halt: $(for k in 0 1 2; do for p in $(c_job_pids h$k "$B" pvm); do echo -n "h$k:$p:$(_c_comm "$p"):$(t_proc_state "$p") "; done; done)"
t_empty=$(_t_now_us)
no_b_table() {	# every host got a SCHEDULE without B after t_empty
	local k l
	for ((k = 0; k < N; k++)); do
		l=$(awk -v t="$t_empty" '$1 * 1e6 >= t && $0 !~ / '"$B"':/ { print $1; exit }' "$T_LOG/sched-h$k.log")
		[ -n "$l" ] || return 1
		TB[k]=$(awk -v a="$t_empty" -v b="$l" 'BEGIN { printf "%.2f", (b * 1e6 - a) / 1e6 }')
	done
}
declare -a TB
t_wait_for 10 no_b_table || t_fail "10 s after B's gangs emptied, a node's table still names B: $(for k in 0 1 2; do tail -n 1 "$T_LOG/sched-h$k.log"; done)"
for ((k = 0; k < N; k++)); do
	# no SCHEDULE naming B after the first without it
	awk -v t="$t_empty" -v b=" $B:" '$1 * 1e6 < t { next }
	    index($0, b) == 0 { seen = 1; next } seen { bad = 1 } END { exit !bad }' \
	    "$T_LOG/sched-h$k.log" && t_fail "h$k: a table named B again after one without it"
done
t_log "B halted: its console's halt took $(_c_secs "$t_halt" "$t_ret") s, B's gangs empty $(_c_secs "$t_ret" "$t_empty") s after; first table without B on h0 h1 h2 after ${TB[*]} s (SI ${SI_S} s; dts's job scan every 1 s)"
for v in "${TB[@]}"; do
	awk -v v="$v" -v si="$SI_S" 'BEGIN { exit !(v <= si + 1 + 0.5) }' ||
	    t_fail "a table without B came ${v} s after B's gangs emptied: more than SI + the 1 s job scan"
done
a_alone() {
	local k
	s=$(c_op_status) && j=$(c_op_jobs) || return 1
	for ((k = 0; k < N; k++)); do grep -qx "h$k $ja" <<< "$s" || return 1; done
	grep -qx "rows 1" <<< "$j" && grep -q "^row 0 .* $ja$" <<< "$j"
}
s='' j=''
t_wait_for 5 a_alone || t_fail "after B's end: STATUS: $s; jobs: $j; $(head -c 600 "$T_LOG/ft-console.1.out" | paste -sd' ') $(cat "$T_LOG/ft-console.1.err")"
t_log "after B's end: STATUS lists $ja alone on each node; jobs: $(paste -sd';' <<< "$j")"
spin_list A
c_host_shares 80 "$TOL" 20 "$HOG"
t_log "A alone: within $C_MAXDEV pt of the whole PS (80 %) of CPU 1 on every host"

# ---- 5. a third user's job mid-run --------------------------------------------------
declare -a CP
t_in=$(_t_now_us)	# before C's dts-run: its node tells the master at once
for k in 0 1; do
	c_bg h$k c1-h$k "${UC_ARGV[@]}" taskset -c 1 "$T_DIR/bin/dts-run" --job c1 -- sh -c 'while :; do :; done'
	CP[k]=$C_BG_PID
done
in_c() { local k; for k in 0 1; do c_job_pids h$k "$C" c1 | grep -qx "${CP[k]}" || return 1; done; }
t_wait_for 5 in_c || t_fail "C's dts-run on h0/h1 not in job $jc: $(cat "$T_LOG/c1-h0.log" "$T_LOG/c1-h1.log")"
declare -a TC
# started_us HOST: when HOST's dts logged C's job's start (its log's stamp,
# ms), in us since the epoch: the table is measured from there, not from
# the dts-run's launch, which a loaded machine may delay by seconds
started_us() {
	local w
	w=$(grep -m1 "job $jc started" "$T_LOG/dts-$1.log" | cut -d' ' -f1)
	[ -n "$w" ] && date -d "$w" +%s%6N
}
c_table() {	# h0 and h1 got a table with C and A, h2 one with A only
	local k l t0
	for k in 0 1; do
		t0=$(started_us h$k) || return 1
		l=$(awk -v t="$t_in" '$1 * 1e6 >= t && / '"$C"':c1@/ && / '"$A"':pvm@/ { print $1; exit }' "$T_LOG/sched-h$k.log")
		[ -n "$l" ] || return 1
		TC[k]=$(awk -v a="$t0" -v b="$l" 'BEGIN { printf "%.2f", (b * 1e6 - a) / 1e6 }')
	done
	tail -n 1 "$T_LOG/sched-h2.log" | grep -q " $C:" && return 1
	return 0
}
t_wait_for 10 c_table || t_fail "no table with $jc on h0 and h1 within 10 s: $(for k in 0 1 2; do tail -n 1 "$T_LOG/sched-h$k.log"; done)"
t_log "C's job $jc on h0 h1: in their tables ${TC[*]} s after their dts logged its start; h2's: $(tail -n 1 "$T_LOG/sched-h2.log" | cut -d' ' -f2-)"
for v in "${TC[@]}"; do
	awk -v v="$v" -v si="$SI_S" 'BEGIN { exit !(v <= si + 0.5) }' ||
	    t_fail "C's job came into a table ${v} s after it started: more than one SI"
done
j=$(c_op_jobs)
grep -qx "rows 2" <<< "$j" && grep -qx "node h0 $(printf '%s\n' "$ja" "$jc" | sort | paste -sd,)" <<< "$j" &&
    grep -qx "node h1 $(printf '%s\n' "$ja" "$jc" | sort | paste -sd,)" <<< "$j" &&
    grep -qx "node h2 $ja" <<< "$j" || t_fail "jobs with C's: $j"
t_log "jobs with C's: $(paste -sd';' <<< "$j")"
for k in 0 1; do kill "${CP[k]}" 2> /dev/null; done
t_wait_for 5 eval '[ -z "$(c_job_pids h0 "$C" c1)$(c_job_pids h1 "$C" c1)" ]' || t_fail "C's job did not end"
kill "$HOG"
c_exec h0 "${UA[@]}" "$T_DIR/bin/dts-pvmctl" -T 10 halt > /dev/null 2>&1
t_wait_for 10 eval '[ -z "$(c_job_pids h0 "$A" pvm)$(c_job_pids h1 "$A" pvm)$(c_job_pids h2 "$A" pvm)" ]' ||
    t_fail "A's gangs not empty after A's halt"
t_pass
