#!/bin/bash
# The README's first command, `./quickstart demo` (tests/demo.sh), run to
# its end on this tree as a new user runs it: a 3-host cluster in network
# namespaces, two PVM users with a job each, root's master console.  The
# demo fails itself on what it checks (the users' tasks in their jobs, a
# user's `start` refused and `jobs` read-only, the two rows, the
# teardown); here also that it printed what the README shows and left
# nothing.  (The demo once went on being broken for a day unnoticed: a
# helper file it sourced had moved.)
. "$(dirname "$0")/lib.sh"
t_setup readme-demo
pin=()
[ "$(nproc)" -ge 2 ] && pin=(taskset -c 1)
# check.sh holds the system tests' lock already: the demo must not wait for it
out=$(DTS_DEMO_LOCKED=1 "${pin[@]}" bash "$SRC/tests/demo.sh" "$BUILD" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
[ "$rc" = 0 ] || t_fail "the demo exited $rc: $(grep -m1 '^FAIL' <<< "$out")"
for want in "^- two users, " "^    dts> start" \
    "^  read-only: a keyless console's answers" "^  2 rows, 2 jobs on 3 nodes" \
    "^Console status" "^  job .*:pvm .*%\$" "^  local load (a hog on h1)" \
    "^Torn down after [0-9]* s: no user, namespace, process or cgroup"; do
	grep -q -- "$want" <<< "$out" || t_fail "the demo did not print /$want/"
done
t_pass
