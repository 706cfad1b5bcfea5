# mpi.sh - the body of t84-cluster-mpi-openmpi.sh and t86-cluster-mpi-mpich.sh
# (bash; source it with MPI_KIND=ompi or mpich): real MPI jobs on a 3-host
# DTS cluster in network namespaces (tests/system/cluster.sh), every
# launcher's per-node process a gang through dts-run, driven by
# `dts-console -n` from the job's own host file.
#
# The launch lines (cluster.sh, c_mpi_argv): the launcher on h0 runs as
# `dts-run -- mpirun.openmpi ...` / `dts-run -- mpiexec.mpich ...` (it runs
# h0's ranks itself), and starts its per-node daemon on h1, h2 (orted,
# hydra_pmi_proxy) through dts-ssh, whose remote command is dts-run, so
# each host's dts adopts it.  The program is tests/bench/mpiloop.c (a
# token around the ranks plus an Allreduce, each checked, every
# iteration), built with mpicc.openmpi / mpicc.mpich; Open MPI also runs
# NetPIPE (NPopenmpi, netpipe-openmpi) when installed.
#
#  1. dts-console -n (no pvmd anywhere): `hosts FILE` reads the launcher's
#     host file (Open MPI's "hK slots=1", MPICH's "hK:1") and lists the 3
#     hosts; a bad line names the file and the line and changes nothing;
#     each PVM command (conf, add, delete, tasks, spawn, halt) fails
#     saying PVM is off; `mode static; ip 100ms; ps 50%; si 1s; start`
#     goes to the 3 hosts, and status shows them static and slicing.
#  2. A 2-host job (busy-polling waits, MPI's own) completes under STATIC
#     with each rank in its own host's gang (its cgroup, reported by the
#     rank itself); so does one through the other launch line (Open MPI:
#     --launch-agent "dts-run -- orted" and a plain ssh; MPICH:
#     -bootstrap-exec dts-ssh); NetPIPE too (Open MPI).
#  3. A 3-host job, busy-polling, completes the same way.  A longer one
#     (sleeping waits, so this 2-CPU machine keeps CPU for the checks;
#     it runs until the checks are done, a stop file):
#     the launcher is in h0's gang and the daemon in h1's and h2's, every
#     gang member is SCHED_RR, every rank is seen stopped in some LS; a
#     second job with its own label (DTS_JOB) runs beside it as a job of
#     its own on h0, and through dts-ssh on h1;
#     `load` and `trace` cover the 3 hosts (PS and LS edges of each);
#     every mode goes to all 3 (balanced, distributed, hpdt: ranks RR and
#     never stopped, off: ranks SCHED_OTHER and never stopped, static);
#     the job completes.
#  4. stop during a job: every host releases its gang (nothing stopped,
#     frozen or real-time left on any host) and the job completes.
#  5. The end of a job (SIGTERM to the launcher, as an interrupted mpirun):
#     every gang empties and nothing is left stopped or real-time.
#  6. kill -9 of h1's dts during a job: its dts-load releases h1's gang
#     (the rank there runs on, SCHED_OTHER, never stopped), the job
#     completes; h0 and h2 go on slicing; a new dts on h1 slices again.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup "$(basename "$0" .sh)"
t_need_built console/dts-console
c_mpi_need "$MPI_KIND"

N=3
C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "50%"; si = "1s"; sync = "arrival";'
C_SC_CONSOLE_EXTRA='status_wait = "400ms";'
c_up $N --no-pvm
c_mpi_setup "$MPI_KIND"
case $MPI_KIND in
mpich) HF=$T_DIR/mpi/machines-$N DAEMON=hydra_pmi_proxy LAUNCHER=mpiexec.mpich ;;
*) HF=$T_DIR/mpi/hosts-$N DAEMON=orted LAUNCHER=mpirun.openmpi ;;
esac
PROG=$(basename "$C_MPI_PROG")
PROG=${PROG:0:15}	# as /proc/PID/comm has it

# ---- 1. dts-console -n, hosts FILE ----------------------------------------
C_SC_ARGS=-n c_sc_open
c_sc_cmd "hosts $HF" || t_fail "hosts: $C_SC_ERR"
[ -z "$C_SC_ERR" ] || t_fail "hosts $HF: $C_SC_ERR"
grep -qx "$N hosts from $HF: the console drives them from now on" <<< "$C_SC_OUT" ||
    t_fail "hosts $HF: $C_SC_OUT"
