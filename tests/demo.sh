#!/bin/bash
# demo.sh BUILD - the README's main job on one host: a real master pvmd
# under dts in STATIC mode, a real PVM program (a CPU-bound PVM task) and
# a local CPU hog, all on CPU 1; prints the share of the CPU each got at
# PS = 80% and, after a schedule datagram, at PS = 50% of IP = 100 ms.
set -u
DTS_BUILD=$(cd "${1:?usage: demo.sh BUILD}" && pwd)
export DTS_BUILD
. "$(dirname "$0")/system/lib.sh"
. "$(dirname "$0")/system/node.sh"
t_setup demo

[ "$(nproc)" -ge 2 ] || echo "note: one CPU only; the numbers still hold"
n_conf mode='"static"' ip='"100ms"' ps='"80%"'
n_start taskset -c 1
n_spawn_spin
n_start_hog 1
spin=$N_SPIN hog=$N_HOG

measure() {	# measure PS_PCT
	t_sleep 1
	local s
	s=($(n_shares 8 "$spin" "$hog"))
	printf '  PS = %2d%% of IP 100 ms   PVM task %5.1f%%   local hog %5.1f%%\n' \
	    "$1" "${s[0]}" "${s[1]}"
}

echo "DTS demo: dts (pid $N_DTS) runs pvmd (pid $N_PVMD) and the PVM task"
echo "spin (pid $spin) as one gang; a local hog (pid $hog) shares CPU 1."
echo "Share of CPU 1 over 8 s:"
measure 80
n_send schedule static 50000 100000 > /dev/null || t_fail "no reply to schedule"
measure 50
echo "Node status:"
n_status | grep -E '^(name|mode|sync|phase|ps_us|ip_us|members|slices|overruns)=' |
    paste -sd' ' | sed 's/^/  /'
n_halt || t_fail "dts did not exit after pvm_halt"
n_no_leftovers || t_fail "something was left stopped or at RT priority"
echo "pvm_halt: pvmd exited, dts exited with status $N_RC; nothing left stopped."
