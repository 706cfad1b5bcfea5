# slurm.sh - a real Slurm cluster over tests/system/cluster.sh's hosts, for
# the DTS system tests (bash; source it after lib.sh and cluster.sh):
# munged, slurmctld and one slurmd per host, with DTS's SPANK plugin
# (slurm/dts_spank.so, man/dts_spank.8) in its plugstack.
#
#   . "$(dirname "$0")/lib.sh"
#   . "$SRC/tests/system/cluster.sh"
#   . "$SRC/tests/system/slurm.sh"
#   t_setup my-test
#   s_need                      # fail unless Slurm, munge and the plugin
#   c_up 2 --no-pvm             # the hosts h0 h1, a dts on each
#   s_up                        # munged, slurmctld, a slurmd per host
#   s_run h0 "${UA[@]}" srun -N2 --dts hostname   # a client, on a host
#   ... t_pass                  # s_down runs from the EXIT trap, before
#                               # cluster.sh's c_down
#
# Layout (nothing in /etc, nothing of the machine's own munge or Slurm;
# the packaged daemons are never started):
#   $T_DIR/munge/     munged's key (made here, 1 KiB of /dev/urandom),
#                     socket, pid, log and seed files; munged runs as the
#                     user munge (the package's) in the root namespaces
#   $T_DIR/slurm/     slurm.conf, cgroup.conf, plugstack.conf (all 0644),
#                     dts_spank.so (a copy, readable by the test users);
#                     ctl/ (slurmctld's state, pid, log), hK/ (slurmd's
#                     spool, pid and log; tmp/, its TmpFS, 1777: mpi/pmix's
#                     directories, which collide in a shared /tmp)
#   slurmctld runs as root in the bridge namespace (${C_PREFIX}br), host
#   name "ctl" (unshare --uts), on the bridge's address $C_NET.1, which
#   s_up gives br0; each slurmd runs on its host hK as every command
#   there does (c_bg: hK's network and UTS namespaces, /sys the real
#   one), NodeName hK, NodeAddr its address, CPUs=1, one partition "p"
#   of every host with OverSubscribe=FORCE:4.
# The plugstack line (S_PLUG_KIND, default "required"; S_PLUG_ARGS,
# default "default=off"):
#   S_PLUG_KIND $T_DIR/slurm/dts_spank.so S_PLUG_ARGS
#       socket=$T_DIR/%h/dts.sock conf=$T_DIR/%h/dts.conf
# so that each host's tasks ask that host's dts (cluster.sh's socket) and
# read its dts.conf when none answers.
#
# Functions:
#   s_need            t_fail unless slurmctld, slurmd, srun, munged and the
#                     built plugin are here
#   s_up              the files, munged, slurmctld, a slurmd on every
#                     host; waits until sinfo shows every node idle (30 s)
#   s_run K CMD...    CMD on host K with SLURM_CONF set (a client: srun,
#                     sbatch, squeue, scancel; run as a user through its
#                     setpriv words, e.g. "${UA[@]}")
#   s_bg K NAME CMD...  s_run in the background, output to
#                     $T_LOG/NAME.log; C_BG_PID (tracked)
#   s_ctl_restart     stop slurmctld and start it again, with slurm.conf
#                     as it is now (the caller may have changed it): the
#                     jobs and their steps go on (StateSaveLocation); waits
#                     until squeue answers (30 s)
#   s_down            stop slurmd, slurmctld, munged by the PIDs in their
#                     pid files (TERM, 10 s, then KILL), and every
#                     slurmstepd left in our namespaces (Slurm makes no
#                     cgroup here: proctrack/linuxproc, task/none)
#                     (idempotent; the EXIT trap)
#
# Variables: S_DIR ($T_DIR/slurm), S_CONF (slurm.conf), S_MUNGE_SOCK,
# S_CTL_ADDR, S_PLUG_KIND, S_PLUG_ARGS, S_PARTITION_EXTRA (words appended to the
# partition's line), S_CONF_EXTRA (lines of slurm.conf before the nodes',
# e.g. "PreemptMode=GANG"), S_UP_S.  s_down then s_up again restarts
# Slurm with the files written anew (slurmctld keeps its state).

