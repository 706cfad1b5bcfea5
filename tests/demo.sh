#!/bin/bash
# demo.sh BUILD - the README's main job: a 3-host DTS cluster on this
# machine (network namespaces h0 h1 h2, a dts service on each host, every
# pvmd adopted into its host's gang, the master started by dts-console
# through the launch script), in BALANCED mode; a real PVM program (a CPU-bound
# task on every host) and a local load (two CPU hogs on h1).  Everything
# runs on CPU 1 so the shares are easy to read.  Prints the console's
# status and the share of CPU 1 the program and the local load each got,
# then tears everything down.
set -u
DTS_BUILD=$(cd "${1:?usage: demo.sh BUILD}" && pwd)
export DTS_BUILD
if [ -z "${DTS_DEMO_PINNED:-}" ] && [ "$(nproc)" -ge 2 ]; then
	DTS_DEMO_PINNED=1 exec taskset -c 1 bash "$0" "$@"
fi
. "$(dirname "$0")/system/lib.sh"
. "$(dirname "$0")/cluster/cluster.sh"
t_setup demo

# Load every 100 ms, smoothed over 2 s, so BALANCED reacts in seconds (the
# thesis's 1 s / 10 s / 60 s would take minutes); one CPU: no per-CPU scaling.
C_CONF_EXTRA="ip = \"100ms\";
load = { sample = \"100ms\"; interval = \"500ms\"; window = \"2s\"; threshold = 0.25; per_cpu = false; };
console = { launcher = \"$T_DIR/bin/pvmd-dts\"; status_wait = \"500ms\";
    sign_key = \"$T_DIR/console.key\"; node_secret = \"$T_DIR/nodes.key\"; };"
c_up 3 --no-pvm
con() { c_exec h0 "$BUILD/console/dts-console" -f "$T_DIR/h0/dts.conf" "$@"; }

echo "DTS demo: 3 hosts (h0 h1 h2) in network namespaces on CPU 1"
con -c "add h1 h2" > "$T_LOG/con-add.log" 2>&1 || { cat "$T_LOG/con-add.log"; t_fail "console: add failed"; }
grep -q "started the master" "$T_LOG/con-add.log" || t_fail "the console did not start the master pvmd"
c_bg h0 console "$BUILD/console/dts-console" -f "$T_DIR/h0/dts.conf" --daemon \
    -c "mode balanced; start"
c_wait_hosts 3 30 || t_fail "the VM did not reach 3 hosts"
echo "- every host runs its dts service; dts-console (h0) started the master"
echo "  pvmd through the launch script (h0's dts adopted it) and added h1 h2;"
echo "  mode balanced, IP 100 ms"

# the PVM program: one CPU-bound task per host
for h in h0 h1 h2; do
	c_pvm h0 spawn -w "$h" "$BUILD/tests/pvm/spin" 0 > /dev/null || t_fail "spawn on $h failed"
done
prog=$(for h in h0 h1 h2; do c_gang_pids "$h" spin; done)
[ "$(wc -w <<< "$prog")" = 3 ] || t_fail "not one PVM task per host: $prog"
echo "- a PVM program: one spin task on each host (pids $(echo $prog))"
t_sleep 3
ps0=$(c_status h1 ps_us)

# the local load: two CPU hogs on h1
for i in 1 2; do c_bg h1 "hog$i" "$BUILD/tests/tools/hog" -t 0 -p "$T_DIR/hog$i.pid"; done
two_hogs() { [ -s "$T_DIR/hog1.pid" ] && [ -s "$T_DIR/hog2.pid" ]; }
t_wait_for 5 two_hogs || t_fail "no hogs"
hogs="$(cat "$T_DIR/hog1.pid") $(cat "$T_DIR/hog2.pid")"
echo "- a local load on h1: two CPU hogs (pids $hogs)"
echo "  before the load every host ran PS = $((ps0 / 1000)) ms of every 100 ms"
slow() { [ "$(c_status h0 ps_us)" -lt "$ps0" ]; }
t_wait_for 20 slow || t_fail "BALANCED did not shrink PS under load"
t_sleep 2

cpu() { local s=0 p; for p in "$@"; do s=$((s + $(t_cpu_ns "$p"))); done; echo "$s"; }
a0=$(cpu $prog) b0=$(cpu $hogs) t0=$(_t_now_us)
t_sleep 8
a1=$(cpu $prog) b1=$(cpu $hogs) t1=$(_t_now_us)
echo
echo "Console status:"
con -c "status" | sed 's/^/  /'
echo
awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) -v w=$((t1 - t0)) -v ps="$(c_status h0 ps_us)" 'BEGIN {
	printf "Share of CPU 1 over 8 s (BALANCED chose PS = %d ms of IP 100 ms):\n", ps / 1000
	printf "  PVM program (3 tasks, 3 hosts) %5.1f%%\n", a / (w * 10)
	printf "  local load (2 hogs on h1)      %5.1f%%\n", b / (w * 10) }'
kill $hogs
echo
c_down > /dev/null 2>&1 || t_fail "teardown failed"
echo "Torn down: no namespace, process or file of the demo is left."
