# cluster.sh - a real multi-host PVM virtual machine on one box, every host
# running its own dts service and every pvmd in its host's gang, for the
# DTS system tests (bash; source it after lib.sh).
#
#   . "$(dirname "$0")/lib.sh"
#   . "$SRC/tests/system/cluster.sh"
#   t_setup my-test
#   C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "80%";'   # optional
#   c_up 3                     # h0 h1 h2, a dts service on each, the master
#                              # pvmd on h0 (adopted by h0's dts)
#   c_exec h0 master1          # any command "on" a host
#   c_pvm h0 spawn -w h2 spin 10
#   c_status h1 mode           # STATUS of h1's dts, over the network
#   ... t_pass                 # c_down runs from the EXIT trap
#
# Layout (per run; nothing in the root network namespace, nothing in /etc):
#   netns ${C_PREFIX}br   bridge br0 and one veth end per host (hK)
#   netns ${C_PREFIX}hK   eth0 = $C_NET.(10+K)/24, broadcast $C_BCAST
#
# A LAN instead of the bridge: C_LAN=tap (set before c_up; default
# C_LAN=bridge, the veth pairs and br0 above).  c_up then starts
# tests/tools/lanswitch in ${C_PREFIX}br, which makes one TAP device hK
# per host there; each is moved into its host's namespace as eth0 (the
# switch keeps its fd: frames cross namespaces through it).  lanswitch
# forwards between them and emulates, on each of the two links a frame
# crosses (host -> switch -> host):
#   C_LAN_DELAY_US   delay per link, µs (default 100)
#   C_LAN_JITTER_US  the delay is uniform in DELAY ± JITTER (default 50)
#   C_LAN_LOSS       loss probability per link (default 0.001)
#   C_LAN_RATE       bits/s, suffix k/m/g (default 1g)
#   C_LAN_SEED       its random seed (default: time and pid)
#   C_LAN_RTPRIO     > 0: lanswitch runs at SCHED_FIFO C_LAN_RTPRIO
#                    (default 0: SCHED_OTHER)
#   C_LAN_BUSY_US    lanswitch polls instead of sleeping for the last
#                    C_LAN_BUSY_US before a frame leaves (default 0: a VM
#                    wakes timers up 50-100 µs late; costs CPU)
#   C_LAN_CPU        pin lanswitch to this CPU (default: none)
# C_LAN_PID is lanswitch (our child); c_lan_stats prints its counters
# (lanswitch.c: port=K ... lines and "total links=N lost=N loss=F"; they
# are also in $T_LOG/lanswitch.stats).  c_down ends it after the
# services, before everything else of ours, by PID.
#   Every command "on" host hK runs through
#     nsenter --net=/run/netns/${C_PREFIX}hK -- unshare --mount
#         --propagation slave --uts -- $T_DIR/bin/hinner hK CMD
#   (like `ip netns exec NS unshare --uts`, but /sys stays the real one, so
#   the cgroup2 hierarchy that dts keeps its gang in is visible; a slave
#   mount namespace, so `ip netns del` elsewhere still propagates).
#   hinner sets the hostname hK, bind-mounts $T_DIR/hosts over /etc/hosts
#   (only inside that private mount namespace), and sets
#   HOME=$T_DIR/hK/home, PVM_TMP and TMPDIR=$T_DIR/hK/tmp, PVM_ROOT, PVM_ALLOW_ROOT=1,
#   PVM_RSH=$T_DIR/bin/rsh and PATH ($BUILD/tests/pvm, $BUILD/tests/tools,
#   $T_DIR/bin first) and DTS_SOCKET=$T_DIR/hK/dts.sock, so an installed
#   launch script finds its host's dts.  The rest of the environment is
#   passed on (so ASAN_OPTIONS and the like reach every host), minus
#   PVM_VMID, PVM_DPATH, PVM_EXPORT, PVMSOCK, PVMEPID, DTS_CONF.
#
# The node service.  Each host hK runs `dts -f $T_DIR/hK/dts.conf` in the
# foreground of a background job of ours, inside hK's namespaces, with
#   socket = "$T_DIR/hK/dts.sock"      (the adoption socket)
#   state_file = "$T_RUN/hK.state"     (for the gang: DTS_STATE; tmpfs)
#   cgroup = "/dts-test.<pid>.<test>.hK" (t_cg_name hK: unique per run and
#                                      host; root's job's gang is
#                                      t_job_cg root pvm hK)
# c_up starts it on every host (C_DTS_HOSTS) before any pvmd, and tracks
# its cgroup subtree (t_track_cg).  dts-load is a child of dts.
#
# The launch path.  Every pvmd, the master included, starts through the
# launcher $T_DIR/bin/pvmd-dts (the host file's dx=, the console's
# console.launcher):
#   DTS_SOCKET=$T_DIR/$(hostname)/dts.sock exec dts-run --pvmd -- "$@"
# dts-run asks that host's dts to adopt it into the gang (SCHED_RR) and
# execs the real pvmd dts names (dts.conf: pvmd), stdio untouched.  A
# slave pvmd forks after its handshake; the daemon stays in the gang.
#
# The rsh shim.  PVM_RSH is run by the master pvmd, so it would run in
# h0's gang (frozen in every LS, at real-time priority), and everything it
# started there too.  So the shim only hands the request to a broker
# ($T_DIR/bin/rshd, one bash process in the bridge namespace, started by
# c_up, outside every gang): the broker opens the shim's
# stdin/stdout/stderr through /proc/PID/fd (pvmd's pipes), answers "ok",
# and execs `setsid nsenter ... hinner HOST sh -c "cd $HOME && exec
# CMDSTRING"` (the same chain as c_exec; a CMDSTRING with shell syntax in
# it runs as a script instead of exec) with those pipes as fds 0-2.  So
# the slave's launcher gets pvmd's pipes unchanged (the exec chain has no
# fork), as with a real rsh, and joins the gang of its own host only.  The
# shim exits 0 as soon as the command was started; it does not wait for
# the command (pvmd never does) and does not return its status.  It is
# made for pvmd: to run something on a host, tests use c_exec.  The
# command runs as the uid of the pvmd that asked (a test user's VM adds
# hosts as that user, as a real rshd logs the caller in); the broker
# checks that the reply fifo belongs to that uid.  (Output
# the shim would write to a regular file is appended to its end.)
#
# Files: $T_DIR/hosts, $T_DIR/hostfile (`* dx=$C_LAUNCHER ep=...` plus one
# line per host), $T_DIR/dts.key, $T_DIR/hK/dts.conf, $T_DIR/hK/dts.sock,
# $T_DIR/bin/{hinner,rsh,rshd,pvmd-dts}; logs $T_LOG/dts-hK.log (dts and
# dts-load), $T_LOG/dts-hK.err (dts's stderr), $T_LOG/master.out (master
# pvmd's stdout), $T_LOG/rshd.log, $T_DIR/hK/tmp/pvml.0 (pvmd).
#
# Functions:
#   c_up N [--no-pvm]       network, files, broker, a dts service on every
#                           host of C_DTS_HOSTS; then c_start_master and
#                           c_wait_hosts N (unless --no-pvm)
#   c_start_dts K           the dts service of host K (waits for its socket
#                           and its dts-load); C_DTS_PID[K]
#   c_stop_dts K            SIGTERM to K's dts, wait (10 s) for it to end;
#                           C_DTS_RC = its exit status (if it is our child)
#   c_start_master          the master pvmd on h0 through the launcher with
#                           the host file, in the background; waits for
#                           its socket line (old pvml.* of hosts without a
#                           pvmd are moved aside: pvmd logs nothing if its
#                           log file exists); C_MASTER_PID = that pvmd
#   c_wait_hosts N [SECS]   dts-pvmctl wait N SECS on h0 (default 60)
#   c_exec K CMD...         run CMD on host K (hK, K or the netns name)
#   c_bg K NAME CMD...      c_exec in the background, output to
#                           $T_LOG/NAME.log; sets C_BG_PID (the process
#                           itself) and tracks it
#   c_pvm K ARGS...         dts-pvmctl on host K
#   c_send K ARGS...        sendgram (key, port, K's address) run on h0
#   c_status K [FIELD]      STATUS of K's dts as key=value lines, or one value
#   c_clock K / c_clock_step K SECS   a clock of K's own (before c_up), and
#                           a step of it (tests/tools/clockstep.so)
#   c_pids K                every live PID in K's namespace
#   c_dts_pid K             K's dts (not a zombie)
#   c_agent_pid K           its dts-load (a child of dts)
#   c_pvmd_pid K            the pvmd in K's gang (not a pvmd' it forked)
#   c_gang_pids K [COMM]    members of K's gang cgroup (whose command is COMM)
#   c_gang_dir K / c_cg_dir K    K's gang cgroup (the job C_GANG_USER:pvm,
#                           root's unless set) / dts's whole subtree
#   c_gang_frozen K         is K's gang frozen now (cgroup.events)?
#   c_is_stopped K PID      PID stopped: state T, or in K's gang while it
#                           is frozen (the freezer backend shows no T);
#                           no fork
#   c_host K / c_idx K / c_ns K / c_addr K       name / index / netns / IP
#   c_dump_logs             tail of every host's pvmd log (stderr)
#   c_lan_stats             lanswitch's counters now (C_LAN=tap; above)
#   c_down                  tear everything down (idempotent; EXIT trap);
#                           1 if a process, namespace or cgroup could not
#                           be removed
#
# Variables: C_N, C_HOSTS (h0..), C_ADDR, C_NS, C_BR, C_NET (a.b.c),
# C_BCAST, C_PORT (default 476: every host has its own port space),
# C_PREFIX (default "dc$$-"), C_KEY, C_HOSTFILE, C_LAUNCHER, C_RSH,
# C_MASTER_PID (the master pvmd c_start_master started, our child),
# C_DTS_PID (by host index: the dts c_start_dts started, our child),
# C_GANG_USER (whose job USER:pvm c_gang_* and c_is_stopped look at;
# default root; set before c_up),
# C_DTS_HOSTS (indices of the hosts c_up starts a dts on; default all),
# C_DTS (the dts binary every host runs; default $BUILD/dts/dts),
# C_RUN and C_PVMJOIN (the dts-run the launcher execs and the dts-pvmjoin
# it starts for a user's pvmd, as DTS_PVMJOIN; default the build's: a test
# user's VM needs copies it can reach, t_pub_bin; set before c_up),
# C_UP_S / C_DOWN_S (seconds taken).
# C_CONF_EXTRA (all hosts) and C_CONF_EXTRA_K (host K only) are dts.conf
# lines appended to each host's file; a key given there replaces the
# harness's own line for it (key_file, log_file, log_level, load_agent,
# pvmd, socket, cgroup; for the port set C_PORT instead, c_send uses it).
# Set them before c_up, or call _c_write_conf K (a running dts keeps its
# config).
#
# Teardown (c_down, also from the EXIT trap, which runs before lib.sh's
# t_cleanup): every host's gang thawed, SIGCONT and SCHED_OTHER for every
# process in our namespaces and gangs; `dts-pvmctl -T 5 halt` on h0 and a
# wait (5 s) for the gangs to empty; SIGTERM to every dts (each releases
# its gang and exits) and a wait for them (C_DTS_RC_K = the exit status of
# host K's dts, if ours); then TERM and KILL whatever is still in our
# namespaces or gang cgroups (PIDs from `ip netns pids` and cgroup.procs,
# nothing else), rmdir of every host's cgroup subtree, `ip netns del` of
# every namespace, and rm -rf $T_DIR unless KEEP=1.  INT/TERM/HUP are
# ignored while it runs; a kill -9 of the test shell leaves the
# namespaces behind (names start with dc<PID>-) and the cgroups
# (/dts-test.<PID>.*).

