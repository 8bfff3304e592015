// Dirichlet Exponential Poisson non-negative matrix factorisation (paper appendix A.4): counts
// y[u, i] ~ Poisson(theta_u . beta_i), each theta_u ~ Dirichlet(alpha0) a simplex, beta_ik ~
// Exponential(lambda0). The same model as examples/nmf_direxp.cpp.
//   advi fit examples/nmf_direxp.stan --data ../shared/data/sim/nmf_direxp/small.data.json
data {
  int<lower=1> U;                  // users (rows)
  int<lower=1> I;                  // items (columns: 28 x 20 pixels)
  int<lower=1> K;                  // factors
  array[U, I] int<lower=0> y;
  vector<lower=0>[K] alpha0;
  real<lower=0> lambda0;
}
parameters {
  array[U] simplex[K] theta;       // one simplex per user: a U x K matrix
  matrix<lower=0>[I, K] beta;
}
model {
  for (u in 1:U)
    theta[u] ~ dirichlet(alpha0);
  to_vector(beta) ~ exponential(lambda0);
  for (u in 1:U)
    y[u] ~ poisson(beta * theta[u]);
}
