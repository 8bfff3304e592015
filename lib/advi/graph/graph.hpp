// The graph: a DAG of typed, shaped nodes, hash-consed by `intern` (equal nodes are one
// node, so common subexpressions merge at birth). Node ids are a topological order.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <advi/graph/node.hpp>

namespace advi {

class Graph {
public:
    // A named result of the graph. `offset` places vector outputs in a flat output
    // vector (the gradient over zeta, or the constrained draws); -1 for none.
    struct Output {
        std::string name;
        NodeId id = kNoNode;
        int offset = -1;
    };

    // The one way to create a node: computes its shape by the op's rule (throwing a
    // ShapeError that names the op and the shapes), then returns the existing equal
    // node if there is one.
    NodeId intern(Node n);

    // Conveniences over intern.
    NodeId constant(double v, Shape s = Shape::scalar());
    NodeId apply(Op op, NodeId a, NodeId b = kNoNode, NodeId c = kNoNode);
    NodeId leaf(Op op, Shape s, DType t, std::int64_t index, std::string label);
    NodeId broadcast(NodeId scalar, Shape s);

    [[nodiscard]] const Node& operator[](NodeId id) const { return nodes_[id]; }
    [[nodiscard]] int size() const { return static_cast<int>(nodes_.size()); }
    [[nodiscard]] const std::string& label(NodeId id) const;
    // True when the node depends on a Param or Zeta leaf (not only on data and constants).
    [[nodiscard]] bool is_variable(NodeId id) const { return variable_[id]; }
    // The value of a Const node, or nothing.
    [[nodiscard]] std::optional<double> const_value(NodeId id) const;
    [[nodiscard]] bool is_const(NodeId id, double v) const;

    void set_output(std::string name, NodeId id, int offset = -1);
    void clear_outputs() { outputs_.clear(); }
    [[nodiscard]] const std::vector<Output>& outputs() const { return outputs_; }
    [[nodiscard]] std::optional<NodeId> output(std::string_view name) const;

    // A line per node: `%7 vec[10] = mul %3 %5`, leaves with their labels, then the
    // outputs: `out lp = %12`. See README "Reading a printed graph".
    [[nodiscard]] std::string str() const;
    // Graphviz.
    [[nodiscard]] std::string dot() const;

private:
    std::vector<Node> nodes_;
    std::vector<bool> variable_;
    std::unordered_map<NodeId, std::string> labels_;
    std::unordered_map<Node, NodeId, NodeHash> index_;
    std::vector<Output> outputs_;
};

std::ostream& operator<<(std::ostream& os, const Graph& g);

// The nodes reachable from the outputs (a dead-node mask).
[[nodiscard]] std::vector<bool> live_nodes(const Graph& g);

// A pass skeleton: copies the live nodes of `g` in order into a new graph, with inputs
// remapped, letting `rewrite` decide what each becomes (by default: the same node).
// Outputs and leaf labels carry over.
using Rewrite = std::function<NodeId(Graph& out, const Node& remapped, NodeId old_id)>;
[[nodiscard]] Graph rebuild(const Graph& g, const Rewrite& rewrite = {});

}  // namespace advi
