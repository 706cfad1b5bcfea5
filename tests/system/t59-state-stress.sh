#!/bin/bash
# The state file's reader rule under stress (dts(8), SUSPEND AWARENESS),
# beside `stress-ng --cpu 2`:
#  1. tests/tools/statestress: dts's own writer (state_put) rewrites a
#     state file as fast as it can, with values that all follow from the
#     write's seq, and one reader per CPU, pinned, reads it through
#     dts-state's reader (state_reader_read, common/state_file.c) until
#     10^7 reads were accepted: not one may be torn.
#  2. The real dts-state, 200 runs alternating between the CPUs, against
#     that writer alone: every read it prints is one write whole.
#  3. The rule dts(8) taught before (one read(2), accepted when seq
#     equals end), 10^6 reads beside the same load: its torn reads are
#     counted and printed, not asserted (a run may get none).
# STATE_READS overrides the 10^7.
. "$(dirname "$0")/lib.sh"
t_setup state-stress
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (a reader on each)"
stress=$BUILD/tests/tools/statestress
t_need_built "$stress"
t_need stress-ng stress-ng
reads=${STATE_READS:-10000000}

# (--timeout: it cannot outlive a run that went wrong by much)
stress-ng --cpu 2 --timeout 280 --quiet &
hog=$!
t_track "$hog"
load="beside stress-ng --cpu 2"

# ---- 1. 10^7 reads through dts-state's reader --------------------------------
mkdir -p "$T_RUN/a"
out=$("$stress" -n "$reads" "$T_RUN/a" 2> "$T_LOG/stress.err")
rc=$?
t_log "dts-state's reader $load: $out"
[ "$rc" = 0 ] || t_fail "statestress (exit $rc): $out $(head -n 3 "$T_LOG/stress.err")"
read -r _ _ _ nr _ n _ torn _ <<< "$out"
[ "$n" -ge "$reads" ] && [ "$nr" -ge 2 ] && [ "$torn" = 0 ] ||
	t_fail "want $reads reads by 2 readers or more, none torn: $out"

# ---- 2. the real dts-state against the writer alone ------------------------
mkdir -p "$T_RUN/b"
"$stress" -w "$T_RUN/b" > "$T_LOG/writer.out" 2>&1 &
writer=$!
t_track "$writer"
t_wait_for 5 test -s "$T_RUN/b/state" || t_fail "the writer made no state file"
for i in $(seq 200); do
	taskset -c $((i % 2)) "$BUILD/run/dts-state" -f "$T_RUN/b/state" ||
		t_fail "dts-state, run $i: exit $?"
done > "$T_DIR/reads" 2> "$T_LOG/dts-state.err"
kill -TERM "$writer"
wait "$writer"
t_untrack "$writer"
out=$("$stress" -c < "$T_DIR/reads" 2>&1) ||
	t_fail "dts-state printed a torn or partial read: $out"
[ "$out" = "reads 200 torn 0" ] || t_fail "dts-state's reads: $out"
t_log "dts-state (the program, 200 runs on both CPUs) $load: $out; the writer: $(cat "$T_LOG/writer.out")"

# ---- 3. the rule of before, for the record ------------------------------------
mkdir -p "$T_RUN/c"
out=$("$stress" -o -n 1000000 "$T_RUN/c" 2> "$T_LOG/old.err")
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || t_fail "statestress -o (exit $rc): $out"
t_log "the rule of before (read(2), seq = end) $load: $out"

kill -TERM "$hog"
wait "$hog" 2> /dev/null
t_untrack "$hog"
t_pass
