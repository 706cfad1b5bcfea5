#!/bin/bash
# dts -n checks a config and says where it is wrong (file:line); no key,
# no start; dts -k makes a key.  dts is a root service: it trusts its
# config, its key and dts-load only when root owns them and nobody else
# can write them (the key: nor read it), and it refuses to be started by
# anybody but root or with arguments.  Every refusal is one line on
# stderr, exit 1 (2 for a bad command line), and nothing is started.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup config
dts=$BUILD/dts/dts

n_conf mode='"static"' ip='"100ms"' ps='"80%"'
out=$("$dts" -n -f "$N_CONF" 2>&1) || t_fail "good config rejected: $out"
[ "$out" = "configuration OK" ] || t_fail "dts -n said: $out"
# dts -n -v: the configuration in effect (file and defaults), as a
# dts.conf that dts reads back to the same configuration
"$dts" -n -v -f "$N_CONF" > "$T_DIR/dump" 2> "$T_DIR/dump.err" ||
	t_fail "dts -n -v failed: $(cat "$T_DIR/dump.err")"
grep -qx 'ip = "100ms";' "$T_DIR/dump" || t_fail "dts -n -v shows no ip = \"100ms\""
grep -qx 'backend = "freezer";' "$T_DIR/dump" || t_fail "dts -n -v shows no default backend"
sed '$d' "$T_DIR/dump" > "$T_DIR/dump.conf" && chmod 600 "$T_DIR/dump.conf"
"$dts" -n -v -f "$T_DIR/dump.conf" 2> /dev/null | sed 1d > "$T_DIR/dump2"
sed 1d "$T_DIR/dump" | cmp -s - "$T_DIR/dump2" ||
	t_fail "the dump does not read back to the same configuration: $(sed 1d "$T_DIR/dump" | diff - "$T_DIR/dump2")"

# expect_err FILE PATTERN: dts -n fails with one line matching PATTERN
expect_err() {
	local out rc
	out=$("$dts" -n -f "$1" 2>&1); rc=$?
	[ "$rc" = 1 ] || t_fail "dts -n $1: exit $rc, want 1 ($out)"
	[ "$(wc -l <<< "$out")" = 1 ] || t_fail "not one line: $out"
	grep -Eq "$2" <<< "$out" || t_fail "dts -n $1: '$out' does not match '$2'"
}

# nothing_started: no adoption socket, no cgroup, no dts-load of ours
nothing_started() {
	[ ! -e "$N_SOCK" ] || t_fail "$1: the adoption socket was created"
	[ ! -d "$N_CG" ] || t_fail "$1: the cgroup $N_CG was created"
	C=$N_CONF awk 'index($0, ENVIRON["C"]) { f = 1 } END { exit !f }' < <(ps -eo args=) &&
	    t_fail "$1: a process with $N_CONF runs"
	[ -z "$(ls "$T_TMP")" ] || t_fail "$1: something wrote into PVM_TMP"
	return 0
}

# expect_nostart PATTERN [RUNNER...]: dts -f $N_CONF (really starting, not
# -n) exits 1 at once with one line on stderr matching PATTERN, starts
# nothing.  RUNNER (e.g. t_as_user) runs it; DTS_BIN overrides the binary.
expect_nostart() {
	local pat=$1 p rc
	shift
	t_track_cg "$N_CG"
	"$@" "${DTS_BIN:-$dts}" -f "$N_CONF" > "$T_LOG/out" 2> "$T_LOG/err" &
	p=$!
	t_track $p
	t_wait_for 5 _n_gone $p || t_fail "dts ($pat) did not exit"
	wait $p; rc=$?
	t_untrack $p
	[ "$rc" = 1 ] || t_fail "dts ($pat): exit $rc, want 1: $(cat "$T_LOG/err")"
	[ "$(wc -l < "$T_LOG/err")" = 1 ] || t_fail "dts ($pat): not one line: $(cat "$T_LOG/err")"
	grep -Eq "^dts: .*$pat" "$T_LOG/err" || t_fail "dts: '$(cat "$T_LOG/err")' does not match '$pat'"
	[ ! -s "$T_LOG/out" ] || t_fail "dts ($pat) wrote to stdout: $(cat "$T_LOG/out")"
	nothing_started "$pat"
}

