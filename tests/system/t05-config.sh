#!/bin/bash
# dts -n checks a config and says where it is wrong (file:line); no key,
# no start; dts -k makes a key.  Nothing is started on an error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup config
dts=$BUILD/dts/dts

n_conf mode='"static"' ip='"100ms"' ps='"80%"'
out=$("$dts" -n -f "$N_CONF" 2>&1) || t_fail "good config rejected: $out"
[ "$out" = "configuration OK" ] || t_fail "dts -n said: $out"

# expect_err FILE PATTERN: dts -n fails with one line matching PATTERN
expect_err() {
	local out rc
	out=$("$dts" -n -f "$1" 2>&1); rc=$?
	[ "$rc" = 1 ] || t_fail "dts -n $1: exit $rc, want 1 ($out)"
	[ "$(wc -l <<< "$out")" = 1 ] || t_fail "not one line: $out"
	grep -Eq "$2" <<< "$out" || t_fail "dts -n $1: '$out' does not match '$2'"
}

bad=$T_DIR/bad.conf
printf 'mode = "static";\nport = 17000;\nspeed = 3;\n' > "$bad"
expect_err "$bad" "bad.conf:3: unknown key \"speed\""
printf 'mode = "static";\n\nip = "90s";\n' > "$bad"
expect_err "$bad" "bad.conf:3: ip: .*out of range"
printf 'mode = "fast";\n' > "$bad"
expect_err "$bad" "bad.conf:1: mode: .*not one of"
printf 'ip = "100ms";\nps = "100ms";\n' > "$bad"
expect_err "$bad" "PS"
printf 'ip = "1s";\nps = "98%%";\n' > "$bad"
expect_err "$bad" "real-time"
printf 'mode = "static"\nport = ;\n' > "$bad"
expect_err "$bad" "bad.conf:2"
expect_err "$T_DIR/missing.conf" "missing.conf: No such file"

# no key, no start; a key others can read is refused
n_conf key_file="\"$T_DIR/nokey\""
expect_err "$N_CONF" "nokey.*no key, no start"
"$dts" -f "$N_CONF" -- > "$T_LOG/out" 2>&1 & p=$!
t_track $p
t_wait_for 5 _n_gone $p || t_fail "dts without a key did not exit"
wait $p; [ $? = 1 ] || t_fail "dts without a key: exit status not 1"
[ -s "$T_LOG/out" ] || t_fail "no error message on stderr for a person"
[ -z "$(ls "$T_TMP")" ] || t_fail "pvmd was started without a key"
chmod 644 "$T_DIR/dts.key"
n_conf
expect_err "$N_CONF" "group or others"
chmod 600 "$T_DIR/dts.key"
# insecure = true runs without one
n_conf key_file='"/nonexistent"' insecure=true
"$dts" -n -f "$N_CONF" > /dev/null 2>&1 || t_fail "insecure config without key rejected"

# dts -k writes a fresh 0600 key and never overwrites one
"$dts" -k "$T_DIR/new.key" || t_fail "dts -k failed"
[ "$(stat -c %a "$T_DIR/new.key")" = 600 ] || t_fail "key mode not 600"
grep -Eq '^[0-9a-f]{64}$' "$T_DIR/new.key" || t_fail "key is not 64 hex digits"
"$dts" -k "$T_DIR/new.key" 2> /dev/null && t_fail "dts -k overwrote a key"
t_pass
