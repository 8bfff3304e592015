// Stan's built-in hidden Markov model functions on expressions: K states, N observations;
// log_omega (K x N) the log density of each observation in each state, Gamma (K x K) the
// transition matrix (row i: the probabilities of the next state from state i), rho (K) the
// initial state's distribution. Gamma's rows and rho must be simplexes (else NaN: the draw is
// refused). The marginal is differentiable in all three (graph/ops_hmm.hpp); the others are
// values only.
#pragma once

#include <advi/cpp/expr.hpp>

namespace advi {

// log p(y), the hidden states summed out (the forward algorithm).
[[nodiscard]] Expr hmm_marginal(const Arg& log_omega, const Arg& Gamma, const Arg& rho);
// K x N: P(z_n = k | y).
[[nodiscard]] Expr hmm_hidden_state_prob(const Arg& log_omega, const Arg& Gamma, const Arg& rho);
// One path z (N values in 1..K) drawn from p(z | y), from N uniforms in (0, 1).
[[nodiscard]] Expr hmm_latent(const Arg& log_omega, const Arg& Gamma, const Arg& rho,
                              const Expr& uniforms);

}  // namespace advi
