# cluster.sh - a real multi-host PVM virtual machine on one box, every pvmd
# under dts, for the DTS system tests (bash; source it after lib.sh).
#
#   . "$(dirname "$0")/lib.sh"
#   . "$SRC/tests/cluster/cluster.sh"
#   t_setup my-test
#   C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "80%";'   # optional
#   c_up 3                     # h0 h1 h2; master pvmd under dts on h0
#   c_exec h0 master1          # any command "on" a host
#   c_pvm h0 spawn -w h2 spin 10
#   c_status h1 mode           # STATUS of h1's dts, over the network
#   ... t_pass                 # c_down runs from the EXIT trap
#
# Layout (per run; nothing in the root network namespace, nothing in /etc):
#   netns ${C_PREFIX}br   bridge br0 and one veth end per host (hK)
#   netns ${C_PREFIX}hK   eth0 = $C_NET.(10+K)/24, broadcast $C_BCAST
#   Every command "on" host hK runs through
#     nsenter --net=/run/netns/${C_PREFIX}hK -- unshare --mount
#         --propagation slave --uts -- $T_DIR/bin/hinner hK CMD
#   (like `ip netns exec NS unshare --uts`, but /sys stays the real one, so
#   the cgroup2 hierarchy that dts's freezer backend needs is visible; a
#   slave mount namespace, so `ip netns del` elsewhere still propagates).
#   hinner sets the hostname hK, bind-mounts $T_DIR/hosts over /etc/hosts
#   (only inside that private mount namespace), and sets
#   HOME=$T_DIR/hK/home, PVM_TMP=$T_DIR/hK/tmp, PVM_ROOT, PVM_ALLOW_ROOT=1,
#   PVM_RSH=$T_DIR/bin/rsh and PATH ($BUILD/tests/pvm, $BUILD/tests/tools,
#   $T_DIR/bin first).  The rest of the environment is passed on (so
#   ASAN_OPTIONS and the like reach every host), minus PVM_VMID,
#   PVM_DPATH, PVM_EXPORT, PVMSOCK, PVMEPID, DTS_CONF.
#
# The rsh shim.  The master pvmd runs under dts without any capability
# (dts drops them all for the gang and locks SECBIT_NOROOT), so the
# program PVM_RSH names cannot enter a namespace itself.  The shim hands
# the request to a broker ($T_DIR/bin/rshd, one bash process in the bridge
# namespace, started by c_up with full root): the broker opens the shim's
# stdin/stdout/stderr through /proc/PID/fd (pvmd's pipes), answers "ok",
# and execs `setsid nsenter ... hinner HOST sh -c "cd $HOME && exec
# CMDSTRING"` (the same chain as c_exec; a CMDSTRING with shell syntax in
# it runs as a script instead of exec) with those pipes as fds 0-2.  So
# the slave's launcher gets pvmd's pipes unchanged (the exec chain has no
# fork), as with a real rsh.  The shim exits 0 as soon as the command was
# started; it does not wait for the command (pvmd never does) and does
# not return its status.  It is made for pvmd: to run something on a host,
# tests use c_exec.  (Output the shim would write to a regular file is
# appended to its end.)
#
# Files: $T_DIR/hosts, $T_DIR/hostfile (`* dx=$C_LAUNCHER ep=...` plus one
# line per host), $T_DIR/dts.key, $T_DIR/hK/dts.conf, $T_DIR/bin/{hinner,
# rsh,rshd,pvmd-dts}; logs $T_LOG/dts-hK.log (dts), $T_LOG/master.out
# (master pvmd's stdout), $T_LOG/rshd.log, $T_DIR/hK/tmp/pvml.0 (pvmd).
#
# Functions:
#   c_up N [--no-dts]       network, files, broker; then c_start_master and
#                           c_wait_hosts N (unless --no-dts)
#   c_start_master          dts -f h0/dts.conf -- hostfile on h0, in the
#                           background; waits for pvmd's socket line (old
#                           pvml.* of hosts without a pvmd are moved aside:
#                           pvmd logs nothing if its log file exists)
#   c_wait_hosts N [SECS]   dts-pvmctl wait N SECS on h0 (default 60)
#   c_exec K CMD...         run CMD on host K (hK, K or the netns name)
#   c_bg K NAME CMD...      c_exec in the background, output to
#                           $T_LOG/NAME.log; sets C_BG_PID (the process
#                           itself) and tracks it
#   c_pvm K ARGS...         dts-pvmctl on host K
#   c_send K ARGS...        sendgram (key, port, K's address) run on h0
#   c_status K [FIELD]      STATUS of K's dts as key=value lines, or one value
#   c_pids K                every live PID in K's namespace
#   c_dts_pid K, c_pvmd_pid K, c_agent_pid K     dts, its pvmd, its dts-load
#   c_gang_pids K [COMM]    members of K's gang (pvmd's process group)
#   c_host K / c_idx K / c_ns K / c_addr K       name / index / netns / IP
#   c_dump_logs             tail of every host's pvmd log (stderr)
#   c_down                  tear everything down (idempotent; EXIT trap);
#                           1 if a process or namespace could not be removed
#
# Variables: C_N, C_HOSTS (h0..), C_ADDR, C_NS, C_BR, C_NET (a.b.c),
# C_BCAST, C_PORT (default 7746: every host has its own port space),
# C_PREFIX (default "dc$$-"), C_KEY, C_HOSTFILE, C_LAUNCHER, C_RSH,
# C_MASTER_PID (dts on h0, our child), C_UP_S / C_DOWN_S (seconds taken).
# C_CONF_EXTRA (all hosts) and C_CONF_EXTRA_K (host K only) are dts.conf
# lines appended to each host's file; a key given there replaces the
# harness's own line for it (key_file, log_file, log_level, load_agent,
# pvmd; for the port set C_PORT instead, c_send uses it).  Set them
# before c_up, or call _c_write_conf K (a running dts keeps its config).
#
# Teardown (c_down, also from the EXIT trap, which runs before lib.sh's
# t_cleanup): SIGCONT and SCHED_OTHER for every process in our
# namespaces, `dts-pvmctl -T 5 halt` on h0, TERM then KILL whatever is
# still in our namespaces (PIDs from `ip netns pids`, nothing else),
# `ip netns del` of every namespace, rmdir of the (empty) freezer cgroups
# of our dts processes that dts left (backend = "freezer"; frozen ones are
# thawed first), and rm -rf $T_DIR unless KEEP=1.
# INT/TERM/HUP are ignored while it runs; a kill -9 of the test shell
# leaves the namespaces behind (names start with dc<PID>-).

