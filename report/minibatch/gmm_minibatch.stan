// The paper's section 4 mixture (appendix A.5), written for `advi fit --minibatch B --rows N`:
// examples/gmm.stan with square(y) computed per batch in the model block (transformed data may
// not read the rows), every other line the same.
//   advi fit report/minibatch/gmm_minibatch.stan --data gmm.sizes.json --data gmm.y.npy \
//     --minibatch 500 --rows N
data {
  int<lower=1> N;
  int<lower=1> D;
  int<lower=1> K;
  matrix[N, D] y;
  real<lower=0> alpha0;
}
parameters {
  simplex[K] theta;                           // mixture weights
  matrix<offset=0, multiplier=0.1>[K, D] mu;  // component means (sd 0.1 per unit of zeta)
  matrix<lower=0>[K, D] sigma;                // component scales
}
model {
  matrix[K, D] P = inv_square(sigma);  // precisions
  vector[K] per_k = log(theta) - 0.5 * rows_dot_product(square(mu), P)
                    - log(sigma) * rep_vector(1, D) - 0.5 * D * log(2 * pi());
  matrix[N, K] L = -0.5 * (square(y) * P') + y * (mu .* P)' + rep_matrix(per_k', N);
  theta ~ dirichlet(rep_vector(alpha0, K));
  to_vector(mu) ~ normal(0, 1);
  to_vector(sigma) ~ lognormal(0, 1);
  for (n in 1:N)
    target += log_sum_exp(L[n]);
}
