// Every argument of a distribution or function accepts a number, an Eigen vector or matrix
// (copied as a constant) or an Eigen expression of one, as well as an Expr (issue 17, class
// 11): each distribution of the table and a sample of functions, with each kind of argument,
// give the log density and gradient of the same model written with data expressions, to 1e-12.
#include <algorithm>
#include <cmath>
#include <deque>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>

namespace advi {
namespace {

enum class ArgShape { Scalar, Vector, Matrix };
// How a test passes an argument: as data bound to the model (the reference: an Expr), as a
// number or an Eigen object holding the values, or as an Eigen expression of them.
enum class Kind { Data, Constant, EigenExpression };

struct ArgSpec {
    Eigen::MatrixXd values;  // a column for a vector, 1x1 for a scalar
    ArgShape shape = ArgShape::Vector;
    bool integer = false;
};

ArgSpec vec(std::initializer_list<double> v) {
    ArgSpec a;
    a.values = Eigen::Map<const Eigen::VectorXd>(v.begin(), static_cast<Eigen::Index>(v.size()));
    return a;
}
ArgSpec ivec(std::initializer_list<double> v) {
    ArgSpec a = vec(v);
    a.integer = true;
    return a;
}
ArgSpec scalar(double x) {
    ArgSpec a;
    a.values = Eigen::MatrixXd::Constant(1, 1, x);
    a.shape = ArgShape::Scalar;
    return a;
}
ArgSpec mat(const Eigen::MatrixXd& m) {
    return {m, ArgShape::Matrix, false};
}

// A distribution with arguments, over a latent variable (rows x cols, cols 0 for a vector)
// or over integer data `y`.
struct DistCase {
    std::string name;
    std::vector<ArgSpec> args;
    int rows = 3, cols = 0;
    std::vector<int> y{};          // integer outcomes: observed, with a latent of its own beside
    std::vector<double> real_y{};  // real outcomes, likewise
    // The support depends on the arguments, so Model takes them as numbers only (data are
    // refused alike: "declare the support explicitly"): the scalar form, numbers against
    // Expr constants (Model::constant).
    bool numbers_only = false;
};

// Storage for data the model binds by reference, alive as long as the model.
struct Held {
    std::deque<Eigen::VectorXd> reals;
    std::deque<Eigen::VectorXi> ints;
    std::deque<Eigen::MatrixXd> mats;
};

Arg make_arg(Model& m, Held& held, const ArgSpec& a, Kind kind, const std::string& name) {
    const Eigen::VectorXd v = a.values.reshaped();
    switch (kind) {
        case Kind::Data:
            if (a.shape == ArgShape::Scalar)
                return a.integer ? m.data(name, static_cast<int>(v[0])) : m.data(name, v[0]);
            if (a.shape == ArgShape::Matrix)
                return m.data(name, held.mats.emplace_back(a.values));
            if (a.integer)
                return m.data(name, held.ints.emplace_back(v.cast<int>()));
            return m.data(name, held.reals.emplace_back(v));
        case Kind::Constant:
            if (a.shape == ArgShape::Scalar)
                return a.integer ? Arg(static_cast<int>(v[0])) : Arg(v[0]);
            if (a.shape == ArgShape::Matrix)
                return Eigen::MatrixXd(a.values);
            if (a.integer)
                return Eigen::VectorXi(v.cast<int>());
            return Eigen::VectorXd(v);
        case Kind::EigenExpression:
            // An expression of the model for a number; Eigen's own expression types else: a
            // row vector (a transpose), a block, a linear combination.
            if (a.shape == ArgShape::Scalar)
                return m.constant(v[0]);
            if (a.shape == ArgShape::Matrix)
                return 2.0 * a.values - a.values;  // exact: 2x - x == x
            if (a.integer) {
                const Eigen::VectorXi vi = v.cast<int>();
                return Arg(vi.head(vi.size()));
            }
            return Arg(v.transpose());
    }
    return 0.0;
}

struct Density {
    double lp;
    Eigen::VectorXd grad;
};

Density evaluate(const Model& m) {
    Program p = compile(m);
    Eigen::VectorXd zeta(p.dim()), grad(p.dim());
    for (int i = 0; i < p.dim(); ++i) zeta[i] = 0.3 * std::sin(1.0 + i);
    const double lp = p.run(zeta, grad);
    return {lp, grad};
}

// The case's model with argument `k` passed as `kind` (the others as data, or as Expr
// constants for numbers_only), or every argument so when k < 0; `shift` is added to the second
// value of argument k (or its only one): a shift of all would leave softmax unchanged, and the
// outcomes use the second category whether categories count from 0 or from 1.
Density density(const DistCase& c, int k, Kind kind, double shift = 0.0) {
    const Kind others = c.numbers_only ? Kind::EigenExpression : Kind::Data;
    Model m;
    Held held;
    std::vector<Arg> args;
    for (int j = 0; j < static_cast<int>(c.args.size()); ++j) {
        ArgSpec a = c.args[j];
        if (j == k)
            a.values(std::min<Eigen::Index>(1, a.values.size() - 1)) += shift;
        args.push_back(make_arg(m, held, a, j == k ? kind : others, "a" + std::to_string(j)));
    }
    const Dist d = dist(c.name, args);
    if (!c.real_y.empty()) {
        held.reals.emplace_back(Eigen::Map<const Eigen::VectorXd>(
            c.real_y.data(), static_cast<Eigen::Index>(c.real_y.size())));
        (void)m.param("z", normal(0, 1));
        m.observe(m.data("y", held.reals.back()), d);
    } else if (!c.y.empty()) {
        held.ints.emplace_back(
            Eigen::Map<const Eigen::VectorXi>(c.y.data(), static_cast<Eigen::Index>(c.y.size())));
        (void)m.param("z", normal(0, 1));
        m.observe(m.data("y", held.ints.back()), d);
    } else if (c.cols > 0) {
        (void)m.param("x", d, c.rows, c.cols);
    } else {
        (void)m.param("x", d, c.rows);
    }
    return evaluate(m);
}

void check_same(const Density& a, const Density& b) {
    CHECK(a.lp == Approx(b.lp).epsilon(1e-12));
    REQUIRE(a.grad.size() == b.grad.size());
    CHECK((a.grad - b.grad).norm() <= 1e-12 * (1 + b.grad.norm()));
}

Eigen::MatrixXd spd() {
    Eigen::MatrixXd s(3, 3);
    s << 2.0, 0.3, 0.1, 0.3, 1.5, -0.2, 0.1, -0.2, 1.0;
    return s;
}
Eigen::MatrixXd lower() {
    return Eigen::MatrixXd(spd().llt().matrixL());
}

// Every distribution of the table (flat has no arguments), vector arguments where the
// distribution takes them elementwise; the scalar forms follow from these by first elements.
std::vector<DistCase> cases() {
    const ArgSpec mu = vec({0.1, -0.2, 0.3}), sigma = vec({1.1, 0.9, 1.3}),
                  pos = vec({2.0, 3.0, 1.5}), pos2 = vec({1.2, 2.0, 0.5}),
                  unit = vec({0.3, 0.6, 0.8}), real = vec({0.1, -0.2, 1.0});
    // clang-format off
    return {
        {"normal", {mu, sigma}},
        {"lognormal", {mu, sigma}},
        {"cauchy", {mu, sigma}},
        {"student_t", {vec({3, 4, 5}), mu, sigma}},
        {"gamma", {pos, pos2}},
        {"inv_gamma", {pos, pos2}},
        {"weibull", {pos, pos2}},
        {"exponential", {pos}},
        {"beta", {pos, pos2}},
        {"double_exponential", {mu, sigma}},
        {"logistic", {mu, sigma}},
        {"gumbel", {mu, sigma}},
        {"skew_normal", {mu, sigma, vec({0.5, -1, 2})}},
        {"skew_double_exponential", {mu, sigma, unit}},
        {"exp_mod_normal", {mu, sigma, pos}},
        {"chi_square", {vec({3, 4, 5})}},
        {"inv_chi_square", {vec({3, 4, 5})}},
        {"scaled_inv_chi_square", {vec({3, 4, 5}), sigma}},
        {"frechet", {pos, pos2}},
        {"uniform", {vec({-2, -3, -1}), vec({2, 3, 4})}, 3, 0, {}, {}, true},
        {"pareto", {vec({0.5, 0.2, 1.0}), pos}, 3, 0, {}, {}, true},
        {"pareto_type_2", {vec({0.0, 0.1, -0.1}), pos2, pos}, 3, 0, {}, {}, true},
        {"von_mises", {mu, vec({1.0, 2.0, 0.5})}},
        {"rayleigh", {pos}},
        {"loglogistic", {pos, pos2}},
        // response times observed above every tau; sv 0 for one element
        {"wiener", {pos2, vec({0.1, 0.2, 0.05}), unit, mu, vec({0.0, 0.3, 0.5}), vec({0.1, 0.0, 0.0}), vec({0.0, 0.0, 0.1})}, 3, 0, {}, {0.5, 0.9, 1.3}},
        {"poisson", {vec({1.0, 2.5, 4.0})}, 3, 0, {0, 2, 5}},
        {"poisson_log", {real}, 3, 0, {0, 2, 5}},
        {"bernoulli", {unit}, 3, 0, {0, 1, 1}},
        {"bernoulli_logit", {real}, 3, 0, {0, 1, 1}},
        {"binomial", {ivec({10, 4, 6}), unit}, 3, 0, {1, 2, 5}},
        {"binomial_logit", {ivec({10, 4, 6}), real}, 3, 0, {1, 2, 5}},
        {"beta_binomial", {ivec({10, 4, 6}), pos, pos2}, 3, 0, {1, 2, 5}},
        {"neg_binomial_2", {vec({1.0, 2.5, 4.0}), pos}, 3, 0, {0, 2, 5}},
        {"neg_binomial_2_log", {real, pos}, 3, 0, {0, 2, 5}},
        {"neg_binomial", {pos, pos2}, 3, 0, {0, 2, 5}},
        {"beta_neg_binomial", {pos, pos2, vec({1.0, 2.0, 0.7})}, 3, 0, {0, 2, 5}},
        {"yule_simon", {pos}, 3, 0, {1, 2, 5}},
        {"discrete_range", {ivec({-2, 0, 1}), ivec({4, 5, 6})}, 3, 0, {1, 2, 5}},
        {"hypergeometric", {ivec({5, 5, 4}), ivec({6, 6, 3}), ivec({7, 7, 8})}, 3, 0, {1, 2, 3}},
        {"beta_proportion", {unit, pos}},
        {"multi_normal", {mu, mat(spd())}},
        {"multi_normal_cholesky", {mu, mat(lower())}},
        {"dirichlet", {pos}},
        // Outcomes valid whether categories count from 0 or from 1 (K = 3).
        {"categorical", {vec({0.2, 0.3, 0.5})}, 3, 0, {1, 2, 1}},
        {"categorical_logit", {real}, 3, 0, {1, 2, 1}},
        {"ordered_logistic", {vec({0.1, -0.5, 1.2}), vec({-1.0, 0.5})}, 3, 0, {1, 2, 1}},
        {"lkj_corr_cholesky", {scalar(2.0)}, 3, 3},
        {"lkj_corr", {scalar(2.0)}, 3, 3},
        {"wishart", {scalar(5.0), mat(spd())}, 3, 3},
        {"inv_wishart", {scalar(5.0), mat(spd())}, 3, 3},
        {"wishart_cholesky", {scalar(5.0), mat(lower())}, 3, 3},
        {"inv_wishart_cholesky", {scalar(5.0), mat(lower())}, 3, 3},
    };
    // clang-format on
}

// The case with every vector argument cut to its first element: scalar arguments.
DistCase scalar_form(DistCase c) {
    for (ArgSpec& a : c.args) {
        if (a.shape == ArgShape::Vector) {
            a.values = Eigen::MatrixXd(a.values.topRows(1));  // not aliased
            a.shape = ArgShape::Scalar;
        }
    }
    return c;
}

}  // namespace

TEST_CASE("every distribution takes numbers, Eigen vectors and matrices and Eigen expressions",
          "[dsl][constant_args]") {
    std::vector<std::string> covered;
    for (const DistCase& vector_case : cases()) {
        covered.push_back(vector_case.name);
        const bool multivariate = distribution(vector_case.name).multivariate;
        std::vector<DistCase> forms = {vector_case};
        if (vector_case.numbers_only)
            forms = {};
        if (!multivariate)
            forms.push_back(scalar_form(vector_case));
        for (const DistCase& c : forms) {
            const Kind ref = c.numbers_only ? Kind::EigenExpression : Kind::Data;
            const Density reference = density(c, -1, ref);
            for (int k = 0; k < static_cast<int>(c.args.size()); ++k) {
                for (const Kind kind : {Kind::Constant, Kind::EigenExpression}) {
                    if (kind == ref)
                        continue;
                    INFO(c.name << ": argument " << k << " ("
                                << (c.args[k].shape == ArgShape::Scalar   ? "scalar"
                                    : c.args[k].shape == ArgShape::Vector ? "vector"
                                                                          : "matrix")
                                << ") as " << (kind == Kind::Constant ? "constant" : "expression"));
                    check_same(density(c, k, kind), reference);
                }
                // The argument's values reach the density: other values, another density
                // (not where the support moves with the argument: the density of zeta is then
                // invariant to a shift).
                if (!c.args[k].integer && c.args[k].shape != ArgShape::Matrix && !c.numbers_only) {
                    INFO(c.name << ": argument " << k << " shifted");
                    CHECK(density(c, k, Kind::Constant, 0.05).lp != Approx(reference.lp));
                }
            }
        }
    }
    // Every distribution of the table but `flat` (no arguments).
    for (const DistInfo& d : distributions()) {
        if (d.arity > 0) {
            INFO(d.name);
            CHECK(std::find(covered.begin(), covered.end(), d.name) != covered.end());
        }
    }
}

TEST_CASE("the named distributions compile with Eigen arguments", "[dsl][constant_args]") {
    // The example: advi::dirichlet(alpha) with an Eigen::VectorXd alpha.
    Eigen::VectorXd alpha(3), mu(3);
    alpha << 2.0, 3.0, 1.5;
    mu << 0.1, -0.2, 0.3;
    Model a, b;
    (void)a.param("theta", dirichlet(alpha), 3);
    (void)a.param("x", multi_normal(mu, spd()), 3);
    (void)a.param("s", normal(mu.head(3), 1.0), 3);
    const Expr alpha_data = b.data("alpha", alpha), mu_data = b.data("mu", mu);
    const Eigen::MatrixXd S = spd();
    (void)b.param("theta", dirichlet(alpha_data), 3);
    (void)b.param("x", multi_normal(mu_data, b.data("S", S)), 3);
    (void)b.param("s", normal(mu_data, 1.0), 3);
    check_same(evaluate(a), evaluate(b));
}

TEST_CASE("operators take Eigen objects on either side", "[dsl][constant_args]") {
    Eigen::MatrixXd X(4, 3);
    X << 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;
    X /= 10;
    Eigen::VectorXd v(3);
    v << 0.5, -1.5, 2.5;
    Model a, b;
    const Expr xa = a.param("x", normal(0, 1), 3), xb = b.param("x", normal(0, 1), 3);
    a.target_add(sum(square(X * xa)) + sum(square(v + xa)) + sum(xa - v) + sum(v - xa) +
                 sum(2 * xa) + dot(v.transpose(), xa) + sum(v.head(3) / exp(xa)));
    const Expr Xd = b.data("X", X), vd = b.data("v", v);
    b.target_add(sum(square(Xd * xb)) + sum(square(vd + xb)) + sum(xb - vd) + sum(vd - xb) +
                 sum(2.0 * xb) + dot(vd, xb) + sum(vd / exp(xb)));
    check_same(evaluate(a), evaluate(b));
}

TEST_CASE("functions of two arguments take a constant on either side", "[dsl][constant_args]") {
    Eigen::VectorXd v(3), w(3);
    v << 0.5, 1.5, 2.5;
    w << 0.2, 0.7, 1.1;
    const Eigen::MatrixXd S = spd(), L = lower();
    Eigen::VectorXi idx(4);
    idx << 2, 0, 1, 2;
    // f(model, x, v, S, L, idx) builds a term from latent x and constant-like arguments; the
    // constants as Eigen objects against the same as data.
    using Build = Expr (*)(const Expr& x, const Arg& v, const Arg& S, const Arg& L, const Arg& idx);
    // clang-format off
    const std::vector<std::pair<std::string, Build>> functions = {
        {"v + x", [](const Expr& x, const Arg& v, const Arg&, const Arg&, const Arg&) {
             return sum(square(v + x));
         }},
        {"v - x", [](const Expr& x, const Arg& v, const Arg&, const Arg&, const Arg&) {
             return sum(square(v - x));
         }},
        {"S * x", [](const Expr& x, const Arg&, const Arg& S, const Arg&, const Arg&) {
             return sum(square(S * x));
         }},
        {"v / exp(x)", [](const Expr& x, const Arg& v, const Arg&, const Arg&, const Arg&) {
             return sum(v / exp(x));
         }},
        {"pow(v, x)", [](const Expr& x, const Arg& v, const Arg&, const Arg&, const Arg&) {
             return sum(pow(v, x));
         }},
        {"fmin(v, x)", [](const Expr& x, const Arg& v, const Arg&, const Arg&, const Arg&) {
             return sum(fmin(v, x));
         }},
        {"lbeta(v, exp(x))", [](const Expr& x, const Arg& v, const Arg&, const Arg&,
                                const Arg&) { return sum(lbeta(v, exp(x))); }},
        {"lchoose(exp(x) + 3, v)", [](const Expr& x, const Arg& v, const Arg&, const Arg&,
                                      const Arg&) { return sum(lchoose(exp(x) + 3.0, v)); }},
        {"log_diff_exp(v + 1, x - 3)", [](const Expr& x, const Arg& v, const Arg&, const Arg&,
                                          const Arg&) {
             return sum(log_diff_exp(v, x - 3.0));
         }},
        {"dot(v, x)", [](const Expr& x, const Arg& v, const Arg&, const Arg&, const Arg&) {
             return dot(v, x);
         }},
        {"elt_multiply(v, x)", [](const Expr& x, const Arg& v, const Arg&, const Arg&,
                                  const Arg&) { return sum(elt_multiply(v, x)); }},
        {"quad_form(S, x)", [](const Expr& x, const Arg&, const Arg& S, const Arg&,
                               const Arg&) { return quad_form(S, x); }},
        {"mdivide_left_tri_low(L, x)", [](const Expr& x, const Arg&, const Arg&, const Arg& L,
                                          const Arg&) {
             return sum(square(mdivide_left_tri_low(L, x)));
         }},
        {"diag_pre_multiply(x, S)", [](const Expr& x, const Arg&, const Arg& S, const Arg&,
                                       const Arg&) { return sum(diag_pre_multiply(x, S)); }},
        {"append_row(v, x)", [](const Expr& x, const Arg& v, const Arg&, const Arg&,
                                const Arg&) { return sum(square(append_row(v, x))); }},
        {"x[idx]", [](const Expr& x, const Arg&, const Arg&, const Arg&, const Arg& idx) {
             return sum(square(x[idx]));
         }},
    };
    // clang-format on
    for (const auto& [name, build] : functions) {
        INFO(name);
        Model a, b;
        const Expr xa = a.param("x", normal(0, 1), 3), xb = b.param("x", normal(0, 1), 3);
        a.target_add(build(xa, v, S, L, idx));
        b.target_add(build(xb, b.data("v", v), b.data("S", S), b.data("L", L), b.data("idx", idx)));
        const Density da = evaluate(a), db = evaluate(b);
        check_same(da, db);
        // Not vacuous: the term depends on the constants.
        const Eigen::VectorXd v2 = 0.1 * v;  // below x, for fmin
        Eigen::VectorXi idx2(4);
        idx2 << 0, 0, 0, 1;
        Model c;
        const Expr xc = c.param("x", normal(0, 1), 3);
        c.target_add(build(xc, v2, S * 1.1, L * 1.1, idx2));
        CHECK(evaluate(c).lp != Approx(db.lp));
    }
}

TEST_CASE("a constant argument is refused with a reason when it cannot be one",
          "[dsl][constant_args]") {
    Eigen::VectorXd v(2);
    v << 1.0, std::nan("");
    Model m;
    const Expr x = m.param("x", normal(0, 1), 2);
    CHECK_THROWS_WITH(m.target_add(sum(x * v)),
                      "a constant vector argument: element 1 is nan, not a finite number");
    // A function of constants alone has no model to join.
    Eigen::VectorXd w = Eigen::VectorXd::Ones(2);
    CHECK_THROWS_WITH(dot(w, w), Catch::Contains("dot: no argument is an expression of a model"));
    // Shapes are checked as for data, naming the function.
    Eigen::VectorXd three = Eigen::VectorXd::Ones(3);
    CHECK_THROWS_AS(m.target_add(dot(three, x)), ShapeError);
}

}  // namespace advi
