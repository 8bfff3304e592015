// The Wiener distribution's seven-parameter density and its defective distribution function
// (lib/advi/dist/wiener.hpp), through compiled graphs, against references computed here another
// way: the four- and five-parameter densities written out from the first-passage series
// (ops_wiener.hpp) and integrated by Boost's adaptive quadrature over the response time, the
// start point, the non-decision time and the drift; gradients and Hessians of every argument
// against finite differences.
#include <cmath>
#include <limits>
#include <vector>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>

#include <advi/dist/distribution.hpp>
#include <advi/dist/wiener.hpp>
#include <advi/graph/const_vector.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_wiener.hpp>
#include <advi/graph/ops_wiener_cdf.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

using boost::math::quadrature::gauss_kronrod;

struct Point {
    double alpha, tau, beta, delta, sv, sw, st0;
    [[nodiscard]] std::vector<double> args() const {
        return {alpha, tau, beta, delta, sv, sw, st0};
    }
};

// The five-parameter density of the upper boundary, written out: the lower boundary's of the
// mirrored process (w = 1 - beta, drift -delta), u = t / alpha^2, with the drift integrated over
// normal(delta, sv) in closed form.
double density5(double y, double alpha, double tau, double beta, double delta, double sv) {
    const double t = y - tau;
    if (t <= 0)
        return 0;
    const double w = 1 - beta;
    const double log_f = wiener::log_first_passage(t / (alpha * alpha), w)[0];
    const double spread = 1 + sv * sv * t;
    const double exponent =
        (sv * sv * alpha * alpha * w * w + 2 * alpha * delta * w - delta * delta * t) /
        (2 * spread);
    return std::exp(log_f - 2 * std::log(alpha) + exponent - 0.5 * std::log(spread));
}

// E over beta' ~ uniform(beta -+ sw / 2), tau' ~ uniform(tau, tau + st0) of g(beta', tau'),
// adaptively.
template <class G>
double average_start_and_time(const Point& p, G g) {
    auto over_time = [&](double beta) {
        if (p.st0 == 0)
            return g(beta, p.tau);
        return gauss_kronrod<double, 31>::integrate([&](double s) { return g(beta, p.tau + s); }, 0,
                                                    p.st0, 10, 1e-13) /
               p.st0;
    };
    if (p.sw == 0)
        return over_time(p.beta);
    return gauss_kronrod<double, 31>::integrate(over_time, p.beta - p.sw / 2, p.beta + p.sw / 2, 10,
                                                1e-13) /
           p.sw;
}

double density7(double y, const Point& p) {
    return average_start_and_time(
        p, [&](double beta, double tau) { return density5(y, p.alpha, tau, beta, p.delta, p.sv); });
}

// P(Y <= y) and P(Y > y) of the upper boundary without variability: the lower boundary's
// distribution function of the mirrored process (ops_wiener_cdf.hpp, tested against the
// density's quadrature in tests/graph/wiener_cdf_test.cpp), averaged adaptively over the start
// point and the non-decision time.
// With drift variability, the kernel's average over the drift (ops_wiener_cdf.hpp, tested there
// against adaptive quadrature over the drift) in its place: what this checks is the
// arguments' mapping (m = -delta alpha, s = sv alpha) and the averages over sw and st0.
double cdf7(double y, const Point& p, Tail tail) {
    const auto t = tail == Tail::Lower ? wiener::CdfTail::Lower : wiener::CdfTail::Upper;
    return average_start_and_time(p, [&](double beta, double tau) {
        const double u = (y - tau) / (p.alpha * p.alpha), c = -p.delta * p.alpha;
        return std::exp(
            p.sv == 0 ? wiener::log_first_passage_cdf(u, 1 - beta, c, t)[0]
                      : wiener::log_first_passage_cdf_sv(u, 1 - beta, c, p.sv * p.alpha, t)[0]);
    });
}

// The library's value (density or a CDF tail) through a compiled graph of constants.
double library_log_density(double y, const Point& p) {
    Graph g;
    std::vector<NodeId> a;
    for (double v : p.args()) a.push_back(g.constant(v));
    g.set_output("lp", log_density(g, distribution("wiener"), g.constant(y), a));
    Program prog = test::value_program(g, {}, 0);
    return test::value_at(prog, Eigen::VectorXd());
}
double library_log_cdf(double y, const Point& p, Tail tail) {
    Graph g;
    std::vector<NodeId> a;
    for (double v : p.args()) a.push_back(g.constant(v));
    g.set_output("lp", wiener_log_cdf(g, g.constant(y), a, tail));
    Program prog = test::value_program(g, {}, 0);
    return test::value_at(prog, Eigen::VectorXd());
}

// Every argument (and y) a latent, but variabilities of 0 (the edge of their domain, where
// central differences step outside): a graph for check_gradient.
struct Built {
    Graph g;
    Eigen::VectorXd zeta;
};
Built build(double y, const Point& p, bool density, Tail tail = Tail::Lower) {
    Built b;
    std::vector<double> z{y};
    const NodeId ys = b.g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "y");
    std::vector<NodeId> a;
    const std::vector<double> args = p.args();
    for (std::size_t k = 0; k < args.size(); ++k) {
        if (k >= 4 && args[k] == 0) {
            a.push_back(b.g.constant(0));
            continue;
        }
        a.push_back(
            b.g.leaf(Op::Zeta, Shape::scalar(), DType::Real, static_cast<int>(z.size()), ""));
        z.push_back(args[k]);
    }
    b.g.set_output("lp", density ? log_density(b.g, distribution("wiener"), ys, a)
                                 : wiener_log_cdf(b.g, ys, a, tail));
    b.zeta = Eigen::Map<const Eigen::VectorXd>(z.data(), static_cast<Eigen::Index>(z.size()));
    return b;
}

