# lock.sh - sourced by tests/system/check.sh and tests/bench/run.sh: the
# one machine-wide lock that keeps system tests and benchmarks apart (they
# pin work to CPUs, run real-time tasks and time slices: two at once would
# measure each other).  Another checkout's suite on this machine takes the
# same lock.
#
# test_lock NAME: hold the lock on fd 9 (the caller runs its test with
# 9>&- so that the test does not keep it past its own exit); waits, saying
# so on stderr, if another test or benchmark holds it.  1 if it cannot.
test_lock() {
	_lock=${DTS_TEST_LOCK:-/run/lock/dts-system-tests.lock}
	command -v flock > /dev/null || { echo "$1: needs flock (util-linux)" >&2; return 1; }
	mkdir -p "$(dirname "$_lock")" || return 1
	exec 9> "$_lock" || return 1
	if ! flock -n 9; then
		echo "# $1: waiting for another system test on this machine" >&2
		flock 9 || return 1
	fi
}
