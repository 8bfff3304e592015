// Gauss quadrature rules by the Golub–Welsch algorithm (the nodes are the eigenvalues of the
// rule's Jacobi matrix, the weights the squared first components of its eigenvectors), and the
// tensor-product expansion over a shape (quadrature.hpp).
#include <advi/dist/quadrature.hpp>

#include <cmath>
#include <map>
#include <mutex>

#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/const_vector.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi {
namespace {

// The symmetric tridiagonal Jacobi matrix of the orthogonal polynomials, zero diagonal (a
// symmetric weight), off-diagonal b_1 .. b_{k-1}; the weight normalised to a probability.
QuadratureRule golub_welsch(int k, double (*off_diagonal)(int)) {
    Eigen::MatrixXd jacobi = Eigen::MatrixXd::Zero(k, k);
    for (int i = 1; i < k; ++i) jacobi(i - 1, i) = jacobi(i, i - 1) = off_diagonal(i);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(jacobi);
    QuadratureRule r;
    for (int i = 0; i < k; ++i) {
        r.nodes.push_back(eigen.eigenvalues()(i));
        r.weights.push_back(eigen.eigenvectors()(0, i) * eigen.eigenvectors()(0, i));
    }
    return r;
}

template <class Make>
const QuadratureRule& cached(std::map<int, QuadratureRule>& cache, int k, Make make) {
    static std::mutex mutex;
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(k);
    if (it == cache.end())
        it = cache.emplace(k, make()).first;
    return it->second;  // map nodes stay put
}

}  // namespace

const QuadratureRule& gauss_legendre_unit(int k) {
    static std::map<int, QuadratureRule> cache;
    return cached(cache, k, [k] {
        // Legendre polynomials on [-1, 1]: b_i = i / sqrt(4 i^2 - 1); then x -> (x + 1) / 2
        QuadratureRule r = golub_welsch(k, [](int i) {
            const double d = i;
            return d / std::sqrt(4 * d * d - 1);
        });
        for (double& x : r.nodes) x = (x + 1) / 2;
        return r;
    });
}

Quadrature::Quadrature(Graph& g, Shape shape, const std::vector<const QuadratureRule*>& rules)
    : g_(g), shape_(shape) {
    if (!shape.is_scalar() && !shape.is_vector()) {
        throw ShapeError(fmt::format(
            "an expectation by quadrature takes scalars or vectors, got {}", shape.str()));
    }
    for (const QuadratureRule* r : rules) size_ *= static_cast<int>(r->nodes.size());
    // point p of the product: the first rule's index varies fastest
    std::vector<std::vector<double>> points(rules.size(), std::vector<double>(size_));
    std::vector<double> log_weights(static_cast<std::size_t>(size_), 0.0);
    for (int p = 0; p < size_; ++p) {
        int rest = p;
        for (std::size_t i = 0; i < rules.size(); ++i) {
            const auto k = static_cast<int>(rules[i]->nodes.size());
            const auto at = static_cast<std::size_t>(rest % k);
            rest /= k;
            points[i][static_cast<std::size_t>(p)] = rules[i]->nodes[at];
            log_weights[static_cast<std::size_t>(p)] += std::log(rules[i]->weights[at]);
        }
    }
    auto spread = [&](const std::vector<double>& values) {
        const NodeId v = constant_vector(g_, values, Shape::vector(size_));
        return shape_.is_scalar() ? v : linalg::rep_rows(g_, v, shape_.rows);
    };
    for (const auto& values : points) variables_.push_back(spread(values));
    log_weights_ = spread(log_weights);
}

NodeId Quadrature::expand(NodeId x) const {
    const Shape& s = g_[x].shape;
    if (s.is_scalar())
        return x;
    if (s != shape_) {
        throw ShapeError(fmt::format("an expectation over {} got an argument of shape {}",
                                     shape_.str(), s.str()));
    }
    return linalg::rep_cols(g_, x, size_);
}

NodeId Quadrature::log_mean(NodeId log_values) const {
    const NodeId x = g_.apply(Op::Add, log_values, log_weights_);
    return g_.apply(shape_.is_scalar() ? Op::LogSumExp : Op::LogSumExpRows, x);
}

}  // namespace advi
