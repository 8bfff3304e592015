// Supervised probabilistic PCA with ARD (paper appendix A.7); the same model as
// examples/sup_ppca_ard.cpp: ppca_ard.stan plus a response y regressed on the latent coordinates.
// As there, sigma * alpha and sigma are standard deviations (normal's second argument).
//   advi fit examples/sup_ppca_ard.stan --data ../shared/data/sim/sup_ppca_ard/small.data.json
data {
  int<lower=0> N;
  int<lower=1> D;
  int<lower=1> M;
  matrix[N, D] x;
  vector[N] y;
}
parameters {
  real<lower=0> sigma;          // noise sd, of x and of y
  vector<lower=0>[M] alpha;     // ARD scale of each component
  matrix[D, M] W;               // principal components, one column each
  matrix[N, M] Z;               // latent coordinates, z_n is row n
  vector[M] w_y;                // regression of y on z_n; one more row of W for the ARD prior
}
model {
  sigma ~ lognormal(0, 1);
  alpha ~ inv_gamma(1, 1);
  for (d in 1:D)
    W[d] ~ normal(0, sigma * alpha);
  w_y ~ normal(0, sigma * alpha);
  to_vector(Z) ~ normal(0, 1);
  to_vector(x) ~ normal(to_vector(Z * W'), sigma);
  y ~ normal(Z * w_y, sigma);
}