S_DIR=
S_CONF=
S_MUNGE_SOCK=
S_CTL_ADDR=
S_PLUG_ARGS=${S_PLUG_ARGS:-default=off}
S_PLUG_KIND=${S_PLUG_KIND:-required}
S_PARTITION_EXTRA=${S_PARTITION_EXTRA:-}
S_CONF_EXTRA=${S_CONF_EXTRA:-}
S_UP_S=
_S_ACTIVE=0
_S_TRAP=0
_S_OLD_EXIT=
_S_CTL_PID=
_S_MUNGE_PID=
_S_SLURMD_PID=()

_s_log() { echo "# slurm: $*" >&2; }

s_need() {
	local t
	for t in slurmctld slurmd srun sinfo squeue scancel munged; do
		command -v "$t" > /dev/null ||
		    PATH=$PATH:/usr/sbin command -v "$t" > /dev/null ||
		    t_fail "needs $t: quickstart installs it (apt-get install slurmctld slurmd slurm-client munge)"
	done
	t_need_user munge
	t_need_built slurm/dts_spank.so
}

_s_rc() { return "$1"; }

_s_on_exit() {
	local rc=$?
	case $rc in 0 | 77) ;; *) [ "$_S_ACTIVE" = 1 ] && _s_dump_logs ;; esac
	s_down
	_s_rc "$rc"
	eval "$_S_OLD_EXIT"
}

# Run s_down before whatever EXIT trap there is (cluster.sh's, lib.sh's).
_s_install_trap() {
	[ "$_S_TRAP" = 1 ] && return 0
	local old
	old=$(trap -p EXIT)
	if [ -n "$old" ]; then
		eval "local -a t=($old)"
		_S_OLD_EXIT=${t[2]}
	fi
	trap _s_on_exit EXIT
	_S_TRAP=1
}

_s_dump_logs() {
	local f
	for f in "$S_DIR"/ctl/log "$S_DIR"/h*/log "$T_DIR"/munge/log; do
		[ -f "$f" ] || continue
		echo "---- ${f#"$T_DIR"/} (last 15 lines)" >&2
		tail -n 15 "$f" >&2
	done
}

