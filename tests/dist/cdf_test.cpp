// The CDF table (lib/advi/dist/cdf.hpp): the graph terms of each tail against the numbers
// (Boost.Math) at points that include far tails, with gradients and Hessians by finite
// differences in the variate and every argument; the numbers against the distribution table's
// own densities (the derivative of P(X <= x) is the density; for integers the difference of
// consecutive values is the mass); the two tails sum to one.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/dist/cdf.hpp>
#include <advi/dist/distribution.hpp>
#include <advi/graph/const_vector.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

struct Points {
    std::vector<double> args;
    std::vector<double> xs;  // in the support, interior; far tails included
};

// clang-format off
const std::map<std::string_view, Points>& points() {
    static const std::map<std::string_view, Points> p = {
        {"normal",                {{0.5, 2.0},      {-1.3, 0.4, 3.0, -25.0, 28.0}}},
        {"lognormal",             {{0.2, 0.7},      {0.3, 1.1, 4.0, 1e-4, 200.0}}},
        {"cauchy",                {{0.5, 2.0},      {-1.3, 0.4, 3.0, -1e6, 1e6}}},
        {"logistic",              {{0.5, 2.0},      {-1.3, 0.4, 3.0, -60.0, 60.0}}},
        {"exponential",           {{1.7},           {0.1, 0.8, 3.0, 1e-4, 20.0}}},
        {"weibull",               {{1.5, 2.0},      {0.1, 0.8, 3.0, 1e-5, 12.0}}},
        {"rayleigh",              {{1.5},           {0.1, 0.8, 3.0, 1e-5, 12.0}}},
        {"loglogistic",           {{1.5, 2.5},      {0.1, 0.8, 3.0, 1e-5, 300.0}}},
        {"frechet",               {{1.5, 2.0},      {0.5, 2.0, 6.0, 0.15, 400.0}}},
        {"gumbel",                {{0.5, 2.0},      {-1.3, 0.4, 3.0, -3.5, 30.0}}},
        {"pareto",                {{1.2, 2.5},      {1.5, 3.0, 10.0, 1.201, 1e4}}},
        {"pareto_type_2",         {{0.5, 2.0, 3.0}, {0.7, 2.0, 9.0, 0.501, 1e4}}},
        {"uniform",               {{-1.0, 2.0},     {-0.5, 0.3, 1.7, -0.99, 1.99}}},
        {"double_exponential",    {{0.5, 2.0},      {-3.0, 0.2, 0.9, 4.0, -40.0, 40.0}}},
        {"skew_double_exponential", {{0.5, 2.0, 0.3}, {-3.0, 0.2, 0.9, 4.0, -30.0, 30.0}}},
        {"exp_mod_normal",        {{0.5, 2.0, 0.7}, {-3.0, 0.2, 2.5, 9.0, -12.0, 40.0}}},
        {"student_t",             {{3.0, 0.5, 2.0}, {-1.3, 0.4, 3.0, -200.0, 150.0}}},
        {"gamma",                 {{2.5, 1.5},      {0.2, 1.1, 4.0, 1e-3, 25.0}}},
        {"inv_gamma",             {{2.5, 1.5},      {0.2, 1.1, 4.0, 0.02, 500.0}}},
        {"chi_square",            {{3.5},           {0.2, 1.1, 4.0, 1e-3, 60.0}}},
        {"inv_chi_square",        {{3.5},           {0.2, 1.1, 4.0, 0.01, 300.0}}},
        {"scaled_inv_chi_square", {{3.5, 0.8},      {0.2, 1.1, 4.0, 0.01, 300.0}}},
        {"beta",                  {{2.5, 1.5},      {0.1, 0.5, 0.9, 1e-4, 0.998}}},
        {"skew_normal",           {{0.5, 2.0, 1.5}, {-1.3, 0.4, 3.0}}},
        {"poisson",               {{3.2},           {0, 1, 2, 5, 9, 40}}},
        {"bernoulli",             {{0.3},           {0}}},
        {"binomial",              {{10, 0.3},       {0, 2, 3, 7, 9}}},
        {"neg_binomial_2",        {{3.0, 2.0},      {0, 1, 4, 12, 60}}},
        {"neg_binomial",          {{3.0, 0.7},      {0, 1, 4, 12, 60}}},
        {"beta_proportion",       {{0.3, 8.0},      {0.1, 0.5, 0.9, 1e-3, 0.95}}},
        {"yule_simon",            {{1.5},           {1, 2, 5, 40}}},
        {"discrete_range",        {{-2, 4},         {-2, 1, 3}}},
        {"beta_binomial",         {{10, 2.5, 1.5},  {0, 3, 7, 9}}},
        {"beta_neg_binomial",     {{3.0, 2.5, 1.5}, {0, 1, 4, 12}}},
        {"von_mises",             {{0.5, 2.0},      {-3.0, -1.0, 0.4, 2.0, 2.8}}},
    };
    return p;
}
// clang-format on

