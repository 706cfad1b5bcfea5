#!/bin/bash
# The cgroup v2 freezer backend.  The gang is every process of the cgroup
# $N_GANG; dts freezes it in LS and thaws it in PS, through the parent of
# every job, $N_CG/jobs (its cgroup.freeze; the gang's own stays 0).  A
# member that left pvmd's session and process group (setsid) is frozen all
# the same, and a stray SIGCONT thaws nothing.  The gang gets its PS share
# against a local hog.  kill -9 of dts in LS: dts-load thaws the gang
# within 100 ms; a new dts takes the gang over and freezes it again;
# SIGTERM leaves it thawed, at SCHED_OTHER, in its root-owned cgroup.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup freezer
[ -n "$(t_cg_mount)" ] || t_skip "no cgroup2 hierarchy mounted"
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (the gang is pinned to CPU 1)"

# long slices (IP 1 s, PS 50%): a 50 ms look fits well inside one
n_conf mode='"static"' ip='"1s"' ps='"50%"' backend='"freezer"'
n_start taskset -c 1
[ -d "$N_GANG" ] || t_fail "no gang cgroup $N_GANG"
n_in_gang "$N_DTS" && t_fail "dts itself is in the gang"
n_in_gang "$N_AGENT" && t_fail "dts-load is in the gang"
n_spawn_spin
spin=$N_SPIN
n_in_gang "$spin" || t_fail "the PVM task is not in the gang cgroup"

# a member that escapes pvmd's session: PVM spawns setsid -f sh, a CPU-bound
# shell loop that keeps the gang's SCHED_RR (the hog tool would switch to
# SCHED_OTHER and starve behind the PVM task)
n_pvm spawn /usr/bin/setsid -f /bin/sh -c "echo \$\$ > $T_DIR/sid.tmp && mv $T_DIR/sid.tmp $T_DIR/sid.pid && while :; do :; done" \
    > /dev/null || t_fail "spawn of setsid failed"
t_wait_for 5 test -s "$T_DIR/sid.pid" || t_fail "the setsid loop did not start"
sid=$(cat "$T_DIR/sid.pid")
sess() { ps -o sid= -p "$1" | tr -d ' '; }
pgrp() { ps -o pgid= -p "$1" | tr -d ' '; }
# (every id read, so that a process gone cannot pass as "different")
ss=$(sess "$sid") sg=$(pgrp "$sid") ps_=$(sess "$N_PVMD") pg=$(pgrp "$N_PVMD")
[ -n "$ss" ] && [ -n "$sg" ] && [ -n "$ps_" ] && [ -n "$pg" ] ||
    t_fail "no session or group of the setsid loop $sid ('$ss', '$sg') or of pvmd $N_PVMD ('$ps_', '$pg')"
[ "$ss" = "$sid" ] || t_fail "the setsid loop $sid did not start a session of its own (session $ss)"
[ "$ss" != "$ps_" ] && [ "$sg" != "$pg" ] ||
    t_fail "the setsid loop $sid shares pvmd's session ($ss, $ps_) or process group ($sg, $pg)"
n_in_gang "$sid" || t_fail "the setsid loop $sid left the gang cgroup"
t_log "gang: pvmd $N_PVMD, PVM task $spin, setsid loop $sid (session $sid)"
members="$N_PVMD $spin $sid"

# look PHASE [SIGCONT]: within one slice of PHASE (the status's slice
# count is the same before and after), optionally SIGCONT every member,
# then check over 50 ms: LS - frozen, no member gets CPU; PS - thawed,
# both CPU-bound members run, at SCHED_RR.  Retries when an edge fell
# inside the look.
snap() { n_status | awk -F= '$1 == "phase" { p = $2 } $1 == "slices" { s = $2 } END { print p, s }'; }
# frozen_now VAR: cgroup.events's "frozen" into VAR (no fork)
frozen_now() {
	local k v
	while read -r k v; do [ "$k" = frozen ] && printf -v "$1" %s "$v"; done < "$N_GANG/cgroup.events"
}
look() {
	local want=$1 cont=${2:-} try s0 s1 p a0 a1 b0 b1 f0 f1 z own t0 t1 ran v
	for try in $(seq 20); do
		t_wait_for 3 n_phase_is "$want" || t_fail "never in $want"
		s0=$(snap)
		[ "${s0%% *}" = "$want" ] || continue
		# the window: builtins only, so that it is short on a busy machine
		[ -n "$cont" ] && kill -CONT $members
		frozen_now f0
		a0= b0= a1= b1=
		t_cpu_ns "$spin" a0; t_cpu_ns "$sid" b0
		_t_now_us t0
		sleep 0.05
		t_cpu_ns "$spin" a1; t_cpu_ns "$sid" b1
		_t_now_us t1
		frozen_now f1
		read -r z < "$N_CG/jobs/cgroup.freeze"
		read -r own < "$N_GANG/cgroup.freeze"
		s1=$(snap)
		[ "$s0" = "$s1" ] || { t_log "look $want: $s0 / $s1 (an edge in the window)"; continue; }
		# every value read (a member gone would leave two empty
		# strings, "equal"), over a window of at least 40 ms
		for v in "$a0" "$a1" "$b0" "$b1" "$f0" "$f1" "$z" "$own"; do
			case $v in '' | *[!0-9]*) t_fail "$want: unreadable: schedstat $a0 $a1 $b0 $b1, frozen $f0 $f1, freeze $z, own $own" ;; esac
		done
		[ "$own" = 0 ] || t_fail "$want: the gang's own cgroup.freeze is $own (dts holds every job through jobs/)"
		[ $((t1 - t0)) -ge 40000 ] || t_fail "$want: a window of $((t1 - t0)) us"
		if [ "$want" = LS ]; then
			[ "$f0" = 1 ] && [ "$f1" = 1 ] || t_fail "LS${cont:+ after SIGCONT}: gang not frozen ($f0, $f1)"
			[ "$z" = 1 ] || t_fail "LS: jobs/cgroup.freeze is $z, not 1"
			[ "$a0" = "$a1" ] || t_fail "LS${cont:+ after SIGCONT}: the PVM task ran $(( (a1 - a0) / 1000 )) us while frozen"
			[ "$b0" = "$b1" ] || t_fail "LS${cont:+ after SIGCONT}: the setsid loop ran $(( (b1 - b0) / 1000 )) us while frozen"
		else
			[ "$f0" = 0 ] && [ "$f1" = 0 ] || t_fail "PS: gang frozen ($f0, $f1)"
			[ "$z" = 0 ] || t_fail "PS: jobs/cgroup.freeze is $z, not 0"
			# the two spinners take turns on CPU 1 (RR, 100 ms
			# quanta): together they have most of it
			ran=$(( (a1 - a0 + b1 - b0) / 1000 ))
			[ "$ran" -gt $(( (t1 - t0) / 2 )) ] ||
			    t_fail "PS: the gang ran only $ran us of $((t1 - t0)) us"
			for p in $members; do
				[ "$(t_policy "$p")" = RR ] || t_fail "PS: $p at $(t_policy "$p"), want RR"
			done
		fi
		for p in $members; do
			[ "$(t_proc_state "$p")" != T ] || t_fail "$want: $p is SIGSTOPped (the freezer sends no signals)"
		done
		return 0
	done
	t_fail "no quiet 50 ms inside a $want in 20 tries"
}
for round in 1 2; do
	look LS
	look PS
