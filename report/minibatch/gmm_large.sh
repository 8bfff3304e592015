#!/bin/sh
# The paper's section 4 mixture at its scale: gmm_large (250,000 x 576, made by
# ../shared/data/gen/generate.py --large --only gmm) as .npy (the first 240,000 rows to fit,
# the last 10,000 held out, as the paper), then a minibatch fit of
# report/minibatch/gmm_minibatch.stan (K = 30) for each B, and the held-out log density of its
# first 100 draws (report/minibatch/gmm_heldout.stan through `advi generate-quantities`)
# against the truth's (K = 10). Prints per B: wall time and peak memory of the fit, its
# iterations and verdict, the held-out density per row.
#   sh report/minibatch/gmm_large.sh ADVI DIR [B ...]     (DIR holds gmm_large.csv)
#   ETA=0.1 sh report/minibatch/gmm_large.sh ...          (a fixed step size, no search: the
#                                                          search's eta = 1 is often a trap here)
#   EXTRA=--control-variates sh report/minibatch/gmm_large.sh ...   (more fit options)
# Needs Debian's python3 with python3-numpy and python3-pandas (the CSV is read once).
set -eu
ADVI=$1; DIR=$2; shift 2
BATCHES=${*:-100 500 1000}
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$DIR"
if [ ! -f gmm.y.npy ]; then
  /usr/bin/python3 - <<'PY'
import json, numpy as np, pandas as pd
y = pd.read_csv("gmm_large.csv", dtype=np.float64, engine="c").to_numpy()
np.save("gmm.y.npy", np.ascontiguousarray(y[:-10000]))
np.save("gmm_test.y_test.npy", np.ascontiguousarray(y[-10000:]))
t = json.load(open("gmm_large.truth.json"))
sizes = {"N": int(y.shape[0] - 10000), "D": int(y.shape[1]), "K": 30,
         "alpha0": float(t["alpha0"]), "N_test": 10000}
json.dump(sizes, open("gmm.sizes.json", "w"))
K = len(t["theta"]); mu = np.array(t["mu"]); sigma = np.array(t["sigma"])
names = ["lp__", "log_p__", "log_g__"] + [f"theta.{k + 1}" for k in range(K)]
values = [0.0, 0.0, 0.0] + list(t["theta"])
for name, a in (("mu", mu), ("sigma", sigma)):
    for d in range(a.shape[1]):
        for k in range(K):
            names.append(f"{name}.{k + 1}.{d + 1}"); values.append(float(a[k, d]))
with open("truth_fit.csv", "w") as f:
    f.write(",".join(names) + "\n" + ",".join(repr(v) for v in values) + "\n")
sizes["K"] = K
json.dump(sizes, open("gmm.sizes_truth.json", "w"))
PY
fi
lpd() { grep -v '^#' "$1" | awk -F, 'NR==1{for(i=1;i<=NF;i++)if($i=="lpd")c=i;next}{s+=$c;n++}END{printf "%.3f", s/n}'; }
"$ADVI" generate-quantities "$HERE/gmm_heldout.stan" --data gmm.sizes_truth.json \
  --data gmm_test.y_test.npy --fitted truth_fit.csv --output heldout_truth.csv -q >/dev/null
echo "truth (K = 10): held-out log density per row $(lpd heldout_truth.csv)"
echo "B wall peak_MB iterations held_out_lpd verdict"
for B in $BATCHES; do
  /usr/bin/time -f "%e %M" -o time_b$B.txt "$ADVI" fit "$HERE/gmm_minibatch.stan" \
    --data gmm.sizes.json --data gmm.y.npy --minibatch "$B" --rows N --output gmm_b$B.csv \
    --seed 1 -q ${ETA:+--eta "$ETA"} ${EXTRA:-} >gmm_b$B.out
  awk '/^#/ {print; next} {n++; if (n <= 101) print}' gmm_b$B.csv >gmm_b${B}_100.csv
  "$ADVI" generate-quantities "$HERE/gmm_heldout.stan" --data gmm.sizes.json \
    --data gmm_test.y_test.npy --fitted gmm_b${B}_100.csv --output heldout_b$B.csv -q >/dev/null
  it=$(grep -m1 '^ADVI' gmm_b$B.out | sed 's/.*fit: \([0-9]*\) iterations.*/\1/')
  verdict=$(grep -m1 '^Verdict' gmm_b$B.out | cut -c10-40)
  echo "$B $(awk '{printf "%.0f %.0f", $1, $2 / 1024}' time_b$B.txt) $it $(lpd heldout_b$B.csv) $verdict"
done