// log P of one point through the graph, every real a latent (zeta): its value and the graph. The
// variate of a discrete row and its counts (binomial's N) are constants.
struct Built {
    Graph g;
    Eigen::VectorXd zeta;
};
Built build(const DistInfo& d, double x, const std::vector<double>& args, Tail tail) {
    Built b;
    const bool discrete = d.variate == DType::Int;
    std::vector<double> z;
    if (!discrete)
        z.push_back(x);
    const NodeId xs =
        discrete ? b.g.constant(x) : b.g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "x");
    std::vector<NodeId> a;
    for (std::size_t k = 0; k < args.size(); ++k) {
        if (d.arg_domains[k] == ArgDomain::Count) {
            a.push_back(b.g.constant(args[k]));
            continue;
        }
        a.push_back(
            b.g.leaf(Op::Zeta, Shape::scalar(), DType::Real, static_cast<int>(z.size()), ""));
        z.push_back(args[k]);
    }
    b.g.set_output("lp", log_cdf(b.g, d, xs, a, tail));
    b.zeta = Eigen::Map<const Eigen::VectorXd>(z.data(), static_cast<Eigen::Index>(z.size()));
    return b;
}

// The table's log density at x, through a graph of constants.
double log_density_at(const DistInfo& d, double x, const std::vector<double>& args) {
    Graph g;
    std::vector<NodeId> a;
    for (double v : args) a.push_back(g.constant(v));
    // an integer variate is integer data
    int n = static_cast<int>(x);
    std::vector<DataSlot> data;
    NodeId xs = g.constant(x);
    if (d.variate == DType::Int) {
        data.push_back({"y", Shape::scalar(), DType::Int, nullptr, &n});
        xs = g.leaf(Op::Data, Shape::scalar(), DType::Int, 0, "y");
    }
    g.set_output("lp", log_density(g, d, xs, a));
    Program p = test::value_program(g, data, 0);
    return test::value_at(p, Eigen::VectorXd(0));
}

}  // namespace

TEST_CASE("every CDF row has points, and its distribution a row of the table", "[dist]") {
    for (const CdfInfo& c : cdfs()) {
        INFO(c.name);
        CHECK(points().count(c.name) == 1);
        CHECK_NOTHROW(distribution(c.name));
        CHECK(c.probability != nullptr);
        // graph terms come in pairs
        CHECK((c.log_cdf == nullptr) == (c.log_ccdf == nullptr));
    }
    CHECK(cdfs().size() == 35);
}

TEST_CASE("graph CDFs equal Boost.Math's numbers, far tails too, and differentiate", "[dist]") {
    int checked = 0;
    for (const CdfInfo& c : cdfs()) {
        if (c.log_cdf == nullptr)
            continue;
        const DistInfo& d = distribution(c.name);
        const Points& pt = points().at(c.name);
        for (const Tail tail : {Tail::Lower, Tail::Upper}) {
            for (double x : pt.xs) {
                INFO(c.name << (tail == Tail::Lower ? " lcdf" : " lccdf") << " at " << x);
                Built b = build(d, x, pt.args, tail);
                Program p = test::value_program(b.g, {}, static_cast<int>(b.zeta.size()));
                const double expected = std::log(c.probability(x, pt.args, tail));
                REQUIRE(std::isfinite(expected));
                CHECK(test::value_at(p, b.zeta) == Approx(expected).epsilon(1e-9).margin(1e-12));
                test::check_gradient(b.g, {}, b.zeta, 1e-5);
                ++checked;
            }
        }
    }
    // every row has graph terms now, and each was checked at each of its points
    std::size_t points_in_table = 0;
    for (const auto& [name, pt] : points()) points_in_table += pt.xs.size();
    CHECK(checked == static_cast<int>(2 * points_in_table));
    CHECK(checked == 2 * (138 + 17 + 13));
}

