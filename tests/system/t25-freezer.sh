#!/bin/bash
# The cgroup v2 freezer backend: the gang lives in cgroup dts/<pid>, is
# frozen in LS (a stray SIGCONT cannot undo it), gets its share, is thawed
# by dts-load within 100 ms of a kill -9 of dts, and the cgroup is removed
# when dts exits normally.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup freezer
mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$mnt" ] || t_skip "no cgroup2 hierarchy mounted"
# after everything has ended: the cgroups a killed dts could not remove,
# and the shared parent if no other dts uses it
trap 't_cleanup; rmdir "$mnt"/dts/* "$mnt/dts" 2> /dev/null' EXIT
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs"

n_conf mode='"static"' ip='"100ms"' ps='"50%"' backend='"freezer"'
n_start taskset -c 1
cg=$mnt/dts/$N_DTS
[ -d "$cg" ] || t_fail "no cgroup $cg"
grep -qx "$N_PVMD" "$cg/cgroup.procs" || t_fail "pvmd not in $cg"
n_spawn_spin
spin=$N_SPIN
grep -qx "$spin" "$cg/cgroup.procs" || t_fail "the PVM task is not in the gang's cgroup"

# frozen in LS, and a stray SIGCONT does not thaw it
is_frozen() { grep -qx "frozen 1" "$cg/cgroup.events"; }
t_wait_for 2 is_frozen || t_fail "the gang was never frozen"
kill -CONT "$spin"
is_frozen || t_log "(the LS ended just now)"
c0=$(t_cpu_ns "$spin"); t_sleep 0.02; c1=$(t_cpu_ns "$spin")
t_wait_for 2 is_frozen || t_fail "not frozen again"
c0=$(t_cpu_ns "$spin"); sleep 0.01
if is_frozen; then
	kill -CONT "$spin"; c1=$(t_cpu_ns "$spin")
	is_frozen && [ "$c1" != "$c0" ] && t_fail "a frozen task ran after SIGCONT"
fi

# share against a pinned hog
"$BUILD/tests/tools/hog" -c 1 -t 0 -p "$T_DIR/hog.pid" & t_track $!
t_wait_for 5 test -s "$T_DIR/hog.pid" || t_fail "no hog"
t_sleep 1
s=($(n_shares 5 "$spin" "$(cat "$T_DIR/hog.pid")"))
t_log "freezer, PS 50%: PVM task ${s[0]}%, hog ${s[1]}%"
awk -v a="${s[0]}" 'BEGIN { exit !(a > 46 && a < 54) }' || t_fail "share ${s[0]}%, want 50 +-4"

# kill -9 of dts while frozen (long LS: IP 1 s, PS 10%): dts-load thaws it
n_send schedule static 100000 1000000 > /dev/null || t_fail "no reply"
for try in 1 2 3; do
	t_wait_for 2 is_frozen || t_fail "not frozen"
	out=$("$BUILD/tests/tools/gangwatch" -k "$N_DTS" -c "$cg" -t 2000 "$spin")
	rc=$?
	[ $rc = 3 ] && continue	# the LS ended before the kill: try again
	[ $rc = 0 ] || t_fail "still frozen 2 s after kill -9 of dts"
	break
done
[ $rc = 0 ] || t_fail "never caught the gang frozen"
t_log "kill -9 while frozen: thawed after ${out#resumed_us=} us"
[ "${out#resumed_us=}" -lt 100000 ] || t_fail "thawed only after ${out#resumed_us=} us"
n_pvm halt > /dev/null 2>&1
wait "$N_DTS" 2>/dev/null
# the killed dts could not remove its cgroup; remove it now that it is empty
t_wait_for 5 _n_gone "$N_PVMD" || t_fail "pvmd did not halt"
rmdir "$cg" 2>/dev/null

# a normal exit removes the cgroup
n_start
cg=$mnt/dts/$N_DTS
[ -d "$cg" ] || t_fail "no cgroup $cg"
n_halt || t_fail "dts did not exit"
[ ! -d "$cg" ] || t_fail "cgroup $cg left behind"
t_pass