C_PREFIX=${C_PREFIX:-dc$$-}
C_PORT=${C_PORT:-7746}
C_NET=${C_NET:-10.$((200 + $$ % 50)).$(($$ / 50 % 250))}
C_BCAST=$C_NET.255
C_BR=${C_PREFIX}br
C_N=0
C_HOSTS=()
C_ADDR=()
C_NS=()
C_KEY=
C_HOSTFILE=
C_LAUNCHER=
C_RSH=
C_MASTER_PID=
C_UP_S=
C_DOWN_S=
C_CONF_EXTRA=${C_CONF_EXTRA:-}
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

# _c_cmd ARRAY K: the argv prefix that runs a command on host K.
_c_cmd() {
	local -n _out=$1
	local k
	k=$(c_idx "$2") || return 2
	_out=(nsenter "--net=/run/netns/${C_NS[$k]}" -- unshare --mount \
	    --propagation slave --uts -- "$T_DIR/bin/hinner" "${C_HOSTS[$k]}")
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
	c_exec h0 "$BUILD/tests/tools/sendgram" -k "$C_KEY" -a "$a" \
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

c_dts_pid() {
	local p
	for p in $(c_pids "$1"); do
		[ "$(_c_comm "$p")" = dts ] && { echo "$p"; return 0; }
	done
	return 1
}

# The pvmd that K's dts runs: a child of dts (the master directly; a
# slave's daemon after its fork, dts being a child subreaper).
_c_child_of() {
	local k=$1 comm=$2 d p
	d=$(c_dts_pid "$k") || return 1
	for p in $(c_pids "$k"); do
		[ "$(_c_comm "$p")" = "$comm" ] && [ "$(_c_ppid "$p")" = "$d" ] &&
		    { echo "$p"; return 0; }
	done
	return 1
}

c_pvmd_pid() { _c_child_of "$1" pvmd; }
c_agent_pid() { _c_child_of "$1" dts-load; }

# c_gang_pids K [COMM]: live members of the process group of K's pvmd.
c_gang_pids() {
	local pv g p
	pv=$(c_pvmd_pid "$1") || return 1
	g=$(_c_pgid "$pv") || return 1
	for p in $(c_pids "$1"); do
		[ "$(_c_pgid "$p")" = "$g" ] || continue
		[ -z "${2:-}" ] || [ "$(_c_comm "$p")" = "$2" ] || continue
		echo "$p"
	done
}

# ---- files ----------------------------------------------------------------

# _c_write_conf K: $T_DIR/hK/dts.conf from the harness defaults plus
# C_CONF_EXTRA and C_CONF_EXTRA_K (whose keys replace the defaults).
_c_write_conf() {
	local k=$1 h=${C_HOSTS[$1]} key extra var
	var=C_CONF_EXTRA_$k
	extra=$(printf '%s\n%s\n' "$C_CONF_EXTRA" "${!var:-}" | tr ';' '\n')
	local -A def=(
		[port]=$C_PORT
		[key_file]="\"$C_KEY\""
		[log_file]="\"$T_LOG/dts-$h.log\""
		[log_level]='"debug"'
		[load_agent]="\"$BUILD/load/dts-load\""
		[pvmd]='"/usr/bin/pvmd"'
	)
	{
		echo "# dts.conf of $h (tests/cluster/cluster.sh)"
		for key in port key_file log_file log_level load_agent pvmd; do
			grep -qE "^[[:space:]]*${key}[[:space:]]*[=:]" <<< "$extra" ||
			    printf '%s = %s;\n' "$key" "${def[$key]}"
		done
		if [ -n "$C_CONF_EXTRA" ]; then printf '%s\n' "$C_CONF_EXTRA"; fi
		if [ -n "${!var:-}" ]; then printf '%s\n' "${!var}"; fi
	} > "$T_DIR/$h/dts.conf"
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
	C_KEY=$T_DIR/dts.key
	[ -f "$C_KEY" ] || t_keygen "$C_KEY" || return 1
	for k in "${!C_HOSTS[@]}"; do
		mkdir -p "$T_DIR/${C_HOSTS[$k]}/tmp" "$T_DIR/${C_HOSTS[$k]}/home" ||
		    return 1
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
	export HOME="$T_DIR/\$h/home" PVM_TMP="$T_DIR/\$h/tmp"
	export PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1 PVM_RSH="$b/rsh"
	export PATH="$BUILD/tests/pvm:$BUILD/tests/tools:$b:\$PATH"
	export C_HOST="\$h"
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
				    "$hinner" "${name[$host]}" /bin/sh -c "$script"
			) &
		done
		EOF
	} > "$b/rshd"

	# pvmd-dts: the launch path (dx=) of every slave pvmd.
	cat > "$b/pvmd-dts" <<-EOF
	#!/bin/sh
	# dx= launcher of cluster $C_PREFIX: every slave pvmd runs under dts.
	exec "$BUILD/dts/dts" -f "$T_DIR/\$(hostname)/dts.conf" -- "\$@"
	EOF
	chmod 755 "$b/hinner" "$b/rsh" "$b/rshd" "$b/pvmd-dts"
	mkdir -p "$T_DIR/run" && chmod 700 "$T_DIR/run" &&
	    mkfifo -m 600 "$T_DIR/run/rshd.fifo"
}