# ---- the file's own errors, located -------------------------------------
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
# removed keys are unknown now
printf 'mode = "static";\nuser = "nobody";\n' > "$bad"
expect_err "$bad" "bad.conf:2: unknown key \"user\""
printf 'console = { dts = "/usr/sbin/dts"; };\n' > "$bad"
expect_err "$bad" "bad.conf:1: unknown key \"console.dts\""

# ---- the new keys: socket, cgroup, users ------------------------------------
n_conf socket='"dts.sock"'
expect_err "$N_CONF" "socket: \"dts.sock\" is not an absolute path"
n_conf cgroup='"dts-test"'
expect_err "$N_CONF" "cgroup: \"dts-test\" is neither \"auto\" nor an absolute path"
n_conf cgroup='"/dts-test/../../etc"'
expect_err "$N_CONF" "cgroup: .*without \"\\.\\.\""
n_conf users='["root", "bad name"]'
expect_err "$N_CONF" "users: .*\"bad name\" is not a user name"
n_conf users='"root"'
expect_err "$N_CONF" "users: "
n_conf users='["root", "nobody"]' cgroup='"auto"' socket="\"$T_DIR/x.sock\""
out=$("$dts" -n -f "$N_CONF" 2>&1) || t_fail "good socket/cgroup/users rejected: $out"

# ---- no key, no start; a key others can read is refused ----------------
n_conf key_file="\"$T_DIR/nokey\""
expect_err "$N_CONF" "key .*nokey: No such file or directory"
expect_nostart "nokey: No such file or directory"
chmod 644 "$N_KEY"
n_conf
expect_err "$N_CONF" "key $N_KEY: mode 0644 lets others read it: not trusted"
expect_nostart "key .*others read it"
chmod 640 "$N_KEY"	# the group may read it, not write it
"$dts" -n -f "$N_CONF" > /dev/null 2>&1 || t_fail "a key of mode 640 was refused"
chmod 620 "$N_KEY"
expect_err "$N_CONF" "key $N_KEY: mode 0620 lets others write it"
chmod 600 "$N_KEY"
# no console keys: the node would obey nobody; a key that is not one
n_conf console_keys='[]'
expect_err "$N_CONF" "console_keys is empty: this node would obey no console"
expect_nostart "console_keys is empty"
n_conf console_keys='["0123"]'
expect_err "$N_CONF" "dts.conf:[0-9]+: console_keys: entry 1: \"0123\" is not a public key \(64 hexadecimal digits"
n_conf console_keys="[\"$N_PUB\", \"$N_PUB\"]"
expect_err "$N_CONF" "console_keys: two console keys with the id"
# the old and the new key of a console while it changes: both taken
for i in 2 3; do
	"$BUILD/console/dts-console" -k "$T_DIR/console$i.key" > "$T_DIR/console$i.pub" ||
	    t_fail "dts-console -k failed"
done
grep -Eqx '[0-9a-f]{64}' "$T_DIR/console2.pub" || t_fail "dts-console -k printed: $(cat "$T_DIR/console2.pub")"
[ "$(stat -c %a "$T_DIR/console2.key")" = 600 ] || t_fail "dts-console -k: mode $(stat -c %a "$T_DIR/console2.key")"
pub2=$(cat "$T_DIR/console2.pub") pub3=$(cat "$T_DIR/console3.pub")
n_conf console_keys="[\"$N_PUB\", \"$pub2\"]"
out=$("$dts" -n -f "$N_CONF" 2>&1) || t_fail "two console keys rejected: $out"
n_conf console_keys="[\"$N_PUB\", \"$pub2\", \"$pub3\"]"
expect_err "$N_CONF" "console_keys: at most 2 console keys"
# insecure = true runs without one
n_conf key_file='"/nonexistent"' insecure=true
out=$("$dts" -n -f "$N_CONF" 2>&1) || t_fail "insecure config without key rejected: $out"

