#!/bin/sh
# Build the libFuzzer harness with clang (ASan + UBSan), seed it with valid
# datagrams of every type and run it for SECONDS (default 20).
# usage: tests/fuzz/run.sh SRCDIR OUTDIR [SECONDS]
set -eu
src=$1 out=$2 secs=${3:-20}
clang=$(command -v clang || command -v clang-14 || true)
if [ -z "$clang" ]; then
	echo "FAIL: fuzz: clang not installed: quickstart installs it (apt-get install clang)"
	exit 1
fi
mkdir -p "$out/corpus"
flags="-std=gnu11 -g -O1 -I$src/common $(pkg-config --cflags libsodium)"
libs="$(pkg-config --libs libsodium)"
# shellcheck disable=SC2086
$clang $flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-o "$out/fuzz_proto" "$src/tests/fuzz/fuzz_proto.c" \
	"$src/common/proto.c" "$src/common/wire.c" "$src/common/job.c" "$src/common/auth.c" "$src/common/rules.c" "$src/common/loadtab.c" "$src/common/names.c" "$src/common/timeutil.c" $libs
# shellcheck disable=SC2086
$clang $flags -fsanitize=address,undefined -o "$out/seedgen" \
	"$src/tests/fuzz/seedgen.c" "$src/common/proto.c" "$src/common/wire.c" "$src/common/job.c" "$src/common/auth.c" "$src/common/rules.c" "$src/common/loadtab.c" "$src/common/names.c" "$src/common/timeutil.c" $libs
"$out/seedgen" "$out/corpus"
"$out/fuzz_proto" -max_total_time="$secs" -max_len=700 -print_final_stats=1 \
	"$out/corpus" > "$out/fuzz.log" 2>&1 || {
	tail -40 "$out/fuzz.log"
	echo "FAIL: fuzz: the decoder crashed (reproducer in $out)"
	exit 1
}
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz.log")
echo "PASS: fuzz: $runs inputs in ${secs}s, no crash"
