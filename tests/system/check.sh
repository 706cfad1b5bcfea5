#!/bin/sh
# check.sh BUILD TEST - run one system test the way the suite does: with
# DTS_BUILD=BUILD, at most 300 s, and never beside another system test
# on this machine (they pin work to CPU 1 and time slices: two at once
# would measure each other).  automake's LOG_COMPILER for `make check`
# and tests/run-all.sh both call it.
#
# Exits 77 (skip, automake's convention), saying why, where system tests
# cannot run: not root (dts needs real-time priority, cgroups and
# namespaces; a developer's `make check` then runs the unit tests only),
# or DTS_SYSTEM_TESTS=no (root who wants the unit tests only).  Fails
# (1) where dts is not built or flock missing: a suite that built nothing
# must not end "0 failed".  Otherwise the test's own status: 0 pass, 1 fail, 77 skip (the test
# says why), 124 timeout.
set -u
build=${1:?usage: check.sh BUILD TEST}
t=${2:?usage: check.sh BUILD TEST}
name=$(basename "$t" .sh)
. "$(dirname "$0")/../lock.sh"

skip() {
	echo "SKIP: $name: $*"
	exit 77
}

[ "$(id -u)" = 0 ] ||
    skip "not root (system tests need real-time priority, cgroups and namespaces)"
[ "${DTS_SYSTEM_TESTS:-yes}" != no ] || skip "DTS_SYSTEM_TESTS=no"
fail() {
	echo "FAIL: $name: $*"
	exit 1
}
[ -x "$build/dts/dts" ] || fail "not built: $build/dts/dts (make all && make check TESTS=)"
command -v flock > /dev/null || fail "needs flock: quickstart installs it (apt-get install util-linux)"

# the wait for the lock is not part of the 300 s; at 300 s the test gets
# SIGTERM and 90 s for its EXIT trap (a cluster's teardown under load
# took more than 10), only then SIGKILL, which leaves its leftovers
t0=$(date +%s)
test_lock "$name" || exit 1
# run-all.sh takes the wait out of the test's time
w=$(( $(date +%s) - t0 ))
[ "$w" = 0 ] || echo "# check.sh: waited $w s for the lock"
DTS_BUILD=$build timeout -k 90 300 bash "$t" 9>&-
