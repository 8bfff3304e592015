#include <advi/cpp/hmm.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/cpp/linalg.hpp>
#include <advi/cpp/model.hpp>
#include <advi/graph/ops_hmm.hpp>

namespace advi {

namespace {

struct Operands {
    Graph& g;
    NodeId log_omega, Gamma, rho;
    Model& model;
};

Operands operands(std::string_view fn, const Arg& log_omega, const Arg& Gamma, const Arg& rho) {
    const std::vector<Expr> e = detail::operands(fn, {&log_omega, &Gamma, &rho});
    Graph& g = const_cast<Graph&>(e[0].model().nodes());
    auto real = [&](const Expr& x) {
        return g[x.id()].dtype == DType::Int ? g.apply(Op::ToReal, x.id()) : x.id();
    };
    return {g, real(e[0]), real(e[1]), real(e[2]), e[0].model()};
}

}  // namespace

Expr hmm_marginal(const Arg& log_omega, const Arg& Gamma, const Arg& rho) {
    const Operands o = operands("hmm_marginal", log_omega, Gamma, rho);
    Node n;
    n.op = Op::HmmMarginal;
    n.in = {o.log_omega, o.Gamma, o.rho};
    return o.model.wrap(o.g.intern(n));
}

Expr hmm_hidden_state_prob(const Arg& log_omega, const Arg& Gamma, const Arg& rho) {
    const Operands o = operands("hmm_hidden_state_prob", log_omega, Gamma, rho);
    return o.model.wrap(hmm_ops::hmm_grad(o.g, o.log_omega, o.Gamma, o.rho, 0));
}

Expr hmm_latent(const Arg& log_omega, const Arg& Gamma, const Arg& rho, const Expr& uniforms) {
    const Operands o = operands("hmm_latent", log_omega, Gamma, rho);
    if (&uniforms.model() != &o.model)
        throw ModelError("hmm_latent: the uniforms are of another model");
    const Expr rho_then_u = append_row(o.model.wrap(o.rho), uniforms);
    Node n;
    n.op = Op::HmmLatent;
    n.in = {o.log_omega, o.Gamma, rho_then_u.id()};
    return o.model.wrap(o.g.intern(n));
}

}  // namespace advi
