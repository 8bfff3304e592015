// The constrain pass: substitutes each Param leaf by its transform's graph fragment.
#include <advi/compile/constrain.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/transform/transform.hpp>

namespace advi {
namespace {

struct Substituted {
    Graph graph;
    std::vector<NodeId> theta;   // per latent: T^-1(zeta)
    std::vector<NodeId> logdet;  // per latent: log|det J|
};

// The support arguments that are expressions of the model graph: a latent's offset or
// bounds computed from data or other latents.
std::vector<SupportArg*> expression_args(Support& s) {
    std::vector<SupportArg*> out;
    for (SupportArg* a : {&s.lower, &s.upper, &s.offset, &s.multiplier}) {
        if (a->is_expression())
            out.push_back(a);
    }
    return out;
}

// Rebuilds m.graph with every Param leaf replaced by T^-1 of a Zeta slice. The Param
// leaves are made roots too, so that a latent the density does not use still gets its
// slice (and a zero gradient), and so are the expressions of supports, which the
// fragments read at their new ids.
Substituted substitute(const ModelSpec& m) {
    Graph src = m.graph;
    for (const auto& v : m.latents) {
        src.set_output("param " + v.name, v.node);
        Support s = v.support;
        int k = 0;
        for (SupportArg* a : expression_args(s)) {
            src.set_output(fmt::format("support {} {}", v.name, k++), a->node);
        }
    }
    const std::vector<int> offsets = m.zeta_offsets();
    Substituted s;
    s.theta.assign(m.latents.size(), kNoNode);
    s.logdet.assign(m.latents.size(), kNoNode);
    std::vector<NodeId> map(src.size(), kNoNode);
    s.graph = rebuild(src, [&](Graph& out, const Node& n, NodeId old) {
        if (n.op != Op::Param)
            return map[old] = out.intern(n);
        const auto k = static_cast<std::size_t>(n.index);
        if (k >= m.latents.size())
            throw InternalError("constrain: Param leaf without a latent");
        const LatentVariable& v = m.latents[k];
        Support support = v.support;
        for (SupportArg* a : expression_args(support)) {
            if (a->node < 0 || a->node >= static_cast<NodeId>(map.size()) ||
                map[a->node] == kNoNode) {
                throw InternalError(fmt::format(
                    "constrain: the support of `{}` reads a node that is not before it", v.name));
            }
            a->node = map[a->node];
        }
        const Transform& t = transform_for(support, v.positive);
        const NodeId zeta = out.leaf(Op::Zeta, t.unconstrained_shape(v.shape, v.support),
                                     DType::Real, offsets[k], v.name);
        s.theta[k] = t.constrain(out, zeta, v.shape, support);
        s.logdet[k] = t.log_abs_det_jacobian(out, zeta, s.theta[k], support);
        return map[old] = s.theta[k];
    });
    return s;
}

}  // namespace

Graph constrain(const ModelSpec& m, bool jacobian) {
    Substituted s = substitute(m);
    Graph& g = s.graph;
    auto lp = g.output("lp");
    if (!lp)
        throw InternalError("constrain: the model graph has no output `lp`");
    NodeId total = *lp;
    if (jacobian) {
        std::vector<NodeId> log_dets = s.logdet;
        // the model's own log-Jacobian terms (Stan's `jacobian +=`), ModelSpec::graph
        if (const std::optional<NodeId> j = g.output("jacobian"))
            log_dets.push_back(*j);
        if (const std::optional<NodeId> w = g.output("jacobian_weight")) {
            // weighted where the model says so (a shard of rows other than the first:
            // fit/row_shards.hpp)
            NodeId sum = kNoNode;
            for (NodeId d : log_dets) sum = sum == kNoNode ? d : g.apply(Op::Add, sum, d);
            if (sum != kNoNode)
                total = g.apply(Op::Add, total, g.apply(Op::Mul, *w, sum));
        } else {
            for (NodeId d : log_dets) total = g.apply(Op::Add, total, d);
        }
    }
    g.clear_outputs();
    g.set_output("lp", total);
    return rebuild(g);
}

Graph constrain_map(const ModelSpec& m) {
    Substituted s = substitute(m);
    const std::vector<int> offsets = m.theta_offsets();
    Graph g = std::move(s.graph);
    g.clear_outputs();
    for (std::size_t k = 0; k < m.latents.size(); ++k) {
        g.set_output("theta " + m.latents[k].name, s.theta[k], offsets[k]);
    }
    return rebuild(g);
}

}  // namespace advi
