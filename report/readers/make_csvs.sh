#!/usr/bin/env bash
# Writes one CSV per method of advi (fit meanfield and fullrank, optimize, laplace from a mode
# file, pathfinder, generate-quantities) for a small regression with a transformed parameter and
# generated quantities, into the folder given, for the readers' checks beside this script
# (check_cmdstanpy.py, check_r.R). Usage: make_csvs.sh ADVI_BINARY OUT_DIR
set -euo pipefail
advi=$1
out=$2
mkdir -p "$out"
cd "$out"
cat > regression.stan <<'STAN'
data {
  int<lower=0> N;
  vector[N] x;
  vector[N] y;
}
parameters {
  vector[2] beta;
  real<lower=0> sigma;
}
transformed parameters {
  real log_sigma = log(sigma);
}
model {
  beta ~ normal(0, 10);
  sigma ~ lognormal(0, 1);
  y ~ normal(beta[1] + beta[2] * x, sigma);
}
generated quantities {
  real y_rep = normal_rng(beta[1] + beta[2] * x[1], sigma);
}
STAN
cat > regression.json <<'JSON'
{"N": 12, "x": [-1.2, -0.8, -0.5, -0.3, -0.1, 0.0, 0.2, 0.4, 0.5, 0.9, 1.1, 1.6],
 "y": [-1.1, -0.2, -0.6, 0.3, 0.1, 0.6, 0.4, 1.2, 0.9, 1.6, 1.5, 2.4]}
JSON
d="--data regression.json -q"
"$advi" fit regression.stan $d --output fit_meanfield.csv --seed 1 > /dev/null
"$advi" fit regression.stan $d --output fit_fullrank.csv --algorithm fullrank --seed 1 > /dev/null
"$advi" optimize regression.stan $d --output optimize.csv > /dev/null
"$advi" optimize regression.stan $d --jacobian 1 --output mode.csv > /dev/null
"$advi" laplace regression.stan $d --mode mode.csv --output laplace.csv > /dev/null
"$advi" pathfinder regression.stan $d --output pathfinder.csv > /dev/null
"$advi" generate-quantities regression.stan $d --fitted fit_meanfield.csv --output gq.csv > /dev/null
"$advi" summary fit_meanfield.csv --sig_figs 10 --csv_filename summary_meanfield.csv > /dev/null
echo "wrote the CSVs to $out"
