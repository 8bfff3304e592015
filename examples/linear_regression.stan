// The flagship example (examples/linear_regression.cpp) in the Stan language: the same model
// lowers to the same graph. Fit it with `advi fit examples/linear_regression.stan --data d.json`.
data {
  int<lower=0> N;
  int<lower=0> K;
  vector[N] y;
  matrix[N, K] X;
}
parameters {
  vector[K] beta;
  real<lower=0> sigma;
}
model {
  beta ~ normal(0, 10);
  sigma ~ lognormal(0, 1);
  y ~ normal(X * beta, sigma);
}
