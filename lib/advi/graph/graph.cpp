// Interning, outputs, printing (text and Graphviz), and the rebuild pass skeleton.
#include <advi/graph/graph.hpp>

#include <bit>
#include <cstring>
#include <ostream>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

int Node::arity() const {
    int k = 0;
    while (k < kMaxArity && in[k] != kNoNode) ++k;
    return k;
}

bool Node::operator==(const Node& o) const {
    // Compare values bitwise so that distinct NaN payloads or -0.0 never merge wrongly.
    return op == o.op && shape == o.shape && dtype == o.dtype && in == o.in &&
           std::bit_cast<std::uint64_t>(value) == std::bit_cast<std::uint64_t>(o.value) &&
           index == o.index && aux == o.aux;
}

std::size_t NodeHash::operator()(const Node& n) const {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(static_cast<std::uint64_t>(n.op));
    mix(static_cast<std::uint64_t>(n.shape.kind));
    mix(static_cast<std::uint64_t>(n.shape.rows));
    mix(static_cast<std::uint64_t>(n.shape.cols));
    mix(static_cast<std::uint64_t>(n.dtype));
    for (NodeId i : n.in) mix(static_cast<std::uint64_t>(i));
    mix(std::bit_cast<std::uint64_t>(n.value));
    mix(static_cast<std::uint64_t>(n.index));
    mix(static_cast<std::uint64_t>(n.aux));
    return static_cast<std::size_t>(h);
}

NodeId Graph::intern(Node n) {
    const OpInfo& info = op_info(n.op);
    if (n.arity() != info.arity) {
        throw InternalError(
            fmt::format("{}: expects {} inputs, got {}", info.name, info.arity, n.arity()));
    }
    for (int k = 0; k < n.arity(); ++k) {
        if (n.in[k] < 0 || n.in[k] >= size()) {
            throw InternalError(
                fmt::format("{}: input {} is not a node of this graph", info.name, n.in[k]));
        }
    }
    n.shape = info.shape(*this, n);
    if (n.op != Op::Data)
        n.dtype = DType::Real;
    if (auto it = index_.find(n); it != index_.end())
        return it->second;
    const auto id = static_cast<NodeId>(nodes_.size());
    bool variable = n.op == Op::Param || n.op == Op::Zeta;
    for (int k = 0; k < n.arity(); ++k) variable = variable || variable_[n.in[k]];
    nodes_.push_back(n);
    variable_.push_back(variable);
    index_.emplace(n, id);
    return id;
}

NodeId Graph::constant(double v, Shape s) {
    Node n;
    n.op = Op::Const;
    n.shape = s;
    n.value = v;
    return intern(n);
}

NodeId Graph::apply(Op op, NodeId a, NodeId b, NodeId c) {
    Node n;
    n.op = op;
    n.in = {a, b, c};
    return intern(n);
}

NodeId Graph::leaf(Op op, Shape s, DType t, std::int64_t index, std::string label) {
    Node n;
    n.op = op;
    n.shape = s;
    n.dtype = t;
    n.index = index;
    NodeId id = intern(n);
    if (!label.empty())
        labels_[id] = std::move(label);
    return id;
}

NodeId Graph::broadcast(NodeId scalar, Shape s) {
    if (nodes_[scalar].shape == s)
        return scalar;
    Node n;
    n.op = Op::Broadcast;
    n.shape = s;
    n.in = {scalar, kNoNode, kNoNode};
    return intern(n);
}

const std::string& Graph::label(NodeId id) const {
    static const std::string empty;
    auto it = labels_.find(id);
    return it == labels_.end() ? empty : it->second;
}

std::optional<double> Graph::const_value(NodeId id) const {
    if (nodes_[id].op == Op::Const)
        return nodes_[id].value;
    return std::nullopt;
}

bool Graph::is_const(NodeId id, double v) const {
    auto c = const_value(id);
    return c && *c == v;
}

void Graph::set_output(std::string name, NodeId id, int offset) {
    for (auto& o : outputs_) {
        if (o.name == name) {
            o.id = id;
            o.offset = offset;
            return;
        }
    }
    outputs_.push_back({std::move(name), id, offset});
}

std::optional<NodeId> Graph::output(std::string_view name) const {
    for (const auto& o : outputs_) {
        if (o.name == name)
            return o.id;
    }
    return std::nullopt;
}

