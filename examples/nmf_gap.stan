// Constrained Gamma Poisson non-negative matrix factorisation (paper appendix A.3): counts
// y[u, i] ~ Poisson(theta_u . beta_i), theta_uk ~ Gamma(a0, b0) with each theta_u a
// positive_ordered vector (the ordering makes the factors identifiable), beta_ik ~ Gamma(c0, d0).
// The same model as examples/nmf_gap.cpp.
//   advi fit examples/nmf_gap.stan --data ../shared/data/sim/nmf_gap/small.data.json
data {
  int<lower=1> U;                  // users (rows)
  int<lower=1> I;                  // items (columns: 28 x 20 pixels)
  int<lower=1> K;                  // factors
  array[U, I] int<lower=0> y;
  real<lower=0> a0;
  real<lower=0> b0;
  real<lower=0> c0;
  real<lower=0> d0;
}
parameters {
  array[U] positive_ordered[K] theta;  // one ordered vector per user: a U x K matrix
  matrix<lower=0>[I, K] beta;
}
model {
  for (u in 1:U)
    theta[u] ~ gamma(a0, b0);
  to_vector(beta) ~ gamma(c0, d0);
  // all U x I rates at once: row u of theta times beta'
  for (u in 1:U)
    y[u] ~ poisson(beta * theta[u]);
}
