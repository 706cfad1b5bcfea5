#!/bin/bash
# The memory contract (dts(8), MEMORY) on a real dts with the DEFAULT
# memory settings (memory = "50%", job_memory = all of it, max_tasks =
# 1024), the issue's scenario [R4 1/5]:
#  1. The owner (root, outside DTS) holds 3 GiB.  A test user's job
#     (dts-run --job mem) runs a python3 program that forks children of
#     600 MiB each, touched, until a fork fails or 33 run (19.8 GiB).
#  2. The job's members are in its v1 (or v2) memory and pids cgroups,
#     bounded by the contract; each has oom_score_adj 1000, which its user
#     cannot lower (where CAP_SYS_RESOURCE is in the bounding set; else
#     dts raises a lowered one again within its second).
#  3. The job's memory stays under the contract: the kernel kills the
#     job's own children, and dts logs it once.
#  4. The owner allocates and touches 3 GiB more: it succeeds, and the
#     owner's first process still lives.
#  5. A new job while the contract is full is refused in one line that
#     names the key (exit 126).
#  6. The job ends: its memory and pids cgroups are gone, and the end
#     line counts its kills.
#  7. dts-oom, the helper that writes oom_score_adj, has CAP_DAC_OVERRIDE
#     (and CAP_SYS_RESOURCE where the bounding set has it) and nothing
#     else, and dies with dts (kill -9); a new dts finds a running job's
#     v1 cgroups, removes a stale one, and the job's go at its end.
# Memory here: the owner 6 GiB and the jobs half of RAM (12 GiB on 24).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup memory
t_need python3 python3
RAM_KB=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
[ "$RAM_KB" -ge $((16 * 1024 * 1024)) ] ||
	t_skip "needs 16 GiB of RAM (the owner holds 6 GiB beside half of it)"
AVAIL_KB=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
[ "$AVAIL_KB" -ge $((RAM_KB / 2 + 7 * 1024 * 1024)) ] ||
	t_skip "needs half of RAM + 7 GiB available ($((AVAIL_KB / 1024)) MiB is)"

t_make_user
t_pub_bin "$BUILD/run/dts-run" || t_fail "cannot copy dts-run"
t_user_argv

t_pub_bin "$SRC/tests/tools/memhold.py" "$SRC/tests/tools/memforks.py" ||
    t_fail "cannot publish the memory programs"

n_conf mode='"static"' ip='"100ms"' ps='"80%"'
n_start_dts
t_logged "memory: the jobs together at most" ||
	t_fail "dts did not log its memory contract: $(grep -i memory "$T_LOG/dts.log")"
t_log "$(grep -o 'memory: the jobs together.*' "$T_LOG/dts.log" | head -1)"

# ---- 1. the owner's 3 GiB, then the job -----------------------------------
python3 "$T_DIR/bin/memhold.py" 3072 > "$T_DIR/owner1.out" &
OWNER1=$!
t_track "$OWNER1"
t_wait_for 30 grep -q ready "$T_DIR/owner1.out" || t_fail "the owner's 3 GiB: not allocated"

"${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" --job mem -- \
    python3 "$T_DIR/bin/memforks.py" 33 600 > "$T_DIR/job.out" 2> "$T_DIR/job.err" &
JOB=$!
t_track "$JOB"
CG=$(n_job_cg "$T_USER" mem)
t_wait_for 10 test -d "$CG" || t_fail "no job cgroup $CG: $(cat "$T_DIR/job.err")"