_s_write_files() {
	local k h nodes=
	mkdir -p "$S_DIR/ctl/state" "$T_DIR/munge" || return 1
	chmod 755 "$S_DIR" "$S_DIR/ctl"
	for k in "${!C_HOSTS[@]}"; do
		h=${C_HOSTS[$k]}
		mkdir -p "$S_DIR/$h/spool" "$S_DIR/$h/tmp" && chmod 1777 "$S_DIR/$h/tmp" || return 1
		nodes=${nodes:+$nodes,}$h
	done
	# munge: a key of our own, its directory the user munge's
	chown munge: "$T_DIR/munge" && chmod 755 "$T_DIR/munge" || return 1
	(umask 077 && head -c 1024 /dev/urandom > "$T_DIR/munge/key") &&
	    chown munge: "$T_DIR/munge/key" || return 1
	cp "$BUILD/slurm/dts_spank.so" "$S_DIR/dts_spank.so" &&
	    chmod 644 "$S_DIR/dts_spank.so" || return 1
	{
		echo "# slurm.conf of cluster $C_PREFIX (tests/system/slurm.sh)"
		echo "ClusterName=dtstest"
		echo "SlurmctldHost=ctl($S_CTL_ADDR)"
		echo "AuthType=auth/munge"
		echo "CredType=cred/munge"
		echo "AuthInfo=socket=$S_MUNGE_SOCK"
		echo "SlurmUser=root"
		echo "SlurmdUser=root"
		echo "SlurmctldPort=$((C_PORT + 6800))"
		echo "SlurmdPort=$((C_PORT + 6900))"
		echo "StateSaveLocation=$S_DIR/ctl/state"
		echo "SlurmctldPidFile=$S_DIR/ctl/pid"
		echo "SlurmctldLogFile=$S_DIR/ctl/log"
		echo "SlurmdSpoolDir=$S_DIR/%n/spool"
		echo "SlurmdPidFile=$S_DIR/%n/pid"
		echo "SlurmdLogFile=$S_DIR/%n/log"
		# a TmpFS per node: mpi/pmix makes its directories there, and
		# two slurmstepd of one step on one machine collide in /tmp
		echo "TmpFS=$S_DIR/%n/tmp"
		echo "SlurmctldDebug=info"
		echo "SlurmdDebug=info"
		echo "PlugStackConfig=$S_DIR/plugstack.conf"
		echo "ProctrackType=proctrack/linuxproc"
		echo "TaskPlugin=task/none"
		echo "SlurmdParameters=config_overrides"
		echo "JobAcctGatherType=jobacct_gather/none"
		echo "AccountingStorageType=accounting_storage/none"
		echo "JobCompType=jobcomp/none"
		echo "MpiDefault=none"
		echo "ReturnToService=2"
		echo "SchedulerType=sched/builtin"
		echo "SelectType=select/cons_tres"
		echo "SelectTypeParameters=CR_CPU"
		echo "KillWait=5"
		echo "InactiveLimit=0"
		echo "MinJobAge=2"
		[ -z "$S_CONF_EXTRA" ] || printf '%s\n' "$S_CONF_EXTRA"
		for k in "${!C_HOSTS[@]}"; do
			echo "NodeName=${C_HOSTS[$k]} NodeAddr=${C_ADDR[$k]} CPUs=1 State=UNKNOWN"
		done
		echo "PartitionName=p Nodes=$nodes Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4 $S_PARTITION_EXTRA"
	} > "$S_CONF" || return 1
	# slurmd needs a cgroup plugin on hybrid cgroups (none is used here)
	printf '%s\n' "CgroupPlugin=cgroup/v1" "CgroupMountpoint=/sys/fs/cgroup" \
	    "CgroupAutomount=no" > "$S_DIR/cgroup.conf" || return 1
	echo "$S_PLUG_KIND $S_DIR/dts_spank.so $S_PLUG_ARGS socket=$T_DIR/%h/dts.sock conf=$T_DIR/%h/dts.conf" \
	    > "$S_DIR/plugstack.conf" || return 1
	chmod 644 "$S_CONF" "$S_DIR/cgroup.conf" "$S_DIR/plugstack.conf"
}

_s_munge_up() {
	local m=$T_DIR/munge
	setpriv --reuid=munge --regid=munge --clear-groups -- \
	    /usr/sbin/munged --key-file="$m/key" --socket="$m/sock" \
	    --pid-file="$m/pid" --log-file="$m/log" --seed-file="$m/seed" \
	    > "$T_LOG/munged.out" 2>&1 ||
	    { cat "$T_LOG/munged.out" >&2; return 1; }
	_S_MUNGE_PID=$(cat "$m/pid" 2> /dev/null)
	[ -n "$_S_MUNGE_PID" ] && t_track "$_S_MUNGE_PID"
	t_wait_for 5 test -S "$S_MUNGE_SOCK"
}

_s_nodes_idle() {
	local n
	n=$(s_run h0 sinfo -h -N -o '%N %t' 2> /dev/null |
	    awk '$2 == "idle"' | wc -l)
	[ "$n" -ge "$C_N" ]
}