TEST_CASE("the CDFs' numbers: derivative the density, tails summing to one", "[dist]") {
    for (const CdfInfo& c : cdfs()) {
        const DistInfo& d = distribution(c.name);
        const Points& pt = points().at(c.name);
        for (double x : pt.xs) {
            INFO(c.name << " at " << x);
            const double lower = c.probability(x, pt.args, Tail::Lower);
            const double upper = c.probability(x, pt.args, Tail::Upper);
            CHECK(lower + upper == Approx(1.0).epsilon(1e-12));
            const double density = std::exp(log_density_at(d, x, pt.args));
            if (d.variate == DType::Int) {
                // P(X <= n) - P(X <= n - 1) is the mass at n
                const double below = x == 0 ? 0 : c.probability(x - 1, pt.args, Tail::Lower);
                CHECK(lower - below == Approx(density).epsilon(1e-10).margin(1e-14));
                continue;
            }
            if (density < 1e-8)
                continue;  // far tails: the difference quotient is all round-off
            const double h = 1e-5 * std::max(1e-3, std::abs(x));
            const double slope = (c.probability(x + h, pt.args, Tail::Lower) -
                                  c.probability(x - h, pt.args, Tail::Lower)) /
                                 (2 * h);
            CHECK(slope == Approx(density).epsilon(1e-5));
        }
    }
}

