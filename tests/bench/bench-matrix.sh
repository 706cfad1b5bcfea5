#!/bin/bash
# bench-matrix.sh BUILD OUTDIR [--quick] - several jobs a node: the gang
# matrix (issue 22's Benchmark table, rows 1-5, and a Gantt of 3 jobs on
# 3 hosts).
#
# A 3-host namespace cluster (tests/system/cluster.sh), no pvmd at first,
# driven by `dts-console -n` on h0 (console.nodes from a host file), mode
# static, IP 100 ms, PS 80 %, SI 1 s.  h0's processes are pinned to CPU 0
# and h1's to CPU 1, with a CPU hog (SCHED_OTHER) on each of the two.
# Jobs are root's, started with `dts-run --job LABEL` on each host they
# span; their members are tests/bench/runlog.c, a spinner that logs every
# gap of more than 0.5 ms in its own CLOCK_REALTIME reads: a member sees
# its slots from the inside (frozen = a gap).
#   A. Windows of W s with 1 job of 4 members a host (1x4), then 1, 2 and
#      4 jobs of 1 member a host, each on h0 and h1:
#      row 2: each job's CPU share (its cgroup's cpu.stat, per host) vs
#             its slot share (PS / jobs), with 2 and 4 jobs;
#      row 3: skew across h0 and h1 of the slot starts (a member's resume
#             after a gap: the same slot's resume on h1 minus h0's, p99),
#             for the mid-PS slot edges with 4 jobs, against the PS starts
#             with 1 job (the same measure) and the PS edges of dts's
#             TRACE (bench-sync's measure) in the same windows;
#      row 4: the edge thread's gang operation (TRACE op_ns of the PS and
#             LS edges) with 4 gangs vs 1 gang, same run: 1 gang of 1
#             member, and 1 gang of 4 members (as many tasks as the 4
#             gangs: the cost of the gangs, apart from the tasks').
#   B. row 5: a third job e on h0 and h1 beside a and b: its entry (both
#      members adopted -> its first run on every host: it runs only in a
#      slot of its own) and exit (both members gone -> the first PS in
#      which a and b each run PS/2 in one piece on every host).
#   C. The Gantt: 3 jobs on 3 hosts (a on h0 h1 h2, b on h0 h1, c on h2
#      alone: b and c share a row), 4 IPs -> OUTDIR/matrix-gantt.svg
#      (tests/bench/matrixstat.py gantt): each host's slots (its PS and LS
#      edges from dts's TRACE, the table `jobs` printed) and when each
#      member really ran (its runlog; h2 is not pinned: 3 hosts share the
#      2 CPUs, so h1's and h2's members take turns), and the matrix as
#      `jobs` prints it.
#   D. row 1: a PVM job (tests/bench/bsp.c, 1 task a host, CPU-bound) and
#      an MPI job (tests/bench/mpiloop.c, Open MPI, busy polling) on h0
#      and h1: bsp alone (OFF, no hog: the alone time), then both at once
#      under OFF and under the matrix, then one after the other under the
#      matrix.  mpiloop's µs per iteration, bsp's completion time.
# Each window also records the "foreign" load: the busy time of both CPUs
# (/proc/stat) minus what the hogs and the jobs' cgroups used.
#
# Writes OUTDIR/matrix.csv, OUTDIR/matrix.md, OUTDIR/matrix-gantt.svg.
# Full: 8 s windows; --quick: 2 s windows, row 1 with shorter runs.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
b_init matrix "$@"
. "$SRC/tests/system/cluster.sh"
command -v python3 > /dev/null || t_fail "needs python3 (quickstart installs it: missing is a failure)"
command -v taskset > /dev/null || t_fail "needs taskset (quickstart installs it: missing is a failure)"
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs"
[ -x "$BUILD/console/dts-console" ] || t_fail "not built: dts-console (build first)"
STAT="python3 $HERE/matrixstat.py"

if [ "$B_QUICK" = 1 ]; then
	WIN=1 BSP_ROUNDS=${BENCH_BSP_ROUNDS:-50} ROW1=${BENCH_ROW1:-1}
else
	WIN=8 BSP_ROUNDS=${BENCH_BSP_ROUNDS:-300} ROW1=${BENCH_ROW1:-1}
