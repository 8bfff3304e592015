// Poisson regression with a log link, intercept + 2 predictors (simulate.py).
data {
  int<lower=0> N;
  int<lower=1> K;
  matrix[N, K] X;
  array[N] int<lower=0> y;
}
parameters {
  vector[K] beta;
}
model {
  beta ~ normal(0, 2);
  y ~ poisson_log(X * beta);
}
