// Expectations over a few nuisance variables as graph terms, by fixed quadrature rules: the
// seven-parameter Wiener distribution averages the first-passage density and distribution
// function over a uniform start point and a uniform non-decision time. A rule's nodes are fixed
// numbers; the points where the integrand is evaluated are graph nodes affine in the distribution's
// arguments (beta + sw (x - 1/2), ...), so the expectation is an ordinary sum of terms that
// differentiates to any order.
#pragma once

#include <vector>

#include <advi/graph/graph.hpp>

namespace advi {

// Nodes and weights (summing to 1) of an expectation over one variable.
struct QuadratureRule {
    std::vector<double> nodes;
    std::vector<double> weights;
};
// Gauss–Legendre with k nodes for a uniform variable on [0, 1]: exact for polynomials of
// degree 2k - 1.
[[nodiscard]] const QuadratureRule& gauss_legendre_unit(int k);

// The tensor product of rules over the elements of a broadcast shape (a scalar or a vector of
// n): each variable's points as a node of shape [K] (scalar shape) or [n, K], K the product of
// the rules' sizes, and log E[e^f] from f's values at them.
class Quadrature {
public:
    Quadrature(Graph& g, Shape shape, const std::vector<const QuadratureRule*>& rules);
    // The points of variable `i` (a rule's position in the constructor's list).
    [[nodiscard]] NodeId variable(int i) const { return variables_[static_cast<std::size_t>(i)]; }
    // An argument of the integrand, a scalar or of the shape: as a node the points broadcast
    // against.
    [[nodiscard]] NodeId expand(NodeId x) const;
    // log sum_k w_k e^{f_k} over the points: a scalar, or a vector of n.
    [[nodiscard]] NodeId log_mean(NodeId log_values) const;

private:
    Graph& g_;
    Shape shape_;
    int size_ = 1;
    std::vector<NodeId> variables_;
    NodeId log_weights_ = kNoNode;
};

}  // namespace advi
