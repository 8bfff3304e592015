// Linear regression (the flagship's model, examples/linear_regression.stan) on raw predictors:
// income in dollars and age in years, with an intercept column (simulate.py).
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
