// The taxi-like trips' duration against their 100 coordinates: a full-data gradient over
// 1.7 million rows, for the scaling of `mpirun -n P advi fit --rows N` (report/minibatch/
// mpi_scaling.sh).
data {
  int<lower=1> N;
  int<lower=1> D;
  matrix[N, D] x;
  vector[N] duration;
}
parameters {
  real alpha;
  vector[D] beta;
  real<lower=0> sigma;
}
model {
  alpha ~ normal(13, 10);
  beta ~ normal(0, 1);
  sigma ~ normal(0, 5);
  duration ~ normal(alpha + x * beta, sigma);
}
