// Hierarchical logistic regression of election-poll data (paper appendix A.2; Stan's
// election88 model); the same model as examples/hier_logistic.cpp.
//   advi fit examples/hier_logistic.stan --data ../shared/data/sim/hier_logistic/medium.data.json
data {
  int<lower=0> N;
  int<lower=1> n_age;
  int<lower=1> n_edu;
  int<lower=1> n_age_edu;  // n_age * n_edu
  int<lower=1> n_state;
  int<lower=1> n_region;
  array[n_state] int<lower=1, upper=n_region> region;
  vector[n_state] v_prev;  // previous-vote share per state
  vector<lower=0, upper=1>[N] female;
  vector<lower=0, upper=1>[N] black;
  array[N] int<lower=1, upper=n_age> age;
  array[N] int<lower=1, upper=n_edu> edu;
  array[N] int<lower=1, upper=n_age_edu> age_edu;  // (age - 1) * n_edu + edu
  array[N] int<lower=1, upper=n_state> state;
  array[N] int<lower=0, upper=1> y;
}
transformed data {
  vector[N] female_black = female .* black;
}
parameters {
  real<lower=0, upper=100> sigma_age;
  real<lower=0, upper=100> sigma_edu;
  real<lower=0, upper=100> sigma_age_edu;
  real<lower=0, upper=100> sigma_state;
  real<lower=0, upper=100> sigma_region;
  real beta_0;
  real beta_female;
  real beta_black;
  real beta_female_black;
  real beta_v_prev;
  vector[n_age] alpha_age;
  vector[n_edu] alpha_edu;
  vector[n_age_edu] alpha_age_edu;
  vector[n_region] alpha_region;
  vector[n_state] alpha_state;
}
model {
  sigma_age ~ uniform(0, 100);
  sigma_edu ~ uniform(0, 100);
  sigma_age_edu ~ uniform(0, 100);
  sigma_state ~ uniform(0, 100);
  sigma_region ~ uniform(0, 100);
  beta_0 ~ normal(0, 100);
  beta_female ~ normal(0, 100);
  beta_black ~ normal(0, 100);
  beta_female_black ~ normal(0, 100);
  beta_v_prev ~ normal(0, 100);
  alpha_age ~ normal(0, sigma_age);
  alpha_edu ~ normal(0, sigma_edu);
  alpha_age_edu ~ normal(0, sigma_age_edu);
  alpha_region ~ normal(0, sigma_region);
  alpha_state ~ normal(alpha_region[region] + beta_v_prev * v_prev, sigma_state);
  y ~ bernoulli_logit(beta_0 + beta_female * female + beta_black * black
                      + beta_female_black * female_black + alpha_age[age] + alpha_edu[edu]
                      + alpha_age_edu[age_edu] + alpha_state[state]);
}
