#!/bin/bash
# bench-soak.sh BUILD OUTDIR [--quick] - an hour of slicing (issue 23, row
# 10): do dts, dts-load and the master keep their memory and descriptors,
# and do overruns stay as rare as at the start?
#
# 3 hosts (tests/system/cluster.sh), STATIC at IP 10 ms, the VM's pvmd in
# each host's gang.  The master is one dts-console that stays open
# (c_sc_open): `start`, then at every SI (1 s) the next command of
# SOAK_CMDS, so that the schedule changes every SI (PS, then mode).
# Every SAMPLE_S: VmRSS and open descriptors of each host's dts and
# dts-load and of the console, and each host's overruns (STATUS).
# Full: 3600 s, samples every 30 s, the first 5 minutes as the baseline;
# --quick: 60 s, every 5 s, the first 20 s (CI: it still runs, and 40
# schedule changes after the baseline leak no descriptor).
#
# Goal: each process's RSS and descriptors at the end within 5 % of its
# mean over the baseline; overruns in the last baseline-long window no
# more than in the baseline window (+1).
# Writes OUTDIR/soak-raw.csv (t_s,host,proc,pid,rss_kib,fds,overruns),
# OUTDIR/soak.csv (host,proc,rss_base,rss_end,rss_pct,fds_base,fds_end,
# overruns_base,overruns_end,met) and OUTDIR/soak.md.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
b_init soak "$@"
. "$SRC/tests/system/cluster.sh"

if [ "$B_QUICK" = 1 ]; then
	RUN_S=60 SAMPLE_S=5 BASE_S=20
else
	RUN_S=${SOAK_S:-3600} SAMPLE_S=30 BASE_S=300
fi
SOAK_CMDS=("ps 40%" "ps 60%" "mode balanced" "mode static")
RAW=$B_OUT/soak-raw.csv
CSV=$B_OUT/soak.csv
echo "t_s,host,proc,pid,rss_kib,fds,overruns" > "$RAW"

C_CONF_EXTRA='mode = "static"; ip = "10ms"; ps = "50%"; si = "1s"; silence = "10s";'
c_up 3
t_log "cluster of 3 up in ${C_UP_S} s"
c_sc_open
c_sc_cmd "start" || t_fail "console start: $C_SC_ERR"

# the console itself (C_SC_PID is the first of its exec chain)
con_pid() {
	local p=$C_SC_PID c
	for _ in 1 2 3 4 5; do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = dts-console ] && { echo "$p"; return 0; }
		c=$(cat "/proc/$p/task/$p/children" 2>/dev/null) || return 1
		p=${c%% *}
		[ -n "$p" ] || return 1
	done
	return 1
}
CON=$(con_pid) || t_fail "no dts-console process under $C_SC_PID"

# sample T: one line per process
sample() {
	local t=$1 k h p proc rss fds ovr
	for k in 0 1 2; do
		h=h$k
		ovr=$(c_status "$h" overruns) || ovr=
		for proc in dts dts-load; do
			if [ "$proc" = dts ]; then p=$(c_dts_pid "$h"); else p=$(c_agent_pid "$h"); fi
			[ -n "$p" ] || t_fail "$h: no $proc at ${t} s"
			rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$p/status")
			fds=$(ls "/proc/$p/fd" | wc -l)
			# the host's overruns on its dts's line only
			echo "$t,$h,$proc,$p,$rss,$fds,$([ "$proc" = dts ] && echo "$ovr")" >> "$RAW"
		done
	done
	kill -0 "$CON" 2>/dev/null || t_fail "the console ended at ${t} s"
	rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$CON/status")
	fds=$(ls "/proc/$CON/fd" | wc -l)
	echo "$t,h0,dts-console,$CON,$rss,$fds," >> "$RAW"
}

t0=$(_t_now_us)
next_sample=0 i=0
while :; do
	el=$((($(_t_now_us) - t0) / 1000000))
	[ "$el" -gt "$RUN_S" ] && break
	if [ "$el" -ge "$next_sample" ]; then
		sample "$el"
		next_sample=$((next_sample + SAMPLE_S))
	fi
	c_sc_cmd "${SOAK_CMDS[i % ${#SOAK_CMDS[@]}]}" ||
	    t_fail "console: ${SOAK_CMDS[i % ${#SOAK_CMDS[@]}]}: $C_SC_ERR"
	i=$((i + 1))
	# the next SI: one second after the last command's start
	sleep "$(awk -v t0="$t0" -v i="$i" -v now="$(_t_now_us)" 'BEGIN { d = (t0 + i * 1e6 - now) / 1e6; print (d > 0) ? d : 0 }')"