# ---- network --------------------------------------------------------------

_c_net_up() {
	local k ns h
	ip netns add "$C_BR" || return 1
	ip -n "$C_BR" link set lo up &&
	    ip -n "$C_BR" link add br0 type bridge &&
	    ip -n "$C_BR" link set br0 up || return 1
	for k in "${!C_HOSTS[@]}"; do
		ns=${C_NS[$k]} h=${C_HOSTS[$k]}
		ip netns add "$ns" || return 1
		# both ends are born in our namespaces: nothing in the root netns
		ip -n "$C_BR" link add "$h" type veth peer name eth0 netns "$ns" &&
		    ip -n "$C_BR" link set "$h" master br0 &&
		    ip -n "$C_BR" link set "$h" up &&
		    ip -n "$ns" link set lo up &&
		    ip -n "$ns" addr add "${C_ADDR[$k]}/24" brd "$C_BCAST" dev eth0 &&
		    ip -n "$ns" link set eth0 up || return 1
	done
}

# ---- bring-up -------------------------------------------------------------

_c_rc() { return "$1"; }

_c_on_exit() {
	local rc=$?
	case $rc in 0 | 77) ;; *) [ "$_C_ACTIVE" = 1 ] && c_dump_logs ;; esac
	c_down
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

_c_now() { echo "${EPOCHREALTIME/[.,]/}"; }
_c_secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", (b - a) / 1e6 }'; }

