#!/bin/bash
# The README's first command, `./quickstart demo` (tests/demo.sh), run to
# its end on this tree as a new user runs it: a 3-host cluster in network
# namespaces, two PVM users with a job each, root's master console.  The
# demo fails itself on what it checks (the users' tasks in their jobs, a
# user's `start` refused and `jobs` read-only, the two rows, the shares,
# the teardown); here also that it printed what the README shows, each
# job within 3 points of its slot and the hog at least the LS less 2
# (t_shares_ok, on the figures it printed), and left nothing.  (The
# demo once went on being broken for a day unnoticed: a helper file it
# sourced had moved.)
. "$(dirname "$0")/lib.sh"
t_setup readme-demo
t_run_demo demo.sh
out=$T_DEMO_OUT
for want in "^- two users, " "^    dts> start" \
    "^  read-only: a keyless console's answers" "^  2 rows, 2 jobs on 3 nodes" \
    "^Console status" "^  job .*:pvm .*%\$" "^  local load (a hog on h1)" \
    "^Torn down after [0-9]* s: no user, namespace, process or cgroup"; do
	grep -q -- "$want" <<< "$out" || t_fail "the demo did not print /$want/"
done
# the shares it printed are the README's: each job within 3 points of
# its 40 % slot, the hog at least the LS (20 %) less 2
jobs=$(sed -n 's/^  job .*:pvm .* \([0-9.]*\)%$/\1/p' <<< "$out")
hog=$(sed -n 's/^  local load (a hog on h1) *\([0-9.]*\)%$/\1/p' <<< "$out")
[ "$(wc -w <<< "$jobs")" = 2 ] && [ -n "$hog" ] ||
    t_fail "the demo did not print 2 jobs' shares and the hog's: '$jobs' '$hog'"
# shellcheck disable=SC2086
t_shares_ok $jobs -- "$hog" 40 20 || t_fail "the demo's shares are not the README's: $T_SHARES_WHY"
t_log "shares: jobs $(paste -sd' ' <<< "$jobs") %, hog $hog %"
t_pass