// Points of typical diffusion-model fits (alpha 0.8-2.5, tau 0.1-0.4, sv up to 2, sw up to
// 0.4, st0 up to 0.3) and some far from them.
const std::vector<Point>& points() {
    static const std::vector<Point> p = {
        {1.2, 0.3,  0.5,  0.8,  0.0, 0.0, 0.0 },
        {2.0, 0.2,  0.4,  -0.6, 0.0, 0.3, 0.0 },
        {1.0, 0.25, 0.6,  1.5,  0.0, 0.0, 0.2 },
        {1.6, 0.1,  0.45, 0.4,  0.0, 0.4, 0.3 },
        {1.3, 0.2,  0.55, 1.0,  1.0, 0.2, 0.1 },
        {2.5, 0.4,  0.3,  2.0,  2.0, 0.1, 0.25},
        {0.8, 0.15, 0.5,  -1.5, 0.5, 0.0, 0.3 },
    };
    return p;
}

}  // namespace

TEST_CASE("wiener: the seven-parameter density averages the five-parameter one", "[dist][wiener]") {
    for (const Point& p : points()) {
        for (double y : {p.tau + p.st0 + 0.05, p.tau + 0.4, p.tau + 1.3, p.tau + 4.0}) {
            INFO("y " << y << " alpha " << p.alpha << " beta " << p.beta << " delta " << p.delta
                      << " sv " << p.sv << " sw " << p.sw << " st0 " << p.st0);
            const double expected = std::log(density7(y, p));
            CHECK(library_log_density(y, p) == Approx(expected).epsilon(1e-7).margin(1e-7));
        }
    }
}

TEST_CASE("wiener: the defective distribution function and its complement", "[dist][wiener]") {
    for (const Point& p : points()) {
        // (with sv, one response time: the reference's nested adaptive rules are slow)
        const std::vector<double> ys =
            p.sv > 0 ? std::vector<double>{p.tau + p.st0 + 0.3}
                     : std::vector<double>{p.tau + 0.02, p.tau + 0.4, p.tau + 1.3, p.tau + 4.0};
        for (double y : ys) {
            for (Tail tail : {Tail::Lower, Tail::Upper}) {
                INFO("y " << y << " tail " << static_cast<int>(tail) << " alpha " << p.alpha
                          << " beta " << p.beta << " delta " << p.delta << " sv " << p.sv << " sw "
                          << p.sw << " st0 " << p.st0);
                const double expected = std::log(cdf7(y, p, tail));
                CHECK(library_log_cdf(y, p, tail) == Approx(expected).epsilon(1e-7).margin(1e-7));
            }
        }
    }
}

TEST_CASE("wiener: gradients and Hessians of the density and the CDF in every argument",
          "[dist][wiener]") {
    for (const Point& p : points()) {
        const double y = p.tau + p.st0 + 0.3;
        INFO("alpha " << p.alpha << " sv " << p.sv << " sw " << p.sw << " st0 " << p.st0);
        Built d = build(y, p, true);
        test::check_gradient(d.g, {}, d.zeta, 1e-5);
        if (p.sv > 0)
            continue;  // (the CDF with sv: its derivatives in tests/graph/wiener_cdf_test.cpp)
        for (Tail tail : {Tail::Lower, Tail::Upper}) {
            Built c = build(y, p, false, tail);
            test::check_gradient(c.g, {}, c.zeta, 1e-5);
        }
    }
}

TEST_CASE("wiener: no mass before the non-decision time; vectors sum their elements",
          "[dist][wiener]") {
    const Point p{1.2, 0.3, 0.5, 0.8, 0.0, 0.2, 0.1};
    CHECK(library_log_cdf(0.25, p, Tail::Lower) == -std::numeric_limits<double>::infinity());
    CHECK(library_log_density(0.25, p) == -std::numeric_limits<double>::infinity());
    // P(Y > y) below tau is the whole mass: the probability of the upper boundary
    CHECK(std::exp(library_log_cdf(0.25, p, Tail::Upper)) ==
          Approx(std::exp(library_log_cdf(1e4, p, Tail::Lower))).epsilon(1e-10));
    Graph g;
    const std::vector<double> ys = {0.5, 0.9, 1.7};
    std::vector<NodeId> a;
    for (double v : p.args()) a.push_back(g.constant(v));
    g.set_output("lp", wiener_log_cdf(g, constant_vector(g, ys, Shape::vector(3)), a, Tail::Upper));
    Program prog = test::value_program(g, {}, 0);
    CHECK(test::value_at(prog, Eigen::VectorXd()) ==
          Approx(library_log_cdf(0.5, p, Tail::Upper) + library_log_cdf(0.9, p, Tail::Upper) +
                 library_log_cdf(1.7, p, Tail::Upper))
              .epsilon(1e-12));
}

TEST_CASE("wiener: refusals name what is at fault", "[dist][wiener]") {
    // the variabilities' quadrature takes scalars and vectors only
    Graph g;
    std::vector<NodeId> a;
    for (double v : {1.2, 0.3, 0.5, 0.8, 0.0, 0.2, 0.1}) a.push_back(g.constant(v));
    const NodeId y =
        constant_vector(g, std::vector<double>{0.5, 0.6, 0.7, 0.8}, Shape::matrix(2, 2));
    CHECK_THROWS_WITH(log_density(g, distribution("wiener"), y, a),
                      Catch::Contains("wiener: with variability of the start point (sw)") &&
                          Catch::Contains("got mat[2,2]"));
}

}  // namespace advi