fi
BSP_G_US=10000
WORK_US=50
b_cc runlog

C_CONF_EXTRA='mode = "off"; ip = "100ms"; ps = "80%"; silence = "60s"; log_level = "info"; max_jobs = 8;'
C_MPI_CPUS="0 1"
c_up 3 --no-pvm
t_log "cluster of 3 up in ${C_UP_S} s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
CPU=(0 1 "")
pin_host() {
	local p
	for p in $(c_pids "h$1"); do taskset -a -p -c "${CPU[$1]}" "$p" > /dev/null 2>&1; done
}
pin_host 0
pin_host 1
HOG=()
for k in 0 1; do
	c_bg h$k hog$k "$BUILD/tests/tools/hog" -c "$k"
	HOG[k]=$C_BG_PID
done

# the console: -n, the nodes from a host file, static 80 % of 100 ms
HF=$T_DIR/matrix-hosts
printf 'h%d slots=1\n' 0 1 2 > "$HF"
C_SC_ARGS=-n c_sc_open
c_sc_cmd "hosts $HF" || t_fail "console hosts: $C_SC_ERR"
c_sc_cmd "mode static; ip 100ms; ps 80%; si 1s; start" || t_fail "console start: $C_SC_ERR"
t_log "console: $C_SC_OUT"

