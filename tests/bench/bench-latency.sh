#!/bin/bash
# bench-latency.sh BUILD OUTDIR [--quick] - local responsiveness.
#
# An interactive local task (tests/bench/wakeup.c: SCHED_OTHER, pinned to
# CPU 1, wakes once every 50 ms - at a random point of each 50 ms slot, so
# that it samples every phase of the IP - on absolute deadlines and does
# 1 ms of CPU work)
# beside one CPU-bound PVM task in the gang, everything on CPU 1 (dts under
# taskset -c 1).  Wake-up delay = actual wake - intended wake, p50 / p99 /
# max, under OFF, HPDT and STATIC PS 90 % at IP = 1 s, 100 ms, 10 ms.
#
# Writes OUTDIR/latency.csv (mode,ip_ms,ps_pct,p50_ms,p99_ms,max_ms,n),
# OUTDIR/latency-raw.csv (every wake-up) and OUTDIR/latency.md.
# Full: 10-20 s per configuration (~1.5 min); --quick: OFF, HPDT and
# STATIC at 100 ms, 2-3 s each.
. "$(dirname "$0")/common.sh"
b_init latency "$@"
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (pins everything to CPU 1)"
b_cc wakeup

PERIOD_MS=50 WORK_MS=1
# mode ip_ms ps_pct seconds
if [ "$B_QUICK" = 1 ]; then
	CONFIGS="off 100 90 2
hpdt 100 90 2
static 100 90 3"
else
	CONFIGS="off 100 90 10
hpdt 100 90 10
static 1000 90 20
static 100 90 15
static 10 90 10"
fi

n_conf mode='"static"' ip='"100ms"' ps='"90%"' log_level='"info"'
n_start taskset -c 1
n_spawn_spin
t_log "dts $N_DTS, spin $N_SPIN, all on CPU 1"

RAW=$B_OUT/latency-raw.csv
CSV=$B_OUT/latency.csv
echo "mode,ip_ms,ps_pct,delay_ns,own_ps_wait_ns" > "$RAW"
echo "mode,ip_ms,ps_pct,p50_ms,p99_ms,max_ms,n" > "$CSV"
EXC=$T_DIR/excess.txt
: > "$EXC"
while read -r mode ip ps secs; do
	n_send schedule "$mode" $((ip * 10 * ps)) $((ip * 1000)) > /dev/null ||
	    t_fail "no reply to schedule $mode"
	if [ "$ip" -ge 1000 ]; then t_sleep 2; else t_sleep 1; fi
	t_log "$mode IP $ip ms PS $ps %: $(t_policy "$N_SPIN") spin, ${secs} s"
	since=$(date +%s%N)
	"$B_OUT/wakeup" -c 1 "$secs" $PERIOD_MS $WORK_MS "$T_DIR/w.csv" > /dev/null &
	wp=$!
	t_track "$wp"
	wait "$wp" || t_fail "wakeup failed"
	t_untrack "$wp"
	# own_ps_wait: how long a wake-up had to wait because it fell into one
	# of OUR parallel slices (from dts's trace: until the next LS edge);
	# the rest of the delay (excess) is everything else: other tenants,
	# steal, late edges
	if [ "$mode" = static ]; then
		n_send trace "$since" > "$T_DIR/tr.csv" || t_fail "no reply to trace"
	else
		echo "phase,real_ns,late_ns,op_ns" > "$T_DIR/tr.csv"
	fi
	awk -F, -v m="$mode" -v ip="$ip" -v ps="$ps" '
	FNR == 1 { f++; next }
	f == 1 { ph[++ne] = $1; t[ne] = $2; next }
	{	while (k < ne && t[k + 1] <= $2) k++
		w = 0
		if (k > 0 && ph[k] == "PS")
			for (j = k + 1; j <= ne; j++) if (ph[j] == "LS") { w = t[j] - $2; break }
		print m "," ip "," ps "," $1 "," w
	}' "$T_DIR/tr.csv" "$T_DIR/w.csv" >> "$RAW"
	read -r n p50 p99 max _ <<< "$(awk 'NR > 1 { print $1 / 1e6 }' "$T_DIR/w.csv" | b_stats)"
	read -r _ e50 e99 emax _ <<< "$(awk -F, -v m="$mode" -v ip="$ip" \
	    '$1 == m && $2 == ip { print ($4 - $5) / 1e6 }' "$RAW" | b_stats)"
	echo "$mode $ip $e50 $e99 $emax" >> "$EXC"
	printf '%s,%d,%d,%.3f,%.3f,%.3f,%d\n' "$mode" "$ip" "$ps" "$p50" "$p99" "$max" "$n" >> "$CSV"
done <<< "$CONFIGS"
overruns=$(n_status overruns)
# OFF first: pvmd has the RR priority of the spinning task (see bench-share)
n_send schedule off 500000 1000000 > /dev/null
t_sleep 0.2
n_halt || t_fail "the gang did not empty after the halt, or dts did not end on SIGTERM"
n_no_leftovers || t_fail "gang left stopped or RT"