namespace {

std::string node_rhs(const Graph& g, NodeId id) {
    const Node& n = g[id];
    switch (n.op) {
        case Op::Const: return fmt::format("const {}", n.value);
        case Op::Data:
            return fmt::format("data {}{}", g.label(id), n.dtype == DType::Int ? " int" : "");
        case Op::Param: return fmt::format("param {}", g.label(id));
        case Op::Zeta:
            return fmt::format("zeta[{}:{}] {}", n.index, n.index + n.shape.size(), g.label(id));
        default: break;
    }
    std::string s(op_name(n.op));
    for (int k = 0; k < n.arity(); ++k) s += fmt::format(" %{}", n.in[k]);
    // Integer attributes of ops that have them (a block's first row and column).
    if (n.index != 0 || n.aux != 0)
        s += fmt::format(" [{},{}]", n.index, n.aux);
    return s;
}

}  // namespace

std::string Graph::str() const {
    std::string s;
    for (NodeId id = 0; id < size(); ++id) {
        s += fmt::format("%{} {} = {}\n", id, nodes_[id].shape.str(), node_rhs(*this, id));
    }
    for (const auto& o : outputs_) {
        if (o.offset >= 0) {
            s += fmt::format("out {}[{}:{}] = %{}\n", o.name, o.offset,
                             o.offset + nodes_[o.id].shape.size(), o.id);
        } else {
            s += fmt::format("out {} = %{}\n", o.name, o.id);
        }
    }
    return s;
}

std::string Graph::dot() const {
    std::string s = "digraph advi {\n  rankdir=BT;\n  node [fontname=\"monospace\"];\n";
    for (NodeId id = 0; id < size(); ++id) {
        const Node& n = nodes_[id];
        const char* style = n.op == Op::Data                        ? ", shape=box"
                            : n.op == Op::Param || n.op == Op::Zeta ? ", shape=ellipse, style=bold"
                            : n.op == Op::Const                     ? ", shape=plaintext"
                                                                    : ", shape=ellipse";
        s += fmt::format("  n{} [label=\"%{} {}\\n{}\"{}];\n", id, id, node_rhs(*this, id),
                         n.shape.str(), style);
        for (int k = 0; k < n.arity(); ++k) s += fmt::format("  n{} -> n{};\n", n.in[k], id);
    }
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
        s += fmt::format("  out{} [label=\"{}\", shape=doublecircle];\n  n{} -> out{};\n", k,
                         outputs_[k].name, outputs_[k].id, k);
    }
    return s + "}\n";
}

std::ostream& operator<<(std::ostream& os, const Graph& g) {
    return os << g.str();
}

std::vector<bool> live_nodes(const Graph& g) {
    std::vector<bool> live(g.size(), false);
    for (const auto& o : g.outputs()) live[o.id] = true;
    for (NodeId id = g.size() - 1; id >= 0; --id) {
        if (!live[id])
            continue;
        const Node& n = g[id];
        for (int k = 0; k < n.arity(); ++k) live[n.in[k]] = true;
    }
    return live;
}

Graph rebuild(const Graph& g, const Rewrite& rewrite) {
    Graph out;
    std::vector<bool> live = live_nodes(g);
    std::vector<NodeId> map(g.size(), kNoNode);
    for (NodeId id = 0; id < g.size(); ++id) {
        if (!live[id])
            continue;
        Node n = g[id];
        for (int k = 0; k < n.arity(); ++k) n.in[k] = map[n.in[k]];
        const bool is_leaf = n.arity() == 0 && n.op != Op::Const;
        if (rewrite) {
            map[id] = rewrite(out, n, id);
        } else if (is_leaf) {
            map[id] = out.leaf(n.op, n.shape, n.dtype, n.index, g.label(id));
        } else {
            map[id] = out.intern(n);
        }
        if (is_leaf && out.label(map[id]).empty() && !g.label(id).empty() &&
            out[map[id]].op == n.op) {
            out.leaf(n.op, n.shape, n.dtype, n.index, g.label(id));
        }
    }
    for (const auto& o : g.outputs()) out.set_output(o.name, map[o.id], o.offset);
    return out;
}

}  // namespace advi
