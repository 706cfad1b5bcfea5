#!/bin/bash
# bench-sync.sh BUILD OUTDIR [--quick] - synchronization of the slices of a
# 4-host cluster (tests/system/cluster.sh, one dts per network namespace).
#
# STATIC mode, schedules broadcast to $C_BCAST from h0 with sendgram (as
# dts-console does every SI).  Every host records its slice edges; the
# traces (`sendgram trace`, CLOCK_REALTIME, one clock for all namespaces)
# give, for every PS start of h1..h3, its offset from the nearest PS start
# of h0: the skew.
#   1. arrival and clock sync at IP 100 ms, a sync every SI: skew p50/p99/
#      max, and the drift between two syncs (change of the median skew from
#      the first to the second half of an SI).
#   2. IP sweep 100/50/20/10/5/2/1 ms (PS = IP/2; --quick: down to 2 ms,
#      arrival only), arrival and clock: skew p99 as % of IP, and the
#      share error of a PVM spin task on h0 pinned to CPU 0 with a local
#      hog (SCHED_OTHER) pinned there too: CPU share of spin over a whole
#      number of IPs - PS/IP, in points.
#   3. The floor, in the same run, before the main runs and before the
#      sweep's runs at the IPs of FLOOR_IPS (--quick: fewer): every dts
#      idles in HPDT while on each host a bare loop (tests/bench/floor.c
#      -O: SCHED_FIFO 99, mlockall, clock_nanosleep TIMER_ABSTIME, killpg)
#      slices that host's own PVM process group on the clock-sync grid of
#      one CLOCK_REALTIME origin (h0's group holds spin: the share floor),
#      and tests/bench/owd.c broadcasts timestamped probes from h0 to a
#      receiver on every host (kernel receive stamps, SO_TIMESTAMPNS).
#      The skew of the bare loops is the floor of clock sync; the spread
#      of one broadcast's receive stamps (host k - h0) added to it is the
#      floor of arrival sync (syncstat.py floor).  Skews are reported as
#      a ratio to the floor of their sync method too.
# Writes OUTDIR/sync.csv, OUTDIR/sync-floor.csv, OUTDIR/sync.md,
# OUTDIR/gantt-trace.csv (host,phase,real_ns of ~6 IPs at IP 100 ms,
# arrival sync).  bench-lan.sh runs it with BENCH_SYNC_SWEEP=0 (no IP
# sweep) on the bridge and on the emulated LAN (C_LAN=tap, cluster.sh):
# then it also writes OUTDIR/lanswitch.stats (lanswitch's counters).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
b_init sync "$@"	# BUILD OUTDIR [--quick]: lib.sh, traps, B_OUT, B_QUICK
. "$SRC/tests/system/cluster.sh"
OUT=$B_OUT QUICK=$B_QUICK T_START=$B_T0
STAT="python3 $HERE/syncstat.py"
command -v python3 > /dev/null || t_fail "needs python3 (quickstart installs it: missing is a failure)"
b_cc floor
b_cc owd

# FLOOR_IPS: the sweep's IPs that get a floor of their own (IP 100 ms
# has the one measured before the main runs); the others show none
if [ "$QUICK" = 1 ]; then
	MAIN_S=3 SI_S=1 SWEEP_S=1.5 REPS=1 SWEEP_SYNCS="arrival" IPS_MS="100 50 20 10 5 2"
	FLOOR_MAIN_S=2 FLOOR_SWEEP_S=1 FLOOR_IPS="10 2"
else
	MAIN_S=10 SI_S=2 SWEEP_S=3 REPS=2 SWEEP_SYNCS="arrival clock" IPS_MS="100 50 20 10 5 2 1"
	FLOOR_MAIN_S=6 FLOOR_SWEEP_S=3 FLOOR_IPS="50 20 10 5 2 1"
fi
# BENCH_SYNC_SWEEP=0 (bench-lan.sh): the runs at IP 100 ms only, no sweep
[ "${BENCH_SYNC_SWEEP:-1}" = 0 ] && IPS_MS=
FLOOR_WARM=0.2		# s of each bare loop before it records
OWD_PORT=$((C_PORT + 1))	# the probes' port on every host (dts has C_PORT)
OWD_US=9700		# probe interval: no multiple or divisor of any IP swept

C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "50%"; silence = "60s";'
c_up 4
t_log "cluster of 4 up in ${C_UP_S} s"

