#!/bin/bash
# ls_policy idle under a cgroup with the cpu controller.  SCHED_IDLE ranks
# a thread only inside its CPU group; under systemd's Delegate=yes the
# cpu controller may be on dts.service or system.slice, above the gang's
# own cgroup, and the gang then competes as that group against the local
# users.  dts's cgroup here is a child of a test-made parent that the
# root's cgroup.subtree_control gives the cpu controller: dts must refuse
# idle (STATUS ls_policy stop) and say why, naming that parent.  With
# autogroups off (else that is the reason it gives), under the autogroup
# lock of t12 and restored on exit.  Skipped where the cgroup2 root has
# no cpu controller in its cgroup.subtree_control (a hybrid hierarchy
# with cpu on cgroup v1; the test does not enable it machine-wide).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/node.sh"
t_setup idle-cpu-group
MNT=$(t_cg_mount)
[ -n "$MNT" ] || t_skip "no cgroup2 hierarchy"
grep -qw cpu "$MNT/cgroup.subtree_control" 2>/dev/null ||
    t_skip "the cgroup2 root does not enable the cpu controller ($MNT/cgroup.subtree_control: $(cat "$MNT/cgroup.subtree_control" 2>/dev/null))"
t_need flock util-linux

t_autogroup_lock
t_autogroups_off

# the parent: a CPU group of its own (the root enables cpu for it)
PARENT=$(t_cg_name parent)
mkdir "$MNT$PARENT" || t_fail "cannot make $MNT$PARENT"
t_track_cg "$MNT$PARENT"
grep -qw cpu "$MNT$PARENT/cgroup.controllers" ||
    t_fail "$MNT$PARENT has no cpu controller though the root enables it"

n_conf mode='"static"' ip='"100ms"' ps='"50%"' ls_policy='"idle"' \
    cgroup="\"$PARENT/dts\""
n_start_dts
[ "$(n_status ls_policy)" = stop ] ||
    t_fail "under a cpu-controller parent, STATUS says ls_policy $(n_status ls_policy), not stop"
grep -q "ls_policy idle cannot hold here: the gang's cgroup is in a CPU group of its own (cpu controller on $PARENT)" \
    "$T_LOG/dts.log" || t_fail "dts did not say why it refused idle: $(grep -m1 'ls_policy idle' "$T_LOG/dts.log")"
t_log "under $PARENT (cpu controller): ls_policy idle refused, LS stops the gang"
kill -TERM "$N_DTS"
n_wait_exit || t_fail "dts did not end on SIGTERM"
t_pass
