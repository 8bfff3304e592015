// Eight schools (Rubin 1981), centred parameterisation.
data {
  int<lower=0> J;           // number of schools
  array[J] real y;          // estimated treatment effects
  array[J] real<lower=0> sigma;  // standard errors
}
parameters {
  real mu;
  real<lower=0> tau;
  array[J] real theta;
}
model {
  mu ~ normal(0, 5);
  tau ~ cauchy(0, 5);
  theta ~ normal(mu, tau);
  y ~ normal(theta, sigma);
}
