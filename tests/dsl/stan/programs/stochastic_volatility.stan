// Stochastic volatility (Kim, Shephard and Chib 1998): log volatility h follows an AR(1),
// written non-centred.
data {
  int<lower=0> T;
  vector[T] y;  // mean-corrected returns
}
parameters {
  real mu;                      // mean log volatility
  real<lower=-1, upper=1> phi;  // persistence
  real<lower=0> sigma;          // white noise shock scale
  vector[T] h_std;              // standardised log volatility
}
transformed parameters {
  vector[T] h = h_std * sigma;
  h[1] /= sqrt(1 - phi * phi);
  h += mu;
  for (t in 2:T) {
    h[t] += phi * (h[t - 1] - mu);
  }
}
model {
  phi ~ uniform(-1, 1);
  sigma ~ cauchy(0, 5);
  mu ~ cauchy(0, 10);
  h_std ~ std_normal();
  y ~ normal(0, exp(h / 2));
}
