#!/bin/bash
# t122-place.sh - dts-place (dts(8) PLACEMENT): an unchanged pvm-examples
# master (master1, which spawns 3 slave1 a host with PvmTaskDefault: 9
# here) run under dts-place on a real 3-host PVM virtual machine
# (tests/system/cluster.sh).
#
# Every host's Load agent samples the whole machine's run queue here
# (procs_running is not per network namespace: t72, t74), so the hosts'
# load indexes cannot differ; the hogs are CPU-bound PVM tasks (spin)
# spawned to a named host instead, which the hosts report as members of
# the job's gang (STATUS), and dts-place's conf sets place.load_weight 0.
#
#  1. One hog on h0, two on h1, none on h2 (2 CPUs each): the first task
#     and the most go to the free host, the fewest to the twice-loaded one
#     (h2 4, h0 3, h1 2: every host ends at 4 runnable; PVM's circle puts
#     3 everywhere), the free host's first in the record and first
#     spawned, each record line with its tasks' tids.  master1 gets
#     every result; RECORD.prom
#     (dts_place_tasks_total per host) says the same; -v logged each
#     host's class and goodness.
#  1b. One spin spawned with no host named under dts-place (its default
#     record): on h2, and the console's tasks shows it PLACED
#     "2.000 candidate" there, the hogs "-".
#  2. h2's dts in a cgroup v1 memory group of 256 MiB (its STATUS mem_mib
#     under 256) and place.mem_min 1024: h2 is low-ram and gets none of
#     master1's 9 tasks although it is the idlest host: h0 5, h1 4 (h2
#     out of the hosts' mean too, so h1 is not over the threshold).
#  3. No load known (a dts.conf without console_keys): two master1 runs
#     under one dts-place both complete, placed by PVM's circle
#     (dts_place_circle_total 2), and dts-place said so once.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
t_setup t122-place
t_need_built place/dts-place
t_need_built place/libdtsplace.so
t_need master1 pvm-examples
[ "$(id -u)" = 0 ] || t_skip "needs root: dts is a root service"
MEMV1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)

N=3
c_up $N
export DTS_PLACE_LIB=$BUILD/place/libdtsplace.so
PLACE=$BUILD/place/dts-place

# pconf NAME KEYS: h0's dts.conf with a place group of KEYS
pconf() {
	grep -v '^place' "$T_DIR/h0/dts.conf" > "$T_DIR/$1.conf" &&
	    echo "place = { load_weight = 0.0; checks = 1; interval = \"200ms\"; $2 };" >> "$T_DIR/$1.conf"
}

# run_m1 NAME CONF CMD...: CMD (master1) under dts-place on h0, its output
# in OUT
run_m1() {
	OUT=$(c_exec h0 timeout 60 "$PLACE" -v -f "$2" -l "$T_LOG/$1.log" \
	    -r "$T_DIR/$1.rec" -- "${@:3}" 2>&1) || t_fail "$1: master1 under dts-place failed: $OUT"
}

# placed NAME HOST: tasks placed on HOST by run NAME (its record)
placed() {
	awk -v h="$2" '$4 == h { n += $5 } END { print n + 0 }' "$T_DIR/$1.rec"
}

# own K N: wait until host K's gang has N tasks besides pvmd
own() {
	OWN_H=h$1 OWN_M=$(($2 + 1))
	t_wait_for 15 eval '[ "$(c_status $OWN_H members)" = $OWN_M ]' ||
	    t_fail "$OWN_H: $OWN_M members expected in its gang, STATUS says $(c_status $OWN_H members)"
}

# ---- 1. the free host first ------------------------------------------------
for h in h0 h1 h1; do
	c_pvm h0 spawn -w $h "$BUILD/tests/pvm/spin" 300 > /dev/null || t_fail "spawn spin on $h failed"
