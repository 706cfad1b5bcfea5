#!/bin/bash
# The install that README's "Running DTS on a real cluster" describes, done
# as an administrator would, then used as a PVM user would:
#   make install and make install-pvm-hook (as root), a key readable by the
#   console's user, a dts service on every host from the installed files;
#   a normal user runs the installed dts-console: add a host, STATIC,
#   start, spawn, halt.  Every pvmd and task is in its host's gang, as the
#   user, at SCHED_RR.
#   Then the same user starts a VM from PVM's own `pvm` console, which runs
#   /usr/bin/pvmd directly, and adds a host with no dx=: with the hook in
#   place both pvmds are in gangs all the same.
# The installed tree and the hook appear at their real paths only inside
# this test's private mount namespace (bind mounts): nothing on the
# machine changes, and other sessions' pvmd keep running PVM's own.
. "$(dirname "$0")/lib.sh"
if [ -z "${T82_INNER:-}" ]; then
	t_need unshare util-linux
	exec env T82_INNER=1 unshare --mount --propagation private bash "$0" "$@"
fi
. "$SRC/tests/system/cluster.sh"
t_setup install
t_need_built Makefile
t_need useradd passwd

# ---- the administrator: make install, make install-pvm-hook ------------
root=$T_DIR/root
prefix=$(sed -n 's/^prefix = //p' "$BUILD/Makefile")
make -s -C "$BUILD" install DESTDIR="$root" > "$T_LOG/install.log" 2>&1 ||
	t_fail "make install failed: $(tail -n 5 "$T_LOG/install.log")"
make -s -C "$BUILD" install-pvm-hook DESTDIR="$root" >> "$T_LOG/install.log" 2>&1 ||
	t_fail "make install-pvm-hook failed: $(tail -n 5 "$T_LOG/install.log")"
for f in sbin/dts bin/dts-run bin/dts-console libexec/dts/dts-load libexec/dts/pvmd \
    share/man/man8/dts.8 share/man/man1/dts-run.1 etc/dts/dts.conf.example; do
	[ -e "$root$prefix/$f" ] || t_fail "make install did not install $prefix/$f"
done
unit=$(sed -n 's/^systemdsystemunitdir = //p' "$BUILD/Makefile")
unit=${unit//'${prefix}'/$prefix}
grep -q "^ExecStart=$prefix/sbin/dts$" "$root$unit/dts.service" ||
	t_fail "no systemd unit starting $prefix/sbin/dts in $unit"
# where systemd reads units: the build's prefix puts them there
case $unit in
/etc/systemd/system | /lib/systemd/system | /usr/lib/systemd/system | /usr/local/lib/systemd/system) ;;
*) t_fail "the units went to $unit, where systemd reads no units" ;;
esac
# make install prefix=DIR (as ./configure --prefix=DIR) writes below DIR
# only, the units too (in DIR/lib/systemd/system); in a DESTDIR, so that
# a unit written outside DIR lands in it, not on this machine
px=/opt/dts-t82.$$
make -s -C "$BUILD" install prefix="$px" DESTDIR="$T_DIR/stage" > "$T_LOG/install-prefix.log" 2>&1 ||
	t_fail "make install prefix=$px failed: $(tail -n 5 "$T_LOG/install-prefix.log")"
outside=$(cd "$T_DIR/stage" && find . ! -type d | sed 's|^\.||' | grep -v "^$px/")
[ -z "$outside" ] || t_fail "make install prefix=$px wrote outside it: $(echo $outside)"
[ -f "$T_DIR/stage$px/lib/systemd/system/dts.service" ] &&
    [ -f "$T_DIR/stage$px/lib/systemd/system/dts-console.service" ] ||
	t_fail "make install prefix=$px put no unit in $px/lib/systemd/system"
t_log "make install: units in $unit; with prefix=$px, $(cd "$T_DIR/stage" && find . ! -type d | wc -l) files, all below it"
grep -q "^Delegate=yes" "$root$unit/dts.service" || t_fail "the unit does not delegate"
# the jobs' cgroups are below the unit's: systemd's TasksMax would count
# a job's threads against dts's own (dts(8), The gang)
grep -q "^TasksMax=infinity" "$root$unit/dts.service" || t_fail "the unit has a TasksMax: a job of 6,000 threads would starve dts"
[ -x "$root/usr/bin/pvmd" ] || t_fail "install-pvm-hook installed no /usr/bin/pvmd"
cmp -s "$root/usr/bin/pvmd" "$root$prefix/libexec/dts/pvmd" ||
	t_fail "the hook is not the launch script"
