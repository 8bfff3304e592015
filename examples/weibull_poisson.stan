// The paper's running example (section 2, examples/weibull_poisson.cpp) in the Stan language:
// a Weibull prior on the rate of Poisson counts.
data {
  int<lower=0> N;
  array[N] int<lower=0> x;
}
parameters {
  real<lower=0> theta;
}
model {
  theta ~ weibull(1.5, 1);
  x ~ poisson(theta);
}
