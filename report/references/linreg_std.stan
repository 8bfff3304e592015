// The same regression as linreg_raw.stan on standardised predictors (simulate.py).
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
