#!/bin/sh
# The mode by L-BFGS and Newton-CG against full-rank ADVI on two badly scaled regressions
# (README, Performance: "The mode against full-rank ADVI"). Usage: bench/optimize/run.sh
# [path/to/advi]; writes its files in a temporary directory.
set -e
here=$(cd "$(dirname "$0")" && pwd)
advi=${1:-$here/../../build/dsl/advi/cli/advi}
dir=$(mktemp -d)
cd "$dir"
python3 "$here/gen.py"
for d in year dollars; do
  for a in lbfgs newton; do
    echo "== $d $a"
    /usr/bin/time -f "wall %e s" "$advi" optimize "$here/ridge.stan" --data $d.json --algorithm $a --output $d.$a.csv -q | head -1
    python3 "$here/cmp.py" $d.ref.json $d.$a.csv
  done
  for extra in "" "--tol-rel-obj 0.0001"; do
    echo "== $d fullrank $extra"
    /usr/bin/time -f "wall %e s" "$advi" fit "$here/ridge.stan" --data $d.json --algorithm fullrank --seed 1 $extra --output $d.fr.csv -q | head -1
    python3 "$here/cmp.py" $d.ref.json $d.fr.csv
  done
done
