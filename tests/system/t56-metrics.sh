#!/bin/bash
# dts-console's `metrics FILE` against a real node: STATIC, PS 50% of IP
# 100 ms, a spinning task in the gang.  The file is read by promcheck
# (tests/tools/promparse.c: the strict reader the unit test uses) twice,
# a few seconds apart: over the node's own uptime between the two, the
# slices grew by about one per IP, the gang was stopped exactly in LS and
# LS was half of the time (to a phase at each end and the overruns), it
# got CPU time only in PS (at most PS, at least half of it), and each
# slice made two edges (one PS, one LS: the lateness histogram's count).
# The node is up (1); a console node where no dts listens is down (0).
# The file is replaced whole: no FILE.tmp is left.  Without FILE the
# same exposition goes to the output.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup metrics

CON=$BUILD/console/dts-console
CHECK=$BUILD/tests/tools/promcheck
t_need_built "$CON" "$CHECK"
n_split_cpus

# the node on 127.0.0.1 only: 127.0.0.2 is an address with no node
n_conf	# sets N_SIGN, N_SECRET
n_conf mode='"static"' ip='"100ms"' ps='"50%"' bind='"127.0.0.1"' \
    console="{ nodes = [\"127.0.0.1\", \"127.0.0.2\"]; history = \"\"; status_wait = \"1s\"; sign_key = \"$N_SIGN\"; node_secret = \"$N_SECRET\"; }"
n_start
n_spawn_spin
t_wait_for 5 n_phase_is LS || t_fail "the node does not slice"

PROM=$T_DIR/textfile/dts.prom
mkdir -p "$(dirname "$PROM")"

# metrics N: `metrics $PROM` through the console, read into $T_DIR/mN
metrics() {
	"$CON" -n -f "$N_CONF" -c "metrics $PROM" > "$T_DIR/out" 2> "$T_DIR/err" < /dev/null ||
	    t_fail "metrics: status $?: $(cat "$T_DIR/err")"
	[ -s "$T_DIR/out" ] && t_fail "metrics FILE printed: $(cat "$T_DIR/out")"
	[ -e "$PROM.tmp" ] && t_fail "$PROM.tmp left behind"
	cp "$PROM" "$T_LOG/metrics.$1"
	"$CHECK" "$PROM" > "$T_DIR/m$1" 2> "$T_DIR/err" ||
	    t_fail "not in Prometheus's format: $(cat "$T_DIR/err")"
}

# val N NAME [LABEL]: the value of NAME for 127.0.0.1 (with LABEL) in mN
val() {
	awk -v n="$2" -v l="${3:-}" 'index($1, n "{") == 1 &&
	    index($1, "addr=\"127.0.0.1\"") && (l == "" || index($1, l)) {
		print $2; exit }' "$T_DIR/m$1"
}

# within LO HI EXPR: LO <= EXPR <= HI (floats)
within() { awk "BEGIN { lo = $1; hi = $2; x = $3; exit !(x >= lo && x <= hi) }"; }

metrics 1
t_sleep 4
metrics 2

for k in 1 2; do
	[ "$(val $k dts_node_up)" = 1 ] || t_fail "127.0.0.1 is not up in $k: $(grep node_up "$T_DIR/m$k")"
	grep -qxF 'dts_node_up{addr="127.0.0.2",node="127.0.0.2"} 0' "$T_DIR/m$k" ||
	    t_fail "127.0.0.2 (no node) is not down in $k: $(grep node_up "$T_DIR/m$k")"
	grep -v '^dts_node_up{' "$T_DIR/m$k" | grep -q 'addr="127.0.0.2"' &&
	    t_fail "127.0.0.2 has other samples than dts_node_up"
done
[ "$(val 2 dts_mode 'mode="static"')" = 1 ] || t_fail "mode is not static: $(grep dts_mode "$T_DIR/m2")"
[ "$(val 2 dts_share_configured)" = 0.5 ] || t_fail "share $(val 2 dts_share_configured), want 0.5"
[ "$(val 2 dts_gang_members)" -ge 2 ] || t_fail "$(val 2 dts_gang_members) members, want pvmd and spin"

up1=$(val 1 dts_uptime_seconds) up2=$(val 2 dts_uptime_seconds)
dt=$(awk -v a="$up1" -v b="$up2" 'BEGIN { print b - a }')
within 3.5 60 "$dt" || t_fail "the node's uptime went from $up1 to $up2"
d() { awk -v a="$(val 1 "$1" "${2:-}")" -v b="$(val 2 "$1" "${2:-}")" 'BEGIN { print b - a }'; }
slices=$(d dts_slices_total) stopped=$(d dts_gang_stopped_seconds_total)
cpu=$(d dts_gang_cpu_seconds_total) ps=$(d dts_gang_ps_seconds_total)
ls=$(d dts_gang_ls_seconds_total) edges=$(d dts_edge_lateness_seconds_count)
overruns=$(d dts_overruns_total)
t_log "over ${dt}s: $slices slices, $overruns overruns, stopped ${stopped}s, gang CPU ${cpu}s, PS ${ps}s, LS ${ls}s, $edges edges"
within "$dt * 10 * 0.5" "$dt * 10 + 1" "$slices" ||
    t_fail "$slices slices in ${dt}s at IP 100ms"
# stop policy: the gang is stopped exactly in LS, and LS is half of the
# time, but for the phases cut at both ends (one LS, 0.05 s, each) and
# the overruns (an edge skipped stretches a phase by up to one)
within "$ls - 0.001" "$ls + 0.001" "$stopped" ||
    t_fail "stopped ${stopped}s, LS ${ls}s: the gang is stopped exactly in LS"
within "$dt * 0.5 - 0.11 - 0.1 * $overruns" "$dt * 0.5 + 0.11 + 0.1 * $overruns" "$stopped" ||
    t_fail "stopped ${stopped}s of ${dt}s, want LS/IP = 50%"
# its one spinner gets at most a CPU, and only in PS (the owner's promise),
# and at least half of PS even on a busy machine (it runs at RT)
within "$ps * 0.5" "$ps + 0.05" "$cpu" ||
    t_fail "the gang got ${cpu}s of CPU in ${ps}s of PS (${dt}s)"
within "$dt * 0.9" "$dt * 1.01" "$ps + $ls" ||
    t_fail "slicing PS ${ps}s + LS ${ls}s of ${dt}s"
within "2 * $slices - 2 - 2 * $overruns" "2 * $slices + 2" "$edges" ||
    t_fail "$edges edges for $slices slices"

# without FILE: the output, in the same format
"$CON" -f "$N_CONF" -c metrics > "$T_DIR/stdout.prom" 2> "$T_DIR/err" < /dev/null ||
    t_fail "metrics to the output: $(cat "$T_DIR/err")"
"$CHECK" "$T_DIR/stdout.prom" > "$T_DIR/m3" || t_fail "metrics to the output: not in the format"
[ "$(val 3 dts_node_up)" = 1 ] || t_fail "127.0.0.1 not up in the output"

n_halt || t_fail "dts did not exit after halt"
n_no_leftovers || t_fail "left over after halt"
t_pass