s_up() {
	local k h t0
	[ "$_S_ACTIVE" = 0 ] || _c_die "s_up: Slurm is already up"
	[ "$_C_ACTIVE" = 1 ] || _c_die "s_up: c_up first"
	t0=$(_c_now)
	_s_install_trap
	_S_ACTIVE=1
	S_DIR=$T_DIR/slurm S_CONF=$T_DIR/slurm/slurm.conf
	S_MUNGE_SOCK=$T_DIR/munge/sock S_CTL_ADDR=$C_NET.1
	ip -n "$C_BR" -4 addr show dev br0 | grep -q " $S_CTL_ADDR/24 " ||
	    ip -n "$C_BR" addr add "$S_CTL_ADDR/24" dev br0 ||
	    _c_die "s_up: cannot give br0 $S_CTL_ADDR"
	_s_write_files || _c_die "s_up: cannot write the Slurm files"
	_s_munge_up || _c_die "s_up: munged did not start (log/munged.out)"
	: > "$T_LOG/slurmctld.out"
	_s_ctl_start
	for k in "${!C_HOSTS[@]}"; do
		h=${C_HOSTS[$k]}
		c_bg "$k" "slurmd-$h" slurmd -D -f "$S_CONF"
		_S_SLURMD_PID[k]=$C_BG_PID
	done
	t_wait_for 30 _s_nodes_idle || {
		_s_log "sinfo: $(s_run h0 sinfo -h -N -o '%N %t' 2>&1 | paste -sd' ')"
		_c_die "s_up: the nodes are not idle in 30 s"
	}
	S_UP_S=$(_c_secs "$t0" "$(_c_now)")
	_s_log "slurmctld and ${C_N} slurmd up in ${S_UP_S} s"
}

_s_ctl_start() {
	nsenter "--net=/run/netns/$C_BR" -- unshare --uts -- \
	    sh -c 'hostname ctl && exec slurmctld -D -f "$1"' sh "$S_CONF" \
	    >> "$T_LOG/slurmctld.out" 2>&1 &
	_S_CTL_PID=$!
	t_track "$_S_CTL_PID"
}

s_ctl_restart() {
	[ "$_S_ACTIVE" = 1 ] || _c_die "s_ctl_restart: s_up first"
	_s_stop "$_S_CTL_PID"
	_s_ctl_start
	t_wait_for 30 eval 's_run h0 squeue -h > /dev/null 2>&1' ||
	    _c_die "s_ctl_restart: slurmctld does not answer in 30 s"
}

s_run() {
	local k=$1
	shift
	c_exec "$k" env SLURM_CONF="$S_CONF" "$@"
}

s_bg() {
	local k=$1 name=$2
	shift 2
	c_bg "$k" "$name" env SLURM_CONF="$S_CONF" "$@"
}

# _s_stop PID: TERM, up to 10 s, then KILL; reaped if ours.
_s_stop() {
	local p=$1
	[ -n "$p" ] || return 0
	kill -TERM "$p" 2> /dev/null || { wait "$p" 2> /dev/null; return 0; }
	t_wait_for 10 _c_gone "$p" || kill -KILL "$p" 2> /dev/null
	wait "$p" 2> /dev/null
	t_untrack "$p" 2> /dev/null
	return 0
}

# slurmstepd processes in our hosts' namespaces (by PID, from ip netns)
_s_stepds() {
	local k p
	for k in "${!C_NS[@]}"; do
		for p in $(ip netns pids "${C_NS[$k]}" 2> /dev/null); do
			[ "$(cat "/proc/$p/comm" 2> /dev/null)" = slurmstepd ] &&
			    echo "$p"
		done
	done
}

s_down() {
	local k p
	[ "$_S_ACTIVE" = 1 ] || return 0
	for k in "${!_S_SLURMD_PID[@]}"; do
		_s_stop "${_S_SLURMD_PID[$k]}"
	done
	for p in $(_s_stepds); do kill -KILL "$p" 2> /dev/null; done
	_s_stop "$_S_CTL_PID"
	[ -n "$_S_MUNGE_PID" ] && [ "$(cat "/proc/$_S_MUNGE_PID/comm" 2> /dev/null)" = munged ] &&
	    _s_stop "$_S_MUNGE_PID"
	_S_ACTIVE=0
	_S_SLURMD_PID=()
}