done
own 0 1; own 1 2; own 2 0
[ "$(c_status h2 ncpu)" -ge 2 ] || t_fail "h2 reports $(c_status h2 ncpu) CPUs (want 2 or more for this test)"
pconf free ""
run_m1 free "$T_DIR/free.conf" master1
c_master1_check "free: " "$OUT"
first=$(awk 'NR == 1 { print $4 }' "$T_DIR/free.rec")
[ "$first" = h2 ] || t_fail "first placement on '$first', not h2: $(cat "$T_DIR/free.rec")"
p0=$(placed free h0) p1=$(placed free h1) p2=$(placed free h2)
[ "$p2 $p0 $p1" = "4 3 2" ] || t_fail "placed h0 $p0, h1 $p1, h2 $p2 (want 3, 2, 4): $(cat "$T_DIR/free.rec")"
# each host line names as many tids (tids=, hex) as it placed tasks
awk '{ n = 0; for (i = 6; i <= NF; i++) if ($i ~ /^tids=[0-9a-f]+(,[0-9a-f]+)*$/)
    n = split(substr($i, 6), a, ","); if (n != $5) bad = 1 } END { exit bad }' "$T_DIR/free.rec" ||
    t_fail "free.rec: a line whose tids= does not name its count of tasks: $(cat "$T_DIR/free.rec")"
grep -q '^dts_place_tasks_total{host="h2"} 4$' "$T_DIR/free.rec.prom" &&
    grep -q '^dts_place_tasks_total{host="h1"} 2$' "$T_DIR/free.rec.prom" ||
    t_fail "free.rec.prom: $(grep tasks_total "$T_DIR/free.rec.prom")"
t_logged 'decide: slave1 h2: class candidate goodness 2\.000 runnable 0\.00' "$T_LOG/free.log" ||
    t_fail "no debug line with h2's goodness: $(head -n 20 "$T_LOG/free.log")"
t_log "hogs 1, 2, 0: master1's tasks h0 $p0, h1 $p1, h2 $p2; first on $first"

# ---- 1b. the console's tasks: where each task went and why -----------------
# dts-place with its default record (dts-place.UID in h0's PVM_TMP) runs
# dts-pvmctl's spawn of one spin with no host named: it goes to h2, the
# free host (goodness 2.000), and its record line names its tid; the
# console's tasks (the harness's dts-console on h0, as the VM's user,
# root here, the same PVM_TMP) shows it on h2 PLACED "2.000 candidate",
# and "-" for the hogs (spawned to a named host).
pconf live ""
rec=$T_DIR/h0/tmp/dts-place.$(id -u)
rm -f "$rec" "$rec.prom"
OUT=$(c_exec h0 timeout 60 "$PLACE" -v -f "$T_DIR/live.conf" -l "$T_LOG/live.log" -- \
    "$BUILD/tests/pvm/dts-pvmctl" spawn -n 1 "$BUILD/tests/pvm/spin" 15 2>&1) ||
    t_fail "live: dts-pvmctl spawn under dts-place failed: $OUT"
tid=$(tail -n 1 <<< "$OUT")
grep -Eq "^[0-9]+ [0-9]+ [^ ]*spin h2 1 good=2\.000 class=candidate .* tids=$tid\$" "$rec" ||
    t_fail "live: the record does not name tid $tid on h2: $(cat "$rec" 2>&1)"
c_sc_console tasks || t_fail "live: dts-console tasks failed ($C_SC_RC): $C_SC_ERR"
! grep -q "placement record" <<< "$C_SC_OUT$C_SC_ERR" || t_fail "live: tasks could not read the record: $C_SC_OUT $C_SC_ERR"
got=$(awk -v t="$tid" '$2 == t { print $1, $7, $8 }' <<< "$C_SC_OUT")
[ "$got" = "h2 2.000 candidate" ] ||
    t_fail "live: tasks shows '$got' for tid $tid, not 'h2 2.000 candidate': $(paste -sd'|' <<< "$C_SC_OUT")"
