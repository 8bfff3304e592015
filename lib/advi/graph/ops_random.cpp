#include <advi/graph/ops_random.hpp>

#include <cmath>
#include <limits>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/negative_binomial.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/math_policy.hpp>
#include <advi/graph/graph.hpp>

namespace advi::random_ops {

namespace {

// Errors become NaN (a draw outside the arguments' domain, as Stan's _rng would reject);
// discrete quantiles are the smallest k with F(k) >= u, as inverse-CDF sampling needs.
using Policy = boost::math::policies::normalise<
    MathPolicy,
    boost::math::policies::discrete_quantile<boost::math::policies::integer_round_up>>::type;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// out[i] = f(u[i], a[i], b[i]) with scalar inputs broadcast.
template <class F>
void each(const KernelArgs& a, int arity, F f) {
    const int n = a.out_size();
    auto at = [&](int k, int i) { return a.in[k].size() == 1 ? a.in[k].x[0] : a.in[k].x[i]; };
    for (int i = 0; i < n; ++i) {
        const double u = at(0, i);
        const double p = arity > 1 ? at(1, i) : 0.0;
        const double q = arity > 2 ? at(2, i) : 0.0;
        a.out[i] = f(u, p, q);
    }
}

}  // namespace

Shape quantile_shape(const Graph& g, const Node& n) {
    Shape s = Shape::scalar();
    for (int k = 0; k < n.arity(); ++k) {
        const Node& in = g[n.in[k]];
        if (in.dtype != DType::Real) {
            throw ShapeError(fmt::format("{}: input {} must be real", op_name(n.op), k));
        }
        if (in.shape.is_scalar())
            continue;
        if (!s.is_scalar() && s != in.shape) {
            throw ShapeError(fmt::format("{}: shapes {} and {} do not match", op_name(n.op),
                                         s.str(), in.shape.str()));
        }
        s = in.shape;
    }
    return s;
}

void gamma_quantile_kernel(const KernelArgs& a) {
    each(a, 3, [](double u, double alpha, double beta) {
        if (!(alpha > 0) || !(beta > 0))
            return kNaN;
        return boost::math::quantile(
            boost::math::gamma_distribution<double, Policy>(alpha, 1 / beta), u);
    });
}
void beta_quantile_kernel(const KernelArgs& a) {
    each(a, 3, [](double u, double p, double q) {
        if (!(p > 0) || !(q > 0))
            return kNaN;
        return boost::math::quantile(boost::math::beta_distribution<double, Policy>(p, q), u);
    });
}
void student_t_quantile_kernel(const KernelArgs& a) {
    each(a, 2, [](double u, double nu, double) {
        if (!(nu > 0))
            return kNaN;
        return boost::math::quantile(boost::math::students_t_distribution<double, Policy>(nu), u);
    });
}
void poisson_quantile_kernel(const KernelArgs& a) {
    each(a, 2, [](double u, double lambda, double) {
        if (!(lambda >= 0) || !std::isfinite(lambda))
            return kNaN;
        if (lambda == 0)
            return 0.0;
        return boost::math::quantile(boost::math::poisson_distribution<double, Policy>(lambda), u);
    });
}
void binomial_quantile_kernel(const KernelArgs& a) {
    each(a, 3, [](double u, double n, double theta) {
        if (!(n >= 0) || !(theta >= 0 && theta <= 1))
            return kNaN;
        if (theta == 0 || n == 0)
            return 0.0;
        if (theta == 1)
            return n;
        return boost::math::quantile(boost::math::binomial_distribution<double, Policy>(n, theta),
                                     u);
    });
}
void neg_binomial_2_quantile_kernel(const KernelArgs& a) {
    each(a, 3, [](double u, double mu, double phi) {
        if (!(mu > 0) || !(phi > 0))
            return kNaN;
        // Stan's NB2(mu, phi): r = phi successes, success probability phi / (mu + phi)
        return boost::math::quantile(
            boost::math::negative_binomial_distribution<double, Policy>(phi, phi / (mu + phi)), u);
    });
}

}  // namespace advi::random_ops
