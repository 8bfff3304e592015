// The constrain pass: substitutes each Param leaf by its transform's graph fragment.
#include "constrain.hpp"

#include <fmt/format.h>

#include <advi/graph/error.hpp>
#include <advi/transform/transform.hpp>

namespace advi {
namespace {

struct Substituted {
    Graph graph;
    std::vector<NodeId> theta;   // per latent: T^-1(zeta)
    std::vector<NodeId> logdet;  // per latent: log|det J|
};

// Rebuilds m.graph with every Param leaf replaced by T^-1 of a Zeta slice. The Param
// leaves are made roots too, so that a latent the density does not use still gets its
// slice (and a zero gradient).
Substituted substitute(const ModelSpec& m) {
    Graph src = m.graph;
    for (const auto& v : m.latents) src.set_output("param " + v.name, v.node);
    const std::vector<int> offsets = m.zeta_offsets();
    Substituted s;
    s.theta.assign(m.latents.size(), kNoNode);
    s.logdet.assign(m.latents.size(), kNoNode);
    s.graph = rebuild(src, [&](Graph& out, const Node& n, NodeId) {
        if (n.op != Op::Param) return out.intern(n);
        const auto k = static_cast<std::size_t>(n.index);
        if (k >= m.latents.size()) throw InternalError("constrain: Param leaf without a latent");
        const LatentVariable& v = m.latents[k];
        const Transform& t = transform_for(v.support, v.positive);
        const NodeId zeta = out.leaf(Op::Zeta, t.unconstrained_shape(v.shape), DType::Real,
                                     offsets[k], v.name);
        s.theta[k] = t.constrain(out, zeta, v.support);
        s.logdet[k] = t.log_abs_det_jacobian(out, zeta, s.theta[k], v.support);
        return s.theta[k];
    });
    return s;
}

}  // namespace

Graph constrain(const ModelSpec& m) {
    Substituted s = substitute(m);
    Graph& g = s.graph;
    auto lp = g.output("lp");
    if (!lp) throw InternalError("constrain: the model graph has no output `lp`");
    NodeId total = *lp;
    for (NodeId d : s.logdet) total = g.apply(Op::Add, total, d);
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
