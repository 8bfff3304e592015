data {
  int<lower=0> N;
  int<lower=1> K;
  matrix[N, K] X;
  vector[N] y;
  real<lower=0> s;
  real<lower=0> t;
}
parameters {
  vector[K] beta;
}
model {
  beta ~ normal(0, t);
  y ~ normal(X * beta, s);
}
