// Probabilistic PCA with automatic relevance determination (paper appendix A.6); the same model
// as examples/ppca_ard.cpp. M is the largest number of components (the data files set M = D).
//   advi fit examples/ppca_ard.stan --data ../shared/data/sim/ppca_ard/small.data.json
data {
  int<lower=0> N;
  int<lower=1> D;
  int<lower=1> M;
  matrix[N, D] x;
}
parameters {
  real<lower=0> sigma;          // noise sd
  vector<lower=0>[M] alpha;     // ARD scale of each component
  matrix[D, M] W;               // principal components, one column each
  matrix[N, M] Z;               // latent coordinates, z_n is row n
}
model {
  sigma ~ lognormal(0, 1);
  alpha ~ inv_gamma(1, 1);
  for (d in 1:D)
    W[d] ~ normal(0, sigma * alpha);
  to_vector(Z) ~ normal(0, 1);
  to_vector(x) ~ normal(to_vector(Z * W'), sigma);
}
