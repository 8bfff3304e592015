// The first-passage time density of a Wiener process (Stan's `wiener`): log f(u | w), the
// density at time u of the first passage through the lower of two absorbing boundaries 0 and 1
// of a driftless Brownian motion started at w (Navarro & Fuss 2009). Stan's density of
// boundary separation a, non-decision time tau, bias beta and drift delta (and drift variability
// sv) is this function of u = (y - tau) / a^2 and w = 1 - beta times closed-form factors
// (lib/advi/dist/distribution_table.cpp builds them from the ordinary ops).
//
// Two series represent f: the small-time one (a sum over images of the start point) converges
// fast for small u, the large-time one (a Fourier sine series) for large u. Each is summed in
// log space from its leading term, so that neither underflows (u = 1e-4 or u = 1e3 are
// ordinary), with as many terms as make the first term left out smaller than e^-75 times the
// leading one; the series with fewer terms is used. The derivatives come from the same sums
// carried out on second-order dual numbers, exact to rounding: the ops for d/du and d/dw, then
// for the three second derivatives, make log f twice differentiable (Hessian-vector products),
// the second derivatives being the end of the chain (op_table.cpp's kThirdOrder).
#pragma once

#include <array>

#include <advi/graph/op.hpp>

namespace advi::wiener {

// log f(u | w) and its first and second derivatives in (u, w): {value, d/du, d/dw, d2/du2,
// d2/du dw, d2/dw2}. u <= 0: value -inf (no passage before time 0), derivatives 0; w outside
// (0, 1) or a NaN input: all NaN.
[[nodiscard]] std::array<double, 6> log_first_passage(double u, double w);

// The series each representation sums (for tests: both must agree where both converge).
enum class Series { Small, Large };
[[nodiscard]] double log_first_passage_by(Series s, double u, double w);

// One functor per op (the op table's binary kernels and folds), component k of the above.
template <int K>
struct LogFirstPassageF {
    static double f(double u, double w) { return log_first_passage(u, w)[K]; }
};

using Contrib = std::array<NodeId, 3>;
void adj_log_first_passage(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_log_first_passage_du(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_log_first_passage_dw(Graph& g, NodeId y, NodeId adj, Contrib& c);

}  // namespace advi::wiener
