// Logistic regression with a bernoulli_logit likelihood.
data {
  int<lower=0> N;
  int<lower=1> K;
  matrix[N, K] X;
  array[N] int<lower=0, upper=1> y;
}
transformed data {
  // Centre the predictors.
  row_vector[K] x_mean;
  matrix[N, K] Xc;
  for (k in 1:K) {
    x_mean[k] = mean(X[, k]);
    Xc[, k] = X[, k] - x_mean[k];
  }
}
parameters {
  real alpha;
  vector[K] beta;
}
model {
  alpha ~ student_t(3, 0, 2.5);
  beta ~ normal(0, 2.5);
  y ~ bernoulli_logit(alpha + Xc * beta);
}
generated quantities {
  real alpha_raw = alpha - x_mean * beta;
  array[N] int y_rep = bernoulli_logit_rng(alpha + Xc * beta);
  real log_lik = bernoulli_logit_lpmf(y | alpha + Xc * beta);
}
