#!/bin/sh
# Fuzzes one target for a bounded time: run.sh TARGET SECONDS [SEEDS] [OUT]
#
# SEEDS defaults to /work/fuzz-seeds (made by `cargo run --release --bin
# seeds`), OUT to /work/fuzz-out; both outside the repository. A target
# fuzzed before resumes from its queue. Build first:
#   cargo afl build --release --features afl
# Prints the run's executions, paths, crashes and hangs when it ends.
set -eu
target=$1
seconds=$2
seeds=${3:-/work/fuzz-seeds}
out=${4:-/work/fuzz-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
# AFL_SKIP_CPUFREQ: shared machines do not let us set the governor.
# AFL_AUTORESUME: a second run of a target continues its queue.
# -m 1536: an allocation the input does not justify fails and aborts (a
#   crash) instead of being served lazily by the kernel.
# -t 1000: an input that takes a second is a hang.
AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
AFL_AUTORESUME=1 AFL_SKIP_CRASHES=1 \
    nice -n 15 cargo afl fuzz -i "$seeds/$target" -o "$out/$target" \
    -m 1536 -t 1000 -V "$seconds" \
    -- "$here/target/release/kiln-afl" "$target" > "$out/$target.log" 2>&1 || true
stats="$out/$target/default/fuzzer_stats"
printf '%s: ' "$target"
grep -E '^(execs_done|run_time|corpus_count|saved_crashes|saved_hangs) ' "$stats" \
    | awk '{printf "%s=%s ", $1, $3}'
echo