# ---- 2. its memory and pids cgroups; oom_score_adj -------------------------
REL=${N_CG#"$(t_cg_mount)"}
V1MEM=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
V1PIDS=$(awk '$3 == "cgroup" && $4 ~ /(^|,)pids(,|$)/ { print $2; exit }' /proc/self/mounts)
if [ -f "$CG/memory.max" ]; then
	MEMCG=$CG; LIMIT=$(cat "$CG/memory.max")
	PARENT_LIMIT=$(cat "$N_CG/jobs/memory.max")
elif [ -n "$V1MEM" ]; then
	MEMCG=$V1MEM$REL/jobs/job.$T_USER@mem
	[ -d "$MEMCG" ] || t_fail "no v1 memory cgroup $MEMCG for the job"
	LIMIT=$(cat "$MEMCG/memory.limit_in_bytes")
	PARENT_LIMIT=$(cat "$V1MEM$REL/jobs/memory.limit_in_bytes")
else
	t_skip "no memory controller here (cgroup v2 or v1)"
fi
WANT=$((RAM_KB * 1024 / 2))
[ "$PARENT_LIMIT" -le "$WANT" ] && [ "$PARENT_LIMIT" -ge $((WANT - 1048576)) ] ||
	t_fail "the jobs' limit is $PARENT_LIMIT, not half of RAM ($WANT)"
[ "$LIMIT" -le "$PARENT_LIMIT" ] || t_fail "the job's limit $LIMIT is above the contract $PARENT_LIMIT"
if [ -f "$CG/pids.max" ]; then PIDSCG=$CG; else PIDSCG=$V1PIDS$REL/jobs/job.$T_USER@mem; fi
[ "$(cat "$PIDSCG/pids.max")" = 1024 ] || t_fail "pids.max of $PIDSCG: $(cat "$PIDSCG/pids.max" 2>&1)"
grep -qx "$JOB" "$MEMCG/cgroup.procs" || t_fail "job pid $JOB is not in $MEMCG"
grep -qx "$JOB" "$PIDSCG/cgroup.procs" || t_fail "job pid $JOB is not in $PIDSCG"
[ "$(cat "/proc/$JOB/oom_score_adj")" = 1000 ] ||
	t_fail "job pid $JOB: oom_score_adj $(cat "/proc/$JOB/oom_score_adj"), not 1000"
t_log "job $T_USER:mem in $MEMCG (limit $LIMIT of $PARENT_LIMIT) and $PIDSCG (pids.max 1024), oom_score_adj 1000"

# ---- 3. the job fills its contract; the kernel kills the job's own --------
t_wait_for 120 grep -q forked "$T_DIR/job.out" ||
	t_fail "the job did not finish forking: $(cat "$T_DIR/job.out" "$T_DIR/job.err")"
kill -0 "$OWNER1" 2> /dev/null || t_fail "the owner's first process died while the job grew"
USED=$(cat "$MEMCG/memory.current" 2> /dev/null || cat "$MEMCG/memory.usage_in_bytes")
[ "$USED" -le "$LIMIT" ] || t_fail "the job uses $USED bytes, over its limit $LIMIT"
LIVE=$(wc -l < "$MEMCG/cgroup.procs")
t_log "the job: $(cat "$T_DIR/job.out"), $((LIVE - 1)) children alive, $((USED >> 20)) MiB of $((LIMIT >> 20))"
[ "$LIVE" -lt 34 ] || t_fail "all 33 children of 600 MiB live: nothing bounded the job"
t_logged "job $T_USER:mem: the kernel kills its processes for memory" ||
	t_fail "dts did not log the job's OOM kills"
[ "$(grep -c "job $T_USER:mem: the kernel kills its processes" "$T_LOG/dts.log")" = 1 ] ||
	t_fail "the job's OOM kills logged more than once"
# every member at 1000; its user cannot lower it
for p in $(cat "$MEMCG/cgroup.procs"); do
	a=$(cat "/proc/$p/oom_score_adj" 2> /dev/null) || continue
	[ "$a" = 1000 ] || t_fail "member $p: oom_score_adj $a"
done
CHILD=$(grep -vx "$JOB" "$MEMCG/cgroup.procs" | head -1)
adj_is() { [ "$(cat "/proc/$1/oom_score_adj")" = "$2" ]; }
OOMD=$(pgrep -P "$N_DTS" -x dts-oom) || t_fail "dts has no dts-oom helper"
if capsh --decode="$(awk '/^CapEff/ { print $2 }' "/proc/$OOMD/status")" |
    grep -q cap_sys_resource; then
	# the kernel holds 1000 as the floor: the write fails
	t_as_user sh -c "echo 0 > /proc/$CHILD/oom_score_adj" 2> /dev/null &&
		t_fail "the job's user lowered oom_score_adj of $CHILD to $(cat "/proc/$CHILD/oom_score_adj")"
	t_as_user sh -c "echo 999 > /proc/$JOB/oom_score_adj" 2> /dev/null &&
		t_fail "the job's user lowered oom_score_adj of $JOB"
	adj_is "$CHILD" 1000 || t_fail "member $CHILD: oom_score_adj changed"
	t_log "every member at oom_score_adj 1000; its user cannot lower it (EACCES)"
else
	# no CAP_SYS_RESOURCE in the bounding set (a container): dts says
	# so at start, and raises a lowered member again within its second
	t_logged "CAP_SYS_RESOURCE is not in dts's bounding set" ||
		t_fail "dts did not say that its members' floor is not held"
	t_as_user sh -c "echo 0 > /proc/$CHILD/oom_score_adj" ||
		t_fail "the job's user could not lower its own oom_score_adj"
	t_wait_for 3 adj_is "$CHILD" 1000 ||
		t_fail "member $CHILD: oom_score_adj $(cat "/proc/$CHILD/oom_score_adj") 3 s after its user lowered it"
	t_logged "job $T_USER:mem: 1 member(s) lowered their oom_score_adj: back to 1000" ||
		t_fail "dts did not log the lowered member"
	t_log "every member at oom_score_adj 1000; no CAP_SYS_RESOURCE here, so its user lowered one, and dts raised it again within 3 s"
fi

# ---- 4. the owner's next 3 GiB ----------------------------------------------
timeout 120 python3 -c '
b = bytearray(b"\1") * (3072 << 20)
print("ok")' > "$T_DIR/owner2.out" 2>&1 || t_fail "the owner's next 3 GiB failed: $(cat "$T_DIR/owner2.out")"
kill -0 "$OWNER1" 2> /dev/null || t_fail "the owner's first process was killed"
t_log "the owner's next 3 GiB succeeded; its first 3 GiB still live"

# ---- 5. a new job while the contract is full: refused ----------------------
"${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" --job mem2 -- true \
    > /dev/null 2> "$T_DIR/full.err"
rc=$?
[ "$rc" = 126 ] || t_fail "a new job in a full contract: exit $rc, not 126: $(cat "$T_DIR/full.err")"
[ "$(wc -l < "$T_DIR/full.err")" = 1 ] && grep -q "(dts.conf: memory)" "$T_DIR/full.err" ||
	t_fail "the refusal is not one line naming dts.conf: memory: $(cat "$T_DIR/full.err")"
[ ! -d "$(n_job_cg "$T_USER" mem2)" ] || t_fail "the refused job left its cgroup"
t_log "refused: $(cat "$T_DIR/full.err")"

# ---- 6. the job ends: its cgroups go ----------------------------------------
for p in $(cat "$CG/cgroup.procs"); do kill -KILL "$p" 2> /dev/null; done
t_wait_for 10 grep -q "job $T_USER:mem ended" "$T_LOG/dts.log" || t_fail "the job's end was not logged"
t_wait_for 5 test ! -d "$MEMCG" -a ! -d "$PIDSCG" -a ! -d "$CG" ||
	t_fail "the job's cgroups are left: $(ls -d "$MEMCG" "$PIDSCG" "$CG" 2>&1)"
grep "job $T_USER:mem ended" "$T_LOG/dts.log" | grep -q 'process(es) killed for memory' ||
	t_fail "the end line does not count the kills: $(grep "job $T_USER:mem ended" "$T_LOG/dts.log")"
t_log "$(grep -o "job $T_USER:mem ended.*" "$T_LOG/dts.log")"
kill "$OWNER1"

# ---- 7. dts-oom: two capabilities; kill -9 of dts, a takeover ---------------
OOMD=$(pgrep -P "$N_DTS" -x dts-oom) || t_fail "dts has no dts-oom helper"
EFF=$(capsh --decode="$(awk '/^CapEff/ { print $2 }' "/proc/$OOMD/status")" | sed 's/.*=//')
case $EFF in
cap_dac_override|cap_dac_override,cap_sys_resource) ;;
*) t_fail "dts-oom $OOMD has the capabilities $EFF" ;;
esac
[ "$(awk '/^CapBnd/ { print $2 }' "/proc/$OOMD/status")" = "$(awk '/^CapEff/ { print $2 }' "/proc/$OOMD/status")" ] ||
	t_fail "dts-oom's bounding set is more than its capabilities"
