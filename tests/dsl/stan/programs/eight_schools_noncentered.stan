// Eight schools, non-centred: theta = mu + tau * eta, written once by hand and once with
// offset/multiplier (both forms on purpose, so that a test sees them side by side).
data {
  int<lower=0> J;
  vector[J] y;
  vector<lower=0>[J] sigma;
}
parameters {
  real mu;
  real<lower=0> tau;
  vector[J] eta;
  vector<offset=mu, multiplier=tau>[J] theta_om;
}
transformed parameters {
  vector[J] theta = mu + tau * eta;
}
model {
  mu ~ normal(0, 5);
  tau ~ cauchy(0, 5);
  eta ~ std_normal();
  theta_om ~ normal(mu, tau);
  y ~ normal(theta, sigma);
}
generated quantities {
  vector[J] y_rep;
  for (j in 1:J)
    y_rep[j] = normal_rng(theta[j], sigma[j]);
}