# ---- trust: root owns config, key and dts-load; nobody else writes them --
t_make_user
n_conf mode='"static"'
chmod 664 "$N_CONF"
expect_err "$N_CONF" "configuration $N_CONF: mode 0664 lets others write it: not trusted"
expect_nostart "configuration .*others write it"
chmod 646 "$N_CONF"
expect_err "$N_CONF" "configuration $N_CONF: mode 0646 lets others write it"
chmod 644 "$N_CONF"
chown "$T_USER" "$N_CONF"
expect_err "$N_CONF" "configuration $N_CONF: owned by uid $T_UID, not root: not trusted"
expect_nostart "configuration .*owned by uid $T_UID, not root"
chown root "$N_CONF"
# a directory others can write: the file could be replaced
mkdir -m 775 "$T_DIR/gw"
cp "$N_CONF" "$T_DIR/gw/dts.conf"
expect_err "$T_DIR/gw/dts.conf" "directory $T_DIR/gw: mode 0775 lets others write it"
chmod 755 "$T_DIR/gw"
"$dts" -n -f "$T_DIR/gw/dts.conf" > /dev/null 2>&1 || t_fail "config in a 755 directory refused"
# the key
chown "$T_USER" "$N_KEY"
expect_err "$N_CONF" "key $N_KEY: owned by uid $T_UID, not root"
chown root "$N_KEY"
# dts-load: runs as root with capabilities, so only root may replace it
t_pub_bin "$BUILD/load/dts-load" || t_fail "cannot copy dts-load"
agent=$T_DIR/bin/dts-load
n_conf load_agent="\"$agent\""
"$dts" -n -f "$N_CONF" > /dev/null 2>&1 || t_fail "a root-owned dts-load was refused"
chown "$T_USER" "$agent"
expect_err "$N_CONF" "load_agent $agent: owned by uid $T_UID, not root: not trusted"
expect_nostart "load_agent .*owned by uid $T_UID"
chown root "$agent"
chmod 775 "$agent"
expect_err "$N_CONF" "load_agent $agent: mode 0775 lets others write it"
chmod 755 "$agent"
n_conf load_agent="\"$T_DIR/no-agent\""
expect_err "$N_CONF" "load_agent $T_DIR/no-agent: No such file or directory"

# ---- only root starts dts ------------------------------------------------
t_pub_bin "$dts" || t_fail "cannot copy dts"
n_conf
chmod 644 "$N_CONF"
DTS_BIN=$T_DIR/bin/dts expect_nostart "must be started by root \\(uid $T_UID, euid $T_UID\\)" t_as_user
# not even with the capabilities it keeps (a file-capability dts must not
# exist: it would trust a caller's config)
DTS_BIN=$T_DIR/bin/dts expect_nostart "must be started by root" \
    setpriv --reuid="$T_UID" --regid="$(id -g "$T_USER")" --init-groups \
    --inh-caps=+sys_nice,+kill --ambient-caps=+sys_nice,+kill --

# ---- no arguments: dts is a service, it does not start pvmd ----------------
for args in "-- x" "x" "-- -f /etc/passwd"; do
	out=$("$dts" -f "$N_CONF" $args 2>&1); rc=$?
	[ "$rc" = 2 ] || t_fail "dts $args: exit $rc, want 2 ($out)"
	[ "$(wc -l <<< "$out")" = 1 ] && grep -q "^dts: unexpected argument" <<< "$out" ||
	    t_fail "dts $args: '$out'"
	nothing_started "dts $args"
done
out=$("$dts" -n -f "$N_CONF" -- 2>&1) || t_fail "dts -n -- (no argument after --) refused: $out"

# dts -k writes a fresh 0600 key and never overwrites one
"$dts" -k "$T_DIR/new.key" || t_fail "dts -k failed"
[ "$(stat -c %a "$T_DIR/new.key")" = 600 ] || t_fail "key mode not 600"
grep -Eq '^[0-9a-f]{64}$' "$T_DIR/new.key" || t_fail "key is not 64 hex digits"
"$dts" -k "$T_DIR/new.key" 2> /dev/null && t_fail "dts -k overwrote a key"
t_pass
