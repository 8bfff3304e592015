#include <advi/cpp/submodel.hpp>

#include <Eigen/Core>

#include <advi/cpp/distributions.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi::submodel {

Expr copy_constant(Model& from, const Expr& e, Model& to) {
    const std::vector<double> v = from.evaluate(e);
    const Shape s = e.shape();
    if (s.is_scalar())
        return to.constant(v[0]);
    const Eigen::MatrixXd values = Eigen::Map<const Eigen::MatrixXd>(v.data(), s.rows, s.cols);
    if (s.cols == 1 && s.kind != Shape::Kind::Matrix)
        return to.wrap(to.resolve(Arg(Eigen::VectorXd(values.col(0)))));
    return to.wrap(to.resolve(Arg(values)));
}

Expr latent(Model& m, const std::string& name, const Shape& s) {
    if (s.is_scalar())
        return m.param(name, flat());
    if (s.kind == Shape::Kind::Matrix)
        return m.param(name, flat(), s.rows, s.cols);
    return m.param(name, flat(), s.rows);
}

NodeId as_column(Graph& g, NodeId x) {
    const Shape& s = g[x].shape;
    if (g[x].dtype == DType::Int)
        x = g.apply(Op::ToReal, x);
    if (s.cols == 1 && !s.is_scalar() && s.kind != Shape::Kind::Matrix)
        return x;
    return linalg::reshape(g, x, Shape::vector(s.size()));
}

Graph with_zeta_leaves(const Model& inner, const Expr& out, const std::vector<int>& offsets) {
    Graph body = inner.graph();
    body.clear_outputs();
    body.set_output("f", out.id());
    return rebuild(body, [&](Graph& g, const Node& node, NodeId old) {
        if (node.op != Op::Param)
            return g.intern(node);
        return g.leaf(Op::Zeta, node.shape, DType::Real, offsets.at(node.index), body.label(old));
    });
}

}  // namespace advi::submodel
