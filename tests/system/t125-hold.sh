#!/bin/bash
# t125-hold.sh - the master resumes a job only where every node of it has
# room for it (dts(8), MEMORY; dts.conf(5) console.resume_reserve;
# dts-console(1) jobs), on a real 2-host cluster (cluster.sh):
#  1. zram swap of the test's own (removed at its end, whatever happens).
#     h0 and h1 run STATIC, IP 100 ms, PS 80 %, SI 500 ms under
#     dts-master -d on h0 (console.resume_reserve 256M, default); h1's
#     dts.conf has job_memory "64M".  (dts-master in the foreground,
#     in the background of the test, so that its log can be read.)
#  2. User A's job "big" on both hosts (dts-run --job big): a CPU-bound
#     spinner on each, and on h1 mempark.py touching 96 MiB under the
#     64 MiB limit, so that some of it is in swap there.  `jobs` (a
#     dts-console, the master's client) shows its MEM and SWAP, slotted.
#  3. h1 short of room: its dts moved into a v1 memory cgroup of the
#     test's own whose limit leaves it 160 MiB (its STATUS free RAM),
#     under the job's swap there + 256 MiB.  The master holds the job:
#     both hosts' SCHEDULEs name it held (sniffed), jobs says "held: h1
#     has ...", the master logs "held" once; neither spinner's CPU time
#     (/proc/PID/schedstat) grows over 2 s (20 ms allowed).
#  4. Room again (the limit lifted): "resumed" logged, the tables hold
#     nothing, both spinners run (at least 10 % of a CPU each over 2 s,
#     a floor that a busy 2-core machine keeps).
#  5. Short again: held; then the master is killed (kill -9): within the
#     dead-man's silence (3 SI = 1.5 s) + 3 s every node is back on its
#     own schedule and both spinners run again; nothing is left frozen.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t125-hold
t_need python3 python3
t_need mkswap util-linux
t_need swapon util-linux
t_need_built master/dts-master
c_jobs_need
AVAIL_KB=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
[ "$AVAIL_KB" -ge $((2 * 1024 * 1024)) ] ||
	t_skip "needs 2 GiB available ($((AVAIL_KB / 1024)) MiB is)"
MEMCG=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$MEMCG" ] || t_skip "needs a cgroup v1 memory hierarchy (a node's free RAM is driven by one here)"

# ---- 1. swap, the room cgroup, the cluster -----------------------------------
ROOM=$MEMCG/t125-room.$$
ROOM_PID= ROOM_WAS=
# room_undo: h1's dts back to its memory cgroup, ours removed
room_undo() {
	if [ -n "$ROOM_PID" ] && [ -n "$ROOM_WAS" ] && [ -d "/proc/$ROOM_PID" ]; then
		echo "$ROOM_PID" > "$MEMCG$ROOM_WAS/cgroup.procs" 2> /dev/null
	fi
	[ -d "$ROOM" ] && rmdir "$ROOM" 2> /dev/null
	return 0
}
trap 'rc=$?; room_undo; (exit $rc); t_cleanup; exit $?' EXIT
t_zram_on 512M
case $? in 1) t_skip "$T_ZRAM_WHY" ;; 2) t_fail "$T_ZRAM_WHY" ;; esac
t_log "swap: /dev/zram$T_ZRAM, 512 MiB"

N=2
SI_MS=500
c_user_a
t_pub_bin "$BUILD/run/dts-run" "$SRC/tests/tools/mempark.py" || t_fail "t_pub_bin"
C_CONF_EXTRA="mode = \"static\"; ip = \"100ms\"; ps = \"80%\"; si = \"${SI_MS}ms\";"
C_CONF_EXTRA_1='job_memory = "64M";'
c_up $N --no-pvm
c_sched_watch
mkdir -p "$T_DIR/msock" || t_fail "mkdir msock"
C_SC_CONSOLE_EXTRA="status_wait = \"300ms\"; nodes = [\"$(c_addr h0)\", \"$(c_addr h1)\"]; master_socket = \"$T_DIR/msock/m.sock\";"
c_sc_write_console_conf || t_fail "cannot write the console's configuration"
MCONF=$C_SC_CONF
# in the foreground (its log on stderr: -d would send it to /dev/null)
c_bg h0 master "$BUILD/master/dts-master" -f "$MCONF" -v \
    -c "mode static; ip 100ms; ps 80%; si ${SI_MS}ms; start"