C_PREFIX=${C_PREFIX:-dc$$-}
C_PORT=${C_PORT:-476}
C_NET=${C_NET:-10.$((200 + $$ % 50)).$(($$ / 50 % 250))}
C_BCAST=$C_NET.255
C_BR=${C_PREFIX}br
C_N=0
C_HOSTS=()
C_ADDR=()
C_NS=()
C_KEY=
C_SIGN=
C_PUB=
C_HOSTFILE=
C_LAUNCHER=
C_RSH=
C_MASTER_PID=
C_DTS=${C_DTS:-$BUILD/dts/dts}
C_RUN=${C_RUN:-$BUILD/run/dts-run}
C_PVMJOIN=${C_PVMJOIN:-$BUILD/run/dts-pvmjoin}
C_DTS_PID=()
C_DTS_RC=
C_DTS_HOSTS=${C_DTS_HOSTS:-}
_C_CGM=
_C_GANG=()
C_UP_S=
C_DOWN_S=
C_CONF_EXTRA=${C_CONF_EXTRA:-}
C_LAN=${C_LAN:-bridge}
C_LAN_DELAY_US=${C_LAN_DELAY_US:-100}
C_LAN_JITTER_US=${C_LAN_JITTER_US:-50}
C_LAN_LOSS=${C_LAN_LOSS:-0.001}
C_LAN_RATE=${C_LAN_RATE:-1g}
C_LAN_SEED=${C_LAN_SEED:-}
C_LAN_RTPRIO=${C_LAN_RTPRIO:-0}
C_LAN_BUSY_US=${C_LAN_BUSY_US:-0}
C_LAN_CPU=${C_LAN_CPU:-}
C_LAN_PID=
_C_ACTIVE=0
_C_TRAP=0
_C_OLD_EXIT=

_c_log() { echo "# cluster: $*" >&2; }

_c_die() {
	if declare -F t_fail > /dev/null; then
		t_fail "cluster: $*"
	fi
	echo "FAIL: cluster: $*" >&2
	exit 1
}

# ---- names ----------------------------------------------------------------