SG() { c_exec h0 "$BUILD/tests/tools/sendgram" -k "$C_KEY" -s "$C_SIGN" -p "$C_PORT" "$@"; }
now_ns() { date +%s%N; }
pgid_of() {	# PID -> its process group (from /proc/PID/stat, after "comm)")
	local s g
	s=$(cat "/proc/$1/stat" 2> /dev/null) || return 1
	read -r _ _ g _ <<< "${s##*) }"
	echo "$g"
}

# the parallel task (spin, in h0's gang) and the local hog, both on CPU 0
c_pvm h0 spawn -w h0 "$BUILD/tests/pvm/spin" 0 > /dev/null || t_fail "spawn spin"
t_wait_for 10 eval '[ -n "$(c_gang_pids h0 spin)" ]' || t_fail "spin is not in h0's gang"
SPIN=$(c_gang_pids h0 spin | head -n 1)
taskset -p -c 0 "$SPIN" > /dev/null || t_fail "taskset spin"
c_bg h0 hog "$BUILD/tests/tools/hog" -c 0
HOG=$C_BG_PID

# the process group each host's bare loop stops and continues: on h0 the
# one spin is in, elsewhere the pvmd's (their gangs hold nothing else);
# never ours
MYPG=$(pgid_of $$)
PGRP=()
for k in 0 1 2 3; do
	if [ "$k" = 0 ]; then p=$SPIN; else p=$(c_pvmd_pid h$k) || t_fail "no pvmd on h$k"; fi
	g=$(pgid_of "$p") || t_fail "no process group of $p (h$k)"
	[ "$g" -gt 1 ] && [ "$g" != "$MYPG" ] || t_fail "h$k: process group $g of $p is no gang's"
	PGRP+=("$g")
done
t_log "floor groups: ${PGRP[*]} (h0..h3)"