t_as_user cat "/proc/$OOMD/environ" > /dev/null 2>&1 && t_fail "the job's user reads dts-oom's environ"
"${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" "$T_DIR/bin/dts-run" --job keep -- sleep 600 \
    2> "$T_DIR/keep.err" &
KEEP=$!
t_track "$KEEP"
KCG=$V1MEM$REL/jobs/job.$T_USER@keep
[ -z "$V1MEM" ] || [ -f "$CG/memory.max" ] && KCG=$(n_job_cg "$T_USER" keep)
t_wait_for 10 grep -qsx "$KEEP" "$KCG/cgroup.procs" || t_fail "job keep: pid $KEEP not in $KCG"
STALE=${KCG%/*}/job.nobody@stale
[ "$KCG" = "$(n_job_cg "$T_USER" keep)" ] || mkdir "$STALE" || t_fail "cannot make $STALE"
kill -KILL "$N_DTS"
n_reap_dts
t_wait_for 3 eval '! kill -0 '"$OOMD"' 2> /dev/null' || t_fail "dts-oom outlived dts (kill -9) by 3 s"
n_start_dts
t_logged "taking over the gang in .*job.$T_USER@keep" || t_fail "the new dts did not take job keep over"
grep -qx "$KEEP" "$KCG/cgroup.procs" || t_fail "job keep: pid $KEEP left $KCG at the takeover"
[ ! -d "$STALE" ] || t_fail "the takeover left the stale v1 cgroup $STALE"
kill "$KEEP"
t_wait_for 10 test ! -d "$KCG" || t_fail "job keep's cgroup $KCG outlived it"
t_log "dts-oom: $EFF only, not dumpable, gone with dts; a new dts found job keep's cgroups, removed a stale one, and job keep's went at its end"
t_pass