# c_idx K: index of host K (hK, K, or ${C_PREFIX}hK).
c_idx() {
	local k=${1:-}
	k=${k#"$C_PREFIX"}
	k=${k#h}
	case $k in
	'' | *[!0-9]*) echo "cluster: no host '$1'" >&2; return 1 ;;
	esac
	k=$((10#$k))
	if [ "$k" -ge "$C_N" ]; then
		echo "cluster: no host '$1' (have $C_N)" >&2
		return 1
	fi
	echo "$k"
}

c_host() { local k; k=$(c_idx "$1") && echo "${C_HOSTS[$k]}"; }
c_ns() { local k; k=$(c_idx "$1") && echo "${C_NS[$k]}"; }
c_addr() { local k; k=$(c_idx "$1") && echo "${C_ADDR[$k]}"; }

# _c_cmd ARRAY K: the argv prefix that runs a command on host K (with
# C_HOST_ENV_K's NAME=VALUE words in its environment, if set).
_c_cmd() {
	local -n _out=$1
	local k v
	k=$(c_idx "$2") || return 2
	_out=(nsenter "--net=/run/netns/${C_NS[$k]}" -- unshare --mount \
	    --propagation slave --uts -- "$T_DIR/bin/hinner" "${C_HOSTS[$k]}")
	v=C_HOST_ENV_$k
	# shellcheck disable=SC2206
	[ -z "${!v:-}" ] || _out+=(env ${!v})
}

# c_clock K: give host K a clock of its own that c_clock_step can step
# (tests/tools/clockstep.so, preloaded into everything the harness runs
# on K from now on: dts, its children, consoles, sendgram).  Call it
# before c_up (or before K's dts starts).  The step starts at 0.
c_clock() {
	local k f
	k=$(c_idx "${1:-}" 2> /dev/null) || k=${1#h}
	f=$T_DIR/clock-h$k
	[ -x "$BUILD/tests/tools/clockstep.so" ] ||
	    _c_die "c_clock: not built: $BUILD/tests/tools/clockstep.so"
	printf '%-31s\n' 0 > "$f" || return 1
	# ASan wants to be first in the list of libraries: let it be second
	printf -v "C_HOST_ENV_$k" '%s' "LD_PRELOAD=$BUILD/tests/tools/clockstep.so CLOCKSTEP_FILE=$f ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
}

# c_clock_step K SECONDS: host K's clock now reads SECONDS (a signed
# integer) off the true time, as after `date -s`: a step of the
# difference from the last value.
c_clock_step() {
	local k
	k=$(c_idx "${1:-}" 2> /dev/null) || k=${1#h}
	[ -f "$T_DIR/clock-h$k" ] || _c_die "c_clock_step: no c_clock $1"
	printf '%-31s\n' "$(($2 * 1000000))" |
	    dd of="$T_DIR/clock-h$k" conv=notrunc status=none
}

# ---- running things on hosts ----------------------------------------------

# c_exec K CMD...: run CMD on host K, in the foreground, and return its
# status.  (It runs as a waited-for background job, so INT/TERM end the
# test at once instead of after CMD.)
c_exec() {
	local -a _c
	_c_cmd _c "${1:-}" || return 2
	shift
	[ $# -gt 0 ] || { echo "c_exec: CMD missing" >&2; return 2; }
	if { : <&0; } 2> /dev/null; then
		"${_c[@]}" "$@" 0<&0 &
	else
		"${_c[@]}" "$@" < /dev/null &
	fi
	wait "$!"
}

# c_bg K NAME CMD...: CMD on host K in the background, stdout and stderr
# to $T_LOG/NAME.log; C_BG_PID is CMD's own PID (the exec chain does not
# fork).
c_bg() {
	local -a _c
	_c_cmd _c "${1:-}" || return 2
	local name=$2
	shift 2
	"${_c[@]}" "$@" > "$T_LOG/$name.log" 2>&1 &
	C_BG_PID=$!
	t_track "$C_BG_PID"
}

c_pvm() {
	local k=$1
	shift
	c_exec "$k" "$BUILD/tests/pvm/dts-pvmctl" "$@"
}

# c_send K ARGS...: sendgram to K's dts, run on h0 (as the console would).
c_send() {
	local a
	a=$(c_addr "${1:-}") || return 2
	shift
	c_exec h0 "$BUILD/tests/tools/sendgram" -k "$C_KEY" -s "$C_SIGN" -a "$a" \
	    -p "$C_PORT" "$@"
}

# c_status K [FIELD]
c_status() {
	local out
	out=$(c_send "${1:-}" status) || return 1
	if [ -n "${2:-}" ]; then
		sed -n "s/^$2=//p" <<< "$out"
	else
		echo "$out"
	fi
}

# ---- processes ------------------------------------------------------------

_c_ns_pids() {
	ip netns pids "$1" 2>/dev/null
}

# Every PID in any of our namespaces.
_c_all_pids() {
	local ns
	for ns in "${C_NS[@]}" "$C_BR"; do _c_ns_pids "$ns"; done
}

c_pids() {
	local ns
	ns=$(c_ns "$1") || return 1
	_c_ns_pids "$ns"
}

_c_comm() { cat "/proc/$1/comm" 2>/dev/null; }

# _c_ids: the identities of every process of ours, one line each.
_c_ids() {
	local p
	for p in $(_c_ours); do t_proc_id "$p"; done
}


# ppid and pgid of PID (/proc/PID/stat after "comm)": state ppid pgrp).
_c_ppid() {
	local s ppid
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	read -r _ ppid _ <<< "${s##*) }"
	echo "$ppid"
}

_c_pgid() {
	local s pgid
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	read -r _ _ pgid _ <<< "${s##*) }"
	echo "$pgid"
}

# _c_alive PID: alive and not a zombie (no fork).
_c_alive() {
	local s
	[ -r "/proc/$1/stat" ] || return 1
	read -r s < "/proc/$1/stat" 2> /dev/null || return 1
	s=${s##*) }
	[ "${s%% *}" != Z ]
}

# c_dts_pid K: K's dts (the node service), not a zombie.
c_dts_pid() {
	local p
	for p in $(c_pids "$1"); do
		[ "$(_c_comm "$p")" = dts ] && _c_alive "$p" && { echo "$p"; return 0; }
	done
	return 1
}

# c_agent_pid K: the dts-load of K's dts (its child).
c_agent_pid() {
	local d p
	d=$(c_dts_pid "$1") || return 1
	for p in $(c_pids "$1"); do
		[ "$(_c_comm "$p")" = dts-load ] && [ "$(_c_ppid "$p")" = "$d" ] &&
		    _c_alive "$p" && { echo "$p"; return 0; }
	done
	return 1
}

# c_cg_dir K: dts's cgroup subtree of host K; c_gang_dir K: its gang, the
# job C_GANG_USER:pvm (default root's; a test user's VM sets it).
c_cg_dir() {
	local h
	h=$(c_host "$1") || return 1
	t_cg_dir "$h"
}
c_gang_dir() {
	local h
	h=$(c_host "$1") || return 1
	t_job_cg "${C_GANG_USER:-root}" pvm "$h"
}

# _c_members DIR [COMM]: live members of the cgroup DIR (whose command
# is COMM).
_c_members() {
	local p
	[ -r "$1/cgroup.procs" ] || return 0
	for p in $(cat "$1/cgroup.procs" 2> /dev/null); do
		[ -z "${2:-}" ] || [ "$(_c_comm "$p")" = "$2" ] || continue
		_c_alive "$p" && echo "$p"
	done
}

# c_gang_pids K [COMM]: live members of K's gang cgroup.
c_gang_pids() {
	local g
	g=$(c_gang_dir "$1") || return 1
	_c_members "$g" "${2:-}"
}

# c_pvmd_pid K: the pvmd in K's gang (a pvmd' the master forks to start
# slaves is a pvmd too: the one whose parent is no pvmd).
c_pvmd_pid() {
	local p
	for p in $(c_gang_pids "$1" pvmd); do
		[ "$(_c_comm "$(_c_ppid "$p")")" = pvmd ] && continue
		echo "$p"
		return 0
	done
	return 1
}

# c_gang_frozen K: K's gang cgroup is frozen now.
c_gang_frozen() {
	local g l
	g=$(c_gang_dir "$1") || return 1
	while read -r l; do
		[ "$l" = "frozen 1" ] && return 0
	done < "$g/cgroup.events" 2> /dev/null
	return 1
}

# c_is_stopped K PID: PID is stopped (state T or t), or it is in K's gang
# while the gang is frozen.  Builtins only (tests sample it in tight
# loops); K given as an index or hK.
c_is_stopped() {
	local k=${1#h} s l g in=0
	read -r s < "/proc/$2/stat" 2> /dev/null || return 1
	s=${s##*) }
	case ${s%% *} in T | t) return 0 ;; esac
	g=${_C_GANG[$k]:-}
	[ -n "$g" ] || return 1
	while read -r l; do
		[ "$l" = "0::${g#"$_C_CGM"}" ] && in=1
	done < "/proc/$2/cgroup" 2> /dev/null
	[ "$in" = 1 ] || return 1
	while read -r l; do
		[ "$l" = "frozen 1" ] && return 0
	done < "$g/cgroup.events" 2> /dev/null
	return 1
}

# ---- files ----------------------------------------------------------------

# _c_write_conf K: $T_DIR/hK/dts.conf from the harness defaults plus
# C_CONF_EXTRA and C_CONF_EXTRA_K (whose keys replace the defaults).
_c_write_conf() {
	local k=$1 h=${C_HOSTS[$1]} var=C_CONF_EXTRA_$1
	# t_make_user's user is in the group of users
	t_conf "$T_DIR/$h/dts.conf" -H "dts.conf of $h (tests/system/cluster.sh)" \
	    -d port="$C_PORT" -d key_file="\"$T_DIR/$h/dts.key\"" \
	    -d console_keys="[\"$C_PUB\"]" -d log_file="\"$T_LOG/dts-$h.log\"" \
	    -d log_level='"debug"' -d load_agent="\"$BUILD/load/dts-load\"" \
	    -d pvmd='"/usr/bin/pvmd"' -d socket="\"$T_DIR/$h/dts.sock\"" \
	    -d state_file="\"$T_RUN/$h.state\"" -d cgroup="\"$(t_cg_name "$h")\"" \
	    -d users="[\"@$T_GROUP\"]" -x "$C_CONF_EXTRA" -x "${!var:-}"
}

_c_write_files() {
	local k b=$T_DIR/bin
	mkdir -p "$b" || return 1
	{
		echo "127.0.0.1 localhost"
		for k in "${!C_HOSTS[@]}"; do echo "${C_ADDR[$k]} ${C_HOSTS[$k]}"; done
	} > "$T_DIR/hosts"
	C_HOSTFILE=$T_DIR/hostfile
	{
		echo "* dx=$C_LAUNCHER ep=$BUILD/tests/pvm:/usr/bin"
		printf '%s\n' "${C_HOSTS[@]}"
	} > "$C_HOSTFILE"
	# the consoles' secret (C_KEY), a console key pair (C_SIGN, public key
	# C_PUB) and every host's own key, derived for its address
	t_keys "$T_DIR" || return 1
	C_KEY=$T_DIR/nodes.key C_SIGN=$T_DIR/console.key
	C_PUB=$(cat "$T_DIR/console.pub")
	for k in "${!C_HOSTS[@]}"; do
		mkdir -p "$T_DIR/${C_HOSTS[$k]}/tmp" "$T_DIR/${C_HOSTS[$k]}/home" ||
		    return 1
		[ -f "$T_DIR/${C_HOSTS[$k]}/dts.key" ] || t_nodekey "$C_KEY" \
		    "${C_ADDR[$k]}" "$T_DIR/${C_HOSTS[$k]}/dts.key" || return 1
		# like /tmp: a test user's pvmd writes there too
		chmod 1777 "$T_DIR/${C_HOSTS[$k]}/tmp" "$T_DIR/${C_HOSTS[$k]}/home"
		_c_write_conf "$k" || return 1
	done

	# hinner HOST CMD...: the last step into a host (see the top).
	cat > "$b/hinner" <<-EOF
	#!/bin/sh
	# hinner HOST CMD... - run CMD as host HOST of cluster $C_PREFIX.
	# Called as: nsenter --net=NSFILE -- unshare --mount --propagation slave
	#   --uts -- hinner HOST CMD...
	h=\$1
	shift
	hostname "\$h" || exit 126
	mount --bind "$T_DIR/hosts" /etc/hosts || exit 126
	# the host's own /tmp: mpirun's session directory (ompi.HOST.UID) too
	export HOME="$T_DIR/\$h/home" PVM_TMP="$T_DIR/\$h/tmp" TMPDIR="$T_DIR/\$h/tmp"
	export PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1 PVM_RSH="$b/rsh"
	export PATH="$BUILD/tests/pvm:$BUILD/tests/tools:$b:\$PATH"
	export C_HOST="\$h"
	# this host's adoption socket, as /run/dts/dts.sock is on a real node
	export DTS_SOCKET="$T_DIR/\$h/dts.sock"
	unset PVM_VMID PVM_DPATH PVM_EXPORT PVMSOCK PVMEPID DTS_CONF
	# a shell's background jobs ignore INT and QUIT: not on our hosts
	exec env --default-signal=INT,QUIT "\$@"
	EOF

	# rsh HOST [-l USER] CMDSTRING: ask the broker to start CMDSTRING.
	cat > "$b/rsh" <<-EOF
	#!/bin/sh
	# rsh shim of cluster $C_PREFIX: PVM_RSH HOST [-l USER] CMDSTRING.
	# The broker (rshd) starts CMDSTRING on HOST with our fds 0-2.
	[ \$# -ge 2 ] || { echo "usage: rsh HOST [-l USER] CMD" >&2; exit 2; }
	host=\$1
	shift
	[ "\$1" = -l ] && shift 2
	[ "\$1" = -n ] && shift
	reply="$T_DIR/run/rsh.\$\$"
	rm -f "\$reply"
	mkfifo -m 600 "\$reply" || exit 1
	# The broker opens our fds 0-2 through /proc while we wait: never
	# redirect them here.  dash redirects a simple command's fds in the
	# shell itself (so fd 1 would point at the broker's fifo for a
	# moment); a subshell redirects in the child.  The reply is read
	# through fd 3, which opens only once the broker holds its copies.
	(printf '%s %s %s %s\n' \$\$ "\$reply" "\$host" "\$*") \\
	    > "$T_DIR/run/rshd.fifo"
	exec 3< "\$reply"
	read -r ans <&3
	exec 3<&-
	rm -f "\$reply"
	[ "\$ans" = ok ] && exit 0
	echo "rsh: \$host: \${ans:-no answer from the broker}" >&2
	exit 1
	EOF

	# rshd: the broker, full root, in the bridge namespace.
	{
		cat <<-EOF
		#!/bin/bash
		# rshd - rsh broker of cluster $C_PREFIX; reads
		# "PID REPLY-FIFO HOST CMDSTRING" lines from $T_DIR/run/rshd.fifo.
		run=$T_DIR/run
		hinner=$b/hinner
		EOF
		echo "declare -A ns=( $(for k in "${!C_HOSTS[@]}"; do
			printf '[%s]=%s [%s]=%s ' "${C_HOSTS[$k]}" "${C_NS[$k]}" \
			    "${C_ADDR[$k]}" "${C_NS[$k]}"
		done))"
		echo "declare -A name=( $(for k in "${!C_HOSTS[@]}"; do
			printf '[%s]=%s [%s]=%s ' "${C_HOSTS[$k]}" "${C_HOSTS[$k]}" \
			    "${C_ADDR[$k]}" "${C_HOSTS[$k]}"
		done))"
		cat <<-'EOF'
		exec 3<> "$run/rshd.fifo" < /dev/null
		trap '' HUP
		while read -r pid reply host cmd <&3; do
			echo "rshd: pid $pid host $host: $cmd"
			case $reply in "$run/rsh."*) ;; *) continue ;; esac
			(	# never block the loop on a reply nobody reads
				exec 3<&-
				if [ -z "${ns[$host]:-}" ]; then
					echo "unknown host" > "$reply"
					exit 1
				fi
				# >> (O_APPEND), not > (O_TRUNC): a file must not be emptied
				{ exec 4< "/proc/$pid/fd/0" 5>> "/proc/$pid/fd/1" \
				    6>> "/proc/$pid/fd/2"; } 2> /dev/null || {
					echo "cannot open the stdio of pid $pid" > "$reply"
					exit 1
				}
				# as whoever asked, as rshd logs in the caller
				uid=$(stat -c %u "/proc/$pid") || uid=0
				if [ "$(stat -c %u "$reply")" != "$uid" ]; then
					echo "pid $pid is not the caller's" > "$reply"
					exit 1
				fi
				as=()
				[ "$uid" = 0 ] || as=(setpriv --reuid="$uid" \
				    --regid="$(stat -c %g "/proc/$pid")" --init-groups \
				    --inh-caps=-all --bounding-set=-all --)
				echo ok > "$reply"
				exec 0<&4 1>&5 2>&6 4<&- 5>&- 6>&-
				# a simple command replaces the shell (pvmd's launcher);
				# anything else runs as a script, as rshd would
				case $cmd in
				*[\;\&\|\<\>\(\)\`\$\'\"]*) script="cd \"\$HOME\" && { $cmd
		}" ;;
				*) script="cd \"\$HOME\" && exec $cmd" ;;
				esac
				exec setsid nsenter "--net=/run/netns/${ns[$host]}" -- \
				    unshare --mount --propagation slave --uts -- \
				    "$hinner" "${name[$host]}" "${as[@]}" /bin/sh -c "$script"
			) &
		done
		EOF
	} > "$b/rshd"

	# pvmd-dts: the launch path of every pvmd (dx=, console.launcher).
	cat > "$b/pvmd-dts" <<-EOF
	#!/bin/sh
	# launcher of cluster $C_PREFIX: the dts service of this host (its
	# adoption socket) adopts us into its gang; dts-run then execs pvmd
	# (and, for a user's pvmd, starts dts-pvmjoin).
	DTS_SOCKET="$T_DIR/\$(hostname)/dts.sock" DTS_PVMJOIN="$C_PVMJOIN" \\
	    exec "$C_RUN" --pvmd -- "\$@"
	EOF
	chmod 755 "$b/hinner" "$b/rsh" "$b/rshd" "$b/pvmd-dts"
	# any user's pvmd may ask the broker (a test user's VM); replies are
	# fifos each shim makes in the sticky run directory
	mkdir -p "$T_DIR/run" && chmod 1733 "$T_DIR/run" &&
	    mkfifo -m 622 "$T_DIR/run/rshd.fifo"
}

# ---- network --------------------------------------------------------------

_c_net_up() {
	local k ns h
	ip netns add "$C_BR" || return 1
	ip -n "$C_BR" link set lo up || return 1
	if [ "$C_LAN" = tap ]; then
		_c_lan_up || return 1
	else
		ip -n "$C_BR" link add br0 type bridge &&
		    ip -n "$C_BR" link set br0 up || return 1
	fi
	for k in "${!C_HOSTS[@]}"; do
		ns=${C_NS[$k]} h=${C_HOSTS[$k]}
		ip netns add "$ns" || return 1
		if [ "$C_LAN" = tap ]; then
			# lanswitch's TAP hK becomes the host's eth0
			ip -n "$C_BR" link set "$h" netns "$ns" name eth0 || return 1
		else
			# both ends are born in our namespaces: nothing in the root netns
			ip -n "$C_BR" link add "$h" type veth peer name eth0 netns "$ns" &&
			    ip -n "$C_BR" link set "$h" master br0 &&
			    ip -n "$C_BR" link set "$h" up || return 1
		fi
		ip -n "$ns" link set lo up &&
		    ip -n "$ns" addr add "${C_ADDR[$k]}/24" brd "$C_BCAST" dev eth0 &&
		    ip -n "$ns" link set eth0 up || return 1
	done
}

# _c_lan_up: lanswitch in the bridge namespace with a TAP hK per host;
# waits for its "ready" (the TAPs exist).
_c_lan_up() {
	local sw=$BUILD/tests/tools/lanswitch out=$T_LOG/lanswitch.out
	local -a o=(-d "$C_LAN_DELAY_US" -j "$C_LAN_JITTER_US" -l "$C_LAN_LOSS" -r "$C_LAN_RATE"
	    -R "$C_LAN_RTPRIO" -b "$C_LAN_BUSY_US" -S "$T_LOG/lanswitch.stats") pin=()
	[ -x "$sw" ] || { _c_log "not built: $sw"; return 1; }
	[ -z "$C_LAN_SEED" ] || o+=(-s "$C_LAN_SEED")
	[ -z "$C_LAN_CPU" ] || pin=(taskset -c "$C_LAN_CPU")
	nsenter "--net=/run/netns/$C_BR" -- "${pin[@]}" "$sw" "${o[@]}" "${C_HOSTS[@]}" \
	    < /dev/null > "$out" 2>&1 &
	C_LAN_PID=$!
	t_track "$C_LAN_PID"
	t_wait_for 5 grep -q '^ready$' "$out" ||
	    { _c_log "lanswitch did not start: $(head -n 1 "$out")"; return 1; }
}

# c_lan_stats: lanswitch's counters now (C_LAN=tap).
c_lan_stats() {
	local f=$T_LOG/lanswitch.stats
	[ -n "$C_LAN_PID" ] || { _c_log "c_lan_stats: no lanswitch"; return 1; }
	rm -f "$f"	# lanswitch renames a new one into place
	kill -USR1 "$C_LAN_PID" || return 1
	t_wait_for 2 test -s "$f" || return 1
	cat "$f"
}

# _c_lan_down: SIGTERM to lanswitch (it writes its counters), a wait.
_c_lan_down() {
	[ -n "$C_LAN_PID" ] || return 0
	kill -TERM "$C_LAN_PID" 2> /dev/null
	wait "$C_LAN_PID" 2> /dev/null
	t_untrack "$C_LAN_PID"
	C_LAN_PID=
}

# ---- bring-up -------------------------------------------------------------

_c_rc() { return "$1"; }

_c_on_exit() {
	local rc=$?
	case $rc in 0 | 77) ;; *) [ "$_C_ACTIVE" = 1 ] && c_dump_logs ;; esac
	c_down
	_c_rm_users
	_c_rc "$rc"
	eval "$_C_OLD_EXIT"
}

# Run c_down before whatever EXIT trap there is (lib.sh's t_cleanup).
_c_install_trap() {
	[ "$_C_TRAP" = 1 ] && return 0
	local old
	old=$(trap -p EXIT)	# trap -- 'COMMAND' EXIT
	if [ -n "$old" ]; then
		eval "local -a t=($old)"
		_C_OLD_EXIT=${t[2]}
	fi
	trap _c_on_exit EXIT
	[ -n "$(trap -p HUP)" ] || ! declare -F _t_on_signal > /dev/null ||
	    trap '_t_on_signal 129' HUP
	_C_TRAP=1
}

# (lib.sh's clock: _t_now_us, t_secs)
_c_now() { _t_now_us; }
_c_secs() { t_secs "$1" "$2"; }

_c_need() {
	[ "$(id -u)" = 0 ] || t_skip "needs root (network namespaces, dts)"
	local t
	for t in ip:iproute2 nsenter:util-linux unshare:util-linux setsid:util-linux \
	    mkfifo:coreutils hostname:hostname mount:mount chrt:util-linux; do
		t_need "${t%%:*}" "${t#*:}"
	done
	[ -x /usr/bin/pvmd ] || t_fail "needs pvm (/usr/bin/pvmd): quickstart installs it (apt-get install pvm)"
	for t in dts/dts run/dts-run load/dts-load tests/pvm/dts-pvmctl \
	    tests/tools/sendgram; do
		t_need_built "$t"
	done
	[ -n "$(t_cg_mount)" ] || t_skip "needs a cgroup v2 hierarchy"
	[ -n "${T_DIR:-}" ] || _c_die "call t_setup before c_up"
	# a c_down earlier in this test removed the run dir: make it again
	mkdir -p "$T_TMP" "$T_HOME" "$T_LOG" || _c_die "cannot make $T_DIR"
}

# c_up N [--no-pvm]
c_up() {
	local n=${1:-} nopvm=0 k t0
	case ${2:-} in
	'') ;;
	--no-pvm) nopvm=1 ;;
	*) _c_die "c_up N [--no-pvm]: bad option '$2'" ;;
	esac
	case $n in '' | *[!0-9]*) _c_die "c_up N: bad N '$n'" ;; esac
	case $C_LAN in bridge | tap) ;; *) _c_die "c_up: C_LAN must be bridge or tap, not '$C_LAN'" ;; esac
	[ "$n" -ge 1 ] && [ "$n" -le 64 ] || _c_die "c_up: N must be 1..64"
	[ "$_C_ACTIVE" = 0 ] || _c_die "c_up: a cluster is already up"
	_c_need
	t0=$(_c_now)
	_c_install_trap
	C_N=$n C_HOSTS=() C_ADDR=() C_NS=() C_DTS_PID=() _C_GANG=()
	_C_CGM=$(t_cg_mount)
	for ((k = 0; k < n; k++)); do
		C_HOSTS+=("h$k")
		C_ADDR+=("$C_NET.$((10 + k))")
		C_NS+=("${C_PREFIX}h$k")
		_C_GANG+=("$(t_job_cg "${C_GANG_USER:-root}" pvm "h$k")")
	done
	C_LAUNCHER=$T_DIR/bin/pvmd-dts
	C_RSH=$T_DIR/bin/rsh
	_C_ACTIVE=1
	_c_net_up || _c_die "cannot set up the network namespaces"
	_c_write_files || _c_die "cannot write the cluster files"
	nsenter "--net=/run/netns/$C_BR" -- "$T_DIR/bin/rshd" \
	    > "$T_LOG/rshd.log" 2>&1 &
	t_track $!
	_c_log "$n hosts ${C_HOSTS[*]} on $C_NET.0/24 (netns ${C_PREFIX}*)"
	for k in ${C_DTS_HOSTS:-${!C_HOSTS[@]}}; do
		c_start_dts "$k"
	done
	if [ "$nopvm" = 0 ]; then
		c_start_master
		c_wait_hosts "$n" 60 || _c_die "the VM did not reach $n hosts"
	fi
	C_UP_S=$(_c_secs "$t0" "$(_c_now)")
	_c_log "up in ${C_UP_S} s"
}

# c_start_dts K: the dts service of host K, in the foreground of a
# background job of ours inside K's namespaces; waits until its adoption
# socket exists and its dts-load runs (dts starts dts-load after the
# socket listens).
c_start_dts() {
	local k h sock
	local -a _c
	k=$(c_idx "${1:-}") || _c_die "c_start_dts: no host '${1:-}'"
	h=${C_HOSTS[$k]} sock=$T_DIR/$h/dts.sock
	c_dts_pid "$k" > /dev/null && _c_die "c_start_dts: $h already runs dts"
	_c_cmd _c "$k" || return 2
	# a dts killed -9 leaves its socket file: wait for the new one
	rm -f "$sock"
	case " ${T_CGS[*]} " in
	*" $(t_cg_dir "$h") "*) ;;
	*) t_track_cg "$(t_cg_dir "$h")" ;;
	esac
	"${_c[@]}" setsid "$C_DTS" -f "$T_DIR/$h/dts.conf" \
	    < /dev/null >> "$T_LOG/dts-$h.out" 2>> "$T_LOG/dts-$h.err" &
	C_DTS_PID[k]=$!
	t_track "${C_DTS_PID[k]}"
	t_wait_for 15 _c_dts_ready "$k" ||
	    _c_die "no dts service on $h (see log/dts-$h.err, log/dts-$h.log)"
}

_c_dts_ready() {
	local p=${C_DTS_PID[$1]}
	_c_alive "$p" ||
	    _c_die "dts on h$1 exited: $(tail -n 3 "$T_LOG/dts-h$1.err" 2> /dev/null)"
	[ "$(_c_comm "$p")" = dts ] && [ -S "$T_DIR/h$1/dts.sock" ] &&
	    c_agent_pid "$1" > /dev/null
}

# c_stop_dts K: SIGTERM to K's dts (continued first); waits (10 s) until
# it has ended.  C_DTS_RC = its exit status if it was our child (else "").
c_stop_dts() {
	local k d
	k=$(c_idx "${1:-}") || return 2
	C_DTS_RC=
	d=$(c_dts_pid "$k") || return 1
	kill -CONT "$d" 2> /dev/null
	kill -TERM "$d" 2> /dev/null
	t_wait_for 10 _c_gone "$d" || return 1
	if [ "$d" = "${C_DTS_PID[k]:-}" ]; then
		wait "$d" 2> /dev/null
		C_DTS_RC=$?
		t_untrack "$d"
		C_DTS_PID[k]=
	fi
	return 0
}

_c_gone() { ! _c_alive "$1"; }

# c_start_master: the master pvmd on h0, through the launcher (adopted by
# h0's dts), reading the host file.  pvmd prints its socket path on
# stdout ($T_LOG/master.out).
c_start_master() {
	local -a _c
	local k f
	_c_cmd _c h0 || return 2
	# pvmd opens pvml.<uid> with O_EXCL and logs nothing if it exists:
	# move the logs of an earlier VM aside on every host without a pvmd
	for k in "${!C_HOSTS[@]}"; do
		_c_daemon_on "$k" pvmd && continue
		for f in "$T_DIR/${C_HOSTS[$k]}"/tmp/pvml.[0-9]*; do
			case $f in *.old.*) continue ;; esac
			[ -f "$f" ] && mv "$f" "$f.old.$(_c_now)"
		done
	done
	: > "$T_LOG/master.out"
	"${_c[@]}" env -C "$T_DIR/h0/home" setsid "$C_LAUNCHER" "$C_HOSTFILE" \
	    > "$T_LOG/master.out" 2> "$T_LOG/master.err" &
	C_MASTER_PID=$!
	t_track "$C_MASTER_PID"
	t_wait_for 30 _c_master_ready ||
	    _c_die "no master pvmd on h0 (see master.err, dts-h0.log)"
	_c_alive "$C_MASTER_PID" || _c_die "the master pvmd on h0 exited"
	[ "$(c_pvmd_pid h0)" = "$C_MASTER_PID" ] ||
	    _c_die "the master pvmd $C_MASTER_PID is not in h0's gang"
}

_c_master_ready() {
	grep -q pvmtmp "$T_LOG/master.out" && return 0
	_c_alive "$C_MASTER_PID" ||
	    _c_die "the master pvmd on h0 exited early: $(tail -n 3 "$T_LOG/master.err")"
	return 1
}

# c_wait_hosts N [SECONDS]: until the VM has N hosts (pvm_config on h0).
c_wait_hosts() {
	c_pvm h0 wait "$1" "${2:-60}" > /dev/null
}

# ---- logs -----------------------------------------------------------------

c_dump_logs() {
	local f
	[ -n "${T_DIR:-}" ] && [ -d "$T_DIR" ] || return 0
	for f in "$T_DIR"/h*/tmp/pvml.*; do
		[ -f "$f" ] || continue
		echo "# ---- ${f#"$T_DIR"/} (last 20 lines)" >&2
		tail -n 20 "$f" | sed 's/^/#   /' >&2
	done
}

# ---- teardown -------------------------------------------------------------

# Members of every host's cgroup subtree (gang included).
_c_cg_pids() {
	local g
	for g in "${_C_GANG[@]}"; do
		[ -d "${g%/jobs/*}" ] || continue
		find "${g%/jobs/*}" -name cgroup.procs -exec cat {} + 2> /dev/null
	done
}

# Thaw every host's gang.
_c_thaw() {
	local g f
	for g in "${_C_GANG[@]}"; do
		[ -d "${g%/jobs/*}" ] || continue
		while read -r f; do
			[ "$(cat "$f" 2> /dev/null)" = 1 ] && echo 0 > "$f" 2> /dev/null
		done < <(find "${g%/jobs/*}" -name cgroup.freeze 2> /dev/null)
	done
}

# Remove every host's cgroup subtree (only empty cgroups go).
_c_rm_cgroups() {
	local g
	for g in "${_C_GANG[@]}"; do
		[ -d "${g%/jobs/*}" ] || continue
		find "${g%/jobs/*}" -depth -type d -exec rmdir {} + 2> /dev/null
	done
}

# Every process of ours: in our namespaces or in our gangs.
_c_ours() {
	{ _c_all_pids; _c_cg_pids; } | sort -un
}

# Thaw, continue every process of ours and put it back to SCHED_OTHER.
_c_release() {
	local p
	_c_thaw
	for p in $(_c_ours); do
		kill -CONT "$p" 2>/dev/null
		chrt -a -o -p 0 "$p" > /dev/null 2>&1
	done
}

# _c_wait_empty SECONDS: until no process of ours is left.
_c_wait_empty() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		[ -z "$(_c_ours)" ] && return 0
		sleep 0.1
	done
	[ -z "$(_c_ours)" ]
}

# _c_daemon_on K COMM: is a process named COMM running on host K?
_c_daemon_on() {
	local p
	for p in $(_c_ns_pids "${C_NS[$1]}"); do
		[ "$(_c_comm "$p")" = "$2" ] && _c_alive "$p" && return 0
	done
	return 1
}

# Are all gangs empty?
_c_gangs_empty() {
	local g
	for g in "${_C_GANG[@]}"; do
		[ -z "$(cat "$g/cgroup.procs" 2> /dev/null)" ] || return 1
	done
}

# PIDs of every live dts in our host namespaces.
_c_all_dts() {
	local k
	for k in "${!C_HOSTS[@]}"; do c_dts_pid "$k"; done
}

_c_signal_all() {
	local p
	for p in $(_c_ours); do
		kill -CONT "$p" 2>/dev/null
		kill "-$1" "$p" 2>/dev/null
	done
}

c_down() {
	local t0 ns left p k saved bad=0
	[ "$_C_ACTIVE" = 1 ] || return 0
	saved=$(trap -p INT TERM HUP)
	trap '' INT TERM HUP
	t0=$(_c_now)
	_c_release
	# halt the VM while every dts still slices (a hung one was continued
	# above, and its dts-load releases a gang it leaves stopped)
	if _c_daemon_on 0 pvmd && [ -x "$T_DIR/bin/hinner" ]; then
		local -a _c
		_c_cmd _c h0 &&
		    timeout -k 1 10 "${_c[@]}" "$BUILD/tests/pvm/dts-pvmctl" -T 5 halt \
		    > /dev/null 2>&1
		for ((p = 0; p < 50; p++)); do
			_c_gangs_empty && break
			sleep 0.1
		done
		_c_gangs_empty || _c_log "NOTE: gangs not empty 5 s after the halt: $(_c_cg_pids | paste -sd' ')"
	fi
	# stop every node service: each releases its gang and exits 0
	for p in $(_c_all_dts); do
		kill -CONT "$p" 2> /dev/null
		kill -TERM "$p" 2> /dev/null
	done
	for ((p = 0; p < 50; p++)); do
		[ -z "$(_c_all_dts)" ] && break
		sleep 0.1
	done
	for k in "${!C_HOSTS[@]}"; do
		p=${C_DTS_PID[k]:-}
		[ -n "$p" ] || continue
		if _c_alive "$p"; then
			_c_log "WARNING: dts $p of h$k did not end on SIGTERM"
			continue
		fi
		wait "$p" 2> /dev/null
		printf -v "C_DTS_RC_$k" '%s' "$?"
		t_untrack "$p"
		C_DTS_PID[k]=
		p=C_DTS_RC_$k
		[ "${!p}" = 0 ] || _c_log "NOTE: dts of h$k ended with status ${!p}"
	done
	_c_release
	_c_lan_down
	_c_signal_all TERM
	_c_wait_empty 2 || { _c_release; _c_signal_all KILL; _c_wait_empty 5; }
	left=$(_c_ours | tr '\n' ' ')
	[ -z "$left" ] || { _c_log "WARNING: still running in our namespaces or gangs: $left"; bad=1; }
	_c_rm_cgroups
	for p in "${_C_GANG[@]}"; do
		[ ! -d "${p%/jobs/*}" ] || { _c_log "WARNING: cgroup left: ${p%/jobs/*}"; bad=1; }
	done
	for ns in "${C_NS[@]}" "$C_BR"; do
		[ -e "/run/netns/$ns" ] && ip netns del "$ns" 2>/dev/null
	done
	left=$(ip netns list 2>/dev/null | awk -v p="$C_PREFIX" \
	    'index($1, p) == 1 { printf "%s ", $1 }')
	[ -z "$left" ] || { _c_log "WARNING: namespaces left: $left"; bad=1; }
	if [ -n "${T_DIR:-}" ] && [ -d "$T_DIR" ]; then
		if [ "${KEEP:-0}" = 1 ]; then
			_c_log "kept $T_DIR"
		else
			# t_pass still checks what the daemons said
			! declare -F t_keep_log_lines > /dev/null || t_keep_log_lines
			rm -rf "$T_DIR"
		fi
	fi
	_C_ACTIVE=0
	C_DOWN_S=$(_c_secs "$t0" "$(_c_now)")
	_c_log "down in ${C_DOWN_S} s"
	trap - INT TERM HUP
	eval "$saved"
	return "$bad"
}

# ---- the console as the master (scenario tests t70-t74) ---------------------
#
#   c_up 3 --no-pvm             # every host runs its dts service, no pvmd
#   c_start_console_master      # dts-console on h0 starts the master pvmd
#                               # through the launcher (h0's dts adopts it)
#   c_sc_add 3                  # `add h1 h2` from the console; wait for 3 hosts
#   c_sc_console "mode static; start; status"    # one dts-console -c run
#   c_sc_open                   # a console that stays, reading commands
#   c_sc_cmd "load"             # one command in it; output in C_SC_OUT
#   c_sc_close                  # end of its input: it exits (nodes keep
#                               # their last schedule)
#
# The console reads $T_DIR/h0/console.conf (C_SC_CONF): h0's dts.conf and,
# unless that already has a console group, one with console.launcher =
# $C_LAUNCHER, console.pvm_tmp = h0's PVM_TMP, history "" and the keys in
# C_SC_CONSOLE_EXTRA ('timeout = "2s";').  The master pvmd it starts
# (C_MASTER_PID; not our child) is in h0's gang.  Output of every console
# run goes to files, never to a pipe: the pvmd the console starts inherits
# its stderr and keeps it open.
C_SC_CONF=
C_SC_CONSOLE_EXTRA=${C_SC_CONSOLE_EXTRA:-}
C_SC_OUT=
C_SC_ERR=
C_SC_RC=
C_SC_PID=
C_SC_FD=
_C_SC_OFF=0
_C_SC_EOFF=0

# c_sc_write_console_conf: $T_DIR/h0/console.conf (C_SC_CONF).
c_sc_write_console_conf() {
	local src=$T_DIR/h0/dts.conf
	C_SC_CONF=$T_DIR/h0/console.conf
	{
		cat "$src" || return 1
		grep -qE '^[[:space:]]*console[[:space:]]*[=:]' "$src" || cat <<-EOC
		console = {
		    launcher = "$C_LAUNCHER";
		    pvm_tmp = "$T_DIR/h0/tmp";
		    history = "";
		    sign_key = "$C_SIGN";
		    node_secret = "$C_KEY";
		    $C_SC_CONSOLE_EXTRA
		};
		EOC
	} > "$C_SC_CONF"
}

# c_start_console_master: after c_up N --no-pvm, `dts-console -f
# console.conf -c conf` on h0: the console finds no pvmd for h0's PVM_TMP
# and starts the master pvmd through the launcher (PVM_DPATH = the
# launcher), which h0's dts adopts into its gang.
c_start_console_master() {
	local k f
	[ -n "$C_LAUNCHER" ] || _c_die "c_start_console_master: c_up first"
	_c_daemon_on 0 pvmd && _c_die "c_start_console_master: h0 runs a pvmd"
	c_dts_pid h0 > /dev/null || _c_die "c_start_console_master: no dts on h0"
	for k in "${!C_HOSTS[@]}"; do	# as c_start_master: pvmd's O_EXCL log
		_c_daemon_on "$k" pvmd && continue
		for f in "$T_DIR/${C_HOSTS[$k]}"/tmp/pvml.[0-9]*; do
			case $f in *.old.*) continue ;; esac
			[ -f "$f" ] && mv "$f" "$f.old.$(_c_now)"
		done
	done
	c_sc_write_console_conf || _c_die "cannot write $T_DIR/h0/console.conf"
	c_sc_console conf ||
	    _c_die "dts-console conf failed ($C_SC_RC): $C_SC_ERR"
	grep -q "started the master pvmd through $C_LAUNCHER" <<< "$C_SC_ERR" ||
	    _c_die "the console did not start the master: $C_SC_ERR"
	C_MASTER_PID=$(c_pvmd_pid h0) || _c_die "no pvmd in h0's gang after the console"
}

# c_sc_console CMDS [ARGS...]: one `dts-console -f C_SC_CONF [ARGS] -c
# CMDS` on h0; its stdout in C_SC_OUT, stderr in C_SC_ERR, status in
# C_SC_RC (returned).  Every run is logged to $T_LOG/console.log.
c_sc_console() {
	local cmds=$1
	shift
	[ -n "$C_SC_CONF" ] || c_sc_write_console_conf || return 2
	_c_console_run "$C_SC_CONF" console "$@" -c "$cmds"
	C_SC_RC=$_C_CON_RC C_SC_OUT=$_C_CON_OUT C_SC_ERR=$_C_CON_ERR
	return "$C_SC_RC"
}

# _c_console_run CONF LOG ARGS...: one dts-console run on h0 with CONF;
# output to files (never a pipe: the dts it may start keeps its stderr),
# appended to $T_LOG/LOG.log; sets _C_CON_RC, _C_CON_OUT, _C_CON_ERR.
_c_console_run() {
	local conf=$1 log=$2 o=$T_LOG/$2.1.out e=$T_LOG/$2.1.err
	shift 2
	c_exec h0 "$BUILD/console/dts-console" -f "$conf" "$@" \
	    > "$o" 2> "$e" < /dev/null
	_C_CON_RC=$?
	_C_CON_OUT=$(cat "$o") _C_CON_ERR=$(cat "$e")
	{ echo "\$ dts-console $*   # status $_C_CON_RC"; cat "$o" "$e"; } \
	    >> "$T_LOG/$log.log"
	return "$_C_CON_RC"
}

# c_sc_add N [SECS]: `add h1 .. h(N-1)` from the console, then wait until
# the VM has N hosts.
c_sc_add() {
	local n=$1 k hosts=
	for ((k = 1; k < n; k++)); do hosts="$hosts h$k"; done
	c_sc_console "add$hosts" || _c_die "console add$hosts: $C_SC_OUT $C_SC_ERR"
	for ((k = 1; k < n; k++)); do
		grep -q "^h$k: added" <<< "$C_SC_OUT" ||
		    _c_die "console add: no 'h$k: added' in: $C_SC_OUT"
	done
	c_wait_hosts "$n" "${2:-60}" || _c_die "the VM did not reach $n hosts"
}

# c_sc_open: a console on h0 that stays, reading commands from a fifo
# (stdin, not a terminal), stdout in $T_LOG/console.out and stderr (its
# notices, such as balanced's new PS) in $T_LOG/console.err; with the
# options in C_SC_ARGS (e.g. -n).
c_sc_open() {
	local -a _c
	local fifo=$T_DIR/run/console.fifo
	[ -z "$C_SC_PID" ] || _c_die "c_sc_open: a console is open"
	[ -n "$C_SC_CONF" ] || c_sc_write_console_conf || return 2
	_c_cmd _c h0 || return 2
	rm -f "$fifo"
	mkfifo -m 600 "$fifo" || return 1
	: > "$T_LOG/console.out"
	: > "$T_LOG/console.err"
	_C_SC_OFF=0 _C_SC_EOFF=0
	# shellcheck disable=SC2086
	"${_c[@]}" "$BUILD/console/dts-console" -f "$C_SC_CONF" ${C_SC_ARGS:-} < "$fifo" \
	    > "$T_LOG/console.out" 2> "$T_LOG/console.err" &
	C_SC_PID=$!
	t_track "$C_SC_PID"
	exec {C_SC_FD}> "$fifo"
}

_c_sc_size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# Lines "help sync" prints ("usage: sync", ...): the end of a command's output.
_c_sc_mark() { grep -c '^usage: sync$' "$T_LOG/console.out"; }

# c_sc_cmd CMD [SECS]: run CMD in the open console and wait (default 30 s)
# until it is done; its output in C_SC_OUT, what it wrote on stderr since
# the last c_sc_cmd (errors, notices) in C_SC_ERR.  Fails if the console
# ended or did not finish in time.
c_sc_cmd() {
	local n0 end
	[ -n "$C_SC_PID" ] || _c_die "c_sc_cmd: no console open"
	n0=$(_c_sc_mark)
	printf '%s\nhelp sync\n' "$1" >&"$C_SC_FD" || return 1
	end=$(($(_t_now_us) + $(_t_secs_to_us "${2:-30}")))
	while [ "$(_c_sc_mark)" -le "$n0" ]; do
		_t_alive "$C_SC_PID" || { C_SC_OUT= C_SC_ERR="console ended"; return 1; }
		[ "$(_t_now_us)" -lt "$end" ] || { C_SC_ERR="timeout"; return 1; }
		sleep 0.02
	done
	C_SC_OUT=$(tail -c +"$((_C_SC_OFF + 1))" "$T_LOG/console.out" |
	    sed '/^usage: sync$/,$d')
	_C_SC_OFF=$(_c_sc_size "$T_LOG/console.out")
	C_SC_ERR=$(tail -c +"$((_C_SC_EOFF + 1))" "$T_LOG/console.err")
	_C_SC_EOFF=$(_c_sc_size "$T_LOG/console.err")
	{ echo "> $1"; echo "$C_SC_OUT"; [ -z "$C_SC_ERR" ] || echo "$C_SC_ERR"; } \
	    >> "$T_LOG/console.log"
	return 0
}

# c_sc_close: end the open console (EOF on its input) and wait for it.
c_sc_close() {
	[ -n "$C_SC_PID" ] || return 0
	exec {C_SC_FD}>&-
	t_wait_for 10 eval '! _t_alive "$C_SC_PID"' || kill "$C_SC_PID" 2>/dev/null
	wait "$C_SC_PID" 2>/dev/null
	C_SC_RC=$?
	t_untrack "$C_SC_PID"
	C_SC_PID= C_SC_FD=
	return "$C_SC_RC"
}

# c_sc_link_progs PROG...: link each program (a path, or a name found in
# $BUILD/tests/pvm, $BUILD/tests/tools or PATH) into ~/pvm3/bin/$PVM_ARCH
# of every host, PVM's default ep= (a VM started by the console has no
# host file, so no ep= option).
c_sc_link_progs() {
	local arch k p f d
	arch=$(/usr/lib/pvm3/lib/pvmgetarch 2>/dev/null) || arch=LINUX64
	for p in "$@"; do
		case $p in
		/*) f=$p ;;
		*) f=$(PATH="$BUILD/tests/pvm:$BUILD/tests/tools:$PATH" command -v "$p") ||
		    _c_die "c_sc_link_progs: no program $p" ;;
		esac
		for k in "${!C_HOSTS[@]}"; do
			d=$T_DIR/${C_HOSTS[$k]}/home/pvm3/bin/$arch
			mkdir -p "$d" && ln -sf "$f" "$d/${p##*/}" || return 1
		done
	done
}

# ---- faults and attacks (t76, t78) ------------------------------------------
#
#   c_up 3 --no-pvm
#   c_ft_con -c "conf; add h1 h2"     # dts-console on h0: it starts the
#                                     # master pvmd through the launcher
#   c_ft_con_daemon "mode static; ip 1s; ps 20%; start"   # C_FT_CON_PID
#   c_ft_con -n -c "status -v"; c_ft_con_rej h1   # h1's rejected datagrams
#   c_ft_rej h1                       # the same from h1's own STATUS
#   c_ft_daemons h2                   # dts, pvmd, dts-load left on h2
#   c_ft_leftovers h2                 # stopped, frozen or real-time
#                                     # processes on h2 (not the service)
#
# The console reads $T_DIR/h0/console.conf (C_FT_CONF, written by
# c_ft_write_conf on first use): h0's dts.conf plus a console group with
# console.launcher = $C_LAUNCHER, console.pvm_tmp = h0's PVM_TMP, no
# history, status_wait $C_FT_STATUS_WAIT (500ms) and the keys in
# C_FT_CONSOLE_EXTRA.  Console output always goes to files, never to a
# pipe: the master pvmd inherits the console's stderr and keeps it open.
C_FT_CONF=
C_FT_CONSOLE_EXTRA=${C_FT_CONSOLE_EXTRA:-}
C_FT_STATUS_WAIT=${C_FT_STATUS_WAIT:-500ms}
C_FT_OUT=
C_FT_ERR=
C_FT_RC=
C_FT_CON_PID=

# c_ft_write_conf: (re)write C_FT_CONF from h0's dts.conf.
c_ft_write_conf() {
	[ -n "$C_LAUNCHER" ] || { echo "c_ft_write_conf: c_up first" >&2; return 2; }
	C_SC_CONSOLE_EXTRA="status_wait = \"$C_FT_STATUS_WAIT\"; $C_FT_CONSOLE_EXTRA" \
	    c_sc_write_console_conf || return 1
	C_FT_CONF=$C_SC_CONF
}

# c_ft_con ARGS...: `dts-console -f C_FT_CONF ARGS` on h0 with stdin
# /dev/null; stdout in C_FT_OUT, stderr in C_FT_ERR, status in C_FT_RC
# (also returned).  Every run is logged to $T_LOG/ft-console.log.
c_ft_con() {
	[ -n "$C_FT_CONF" ] || c_ft_write_conf || return 2
	_c_console_run "$C_FT_CONF" ft-console "$@"
	C_FT_RC=$_C_CON_RC C_FT_OUT=$_C_CON_OUT C_FT_ERR=$_C_CON_ERR
	return "$C_FT_RC"
}

# c_ft_con_daemon CMDS: `dts-console --daemon -c CMDS` on h0; sets
# C_FT_CON_PID to the console left running in the background (tracked;
# c_down ends it with everything else in h0's namespace).
c_ft_con_daemon() {
	C_FT_CON_PID=
	c_ft_con --daemon -c "$1" || return 1
	C_FT_CON_PID=$(sed -n 's/^dts-console: running in the background, pid \([0-9][0-9]*\)$/\1/p' \
	    <<< "$C_FT_OUT")
	[ -n "$C_FT_CON_PID" ] || return 1
	t_track "$C_FT_CON_PID"
}

# c_ft_rej K: K's rejected datagrams by reason from its STATUS, one line
# "short=N long=N magic=N type=N length=N mac=N replay=N range=N".
c_ft_rej() {
	local out
	out=$(c_status "$1") || return 1
	awk -F= '/^rej_/ { sub(/^rej_/, "", $1); printf "%s%s=%s", (n++ ? " " : ""), $1, $2 }
	    END { if (n) print ""; else exit 1 }' <<< "$out"
}

# c_ft_con_rej K: the same, from the "rejected:" line under K's row in
# the output of the last c_ft_con (a `status -v`); fails if K has none.
c_ft_con_rej() {
	local h
	h=$(c_host "$1") || return 1
	awk -v h="$h" '
	    /^[^ ]/ { f = ($1 == h && $4 != "no") }
	    f && /^ +rejected:/ {
		sub(/^ +rejected: */, ""); sub(/;.*/, ""); gsub(/,/, "")
		for (i = 1; i < NF; i += 2) printf "%s%s=%s", (i > 1 ? " " : ""), $i, $(i + 1)
		print ""; found = 1; exit
	    }
	    END { exit !found }' <<< "$C_FT_OUT"
}

# c_ft_daemons K: "COMM:PID" of every dts, pvmd and dts-load (not a
# zombie) in K's namespace; nothing if none is left.
c_ft_daemons() {
	local p c s out=
	for p in $(c_pids "$1"); do
		c=$(_c_comm "$p")
		case $c in dts | pvmd | dts-load) ;; *) continue ;; esac
		s=$(t_proc_state "$p") || continue
		[ "$s" = Z ] || out="$out $c:$p"
	done
	echo "${out# }"
}

# c_ft_leftovers K: "PID:COMM:STATE:CLASS" of every process in K's
# namespace or K's gang that is stopped (T, t), frozen (in the gang while
# it is frozen: STATE F), real-time (FF, RR) or at SCHED_IDLE (IDL),
# except the node service
# itself (dts, its dts-load and its helper dts-oom run at SCHED_FIFO by
# design); nothing if none.
c_ft_leftovers() {
	local p s c d a out=
	d=$(c_dts_pid "$1") a=$(c_agent_pid "$1")
	for p in $( { c_pids "$1"; c_gang_pids "$1"; } | sort -un); do
		[ "$p" = "$d" ] || [ "$p" = "$a" ] && continue
		[ "$(_c_comm "$p")" = dts-oom ] &&
		    [ "$(awk '{ print $4 }' "/proc/$p/stat" 2> /dev/null)" = "$d" ] && continue
		s=$(t_proc_state "$p") || continue
		[ "$s" = Z ] && continue
		c_is_stopped "$1" "$p" && [ "$s" != T ] && [ "$s" != t ] && s=F
		c=$(t_policy "$p")
		case "$s:$c" in
		T:* | t:* | F:* | *:FF | *:RR | *:IDL) out="$out $p:$(_c_comm "$p"):$s:$c" ;;
		esac
	done
	echo "${out# }"
}

# ---- MPI jobs on the cluster (t84, t86, bench-mpi) --------------------------
#
#   c_up 3 --no-pvm              # a dts service on every host, no pvmd
#   c_mpi_setup ompi             # or mpich: C_MPI_PROG (tests/bench/mpiloop.c
#                                # built with mpicc.openmpi / mpicc.mpich),
#                                # the host files, the cluster's ssh
#   c_mpi_bg 3 job -r -i 500     # the job on h0..h2 in the background:
#                                # C_MPI_PID, output in $T_LOG/job.log
#   c_mpi_wait 60                # its exit status (124: not ended in time)
#   c_mpi_run 2 job2 -r -i 100   # the same in the foreground
#   C_MPI_OPTS="--mca mpi_yield_when_idle 1"   # more launcher options
#   C_MPI_CPUS="0 1"             # before c_mpi_setup: hK's MPI processes
#                                # pinned to CPU K (the launcher and what
#                                # c-ssh starts there)
#
# The cluster's ssh, $T_DIR/bin/c-ssh [OPTIONS] HOST CMD...: what ssh does
# on a real cluster, without sshd: CMD (joined with spaces, as ssh sends
# it) runs with /bin/sh -c on HOST (its namespaces, through hinner, with
# the PATH and HOME of the host and nothing else of the caller's
# environment), as the caller, in the foreground: c-ssh ends with it.  It
# is the launchers' remote shell (dts-ssh's DTS_SSH), run by mpirun /
# mpiexec inside h0's gang like a real ssh client.  Like sshd, it starts
# the remote side outside every gang: c-ssh moves itself into the cgroup
# of the test (the one that ran c_mpi_setup) and back to SCHED_OTHER
# before it enters HOST, so only what dts-run (the first thing dts-ssh
# runs on HOST) hands to HOST's dts is in HOST's gang.
#
# The launch lines (C_MPI_ARGV, set by c_mpi_argv N KIND; dts-run through
# PATH: $T_DIR/bin/dts-run is a copy of the build's):
#   ompi:   dts-run -- mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent
#           $BUILD/run/dts-ssh --mca btl_tcp_if_include eth0
#           --mca oob_tcp_if_include eth0 --bind-to none
#           --hostfile $T_DIR/mpi/hosts-N -np N PROG
#   ompi-agent (Open MPI's own launch agent instead of dts-ssh):
#           ... --mca plm_rsh_agent c-ssh --launch-agent "dts-run -- orted" ...
#   mpich (mpich-boot: hydra's older names, -bootstrap ssh -bootstrap-exec):
#           dts-run -- mpiexec.mpich -launcher ssh -launcher-exec
#           $BUILD/run/dts-ssh -iface eth0 -f $T_DIR/mpi/machines-N -n N PROG
# with DTS_SSH=c-ssh and DTS_RUN=$BUILD/run/dts-run in the environment.
# (--bind-to none: every orted here sees the same CPUs, and Open MPI's
# default binding would put the ranks of all hosts on the same core.
# Debian's MPICH 4.0.2 speaks UCX 1.13, which finds the shared memory of
# this one machine between the hosts and uses it; restricted to TCP
# (UCX_TLS=tcp) 3 ranks hang in MPI_Finalize now and then, spinning in
# ucp_worker_progress, in mode OFF as well, so its transports are left
# as they are: hydra's own connections use eth0, the ranks' data may not.)
# Host files per size N (h0..h(N-1), one slot each): $T_DIR/mpi/hosts-N
# (Open MPI: "hK slots=1") and $T_DIR/mpi/machines-N (MPICH: "hK:1").
C_MPI_KIND=
C_MPI_PROG=
C_MPI_PID=
C_MPI_ARGV=()
C_MPI_RC=

# c_mpi_need KIND: fail the test unless KIND's packages (quickstart
# installs them) are installed and dts-ssh is built.
c_mpi_need() {
	case $1 in
	ompi | ompi-agent)
		command -v mpirun.openmpi > /dev/null && command -v mpicc.openmpi > /dev/null ||
		    t_fail "needs Open MPI: quickstart installs it (apt-get install openmpi-bin libopenmpi-dev)" ;;
	mpich | mpich-boot)
		command -v mpiexec.mpich > /dev/null && command -v mpicc.mpich > /dev/null ||
		    t_fail "needs MPICH: quickstart installs it (apt-get install mpich)" ;;
	*) _c_die "c_mpi_need: no MPI kind '$1' (ompi, ompi-agent, mpich, mpich-boot)" ;;
	esac
	t_need_built run/dts-ssh
}