MPID=$C_BG_PID
t_wait_for 10 grep -q "^started: mode static" "$T_LOG/master.log" ||
	t_fail "dts-master on h0 did not start: $(cat "$T_LOG/master.log")"
# jobs: the master's `jobs`, through its socket; output in JOBS
jobs_out() {
	JOBS=$(c_exec h0 "$BUILD/console/dts-console" -n -f "$MCONF" -c jobs 2>&1 < /dev/null)
	echo "$JOBS" >> "$T_LOG/jobs.log"
}

# ---- 2. A's job on both hosts ---------------------------------------------------
J=$A:big
c_bg h0 spin-h0 "${UA[@]}" taskset -c 0 "$T_DIR/bin/dts-run" --job big -- sh -c 'while :; do :; done'
SP0=$C_BG_PID
c_bg h1 spin-h1 "${UA[@]}" taskset -c 1 "$T_DIR/bin/dts-run" --job big -- sh -c 'while :; do :; done'
SP1=$C_BG_PID
c_bg h1 mem-h1 "${UA[@]}" "$T_DIR/bin/dts-run" --job big -- python3 "$T_DIR/bin/mempark.py" 96 "$T_DIR/go"
MP=$C_BG_PID
t_wait_for 60 grep -q ready "$T_LOG/mem-h1.log" ||
	t_fail "mempark did not touch its 96 MiB: $(cat "$T_LOG/mem-h1.log")"
in_job() { c_job_pids h0 "$A" big | grep -qx "$SP0" && c_job_pids h1 "$A" big | grep -qx "$SP1" &&
    c_job_pids h1 "$A" big | grep -qx "$MP"; }
t_wait_for 10 in_job || t_fail "A's processes not in job $J on h0 and h1"
# swapped: the job's swap on h1 > 0 (the master's jobs, from JOB_MEM)
swapped() {
	jobs_out
	awk -v j="$J" '$1 == j && $5 == "slotted" && $3 != "-" && $4 != "-" && $4 != "0B" { f = 1 } END { exit !f }' \
	    <<< "$(sed 's/ \(B\|KiB\|MiB\|GiB\)\b/\1/g' <<< "$JOBS")"
}
t_wait_for 15 swapped || t_fail "jobs shows no swap for $J (job_memory 64M on h1, 96 MiB touched): $JOBS"
t_log "jobs: $(grep "^$J " <<< "$JOBS")"

# grown: each spinner's CPU time over 2 s, ms, into G0 G1
grown() {
	local a0 a1 b0 b1
	t_cpu_ns "$SP0" a0 && t_cpu_ns "$SP1" a1 || t_fail "a spinner ended"
	t_sleep 2
	t_cpu_ns "$SP0" b0 && t_cpu_ns "$SP1" b1 || t_fail "a spinner ended"
	G0=$(((b0 - a0) / 1000000)) G1=$(((b1 - a1) / 1000000))
}
grown
[ "$G0" -ge 200 ] && [ "$G1" -ge 200 ] ||
	t_fail "before any hold the spinners got $G0 and $G1 ms of CPU in 2 s (want >= 200)"
t_log "slotted: the spinners got $G0 (h0) and $G1 (h1) ms of CPU in 2 s"

# ---- 3. h1 short of room ------------------------------------------------------
ROOM_PID=${C_DTS_PID[1]}
[ "$(cat "/proc/$ROOM_PID/comm" 2> /dev/null)" = dts ] || t_fail "C_DTS_PID[1] ($ROOM_PID) is not h1's dts"
ROOM_WAS=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' "/proc/$ROOM_PID/cgroup")
mkdir "$ROOM" || t_fail "mkdir $ROOM"
echo $((160 << 20)) > "$ROOM/memory.limit_in_bytes" || t_fail "cannot limit $ROOM"
echo "$ROOM_PID" > "$ROOM/cgroup.procs" || t_fail "cannot move h1's dts ($ROOM_PID) into $ROOM"
# held_both: the last SCHEDULE each host got holds the job
held_both() {
	local k
	for ((k = 0; k < N; k++)); do
		tail -n 1 "$T_LOG/sched-h$k.log" | grep -qE " held=([^ ]*,)?$J(,| |$)" || return 1
	done
}
T0=$(_t_now_us)
t_wait_for 10 held_both || t_fail "the job is not held on both hosts within 10 s: $(tail -n 1 "$T_LOG/sched-h0.log"); $(tail -n 1 "$T_LOG/sched-h1.log"); master: $(grep -i 'held\|room' "$T_LOG/master.log" | tail -3)"
t_log "held on both hosts $(t_secs "$T0" "$(_t_now_us)") s after h1's room went: h0 $(tail -n 1 "$T_LOG/sched-h0.log" | cut -d' ' -f2-); h1 $(tail -n 1 "$T_LOG/sched-h1.log" | cut -d' ' -f2-)"
jobs_out
grep -qE "^$J +2 .* held: h1 has [0-9.]+ MiB free, needs [0-9.]+ MiB \(its swap there \+ console.resume_reserve\)$" <<< "$JOBS" ||
	t_fail "jobs does not say $J is held by h1: $JOBS"
