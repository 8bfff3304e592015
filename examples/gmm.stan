// Gaussian mixture model (paper appendix A.5) with the component of each observation
// marginalised; the same model as examples/gmm.cpp. The sum over the D dimensions of each
// component's log density is two matrix products, so the N x K x D cube is never formed.
// The ELBO has local optima; with the example's settings seed 1 reaches the truth's (ELBO
// -14602 on small; the eta search's eta = 1 does not, see gmm_model.hpp):
//   advi fit examples/gmm.stan --data ../shared/data/sim/gmm/small.data.json --eta 0.3 \
//     --tol-rel-obj 3e-4 --seed 1
data {
  int<lower=1> N;
  int<lower=1> D;
  int<lower=1> K;
  matrix[N, D] y;
  real<lower=0> alpha0;
}
transformed data {
  matrix[N, D] y2 = square(y);
}
parameters {
  simplex[K] theta;               // mixture weights
  matrix<offset=0, multiplier=0.1>[K, D] mu;  // component means (sd 0.1 per unit of zeta)
  matrix<lower=0>[K, D] sigma;    // component scales
}
model {
  matrix[K, D] P = inv_square(sigma);  // precisions
  // log theta_k - 1/2 sum_d mu_kd^2 P_kd - sum_d log sigma_kd - D/2 log(2 pi)
  vector[K] per_k = log(theta) - 0.5 * rows_dot_product(square(mu), P)
                    - log(sigma) * rep_vector(1, D) - 0.5 * D * log(2 * pi());
  // L[n, k] = log theta_k + sum_d normal_lpdf(y[n, d] | mu[k, d], sigma[k, d])
  matrix[N, K] L = -0.5 * (y2 * P') + y * (mu .* P)' + rep_matrix(per_k', N);
  theta ~ dirichlet(rep_vector(alpha0, K));
  to_vector(mu) ~ normal(0, 1);
  to_vector(sigma) ~ lognormal(0, 1);
  for (n in 1:N)
    target += log_sum_exp(L[n]);
}
