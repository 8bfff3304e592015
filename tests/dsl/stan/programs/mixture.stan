// A two-component normal mixture (log_mix) and a K-component one (log_sum_exp), both with
// the discrete assignments summed out.
data {
  int<lower=1> N;
  int<lower=1> K;
  vector[N] y;
}
parameters {
  real<lower=0, upper=1> lambda;
  ordered[2] mu2;
  vector<lower=0>[2] sigma2;
  simplex[K] theta;
  ordered[K] mu;
  vector<lower=0>[K] sigma;
}
model {
  mu2 ~ normal(0, 10);
  sigma2 ~ lognormal(0, 2);
  mu ~ normal(0, 10);
  sigma ~ lognormal(0, 2);
  for (n in 1:N) {
    target += log_mix(lambda, normal_lpdf(y[n] | mu2[1], sigma2[1]),
                      normal_lpdf(y[n] | mu2[2], sigma2[2]));
  }
  {
    vector[K] log_theta = log(theta);
    for (n in 1:N) {
      vector[K] lps = log_theta;
      for (k in 1:K)
        lps[k] += normal_lpdf(y[n] | mu[k], sigma[k]);
      target += log_sum_exp(lps);
    }
  }
}