# c_mpi_setup KIND [SRC.c]: after c_up; C_MPI_KIND, C_MPI_PROG (SRC.c,
# default tests/bench/mpiloop.c, built for KIND), the host files, c-ssh.
c_mpi_setup() {
	local kind=$1 src=${2:-$SRC/tests/bench/mpiloop.c} cc k n b=$T_DIR/bin d=$T_DIR/mpi home
	c_mpi_need "$kind"
	[ -n "$C_LAUNCHER" ] || _c_die "c_mpi_setup: c_up first"
	C_MPI_KIND=$kind
	mkdir -p "$d" || return 1
	case $kind in mpich*) cc=mpicc.mpich ;; *) cc=mpicc.openmpi ;; esac
	C_MPI_PROG=$d/$(basename "$src" .c)-${cc#mpicc.}
	"$cc" -O2 -o "$C_MPI_PROG" "$src" > "$T_LOG/mpicc.log" 2>&1 ||
	    _c_die "$cc $src failed: $(tail -n 3 "$T_LOG/mpicc.log")"
	for ((n = 1; n <= C_N; n++)); do
		for ((k = 0; k < n; k++)); do echo "${C_HOSTS[$k]} slots=1"; done > "$d/hosts-$n"
		for ((k = 0; k < n; k++)); do echo "${C_HOSTS[$k]}:1"; done > "$d/machines-$n"
	done
	# a copy, not a link: a test user may run it too (t106's user A
	# starts its pvmd through $b/dts-run), and the build may be in a
	# directory only root can enter
	rm -f "$b/dts-run"
	t_pub_bin "$BUILD/run/dts-run" || _c_die "c_mpi_setup: cannot copy dts-run to $b"
	# the cgroup of this test: where c-ssh's remote side starts
	home=$_C_CGM$(sed -n 's/^0:://p' /proc/$$/cgroup)
	home=${home%/}
	[ -w "$home/cgroup.procs" ] || _c_die "c_mpi_setup: cannot write $home/cgroup.procs"
	{
		echo '#!/bin/sh'
		echo "# c-ssh [OPTIONS] HOST CMD... - the ssh of cluster $C_PREFIX (cluster.sh)"
		echo 'while [ $# -gt 0 ]; do'
		echo '	case $1 in'
		echo '	-[BbcDEeFIiJLlmOoPpQRSWw]) shift 2 ;;'
		echo '	--) shift; break ;;'
		echo '	-*) shift ;;'
		echo '	*) break ;;'
		echo '	esac'
		echo 'done'
		echo '[ $# -ge 2 ] || { echo "usage: c-ssh [options] host command" >&2; exit 255; }'
		echo 'h=$1'
		echo 'shift'
		echo 'case $h in'
		for k in "${!C_HOSTS[@]}"; do
			printf '%s | %s) ns=%s h=%s cpu=%s ;;\n' "${C_HOSTS[$k]}" "${C_ADDR[$k]}" \
			    "${C_NS[$k]}" "${C_HOSTS[$k]}" "$(_c_mpi_cpu "$k")"
		done
		echo '*) echo "c-ssh: $h: unknown host" >&2; exit 255 ;;'
		echo 'esac'
		echo "echo \"c-ssh \$h: \$*\" >> \"$T_LOG/c-ssh.log\""
		echo '# as sshd starts it: outside every gang, at normal priority'
		echo "echo \$\$ > \"$home/cgroup.procs\" && chrt -o -p 0 \$\$ > /dev/null || exit 255"
		echo '# a host pinned to its CPUs (C_MPI_CPUS)'
		echo '[ -z "$cpu" ] || taskset -p -c "$cpu" $$ > /dev/null || exit 255'
		echo "exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\"
		echo "    nsenter --net=/run/netns/\$ns -- unshare --mount --propagation slave --uts -- \\"
		echo "    \"$b/hinner\" \"\$h\" /bin/sh -c \"cd \\\"\\\$HOME\\\" && \$*\""
	} > "$b/c-ssh" && chmod 755 "$b/c-ssh"
}