_c_need() {
	[ "$(id -u)" = 0 ] || t_skip "needs root (network namespaces)"
	local t
	for t in ip nsenter unshare setsid mkfifo hostname mount chrt; do
		command -v "$t" > /dev/null || t_skip "needs $t"
	done
	[ -x /usr/bin/pvmd ] || t_skip "needs pvm (/usr/bin/pvmd)"
	for t in dts/dts load/dts-load tests/pvm/dts-pvmctl tests/tools/sendgram; do
		[ -x "$BUILD/$t" ] || t_skip "not built: $BUILD/$t"
	done
	[ -n "${T_DIR:-}" ] || _c_die "call t_setup before c_up"
	# a c_down earlier in this test removed the run dir: make it again
	mkdir -p "$T_TMP" "$T_HOME" "$T_LOG" || _c_die "cannot make $T_DIR"
}

# c_up N [--no-dts]
c_up() {
	local n=${1:-} nodts=0 k t0
	[ "${2:-}" = --no-dts ] && nodts=1
	case $n in '' | *[!0-9]*) _c_die "c_up N: bad N '$n'" ;; esac
	[ "$n" -ge 1 ] && [ "$n" -le 64 ] || _c_die "c_up: N must be 1..64"
	[ "$_C_ACTIVE" = 0 ] || _c_die "c_up: a cluster is already up"
	_c_need
	t0=$(_c_now)
	_c_install_trap
	C_N=$n C_HOSTS=() C_ADDR=() C_NS=()
	for ((k = 0; k < n; k++)); do
		C_HOSTS+=("h$k")
		C_ADDR+=("$C_NET.$((10 + k))")
		C_NS+=("${C_PREFIX}h$k")
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
	if [ "$nodts" = 0 ]; then
		c_start_master
		c_wait_hosts "$n" 60 || _c_die "the VM did not reach $n hosts"
	fi
	C_UP_S=$(_c_secs "$t0" "$(_c_now)")
	_c_log "up in ${C_UP_S} s"
}

# c_start_master: dts with the master pvmd on h0, reading the host file.
# pvmd prints its socket path on stdout ($T_LOG/master.out).
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
	"${_c[@]}" env -C "$T_DIR/h0/home" setsid "$BUILD/dts/dts" \
	    -f "$T_DIR/h0/dts.conf" -- "$C_HOSTFILE" \
	    > "$T_LOG/master.out" 2> "$T_LOG/master.err" &
	C_MASTER_PID=$!
	t_track "$C_MASTER_PID"
	t_wait_for 30 _c_master_ready ||
	    _c_die "no master pvmd under dts on h0 (see master.err, dts-h0.log)"
	kill -0 "$C_MASTER_PID" 2>/dev/null || _c_die "dts on h0 exited"
}