done
sample "$el"
c_sc_cmd stop || t_fail "console stop: $C_SC_ERR"
c_sc_close || t_fail "the console did not end well ($C_SC_RC)"
t_log "$i schedule changes in $el s"

# the summary: baseline = samples with t < BASE_S; end = the last sample;
# overruns: growth over the baseline window against over the last window
echo "host,proc,rss_base,rss_end,rss_pct,fds_base,fds_end,overruns_base,overruns_end,met" > "$CSV"
awk -F, -v base="$BASE_S" -v last="$el" '
NR == 1 { next }
{
	id = $2 "," $3
	if (!(id in seen)) { seen[id] = 1; ids[++n] = id }
	if ($1 < base) { rs[id] += $5; fs[id] += $6; nb[id]++ }
	rend[id] = $5; fend[id] = $6
	if ($7 != "") {
		if (!(id in o0)) { o0[id] = $7; t0[id] = $1 }
		if ($1 <= t0[id] + base) ob[id] = $7
		if ($1 >= last - base && !(id in ol0)) ol0[id] = $7
		oend[id] = $7
	}
}
END {
	for (k = 1; k <= n; k++) {
		id = ids[k]
		rb = rs[id] / nb[id]; fb = fs[id] / nb[id]
		pct = (rend[id] - rb) * 100 / rb
		# descriptors growing: a leak, a fact (FAIL); RSS past 5 % and
		# overruns growing: MISSED
		v = "met"
		if (pct > 5 || pct < -5) v = "MISSED"
		if (id in o0) {
			obase = ob[id] - o0[id]; olast = oend[id] - ol0[id]
			if (olast > obase + 1) v = "MISSED"
		} else { obase = ""; olast = "" }
		if (fend[id] > fb * 1.05 || fend[id] < fb * 0.95) v = "FAIL"
		printf "%s,%.0f,%d,%.1f,%.1f,%d,%s,%s,%s\n", id, rb, rend[id], pct, fb, fend[id], obase, olast, v
	}
}' "$RAW" >> "$CSV"
[ "$(wc -l < "$CSV")" -gt 1 ] || t_fail "no sample (soak-raw.csv)"
while IFS=, read -r h p _ _ _ _ _ _ _ v; do
	case $v in
	met) ;;
	FAIL) b_goal fact "$h-$p-fds" 0 ;;
	*) b_goal speed "$h-$p" 0 ;;
	esac
done < <(tail -n +2 "$CSV")

MD=$B_OUT/soak.md
{
	echo "## Soak: $((el / 60)) minutes of slicing (bench-soak)"
	echo
	echo "3 hosts, STATIC at IP 10 ms, the VM's pvmd in every host's gang; the master (one \`dts-console\`"
	echo "that stays open) changed the schedule every SI (1 s): ${SOAK_CMDS[*]/%/,} in turn, $i changes."
	echo "RSS (KiB) and open descriptors: the mean of the samples of the first $BASE_S s, and the last sample"
	echo "(every $SAMPLE_S s). Overruns: slice edges the host skipped, in the first $BASE_S s and in the last $BASE_S s."
	echo "Goal: RSS within 5 % and overruns not growing (MISSED if not); descriptors within 5 % (a leak: FAIL)."
	echo
	echo "| host | process | RSS first | RSS end | change % | fds first | fds end | overruns first | overruns last | verdict |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	tail -n +2 "$CSV" | while IFS=, read -r h p rb re pct fb fe ob ol met; do
		echo "| $h | $p | $rb | $re | $pct | $fb | $fe | ${ob:--} | ${ol:--} | $met |"
	done
	echo
	b_env_note
	echo
	echo "Every sample: \`soak-raw.csv\`. Run time: $(b_elapsed) s$([ "$B_QUICK" = 1 ] && echo " (--quick)")."
} > "$MD"
cat "$MD"
b_done