for ((k = 0; k < N; k++)); do
	awk -v h="h$k" -v a="$(c_addr h$k)" '$1 == h && $2 == a && $3 == 1 { f = 1 }
	    END { exit !f }' <<< "$C_SC_OUT" || t_fail "hosts: no row for h$k: $C_SC_OUT"
done
printf 'h0:1\n# fine so far\nh1 slots=two\n' > "$T_DIR/mpi/bad"
c_sc_cmd "hosts $T_DIR/mpi/bad" || t_fail "hosts bad: $C_SC_ERR"
grep -q "hosts: $T_DIR/mpi/bad:3: bad count \"two\" in \"slots=two\" (1 to 1000000)$" <<< "$C_SC_ERR" ||
    t_fail "hosts with a bad line: '$C_SC_ERR'"
[ "$(wc -l <<< "$C_SC_ERR")" = 1 ] || t_fail "hosts: more than one line: $C_SC_ERR"
c_sc_cmd hosts
grep -qx "$N hosts from $HF" <<< "$C_SC_OUT" || t_fail "a bad host file changed the hosts: $C_SC_OUT"
for cmd in conf "add h1" "delete h1" tasks "spawn -n 1 spin" halt; do
	c_sc_cmd "$cmd" || t_fail "$cmd: $C_SC_ERR"
	grep -q ": ${cmd%% *}: a PVM command, and PVM is off (dts-console -n)" <<< "$C_SC_ERR" ||
	    t_fail "$cmd with -n: '$C_SC_ERR'"
done
for ((k = 0; k < N; k++)); do
	! _c_daemon_on "$k" pvmd || t_fail "a pvmd runs on h$k"
done
c_sc_cmd "mode static; ip 100ms; ps 50%; si 1s; start" || t_fail "start: $C_SC_ERR"
grep -q "^started: mode static, PS 50ms of IP 100ms, SI 1s, sync arrival; sent to $N destinations$" \
    <<< "$C_SC_OUT" || t_fail "start: $C_SC_OUT $C_SC_ERR"

# m_mode_rows MODE [STATE]: the console's status shows every host in MODE
# (and STATE)
m_mode_rows() {
	local k
	c_sc_cmd status || return 1
	grep -q "^$N nodes answered" <<< "$C_SC_OUT" || return 1
	for ((k = 0; k < N; k++)); do
		awk -v h="h$k" -v m="$1" -v s="${2:-}" '$1 == h && $3 == m && (s == "" || $4 == s) { f = 1 }
		    END { exit !f }' <<< "$C_SC_OUT" || return 1
	done
}
t_wait_for 10 m_mode_rows static slicing || t_fail "not every host static and slicing: $C_SC_OUT"
t_log "console -n: hosts $HF, PVM commands refused, static on $N hosts"

# ---- helpers ------------------------------------------------------------------
# m_job_ok NAME N [MIN]: the job's log has N rank lines, each rank in its
# host's gang, and a complete result line, of at least MIN (1) iterations
# (in ITERS).  The jobs run for a time (-i 0 -t SECS), not a number of
# iterations: busy-polling ranks at SCHED_RR, more of them than CPUs here,
# take turns of the kernel's RR time slice (100 ms).
m_job_ok() {
	local log=$T_LOG/$1.log
	c_mpi_ranks_ok "$log" "$2" || t_fail "$1: $MPI_WHY ($(paste -sd'|' "$log"))"
	grep -q "^mpiloop ranks=$2 iters=[1-9][0-9]* .* complete=1$" "$log" ||
	    t_fail "$1: no complete result: $(tail -n 3 "$log" | paste -sd'|')"
	ITERS=$(sed -n 's/^mpiloop .* iters=\([0-9]*\) .*/\1/p' "$log")
	[ "$ITERS" -ge "${3:-1}" ] || t_fail "$1: only $ITERS iterations"
}
m_ranks_up() { [ "$(grep -c '^rank [0-9]* of ' "$T_LOG/$1.log")" -ge "$2" ]; }
# m_rank_pid NAME K: the pid of rank K, from the job's log
m_rank_pid() { awk -v k="$2" '$1 == "rank" && $2 == k { print $8 }' "$T_LOG/$1.log"; }
# leftovers: nothing stopped, frozen, real-time or idle on any host
m_no_leftovers() {
	local k l
	LEFT=
	for ((k = 0; k < N; k++)); do
		l=$(c_ft_leftovers h$k)
		[ -z "$l" ] || LEFT="$LEFT h$k: $l;"
	done
	[ -z "$LEFT" ]
}
m_gangs_empty() {
	local k
	for ((k = 0; k < N; k++)); do [ -z "$(c_gang_pids h$k)" ] || return 1; done
}
# m_never_stopped SECS WHAT K:PID...: no PID (on host K) stopped for SECS
m_never_stopped() {
	local end kp secs=$1 what=$2
	shift 2
	end=$(($(_t_now_us) + $(_t_secs_to_us "$secs")))
	while [ "$(_t_now_us)" -lt "$end" ]; do
		for kp in "$@"; do
			! c_is_stopped "${kp%%:*}" "${kp#*:}" ||
			    t_fail "$what: pid ${kp#*:} of h${kp%%:*} seen stopped"
		done
		sleep 0.005
	done
}
# m_all_ranks: "K:PID" of every rank in RANK
m_all_ranks() { local k; for k in "${!RANK[@]}"; do echo "$k:${RANK[k]}"; done; }

