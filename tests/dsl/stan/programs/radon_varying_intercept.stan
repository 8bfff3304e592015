/* Radon: log radon level per house, a varying intercept per county and a common slope
   for the floor of the measurement (Gelman and Hill 2007, chapter 12). */
data {
  int<lower=1> N;                         // houses
  int<lower=1> J;                         // counties
  array[N] int<lower=1, upper=J> county;  // county of each house, 1-based
  vector[N] x;                            // floor: 0 basement, 1 first floor
  vector[N] y;                            // log radon
}
parameters {
  vector[J] a;
  real b;
  real mu_a;
  real<lower=0> sigma_a;
  real<lower=0> sigma_y;
}
model {
  vector[N] y_hat;
  for (i in 1:N) {
    y_hat[i] = a[county[i]] + x[i] * b;
  }
  mu_a ~ normal(0, 1);
  sigma_a ~ normal(0, 1);
  sigma_y ~ normal(0, 1);
  a ~ normal(mu_a, sigma_a);
  b ~ normal(0, 1);
  y ~ normal(y_hat, sigma_y);
}