t_log "jobs: $(grep "^$J " <<< "$JOBS")"
t_wait_for 5 grep -q "job $J held: node h1 has" "$T_LOG/master.log" ||
	t_fail "the master did not log the hold: $(tail -5 "$T_LOG/master.log")"
t_sleep 0.5	# the next PS start
grown
[ "$G0" -le 20 ] && [ "$G1" -le 20 ] ||
	t_fail "held, the spinners still got $G0 (h0) and $G1 (h1) ms of CPU in 2 s (want <= 20)"
t_log "held: the spinners got $G0 (h0) and $G1 (h1) ms of CPU in 2 s"

# ---- 4. room again --------------------------------------------------------------
echo -1 > "$ROOM/memory.limit_in_bytes" || t_fail "cannot lift $ROOM's limit"
free_both() {
	local k
	for ((k = 0; k < N; k++)); do
		tail -n 1 "$T_LOG/sched-h$k.log" | grep -q " held=" && return 1
	done
	return 0
}
T0=$(_t_now_us)
t_wait_for 10 free_both || t_fail "the job is still held 10 s after h1 has room: $(tail -n 1 "$T_LOG/sched-h1.log")"
t_log "resumed $(t_secs "$T0" "$(_t_now_us)") s after h1's room came back"
t_wait_for 5 grep -q "job $J resumed: every node of it has room" "$T_LOG/master.log" ||
	t_fail "the master did not log the resume: $(tail -5 "$T_LOG/master.log")"
[ "$(grep -c "job $J held:" "$T_LOG/master.log")" = 1 ] ||
	t_fail "the hold was logged more than once: $(grep "job $J held" "$T_LOG/master.log")"
t_sleep 0.5
grown
[ "$G0" -ge 200 ] && [ "$G1" -ge 200 ] ||
	t_fail "resumed, the spinners got $G0 (h0) and $G1 (h1) ms of CPU in 2 s (want >= 200)"
t_log "resumed: the spinners got $G0 (h0) and $G1 (h1) ms of CPU in 2 s"

# ---- 5. held, then the master dies ---------------------------------------------------
echo $((160 << 20)) > "$ROOM/memory.limit_in_bytes" || t_fail "cannot limit $ROOM again"
t_wait_for 10 held_both || t_fail "not held again within 10 s"
t_sleep 0.5
kill -KILL "$MPID"
wait "$MPID" 2> /dev/null	# no "Killed" line from the shell
T0=$(_t_now_us)
fallback() {
	local k
	for ((k = 0; k < N; k++)); do
		t_logged "back to the configured schedule" "$T_LOG/dts-h$k.log" || return 1
	done
}
t_wait_for 10 fallback || t_fail "the nodes did not fall back to their own schedule 10 s after the master died"
t_log "the master killed: both nodes on their own schedule $(t_secs "$T0" "$(_t_now_us)") s later"
t_sleep 0.5
grown
[ "$G0" -ge 200 ] && [ "$G1" -ge 200 ] ||
	t_fail "after the master died the spinners got $G0 (h0) and $G1 (h1) ms of CPU in 2 s (want >= 200): the hold was left"
t_log "after the master: the spinners got $G0 (h0) and $G1 (h1) ms of CPU in 2 s"
echo -1 > "$ROOM/memory.limit_in_bytes"
touch "$T_DIR/go"
t_wait_for 20 grep -q "intact" "$T_LOG/mem-h1.log" ||
	t_fail "mempark's data after the hold: $(cat "$T_LOG/mem-h1.log")"
t_log "mempark: $(grep intact "$T_LOG/mem-h1.log")"
for p in "$SP0" "$SP1" "$MP"; do kill "$p" 2> /dev/null; done
t_pass
