// The examples written twice, in C++ (examples/*.cpp) and in Stan (examples/*.stan): the two
// lower to the same log density expression (the graphs differ only in the order their nodes
// were created) and give the same fit, bit for bit, with the same seed.
#include <fstream>
#include <map>
#include <sstream>

#include <Eigen/Dense>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/poisson_distribution.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

using advi::test::log_density_expression;
using advi::test::read_file;

DataValue reals(std::string name, const Eigen::MatrixXd& m, std::vector<std::int64_t> dims) {
    DataValue v;
    v.name = std::move(name);
    v.type = DType::Real;
    v.dims = std::move(dims);
    v.reals.assign(m.data(), m.data() + m.size());
    return v;
}
DataValue ints(std::string name, std::vector<int> values, std::vector<std::int64_t> dims) {
    DataValue v;
    v.name = std::move(name);
    v.type = DType::Int;
    v.dims = std::move(dims);
    v.ints = std::move(values);
    return v;
}

void check_same_fit(const ModelSpec& a, const ModelSpec& b, const std::string& name) {
    const Options o{.seed = 9, .max_iterations = 400};
    const Fit fa = fit(a, o), fb = fit(b, o);
    CHECK(fa.result().elbo_trace == fb.result().elbo_trace);
    CHECK((fa.mean(name).array() == fb.mean(name).array()).all());
    CHECK((fa.sd(name).array() == fb.sd(name).array()).all());
}

}  // namespace

TEST_CASE("the flagship example in Stan is the same model as in C++", "[stan][examples]") {
    // the example's data (examples/linear_regression.cpp, smaller)
    const int N = 200, D = 5;
    boost::random::mt19937_64 rng(20261122);
    boost::random::normal_distribution<double> normal;
    Eigen::MatrixXd X(N, D);
    for (int i = 0; i < N; ++i)
        for (int d = 0; d < D; ++d) X(i, d) = normal(rng);
    Eigen::VectorXd y = X * (Eigen::VectorXd(D) << 1.5, -0.8, 0.0, 2.2, 0.3).finished();
    for (int i = 0; i < N; ++i) y[i] += 0.7 * normal(rng);

    Model m;  // as in examples/linear_regression.cpp
    auto yd = m.data("y", y);
    auto Xd = m.data("X", X);
    auto beta = m.param("beta", advi::normal(0, 10), X.cols());
    auto sigma = m.param("sigma", advi::lognormal(0, 1));
    m.observe(yd, advi::normal(Xd * beta, sigma));

    DataTable data;
    data.add(ints("N", {N}, {}));
    data.add(ints("K", {D}, {}));
    data.add(reals("y", y, {N}));
    data.add(reals("X", X, {N, D}));
    auto low = lower(
        parse_program(read_file(std::string(ADVI_SOURCE_DIR) + "/examples/linear_regression.stan"),
                      "linear_regression.stan"),
        data);
    CHECK(log_density_expression(low->model().graph()) == log_density_expression(m.graph()));
    check_same_fit(low->model().spec(), m.spec(), "beta");
}

TEST_CASE("the running example in Stan is the same model as in C++", "[stan][examples]") {
    const int N = 40;
    boost::random::mt19937_64 rng(3);
    boost::random::poisson_distribution<int> poisson(2.5);
    Eigen::VectorXi x(N);
    std::vector<int> xs(N);
    for (int n = 0; n < N; ++n) xs[n] = x[n] = poisson(rng);

    Model m;  // as in examples/weibull_poisson.cpp
    auto xd = m.data("x", x);
    auto theta = m.param("theta", advi::weibull(1.5, 1.0));
    m.observe(xd, advi::poisson(theta));

    DataTable data;
    data.add(ints("N", {N}, {}));
    data.add(ints("x", xs, {N}));
    auto low = lower(
        parse_program(read_file(std::string(ADVI_SOURCE_DIR) + "/examples/weibull_poisson.stan"),
                      "weibull_poisson.stan"),
        data);
    CHECK(log_density_expression(low->model().graph()) == log_density_expression(m.graph()));
    check_same_fit(low->model().spec(), m.spec(), "theta");
}

}  // namespace advi::stan