# ---- 2. 2 hosts -----------------------------------------------------------------
c_mpi_run 2 job2 -r -i 0 -t 5 || t_fail "2-host job: status $C_MPI_RC: $(tail -n 5 "$T_LOG/job2.log")"
m_job_ok job2 2 20
t_log "2 hosts: $ITERS iterations, each rank in its host's gang"
# the other launch line: Open MPI's own launch agent (--launch-agent
# "dts-run -- orted" with a plain ssh), hydra's older option names
case $MPI_KIND in ompi) ALT=ompi-agent ;; *) ALT=mpich-boot ;; esac
C_MPI_KIND=$ALT c_mpi_run 2 alt -r -i 0 -t 2 || t_fail "$ALT: status $C_MPI_RC: $(tail -n 5 "$T_LOG/alt.log")"
m_job_ok alt 2 10
t_log "2 hosts through $ALT: $ITERS iterations, each rank in its host's gang"
if [ "$MPI_KIND" = ompi ] && command -v NPopenmpi > /dev/null; then
	C_MPI_PROG=$(command -v NPopenmpi) c_mpi_run 2 netpipe -u 65536 -n 5 -p 0 -o "$T_DIR/np.out" ||
	    t_fail "NetPIPE: status $C_MPI_RC: $(tail -n 5 "$T_LOG/netpipe.log")"
	[ "$(awk 'NF == 3 && $1 > 0 && $2 > 0 && $3 > 0' "$T_DIR/np.out" | wc -l)" -ge 20 ] &&
	    grep -q '65536 bytes' "$T_LOG/netpipe.log" ||
	    t_fail "NetPIPE: incomplete: $(tail -n 3 "$T_LOG/netpipe.log" | paste -sd'|')"
	t_log "NetPIPE on 2 hosts: $(grep '65536 bytes' "$T_LOG/netpipe.log" | tr -s ' ')"
fi

# ---- 3. 3 hosts -----------------------------------------------------------------
c_mpi_run 3 job3 -r -i 0 -t 8 || t_fail "3-host job: status $C_MPI_RC: $(tail -n 5 "$T_LOG/job3.log")"
m_job_ok job3 3 5
t_log "3 hosts, busy polling: $ITERS iterations, each rank in its host's gang"

# until the checks below are done (a stop file), not for a fixed time: a
# loaded machine took more than 40 s to reach the hpdt check, and rank 0
# had ended (-t 120: a backstop)
c_mpi_bg 3 long -r -i 0 -t 120 -s 200 -f "$T_DIR/mpi/long.stop"
t_wait_for 60 m_ranks_up long 3 || t_fail "3-host job: no ranks: $(tail -n 5 "$T_LOG/long.log")"
c_mpi_ranks_ok "$T_LOG/long.log" 3 || t_fail "long: $MPI_WHY"
declare -a RANK
for ((k = 0; k < N; k++)); do RANK[k]=$(m_rank_pid long $k); done
c_gang_pids h0 | grep -qx "$C_MPI_PID" || t_fail "the launcher $C_MPI_PID is not in h0's gang"
[ "$(_c_comm "$C_MPI_PID")" = "$LAUNCHER" ] || t_fail "pid $C_MPI_PID is $(_c_comm "$C_MPI_PID"), not $LAUNCHER"
for k in 1 2; do
	[ -n "$(c_gang_pids h$k "$DAEMON")" ] || t_fail "no $DAEMON in h$k's gang: $(c_gang_pids h$k | paste -sd' ')"
done
for ((k = 0; k < N; k++)); do
	for p in $(c_gang_pids h$k); do
		[ "$(t_policy "$p")" = RR ] || t_fail "h$k: gang member $p ($(_c_comm "$p")) is $(t_policy "$p"), not RR"
	done
