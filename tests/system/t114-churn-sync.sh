#!/bin/bash
# t114-churn-sync.sh - job churn must not cut the owner's LS ([R4 1/5],
# attacker tests), on a real 2-host cluster (tests/system/cluster.sh)
# driven by the operator's master (`dts-console -n --daemon`: STATIC,
# IP 100 ms, PS 50 %, SI 1 s, sync arrival):
#  - user A's job spins on each host (h0's on CPU 1 beside a local hog,
#    h1's on CPU 0);
#  - window 1, no churn: the hog's share of CPU 1 (its own CPU time), the
#    SCHEDULEs (and those with SYNC) each host got per second, and each
#    node's PS starts per IP (the slices counter of its STATUS);
#  - window 2, the same while user C runs `dts-run --job cN true` in a
#    loop (a new job each time) on both hosts: every start and end
#    changes the node's STATUS and so the master's gang matrix.
# A schedule change must take effect at an edge, never cut an LS: the
# hog keeps the LS (no less than without the churn, within a noisy
# machine's tolerance), each node starts one PS per IP (no jump), and
# the master sends SYNCs at the SI's rate, not the churn's.
# Every number measured is printed.  The harness's traps leave nothing
# frozen or real-time, no user and no namespace.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t114-churn-sync
c_jobs_need
t_need python3 python3

N=2
SI_S=1
LS=50
WIN=6		# seconds a window
c_user_a
c_make_user UC c
C=$UC
t_pub_bin "$BUILD/run/dts-run" "$BUILD/run/dts-pvmjoin" "$BUILD/console/dts-console" ||
    t_fail "t_pub_bin"
C_RUN=$T_DIR/bin/dts-run C_PVMJOIN=$T_DIR/bin/dts-pvmjoin
C_CONF_EXTRA="mode = \"static\"; ip = \"100ms\"; ps = \"50%\"; si = \"${SI_S}s\";"
C_FT_STATUS_WAIT=400ms
c_up $N --no-pvm

# every SCHEDULE to a host's dts port, with its flags (c_sched_watch:
# $T_LOG/sched-hK.log)
c_sched_watch

c_op_start "mode static; ip 100ms; ps 50%; si ${SI_S}s; start" ||
    t_fail "the operator's console: $C_FT_OUT $C_FT_ERR"

# A's spinning job on each host: h0's on CPU 1 (beside the hog), h1's on 0
declare -a SP
for k in 0 1; do
	c_bg h$k "spin-h$k" "${UA[@]}" taskset -c $((1 - k)) "$T_DIR/bin/dts-run" --job s -- sh -c 'while :; do :; done'
	SP[k]=$C_BG_PID
done
in_a() { local k; for k in 0 1; do c_job_pids h$k "$A" s | grep -qx "${SP[k]}" || return 1; done; }
t_wait_for 10 in_a || t_fail "A's job not on h0 and h1: $(cat "$T_LOG/spin-h0.log" "$T_LOG/spin-h1.log")"
"$BUILD/tests/tools/hog" -c 1 -t 0 -p "$T_DIR/hog.pid" &
t_track $!
t_wait_for 5 test -s "$T_DIR/hog.pid" || t_fail "no hog"
HOG=$(cat "$T_DIR/hog.pid")
t_sleep 2

# slices: "hK SLICES" for every node (its STATUS, through the master)
slices() {
	c_op "status --json" > /dev/null || return 1
	python3 -c '
import json, sys
t = sys.stdin.read()
d = json.loads(t if t.startswith("{") else t[t.index("\n{") + 1:])
for n in d["nodes"]:
    print(n.get("host"), n.get("slices", -1))' <<< "$C_FT_OUT"
}

# window NAME: the hog's share of CPU 1, SCHEDULEs and SYNCs per second
# at each host, PS starts per IP at each node, over WIN seconds
declare -A R
window() {
	local name=$1 a b t0 t1 ta tb k s0 s1 line
	ta=$(_t_now_us)
	a=$(slices) || t_fail "$name: no status"
	t0=$(_t_now_us)
	ta=$(((ta + t0) / 2))	# (the STATUS's time: within the round)
	t_cpu_split 1 "$WIN" "$HOG" "$(c_cg_dir 0)/jobs" "${SP[0]}" || t_fail "$name: a process ended"
	t1=$(_t_now_us)
	b=$(slices) || t_fail "$name: no status"
	tb=$(((t1 + $(_t_now_us)) / 2))
	R[$name,hog]=$T_SH_HOG R[$name,other]=$T_SH_OTHER R[$name,spin]=${T_SH[0]} R[$name,gang]=$T_SH_GANG
	line="$name: hog $T_SH_HOG % of CPU 1, A's job ${T_SH[0]} %, all of h0's jobs $T_SH_GANG %, other local work $T_SH_OTHER %;"
	for ((k = 0; k < N; k++)); do
		read -r R[$name,sched,$k] R[$name,sync,$k] <<< "$(awk -v a="$t0" -v b="$t1" \
		    '$1 * 1e6 >= a && $1 * 1e6 < b { n++; f = $2; sub(/^flags=/, "", f); if (int(f / 2) % 2) s++ }
		    END { printf "%.2f %.2f\n", n * 1e6 / (b - a), s * 1e6 / (b - a) }' "$T_LOG/sched-h$k.log")"
		s0=$(awk -v h=h$k '$1 == h { print $2 }' <<< "$a")
		s1=$(awk -v h=h$k '$1 == h { print $2 }' <<< "$b")
		[ -n "$s0" ] && [ -n "$s1" ] || t_fail "$name: no slices of h$k: $a / $b"
		R[$name,ps,$k]=$(awk -v d=$((s1 - s0)) -v a="$ta" -v b="$tb" 'BEGIN { printf "%.2f", d / ((b - a) / 1e5) }')
		line="$line h$k: ${R[$name,sched,$k]} SCHEDULE/s (${R[$name,sync,$k]} SYNC/s), ${R[$name,ps,$k]} PS starts/IP;"
	done
	t_log "$line (load $(cut -d' ' -f1 /proc/loadavg))"
}
window quiet

