// Rewrite rules applied by a simplifying constructor while the graph is rebuilt: each
// rule is local, keeps the node's shape, and never makes a run do more work over
// full-size operands (a rule may add a scalar node to save a pass over a vector).
#include <advi/diff/simplify.hpp>

#include <utility>

namespace advi {
namespace {

class Simplifier {
public:
    explicit Simplifier(Graph& g) : g_(g) {}

    NodeId make(Node n) {
        const OpInfo& info = op_info(n.op);
        if (n.arity() == 0)
            return g_.intern(n);
        n.shape = info.shape(g_, n);
        if (auto r = rewrite(n, info))
            return *r;
        return g_.intern(n);
    }

private:
    Graph& g_;

    NodeId apply(Op op, NodeId a, NodeId b = kNoNode) {
        Node n;
        n.op = op;
        n.in = {a, b, kNoNode};
        return make(n);
    }
    std::optional<double> cv(NodeId id) const { return g_.const_value(id); }
    bool scalar(NodeId id) const { return g_[id].shape.is_scalar(); }
    // A non-scalar x = s y with a scalar factor s (scalars come first in products).
    bool scaled(NodeId id) const {
        const Node& x = g_[id];
        return x.op == Op::Mul && !x.shape.is_scalar() && g_[x.in[0]].shape.is_scalar() &&
               !g_[x.in[1]].shape.is_scalar();
    }
    bool is(NodeId id, double v) const { return g_.is_const(id, v); }
    // `x` at shape `s`: itself, or a scalar broadcast to s.
    NodeId at(NodeId x, const Shape& s) {
        if (g_[x].shape == s)
            return x;
        if (auto c = cv(x))
            return g_.constant(*c, s);
        return g_.broadcast(x, s);
    }

    // x[idx], tile_rows(x), rep_rows(x) or rep_cols(x) under reshapes, when it is longer than
    // x (a loop's parameter spread over its iterations): that read's node.
    std::optional<NodeId> widening_read(NodeId v) const {
        while (g_[v].op == Op::Reshape) v = g_[v].in[0];
        const Node& x = g_[v];
        if ((x.op != Op::Gather && x.op != Op::TileRows && x.op != Op::RepRows &&
             x.op != Op::RepCols) ||
            g_[x.in[0]].shape.size() >= x.shape.size())
            return std::nullopt;
        return v;
    }
    // Ops computed value by value whose kernels cannot throw (a value of x the index never
    // reads can only become a NaN that nothing reads).
    static bool per_value(Op op) {
        switch (op) {
            case Op::Neg:
            case Op::Exp:
            case Op::Log:
            case Op::Square:
            case Op::Sqrt:
            case Op::Add:
            case Op::Sub:
            case Op::Mul:
            case Op::Div: return true;
            default: return false;
        }
    }
    // f(x[idx]) = f(x)[idx], and s op x[idx] = (s op x)[idx] for a scalar s, when x is shorter
    // than idx: f runs over x's values once instead of once per gathered copy (log sigma_k for
    // every point of a mixture), and the gradient scatters one adjoint back through f. The
    // same through tiles and repeats.
    std::optional<NodeId> through_gather(const Node& n) {
        if (!per_value(n.op) || n.shape.is_scalar())
            return std::nullopt;
        int full = -1;
        for (int k = 0; k < n.arity(); ++k) {
            if (scalar(n.in[k]))
                continue;
            if (full >= 0)
                return std::nullopt;
            full = k;
        }
        const auto read = widening_read(n.in[full]);
        if (!read)
            return std::nullopt;
        Node widen = g_[*read];
        NodeId in[2] = {n.in[0], n.in[1]};
        in[full] = widen.in[0];
        widen.in[0] = apply(n.op, in[0], in[1]);
        const NodeId y = make(widen);
        if (g_[y].shape == n.shape)
            return y;
        Node r;
        r.op = Op::Reshape;
        r.shape = n.shape;
        r.in = {y, kNoNode, kNoNode};
        return make(r);
    }

