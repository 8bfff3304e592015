// The 2-D Gaussian of the paper's section 3.1 (examples/gauss2d.cpp) in the Stan language: the
// mean of a Gaussian with known, highly correlated covariance. Data: sim/gauss2d/*.data.json.
data {
  int<lower=1> N;
  array[N] vector[2] y;
  cov_matrix[2] Sigma;
  vector[2] mu0;
  cov_matrix[2] Sigma0;
}
parameters {
  vector[2] mu;
}
model {
  mu ~ multi_normal(mu0, Sigma0);
  y ~ multi_normal(mu, Sigma);
}
