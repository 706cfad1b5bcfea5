#!/bin/bash
# t115-lift-clone.sh - a lift (dts(8), LIFTS) closed while the lifted
# process is in mid-clone must leave no thread at real-time priority
# outside DTS ([R4 1/5], attacker tests).  User A's lifter clones
# threads all along (4 chains: each link creates the next and exits, so
# a link born at RR would hand RR down its chain for good) while it is
# lifted into A's job and let go, again and again for 6 s (lifts of
# 30 ms, as the lift budget allows), then goes on cloning unlifted for
# 2 s; in two schedules: STATIC at IP 1 s (PS 50 %), and HPDT (the gang
# never frozen, always at RR).  A sampler reads every thread of the
# lifter all along: its cgroup, its policy, its cgroup again; a thread at
# SCHED_RR or SCHED_FIFO that was outside A's gang both times is a
# thread at RT outside DTS, and fails the test.  Afterwards no thread of
# A's outside a gang is at RT.  Tolerant: the checks count threads, not
# times.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup lift-clone
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs"
t_need python3 python3

t_make_user
t_user_argv
t_pub_bin "$BUILD/run/dts-run" "$BUILD/run/dts-pvmjoin" "$BUILD/tests/pvm/dts-pvmctl" \
    "$BUILD/tests/tools/lifter" || t_fail "cannot publish binaries"
bin=$T_DIR/bin
n_conf mode='"static"' ip='"1s"' ps='"50%"'
n_split_cpus
n_start_dts
N_RUN=$bin/dts-run n_start_pvmd "${T_USER_ARGV[@]}"
N_GANG=$(n_job_cg "$T_USER")
GANG_REL=${N_GANG#"$(t_cg_mount)"}

# sampler PID OUT: until PID is gone, every thread of PID: cgroup, policy,
# cgroup; lines "bad TID POLICY CG" for RT outside the gang, then
# "samples N threads T rt_in_gang R bad B"
cat > "$bin/rtsample.py" <<-'EOF'
import os, sys, time
pid, gang, out = sys.argv[1], sys.argv[2], open(sys.argv[3], "w", buffering=1)
def cg(tid):
    try:
        with open("/proc/%s/task/%s/cgroup" % (pid, tid)) as f:
            for l in f:
                if l.startswith("0::"):
                    return l[3:].strip()
    except OSError:
        return None
def policy(tid):
    try:
        with open("/proc/%s/task/%s/stat" % (pid, tid)) as f:
            v = f.read().rsplit(")", 1)[1].split()
            return int(v[38]), v[0]
    except (OSError, IndexError, ValueError):
        return None, None
n = seen = rt = bad = slow = 0
while os.path.exists("/proc/%s/task" % pid):
    try:
        tids = os.listdir("/proc/%s/task" % pid)
    except OSError:
        break
    n += 1
    for t in tids:
        t0 = time.monotonic()
        a = cg(t); p, st = policy(t); b = cg(t)
        if a is None or p is None or b is None:
            continue
        if time.monotonic() - t0 > 0.002:
            slow += 1    # preempted between the reads: a lift may have
            continue     # begun and ended meanwhile
        seen += 1
        if p in (1, 2) and st not in ("X", "Z"):
            if a == gang or b == gang:
                rt += 1
            else:
                bad += 1
                out.write("bad %s %d %s %s %.3f\n" % (t, p, st, b, time.monotonic()))
out.write("samples %d threads %d rt_in_gang %d bad %d (%d reads too slow to count)\n" % (n, seen, rt, bad, slow))
EOF

# attempt NAME: the lifter (4 chains) lifted and let go for 6 s, then
# 2 s unlifted, sampled all along
attempt() {
	local name=$1 pid spid line g bad
	"${T_USER_ARGV[@]}" DTS_SOCKET="$N_SOCK" taskset -c 1 "$bin/lifter" -c 4 -d 6000 -h 30 -w 2000 \
	    > "$T_LOG/$name.out" 2>&1 &
	pid=$!
	t_track "$pid"
	python3 "$bin/rtsample.py" "$pid" "$GANG_REL" "$T_LOG/$name.rt" &
	spid=$!
	t_track "$spid"
	wait "$pid" || t_fail "$name: lifter: $(tail -n 3 "$T_LOG/$name.out")"
	t_untrack "$pid"
	wait "$spid"
	t_untrack "$spid"
	g=$(sed -n 's/^granted=\([0-9]*\) .*$/\1/p' "$T_LOG/$name.out")
	line=$(tail -n 1 "$T_LOG/$name.rt")
	bad=$(grep -c '^bad ' "$T_LOG/$name.rt")
	t_log "$name: $g lifts of a cloning process; $line; $(tail -n 1 "$T_LOG/$name.out")"
	[ "${g:-0}" -ge 5 ] || t_fail "$name: only ${g:-0} lifts: $(grep ERR "$T_LOG/$name.out" | head -n 2)"
	grep -q "rt_in_gang [1-9]" <<< "$line" || t_fail "$name: no thread seen lifted at RT: $line"
	[ "$bad" = 0 ] || t_fail "$name: $bad thread samples at RT outside the gang: $(grep '^bad ' "$T_LOG/$name.rt" | head -n 3 | paste -sd';')"
}

attempt static-ip1s
n_send schedule hpdt 500000 1000000 > /dev/null || t_fail "no reply to schedule hpdt"
t_sleep 0.5
attempt hpdt

t_as_user env DTS_SOCKET="$N_SOCK" "$bin/dts-pvmctl" -T 30 halt > /dev/null 2>&1
t_wait_for 10 n_gang_empty || t_fail "halt left $(n_gang_pids | wc -w) gang members"
bad=$(ps -u "$T_USER" -Lo pid=,cls=,stat= | awk '$3 !~ /^Z/ && $2 != "TS"')
[ -z "$bad" ] || t_fail "$T_USER: left at RT: $bad"
t_pass "no thread of a cloning lifted process left at RT outside the gang"