# C's churn: a new job each time, on both hosts; CMD: true (the
# review's), then sleep 0.2 (each job lives long enough to be in its
# node's STATUS: the master's matrix changes at every start and end)
declare -a CH
churn() {	# churn NAME CMD...: window NAME under C's churn of CMD
	local name=$1 k
	shift
	for k in 0 1; do
		: > "$T_LOG/$name-h$k.log"
		c_bg h$k "$name-h$k" "${UC_ARGV[@]}" sh -c 'run=$1; shift; i=0; while :; do i=$((i + 1)); "$run" --job "c$i" -- "$@" && echo .; done' churn "$T_DIR/bin/dts-run" "$@"
		CH[k]=$C_BG_PID
	done
	t_sleep 2
	window "$name"
	for k in 0 1; do kill "${CH[k]}" 2> /dev/null; wait "${CH[k]}" 2> /dev/null; t_untrack "${CH[k]}"; done
	R[$name,jobs]="$(grep -cx . "$T_LOG/$name-h0.log") $(grep -cx . "$T_LOG/$name-h1.log")"
	t_log "$name: C's jobs run on h0 and h1: ${R[$name,jobs]} (\$ $*)"
	[ "$(grep -cx . "$T_LOG/$name-h0.log")" -ge 10 ] && [ "$(grep -cx . "$T_LOG/$name-h1.log")" -ge 10 ] ||
	    t_fail "too little churn to measure: ${R[$name,jobs]} jobs: $(grep -vx . "$T_LOG/$name-h0.log" | head -n 2)"
	t_sleep 1
}
churn churn true
churn churn2 sleep 0.2

# the LS holds: the hog (its own CPU time) with other local work beside
# the test keeps LS - 4 and no less than without the churn (5 points for
# the noise); h0's jobs (their cgroups' time) stay within the PS; one PS an IP; SYNCs
# at the SI's rate
for w in churn churn2; do
	awk -v h="${R[$w,hog]}" -v o="${R[$w,other]}" -v l=$LS 'BEGIN { exit !(h + o >= l - 4) }' ||
	    t_fail "$w: the hog got ${R[$w,hog]} % of CPU 1 (other local work ${R[$w,other]} %, all of h0's jobs ${R[$w,gang]} %), LS $LS %"
	# no process of h0's jobs (A's spin, C's new jobs) runs in the LS
	awk -v g="${R[$w,gang]}" -v l=$LS 'BEGIN { exit !(g <= 100 - l + 1) }' ||
	    t_fail "$w: all of h0's jobs got ${R[$w,gang]} % of CPU 1's time, PS $((100 - LS)) %: a job ran in the LS"
	awk -v c="${R[$w,hog]}" -v co="${R[$w,other]}" -v q="${R[quiet,hog]}" -v qo="${R[quiet,other]}" 'BEGIN { exit !(c + co >= q + qo - 5) }' ||
	    t_fail "$w cut the LS: the hog ${R[$w,hog]} % against ${R[quiet,hog]} % without it (other local work ${R[$w,other]} / ${R[quiet,other]} %, all of h0's jobs ${R[$w,gang]} / ${R[quiet,gang]} %)"
	for ((k = 0; k < N; k++)); do
		awk -v p="${R[$w,ps,$k]}" 'BEGIN { exit !(p <= 1.15) }' ||
		    t_fail "$w: h$k started ${R[$w,ps,$k]} PS an IP (${R[quiet,ps,$k]} without): syncs cut its slices"
		awk -v s="${R[$w,sync,$k]}" -v si=$SI_S 'BEGIN { exit !(s <= 1.5 / si) }' ||
		    t_fail "$w: h$k got ${R[$w,sync,$k]} SYNC/s (SI $SI_S s; ${R[quiet,sync,$k]} without)"
	done
done
kill "$HOG"
t_pass "hog ${R[quiet,hog]} -> ${R[churn,hog]} (true) / ${R[churn2,hog]} % (sleep 0.2), all of h0's jobs ${R[quiet,gang]} -> ${R[churn,gang]} / ${R[churn2,gang]} %; SYNC/s at h0 ${R[quiet,sync,0]} -> ${R[churn,sync,0]} / ${R[churn2,sync,0]}; PS/IP at h0 ${R[quiet,ps,0]} -> ${R[churn,ps,0]} / ${R[churn2,ps,0]}"