done
declare -A STOPPED
end=$(($(_t_now_us) + 1500000))
while [ "$(_t_now_us)" -lt "$end" ]; do
	for ((k = 0; k < N; k++)); do
		c_is_stopped "$k" "${RANK[k]}" && STOPPED[$k]=$((${STOPPED[$k]:-0} + 1))
	done
	sleep 0.003
done
for ((k = 0; k < N; k++)); do
	[ "${STOPPED[$k]:-0}" -gt 0 ] || t_fail "rank $k (pid ${RANK[k]}, h$k) never seen stopped under STATIC"
done
t_log "launcher in h0's gang, $DAEMON in h1's and h2's, all RR; every rank seen stopped (${STOPPED[*]})"

# several jobs per node: a second job of its own label (DTS_JOB, which
# dts-run and dts-ssh pass on) runs beside the first, as root:second, on
# the launcher's node (dts-run) and on a remote one (dts-ssh)
out=$( (DTS_JOB=second C_MPI_TIMEOUT=60 c_mpi_run 2 second -i 10; echo "status $C_MPI_RC") 2>&1 | tail -n 1)
[ "$out" = "status 0" ] && grep -q "complete=1" "$T_LOG/second.log" ||
    t_fail "a second job on h0: $out: $(head -n 3 "$T_LOG/second.log")"
t_logged "job root:second started" "$T_LOG/dts-h0.log" ||
    t_fail "the second job was not a job of its own on h0"
out=$(c_exec h2 env DTS_JOB=second2 DTS_SSH=c-ssh DTS_RUN="$BUILD/run/dts-run" "$BUILD/run/dts-ssh" h1 echo ran 2>&1)
rc=$?
[ "$rc" = 0 ] && grep -q ran <<< "$out" || t_fail "dts-ssh to a node with a job: status $rc: $out"
t_logged "job root:second2 started" "$T_LOG/dts-h1.log" ||
    t_fail "dts-ssh's job was not root:second2 on h1"
t_log "a second job runs beside the first on h0 (dts-run) and through dts-ssh on h1, each a job of its own"

c_sc_cmd load || t_fail "load: $C_SC_ERR"
[ "$(grep -cE '^h[0-2] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[a-z0-9]+ +[0-9.]+ +yes' <<< "$C_SC_OUT")" = $N ] ||
    t_fail "load: not $N live rows: $C_SC_OUT"
c_sc_cmd "trace $T_DIR/trace.csv 1s" || t_fail "trace: $C_SC_ERR"
for ((k = 0; k < N; k++)); do
	for ph in PS LS; do
		[ "$(grep -c "^h$k,$(c_addr h$k),$ph," "$T_DIR/trace.csv")" -ge 5 ] ||
		    t_fail "trace: too few $ph edges of h$k: $(head -n 3 "$T_DIR/trace.csv" | paste -sd'|')"
	done
done
t_log "load and trace cover the $N hosts ($(($(wc -l < "$T_DIR/trace.csv") - 1)) edges in 1 s)"

for m in balanced distributed hpdt off static; do
	c_sc_cmd "mode $m" && c_sc_cmd start || t_fail "mode $m: $C_SC_ERR"
	grep -q "^started: mode $m" <<< "$C_SC_OUT" || t_fail "mode $m: $C_SC_OUT $C_SC_ERR"
	t_wait_for 10 m_mode_rows "$m" || t_fail "not every host in $m: $C_SC_OUT"
	case $m in
	hpdt | off)	# RR or plain, and never stopped
		t_sleep 0.3
		want=TS
		[ "$m" = hpdt ] && want=RR
		for ((k = 0; k < N; k++)); do
			[ "$(t_policy "${RANK[k]}")" = "$want" ] ||
			    t_fail "$m: rank $k is $(t_policy "${RANK[k]}")"
		done
		m_never_stopped 1 "$m" $(m_all_ranks) ;;
	esac
done
t_log "balanced, distributed, hpdt (ranks RR, never stopped), off (ranks TS, never stopped), static: all $N hosts"
: > "$T_DIR/mpi/long.stop" || t_fail "cannot write the long job's stop file"
c_mpi_wait 90 || t_fail "long job: status $C_MPI_RC: $(tail -n 5 "$T_LOG/long.log")"
m_job_ok long 3
t_log "long job: $ITERS iterations"

