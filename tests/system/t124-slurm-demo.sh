#!/bin/bash
# The README's `./quickstart slurm` (tests/demo-slurm.sh), run to its end
# on this tree: munged, slurmctld and a slurmd with a dts on each of 3
# hosts, the operator's master, two users' sbatch jobs and a hog.  The
# demo fails itself on what it checks (each job's 3 tasks in its gang, the
# two rows, the shares, the users gone); here also that it printed what
# the README shows (squeue's two running jobs, the matrix, one line a
# Slurm job in the issue's form and the local load's), each job within 3
# points of its slot and the hog at least the LS less 2 (t_shares_ok, on
# the figures it printed), and that it left no Slurm daemon of its own.
. "$(dirname "$0")/lib.sh"
t_setup slurm-demo
t_run_demo demo-slurm.sh
out=$T_DEMO_OUT
for want in "^    required .*dts_spank.so default=off" "^squeue:" \
    "^ *[0-9]* *p *spin *dtsa[0-9]* *R " "^ *[0-9]* *p *spin *dtsb[0-9]* *R " \
    "^  2 rows, 2 jobs on 3 nodes" "^slurm job [0-9]* (user dtsa[0-9]*): [0-9.]*%\$" \
    "^slurm job [0-9]* (user dtsb[0-9]*): [0-9.]*%\$" "^local load (a hog on h1): [0-9.]*%\$" \
    "^Torn down after [0-9]* s: no Slurm daemon, user, namespace, process or cgroup"; do
	grep -q -- "$want" <<< "$out" || t_fail "the demo did not print /$want/"
done
jobs=$(sed -n 's/^slurm job [0-9]* (user [a-z0-9]*): \([0-9.]*\)%$/\1/p' <<< "$out")
hog=$(sed -n 's/^local load (a hog on h1): \([0-9.]*\)%$/\1/p' <<< "$out")
[ "$(wc -w <<< "$jobs")" = 2 ] && [ -n "$hog" ] ||
    t_fail "the demo did not print 2 jobs' shares and the hog's: '$jobs' '$hog'"
# shellcheck disable=SC2086
t_shares_ok $jobs -- "$hog" 40 20 || t_fail "the demo's shares are not the README's: $T_SHARES_WHY"
left=$(pgrep -a 'slurmctld|slurmd|slurmstepd|munged' | grep -F ".demo-slurm/" || true)
[ -z "$left" ] || t_fail "the demo left Slurm or munge daemons: $left"
t_log "shares: jobs $(paste -sd' ' <<< "$jobs") %, hog $hog %"
t_pass
