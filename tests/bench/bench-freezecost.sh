#!/bin/bash
# bench-freezecost.sh BUILD OUTDIR [--quick] - what a freeze costs per
# task (dts(8), The gang; docs/performance.md, the freeze lead).
#
# tests/bench/freezecost.py: K processes spinning at SCHED_RR 10 on every
# CPU in a cgroup2 cgroup of their own, frozen FREEZE_REPS times; the time
# from the write of cgroup.freeze to cgroup.events saying "frozen 1".
# Full: K = 16 64 256 1024 2048, 9 freezes each; --quick: 16 64 256, 5.
# No goal: the figures explain the freeze lead (dts(8) GANGS).  Writes
# OUTDIR/freezecost.csv (k,rep,freeze_us) and OUTDIR/freezecost.md.
. "$(dirname "$0")/common.sh"
b_init freezecost "$@"
command -v python3 > /dev/null || t_fail "needs python3 (quickstart installs it: missing is a failure)"
grep -q ' cgroup2 ' /proc/mounts || t_skip "no cgroup2 mount on this machine"
if [ "$B_QUICK" = 1 ]; then
	KS="16 64 256" REPS=5
else
	KS="16 64 256 1024 2048" REPS=9
fi
FREEZE_REPS=$REPS python3 "$B_SRC/tests/bench/freezecost.py" "$T_DIR/fc" $KS > "$T_DIR/fc.out" ||
    t_fail "freezecost.py failed: $(tail -n 3 "$T_DIR/fc.out")"
cp "$T_DIR/fc/freeze.csv" "$B_OUT/freezecost.csv" || t_fail "freezecost.py wrote no freeze.csv"
{
	echo "K processes spinning at SCHED_RR 10 on every CPU in one cgroup of their own; the time from the write"
	echo "of \`cgroup.freeze\` to \`cgroup.events\` saying \`frozen 1\`, polled every 50 µs by the bench at SCHED_FIFO 50"
	echo "(the polling is most of the K = 16 figure); $REPS freezes per K:"
	echo
	sed 's/ us |$/ µs |/' "$T_DIR/fc.out"
} > "$B_OUT/freezecost.md"
cat "$B_OUT/freezecost.md"
b_done