# snap_window W0_US IP_US PID...: b_snap at the end of a window from
# W0_US (µs since the epoch) that holds a whole number of IPs, the first
# such end at least 1 ms from now: sleep until 20 ms before it (if it is
# that far), then poll EPOCHREALTIME (no fork) until it is reached; if
# the sleep overslept, the next end.  In such a window a periodic
# schedule is in PS for PS/IP of the time whatever its phase, so the
# share needs no correction for where the window starts and ends.
# B_SNAP[0] is when it was taken.
snap_window() {
	local w0=$1 ip=$2 now target d s
	shift 2
	while :; do
		now=${EPOCHREALTIME/[.,]/}
		now=$((10#$now))
		target=$((w0 + ((now + 1000 - w0 + ip - 1) / ip) * ip))
		d=$((target - now - 20000))
		[ "$d" -gt 0 ] || break
		printf -v s '%d.%06d' $((d / 1000000)) $((d % 1000000))
		t_sleep "$s"
		now=${EPOCHREALTIME/[.,]/}
		[ $((10#$now)) -le "$target" ] && break
	done
	while now=${EPOCHREALTIME/[.,]/}; [ $((10#$now)) -lt "$target" ]; do :; done
	b_snap "$@"
}

# run TAG SYNC IP_MS SECONDS SI_SECONDS: send a schedule every SI for
# SECONDS, then fetch every host's trace.  Sets RUN_T0 (ns: edges from
# then on are fetched) and RUN_SHARE / RUN_HOG (CPU % of spin and hog over the run: a window of a
# whole number of IPs).
run() {
	local tag=$1 sync=$2 ip_us=$(($3 * 1000)) secs=$4 si=$5 k end c0 h0c w0 o
	local ps_us=$((ip_us / 2))
	: > "$T_DIR/syncs-$tag"
	RUN_T0=$(now_ns)
	end=$((RUN_T0 + $(awk -v s="$secs" 'BEGIN { printf "%d", s * 1000 }') * 1000000))
	# a schedule every SI on an absolute grid, as dts-console sends them,
	# by one sender for the whole run (a shell loop's sleep + fork, or a
	# first schedule from another process, would move the grid at each
	# SI, and arrival sync would follow each move); measured from 0.3 s on
	o=()
	[ "$sync" = clock ] && o=(-O "$RUN_T0")
	SG -a "$C_BCAST" -S "$(awk -v s="$si" 'BEGIN { printf "%d", s * 1e6 }')" \
	    -R "$(( (end - RUN_T0) / 1000000 + 300 ))" "${o[@]}" \
	    schedule static "$ps_us" "$ip_us" "$sync" > "$T_DIR/syncs-$tag" &
	local sender=$!
	t_sleep 0.3
	b_snap "$SPIN" "$HOG"
	w0=${B_SNAP[0]} c0=${B_SNAP[1]} h0c=${B_SNAP[2]}
	RUN_T0=$((w0 * 1000))
	wait "$sender" || t_fail "schedule $tag: the sender failed"
	snap_window "$w0" "$ip_us" "$SPIN" "$HOG"
	RUN_SHARE=$(awk -v c="$((B_SNAP[1] - c0))" -v w="$((B_SNAP[0] - w0))" \
	    'BEGIN { printf "%.2f", c / (w * 10) }')
	RUN_HOG=$(awk -v c="$((B_SNAP[2] - h0c))" -v w="$((B_SNAP[0] - w0))" \
	    'BEGIN { printf "%.2f", c / (w * 10) }')
	for k in 0 1 2 3; do
		c_send h$k trace "$RUN_T0" > "$T_DIR/trace-$tag-h$k.csv" ||
		    t_fail "trace of h$k ($tag)"
	done
}

# floor_run TAG IP_MS SECONDS: the floor at this IP (see the top).  Every
# dts goes to HPDT (gang running, nothing sliced); a receiver of probes
# and a bare loop start on every host, the probe sender on h0; after the
# loops' warm-up, SECONDS are measured (spin and hog CPU on h0, every
# edge, every probe), then all of them get SIGTERM (a loop continues its
# group and writes its file).  Sets FL (syncstat.py floor's line),
# FL_SHARE / FL_HOG (CPU % of spin and hog).  The next run() sends the
# static schedule again.
floor_run() {
	local tag=$1 ip_us=$(($2 * 1000)) secs=$3 k p origin w0 w1 s0 s1 g0 g1 life
	local ps_us=$((ip_us / 2)) pids=()
	life=$(awk -v s="$secs" 'BEGIN { printf "%d", s + 10 }')	# SIGTERM ends them sooner
	SG -a "$C_BCAST" schedule hpdt "$ps_us" "$ip_us" > /dev/null ||
	    t_fail "hpdt for the floor $tag: no reply"
	t_sleep 0.1
	# receivers at the lowest RT priority, below spin's: the kernel's
	# receive stamp does not wait for them, and they must not take
	# spin's CPU in its PS (the share floor)
	for k in 0 1 2 3; do
		c_bg h$k "owd-recv-$tag-h$k" "$OUT/owd" recv -r 1 "$life" "$OWD_PORT" \
		    "$T_DIR/owd-$tag-h$k.csv"
		pids+=("$C_BG_PID")
	done
	origin=$(now_ns)
	for k in 0 1 2 3; do
		c_bg h$k "floor-$tag-h$k" "$OUT/floor" -O "$origin" -w "$FLOOR_WARM" \
		    -l "$ps_us" -g "${PGRP[$k]}" 1 "$life" "$ps_us" "$T_DIR/floor-$tag-h$k.csv"
		pids+=("$C_BG_PID")
	done
	c_bg h0 "owd-send-$tag" "$OUT/owd" send -r 98 -i "$OWD_US" "$life" "$C_BCAST" "$OWD_PORT"
	pids=("$C_BG_PID" "${pids[@]}")	# the sender ends first
	t_sleep "$(awk -v w="$FLOOR_WARM" 'BEGIN { print w + 0.15 }')"
	b_snap "$SPIN" "$HOG"
	w0=${B_SNAP[0]} s0=${B_SNAP[1]} g0=${B_SNAP[2]}
	echo "$((w0 * 1000))" > "$T_DIR/syncs-floor-$tag"
	t_sleep "$secs"
	snap_window "$w0" "$ip_us" "$SPIN" "$HOG"
	w1=${B_SNAP[0]} s1=${B_SNAP[1]} g1=${B_SNAP[2]}
	kill -TERM "${pids[0]}" 2> /dev/null
	t_sleep 0.05	# its last probe arrives
	for p in "${pids[@]:1}"; do kill -TERM "$p" 2> /dev/null; done
	for p in "${pids[@]}"; do
		wait "$p" || t_fail "floor $tag: pid $p failed (see the logs floor-$tag-*, owd-*-$tag*)"
		t_untrack "$p"
	done
	FL_SHARE=$(awk -v c="$((s1 - s0))" -v w="$((w1 - w0))" 'BEGIN { printf "%.2f", c / (w * 10) }')
	FL_HOG=$(awk -v c="$((g1 - g0))" -v w="$((w1 - w0))" 'BEGIN { printf "%.2f", c / (w * 10) }')
	FL=$($STAT floor $(($2 * 1000000)) "$T_DIR/syncs-floor-$tag" \
	    "$T_DIR"/floor-"$tag"-h[0-3].csv -- "$T_DIR"/owd-"$tag"-h[0-3].csv) ||
	    t_fail "syncstat floor $tag"
}

# stat TAG IP_MS: key=value line from syncstat.py
stat() {
	$STAT skew $(($2 * 1000000)) "$T_DIR/syncs-$1" "$T_DIR"/trace-"$1"-h[0-3].csv
}
kv() {	# KEY LINE: the value of KEY=VALUE in LINE (no fork: this runs often)
	local w
	for w in $2; do
		[ "${w%%=*}" = "$1" ] && { echo "${w#*=}"; return 0; }
	done
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a != "nan") printf "%.2f", a / b; else print "nan" }'; }

FCSV=$OUT/sync-floor.csv
echo "rep,ip_ms,ps_ms,secs,pairs,late_p50_us,late_p99_us,clock_floor_p50_us,clock_floor_p99_us,clock_floor_max_us,probes,owd_p50_us,owd_p99_us,spread_p50_us,spread_p99_us,rxwake_p50_us,rxwake_p99_us,arr_pairs,arr_floor_p50_us,arr_floor_p99_us,arr_floor_max_us,spin_share_pct,share_err_pp,hog_pct" > "$FCSV"
# floor_at REP IP_MS SECONDS: floor_run, one row of sync-floor.csv, and
# FLOOR_* (the figures the runs of this IP are compared with)
floor_at() {
	floor_run "$1-$2" "$2" "$3"
	t_log "rep $1 floor IP $2 ms ($(b_elapsed) s): $FL share $FL_SHARE hog $FL_HOG"
	FLOOR_CLK50=$(kv p50_us "$FL") FLOOR_CLK99=$(kv p99_us "$FL")
	FLOOR_ARR50=$(kv arr_p50_us "$FL") FLOOR_ARR99=$(kv arr_p99_us "$FL")
	FLOOR_ERR=$(awk -v s="$FL_SHARE" 'BEGIN { printf "%.2f", s - 50 }')
	local f
	printf '%s,%s,%s,%s' "$1" "$2" "$(awk -v i="$2" 'BEGIN { print i / 2 }')" "$3" >> "$FCSV"
	for f in n late_p50_us late_p99_us p50_us p99_us max_us owd_n owd_p50_us owd_p99_us \
	    spread_p50_us spread_p99_us rxwake_p50_us rxwake_p99_us arr_n arr_p50_us \
	    arr_p99_us arr_max_us; do
		printf ',%s' "$(kv "$f" "$FL")" >> "$FCSV"
	done
	printf ',%s,%s,%s\n' "$FL_SHARE" "$FLOOR_ERR" "$FL_HOG" >> "$FCSV"
}

CSV=$OUT/sync.csv
echo "rep,part,sync,ip_ms,ps_ms,pairs,skew_p50_us,skew_p99_us,skew_max_us,mean_signed_us,p99_pct_of_ip,drift_p50_us,drift_max_us,spin_share_pct,share_err_pp,hog_pct,floor_p50_us,floor_p99_us,ratio_p50,ratio_p99,floor_share_err_pp" > "$CSV"
row() {	# rep part sync ip_ms stat-line: against the floor of this IP
	local s=$5 f50 f99
	if [ "$3" = arrival ]; then f50=$FLOOR_ARR50 f99=$FLOOR_ARR99; else f50=$FLOOR_CLK50 f99=$FLOOR_CLK99; fi
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$1" "$2" "$3" "$4" \
	    "$(awk -v i="$4" 'BEGIN { print i / 2 }')" "$(kv n "$s")" \
	    "$(kv p50_us "$s")" "$(kv p99_us "$s")" "$(kv max_us "$s")" \
	    "$(kv mean_signed_us "$s")" \
	    "$(awk -v p="$(kv p99_us "$s")" -v i="$4" 'BEGIN { printf "%.2f", p / (i * 10) }')" \
	    "$(kv drift_p50_us "$s")" "$(kv drift_max_us "$s")" "$RUN_SHARE" \
	    "$(awk -v s="$RUN_SHARE" 'BEGIN { printf "%.2f", s - 50 }')" "$RUN_HOG" \
	    "$f50" "$f99" "$(ratio "$(kv p50_us "$s")" "$f50")" "$(ratio "$(kv p99_us "$s")" "$f99")" \
	    "$FLOOR_ERR" >> "$CSV"
}

for ((rep = 1; rep <= REPS; rep++)); do
	floor_at "$rep" 100 "$FLOOR_MAIN_S"
	for sync in arrival clock; do
		run "main-$rep-$sync" "$sync" 100 "$MAIN_S" "$SI_S"
		s=$(stat "main-$rep-$sync" 100)
		t_log "rep $rep $sync IP 100 ms ($(b_elapsed) s): $s"
		row "$rep" main "$sync" 100 "$s"
		if [ "$rep" = 1 ] && [ "$sync" = arrival ]; then
			# ~6 IPs from the second sync on, for the Gantt chart
			g0=$(sed -n 2p "$T_DIR/syncs-main-1-arrival")
			g0=${g0:-$RUN_T0}
			$STAT gantt "$OUT/gantt-trace.csv" "$T_DIR"/trace-main-1-arrival-h[0-3].csv \
			    -- "$((g0 - 20000000))" "$((g0 + 600000000))"
		fi
	done
	for ip in $IPS_MS; do
		# IP 100 ms: the floor measured before the main runs
		if [ "$ip" != 100 ]; then
			case " $FLOOR_IPS " in
			*" $ip "*) floor_at "$rep" "$ip" "$FLOOR_SWEEP_S" ;;
			*) FLOOR_CLK50=nan FLOOR_CLK99=nan FLOOR_ARR50=nan FLOOR_ARR99=nan FLOOR_ERR=nan ;;
			esac
		fi
		for sync in $SWEEP_SYNCS; do
			run "sweep-$rep-$sync-$ip" "$sync" "$ip" "$SWEEP_S" 1
			s=$(stat "sweep-$rep-$sync-$ip" "$ip")
			t_log "rep $rep $sync IP $ip ms ($(b_elapsed) s): $s share $RUN_SHARE hog $RUN_HOG"
			row "$rep" sweep "$sync" "$ip" "$s"
		done
	done
done

# on the emulated LAN (cluster.sh C_LAN=tap): lanswitch's counters
if [ "$C_LAN" = tap ]; then
	c_lan_stats > "$OUT/lanswitch.stats" || t_fail "no counters from lanswitch"
fi

# ---- report -----------------------------------------------------------------
ELAPSED=$(awk -v d="$(($(_t_now_us) - T_START))" 'BEGIN { printf "%.0f", d / 1e6 }')
GOALS=$T_DIR/sync.goals
python3 - "$CSV" "$FCSV" "$OUT/sync.md" "$QUICK" "$ELAPSED" "$FLOOR_WARM" "$OWD_US" "$FLOOR_IPS" "$GOALS" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
frows = list(csv.DictReader(open(sys.argv[2])))
md, quick, elapsed, warm, owd_us = sys.argv[3], sys.argv[4] == "1", sys.argv[5], sys.argv[6], sys.argv[7]
floor_ips = ["100"] + sys.argv[8].split()
def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")
f = lambda r, k: num(r[k])
ok = lambda v: v == v  # not nan
def agg(rs, k, fn):
    v = [f(r, k) for r in rs if ok(f(r, k))]
    return fn(v) if v else float("nan")
med = lambda v: sorted(v)[len(v) // 2]
yes = lambda c: "yes" if c else "no"
x = lambda v: ("%.2fx" % v) if ok(v) else "n/a"
na = lambda s: "n/a" if s in ("", "nan") else s
L = []
L.append("## Synchronization (bench-sync)\n")
L.append("4 hosts (`tests/system/cluster.sh`: one dts + pvmd per network namespace, "
         "all on this 2-CPU VM), STATIC mode, PS = IP/2. From h0 `sendgram` broadcasts "
         "the schedule to the subnet every SI, as dts-console does. Each host records its slice edges. "
         "The skew of a host k > 0 is its PS start minus the nearest PS start of h0, "
         "both in CLOCK_REALTIME, which all namespaces share. `arrival`: a node starts a PS "
         "when the datagram arrives. `clock`: the datagram carries a PS origin, "
         "and nodes align to origin + k·IP. "
         "The share is the CPU share of a PVM `spin` task on h0, with a local SCHED_OTHER hog, "
         "both pinned to CPU 0 (the other hosts' daemons share the 2 CPUs). "
         "Share error = spin share − PS/IP. The machine is shared and noisy. "
         "Each row is one run; %s.%s\n" % (
             "quick form" if quick else "full form, %d repetitions" % max(int(r["rep"]) for r in rows),
             " Took %s s." % elapsed))
L.append("### Floor of the same run\n")
L.append("Before the runs at IP %s ms (in each repetition), every dts idles in HPDT and the limits of this "
         "machine are measured, with nothing of dts in the path. On every host a bare loop " % "/".join(floor_ips) +
         "(`tests/bench/floor.c -O`: SCHED_FIFO 99, mlockall, `clock_nanosleep(TIMER_ABSTIME)`, `killpg`) "
         "stops and continues that host's PVM process group at the edges origin + k·IP and + PS, "
         "one CLOCK_REALTIME origin for all. That is clock sync with nothing else in the loop, and the h0 loop "
         "slices the very gang of `spin`, which gives the share floor. Meanwhile `tests/bench/owd.c` broadcasts "
         "a timestamped probe from h0 every %.1f ms (sender at SCHED_FIFO 98) to a receiver on every host, which "
         "records the kernel's receive stamp (SO_TIMESTAMPNS). The receivers run at SCHED_FIFO 1, below spin, "
         "so that they never take spin's CPU; the receive stamp does not wait for them. "
         "*late* = the loops' wake-up minus deadline (every edge, every host). "
         "*clock floor* = the skew of the bare loops, computed as for dts. "
         "*one-way delay* = receive stamp − send time (h1..h3). "
         "*spread* = |receive stamp on host k − on h0| of one broadcast. h0 is the skew's reference, "
         "and it gets its own broadcast through loopback, as h0's dts does. "
         "*receiver wake* = recvmsg returned − receive stamp. "
         "*arrival floor* = |spread + bare-loop skew|, per pair of edges, with the spread of the last "
         "probe host k got before the edge. That is the skew of loops that start a PS a fixed time after one "
         "broadcast's receive stamp: the physical limit of arrival sync. "
         "The loops record after a %s s warm-up. Unit: µs.\n" % (int(owd_us) / 1000.0, warm))
L.append("| rep | IP ms | late p50 | late p99 | pairs | clock floor p50 | p99 | max | probes | one-way delay p50 | p99 | spread p50 | p99 | receiver wake p50 | p99 | arrival floor p50 | p99 | max | floor: spin share % | share error pp |")
L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in frows:
    L.append("| " + " | ".join(r[k] for k in ("rep", "ip_ms", "late_p50_us", "late_p99_us", "pairs",
             "clock_floor_p50_us", "clock_floor_p99_us", "clock_floor_max_us", "probes", "owd_p50_us",
             "owd_p99_us", "spread_p50_us", "spread_p99_us", "rxwake_p50_us", "rxwake_p99_us",
             "arr_floor_p50_us", "arr_floor_p99_us", "arr_floor_max_us", "spin_share_pct",
             "share_err_pp")) + " |")
L.append("")
L.append("In the tables below, *floor* is the floor of the run's own sync method and IP, measured just before it "
         "(arrival: the arrival floor, clock: the clock floor), and *ratio* = skew / floor.\n")
L.append("### Skew at IP 100 ms, with a sync every SI\n")
L.append("| rep | sync | pairs | skew p50 µs | p99 µs | max µs | mean signed µs | drift p50 µs | drift max µs | floor p50 µs | floor p99 µs | ratio p50 | ratio p99 |")
L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    if r["part"] == "main":
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (r["rep"], r["sync"], r["pairs"],
                 r["skew_p50_us"], r["skew_p99_us"], r["skew_max_us"], r["mean_signed_us"],
                 r["drift_p50_us"], r["drift_max_us"], na(r["floor_p50_us"]), na(r["floor_p99_us"]),
                 x(f(r, "ratio_p50")), x(f(r, "ratio_p99"))))
L.append("")
dr = agg([r for r in rows if r["part"] == "main" and r["sync"] == "arrival"], "drift_p50_us", med)
L.append("Drift is the skew a host accumulates between two syncs. Per host and per sync interval "
         "(SI), it is the median signed skew of the second half of the interval minus that of the first half. "
         "Arrival sync, median over hosts and intervals: %.1f µs per SI. All network namespaces share one kernel clock, "
         "and dts sets absolute CLOCK_MONOTONIC deadlines, so it should be ~0. What remains is wake-up noise, "
         "not a trend. On separate machines, arrival sync would drift at the rate difference of their crystals "
         "(typically 10–50 ppm, i.e. 10–50 µs per second of SI), and clock sync would follow NTP/PTP.\n" % dr)
L.append("### IP sweep (PS = IP/2)\n")
L.append("| rep | sync | IP ms | pairs | skew p50 µs | p99 µs | max µs | p99 % of IP | spin share % | share error pp | hog % | floor p50 µs | floor p99 µs | ratio p50 | ratio p99 | floor: share error pp |")
L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
sweep = [r for r in rows if r["part"] == "sweep"]
order = {"arrival": 0, "clock": 1}
for r in sorted(sweep, key=lambda r: (int(r["rep"]), order.get(r["sync"], 2), -int(r["ip_ms"]))):
    L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (r["rep"], r["sync"], r["ip_ms"],
             r["pairs"], r["skew_p50_us"], r["skew_p99_us"], r["skew_max_us"], r["p99_pct_of_ip"],
             r["spin_share_pct"], r["share_err_pp"], r["hog_pct"], na(r["floor_p50_us"]), na(r["floor_p99_us"]),
             x(f(r, "ratio_p50")), x(f(r, "ratio_p99")), na(r["floor_share_err_pp"])))
L.append("")
main = [r for r in rows if r["part"] == "main"]
def fig(sync):
    rs = [r for r in main if r["sync"] == sync]
    return {k: agg(rs, k, med) for k in ("skew_p50_us", "skew_p99_us", "floor_p50_us", "floor_p99_us",
                                          "ratio_p50", "ratio_p99")}
arr, clk = fig("arrival"), fig("clock")
# the smallest IP down to which every IP met both bounds (median over the
# runs of an IP: repetitions and sync methods; one run starved by another
# job's real-time tasks must not decide alone)
worst, smallest = {}, None
for ip in sorted({int(r["ip_ms"]) for r in sweep}, reverse=True):
    rs = [r for r in sweep if int(r["ip_ms"]) == ip]
    p99 = med([f(r, "p99_pct_of_ip") for r in rs])
    err = med([abs(f(r, "share_err_pp")) for r in rs])
    ferr = agg(rs, "floor_share_err_pp", lambda v: med([abs(a) for a in v]))
    worst[ip] = (p99, err, ferr, med([f(r, "share_err_pp") for r in rs]))
passed = []
for ip, w in worst.items():
    if not (w[0] < 5 and w[1] < 1):
        break
    passed.append(ip)
smallest = passed[-1] if passed else None
IP_GOAL = 2
def skewfig(d):
    return ("%.1f µs (median of the runs' p99; p50 %.1f µs); floor p99 %.1f µs, ratio p99 %s "
            "(p50: floor %.1f µs, ratio %s)" % (d["skew_p99_us"], d["skew_p50_us"], d["floor_p99_us"],
                                                x(d["ratio_p99"]), d["floor_p50_us"], x(d["ratio_p50"])))
# the verdicts: speed goals (MISSED); the shell reads them back (b_goal)
goals = [("arrival-p99", arr["skew_p99_us"] < 200), ("clock-p99", clk["skew_p99_us"] < 50)]
yes = lambda c: "met" if c else "MISSED"
L.append("| goal | measured | verdict |")
L.append("|---|---|---|")
L.append("| arrival sync: skew p99 at IP 100 ms under 200 µs | %s | %s |" % (skewfig(arr), yes(arr["skew_p99_us"] < 200)))
L.append("| clock sync: skew p99 at IP 100 ms under 50 µs | %s | %s |" % (skewfig(clk), yes(clk["skew_p99_us"] < 50)))
desc = "median over runs: " + ", ".join("%d ms: p99 %.2f%% of IP, share error %.2f pp (%s)" % (
    ip, w[0], w[1], ("floor %.2f pp" % w[2]) if ok(w[2]) else "no floor") for ip, w in worst.items())
if worst:
    goals.append(("ip-sweep", smallest is not None and smallest <= IP_GOAL))
    L.append("| the smallest IP at which skew p99 stays under 5%% of IP and share error under 1 point: %d ms | %s (%s) | %s |" % (
        IP_GOAL, ("%d ms" % smallest) if smallest else "none", desc, yes(smallest is not None and smallest <= IP_GOAL)))
open(sys.argv[9], "w").write("".join("%s %d\n" % (n, 1 if c else 0) for n, c in goals))
L.append("")
why = []
for name, d, goal, what in (("arrival", arr, 200, "the spread of the receive stamps plus the bare loops' skew"),
                            ("clock", clk, 50, "the skew of bare RT loops at the same deadlines")):
    if d["skew_p99_us"] < goal:
        continue
    s = ("%s sync missed p99 < %d µs with %.1f µs. Its floor in the same run (%s) was %.1f µs p99, "
         "so dts's skew is %s its floor." % (name.capitalize(), goal, d["skew_p99_us"], what, d["floor_p99_us"],
                                             x(d["ratio_p99"])))
    if ok(d["floor_p99_us"]) and d["floor_p99_us"] >= goal:
        s += (" The floor alone is above the goal: on this VM (4 hosts and other jobs on 2 vCPUs) the wake-up "
              "tail of bare RT loops already exceeds it, so no scheduler can meet it here; one CPU per host "
              "(or a quiet machine) is needed.")
    if ok(d["ratio_p99"]) and d["ratio_p99"] <= 1.5:
        s += (" dts is close to its floor: what separates it from the goal is mostly the machine's wake-up "
              "tail, not dts's own work.")
    elif ok(d["ratio_p99"]):
        s += (" What dts adds above the floor is its own: how its edge thread wakes, its gang operation "
              "against the bare loop's `killpg`%s; or a burst of other sessions' load that hit the dts run "
              "and not the floor window before it (compare the repetitions)." % (
                  ", and how it turns the datagram's receive stamp into the deadline of the PS"
                  if name == "arrival" else ", and how it turns the datagram's origin into its deadlines"))
    why.append(s)
if worst and not (smallest is not None and smallest <= IP_GOAL):
    fail = [(ip, w) for ip, w in worst.items() if not (w[0] < 5 and w[1] < 1)]
    s = "The IP goal was missed"
    if fail:
        ip, w = fail[0]
        s += (" first at %d ms (skew p99 %.2f%% of IP, share error %.2f pp; the bare loop's share error "
              "at that IP: %s)" % (ip, w[0], w[1], ("%.2f pp" % w[2]) if ok(w[2]) else "not measured"))
        if ok(w[2]) and w[2] >= 5:
            s += (". The floor misses the share bound by as much: other real-time load on CPU 0 took spin's "
                  "slices in the floor window too, so this IP was not measurable in this run")
        elif ok(w[2]) and w[2] >= 1:
            s += (". The floor misses the share bound too: at that IP the edge cost and the wake-up tails "
                  "of this VM take more than a point of the slices, whoever slices")
        elif w[1] >= 1 and w[3] < 0 and ok(w[2]):
            s += (". The floor's share error is within the bound, so the share spin lost beyond it is dts's: "
                  "its per-edge cost (at IP 1 ms every 10 µs lost per IP costs 1 point)")
        elif w[1] >= 1 and ok(w[2]):
            s += (". spin got more than PS/IP, while the floor (never resynchronized) stayed within "
                  "the bound: that points at what a sync does to the running slice (a PS that starts at "
                  "a sync lengthens a PS or cuts an LS short), not at the edge cost")
    elif max(worst, default=IP_GOAL + 1) > IP_GOAL and min(worst, default=0) > IP_GOAL:
        s += " (the sweep did not go down to the goal's IP)"
    s += (". Other sessions' real-time gangs on the same 2 CPUs take whole slices now and then "
          "(runs whose spin share drops far below PS/IP); compare with the floor rows of the same IP.")
    why.append(s)
for w in why:
    L.append("- " + w)
if why:
    L.append("")
open(md, "w").write("\n".join(L) + "\n")
print("\n".join(L))
EOF
[ $? = 0 ] && [ -s "$GOALS" ] || t_fail "the report failed (see above)"
while read -r g ok; do b_goal speed "$g" 'ok == 1' ok="$ok"; done < "$GOALS"
t_log "bench-sync: ${ELAPSED} s; wrote $CSV, $FCSV, $OUT/sync.md, $OUT/gantt-trace.csv"
b_done
