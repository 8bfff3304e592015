// Logistic regression of the paper's section 3.1 (examples/logistic.cpp) in the Stan language:
// column 1 of X is the intercept. Data: sim/logistic/*.data.json.
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