# c_mpi_argv N: C_MPI_ARGV = the launch line of C_MPI_KIND for N ranks on
# h0..h(N-1) (one each), before the program and its arguments.
c_mpi_argv() {
	local n=$1 d=$T_DIR/mpi
	case $C_MPI_KIND in
	ompi)
		C_MPI_ARGV=(dts-run -- mpirun.openmpi --allow-run-as-root
		    --mca plm_rsh_agent "$BUILD/run/dts-ssh"
		    --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0
		    --bind-to none --hostfile "$d/hosts-$n" -np "$n") ;;
	ompi-agent)
		C_MPI_ARGV=(dts-run -- mpirun.openmpi --allow-run-as-root
		    --mca plm_rsh_agent c-ssh --launch-agent "dts-run -- orted"
		    --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0
		    --bind-to none --hostfile "$d/hosts-$n" -np "$n") ;;
	mpich)
		C_MPI_ARGV=(dts-run -- mpiexec.mpich -launcher ssh
		    -launcher-exec "$BUILD/run/dts-ssh" -iface eth0
		    -f "$d/machines-$n" -n "$n") ;;
	mpich-boot)
		C_MPI_ARGV=(dts-run -- mpiexec.mpich -bootstrap ssh
		    -bootstrap-exec "$BUILD/run/dts-ssh" -iface eth0
		    -f "$d/machines-$n" -n "$n") ;;
	*) _c_die "c_mpi_argv: c_mpi_setup first" ;;
	esac
}

