// Gamma-Poisson matrix factorisation (the ADVI paper's section 4.2): counts y[u, i] ~
// Poisson(theta[u] . beta[i]) with gamma priors on the non-negative factors.
data {
  int<lower=1> U;  // users (rows)
  int<lower=1> I;  // items (columns)
  int<lower=1> K;  // factors
  array[U, I] int<lower=0> y;
  real<lower=0> a;
  real<lower=0> b;
}
parameters {
  array[U] vector<lower=0>[K] theta;
  array[I] vector<lower=0>[K] beta;
}
model {
  for (u in 1:U)
    theta[u] ~ gamma(a, b);
  for (i in 1:I)
    beta[i] ~ gamma(a, b);
  for (u in 1:U) {
    for (i in 1:I) {
      y[u, i] ~ poisson(dot_product(theta[u], beta[i]));
    }
  }
}
