#!/bin/bash
# The Debian packages, as an administrator uses them:
#   1. dpkg-buildpackage -us -uc -b builds dts, dts-console and dts-slurm
#      (Slurm's SPANK plugin: dts_spank.so and dts_spank(8)) from a copy
#      of this tree (the copy, so nothing lands next to the checkout);
#   2. dpkg -i installs all three (dts-slurm changes no file of Slurm's:
#      its plugin exports Slurm's SPANK symbols and loads with dlopen
#      RTLD_NOW once Slurm's own library is in the process, as in
#      slurmd); PVM's /usr/bin/pvmd is diverted to
#      /usr/bin/pvmd.real and the launch script stands in its place; the
#      unit is installed but neither enabled nor started;
#   3. a node runs from the installed files only: /usr/sbin/dts starts the
#      installed dts-load and answers STATUS; a pvmd started as PVM starts
#      one (/usr/bin/pvmd) lands in the gang, running PVM's pvmd.real;
#   4. dpkg --purge removes all three: no file of theirs is left, the diversion
#      is gone, /usr/bin/pvmd is PVM's own again, /etc/dts is gone, and
#      so is the group dts that the install made (its members may start
#      a gang: dts.conf's default users), with the install's mark of it
#      (/var/lib/dts/group-made-by-package);
#   5. on a machine whose administrator made the group dts first and put
#      a user in it (the README's steps), dpkg -i uses that group and
#      marks nothing, and dpkg --purge leaves the group and its member as
#      they were, and nothing else.
# Steps 2-4 and 5 each run in a chroot on an overlay of / in this test's
# private mount namespace: dpkg changes the upper layer only, so other
# sessions' pvmd never see the diversion.  Where this machine has a group
# dts, steps 2-4 first delete it in their overlay (a machine without one).
# After the purge the upper layer must hold nothing but dpkg's own records
# (its database and log), unchanged copies of what was there before, and
# what the administrator did before the install, as it was: that is
# "leaving nothing behind".
# T88_DEBS=DIR skips step 1 and takes the packages from DIR (while working
# on this test).
. "$(dirname "$0")/lib.sh"
if [ -z "${T88_INNER:-}" ]; then
	t_need unshare util-linux
	exec env T88_INNER=1 unshare --mount --propagation private bash "$0" "$@"
fi
t_setup deb
for c in dpkg-buildpackage dh chroot; do
	t_need "$c" "dpkg-dev debhelper"
done
[ -x /usr/bin/pvmd ] || t_fail "needs PVM's /usr/bin/pvmd: quickstart installs it (apt-get install pvm)"
[ -f "$SRC/debian/control" ] || t_fail "no debian/ in $SRC"
[ -e "$SRC/config.status" ] &&
	t_skip "the source tree is configured in place; the package builds out of tree"
[ -z "$(dpkg-divert --list /usr/bin/pvmd)" ] ||
	t_skip "/usr/bin/pvmd is already diverted on this machine ($(dpkg-divert --list /usr/bin/pvmd))"

# ---- 1. build ------------------------------------------------------------
pkg=${T88_DEBS:-$T_DIR/pkg}
if [ -z "${T88_DEBS:-}" ]; then
	src=$pkg/dts
	mkdir -p "$src"
	tar -C "$SRC" --exclude='./_build*' --exclude=./.git --exclude=./autom4te.cache \
	    --exclude='./debian/.debhelper' --exclude='./debian/tmp' -cf - . | tar -C "$src" -xf - ||
		t_fail "cannot copy the tree"
	# on every CPU (dh builds with one job unless told): this test holds
	# the machine's lock, nothing is measured beside it
	(cd "$src" && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }parallel=$(nproc)" \
	    dpkg-buildpackage -us -uc -b) > "$T_LOG/build.log" 2>&1 ||
		t_fail "dpkg-buildpackage failed: $(tail -n 5 "$T_LOG/build.log")"
fi
debs=()
for p in dts dts-console dts-slurm; do
	f=$(ls "$pkg"/${p}_*_*.deb 2> /dev/null | head -n 1)
	[ -n "$f" ] || t_fail "no ${p} package was built"
	debs+=("$f")
done
t_log "packages: $(cd "$pkg" && echo ./*.deb)"
dpkg -c "${debs[0]}" > "$T_LOG/dts.list" && dpkg -c "${debs[1]}" > "$T_LOG/console.list" ||
	t_fail "dpkg -c cannot read the packages"
