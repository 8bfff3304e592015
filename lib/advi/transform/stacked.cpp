#include <advi/transform/stacked.hpp>

#include <vector>

#include <advi/graph/ops_linalg.hpp>

namespace advi {

namespace {

Shape element_shape(const Support& s) {
    return Shape::matrix(s.element_rows, s.element_cols);
}
const Transform& element_transform(const Support& s) {
    return transform_for(s.element(), PositiveTransform::Log);
}

bool stacked_fits(Shape shape, const Support& s) {
    const Shape es = element_shape(s);
    return shape.is_matrix() && shape.rows >= 1 && shape.cols == es.size() &&
           element_transform(s).fits(es, s.element());
}

Shape stacked_free(Shape shape, const Support& s) {
    const Shape es = element_shape(s);
    return Shape::matrix(shape.rows,
                         element_transform(s).unconstrained_shape(es, s.element()).size());
}

// Element e's free coordinates (row e of zeta) and its value, as graph nodes.
struct Element {
    NodeId zeta, theta;
};
Element element_nodes(Graph& g, NodeId zeta, int e, const Support& s) {
    const Shape es = element_shape(s);
    const Support inner = s.element();
    const Transform& t = element_transform(s);
    const Shape free = t.unconstrained_shape(es, inner);
    const NodeId row = linalg::block(g, zeta, e, 0, Shape::matrix(1, free.size()));
    const NodeId z = linalg::reshape(g, row, free);
    return {z, t.constrain(g, z, es, inner)};
}

// Rows [first, last) joined, halving: each row copied log E times.
NodeId joined(Graph& g, const std::vector<NodeId>& rows, std::size_t first, std::size_t last) {
    if (last - first == 1)
        return rows[first];
    const std::size_t mid = first + (last - first) / 2;
    return g.apply(Op::AppendRow, joined(g, rows, first, mid), joined(g, rows, mid, last));
}

NodeId stacked_constrain(Graph& g, NodeId zeta, Shape shape, const Support& s) {
    const int n = element_shape(s).size();
    std::vector<NodeId> rows;
    for (int e = 0; e < shape.rows; ++e)
        rows.push_back(linalg::reshape(g, element_nodes(g, zeta, e, s).theta, Shape::matrix(1, n)));
    return joined(g, rows, 0, rows.size());
}

NodeId stacked_logdet(Graph& g, NodeId zeta, NodeId, const Support& s) {
    const Transform& t = element_transform(s);
    const int E = g[zeta].shape.rows;
    NodeId total = kNoNode;
    for (int e = 0; e < E; ++e) {
        const Element el = element_nodes(g, zeta, e, s);
        const NodeId term = t.log_abs_det_jacobian(g, el.zeta, el.theta, s.element());
        total = total == kNoNode ? term : g.apply(Op::Add, total, term);
    }
    return total;
}

// f on each row of x (E rows of `in` columns), the results (of `out` values) the rows of the
// result, column-major.
template <class F>
Eigen::VectorXd by_rows(const Eigen::VectorXd& x, int E, int in, int out, F f) {
    const Eigen::Map<const Eigen::MatrixXd> X(x.data(), E, in);
    Eigen::MatrixXd Y(E, out);
    for (int e = 0; e < E; ++e) Y.row(e) = f(Eigen::VectorXd(X.row(e).transpose())).transpose();
    return Eigen::Map<const Eigen::VectorXd>(Y.data(), Y.size());
}

Eigen::VectorXd stacked_unconstrain(const Eigen::VectorXd& theta, Shape shape, const Support& s) {
    const Shape es = element_shape(s);
    const Support inner = s.element();
    const Transform& t = element_transform(s);
    const int free = t.unconstrained_shape(es, inner).size();
    return by_rows(theta, shape.rows, es.size(), free,
                   [&](const Eigen::VectorXd& v) { return t.unconstrain(v, es, inner); });
}

Eigen::VectorXd stacked_value(const Eigen::VectorXd& zeta, Shape shape, const Support& s) {
    const Shape es = element_shape(s);
    const Support inner = s.element();
    const Transform& t = element_transform(s);
    const int free = t.unconstrained_shape(es, inner).size();
    return by_rows(zeta, shape.rows, free, es.size(),
                   [&](const Eigen::VectorXd& v) { return t.constrain_value(v, es, inner); });
}

}  // namespace

// clang-format off
const Transform kStackedTransform {"array of a matrix support, element by element", "mat[E, R*C] (E elements of R x C as rows)", stacked_fits, stacked_free, stacked_constrain, stacked_logdet, stacked_unconstrain, stacked_value};
// clang-format on

}  // namespace advi
