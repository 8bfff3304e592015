#!/bin/sh
# Runs every built fuzz target for SECONDS seconds on its seed corpus and its regression inputs
# (fuzz/README.md); fails if any target finds a crash, a sanitizer report, a leak, a hang or an
# out-of-memory. Builds nothing: configure and build the fuzz targets first.
#   fuzz/smoke.sh SECONDS [BUILD_DIR]     (BUILD_DIR defaults to build-fuzz beside fuzz/)
# New inputs go to a temporary folder, so the committed corpus is left as it is; a crashing
# input is kept in $ADVI_FUZZ_ARTIFACTS (default: a temporary folder, printed) to be added
# under fuzz/regressions/<target>/.
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 SECONDS [BUILD_DIR]" >&2
    exit 2
fi
seconds=$1
here=$(cd "$(dirname "$0")" && pwd)
build=${2:-$here/../build-fuzz}
artifacts=${ADVI_FUZZ_ARTIFACTS:-$(mktemp -d)}
mkdir -p "$artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
ran=0
for target in stan_program stan_model json_data rdump_data csv_data stan_csv; do
    exe=$build/fuzz/fuzz_$target
    if [ ! -x "$exe" ]; then
        echo "fuzz/smoke.sh: $exe is not built (configure with -DADVI_FUZZ=ON and clang++)" >&2
        status=1
        continue
    fi
    dict=
    case $target in stan_program|stan_model) dict=-dict=$here/stan.dict ;; esac
    dirs=$here/corpus/$target
    [ -d "$here/regressions/$target" ] && dirs="$dirs $here/regressions/$target"
    mkdir -p "$scratch/$target" "$artifacts/$target"
    echo "== $target: $seconds s"
    # shellcheck disable=SC2086  # $dict and $dirs are lists on purpose
    if ! "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$artifacts/$target/" $dict "$scratch/$target" $dirs \
            >"$scratch/$target.log" 2>&1; then
        tail -n 60 "$scratch/$target.log" >&2
        echo "fuzz/smoke.sh: $target found a failure; the input is in $artifacts/$target/" >&2
        status=1
    else
        grep -E '^stat::number_of_executed_units' "$scratch/$target.log" || true
    fi
    ran=$((ran + 1))
done
[ "$status" -eq 0 ] && echo "fuzz/smoke.sh: $ran targets clean for $seconds s each"
exit "$status"