# The hook's own targets, on a copy of pvmd (PVMD_PATH points at it): the
# launch script takes its place, PVM's binary moves to .real (with a
# dpkg diversion where dpkg-divert exists), a second install only
# updates, and uninstall puts everything back.  The subshell's EXIT trap
# removes the hook even if a check fails.
fake=$T_DIR/fakebin
mkdir -p "$fake" && cp /usr/bin/pvmd "$fake/pvmd" || t_fail "cp pvmd"
hook() { make -s -C "$BUILD" "$1" PVMD_PATH="$fake/pvmd" >> "$T_LOG/hook.log" 2>&1; }
diverted() { command -v dpkg-divert > /dev/null &&
    dpkg-divert --list "$fake/pvmd" | grep -q "$fake/pvmd.real"; }
(
	trap 'hook uninstall-pvm-hook' EXIT
	hook install-pvm-hook || t_fail "install-pvm-hook: $(tail -n 3 "$T_LOG/hook.log")"
	grep -q "DTS launch script" "$fake/pvmd" || t_fail "the hook did not replace pvmd"
	cmp -s /usr/bin/pvmd "$fake/pvmd.real" || t_fail "PVM's pvmd is not at .real"
	if command -v dpkg-divert > /dev/null; then
		diverted || t_fail "no dpkg diversion for $fake/pvmd"
	fi
	hook install-pvm-hook || t_fail "a second install-pvm-hook failed"
	grep -q "already in place" "$T_LOG/hook.log" || t_fail "second install: $(cat "$T_LOG/hook.log")"
	hook uninstall-pvm-hook || t_fail "uninstall-pvm-hook failed"
	trap - EXIT
	cmp -s /usr/bin/pvmd "$fake/pvmd" || t_fail "uninstall did not put pvmd back"
	[ ! -e "$fake/pvmd.real" ] || t_fail "uninstall left pvmd.real"
	! diverted || t_fail "uninstall left the diversion"
) || exit 1
t_log "install-pvm-hook / uninstall-pvm-hook: diverted and restored $fake/pvmd"

# PVM's own pvmd, moved aside as the hook's dpkg-divert does (under
# another name, so that its processes are still called pvmd)
mkdir -p "$T_DIR/real" && cp /usr/bin/pvmd "$T_DIR/real/pvmd" || t_fail "cp pvmd"
mount --bind "$root$prefix" "$prefix" || t_fail "cannot bind $prefix"
mount --bind "$root/usr/bin/pvmd" /usr/bin/pvmd || t_fail "cannot bind the hook"
t_log "installed into $root, bound over $prefix and /usr/bin/pvmd (this namespace only)"

t_make_user
C_GANG_USER=$T_USER	# c_gang_*: the user's job USER:pvm on each host
t_pub_bin "$BUILD/tests/pvm/spin" "$BUILD/tests/pvm/dts-pvmctl" || t_fail "t_pub_bin"

# every host runs the installed dts with the real pvmd behind the hook
C_DTS=$prefix/sbin/dts
C_CONF_EXTRA="load_agent = \"$prefix/libexec/dts/dts-load\";
pvmd = \"$T_DIR/real/pvmd\";"
# the keys as the README makes them, with the installed programs: the
# consoles' secret (dts -k) and a console key pair (dts-console -k); the
# harness keeps them and derives each host's own key from them
"$prefix/sbin/dts" -k "$T_DIR/nodes.key" || t_fail "dts -k failed"
"$prefix/bin/dts-console" -k "$T_DIR/console.key" > "$T_DIR/console.pub" ||
    t_fail "dts-console -k failed"
grep -Eqx '[0-9a-f]{64}' "$T_DIR/console.pub" || t_fail "dts-console -k printed $(cat "$T_DIR/console.pub")"
c_up 2 --no-pvm || t_fail "cluster did not come up"
# the console's keys (its key pair, the nodes' secret): root's, readable by
# the console's user only
for f in "$C_SIGN" "$C_KEY"; do
	chgrp "$(id -g "$T_USER")" "$f" && chmod 640 "$f" || t_fail "key mode of $f"
done

# ---- the user: dts-console ------------------------------------------------
conf=$T_DIR/console.conf
t_conf "$conf" port="$C_PORT" mode='"static"' \
    ip='"100ms"' ps='"50%"' \
    console="{ launcher = \"$prefix/libexec/dts/pvmd\"; pvm_tmp = \"$T_DIR/h0/utmp\"; history = \"\"; sign_key = \"$C_SIGN\"; node_secret = \"$C_KEY\"; }"
