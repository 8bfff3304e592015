// The Gamma "posteriors" of the paper's section 3.3 (examples/gamma_transforms.cpp) in the Stan
// language. Stan maps a <lower=0> parameter by T1 = log only, so the program declares the real
// coordinate zeta itself and writes both maps out with their log-Jacobians:
//   T1: theta = exp(zeta),                 log|d theta / d zeta| = zeta
//   T2: theta = log(1 + exp(zeta)),        log|d theta / d zeta| = log inv_logit(zeta)
// Data: {"alpha": 2.5, "beta": 4.2, "transform": 2}.
data {
  real<lower=0> alpha;
  real<lower=0> beta;
  int<lower=1, upper=2> transform;
}
parameters {
  real zeta;
}
transformed parameters {
  real theta;
  if (transform == 1) {
    theta = exp(zeta);
  } else {
    theta = log1p_exp(zeta);
  }
}
model {
  theta ~ gamma(alpha, beta);
  if (transform == 1) {
    target += zeta;
  } else {
    target += log_inv_logit(zeta);
  }
}
