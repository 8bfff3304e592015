// Shape checks of the fused transform ops.
#include "fused.hpp"

#include <fmt/format.h>

#include <advi/graph/error.hpp>

namespace advi::fused {

void check_input(const Graph& g, const Node& n, std::string_view op, std::string_view needs,
                 const std::optional<Shape>& expected, Shape out) {
    if (!expected) {
        throw ShapeError(fmt::format("{}: the output must be {}, got {}", op, needs, out.str()));
    }
    const Shape& in = g[n.in[0]].shape;
    if (in != *expected) {
        throw ShapeError(fmt::format("{}: an output {} needs an input {}, got {}", op, out.str(),
                                     expected->str(), in.str()));
    }
}

void check_vjp(const Graph& g, const Node& n, std::string_view op, std::string_view needs,
               const std::optional<Shape>& expected) {
    const Shape& in = g[n.in[0]].shape;
    const Shape& adj = g[n.in[1]].shape;
    if (!expected || *expected != in) {
        throw ShapeError(fmt::format("{} vector-Jacobian product: input {} and adjoint {} do not "
                                     "match (the output must be {})",
                                     op, in.str(), adj.str(), needs));
    }
}

}  // namespace advi::fused