CSV=$B_OUT/matrix.csv
echo "part,what,jobs,job,host,value,unit,n,p50,p99,max,foreign_pct,note" > "$CSV"
# row FIELD...: one CSV line; the last field (the note) quoted
row() {
	local a=("$@") n=$(($# - 1))
	a[n]="\"${a[n]//\"/\"\"}\""
	(IFS=,; echo "${a[*]}") >> "$CSV"
}
mkdir -p "$T_DIR/rl"

# ---- jobs ------------------------------------------------------------------------
declare -A JP
# jstart LABEL K [M]: a runlog member of job root:LABEL on hK (pinned as
# hK); M (2, 3...) names a further member of the same job
jstart() {
	local l=$1 k=$2 m=${3:-} pin=()
	[ -z "${CPU[$k]}" ] || pin=(taskset -c "${CPU[$k]}")
	rm -f "$T_DIR/rl/$l$m-h$k"
	c_bg h$k "job-$l$m-h$k" "${pin[@]}" "$BUILD/run/dts-run" --job "$l" -- \
	    "$B_OUT/runlog" -g 500 -t 1200 "$T_DIR/rl/$l$m-h$k"
	JP[$l$m:$k]=$C_BG_PID
	[ "$l" != e ] || JP_E[k]=$C_BG_PID
}
declare -a JP_E
jcg() { echo "$(c_cg_dir "h$2")/jobs/job.root@$1"; }
in_job() { [ "$(sed -n 's/^0:://p' "/proc/$1/cgroup" 2> /dev/null)" = "$(jcg "$2" "$3" | sed "s|^$(t_cg_mount)||")" ]; }
jwait_in() {	# LABEL K
	t_wait_for 10 in_job "${JP[$1${3:-}:$2]}" "$1" "$2" ||
	    t_fail "job $1 on h$2: pid ${JP[$1${3:-}:$2]} not in $(jcg "$1" "$2"): $(tail -n 2 "$T_LOG/job-$1${3:-}-h$2.log")"
}
# jstop LABEL K [M]: SIGTERM, wait for its log file (written at the end)
jstop() {
	local p=${JP[$1${3:-}:$2]}
	kill -TERM "$p" 2> /dev/null
	t_wait_for 10 eval '! _t_alive "$p"' || t_fail "job $1 on h$2 did not end"
	wait "$p" 2> /dev/null
	t_untrack "$p"
	unset "JP[$1${3:-}:$2]"
}
# snap NAME CG...: SNAP[NAME] = "wall_us busy_us hog0_ns hog1_ns usage_us..."
# of the cgroups CG, with bash builtins only (no fork between the reads:
# the jobs take 80 % of each CPU at real-time priority, and this shell
# runs in what is left, so a fork can take a long time).  wall_us is the
# middle of the reads.
declare -A SNAP
snap() {
	local name=$1 a b cg k v u n s i w q sq t p ns sum out=
	shift
	a=${EPOCHREALTIME/[.,]/}
	read -r _ u n s i w q sq _ < /proc/stat
	out="$(( (u + n + s + q + sq) * TICK_US ))"
	for p in "${HOG[@]}"; do
		sum=0
		for t in /proc/"$p"/task/*/schedstat; do
			read -r ns _ < "$t" 2> /dev/null && sum=$((sum + ns))
		done
		out="$out $sum"
	done
	for cg in "$@"; do
		v=0
		while read -r k u; do [ "$k" = usage_usec ] && v=$u; done < "$cg/cpu.stat"
		out="$out $v"
	done
	b=${EPOCHREALTIME/[.,]/}
	SNAP[$name]="$(( (10#$a + 10#$b) / 2 )) $out"
}
TICK_US=$((1000000 / $(getconf CLK_TCK)))
busy_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# window NAME LABELS...: W s with the jobs LABELS on h0 and h1: per job and
# host its CPU share; the TRACE of h0 and h1; the runlogs are read later.
# FOREIGN = the foreign share of both CPUs (%).
declare -A SH
window() {
	local name=$1 l k i ours=0 w d
	local -a cgs=() keys=() s0 s1
	shift
	for k in 0 1; do for l in "$@"; do cgs+=("$(jcg "$l" "$k")"); keys+=("$l:$k"); done; done
	t_sleep 1.5	# the console's next SI has the table
	c_sc_cmd "metrics $T_DIR/metrics-$name-0.prom" || t_log "metrics: $C_SC_ERR"
	snap 0 "${cgs[@]}"
	WIN_SINCE=$(date +%s%N)
	t_sleep "$WIN"
	WIN_UNTIL=$(date +%s%N)
	snap 1 "${cgs[@]}"
	c_sc_cmd "metrics $T_DIR/metrics-$name-1.prom" || t_log "metrics: $C_SC_ERR"
	read -r -a s0 <<< "${SNAP[0]}"
	read -r -a s1 <<< "${SNAP[1]}"
	w=$((s1[0] - s0[0]))
	for k in 0 1; do
		d=$(( (s1[2 + k] - s0[2 + k]) / 1000 ))
		ours=$((ours + d))
		SH[$name:hog:$k]=$(awk -v d="$d" -v w="$w" 'BEGIN { printf "%.2f", 100 * d / w }')
	done
	for i in "${!keys[@]}"; do
		d=$((s1[4 + i] - s0[4 + i]))
		ours=$((ours + d))
		SH[$name:${keys[i]}]=$(awk -v d="$d" -v w="$w" 'BEGIN { printf "%.2f", 100 * d / w }')
	done
	FOREIGN=$(awk -v b="$((s1[1] - s0[1]))" -v o="$ours" -v w="$w" -v n="$(nproc)" \
	    'BEGIN { f = 100 * (b - o) / (w * n); if (f < 0) f = 0; printf "%.1f", f }')
	for k in 0 1; do
		c_send h$k trace "$WIN_SINCE" | awk -F, -v u="$WIN_UNTIL" -v h="h$k" 'NR > 1 && $2 <= u { print h "," $0 }'
	done > "$T_DIR/trace-$name.tmp"
	echo "host,phase,real_ns,late_ns,op_ns" | cat - "$T_DIR/trace-$name.tmp" > "$T_DIR/trace-$name.csv"
	WINDOW[$name]="$WIN_SINCE $WIN_UNTIL $FOREIGN"
	t_log "window $name ($*): $((w / 1000)) ms, foreign $FOREIGN %, load $(cut -d' ' -f1 /proc/loadavg); $(for k in 0 1; do for l in "$@" hog; do printf '%s@h%s %s%% ' "$l" "$k" "${SH[$name:$l:$k]}"; done; done)"
}
declare -A WINDOW

# ---- A. 1, 2, 4 jobs ----------------------------------------------------------------
# first 1 job of 4 members a host (as many tasks as 4 jobs of 1: row 4's
# baseline for what the jobs, not the tasks, cost), then 1 job of 1
for m in "" 2 3 4; do for k in 0 1; do jstart a "$k" $m; done; done
for m in "" 2 3 4; do for k in 0 1; do jwait_in a "$k" $m; done; done
window onefour a
for m in 2 3 4; do for k in 0 1; do jstop a "$k" $m; done; done
window one a
for k in 0 1; do jstart b "$k"; done
for k in 0 1; do jwait_in b "$k"; done
window two a b
c_sc_cmd jobs || t_fail "jobs: $C_SC_ERR"
JOBS_TWO=$C_SC_OUT
for l in c d; do for k in 0 1; do jstart "$l" "$k"; done; done
for l in c d; do for k in 0 1; do jwait_in "$l" "$k"; done; done
window four a b c d
c_sc_cmd jobs || t_fail "jobs: $C_SC_ERR"
JOBS_FOUR=$C_SC_OUT
t_log "the matrix with 4 jobs: $JOBS_FOUR"
for l in a b c d; do for k in 0 1; do jstop "$l" "$k"; done; done
for name in onefour one two four; do
	read -r s u f <<< "${WINDOW[$name]}"
	case $name in onefour | one) labels="a" ;; two) labels="a b" ;; four) labels="a b c d" ;; esac
	n=$(wc -w <<< "$labels")
	# the jobs column: 1x4 for 1 job of 4 members a host
	j=$n
	[ "$name" != onefour ] || j=1x4
	for l in $labels; do
		for k in 0 1; do
			row A share "$j" "$l" "h$k" "${SH[$name:$l:$k]}" pct "" "" "" "" "$f" "slot share $(awk -v n="$n" 'BEGIN { printf "%.2f", 80 / n }')"
		done
	done
	for k in 0 1; do row A share "$j" hog "h$k" "${SH[$name:hog:$k]}" pct "" "" "" "" "$f" ""; done
	# row 3: skews (µs) of h1 vs h0: TRACE PS starts; runlog resumes per job
	$STAT traceskew "$T_DIR/trace-$name.csv" > "$T_DIR/skew-trace-$name" || t_fail "traceskew $name"
	read -r cnt p50 p99 max _ < <(b_stats < "$T_DIR/skew-trace-$name")
	row A trace_ps_skew "$j" - h1-h0 "" us "$cnt" "$p50" "$p99" "$max" "$f" "|h1 PS start - nearest h0 PS start|"
	# the slot edges inside the PS (dts's TRACE, phase slot)
	if [ "$n" -gt 1 ]; then
		$STAT traceskew "$T_DIR/trace-$name.csv" slot > "$T_DIR/skew-slot-$name" || t_fail "traceskew slot $name"
		read -r cnt p50 p99 max _ < <(b_stats < "$T_DIR/skew-slot-$name")
		row A trace_slot_skew "$j" - h1-h0 "" us "$cnt" "$p50" "$p99" "$max" "$f" "|h1 slot edge - nearest h0 slot edge|"
	fi
	for l in $labels; do
		$STAT resumeskew "$T_DIR/rl/$l-h0" "$T_DIR/rl/$l-h1" "$s" "$u" > "$T_DIR/skew-rl-$name-$l" || t_fail "resumeskew $name $l"
		read -r cnt p50 p99 max _ < <(b_stats < "$T_DIR/skew-rl-$name-$l")
		row A slot_resume_skew "$j" "$l" h1-h0 "" us "$cnt" "$p50" "$p99" "$max" "$f" "|h1 resume - h0 resume| of the same slot"
	done
	# row 4: every edge's gang op (slot edges too: METRICS histogram)
	for k in 0 1; do
		read -r cnt mean < <(awk -v h="h$k" -F'[{}]' '
		    $1 == "dts_edge_op_seconds_sum" && $2 ~ "node=\"" h "\"" { split($3, v, " "); s[FILENAME] = v[1] }
		    $1 == "dts_edge_op_seconds_count" && $2 ~ "node=\"" h "\"" { split($3, v, " "); c[FILENAME] = v[1] }
		    END { f0 = ARGV[1]; f1 = ARGV[2]; n = c[f1] - c[f0]
			printf "%d %.3f\n", n, (n > 0 ? 1e6 * (s[f1] - s[f0]) / n : 0) }' \
		    "$T_DIR/metrics-$name-0.prom" "$T_DIR/metrics-$name-1.prom" 2> /dev/null)
		row A edge_op_all "$j" - "h$k" "${mean:-}" us "${cnt:-}" "" "" "" "$f" "every edge (PS, slot, LS): METRICS dts_edge_op_seconds, mean over the window"
	done
	# row 4: the gang op at the PS and LS edges
	for ph in PS LS; do
		awk -F, -v p="$ph" 'NR > 1 && $2 == p { print $5 / 1000 }' "$T_DIR/trace-$name.csv" > "$T_DIR/op-$name-$ph"
		read -r cnt p50 p99 max mean < <(b_stats < "$T_DIR/op-$name-$ph")
		row A edge_op "$j" - "h0+h1" "$mean" us "$cnt" "$p50" "$p99" "$max" "$f" "$ph edges: TRACE op_ns (mean in value)"
	done
	awk -F, 'NR > 1 && $2 != "slot" { print $4 / 1000 }' "$T_DIR/trace-$name.csv" > "$T_DIR/late-$name"
	read -r cnt p50 p99 max mean < <(b_stats < "$T_DIR/late-$name")
	row A edge_late "$j" - "h0+h1" "$mean" us "$cnt" "$p50" "$p99" "$max" "$f" "TRACE late_ns, PS and LS edges"
done

# ---- B. row 5: entry and exit ----------------------------------------------------------
# Two jobs a and b present: the console sends a slot table that covers
# the PS, so a new job e runs only once a table names it (alone with one
# other job a node would split its PS by itself, without the console).
# dump LABEL K: the runlog of a running member writes its gaps so far
dump() {
	local f=$T_DIR/rl/$1-h$2
	rm -f "$f"
	kill -USR1 "${JP[$1:$2]}"
	t_wait_for 5 test -s "$f" || t_fail "runlog $1 on h$2 wrote nothing"
}
for l in a b; do for k in 0 1; do jstart "$l" "$k"; done; done
for l in a b; do for k in 0 1; do jwait_in "$l" "$k"; done; done
t_sleep 2.5
REPS=3
[ "$B_QUICK" = 1 ] && REPS=2
for rep in $(seq "$REPS"); do
	for k in 0 1; do jstart e "$k"; done
	for k in 0 1; do jwait_in e "$k"; done
	t_sleep 3
	for k in 0 1; do jstop e "$k"; done
	t_sleep 3
	for l in a b; do for k in 0 1; do dump "$l" "$k"; done; done
	# entry: from each host's adoption (dts's log line, ms) to the
	# member's first run (runlog's first clock read); exit: from the
	# members' last clock read to the first PS with a and b at PS/2
	r=$($STAT entry "$T_LOG/dts-h0.log:${JP_E[0]}" "$T_LOG/dts-h1.log:${JP_E[1]}" \
	    "$T_DIR/rl/e-h0" "$T_DIR/rl/e-h1") || t_fail "entry: $r"
	x=$($STAT exit "$T_DIR/rl/e-h0,$T_DIR/rl/e-h1" "$T_DIR/rl/a-h0" "$T_DIR/rl/b-h0" \
	    "$T_DIR/rl/a-h1" "$T_DIR/rl/b-h1") || t_fail "exit: $x"
	t_log "rep $rep: entry $r s, exit $x s (load $(cut -d' ' -f1 /proc/loadavg))"
	row B entry 3 e h0+h1 "${r%% *}" s "" "" "" "" "" "adopted (dts log) -> first run, worst host; per host: ${r#* }"
	row B exit 3 e h0+h1 "${x%% *}" s "" "" "" "" "" "last member's last run -> a and b each run PS/2 in one piece, worst host; per host: ${x#* }"
done
for l in a b; do for k in 0 1; do jstop "$l" "$k"; done; done

# ---- C. the Gantt: 3 jobs on 3 hosts -------------------------------------------------
for k in 0 1 2; do jstart a "$k"; done
for k in 0 1; do jstart b "$k"; done
jstart c 2
for k in 0 1 2; do jwait_in a "$k"; done
for k in 0 1; do jwait_in b "$k"; done
jwait_in c 2
t_sleep 2.5
c_sc_cmd jobs || t_fail "jobs: $C_SC_ERR"
JOBS_GANTT=$C_SC_OUT
t_log "the matrix of the Gantt: $JOBS_GANTT"
G_SINCE=$(date +%s%N)
t_sleep 1
G_UNTIL=$(date +%s%N)
for k in 0 1 2; do
	c_send h$k trace "$G_SINCE" | awk -F, -v h="h$k" 'NR > 1 { print h "," $0 }'
done > "$T_DIR/trace-gantt.csv"
for k in 0 1 2; do jstop a "$k"; done
for k in 0 1; do jstop b "$k"; done
jstop c 2
echo "$JOBS_GANTT" > "$T_DIR/jobs-gantt.txt"
$STAT gantt "$G_SINCE" "$T_DIR/trace-gantt.csv" "$B_OUT/matrix-gantt.svg" table="$T_DIR/jobs-gantt.txt" \
    a:h0="$T_DIR/rl/a-h0" a:h1="$T_DIR/rl/a-h1" a:h2="$T_DIR/rl/a-h2" \
    b:h0="$T_DIR/rl/b-h0" b:h1="$T_DIR/rl/b-h1" c:h2="$T_DIR/rl/c-h2" ||
	t_fail "gantt failed"

# ---- report (rows 2-5), again after row 1 -------------------------------------------
export MATRIX_GOALS=$T_DIR/matrix.goals
report() {
	python3 "$HERE/matrixstat.py" report "$CSV" "$B_OUT/matrix.md" "$B_QUICK" "$(b_elapsed)" "$WIN" \
	    "$T_DIR/jobs-four.txt" "$T_DIR/jobs-gantt.txt" || t_fail "the report failed"
	b_env_note >> "$B_OUT/matrix.md"
}
echo "$JOBS_FOUR" > "$T_DIR/jobs-four.txt"
echo "$JOBS_GANTT" > "$T_DIR/jobs-gantt.txt"
report

# ---- D. row 1: PVM bsp and MPI mpiloop on h0 and h1 ------------------------------------
if [ "$ROW1" = 1 ] && command -v mpirun.openmpi > /dev/null && command -v mpicc.openmpi > /dev/null; then
	gcc -O2 -Wall -o "$B_OUT/bsp" "$HERE/bsp.c" -lpvm3 || t_fail "cannot build bsp.c"
	c_mpi_setup ompi
	# dts-ssh runs `dts-run -- ...` on the remote host without a label
	# (and c-ssh clears the environment): the remote side would join
	# root:pvm, the PVM job.  Give it the MPI job's label.
	mv "$T_DIR/bin/c-ssh" "$T_DIR/bin/c-ssh.real"
	cat > "$T_DIR/bin/c-ssh" <<-EOF
	#!/bin/bash
	a=("\$@"); n=\${#a[@]}; a[n-1]="DTS_JOB=mpi \${a[n-1]}"
	exec "$T_DIR/bin/c-ssh.real" "\${a[@]}"
	EOF
	chmod 755 "$T_DIR/bin/c-ssh"
	printf '* dx=%s ep=%s\nh0\nh1\n' "$C_LAUNCHER" "$B_OUT:$BUILD/tests/pvm:/usr/bin" > "$T_DIR/hostfile-2"
	C_HOSTFILE=$T_DIR/hostfile-2
	c_start_master
	c_wait_hosts 2 || t_fail "the VM did not reach 2 hosts"
	pin_host 0
	pin_host 1
	ranks_up() { grep -q '^rank 1 of ' "$T_LOG/$1.log"; }
	setmode() { c_sc_cmd "mode $1" && c_sc_cmd start || t_fail "mode $1: $C_SC_ERR"; t_sleep 2; }
	# bsp_bg NAME: bsp from h0's PVM (1 task a host) in the background
	bsp_bg() {
		rm -f "$T_DIR/$1.bsp"
		c_bg h0 "$1" taskset -c 0 "$BUILD/tests/pvm/dts-pvmctl" -T 400 run -w h0 "$B_OUT/bsp" 1 "$BSP_G_US" "$BSP_ROUNDS" "$T_DIR/$1.bsp" 300
		BSP_PID=$C_BG_PID
	}
	bsp_wait() {
		t_wait_for 400 eval '! _t_alive "$BSP_PID"' || t_fail "bsp $1 did not end"
		wait "$BSP_PID" 2> /dev/null; t_untrack "$BSP_PID"
		BSP_LINE=$(tail -n 1 "$T_DIR/$1.bsp" 2> /dev/null)
		[ -n "$BSP_LINE" ] || t_fail "bsp $1: no result: $(tail -n 3 "$T_LOG/$1.log")"
		BSP_S=$(sed -n 's/.*elapsed_s=\([0-9.]*\).*/\1/p' <<< "$BSP_LINE")
	}
	mpi_bg() {
		DTS_JOB=mpi c_mpi_bg 2 "$1" -r -i 0 -t 600 -f "$T_DIR/stop-$1" -w "$WORK_US"
		t_wait_for 60 ranks_up "$1" || t_fail "$1: no ranks: $(tail -n 3 "$T_LOG/$1.log")"
	}
	mpi_end() {
		touch "$T_DIR/stop-$1"
		c_mpi_wait 60 || t_fail "$1: status $C_MPI_RC: $(tail -n 3 "$T_LOG/$1.log")"
		MPI_ITER=$(sed -n 's/^mpiloop .* iter_us=\([0-9.]*\) .*/\1/p' "$T_LOG/$1.log")
		MPI_N=$(sed -n 's/^mpiloop .* iters=\([0-9]*\) .*/\1/p' "$T_LOG/$1.log")
		[ -n "$MPI_ITER" ] || t_fail "$1: no result: $(tail -n 3 "$T_LOG/$1.log")"
	}
	# the alone time: OFF, no hog, nothing else
	setmode off
	for k in 0 1; do kill -STOP "${HOG[k]}"; done
	bsp_bg bsp-alone; bsp_wait bsp-alone
	for k in 0 1; do kill -CONT "${HOG[k]}"; done
	ALONE=$BSP_S
	row D bsp_alone 1 pvm h0+h1 "$ALONE" s "" "" "" "" "" "OFF, no hog, nothing else: $BSP_LINE"
	t_log "bsp alone: $ALONE s"
	for mode in off static; do
		setmode "$mode"
		b0=$(busy_ticks) t0=$(_t_now_us)
		mpi_bg "mpi-$mode"
		bsp_bg "bsp-$mode"
		bsp_wait "bsp-$mode"
		mpi_end "mpi-$mode"
		f=$(awk -v b="$(( ($(busy_ticks) - b0) * TICK_US ))" -v w="$(( $(_t_now_us) - t0 ))" -v n="$(nproc)" \
		    'BEGIN { printf "%.0f", 100 * b / (w * n) }')
		c_sc_cmd jobs > /dev/null && [ "$mode" = static ] && echo "$C_SC_OUT" > "$T_DIR/jobs-row1.txt"
		row D together 2 mpi h0+h1 "$MPI_ITER" us_per_iter "$MPI_N" "" "" "" "" "$mode, with bsp (CPUs busy $f %)"
		row D together 2 pvm h0+h1 "$BSP_S" s "" "" "" "" "" "$mode, with mpiloop: $BSP_LINE"
		t_log "$mode together: mpiloop $MPI_ITER us/iteration ($MPI_N), bsp $BSP_S s"
	done
	# one after the other, under the matrix (each alone: the whole PS)
	setmode static
	mpi_bg mpi-seq; t_sleep "$WIN"; mpi_end mpi-seq
	row D sequential 1 mpi h0+h1 "$MPI_ITER" us_per_iter "$MPI_N" "" "" "" "" "static, alone, ${WIN} s"
	bsp_bg bsp-seq; bsp_wait bsp-seq
	row D sequential 1 pvm h0+h1 "$BSP_S" s "" "" "" "" "" "static, alone: $BSP_LINE"
	t_log "one after the other (static): mpiloop $MPI_ITER us/iteration, bsp $BSP_S s"
	c_sc_cmd "mode off" && c_sc_cmd start
	report
else
	t_log "row 1 skipped (BENCH_ROW1=$ROW1, or no Open MPI)"
fi
c_sc_close
cat "$B_OUT/matrix.md"
t_log "bench-matrix: $(b_elapsed) s; wrote $CSV, $B_OUT/matrix.md"
# the rows' verdicts, as the last report computed them (speed goals)
[ -f "$MATRIX_GOALS" ] || t_fail "the report wrote no verdicts"
while read -r kind g ok; do b_goal "$kind" "$g" 'ok == 1' ok="$ok"; done < "$MATRIX_GOALS"
b_done
