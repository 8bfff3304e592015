#!/bin/sh
# Independent batches against random reshuffling (epochs) on a Stan linear regression:
# for each scheme and seed, a fit on minibatches of B rows against the full-data fit of the
# same program and data; prints per fit the iterations, the wall time and the largest
# |mean - full mean| in full-data posterior sds, and the sds' largest relative error.
#   sh report/minibatch/compare_draws.sh ADVI [N] [B] [SEEDS]
#   EXTRA="--control-variates" sh report/minibatch/compare_draws.sh ...   (more fit options)
#   SCHEMES=independent sh report/minibatch/compare_draws.sh ...          (one scheme only)
# Needs Debian's python3 with python3-numpy for the data.
set -eu
ADVI=$1; N=${2:-4000}; B=${3:-100}; SEEDS=${4:-10}
DIR=$(mktemp -d); trap 'rm -rf "$DIR"' EXIT
/usr/bin/python3 - "$DIR" "$N" <<'PY'
import json, sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
r = np.random.default_rng(1)
x = r.uniform(-2, 2, n); y = 1 + 2 * x + 0.5 * r.normal(size=n)
json.dump({"N": n, "x": x.round(6).tolist(), "y": y.round(6).tolist()}, open(d + "/d.json", "w"))
PY
cat > "$DIR/lr.stan" <<'STAN'
data { int<lower=0> N; vector[N] x; vector[N] y; }
parameters { real alpha; real beta; real<lower=0> sigma; }
model { alpha ~ normal(0, 10); beta ~ normal(0, 10); sigma ~ normal(0, 5);
  y ~ normal(alpha + beta * x, sigma); }
STAN
stats() {  # mean and sd of alpha, beta, sigma over the draws (the mean row left out)
  grep -v '^#' "$1" | awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} NR==2{next}
    {for(k=0;k<3;k++){v=$(c[k==0?"alpha":k==1?"beta":"sigma"]);s[k]+=v;q[k]+=v*v}n++}
    END{for(k=0;k<3;k++){m=s[k]/n;printf "%.10g %.10g ",m,sqrt(q[k]/n-m*m)}print ""}'
}
"$ADVI" fit "$DIR/lr.stan" --data "$DIR/d.json" --output "$DIR/full.csv" --seed 1 -q >/dev/null
FULL=$(stats "$DIR/full.csv")
echo "scheme seed iterations seconds max_mean_err_sds max_sd_rel_err verdict"
for scheme in ${SCHEMES:-independent epochs}; do
  for seed in $(seq 1 "$SEEDS"); do
    start=$(date +%s.%N)
    "$ADVI" fit "$DIR/lr.stan" --data "$DIR/d.json" --output "$DIR/mb.csv" --seed "$seed" -q \
      --minibatch "$B" --rows N --minibatch-draw "$scheme" ${EXTRA:-} >"$DIR/out.txt"
    end=$(date +%s.%N)
    it=$(grep -m1 '^ADVI' "$DIR/out.txt" | sed 's/.*fit: \([0-9]*\) iterations.*/\1/')
    verdict=$(grep -m1 '^Verdict' "$DIR/out.txt" | cut -d: -f2 | cut -c2-13)
    echo "$FULL $(stats "$DIR/mb.csv")" | awk -v s="$scheme" -v seed="$seed" -v it="$it" \
      -v t="$(echo "$end - $start" | bc)" -v v="$verdict" '{
        e=0; r=0; for(k=0;k<3;k++){m=$(2*k+1); sd=$(2*k+2); mb=$(6+2*k+1); sb=$(6+2*k+2);
          a=(mb-m)/sd; if(a<0)a=-a; if(a>e)e=a; b=(sb-sd)/sd; if(b<0)b=-b; if(b>r)r=b}
        printf "%s %d %s %.2f %.2f %.2f %s\n", s, seed, it, t, e, r, v}'
  done
done
