#!/bin/sh
# `mpirun -n P advi fit --rows N` gives the same fit for P = 1, 2, 4, bit for bit: the CSV's
# body (every draw and the mean row) and the verdict line; the header differs only in its
# `ranks = P` line, the times and the output file's name. Run by ctest in an MPI build
# (-DADVI_MPI=ON) and by .ci/run's MPI step; then what does not run over ranks (another
# command, a fit without --rows, --minibatch) refused with its reason:
#   sh tests/mpi/identical_fits.sh path/to/advi [work dir]
# The data: 20,000 rows (five shards of 4096, the last short), a regression and a logistic
# regression on the same x, an int row variable among the reals.
set -eu
ADVI=$1
WORK=${2:-$(mktemp -d)}
mkdir -p "$WORK"
ROOT=""
# containers often forbid the cross-memory attach OpenMPI uses for large messages on one host
export OMPI_MCA_btl_vader_single_copy_mechanism=none
[ "$(id -u)" = 0 ] && ROOT="--allow-run-as-root"
awk -v n=20000 'BEGIN {
  s = 12345; m = 2147483647
  printf "{\"N\": %d, \"x\": [", n
  for (i = 0; i < n; i++) { s = (s * 16807) % m; x[i] = 4 * s / m - 2; printf "%s%.17g", i ? "," : "", x[i] }
  printf "], \"y\": ["
  for (i = 0; i < n; i++) { s = (s * 16807) % m; u1 = (s + 0.5) / m; s = (s * 16807) % m; u2 = s / m
    z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2); printf "%s%.17g", i ? "," : "", 1 + 2 * x[i] + 0.5 * z }
  printf "], \"flip\": ["
  for (i = 0; i < n; i++) { s = (s * 16807) % m; p = 1 / (1 + exp(-(0.5 - 1.5 * x[i])))
    printf "%s%d", i ? "," : "", (s / m < p) ? 1 : 0 }
  printf "]}\n" }' > "$WORK/rows.json"
cat > "$WORK/rows.stan" <<'STAN'
data { int<lower=0> N; vector[N] x; vector[N] y; array[N] int<lower=0, upper=1> flip; }
parameters { real alpha; real beta; real<lower=0> sigma; real a; real b; }
model {
  alpha ~ normal(0, 10); beta ~ normal(0, 10); sigma ~ normal(0, 5);
  a ~ normal(0, 5); b ~ normal(0, 5);
  y ~ normal(alpha + beta * x, sigma);
  flip ~ bernoulli_logit(a + b * x);
}
STAN
for P in 1 2 4; do
  mpirun $ROOT --oversubscribe -n "$P" "$ADVI" fit "$WORK/rows.stan" --data "$WORK/rows.json" \
    --rows N --seed 7 --output "$WORK/fit_$P.csv" -q > "$WORK/summary_$P.txt"
  grep -v '^#' "$WORK/fit_$P.csv" > "$WORK/body_$P.csv"
  grep -m1 '^Verdict' "$WORK/summary_$P.txt" > "$WORK/verdict_$P.txt"
  if ! grep -q "^#     ranks = $P\$" "$WORK/fit_$P.csv"; then
    echo "identical_fits: the header of the fit on $P ranks has no line 'ranks = $P'" >&2
    exit 1
  fi
done
for P in 2 4; do
  for part in body verdict; do
    if ! cmp -s "$WORK/${part}_1."* "$WORK/${part}_$P."*; then
      echo "identical_fits: the $part of the fit on $P ranks differs from that on 1 rank:" >&2
      diff "$WORK/${part}_1."* "$WORK/${part}_$P."* | head -5 >&2
      exit 1
    fi
  done
done
# What does not run over ranks is refused by name, and leaves no output.
refused() {  # expected message, then the command's arguments
  want=$1; shift
  if mpirun $ROOT --oversubscribe -n 2 "$ADVI" "$@" > "$WORK/refused.out" 2> "$WORK/refused.err"; then
    echo "identical_fits: \`advi $*\` on 2 ranks was not refused" >&2; exit 1
  fi
  if ! grep -q -e "$want" "$WORK/refused.err"; then
    echo "identical_fits: \`advi $*\` on 2 ranks did not say: $want" >&2
    head -3 "$WORK/refused.err" >&2; exit 1
  fi
  if [ -e "$WORK/refused.csv" ]; then
    echo "identical_fits: \`advi $*\` on 2 ranks left an output" >&2; exit 1
  fi
}
refused "only \`advi fit --rows N\` runs over MPI ranks" optimize "$WORK/rows.stan" \
  --data "$WORK/rows.json" --output "$WORK/refused.csv"
refused "needs --rows N" fit "$WORK/rows.stan" --data "$WORK/rows.json" -q \
  --output "$WORK/refused.csv"
refused "--minibatch runs as one process" fit "$WORK/rows.stan" --data "$WORK/rows.json" -q \
  --rows N --minibatch 100 --output "$WORK/refused.csv"
rows=$(wc -l < "$WORK/body_1.csv")
echo "identical_fits: P = 1, 2, 4 gave the same $rows CSV lines, bit for bit ($(cat "$WORK/verdict_1.txt"))"