for f in usr/sbin/dts usr/libexec/dts/dts-load usr/libexec/dts/pvmd usr/bin/pvmd \
    usr/bin/dts-run lib/systemd/system/dts.service etc/dts/dts.conf.example \
    usr/share/man/man8/dts.8.gz usr/share/man/man5/dts.conf.5.gz; do
	grep -q " \./$f\$" "$T_LOG/dts.list" || t_fail "the dts package has no /$f"
done
grep -q " \./usr/bin/dts-console$" "$T_LOG/console.list" || t_fail "dts-console has no binary"
dpkg -c "${debs[2]}" > "$T_LOG/slurm.list" || t_fail "dpkg -c cannot read dts-slurm"
grep -q " \./usr/lib/[^/]*/dts/dts_spank\.so$" "$T_LOG/slurm.list" &&
    grep -q " \./usr/share/man/man8/dts_spank\.8\.gz$" "$T_LOG/slurm.list" ||
	t_fail "dts-slurm has not the plugin and its man page: $(awk '{print $6}' "$T_LOG/slurm.list" | paste -sd' ')"
grep -Eq " \./(etc|usr/lib/[^/]*/slurm-wlm)/" "$T_LOG/slurm.list" &&
	t_fail "dts-slurm ships a file of Slurm's: $(grep -E ' \./(etc|usr/lib/[^/]*/slurm-wlm)/' "$T_LOG/slurm.list")"

