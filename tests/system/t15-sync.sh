#!/bin/bash
# sync_point: a schedule datagram makes the node jump to the start of a PS
# (arrival sync), or align its PS starts to origin + k*IP of the sender's
# CLOCK_REALTIME (clock sync) and stay aligned (absolute deadlines, no
# drift).  Wake-ups so late that they pass edges skip them and count
# overruns.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup sync
n_split_cpus
IP=100000000	# ns

n_conf mode='"static"' ip='"100ms"' ps='"50%"'
n_start
n_spawn_spin

field() { sed -n "s/^$1=//p" <<< "$2"; }

# 1. arrival: sent in an LS, a PS starts ARRIVAL_DELAY (2 ms) after the
# datagram arrived, and the slices go on from there
DELAY=2000000	# ns, dts/scheduler.h
for i in 1 2 3; do
	t_wait_for 2 n_phase_is PS || t_fail "no PS"
	t_wait_for 2 n_phase_is LS || t_fail "no LS"
	t0=$(date +%s%N)
	out=$(n_send schedule static 50000 100000 arrival) || t_fail "no reply"
	t1=$(date +%s%N)
	t_sleep 0.3
	# from the node's own trace: a PS due 2 ms after the datagram came
	# (due = done - op - late; between send + 2 ms and reply + 2 ms),
	# whatever edges the old grid made before it, and the next PS
	ps= next=
	n_send trace "$t0" > "$T_LOG/trace-$i.csv"
	while IFS=, read -r ph done late op; do
		[ "$ph" = PS ] || continue
		due=$((done - late - op))
		if [ "$due" -ge $((t0 + DELAY)) ] && [ "$due" -le $((t1 + DELAY)) ]; then
			ps=$due next=	# the last one: the old grid may come first
		elif [ -n "$ps" ] && [ -z "$next" ]; then
			next=$due
		fi
	done < <(tail -n +2 "$T_LOG/trace-$i.csv")
	[ -n "$ps" ] || t_fail "no PS due 2 ms after the datagram (send $t0, reply $t1)"
	[ -n "$next" ] || t_fail "no PS after the jump in the trace"
	t_log "arrival sync: reply said $(field phase "$out"), a PS was due $(( (ps - t0) / 1000 )) us after the send"
	off=$(( (next - ps) % IP ))
	[ "$off" -lt 5000000 ] || [ "$off" -gt $((IP - 5000000)) ] ||
	    t_fail "the PS after the jump is $off ns off its IP grid"
done

# 2. clock: PS starts fall on origin + k*IP, for seconds, whatever the
# moment the datagram arrived
origin=$(( ($(date +%s) - 10) * 1000000000 + 12345678 ))
n_send -O "$origin" schedule static 30000 100000 clock > /dev/null || t_fail "no reply"
# from the node's trace: every PS is due (done - late - op) exactly on the
# grid (to 50 us: two clock reads apart), and most start within 3 ms of it
# (a late wake-up on a busy machine moves a start, never the grid)
t_sleep 2
since=$(( $(date +%s%N) - 1500000000 ))
n_send trace "$since" > "$T_LOG/trace-clock.csv" || t_fail "no trace"
read -r n worst late <<< "$(awk -F, -v o="$origin" -v ip="$IP" '
	$1 != "PS" { next }
	{ d = ($2 - $3 - $4 - o) % ip; if (d > ip / 2) d -= ip; if (d < 0) d = -d
	  if (d > w) w = d; n++; if ($2 - $3 - $4 > 0 && $3 + $4 >= 3000000) l++ }
	END { printf "%d %d %d\n", n, w, l }' "$T_LOG/trace-clock.csv")"
[ "$n" -ge 10 ] || t_fail "clock sync: only $n PS starts in 1.5 s"
[ "$worst" -le 50000 ] || t_fail "clock sync: a PS was due $worst ns off origin + k*IP"
[ "$late" -le $((n / 4)) ] || t_fail "clock sync: $late of $n PS starts 3 ms or more late"
t_log "clock sync: $n PS due within $((worst / 1000)) us of origin + k*IP, $late started 3 ms or more late"
[ "$(n_status sync)" = clock ] || t_fail "sync method not clock"
# the same origin again is not a jump: the PS count does not reset or leap
s1=$(n_status slices)
n_send -O "$origin" schedule static 30000 100000 clock > /dev/null
t_sleep 1
s2=$(n_status slices)
[ $((s2 - s1)) -ge 8 ] && [ $((s2 - s1)) -le 12 ] ||
    t_fail "re-sync with the same origin: $((s2 - s1)) PS starts in 1 s, want ~10"

# 3. overruns: dts itself stopped for 350 ms misses about 7 edges
o1=$(n_status overruns)
kill -STOP "$N_DTS"; t_sleep 0.35; kill -CONT "$N_DTS"
has_status() { [ -n "$(n_status overruns)" ]; }
t_wait_for 2 has_status || t_fail "no status after SIGCONT"
o2=$(n_status overruns)
[ $((o2 - o1)) -ge 4 ] || t_fail "overruns went $o1 -> $o2 after a 350 ms stall"
t_log "350 ms stall of dts: $((o2 - o1)) edges skipped and counted"
s1=$(n_status slices); t_sleep 0.5; s2=$(n_status slices)
[ "$s2" -gt "$s1" ] || t_fail "no more PS after the stall"
# (the stall outlasted dts-load's limit, 2 IP: it released the gang, and
# dts slices it again)
t_wait_for 2 n_gang_frozen || t_fail "the gang is not frozen in LS after the stall"
t_wait_for 2 n_is_running "$N_SPIN" || t_fail "the gang does not run in PS after the stall"

n_halt || t_fail "dts did not exit"
n_no_leftovers || t_fail "left over"
t_pass
