// Loops as one op (dsl/advi/cpp/loop.hpp, graph/ops_loop.hpp, compile/loop_body.hpp): a
// nonlinear recurrence with a likelihood accumulated in the state has the density and gradient
// of the same model unrolled into the graph; the gradient matches finite differences; the
// checkpointed reverse pass (states recomputed segment by segment) gives the same gradient as
// the one that keeps every state; indexing by the iteration (at) reads NaN out of range; and a
// fit through the loop op reaches the unrolled model's fit.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/compile/loop_body.hpp>
#include <advi/cpp/submodel.hpp>
#include <advi/graph/ops_loop.hpp>

#include "support/same_model.hpp"

namespace advi {
namespace {

// v[k], 0-based (the DSL indexes by integer data vectors; a slice of one summed is the scalar)
Expr el(const Expr& v, int k) {
    return sum(segment(v, k, 1));
}

struct Series {
    Eigen::VectorXd x, y;
};
Series simulate(int T) {
    std::mt19937 rng(11);
    std::normal_distribution<double> z;
    Series s{Eigen::VectorXd(T), Eigen::VectorXd(T)};
    double h = 0;
    for (int t = 0; t < T; ++t) {
        s.x[t] = z(rng);
        h = std::tanh(0.7 * h + 0.9 * s.x[t]);
        s.y[t] = h + 0.3 * z(rng);
    }
    return s;
}

// h_t = tanh(a h_{t-1} + b x_t), y_t ~ normal(h_t, sigma), h_0 = 0: the priors, then the
// recurrence either in a loop op (the state [h, log likelihood so far]) or unrolled.
void recurrence(Model& m, const Series& d, bool as_loop) {
    const Expr a = m.param("a", normal(0, 1));
    const Expr b = m.param("b", normal(0, 1));
    const Expr sigma = m.param("sigma", lognormal(0, 1));
    const Expr x = m.data("x", d.x);
    const Expr y = m.data("y", d.y);
    const int T = static_cast<int>(d.x.size());
    if (as_loop) {
        const Expr init = rep_vector(m.constant(0), 2);
        const Expr last = loop(
            [](Model& body, const Expr& t, const Expr& s, const std::vector<Expr>& args) {
                const Expr h = tanh(args[0] * el(s, 0) + args[1] * at(args[3], t));
                const Expr lp = body.log_density(at(args[4], t), normal(h, args[2]));
                return append_row(rep_vector(h, 1), el(s, 1) + lp);
            },
            init, 1, T, {a, b, sigma, x, y}, "recurrence");
        m.target_add(el(last, 1));
        return;
    }
    Expr h = m.constant(0);
    for (int t = 0; t < T; ++t) {
        h = tanh(a * h + b * el(x, t));
        m.target_add(m.log_density(el(y, t), normal(h, sigma)));
    }
}

}  // namespace

TEST_CASE("loop: a nonlinear recurrence has the density and gradient of its unrolled graph",
          "[loop]") {
    const Series d = simulate(40);
    Model looped, unrolled;
    recurrence(looped, d, true);
    recurrence(unrolled, d, false);
    test::check_same_density(looped.spec(), unrolled.spec(), 1e-10);
}

TEST_CASE("loop: the gradient matches finite differences", "[loop]") {
    const Series d = simulate(25);
    Model m;
    recurrence(m, d, true);
    Program p = compile(m);
    Eigen::VectorXd z(3), g, none;
    z << 0.4, -0.3, 0.2;
    p.run(z, g);
    for (int k = 0; k < 3; ++k) {
        Eigen::VectorXd zp = z, zm = z;
        const double h = 1e-6;
        zp[k] += h;
        zm[k] -= h;
        CHECK(g[k] == Approx((p.run(zp, none) - p.run(zm, none)) / (2 * h)).epsilon(1e-6));
    }
}

TEST_CASE("loop: the checkpointed reverse pass gives the gradient that keeps every state",
          "[loop]") {
    // s_t = s_{t-1} * cos(p0 t) + p1 sin(s_{t-1}) over 500 iterations, 3 states: every state kept,
    // and 23 checkpoints of 22 iterations (stored_states below T S)
    Model body;
    const Expr t = body.param("t", flat());
    const Expr s = body.param("s", flat(), 3);
    const Expr p = body.param("p", flat(), 2);
    const Expr next = elt_multiply(s, rep_vector(cos(el(p, 0) * t), 3)) + el(p, 1) * sin(s);
    const Graph g = submodel::with_zeta_leaves(body, next, {0, 1, 4});
    const auto compiled =
        compile_loop_body(g, *g.output("f"), body.spec().data, {3, 2, 0, 0}, nullptr);
    Eigen::VectorXd z(5), gvec(3);
    z << 0.3, -0.2, 0.5, 0.01, 0.6;
    gvec << 1.0, -2.0, 0.5;
    Eigen::VectorXd all(3), some(3), vjp_all(5), vjp_some(5);
    LoopSystem every{compiled, 1, 500, "every", 1 << 22};
    LoopSystem checkpointed{compiled, 1, 500, "checkpointed", 100};
    loop_ops::run(every, z.data(), all.data(), gvec.data(), vjp_all.data());
    loop_ops::run(checkpointed, z.data(), some.data(), gvec.data(), vjp_some.data());
    CHECK((all - some).norm() == 0.0);
    CHECK((vjp_all - vjp_some).norm() <= 1e-12 * vjp_all.norm());
    // and against central differences of the final state
    for (int k = 0; k < 5; ++k) {
        Eigen::VectorXd zp = z, zm = z, fp(3), fm(3);
        const double h = 1e-6;
        zp[k] += h;
        zm[k] -= h;
        loop_ops::run(every, zp.data(), fp.data());
        loop_ops::run(every, zm.data(), fm.data());
        CHECK(vjp_all[k] == Approx(gvec.dot(fp - fm) / (2 * h)).epsilon(1e-5).margin(1e-7));
    }
}

TEST_CASE("scan: slices in, rows out: the density and gradient of the unrolled graph", "[loop]") {
    // z_t = tanh(w_t + a z_{t-1}), emitted; y_t ~ normal(z_t, sigma) on the emitted rows; w a
    // parameter vector passed as slices (one value per iteration)
    const Series d = simulate(30);
    auto build = [&](Model& m, bool as_scan) {
        const Expr a = m.param("a", normal(0, 1));
        const Expr w = m.param("w", normal(0, 1), 30);
        const Expr sigma = m.param("sigma", lognormal(0, 1));
        const Expr y = m.data("y", d.y);
        if (as_scan) {
            const ScanResult r = scan(
                [](Model&, const Expr&, const Expr& s, const std::vector<Expr>& args,
                   const std::vector<Expr>& slices) {
                    const Expr z = tanh(el(slices[0], 0) + args[0] * el(s, 0));
                    return LoopStep{rep_vector(z, 1), rep_vector(z, 1)};
                },
                rep_vector(m.constant(0), 1), 1, 30, {a}, {w});
            m.observe(y, normal(r.emitted, sigma));
            return;
        }
        Expr z = m.constant(0);
        for (int t = 0; t < 30; ++t) {
            z = tanh(el(w, t) + a * z);
            m.target_add(m.log_density(el(y, t), normal(z, sigma)));
        }
    };
    Model scanned, unrolled;
    build(scanned, true);
    build(unrolled, false);
    test::check_same_density(scanned.spec(), unrolled.spec(), 1e-10);
}

TEST_CASE("loop: no iteration returns the initial state; at() reads NaN out of range", "[loop]") {
    Model m;
    const Expr a = m.param("a", normal(0, 1));
    const Eigen::VectorXd v = (Eigen::VectorXd(3) << 1, 2, 3).finished();
    const Expr init = m.data("init", v);
    const Expr none = loop([](Model&, const Expr&, const Expr& s,
                              const std::vector<Expr>& args) { return s * args[0]; },
                           init, 5, 4, {a});
    m.target_add(sum(none));
    Program p = compile(m);
    Eigen::VectorXd z(1), g;
    z << 0.3;
    // the prior of a plus sum(init)
    CHECK(p.run(z, g) == Approx(6 - 0.5 * 0.09 - 0.5 * std::log(2 * M_PI)));
    CHECK(g[0] == Approx(-0.3));

    Model n;
    const Expr b = n.param("b", normal(0, 1));
    const Expr idx = n.data("i", 4);
    n.target_add(at(n.data("v", v), idx) * b);
    Program q = compile(n);
    CHECK(std::isnan(q.run(z, g)));
}

TEST_CASE("loop: a fit through the loop op reaches the unrolled model's", "[loop]") {
    const Series d = simulate(60);
    Model looped, unrolled;
    recurrence(looped, d, true);
    recurrence(unrolled, d, false);
    const Options o{.family = Family::FullRank, .seed = 3};
    const Fit a = fit(looped, o);
    const Fit b = fit(unrolled, o);
    // the loop op has no second derivatives yet: q starts from the init point, saying why
    CHECK_THAT(a.result().start,
               Catch::Contains("no start from the mode, which needs second derivatives") &&
                   Catch::Contains("loop_vjp"));
    for (const char* name : {"a", "b", "sigma"}) {
        const Eigen::VectorXd da = a.draws(name), db = b.draws(name);
        const double sd = std::sqrt((db.array() - db.mean()).square().mean());
        INFO(name);
        CHECK(std::abs(da.mean() - db.mean()) < 0.2 * sd);
    }
}

}  // namespace advi
