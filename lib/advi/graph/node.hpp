// A graph node is a value, not a statement: {op, shape, dtype, inputs, attributes}.
// Nodes are created only through Graph::intern, so equal nodes are one node.
#pragma once

#include <array>
#include <cstdint>

#include <advi/graph/op.hpp>
#include <advi/graph/shape.hpp>

namespace advi {

using NodeId = std::int32_t;
inline constexpr NodeId kNoNode = -1;
inline constexpr int kMaxArity = 3;

struct Node {
    Op op = Op::Const;
    Shape shape;
    DType dtype = DType::Real;
    std::array<NodeId, kMaxArity> in{kNoNode, kNoNode, kNoNode};
    // Attributes: `value` of a Const (broadcast over `shape`); `index` of a leaf:
    // the latent variable of a Param, the slot of a Data, the offset into zeta of a Zeta;
    // `index` and `aux` are free for other ops' integer attributes (a segment's start, a
    // block's first row and column).
    double value = 0.0;
    std::int64_t index = 0;
    std::int64_t aux = 0;

    [[nodiscard]] int arity() const;
    bool operator==(const Node& o) const;
};

struct NodeHash {
    std::size_t operator()(const Node& n) const;
};

}  // namespace advi