get() { awk -F, -v m="$1" -v ip="$2" -v c="$3" '$1 == m && $2 == ip { print $c }' "$CSV"; }
s99=$(get static 100 5)
h99=$(get hpdt 100 5)
# a speed goal (MISSED, reported); nothing measured at all fails
[ -n "$s99" ] || t_fail "no STATIC IP 100 ms row in $CSV"
b_goal speed static-100-p99 'a <= 91' a="$s99"
met=$B_V
x99=$(awk '$1 == "static" && $2 == 100 { printf "%.3f", $4 }' "$EXC")

MD=$B_OUT/latency.md
{
	echo "## Local responsiveness"
	echo
	echo "An interactive local task (\`tests/bench/wakeup.c\`: SCHED_OTHER, pinned to CPU 1, wakes once every"
	echo "$PERIOD_MS ms on absolute deadlines - at a random point of each $PERIOD_MS ms slot, so that the wake-ups sample"
	echo "every phase of the IP instead of locking to it - and then does $WORK_MS ms of CPU work) next to one CPU-bound PVM task in"
	echo "the gang, all on CPU 1 with dts. Wake-up delay = actual wake-up - intended wake-up; a late wake-up"
	echo "does not move the following deadlines, so a stall shows as a run of late wake-ups. OFF = plain"
	echo "Linux (both SCHED_OTHER); HPDT = the PVM task at RT priority, never stopped (the local task only"
	echo "gets what RT throttling / the fair server leaves, about 5 %); STATIC = PS 90 % of IP."
	echo "dts overruns at the end: $overruns."
	echo
	echo "*excess* = delay minus the wait that our own PS imposes by design (a wake-up inside one of dts's"
	echo "parallel slices waits until the LS edge recorded in dts's trace); it is what other tenants, host"
	echo "steal and late edges add. Under OFF and HPDT the whole delay is excess."
	echo
	echo "| mode | IP | PS % | wake-ups | p50 ms | p99 ms | max ms | excess p50 ms | excess p99 ms | excess max ms |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	exec 3< "$EXC"
	while IFS=, read -r mode ip ps p50 p99 max n; do
		read -r _ _ e50 e99 emax <&3
		e50=$(printf '%.3f' "$e50") e99=$(printf '%.3f' "$e99") emax=$(printf '%.3f' "$emax")
		case "$mode" in
		static) if [ "$ip" -ge 1000 ]; then ipl="$((ip / 1000)) s"; else ipl="$ip ms"; fi; psl=$ps ;;
		*) ipl=- psl=- ;;
		esac
		echo "| $mode | $ipl | $psl | $n | $p50 | **$p99** | $max | $e50 | $e99 | $emax |"
	done < <(tail -n +2 "$CSV")
	exec 3<&-
	echo
	echo "| goal | measured | verdict |"
	echo "|---|---|---|"
	echo "| p99 no worse than PS + 1 ms under STATIC at IP 100 ms (a task that wakes during PS waits for LS: p99 ≈ 0.89·IP at PS 90%) | STATIC IP 100 ms PS 90 %: p99 ${s99:-?} ms (limit 91 ms; excess over the wait for our own PS: p99 ${x99:-?} ms); HPDT beside it: p99 ${h99:-?} ms | $met |"
	echo
	echo "The curve over IP (STATIC, PS 90 %): p99 follows the PS length, so a shorter IP gives the local user"
	echo "a proportionally faster response at the price of more edges (see bench-edge / bench-share)."
	echo
	b_env_note
	echo "Other tenants' SCHED_OTHER processes on CPU 1 compete with the local task during LS (and under OFF),"
	echo "which lengthens the tails here beyond what the coscheduler causes."
	echo
	if [ "$met" != met ]; then
		echo "**Goal missed.** Look at the excess columns: where the excess p99 is large, the wake-ups were held"
		echo "up outside our own PS - on this VM by other sessions' RT gangs (unpinned SCHED_RR spinners at PS 90 %"
		echo "of their own IP, which starve SCHED_OTHER on CPU 1 during *their* PS) and by OFF-mode-like CFS"
		echo "competition; that part is not dts's to fix, and the goal needs a CPU 1 without other RT load."
		echo "A wake-up that falls into PS cannot be served before LS starts (up to PS = 90 ms"
		echo "late), so p99 ≈ 0.89·IP is the design's own figure; more than PS + 1 ms means the task also waited"
		echo "inside LS - behind other tenants' tasks on CPU 1 or host steal on this shared VM, or because an"
		echo "LS edge came late. Re-run on a quiet machine; if it persists, check dts's LS edge lateness"
		echo "(bench-edge) at IP 100 ms."
		echo
	fi
	echo "Every wake-up: \`latency-raw.csv\`. Run time: $(b_elapsed) s$([ "$B_QUICK" = 1 ] && echo " (--quick)")."
} > "$MD"
cat "$MD"
t_log "wrote $CSV $RAW $MD"
b_done
