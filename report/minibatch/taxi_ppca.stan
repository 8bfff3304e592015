// Probabilistic PCA with automatic relevance determination (paper appendix A.6) on the taxi-like
// trips, its latent coordinates integrated out (x_n ~ N(0, W W' + sigma^2 I)) and the rows
// entering through their sufficient statistic S = X' X of the centred rows
// (report/minibatch/taxi_to_npy.py writes it): the full-data posterior of W, alpha and sigma
// over 1.7 million rows at the cost of one D x D Cholesky per evaluation. sum_n x_n' Sigma^-1
// x_n = trace(Sigma^-1 S) = ||L^-1 R||^2 with Sigma = L L' and S = R R'.
data {
  int<lower=1> N;
  int<lower=1> D;
  int<lower=1> M;
  cov_matrix[D] S;
}
transformed data {
  matrix[D, D] R = cholesky_decompose(S);
}
parameters {
  real<lower=0> sigma;       // noise sd
  vector<lower=0>[M] alpha;  // ARD scale of each component
  matrix[D, M] W;            // principal components, one column each
}
model {
  sigma ~ lognormal(0, 1);
  alpha ~ inv_gamma(1, 1);
  for (d in 1:D)
    W[d] ~ normal(0, sigma * alpha);
  {
    matrix[D, D] L = cholesky_decompose(add_diag(tcrossprod(W), square(sigma)));
    target += -0.5 * N * D * log(2 * pi()) - N * sum(log(diagonal(L)))
              - 0.5 * sum(square(mdivide_left_tri_low(L, R)));
  }
}