# c_mpi_bg N NAME ARGS...: the job (C_MPI_PROG ARGS on N hosts, launched
# from h0 through dts-run) in the background; stdout and stderr to
# $T_LOG/NAME.log.  C_MPI_PID = the launcher (dts-run became mpirun or
# mpiexec: our child, tracked).
c_mpi_bg() {
	local n=$1 name=$2 cpu
	local -a _c pin=()
	shift 2
	c_mpi_argv "$n"
	_c_cmd _c h0 || return 2
	cpu=$(_c_mpi_cpu 0)
	[ -z "$cpu" ] || pin=(taskset -c "$cpu")
	# shellcheck disable=SC2086
	"${_c[@]}" env DTS_SSH=c-ssh DTS_RUN="$BUILD/run/dts-run" "${pin[@]}" \
	    "${C_MPI_ARGV[@]}" ${C_MPI_OPTS:-} "$C_MPI_PROG" "$@" \
	    < /dev/null > "$T_LOG/$name.log" 2>&1 &
	C_MPI_PID=$!
	t_track "$C_MPI_PID"
	{ echo "\$ ${pin[*]} ${C_MPI_ARGV[*]} ${C_MPI_OPTS:-} $C_MPI_PROG $*"; } >> "$T_LOG/mpi-commands.log"
}