# ---- 4. stop during a job ---------------------------------------------------------
c_mpi_bg 3 stopjob -r -i 0 -t 8 -s 200
t_wait_for 60 m_ranks_up stopjob 3 || t_fail "stop job: no ranks: $(tail -n 5 "$T_LOG/stopjob.log")"
c_sc_cmd stop || t_fail "stop: $C_SC_ERR"
grep -q "^stopped: the nodes release their gangs .*sent to $N destinations" <<< "$C_SC_OUT" ||
    t_fail "stop: $C_SC_OUT"
t_wait_for 5 m_mode_rows static idle || t_fail "after stop, not every host idle: $C_SC_OUT"
t_wait_for 3 m_no_leftovers || t_fail "after stop:$LEFT"
for ((k = 0; k < N; k++)); do RANK[k]=$(m_rank_pid stopjob $k); done
m_never_stopped 0.5 stop $(m_all_ranks)
c_mpi_wait 60 || t_fail "job after stop: status $C_MPI_RC: $(tail -n 5 "$T_LOG/stopjob.log")"
m_job_ok stopjob 3
t_log "stop: every gang released mid-job, nothing stopped or RT; the job completed"
c_sc_cmd start || t_fail "start: $C_SC_ERR"
t_wait_for 10 m_mode_rows static slicing || t_fail "not slicing again: $C_SC_OUT"

# ---- 5. the end of a job ----------------------------------------------------------
c_mpi_bg 3 endjob -r -i 0 -t 120 -s 200
t_wait_for 60 m_ranks_up endjob 3 || t_fail "end job: no ranks: $(tail -n 5 "$T_LOG/endjob.log")"
t_sleep 1
kill -TERM "$C_MPI_PID"
c_mpi_wait 30
[ "$C_MPI_RC" != 124 ] || t_fail "$LAUNCHER did not end within 30 s of SIGTERM"
t_wait_for 20 m_gangs_empty || t_fail "gangs not empty after the job ended: $(for k in 0 1 2; do printf 'h%s: %s; ' $k "$(c_gang_pids h$k | paste -sd' ')"; done)"
m_no_leftovers || t_fail "after the job ended:$LEFT"
for ((k = 0; k < N; k++)); do
	for p in $(c_pids h$k); do
		[ "$(_c_comm "$p")" != "$PROG" ] || ! _c_alive "$p" || t_fail "a rank is left on h$k: $p"
	done
done
t_log "end of a job (SIGTERM to $LAUNCHER, status $C_MPI_RC): every gang empty, nothing stopped or RT"

# ---- 6. kill -9 of a dts during a job -----------------------------------------------
c_mpi_bg 3 killjob -r -i 0 -t 8 -s 200
t_wait_for 60 m_ranks_up killjob 3 || t_fail "kill job: no ranks: $(tail -n 5 "$T_LOG/killjob.log")"
R1=$(m_rank_pid killjob 1)
D1=$(c_dts_pid h1) || t_fail "no dts on h1"
t_sleep 1
kill -KILL "$D1"
t_wait_for 3 eval '[ -z "$(c_ft_leftovers h1)" ] && [ "$(t_policy "$R1")" = TS ]' ||
    t_fail "h1's gang not released after kill -9 of its dts: $(c_ft_leftovers h1)"
m_never_stopped 0.5 "h1 after kill -9" "1:$R1"
c_mpi_wait 60 || t_fail "job after kill -9: status $C_MPI_RC: $(tail -n 5 "$T_LOG/killjob.log")"
m_job_ok killjob 3
for k in 0 2; do
	[ "$(c_status h$k active)" = 1 ] || t_fail "h$k stopped slicing after h1's dts died"
done
if [ "${C_DTS_PID[1]:-}" = "$D1" ]; then
	wait "$D1" 2> /dev/null
	t_untrack "$D1"
	C_DTS_PID[1]=
fi
c_start_dts 1
t_wait_for 10 m_mode_rows static slicing || t_fail "h1's new dts does not slice: $C_SC_OUT"
t_log "kill -9 of h1's dts: h1's gang released at once, the job completed ($ITERS iterations); a new dts slices"

# status 1: the bad host file and the PVM commands failed, on purpose
c_sc_close
[ "$C_SC_RC" = 1 ] || t_fail "the console exited with status $C_SC_RC: $(cat "$T_LOG/console.err")"
[ "$(grep -c '^dts-console: stdin:' "$T_LOG/console.err")" = 7 ] ||
    t_fail "the console failed more than the 7 commands expected: $(cat "$T_LOG/console.err")"
t_pass
