// Hierarchical logistic regression: varying intercepts over J groups (non-centred), two common
// slopes (simulate.py).
data {
  int<lower=0> N;
  int<lower=1> J;
  array[N] int<lower=1, upper=J> group;
  vector[N] x1;
  vector[N] x2;
  array[N] int<lower=0, upper=1> y;
}
parameters {
  real alpha;
  real<lower=0> tau;
  vector[J] z;
  real b1;
  real b2;
}
model {
  alpha ~ normal(0, 2);
  tau ~ normal(0, 1);
  z ~ normal(0, 1);
  b1 ~ normal(0, 2);
  b2 ~ normal(0, 2);
  y ~ bernoulli_logit(alpha + tau * z[group] + b1 * x1 + b2 * x2);
}
