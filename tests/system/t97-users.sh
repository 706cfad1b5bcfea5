#!/bin/bash
# Who may start a gang (dts.conf(5), users): the package's default
# ["@dts"] and a config that names a group, on a real dts.
#  1. users = ["@GROUP"]: a fresh user who is not in GROUP is refused by
#     dts-run, exit 126 and one line that names GROUP and how to join it;
#     once in GROUP (usermod -aG, as adduser USER GROUP does) the same
#     user's command runs in the gang.
#  2. The default (no users key: ["@dts"]): that user, not in dts, is
#     refused with a line that names dts.
#  3. users = []: the user is refused; root is adopted (root always is).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup users
t_make_user --no-group
t_pub_bin "$BUILD/run/dts-run" || t_fail "t_pub_bin"

# urun: dts-run -- cat /proc/self/cgroup as the user; U_RC, U_OUT, U_ERR
urun() {
	t_as_user env DTS_SOCKET="$N_SOCK" DTS_PVMJOIN=/nonexistent \
	    "$T_DIR/bin/dts-run" -- cat /proc/self/cgroup > "$T_LOG/u.out" 2> "$T_LOG/u.err"
	U_RC=$?
	U_OUT=$(cat "$T_LOG/u.out")
	U_ERR=$(cat "$T_LOG/u.err")
}
restart() {
	if [ -n "$N_DTS" ]; then
		kill -TERM "$N_DTS"
		n_wait_exit || t_fail "dts did not stop"
		rm -f "$N_SOCK"
	fi
	n_start_dts
}

# ---- 1. a group --------------------------------------------------------
n_conf mode='"static"' ip='"100ms"' ps='"50%"'
grep -q "^users = \[\"@$T_GROUP\"\];" "$N_CONF" || t_fail "n_conf: $(grep users "$N_CONF")"
n_start_dts
urun
[ "$U_RC" = 126 ] || t_fail "$T_USER, not in $T_GROUP: exit status $U_RC ($U_OUT $U_ERR)"
[ "$(wc -l <<< "$U_ERR")" = 1 ] &&
    grep -q "^dts-run: user $T_USER (uid $T_UID) may not run a gang on this node: not in group $T_GROUP (an administrator adds you: adduser $T_USER $T_GROUP; dts.conf: users)$" <<< "$U_ERR" ||
	t_fail "refusal: '$U_ERR'"
t_log "not in the group: $U_ERR"
t_join_group
urun
[ "$U_RC" = 0 ] || t_fail "$T_USER, in $T_GROUP: exit status $U_RC: $U_ERR"
N_GANG=$(n_job_cg "$T_USER")	# the user's job
[ "${U_OUT##*:}" = "${N_GANG#"$(t_cg_mount)"}" ] ||
	t_fail "$T_USER's command ran in ${U_OUT##*:}, not in the gang ${N_GANG#"$(t_cg_mount)"}"
t_log "in the group: adopted into ${U_OUT##*:}"
t_wait_for 5 n_gang_empty || t_fail "the gang did not empty"
N_GANG=$(n_job_cg root)

# ---- 2. the default: @dts ------------------------------------------------
gpasswd -d "$T_USER" "$T_GROUP" > /dev/null || t_fail "gpasswd -d"
sed -i '/^users = /d' "$N_CONF"
restart
"$BUILD/dts/dts" -n -v -f "$N_CONF" 2> /dev/null | grep -qx 'users = \["@dts"\];' ||
	t_fail "the default users: $("$BUILD/dts/dts" -n -v -f "$N_CONF" | grep users)"
if id -nG "$T_USER" | grep -qw dts; then t_fail "$T_USER is in dts"; fi
urun
[ "$U_RC" = 126 ] && grep -Eq "may not run a gang on this node: (not in group dts \(an administrator adds you: adduser $T_USER dts|group dts does not exist here \(an administrator makes it: addgroup --system dts)" <<< "$U_ERR" ||
	t_fail "default users: exit status $U_RC: '$U_ERR'"
t_log "default [\"@dts\"]: $U_ERR"

# ---- 3. [] : root only ------------------------------------------------------
n_conf mode='"static"' ip='"100ms"' ps='"50%"' users='[]'
restart
urun
[ "$U_RC" = 126 ] && grep -q "only root may (dts.conf: users = \[\])" <<< "$U_ERR" ||
	t_fail "users = []: exit status $U_RC: '$U_ERR'"
out=$(DTS_SOCKET=$N_SOCK "$BUILD/run/dts-run" -- cat /proc/self/cgroup 2>&1) ||
	t_fail "users = []: root refused: $out"
[ "${out##*:}" = "${N_GANG#"$(t_cg_mount)"}" ] || t_fail "root's command ran in ${out##*:}"
t_log "users = []: $T_USER refused, root adopted"
t_pass
