// The shape rule the component ops share (component_ops.hpp).
#include <advi/graph/component_ops.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi::component_ops {

Shape broadcast_shape(const Graph& g, const Node& n) {
    Shape out = Shape::scalar();
    for (int k = 0; k < n.arity(); ++k) {
        const Shape& s = g[n.in[k]].shape;
        if (s.is_scalar())
            continue;
        if (!out.is_scalar() && s != out) {
            throw ShapeError(fmt::format("{}: inputs of shapes {} and {} (only scalars broadcast)",
                                         op_name(n.op), out.str(), s.str()));
        }
        out = s;
    }
    return out;
}

}  // namespace advi::component_ops