_c_master_ready() {
	grep -q pvmtmp "$T_LOG/master.out" && return 0
	kill -0 "$C_MASTER_PID" 2>/dev/null || _c_die "dts on h0 exited early"
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

# The cgroup2 mount point ("" if none).
_c_cg2() {
	awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts
}

# Thaw the freezer cgroup (backend = "freezer": <cgroup2>/dts/<dts pid>,
# or /dts.<dts pid> in older builds) of every process of ours, and
# remember it for _c_rm_cgroups.
_C_CGROUPS=()
_c_thaw() {
	local mnt p cg d
	mnt=$(_c_cg2)
	[ -n "$mnt" ] || return 0
	for p in $(_c_all_pids); do
		if [ "$(_c_comm "$p")" = dts ]; then
			for d in "$mnt/dts/$p" "$mnt/dts.$p"; do
				[ -d "$d" ] && _C_CGROUPS+=("$d")
			done
		fi
		cg=$(sed -n 's/^0:://p' "/proc/$p/cgroup" 2>/dev/null)
		case $cg in /dts/[0-9]* | /dts.[0-9]*) ;; *) continue ;; esac
		[ "$(cat "$mnt$cg/cgroup.freeze" 2>/dev/null)" = 1 ] &&
		    echo 0 > "$mnt$cg/cgroup.freeze" 2>/dev/null
		_C_CGROUPS+=("$mnt$cg")
	done
}

# Remove the gang cgroups of our (now gone) dts processes, if dts could
# not: those seen by _c_thaw, and those of every dts that wrote to our
# logs (one that ended before c_down).  rmdir removes only empty ones.
_c_rm_cgroups() {
	local d p mnt
	mnt=$(_c_cg2)
	if [ -n "$mnt" ] && [ -d "${T_LOG:-/nonexistent}" ]; then
		for p in $(cat "$T_LOG"/dts-*.log 2>/dev/null |
		    sed -n 's/.* dts\[\([0-9][0-9]*\)\] .*/\1/p' | sort -u); do
			_C_CGROUPS+=("$mnt/dts/$p" "$mnt/dts.$p")
		done
	fi
	for d in "${_C_CGROUPS[@]}"; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	_C_CGROUPS=()
}

# Continue every process of ours and put it back to SCHED_OTHER.
_c_release() {
	local p
	_c_thaw
	for p in $(_c_all_pids); do
		kill -CONT "$p" 2>/dev/null
		chrt -a -o -p 0 "$p" > /dev/null 2>&1
	done
}

# _c_wait_empty SECONDS: until no process is left in our namespaces.
_c_wait_empty() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		[ -z "$(_c_all_pids)" ] && return 0
		sleep 0.1
	done
	[ -z "$(_c_all_pids)" ]
}

# _c_daemon_on K COMM: is a process named COMM running on host K?
_c_daemon_on() {
	local p
	for p in $(_c_ns_pids "${C_NS[$1]}"); do
		[ "$(_c_comm "$p")" = "$2" ] && return 0
	done
	return 1
}

# PIDs of dts, pvmd and dts-load in our host namespaces.
_c_daemons() {
	local ns p
	for ns in "${C_NS[@]}"; do
		for p in $(_c_ns_pids "$ns"); do
			case $(_c_comm "$p") in dts | pvmd | dts-load) echo "$p" ;; esac
		done
	done
}

_c_signal_all() {
	local p
	for p in $(_c_all_pids); do
		kill -CONT "$p" 2>/dev/null
		kill "-$1" "$p" 2>/dev/null
	done
}