# ---- the overlay roots -----------------------------------------------------
# overlay NAME: up and root, a fresh overlay of / with the packages in
# /var/tmp/debs
overlay() {
	up=$T_DIR/upper-$1 root=$T_DIR/root-$1
	mkdir -p "$up" "$T_DIR/work-$1" "$root"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$up,workdir=$T_DIR/work-$1" "$root" ||
		t_skip "cannot mount an overlay of / (kernel without overlayfs?)"
	for m in proc sys dev; do mount --rbind "/$m" "$root/$m" || t_fail "cannot bind /$m"; done
	mount -t tmpfs tmpfs "$root/run" || t_fail "cannot mount a tmpfs on run"
	mkdir -p "$root/var/tmp/debs"
	cp "${debs[@]}" "$root/var/tmp/debs/" || t_fail "cannot copy the packages"
}
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
# before_install: the upper layer's files as the administrator left them
# (checksums), which the purge must leave as they are
before_install() {
	rm -f "$T_DIR/before-$1"
	(cd "$up" && find . -type f -print0 | xargs -0r sha256sum) > "$T_DIR/before-$1"
}
# leftovers NAME: the files of the upper layer that the purge left: not
# dpkg's records, not as before_install found them, not identical to the
# machine's own
leftovers() {
	local f rel
	left=()
	while IFS= read -r -d '' f; do
		rel=${f#"$up"}
		case "$rel" in
		/var/lib/dpkg/* | /var/log/dpkg.log | /var/log/apt/* | /var/cache/* | /var/tmp | /run* | "$T_DIR"*)
			continue ;;
		/etc/group- | /etc/gshadow- | /etc/passwd- | /etc/shadow-)
			continue ;;	# the backups of addgroup, delgroup, useradd
		esac
		if [ -L "$f" ]; then
			[ "$(readlink "$f")" = "$(readlink "$rel")" ] && continue
		elif [ -f "$f" ]; then
			grep -qxF "$(cd "$up" && sha256sum ".$rel")" "$T_DIR/before-$1" && continue
			cmp -s "$f" "$rel" && continue
		fi
		left+=("$rel")
	done < <(find "$up" -mindepth 1 ! -type d -print0)
}
overlay new
if in_root getent group dts > /dev/null; then
	in_root groupdel dts || t_fail "cannot delete this machine's group dts in the overlay"
	t_log "this machine has a group dts: deleted in the overlay of steps 2-4"
fi
before_install new

# ---- 2. install ----------------------------------------------------------
in_root dpkg -i /var/tmp/debs/"$(basename "${debs[0]}")" /var/tmp/debs/"$(basename "${debs[1]}")" \
    /var/tmp/debs/"$(basename "${debs[2]}")" \
    > "$T_LOG/install.log" 2>&1 || t_fail "dpkg -i failed: $(tail -n 5 "$T_LOG/install.log")"
in_root dpkg-divert --list /usr/bin/pvmd | grep -q "to /usr/bin/pvmd.real by dts" ||
	t_fail "no diversion of /usr/bin/pvmd by dts: $(in_root dpkg-divert --list /usr/bin/pvmd)"
grep -q "DTS launch script" "$root/usr/bin/pvmd" || t_fail "/usr/bin/pvmd is not the launch script"
cmp -s "$root/usr/bin/pvmd.real" /usr/bin/pvmd || t_fail "/usr/bin/pvmd.real is not PVM's pvmd"
[ -z "$(ls "$root"/etc/systemd/system/*.wants/dts.service 2> /dev/null)" ] ||
	t_fail "the package enabled dts.service"
[ -f "$root/lib/systemd/system/dts.service" ] || t_fail "no unit installed"
in_root getent group dts > /dev/null || t_fail "the package made no group dts"
[ -f "$root/var/lib/dts/group-made-by-package" ] ||
	t_fail "the package made the group dts but did not mark it (/var/lib/dts/group-made-by-package)"
t_log "installed; /usr/bin/pvmd diverted to pvmd.real"
# the installed plugin loads as slurmd loads it (Slurm's library first)
spank=$(cd "$root" && ls usr/lib/*/dts/dts_spank.so 2> /dev/null | head -n 1)
[ -n "$spank" ] || t_fail "dts-slurm installed no /usr/lib/*/dts/dts_spank.so"
slurmlib=$(cd "$root" && ls usr/lib/*/slurm-wlm/libslurmfull.so 2> /dev/null | head -n 1)
if [ -n "$slurmlib" ] && [ -x "$root/usr/bin/python3" ]; then
	in_root python3 -c 'import ctypes, os, sys
ctypes.CDLL(sys.argv[1], mode=os.RTLD_GLOBAL | os.RTLD_NOW)
p = ctypes.CDLL(sys.argv[2], mode=os.RTLD_NOW)
s = lambda n: (ctypes.c_char * 64).in_dll(p, n).value.decode()
p.slurm_spank_init, p.slurm_spank_task_init
print("plugin_type %s, plugin_name %s, slurm_spank_init and slurm_spank_task_init" % (s("plugin_type"), s("plugin_name")))' \
	    "/$slurmlib" "/$spank" > "$T_LOG/spank-load.log" 2>&1 ||
		t_fail "the installed /$spank does not load beside Slurm's /$slurmlib: $(cat "$T_LOG/spank-load.log")"
	t_log "dts-slurm: /$spank loads beside /$slurmlib: $(cat "$T_LOG/spank-load.log")"
else
	t_log "dts-slurm: /$spank installed; its load not tried (no Slurm library or python3 here)"
fi

# ---- 3. a node from the installed files -----------------------------------
t_keys "$T_DIR" || t_fail "cannot make the keys"
t_nodekey "$T_DIR/nodes.key" 127.0.0.1 "$root/etc/dts/node.key" || t_fail "no node key"
port=$((20000 + $$ % 20000))
cg=$(t_cg_name)
t_track_cg "$(t_cg_dir)"
t_conf "$root/etc/dts/dts.conf" port="$port" key_file='"/etc/dts/node.key"' \
    console_keys="[\"$(cat "$T_DIR/console.pub")\"]" cgroup="\"$cg\"" \
    log_file='"/var/log/dts-test.log"' log_level='"debug"' mode='"static"' \
    ip='"100ms"' ps='"50%"' || t_fail "cannot write the config"
chroot "$root" /usr/sbin/dts > "$T_LOG/dts.out" 2>&1 &
dts=$!
t_track "$dts"
t_wait_for 10 test -S "$root/run/dts/dts.sock" ||
	t_fail "the installed dts did not start: $(tail -n 3 "$T_LOG/dts.out" "$root/var/log/dts-test.log" 2>&1)"
agent_is_installed() {
	local p
	for p in $(pgrep -P "$dts"); do
		[ "$(readlink "/proc/$p/exe")" = "$root/usr/libexec/dts/dts-load" ] && return 0
	done
	return 1
}
t_wait_for 5 agent_is_installed || t_fail "dts did not start the installed dts-load"
status=$("$BUILD/tests/tools/sendgram" -k "$T_DIR/nodes.key" -s "$T_DIR/console.key" \
    -p "$port" status) || t_fail "the installed dts does not answer STATUS"
grep -q "^mode=static" <<< "$status" || t_fail "STATUS: $status"
# a pvmd started the way PVM starts one
mkdir -p "$root/var/tmp/pvm"
chroot "$root" env -i PATH=/usr/bin:/bin PVM_TMP=/var/tmp/pvm PVM_ROOT=/usr/lib/pvm3 \
    PVM_ALLOW_ROOT=1 HOME=/root setsid /usr/bin/pvmd > "$T_LOG/pvmd.out" 2> "$T_LOG/pvmd.err" &
t_track $!
t_wait_for 10 grep -q pvmtmp "$T_LOG/pvmd.out" ||
	t_fail "no pvmd through the launch script: $(tail -n 3 "$T_LOG/pvmd.err")"
gang=$(t_job_cg root)/cgroup.procs
pvmd_in_gang() {
	local p
	for p in $(cat "$gang" 2> /dev/null); do
		[ "$(readlink "/proc/$p/exe")" = "$root/usr/bin/pvmd.real" ] && return 0
	done
	return 1
}
t_wait_for 5 pvmd_in_gang || t_fail "PVM's pvmd is not in the gang ($(cat "$gang" 2> /dev/null))"
t_log "the installed node runs: dts-load from /usr/libexec/dts, STATUS, pvmd in the gang"
for p in $(cat "$gang" 2> /dev/null); do kill "$p" 2> /dev/null; done
kill "$dts"
t_wait_for 10 sh -c "! kill -0 $dts 2>/dev/null" || t_fail "dts did not exit on SIGTERM"
wait "$dts" 2> /dev/null
t_untrack "$dts"
t_wait_for 5 sh -c "[ -z \"\$(cat $gang 2>/dev/null)\" ]" || t_fail "the gang is not empty"
# the installed dts's log, where t_pass reads the daemons' lines
cp "$root/var/log/dts-test.log" "$T_LOG/dts-installed.log" || t_fail "no log of the installed dts"
# the administrator's own files: dpkg leaves them, rightly
rm -f "$root/var/log/dts-test.log" "$root/etc/dts/node.key" "$root/etc/dts/dts.conf"
rm -rf "$root/var/tmp/pvm" "$root/var/tmp/debs"

# ---- 4. purge ---------------------------------------------------------------
in_root dpkg --purge dts-slurm dts-console dts > "$T_LOG/purge.log" 2>&1 ||
	t_fail "dpkg --purge failed: $(tail -n 5 "$T_LOG/purge.log")"
[ -z "$(in_root dpkg-divert --list /usr/bin/pvmd)" ] || t_fail "the diversion is still there"
cmp -s "$root/usr/bin/pvmd" /usr/bin/pvmd || t_fail "/usr/bin/pvmd is not PVM's pvmd again"
[ ! -e "$root/usr/bin/pvmd.real" ] || t_fail "/usr/bin/pvmd.real is left"
[ ! -e "$root/etc/dts" ] || t_fail "/etc/dts is left: $(ls -A "$root/etc/dts")"
! in_root getent group dts > /dev/null || t_fail "the purge left the group dts"
[ ! -e "$root/var/lib/dts" ] || t_fail "the purge left /var/lib/dts: $(ls -A "$root/var/lib/dts")"
leftovers new
[ ${#left[@]} -eq 0 ] || t_fail "the purge left behind: ${left[*]}"
t_log "purged: no diversion, PVM's pvmd back, no group dts, nothing left but dpkg's records"

# ---- 5. the administrator's group -------------------------------------------
overlay admin
member=dtsm$$
if ! in_root getent group dts > /dev/null; then
	in_root addgroup --system --quiet dts || t_fail "the administrator cannot make the group dts"
fi
in_root useradd -M -N -G dts "$member" || t_fail "the administrator cannot add $member to dts"
group=$(in_root getent group dts)
before_install admin
in_root dpkg -i /var/tmp/debs/"$(basename "${debs[0]}")" > "$T_LOG/install-admin.log" 2>&1 ||
	t_fail "dpkg -i beside the administrator's group failed: $(tail -n 5 "$T_LOG/install-admin.log")"
[ ! -e "$root/var/lib/dts/group-made-by-package" ] ||
	t_fail "the package marked the administrator's group as its own"
rm -rf "$root/var/tmp/debs"
in_root dpkg --purge dts > "$T_LOG/purge-admin.log" 2>&1 ||
	t_fail "dpkg --purge beside the administrator's group failed: $(tail -n 5 "$T_LOG/purge-admin.log")"
[ "$(in_root getent group dts)" = "$group" ] ||
	t_fail "the purge changed the administrator's group dts: '$group' became '$(in_root getent group dts)'"
in_root id -nG "$member" | grep -qw dts || t_fail "$member is no longer in the group dts"
[ ! -e "$root/var/lib/dts" ] || t_fail "the purge left /var/lib/dts: $(ls -A "$root/var/lib/dts")"
leftovers admin
[ ${#left[@]} -eq 0 ] || t_fail "the purge beside the administrator's group left behind: ${left[*]}"
t_log "the administrator's group: used, not marked, kept by the purge with its member ($group)"
t_pass "the packages build, install, run a node and purge cleanly; the administrator's group stays"
