// Linear regression with automatic relevance determination (paper appendix A.1); the same
// model as examples/linreg_ard.cpp.
//   advi fit examples/linreg_ard.stan --data ../shared/data/sim/linreg_ard/medium.data.json
data {
  int<lower=0> N;
  int<lower=1> D;
  matrix[N, D] X;
  vector[N] y;
  real<lower=0> a0;
  real<lower=0> b0;
  real<lower=0> c0;
  real<lower=0> d0;
}
parameters {
  real<lower=0> sigma;          // noise sd
  vector<lower=0>[D] alpha;     // precision (relevance) of each weight
  vector[D] w;                  // weights
}
model {
  sigma ~ inv_gamma(a0, b0);
  alpha ~ gamma(c0, d0);
  w ~ normal(0, sigma ./ sqrt(alpha));
  y ~ normal(X * w, sigma);
}