head -n 2 <<< "$C_SC_OUT" | tail -n 1 | grep -q ' COMMAND  *PLACED$' ||
    t_fail "live: no PLACED column: $(head -n 2 <<< "$C_SC_OUT")"
hogs=$(awk -v t="$tid" '$6 ~ /spin$/ && $2 != t { print $7 }' <<< "$C_SC_OUT" | paste -sd' ')
[ "$hogs" = "- - -" ] || t_fail "live: the hogs' PLACED is '$hogs', not '- - -': $(paste -sd'|' <<< "$C_SC_OUT")"
t_log "tasks: spin $tid on h2 PLACED 2.000 candidate, the 3 hogs -"
t_wait_for 40 eval '[ "$(c_status h2 members)" = 1 ]' ||
    t_fail "h2: the placed spin did not end (members $(c_status h2 members))"


# ---- 2. a host short of free RAM gets none ----------------------------------
[ -n "$MEMV1" ] || t_skip "no cgroup v1 memory hierarchy for part 2"
MCG=$MEMV1$(t_cg_name h2mem)
t_track_cg "$(t_cg_dir h2mem)"	# its v1 mirror is removed at cleanup
mkdir "$MCG" && echo $((256 << 20)) > "$MCG/memory.limit_in_bytes" ||
    t_fail "cannot make $MCG"
d2=$(c_dts_pid h2) || t_fail "h2: no dts"
echo "$d2" > "$MCG/cgroup.procs" || t_fail "cannot move h2's dts into $MCG"
t_wait_for 5 eval '[ "$(c_status h2 mem_mib)" -lt 256 ] && [ "$(c_status h2 mem_mib)" -gt 0 ]' ||
    t_fail "h2's STATUS mem_mib $(c_status h2 mem_mib), not under 256"
m0=$(c_status h0 mem_mib)
[ "$m0" -gt 1024 ] || t_fail "h0's free RAM $m0 MiB: the machine has too little for part 2"
pconf ram "mem_min = 1024;"
run_m1 ram "$T_DIR/ram.conf" master1
c_master1_check "ram: " "$OUT"
r2=$(placed ram h2) r0=$(placed ram h0) r1=$(placed ram h1)
[ "$r0 $r1 $r2" = "5 4 0" ] || t_fail "h2 under the RAM threshold got $r2 tasks (h0 $r0, h1 $r1; want 5, 4, 0)"
t_logged 'decide: slave1 h2: class low-ram' "$T_LOG/ram.log" || t_fail "h2 not logged low-ram: $(grep 'decide' "$T_LOG/ram.log")"
t_log "h2 at $(c_status h2 mem_mib) MiB free (mem_min 1024): master1's tasks h0 $r0, h1 $r1, h2 $r2"
# back, so that c_down finds dts where it started
echo "$d2" > "$MEMV1/cgroup.procs" || t_fail "cannot move h2's dts back"

# ---- 3. no load known: PVM's circle, said once ------------------------------
grep -v '^console_keys' "$T_DIR/free.conf" > "$T_DIR/nokey.conf"
run_m1 nokey "$T_DIR/nokey.conf" sh -c 'master1 && master1'
[ "$(grep -c '^Spawning 9 worker tasks ... SUCCESSFUL' <<< "$OUT")" = 2 ] ||
    t_fail "nokey: 2 master1 runs expected: $OUT"
n=$(grep -c "PVM's circle places the tasks: no load known: console_keys is empty" "$T_LOG/nokey.log")
[ "$n" = 1 ] || t_fail "the circle was said $n times, not once: $(cat "$T_LOG/nokey.log")"
grep -q '^dts_place_circle_total 2$' "$T_DIR/nokey.rec.prom" ||
    t_fail "nokey.rec.prom: $(grep circle "$T_DIR/nokey.rec.prom")"
[ ! -s "$T_DIR/nokey.rec" ] || t_fail "the circle's spawns are in the record: $(cat "$T_DIR/nokey.rec")"
t_log "no load known: 2 spawns by PVM's circle, said once"
t_pass
