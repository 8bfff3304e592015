// Issue 19's mixture as a Stan program with loops over points and components, the way a user
// writes it (the value-program test's `mixture_loops.stan`), lowered on the benchmark's data:
// the lowering vectorises the loops into gathers of mu and sigma over N x K x D values, which
// is what the compiled program has to handle without materialising them. The hand-written
// gradient is in mixture_loops_hand.hpp.
#pragma once

#include <memory>
#include <string>

#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "mixture_loops_hand.hpp"

namespace advi::bench {

inline constexpr const char* kMixtureLoopsStan = R"(
data { int<lower=1> N; int<lower=1> D; int<lower=1> K; array[N] vector[D] y; }
parameters { simplex[K] theta; array[K] vector[D] mu; array[K] vector<lower=0>[D] sigma; }
model {
  for (k in 1:K) { mu[k] ~ normal(0, 5); sigma[k] ~ lognormal(0, 1); }
  for (n in 1:N) {
    vector[K] lps;
    for (k in 1:K) lps[k] = log(theta[k]) + normal_lpdf(y[n] | mu[k], sigma[k]);
    target += log_sum_exp(lps);
  }
}
)";

// The data as CmdStan JSON (shortest round-trip decimals: the same doubles as d.Y).
inline std::string mixture_loops_json(const MixtureLoopsData& d) {
    std::string y;
    for (int n = 0; n < d.N; ++n) {
        y += n == 0 ? "[" : ",[";
        for (int j = 0; j < d.D; ++j) y += fmt::format("{}{}", j == 0 ? "" : ",", d.Y(n, j));
        y += ']';
    }
    return fmt::format(R"({{"N": {}, "D": {}, "K": {}, "y": [{}]}})", d.N, d.D, d.K, y);
}

inline std::unique_ptr<stan::LoweredProgram> lower_mixture_loops(const MixtureLoopsData& d) {
    return stan::lower(stan::parse_program(kMixtureLoopsStan, "mixture_loops.stan"),
                       read_json_data(mixture_loops_json(d), "mixture_loops.json"));
}

}  // namespace advi::bench