# _c_mpi_cpu K: the CPUs of host K in C_MPI_CPUS ("0 1": h0 on CPU 0, h1
# on CPU 1; empty: not pinned).
_c_mpi_cpu() {
	local -a c
	read -r -a c <<< "${C_MPI_CPUS:-}"
	echo "${c[$1]:-}"
}

# c_mpi_wait SECS: wait for the job of c_mpi_bg; C_MPI_RC = its exit status
# (returned), 124 if it did not end within SECS (it keeps running).
c_mpi_wait() {
	C_MPI_RC=124
	[ -n "$C_MPI_PID" ] || return 2
	t_wait_for "$1" eval '! _t_alive "$C_MPI_PID"' || return 124
	wait "$C_MPI_PID" 2> /dev/null
	C_MPI_RC=$?
	t_untrack "$C_MPI_PID"
	C_MPI_PID=
	return "$C_MPI_RC"
}

# c_mpi_run N NAME ARGS...: c_mpi_bg, then c_mpi_wait (C_MPI_TIMEOUT, 120 s).
c_mpi_run() {
	c_mpi_bg "$@"
	c_mpi_wait "${C_MPI_TIMEOUT:-120}"
}

# c_mpi_ranks_ok LOG N: every line "rank R of N host H pid P cgroup CG" of
# mpiloop -r in LOG names a rank on its own host hR whose cgroup is hR's
# gang; N ranks.  MPI_WHY says what was wrong.
c_mpi_ranks_ok() {
	local log=$1 n=$2 r of h pid cg k want got=0
	MPI_WHY=
	while read -r _ r _ of _ h _ pid _ cg; do
		k=$r
		want=$(c_gang_dir "h$k") || { MPI_WHY="no host h$k"; return 1; }
		want=${want#"$_C_CGM"}
		[ "$of" = "$n" ] && [ "$h" = "h$k" ] && [ "$cg" = "$want" ] || {
			MPI_WHY="rank $r (pid $pid) on $h in $cg, want h$k in $want"
			return 1
		}
		got=$((got + 1))
	done < <(grep '^rank [0-9]* of ' "$log")
	[ "$got" = "$n" ] || { MPI_WHY="$got rank lines, want $n"; return 1; }
}

# ---- several users' jobs (t101, t102) ---------------------------------------
#
#   t_make_user                   # user A: T_USER (lib.sh)
#   c_make_user UB b              # user B: UB=dtsb<PID>, UB_UID, UB_ARGV
#   c_user_a                      # user A: lib.sh's t_make_user, A and UA
#   c_jobs_need                   # fail unless the t10x tests can run
#   c_exec h0 "${UB_ARGV[@]}" dts-console ...   # as B on h0
#   c_job_pids h1 "$UB" pvm spin  # B's job's members on h1 named spin
#   c_sched_watch                 # record every SCHEDULE each host gets
#   c_sched_log h1                # "TIME nslots=N JOB@START+LEN ..." lines
#
# c_make_user VAR LETTER: one more test user, dts<LETTER><PID>, in T_GROUP
# (so the harness's `users` lets it start a job); VAR = its name, VAR_UID
# its uid, VAR_ARGV the words that run a command as it (setpriv to its
# uid, gid and groups, no capabilities, PVM_ALLOW_ROOT unset).  The exit
# trap kills its processes and deletes it after c_down.
C_USERS=()
c_make_user() {
	local v=$1 u=dts$2$$ uid gid
	t_need useradd passwd
	t_need setpriv util-linux
	_t_make_group
	_c_install_trap
	id "$u" > /dev/null 2>&1 && _c_die "user $u exists already"
	useradd -M -N -d "$T_HOME" -s /bin/sh "$u" > /dev/null 2>&1 ||
	    _c_die "useradd $u failed"
	C_USERS+=("$u")
	usermod -a -G "$T_GROUP" "$u" || _c_die "cannot put $u in $T_GROUP"
	uid=$(id -u "$u") gid=$(id -g "$u")
	printf -v "$v" %s "$u"
	printf -v "${v}_UID" %s "$uid"
	eval "${v}_ARGV=(setpriv --reuid=$uid --regid=$gid --init-groups \
	    --inh-caps=-all --bounding-set=-all -- env -u PVM_ALLOW_ROOT)"
}

# c_jobs_need: fail unless what the several-jobs tests (t10x) run on is
# here: dts-console, dts-pvmjoin and hog built, and taskset; skip on one
# CPU (a host on CPU 1, the others on CPU 0).
c_jobs_need() {
	local p
	for p in console/dts-console run/dts-pvmjoin tests/tools/hog; do
		t_need_built "$p"
	done
	[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (a host on CPU 1, the others on CPU 0)"
	t_need taskset util-linux
}

# c_user_a: lib.sh's test user (t_make_user) as user A: A = its name, UA
# the words that run a command as it (as c_make_user's VAR_ARGV).
c_user_a() {
	t_make_user
	A=$T_USER
	UA=(setpriv --reuid="$T_UID" --regid="$(id -g "$A")" --init-groups
	    --inh-caps=-all --bounding-set=-all -- env -u PVM_ALLOW_ROOT)
}

_c_rm_users() {
	local u p uid
	for u in "${C_USERS[@]}"; do
		uid=$(id -u "$u" 2> /dev/null) || continue
		for p in $(ps -eo pid=,uid= | awk -v u="$uid" '$2 == u { print $1 }'); do
			chrt -a -o -p 0 "$p" > /dev/null 2>&1
			kill -CONT "$p" 2> /dev/null
			kill -KILL "$p" 2> /dev/null
		done
		userdel "$u" > /dev/null 2>&1
	done
	C_USERS=()
}

# c_job_dir K USER [LABEL]: the gang cgroup of job USER:LABEL (default pvm)
# on host K.
c_job_dir() {
	local h
	h=$(c_host "$1") || return 1
	t_job_cg "$2" "${3:-pvm}" "$h"
}

# c_job_pids K USER LABEL [COMM]: live members of that job's gang on K
# (whose command is COMM).
c_job_pids() {
	local g
	g=$(c_job_dir "$1" "$2" "$3") || return 1
	_c_members "$g" "${4:-}"
}

# c_sched_watch: on every host a sniffer (python3, a packet socket in the
# host's namespace) writes down each SCHEDULE datagram that reaches the
# host's dts port: $T_LOG/sched-hK.log, one line per datagram
# "REALTIME flags=F nslots=N JOB@START_US+LEN_US ..." (tests/tools/
# schedsniff.py).  c_down ends them.
c_sched_watch() {
	local k
	t_need python3 python3
	for k in "${!C_HOSTS[@]}"; do
		: > "$T_LOG/sched-h$k.log"
		c_bg "$k" "sniff-h$k" python3 -u "$SRC/tests/tools/schedsniff.py" "$C_PORT" \
		    "$T_LOG/sched-h$k.log"
	done
}

# c_sched_log K: the SCHEDULEs host K got (c_sched_watch)
c_sched_log() {
	local k
	k=$(c_idx "$1") || return 1
	cat "$T_LOG/sched-h$k.log"
}

# c_host_shares WANT TOL LS HOG: one host at a time, the CPU-bound tasks
# of its jobs on CPU 1 beside HOG (a local hog pinned there), every other
# host's on CPU 0 (lib.sh's t_cpu_split): each task gets WANT % of CPU 1
# within TOL points; the hog, by its own CPU time, at least LS - TOL
# points (it shares the LS with the hosts' dts and pvmds: 2 points here);
# and no process of the host's jobs, listed or not (every one in
# its dts's jobs/), runs in the LS: all of them together get at most
# 100 - LS + 1 points.  The tasks: C_SPIN[K] = "JOB=PID ..." for each host
# index K.  A miss is measured once more.  Each host's figures are
# logged; C_MAXDEV = the largest |share - WANT|.
declare -A C_SPIN
c_host_shares() {
	local want=$1 tol=$2 ls=$3 hog=$4 k j w try line ok
	local -a on names off
	C_MAXDEV=0
	for ((k = 0; k < C_N; k++)); do
		on=() names=() off=()
		for w in ${C_SPIN[$k]:-}; do names+=("${w%=*}") on+=("${w##*=}"); done
		for ((j = 0; j < C_N; j++)); do
			[ "$j" = "$k" ] && continue
			for w in ${C_SPIN[$j]:-}; do off+=("${w##*=}"); done
		done
		[ "${#on[@]}" -gt 0 ] || continue
		for w in "${on[@]}"; do taskset -a -p -c 1 "$w" > /dev/null || _c_die "cannot pin $w to CPU 1"; done
		for w in "${off[@]}"; do taskset -a -p -c 0 "$w" > /dev/null || _c_die "cannot pin $w to CPU 0"; done
		for try in 1 2; do
			t_sleep 0.5
			t_cpu_split 1 4 "$hog" "$(c_cg_dir "$k")/jobs" "${on[@]}" || _c_die "a task of h$k ended"
			line="h$k:"
			ok=1
			for j in "${!on[@]}"; do
				line="$line ${names[j]} ${T_SH[j]}%,"
				awk -v s="${T_SH[j]}" -v w="$want" -v t="$tol" 'BEGIN { exit !(s >= w - t && s <= w + t) }' || ok=0
			done
			line="$line all of h$k's jobs $T_SH_GANG%, hog $T_SH_HOG%, other local work $T_SH_OTHER% (load $(cut -d' ' -f1 /proc/loadavg))"
			# the owner's: the hog's own time, and other local work
			# beside the test (a build, stress-ng), which the LS
			# serves too; every job's time, from their cgroups
			awk -v h="$T_SH_HOG" -v o="$T_SH_OTHER" -v g="$T_SH_GANG" -v l="$ls" -v t="$tol" 'BEGIN { exit !(h + o >= l - t && g <= 100 - l + 1) }' || ok=0
			[ "$ok" = 1 ] && break
			[ "$try" = 2 ] && t_fail "shares of CPU 1: want $want% each (within $tol), the hog and other local work >= $((ls - tol))% (LS $ls - $tol), all of h$k's jobs <= $((100 - ls + 1))%: $line; other sessions' real-time processes: $(t_foreign_rt $$ $(_c_all_pids))"
			t_log "$line: measuring once more"
		done
		t_log "$line"
		for j in "${!on[@]}"; do
			C_MAXDEV=$(awk -v s="${T_SH[j]}" -v w="$want" -v m="$C_MAXDEV" \
			    'BEGIN { d = s - w; if (d < 0) d = -d; printf "%.1f", (d > m ? d : m) }')
		done
	done
}

# The cluster's operator: root's `dts-console -n --daemon` with the
# console key (C_FT_CONF), driving the hosts of a host file.
#   c_op_start "mode static; ip 100ms; ps 80%; si 1s; start"
#                      # C_OP_PID: the background console
#   c_op "jobs"        # a console with the same keys, not started, asks;
#                      # output in C_FT_OUT
#   c_op_status        # "hK JOB,JOB" per node (its STATUS's jobs, sorted)
#   c_op_jobs          # "rows N", "row R START_US LEN_US JOB,..." and
#                      # "node hK JOB,..." (jobs --json)
C_OP_PID=
c_op_start() {
	local k
	for ((k = 0; k < C_N; k++)); do echo "h$k"; done > "$T_DIR/op-hosts"
	c_ft_write_conf || return 1
	c_ft_con -n --daemon -c "hosts $T_DIR/op-hosts; $1" || return 1
	C_OP_PID=$(sed -n 's/^dts-console: running in the background, pid \([0-9][0-9]*\)$/\1/p' \
	    <<< "$C_FT_OUT")
	[ -n "$C_OP_PID" ] || return 1
	t_track "$C_OP_PID"
	cat > "$T_DIR/bin/opsum.py" <<-'EOP'
	import json, sys
	t = sys.stdin.read()
	d = json.loads(t if t.startswith("{") else t[t.index("\n{") + 1:])
	if sys.argv[1] == "status":
	    for n in d["nodes"]:
	        print(n.get("host"), ",".join(sorted(j["job"] for j in n.get("jobs") or [])) or "-")
	else:
	    print("rows", len(d["rows"]))
	    for r in d["rows"]:
	        print("row", r["row"], r["start_us"], r["len_us"], ",".join(sorted(r["jobs"])))
	    for n in d["nodes"]:
	        print("node", n["host"], ",".join(sorted(j["job"] for j in n["jobs"])))
	EOP
}
c_op() { c_ft_con -n -c "hosts $T_DIR/op-hosts; $1"; }
c_op_status() { c_op "status --json" > /dev/null; python3 "$T_DIR/bin/opsum.py" status <<< "$C_FT_OUT"; }
c_op_jobs() { c_op "jobs --json" > /dev/null; python3 "$T_DIR/bin/opsum.py" jobs <<< "$C_FT_OUT"; }

# c_master1 WHO ARGV...: pvm-examples' master1, run on h0 by ARGV (a user's
# setpriv line, or nothing), spawns 3 workers a host and checks every
# result (c_master1_check); fails the test otherwise.  WHO names the run
# in its messages ("" for none).
c_master1() {
	local who=$1 out
	shift
	out=$(c_exec h0 "$@" timeout 120 master1 2>&1) || t_fail "${who}master1 failed: $out"
	c_master1_check "$who" "$out"
}

# c_master1_check WHO OUT: master1's output OUT says it spawned 3 slaves a
# host, and every slave's result ("I got 700.000000 from 4; (expecting
# 700.000000)", one line each) is the one expected.
c_master1_check() {
	local want=$((3 * C_N)) got
	grep -q "^Spawning $want worker tasks ... SUCCESSFUL" <<< "$2" ||
	    t_fail "${1}master1 did not spawn $want slaves: $(head -n 3 <<< "$2")"
	got=$(awk '/^I got / { gsub(/[;()]/, ""); n++; if ($3 == $7) ok++ }
	    END { printf "%d %d\n", n, ok }' <<< "$2")
	[ "$got" = "$want $want" ] ||
	    t_fail "${1}master1: got/right results '$got', want $want: $(paste -sd'|' <<< "$2")"
}

# c_two_rows JOB1 JOB2: both jobs in every host's STATUS (c_op_status), in
# two rows of 40 ms each in the operator's matrix (c_op_jobs), and in the
# last table every host got (c_sched_watch).  C_S and C_J: the last status
# and jobs that listed both, for the caller's messages.  For t_wait_for.
C_S='' C_J=''
c_two_rows() {
	local s j k t
	s=$(c_op_status) && j=$(c_op_jobs) || return 1
	for ((k = 0; k < C_N; k++)); do
		grep -qx "h$k $(printf '%s\n' "$1" "$2" | sort | paste -sd,)" <<< "$s" || return 1
	done
	C_J=$j C_S=$s
	grep -qx "rows 2" <<< "$j" || return 1
	grep -qE "^row [01] (0|40000) 40000 $1$" <<< "$j" &&
	    grep -qE "^row [01] (0|40000) 40000 $2$" <<< "$j" || return 1
	for ((k = 0; k < C_N; k++)); do
		t=$(tail -n 1 "$T_LOG/sched-h$k.log")
		grep -q "nslots=2 " <<< "$t" || return 1
		grep -qE "(^| )$1@(0|40000)\+40000( |$)" <<< "$t" || return 1
		grep -qE "(^| )$2@(0|40000)\+40000( |$)" <<< "$t" || return 1
	done
}