c_down() {
	local t0 ns left p saved bad=0
	[ "$_C_ACTIVE" = 1 ] || return 0
	saved=$(trap -p INT TERM HUP)
	trap '' INT TERM HUP
	t0=$(_c_now)
	_c_release
	if [ -n "$(ip netns pids "${C_NS[0]}" 2>/dev/null)" ] &&
	    [ -x "$T_DIR/bin/hinner" ]; then
		local -a _c
		_c_cmd _c h0 &&
		    timeout -k 1 10 "${_c[@]}" "$BUILD/tests/pvm/dts-pvmctl" -T 5 halt \
		    > /dev/null 2>&1
		# dts exits once its pvmd is gone; keep the gangs running meanwhile
		for ((p = 0; p < 30; p++)); do
			[ -z "$(_c_daemons)" ] && break
			_c_release
			sleep 0.1
		done
	fi
	_c_release
	_c_signal_all TERM
	_c_wait_empty 2 || { _c_thaw; _c_signal_all KILL; _c_wait_empty 5; }
	_c_rm_cgroups
	left=$(_c_all_pids | tr '\n' ' ')
	[ -z "$left" ] || { _c_log "WARNING: still running in our namespaces: $left"; bad=1; }
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
#   c_up 3 --no-dts
#   c_start_console_master      # dts-console on h0 starts dts + master pvmd
#   c_sc_add 3                  # `add h1 h2` from the console; wait for 3 hosts
#   c_sc_console "mode static; start; status"    # one dts-console -c run
#   c_sc_open                   # a console that stays, reading commands
#   c_sc_cmd "load"             # one command in it; output in C_SC_OUT
#   c_sc_close                  # end of its input: it exits (nodes keep
#                               # their last schedule)
#
# The console reads $T_DIR/h0/console.conf (C_SC_CONF): h0's dts.conf and,
# unless that already has a console group, one with console.dts = our
# dts, console.launcher = $C_LAUNCHER, console.pvm_tmp = h0's PVM_TMP,
# history "" and the keys in C_SC_CONSOLE_EXTRA ('timeout = "2s";').
# The dts it starts (C_MASTER_PID; not our child) reads the same file.
# Output of every console run goes to files, never to a pipe: the dts the
# console starts inherits its stderr and keeps it open.
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
		    dts = "$BUILD/dts/dts";
		    launcher = "$C_LAUNCHER";
		    pvm_tmp = "$T_DIR/h0/tmp";
		    history = "";
		    $C_SC_CONSOLE_EXTRA
		};
		EOC
	} > "$C_SC_CONF"
}

# c_start_console_master: after c_up N --no-dts, `dts-console -f
# console.conf -c conf` on h0: the console finds no pvmd for h0's PVM_TMP
# and starts dts, which starts the master pvmd (PVM_DPATH = the launcher).
c_start_console_master() {
	local k f
	[ -n "$C_LAUNCHER" ] || _c_die "c_start_console_master: c_up first"
	_c_daemon_on 0 pvmd && _c_die "c_start_console_master: h0 runs a pvmd"
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
	grep -q "started the master pvmd under $BUILD/dts/dts" <<< "$C_SC_ERR" ||
	    _c_die "the console did not start the master: $C_SC_ERR"
	C_MASTER_PID=$(c_dts_pid h0) || _c_die "no dts on h0 after the console"
	c_pvmd_pid h0 > /dev/null || _c_die "no pvmd under dts $C_MASTER_PID on h0"
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
# notices, such as balanced's new PS) in $T_LOG/console.err.
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
	"${_c[@]}" "$BUILD/console/dts-console" -f "$C_SC_CONF" < "$fifo" \
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
#   c_up 3 --no-dts
#   c_ft_con -c "conf; add h1 h2"     # dts-console on h0: it starts dts,
#                                     # which starts the master pvmd
#   c_ft_con_daemon "mode static; ip 1s; ps 20%; start"   # C_FT_CON_PID
#   c_ft_con -n -c "status -v"; c_ft_con_rej h1   # h1's rejected datagrams
#   c_ft_rej h1                       # the same from h1's own STATUS
#   c_ft_daemons h2                   # dts, pvmd, dts-load left on h2
#   c_ft_leftovers h2                 # stopped or real-time processes on h2
#
# The console reads $T_DIR/h0/console.conf (C_FT_CONF, written by
# c_ft_write_conf on first use): h0's dts.conf plus a console group with
# console.dts = our dts, console.launcher = $C_LAUNCHER, console.pvm_tmp
# = h0's PVM_TMP, no history, status_wait $C_FT_STATUS_WAIT (500ms) and
# the keys in C_FT_CONSOLE_EXTRA.  The dts the console starts reads the
# same file.  Console output always goes to files, never to a pipe: that
# dts inherits the console's stderr and keeps it open.
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
		sub(/^ +rejected: */, ""); gsub(/,/, "")
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
# namespace that is stopped (T, t) or real-time (FF, RR); nothing if none.
c_ft_leftovers() {
	local p s c out=
	for p in $(c_pids "$1"); do
		s=$(t_proc_state "$p") || continue
		[ "$s" = Z ] && continue
		c=$(t_policy "$p")
		case "$s:$c" in
		T:* | t:* | *:FF | *:RR) out="$out $p:$(_c_comm "$p"):$s:$c" ;;
		esac
	done
	echo "${out# }"
}
