// Stochastic volatility (paper section 3.1), centred as in the paper; the same model as
// examples/stochastic_volatility.cpp. The loop over t reads the parameter h[t - 1] (no
// assignment), so it is vectorised into one density over h[2:T].
//   advi fit examples/stochastic_volatility.stan --data ../shared/data/sim/stochvol/small.data.json
data {
  int<lower=2> T;
  vector[T] y;  // mean-corrected returns
}
parameters {
  real mu;                      // mean log volatility
  real<lower=-1, upper=1> phi;  // persistence
  real<lower=0> sigma;          // scale of the volatility shocks
  vector[T] h;                  // log volatility
}
model {
  mu ~ cauchy(0, 10);
  phi ~ uniform(-1, 1);
  sigma ~ lognormal(0, 10);
  h[1] ~ normal(mu, sigma / sqrt(1 - phi * phi));
  for (t in 2:T) {
    h[t] ~ normal(mu + phi * (h[t - 1] - mu), sigma);
  }
  y ~ normal(0, exp(h / 2));
}