TEST_CASE("outside the support the numbers are 0 and 1; bad arguments are named", "[dist]") {
    const CdfInfo* gamma = find_cdf("gamma");
    REQUIRE(gamma != nullptr);
    CHECK(gamma->probability(-1.0, std::vector{2.0, 1.0}, Tail::Lower) == 0.0);
    CHECK(gamma->probability(-1.0, std::vector{2.0, 1.0}, Tail::Upper) == 1.0);
    CHECK(find_cdf("poisson")->probability(-1, std::vector{2.0}, Tail::Lower) == 0.0);
    CHECK(find_cdf("binomial")->probability(10, std::vector{10.0, 0.3}, Tail::Upper) == 0.0);
    CHECK(find_cdf("hypergeometric") == nullptr);
    // the graph terms of the discrete rows outside their support, and at its top
    auto graph_value = [](std::string_view name, double x, const std::vector<double>& args,
                          Tail tail) {
        Built b = build(distribution(name), x, args, tail);
        Program p = test::value_program(b.g, {}, static_cast<int>(b.zeta.size()));
        return test::value_at(p, b.zeta);
    };
    constexpr double inf = std::numeric_limits<double>::infinity();
    CHECK(graph_value("poisson", -1, {2.0}, Tail::Lower) == -inf);
    CHECK(graph_value("poisson", -1, {2.0}, Tail::Upper) == 0.0);
    CHECK(graph_value("bernoulli", 1, {0.3}, Tail::Lower) == 0.0);
    CHECK(graph_value("bernoulli", 1, {0.3}, Tail::Upper) == -inf);
    CHECK(graph_value("binomial", 10, {10, 0.3}, Tail::Lower) == 0.0);
    CHECK(graph_value("binomial", 12, {10, 0.3}, Tail::Upper) == -inf);
    CHECK(graph_value("binomial", -2, {10, 0.3}, Tail::Lower) == -inf);
    CHECK(graph_value("neg_binomial_2", -1, {3.0, 2.0}, Tail::Upper) == 0.0);
    CHECK(graph_value("gamma", -1, {2.0, 1.0}, Tail::Lower) == -inf);
    CHECK(graph_value("inv_gamma", -1, {2.0, 1.0}, Tail::Upper) == 0.0);
    CHECK(graph_value("beta", 1.5, {2.0, 1.0}, Tail::Lower) == 0.0);
    CHECK(graph_value("beta_binomial", 10, {10, 2.0, 3.0}, Tail::Lower) == 0.0);
    CHECK(graph_value("beta_binomial", 10, {10, 2.0, 3.0}, Tail::Upper) == -inf);
    CHECK(graph_value("beta_binomial", -1, {10, 2.0, 3.0}, Tail::Lower) == -inf);
    CHECK(graph_value("beta_binomial", -1, {10, 2.0, 3.0}, Tail::Upper) == 0.0);
    CHECK(graph_value("beta_neg_binomial", -1, {2.0, 3.0, 1.5}, Tail::Upper) == 0.0);
    CHECK(graph_value("von_mises", -M_PI, {0.5, 2.0}, Tail::Lower) == -inf);
    CHECK(graph_value("von_mises", M_PI, {0.5, 2.0}, Tail::Upper) == -inf);
    CHECK_FALSE(has_graph_cdf("hypergeometric", Tail::Lower));
    CHECK(has_graph_cdf("student_t", Tail::Upper));
    // the graph form refuses a distribution without one, naming it
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "x");
    const std::vector<NodeId> args{g.constant(5.0), g.constant(4.0), g.constant(6.0)};
    CHECK_THROWS_WITH(log_cdf(g, distribution("hypergeometric"), x, args, Tail::Lower),
                      "hypergeometric: no lcdf of values that depend on the latent variables");
    // the finite sums need their counts as constants, and not too many terms
    const std::vector<NodeId> bb{g.constant(10.0), g.constant(2.0), g.constant(3.0)};
    const NodeId n = g.leaf(Op::Data, Shape::scalar(), DType::Int, 0, "n");
    CHECK_THROWS_WITH(log_cdf(g, distribution("beta_binomial"), n, bb, Tail::Lower),
                      Catch::Contains("beta_binomial's CDF: its variate must be known before the "
                                      "fit"));
    CHECK_THROWS_WITH(
        log_cdf(g, distribution("beta_neg_binomial"), g.constant(1e6),
                std::vector{g.constant(2.0), g.constant(2.0), g.constant(3.0)}, Tail::Lower),
        Catch::Contains("is not supported yet"));
}

TEST_CASE("the finite-sum CDFs over vectors: each element's n and N", "[dist]") {
    Graph g;
    const std::vector<double> ns{0, 4, 2, 9, 7}, sizes{3, 9, 5, 10, 8};
    const NodeId n = constant_vector(g, ns, Shape::vector(5));
    const NodeId size = constant_vector(g, sizes, Shape::vector(5));
    const NodeId alpha = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "alpha");
    const NodeId beta = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 1, "beta");
    Eigen::VectorXd zeta(2);
    zeta << 1.7, 0.6;
    for (const Tail tail : {Tail::Lower, Tail::Upper}) {
        for (const char* name : {"beta_binomial", "beta_neg_binomial"}) {
            INFO(name << (tail == Tail::Lower ? " lcdf" : " lccdf"));
            Graph h = g;
            const bool bb = std::string_view(name) == "beta_binomial";
            const std::vector<NodeId> args =
                bb ? std::vector{size, alpha, beta} : std::vector{alpha, beta, alpha};
            h.set_output("lp", log_cdf(h, distribution(name), n, args, tail));
            Program p = test::value_program(h, {}, 2);
            double expected = 0;
            for (std::size_t k = 0; k < ns.size(); ++k) {
                const std::vector<double> a =
                    bb ? std::vector{sizes[k], 1.7, 0.6} : std::vector{1.7, 0.6, 1.7};
                expected += std::log(find_cdf(name)->probability(ns[k], a, tail));
            }
            CHECK(test::value_at(p, zeta) == Approx(expected).epsilon(1e-11));
            test::check_gradient(h, {}, zeta, 1e-5);
        }
    }
}

}  // namespace advi
