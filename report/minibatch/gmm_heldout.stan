// The held-out log predictive density of report/minibatch/gmm_minibatch.stan's fit, per draw:
// the mean over the held-out rows of log p(y_test[n] | theta, mu, sigma). Its mean over q's
// draws is E_q[log p], the paper's measure up to Jensen's gap (small for a posterior this
// concentrated):
//   advi generate-quantities report/minibatch/gmm_heldout.stan --data gmm.sizes.json \
//     --data gmm_test.y_test.npy --fitted fit.csv --output heldout.csv
data {
  int<lower=1> N_test;
  int<lower=1> D;
  int<lower=1> K;
  matrix[N_test, D] y_test;
}
parameters {
  simplex[K] theta;
  matrix<offset=0, multiplier=0.1>[K, D] mu;
  matrix<lower=0>[K, D] sigma;
}
generated quantities {
  real lpd;
  {
    matrix[K, D] P = inv_square(sigma);
    vector[K] per_k = log(theta) - 0.5 * rows_dot_product(square(mu), P)
                      - log(sigma) * rep_vector(1, D) - 0.5 * D * log(2 * pi());
    matrix[N_test, K] L = -0.5 * (square(y_test) * P') + y_test * (mu .* P)'
                          + rep_matrix(per_k', N_test);
    lpd = 0;
    for (n in 1:N_test)
      lpd += log_sum_exp(L[n]) / N_test;
  }
}