done
look LS cont	# a stray SIGCONT thaws nothing
t_log "frozen in LS (also after SIGCONT), thawed and RR in PS: pvmd, task, setsid loop"

# the gang's share against a local hog, all on CPU 1 (IP 100 ms, PS 50%):
# the hog's own LS, and no gang process in it (n_split_ok)
n_send schedule static 50000 100000 > /dev/null || t_fail "no reply to schedule"
n_start_hog 1
t_sleep 1
n_split_ok 1 50 5 "$N_HOG" "$spin" "$sid" ||
    t_fail "freezer, PS 50%: $N_SPLIT_MSG (want 50/50 +-5, all of the gang <= 51)"
t_log "freezer, PS 50%: $N_SPLIT_MSG"
kill "$N_HOG"

# kill -9 of dts while frozen (long LS: IP 1 s, PS 10%): dts-load thaws it
n_send schedule static 100000 1000000 > /dev/null || t_fail "no reply"
for try in 1 2 3; do
	t_wait_for 2 n_gang_frozen || t_fail "not frozen"
	{	# (and reap the killed dts quietly: no "Killed" line from bash)
		out=$("$BUILD/tests/tools/gangwatch" -k "$N_DTS" -c "$N_GANG" -t 2000 "$spin")
		rc=$?
		[ $rc = 3 ] || n_reap_dts
	} 2>/dev/null
	[ $rc = 3 ] && continue	# the LS ended before the kill: try again
	[ $rc = 0 ] || t_fail "still frozen 2 s after kill -9 of dts"
	break
done
[ $rc = 0 ] || t_fail "never caught the gang frozen"
us=${out#resumed_us=}
t_log "kill -9 while frozen: thawed after $us us"
[ "$us" -lt 100000 ] || t_fail "thawed only after $us us"
for p in $members; do
	[ "$(t_policy "$p")" = TS ] || t_fail "after kill -9 of dts: $p at $(t_policy "$p")"
	n_in_gang "$p" || t_fail "$p left the gang when dts died"
done
n_gang_frozen && t_fail "frozen again after the release"

# a new dts takes the gang over and freezes it in its LS, setsid loop too
n_conf mode='"static"' ip='"1s"' ps='"50%"' backend='"freezer"'
n_start_dts taskset -c 1
t_wait_for 5 grep -q "taking over the gang in $N_GANG (3 processes)" "$T_LOG/dts.log" ||
    t_fail "the new dts did not take over the gang"
look LS
look PS

# SIGTERM: thawed, SCHED_OTHER, still in the root-owned gang cgroup
t_wait_for 3 n_gang_frozen || t_fail "not frozen before SIGTERM"
kill -TERM "$N_DTS"
n_wait_exit || t_fail "dts did not exit on SIGTERM"
[ "$N_RC" = 0 ] || t_fail "dts exit status $N_RC on SIGTERM"
n_gang_frozen && t_fail "gang left frozen after SIGTERM"
[ "$(cat "$N_GANG/cgroup.freeze")" = 0 ] || t_fail "cgroup.freeze left at 1"
for p in $members; do
	[ "$(t_policy "$p")" = TS ] || t_fail "after SIGTERM: $p at $(t_policy "$p")"
	n_in_gang "$p" || t_fail "$p left the gang cgroup"
done
[ "$(stat -c %u "$N_GANG")" = 0 ] || t_fail "$N_GANG is not root's"
n_pvm halt > /dev/null 2>&1
t_pass
