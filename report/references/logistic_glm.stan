// Logistic regression, intercept + 3 predictors (simulate.py).
data {
  int<lower=0> N;
  int<lower=1> K;
  matrix[N, K] X;
  array[N] int<lower=0, upper=1> y;
  real<lower=0> prior_sd;
}
parameters {
  vector[K] beta;
}
model {
  beta ~ normal(0, prior_sd);
  y ~ bernoulli_logit(X * beta);
}