    std::optional<NodeId> rewrite(const Node& n, const OpInfo& info) {
        const NodeId a = n.in[0];
        const NodeId b = n.in[1];
        if (auto r = through_gather(n))
            return r;
        // Constant folding: every input a constant (scalar or filled) -> one constant.
        if (info.fold != nullptr && n.op != Op::ToReal) {
            bool all_const = true;
            for (int k = 0; k < n.arity(); ++k) all_const = all_const && cv(n.in[k]).has_value();
            if (all_const) {
                const double x = *cv(a);
                const double y = n.arity() > 1 ? *cv(b) : 0.0;
                return g_.constant(info.fold(x, y), n.shape);
            }
        }
        // An elementwise op does its own scalar broadcasting: broadcast(s) op v -> s op v,
        // and a filled constant against a full operand is just its scalar.
        if (info.elementwise && n.arity() == 2) {
            if (auto c = cv(a); c && !g_[a].shape.is_scalar() && g_[b].shape == n.shape) {
                return apply(n.op, g_.constant(*c), b);
            }
            if (auto c = cv(b); c && !g_[b].shape.is_scalar() && g_[a].shape == n.shape) {
                return apply(n.op, a, g_.constant(*c));
            }
            if (g_[a].op == Op::Broadcast && g_[b].shape == n.shape) {
                return apply(n.op, g_[a].in[0], b);
            }
            if (g_[b].op == Op::Broadcast && g_[a].shape == n.shape) {
                return apply(n.op, a, g_[b].in[0]);
            }
        }
        switch (n.op) {
            case Op::Add:
                if (is(b, 0))
                    return at(a, n.shape);  // x + 0 = x
                if (is(a, 0))
                    return at(b, n.shape);  // 0 + x = x
                if (g_[b].op == Op::Neg)
                    return apply(Op::Sub, a, g_[b].in[0]);  // x + -y = x - y
                if (g_[a].op == Op::Neg)
                    return apply(Op::Sub, b, g_[a].in[0]);  // -x + y = y - x
                break;
            case Op::Sub:
                if (is(b, 0))
                    return at(a, n.shape);  // x - 0 = x
                if (is(a, 0))
                    return at(apply(Op::Neg, b), n.shape);  // 0 - x = -x
                if (g_[b].op == Op::Neg)
                    return apply(Op::Add, a, g_[b].in[0]);  // x - -y = x + y
                break;
            case Op::Mul:
                // x * 0 = 0: safe here because zeros come from constants of the model
                // (an adjoint that does not flow), not from values that could be inf.
                if (is(a, 0) || is(b, 0))
                    return g_.constant(0.0, n.shape);
                if (is(b, 1))
                    return at(a, n.shape);  // x * 1 = x
                if (is(a, 1))
                    return at(b, n.shape);  // 1 * x = x
                if (is(b, -1))
                    return at(apply(Op::Neg, a), n.shape);  // x * -1 = -x
                if (is(a, -1))
                    return at(apply(Op::Neg, b), n.shape);
                if (a == b)
                    return apply(Op::Square, a);                   // x * x = square(x)
                if (g_[a].op == Op::Neg && g_[b].op == Op::Neg) {  // -x * -y = x * y
                    return apply(Op::Mul, g_[a].in[0], g_[b].in[0]);
                }
                if (g_[a].op == Op::Neg)
                    return apply(Op::Neg, apply(Op::Mul, g_[a].in[0], b));
                if (g_[b].op == Op::Neg)
                    return apply(Op::Neg, apply(Op::Mul, a, g_[b].in[0]));
                // c1 * (c2 * x) = (c1 c2) * x
                if (cv(a) && g_[b].op == Op::Mul && cv(g_[b].in[0]) && scalar(a)) {
                    return apply(Op::Mul, g_.constant(*cv(a) * *cv(g_[b].in[0])), g_[b].in[1]);
                }
                // constants first, but scalars before them: a filled constant vector times a
                // scalar latent would otherwise swap back and forth with the rule below
                // (found by a skew_double_exponential with a constant vector tau)
                if (cv(b) && !cv(a) && (scalar(b) || !scalar(a)))
                    return apply(Op::Mul, b, a);
                // Scalar factors move outward (scalars first), so that sum(s x) = s sum(x),
                // square(s x) = s^2 square(x) and products of scalars find each other: a
                // scale applied to a long vector in several places becomes one scalar.
                if (scalar(b) && !scalar(a))
                    return apply(Op::Mul, b, a);             // x s = s x
                if (scalar(a) && !scalar(b) && scaled(b)) {  // s (t y) = (s t) y
                    return apply(Op::Mul, apply(Op::Mul, a, g_[b].in[0]), g_[b].in[1]);
                }
                if (!scalar(a) && !scalar(b)) {
                    if (scaled(a)) {  // (s x) y = s (x y)
                        return apply(Op::Mul, g_[a].in[0], apply(Op::Mul, g_[a].in[1], b));
                    }
                    if (scaled(b)) {  // x (s y) = s (x y)
                        return apply(Op::Mul, g_[b].in[0], apply(Op::Mul, a, g_[b].in[1]));
                    }
                }
                break;
            case Op::Square:
                if (scaled(a)) {  // square(s x) = s^2 square(x)
                    return apply(Op::Mul, apply(Op::Square, g_[a].in[0]),
                                 apply(Op::Square, g_[a].in[1]));
                }
                if (g_[a].op == Op::Neg)
                    return apply(Op::Square, g_[a].in[0]);  // (-x)^2 = x^2
                break;
            case Op::Div:
                if (is(b, 1))
                    return at(a, n.shape);  // x / 1 = x
                if (is(a, 0))
                    return g_.constant(0.0, n.shape);  // 0 / x = 0
                if (g_[a].op == Op::Neg)
                    return apply(Op::Neg, apply(Op::Div, g_[a].in[0], b));  // -x / y = -(x / y)
                if (auto c = cv(b); c && g_[b].shape.is_scalar() && *c != 0) {
                    return apply(Op::Mul, g_.constant(1.0 / *c), a);  // x / c = (1/c) x
                }
                // x / exp(y) = x exp(-y): no division, and exp(-y)'s derivative is itself.
                if (g_[b].op == Op::Exp) {
                    return apply(Op::Mul, a, apply(Op::Exp, apply(Op::Neg, g_[b].in[0])));
                }
                // x / s = (1/s) x for a scalar s: one division instead of n.
                if (g_[b].shape.is_scalar() && !g_[a].shape.is_scalar()) {
                    return apply(Op::Mul, apply(Op::Div, g_.constant(1.0), b), a);
                }
                // x / v = x * (1/v): the reciprocal is interned, so every quotient by v
                // shares one division pass (divisions cost several multiplies).
                if (!g_[b].shape.is_scalar() && !is(a, 1)) {
                    return apply(Op::Mul, a, apply(Op::Div, g_.constant(1.0), b));
                }
                break;
            case Op::Neg:
                if (g_[a].op == Op::Neg)
                    return g_[a].in[0];                        // --x = x
                if (g_[a].op == Op::Mul && cv(g_[a].in[0])) {  // -(c x) = (-c) x
                    return apply(Op::Mul, g_.constant(-*cv(g_[a].in[0]), g_[g_[a].in[0]].shape),
                                 g_[a].in[1]);
                }
                break;
            case Op::Log:
                if (g_[a].op == Op::Exp)
                    return g_[a].in[0];  // log(exp(x)) = x
                break;
            case Op::Pow:
                if (is(b, 1))
                    return at(a, n.shape);  // x^1 = x
                if (is(b, 2))
                    return at(apply(Op::Square, a), n.shape);  // x^2 = square(x)
                if (is(b, 0.5))
                    return at(apply(Op::Sqrt, a), n.shape);  // x^0.5 = sqrt(x)
                break;
            case Op::Sum: {
                // A copy: the apply() calls below add nodes to g_, which may move its nodes.
                const Node x = g_[a];
                if (x.shape.is_scalar())
                    return a;  // sum(s) = s
                if (auto c = cv(a))
                    return g_.constant(*c * x.shape.size());
                // sum(broadcast(s)) = n s
                if (x.op == Op::Broadcast) {
                    return apply(Op::Mul, g_.constant(x.shape.size()), x.in[0]);
                }
                // sum(s * v) = s sum(v) for a scalar s: one multiply instead of n.
                if (x.op == Op::Mul && g_[x.in[0]].shape.is_scalar()) {
                    return apply(Op::Mul, x.in[0], apply(Op::Sum, x.in[1]));
                }
                if (x.op == Op::Mul && g_[x.in[1]].shape.is_scalar()) {
                    return apply(Op::Mul, x.in[1], apply(Op::Sum, x.in[0]));
                }
                if (x.op == Op::Neg)
                    return apply(Op::Neg, apply(Op::Sum, x.in[0]));
                if (x.op == Op::Reshape)
                    return apply(Op::Sum, x.in[0]);  // order-free
                // The sum of a product's entries from the operands' sums, when the product is
                // the larger: sum(A B) = col_sums(A) . row_sums(B) (a Poisson rate matrix
                // summed), and likewise for the transposed forms.
                // (Only for two operands: x.in[1] of a unary op is kNoNode.)
                if (x.arity() == 2 &&
                    x.shape.size() > g_[x.in[0]].shape.size() + g_[x.in[1]].shape.size()) {
                    const NodeId A = x.in[0], B = x.in[1];
                    switch (x.op) {
                        case Op::MatMul:  // A B
                            return apply(Op::Dot, apply(Op::ColSums, A), apply(Op::RowSums, B));
                        case Op::MatMulT:  // A B'
                            return apply(Op::Dot, apply(Op::ColSums, A), apply(Op::ColSums, B));
                        case Op::MatTMul:  // A' B
                            return apply(Op::Dot, apply(Op::RowSums, A), apply(Op::RowSums, B));
                        case Op::MatVec:  // A v
                            return apply(Op::Dot, apply(Op::ColSums, A), B);
                        case Op::MatTVec:  // A' v
                            return apply(Op::Dot, apply(Op::RowSums, A), B);
                        default: break;
                    }
                }
                break;
            }
            case Op::RowSums:
            case Op::ColSums: {
                // Scalars move out of sums by rows or columns, as out of sum(): one pass over
                // the sums instead of one over the matrix (the -0.5 of a normal density and
                // its constant, summed over a point's coordinates).
                const Node x = g_[a];
                const double count = n.op == Op::RowSums ? x.shape.cols : x.shape.rows;
                if (scaled(a))  // sums(s X) = s sums(X)
                    return apply(Op::Mul, x.in[0], apply(n.op, x.in[1]));
                if (x.op == Op::Neg)  // sums(-X) = -sums(X)
                    return apply(Op::Neg, apply(n.op, x.in[0]));
                if ((x.op == Op::Add || x.op == Op::Sub) && x.shape.size() > 1) {
                    const bool s0 = scalar(x.in[0]), s1 = scalar(x.in[1]);
                    if (s0 != s1) {  // sums(X +- s) = sums(X) +- count s, and s - X likewise
                        const NodeId s_times_count =
                            apply(Op::Mul, g_.constant(count), s0 ? x.in[0] : x.in[1]);
                        const NodeId sums = apply(n.op, s0 ? x.in[1] : x.in[0]);
                        return s0 ? apply(x.op, s_times_count, sums)
                                  : apply(x.op, sums, s_times_count);
                    }
                }
                break;
            }
            case Op::Reshape:
                // reshape(s X) = s reshape(X): scalars keep moving outward, to the sums above.
                if (scaled(a)) {
                    Node r = n;
                    r.in[0] = g_[a].in[1];
                    const NodeId s_ = g_[a].in[0];
                    return apply(Op::Mul, s_, make(r));
                }
                break;
            case Op::Broadcast:
            case Op::RepCols:
            case Op::RepRows:
            case Op::TileRows:
                if (auto c = cv(a))
                    return g_.constant(*c, n.shape);  // filled constants
                break;
            case Op::MatMul:
            case Op::MatTMul:
            case Op::MatMulT:
            case Op::MatVec:
            case Op::MatTVec:
                // (s A) B = s (A B) for a scalar s, when the product is smaller than the
                // operand: the scaling moves to the smaller side.
                for (int k = 0; k < 2; ++k) {
                    const NodeId x = n.in[k];
                    if (g_[x].shape.size() <= n.shape.size())
                        continue;
                    NodeId in[2] = {a, b};
                    if (g_[x].op == Op::Mul && g_[g_[x].in[0]].shape.is_scalar()) {
                        in[k] = g_[x].in[1];
                        return apply(Op::Mul, g_[x].in[0], apply(n.op, in[0], in[1]));
                    }
                    if (g_[x].op == Op::Neg) {
                        in[k] = g_[x].in[0];
                        return apply(Op::Neg, apply(n.op, in[0], in[1]));
                    }
                }
                break;
            default: break;
        }
        return std::nullopt;
    }
};

}  // namespace

Graph simplify(const Graph& g) {
    // Rules can expose new opportunities upstream of a rewritten node's users; a few
    // rounds reach the fixed point on every graph we have seen.
    Graph cur = g;
    for (int round = 0; round < 4; ++round) {
        Graph next = rebuild(cur, [](Graph& out, const Node& n, NodeId) {
            Simplifier s(out);
            return s.make(n);
        });
        const bool same = next.size() == cur.size();
        cur = std::move(next);
        if (same && round > 0)
            break;
    }
    // x / v became x * (1 / v) so that quotients by v share one reciprocal; where the
    // reciprocal has a single reader, one division pass is cheaper than two passes.
    std::vector<int> readers(cur.size(), 0);
    for (NodeId id = 0; id < static_cast<NodeId>(cur.size()); ++id)
        for (int k = 0; k < cur[id].arity(); ++k) ++readers[cur[id].in[k]];
    for (const auto& o : cur.outputs()) ++readers[o.id];
    return rebuild(cur, [&](Graph& out, const Node& n, NodeId old) {
        const Node& o = cur[old];
        if (o.op == Op::Mul) {
            for (int k = 0; k < 2; ++k) {
                const Node& r = cur[o.in[k]];
                if (r.op == Op::Div && readers[o.in[k]] == 1 && cur.is_const(r.in[0], 1.0) &&
                    r.shape == o.shape) {
                    // n's inputs are already mapped: n.in[k] is the reciprocal in `out`.
                    return out.apply(Op::Div, n.in[1 - k], out[n.in[k]].in[1]);
                }
            }
        }
        return out.intern(n);
    });
}

}  // namespace advi
