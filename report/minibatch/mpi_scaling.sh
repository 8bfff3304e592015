#!/bin/sh
# Ranks against wall time for full-data gradients on 1.7 million rows: `mpirun -n P advi fit
# --rows N` (an MPI build, -DADVI_MPI=ON) on the taxi-like trips' duration regression
# (report/minibatch/taxi_regression.stan, the .npy files of report/minibatch/taxi_to_npy.py),
# 100 iterations at a fixed step size with an ELBO of 10 draws at iterations 50 and 100; the
# time of iterations 51 to 100 (50 gradients and 10 log densities over every row) from the
# diagnostic file, for P ranks of THREADS threads each. Prints P, threads, seconds, and the
# speed-up against the first line. `--bind-to none`: OpenMPI binds each rank to one core by
# default, which would put all of a rank's threads on that core.
#   THREADS="1 2" sh report/minibatch/mpi_scaling.sh ADVI DIR [P ...]
set -eu
ADVI=$1; DIR=$2; shift 2
RANKS=${*:-1 2 4}
ROOT=""
[ "$(id -u)" = 0 ] && ROOT="--allow-run-as-root"
HERE=$(cd "$(dirname "$0")" && pwd)
echo "ranks threads_per_rank seconds_per_50_iterations speedup"
base=""
for P in $RANKS; do
  for T in ${THREADS:-1}; do
    mpirun $ROOT --oversubscribe --bind-to none -n "$P" "$ADVI" fit "$HERE/taxi_regression.stan" \
      --data "$DIR/taxi.x.npy" --data "$DIR/taxi.duration.npy" --data "$DIR/taxi.sizes.json" \
      --rows N --start init --eta 0.01 --iter 100 --eval-elbo 50 --elbo-samples 10 \
      --output-samples 10 --threads "$T" --seed 1 -q \
      --diagnostic-file "$DIR/scaling_diag_$P.csv" --output "$DIR/scaling_fit_$P.csv" > /dev/null
    s=$(grep -v '^#' "$DIR/scaling_diag_$P.csv" | awk -F, '$1==50{a=$2} $1==100{b=$2} END{printf "%.2f", b-a}')
    [ -z "$base" ] && base=$s
    echo "$P $T $s $(echo "$base $s" | awk '{printf "%.2f", $1/$2}')"
  done
done