mkdir -p "$T_DIR/h0/utmp" && chown "$T_USER" "$T_DIR/h0/utmp" || t_fail "utmp"
# each host's key_file is what the installed dts-console -N prints for it
for k in 0 1; do
	[ "$("$prefix/bin/dts-console" -f "$conf" -N "${C_ADDR[$k]}")" = "$(cat "$T_DIR/h$k/dts.key")" ] ||
	    t_fail "dts-console -N ${C_ADDR[$k]} is not h$k's key_file"
done
# ucons K CMDS: the installed dts-console as the user, on host K
ucons() {
	c_exec "$1" setpriv --reuid="$T_UID" --regid="$(id -g "$T_USER")" --init-groups \
	    --inh-caps=-all --bounding-set=-all -- env -u PVM_ALLOW_ROOT \
	    "$prefix/bin/dts-console" -f "$conf" -c "$2"
}
ucons 0 "add h1; start; spawn -n 2 -w h0 $T_DIR/bin/spin 60; spawn -n 2 -w h1 $T_DIR/bin/spin 60" \
    > "$T_LOG/console1.out" 2>&1 || t_fail "dts-console as $T_USER: $(cat "$T_LOG/console1.out")"
t_log "console: $(tr '\n' '|' < "$T_LOG/console1.out")"

# predicates for t_wait_for
phase_is() { [ "$(c_status "$1" phase)" = "$2" ]; }
gang_empty() { [ -z "$(c_gang_pids "$1")" ]; }
has_pvmd() { [ -n "$(c_gang_pids "$1" pvmd)" ]; }

# both hosts: pvmd and two tasks in the gang, the user's, at RR; slicing
in_gang() {	# in_gang K: pvmd and 2 spin in K's gang, all the user's, RR
	local k=$1 p n=0
	[ -n "$(c_gang_pids "$k" pvmd)" ] || return 1
	for p in $(c_gang_pids "$k"); do
		[ "$(stat -c %u "/proc/$p")" = "$T_UID" ] || return 1
		[ "$(t_policy "$p")" = RR ] || return 1
		[ "$(cat "/proc/$p/comm")" = spin ] && n=$((n + 1))
	done
	[ "$n" = 2 ]
}
for k in 0 1; do
	t_wait_for 10 in_gang "$k" || t_fail "h$k: pvmd and its tasks are not the user's gang: \
$(for p in $(c_gang_pids "$k"); do echo -n "$p:$(cat /proc/$p/comm):$(stat -c %u /proc/$p) "; done)"
	t_wait_for 5 phase_is "$k" LS || t_fail "h$k is not slicing"
	[ "$(c_status "$k" mode)" = static ] || t_fail "h$k: mode $(c_status "$k" mode)"
done
t_log "h0, h1: pvmd + 2 tasks of $T_USER in each gang, STATIC, slicing"
ucons 0 "halt" > "$T_LOG/console2.out" 2>&1 || t_fail "halt: $(cat "$T_LOG/console2.out")"
for k in 0 1; do
	t_wait_for 10 gang_empty "$k" || t_fail "h$k: gang not empty after halt"
done

# ---- the same user, PVM's own console: the hook ----------------------------
mkdir -p "$T_DIR/h0/ptmp" && chown "$T_USER" "$T_DIR/h0/ptmp" || t_fail "ptmp"
printf 'add h1\nconf\nquit\n' > "$T_DIR/pvm.in"
c_exec 0 setpriv --reuid="$T_UID" --regid="$(id -g "$T_USER")" --init-groups \
    --inh-caps=-all --bounding-set=-all -- env -u PVM_ALLOW_ROOT \
    PVM_TMP="$T_DIR/h0/ptmp" timeout 60 pvm < "$T_DIR/pvm.in" > "$T_LOG/pvm.out" 2>&1 ||
	t_fail "pvm console: $(tail -n 5 "$T_LOG/pvm.out")"
grep -q "1 successful" "$T_LOG/pvm.out" || t_fail "pvm add h1: $(cat "$T_LOG/pvm.out")"
for k in 0 1; do
	t_wait_for 5 has_pvmd "$k" || t_fail "h$k: the stock console's pvmd is not in the gang"
done
t_log "stock pvm console: both pvmds in their hosts' gangs through the hook"
c_exec 0 setpriv --reuid="$T_UID" --regid="$(id -g "$T_USER")" --init-groups \
    --inh-caps=-all --bounding-set=-all -- env PVM_TMP="$T_DIR/h0/ptmp" \
    "$T_DIR/bin/dts-pvmctl" -T 10 halt > /dev/null 2>&1
for k in 0 1; do
	t_wait_for 10 gang_empty "$k" || t_fail "h$k: gang not empty after the second halt"
done
t_pass
