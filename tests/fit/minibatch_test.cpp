// Data subsampling: the scaled log density, unbiased minibatch estimates of the full-data
// log density and gradient, a minibatch fit against the analytic posterior, and the errors.
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/base/error.hpp>
#include <advi/fit/minibatch.hpp>

namespace advi {
namespace {

using Catch::Matchers::Contains;

// y_n ~ N(mu, 2) with mu ~ N(0, 10): prior term and likelihood term.
void build_normal_mean(Model& m, const Eigen::VectorXd& y) {
    auto yy = m.data("y", y);
    auto mu = m.param("mu", normal(0, 10));
    m.observe(yy, normal(mu, 2.0));
}

Eigen::VectorXd simulated(int n, double mean, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> z(mean, 2.0);
    Eigen::VectorXd y(n);
    for (auto& v : y) v = z(rng);
    return y;
}

double log_normal(double x, double m, double s) {
    return -0.5 * std::pow((x - m) / s, 2) - std::log(s) - 0.5 * std::log(2 * M_PI);
}

TEST_CASE("minibatch: terms that read the subsampled slot are scaled, the prior is not",
          "[advi][minibatch]") {
    const Eigen::VectorXd y = simulated(6, 1.0, 3);
    Model m;
    build_normal_mean(m, y);
    const ModelSpec scaled = scale_terms_reading(m.spec(), {0}, 2.5);
    Program p = compile(scaled);
    Eigen::VectorXd zeta(1), grad(1);
    for (double mu : {-1.3, 0.4, 2.0}) {
        zeta[0] = mu;
        double lik = 0, dlik = 0;
        for (double v : y) {
            lik += log_normal(v, mu, 2.0);
            dlik += (v - mu) / 4.0;
        }
        const double expected = log_normal(mu, 0, 10) + 2.5 * lik;
        CHECK(p.run(zeta, grad) == Approx(expected).epsilon(1e-12));
        CHECK(grad[0] == Approx(-mu / 100.0 + 2.5 * dlik).epsilon(1e-12));
    }
}

TEST_CASE("minibatch: the average over minibatches is the full-data log density and gradient",
          "[advi][minibatch]") {
    const int N = 200, B = 20;
    const Eigen::VectorXd y = simulated(N, 1.5, 5);
    Model full;
    build_normal_mean(full, y);
    Program p = compile(full.spec());
    const Eigen::VectorXd batch = y.head(B);  // the model is written over one minibatch
    Model m;
    build_normal_mean(m, batch);
    MinibatchTarget target(m.spec(), {MinibatchData("y", y)}, 7, 1);
    CHECK(target.batch_rows() == B);
    CHECK(target.full_rows() == N);

    Eigen::VectorXd zeta(1), grad(1), g(1);
    zeta[0] = 0.3;
    const double lp_full = p.run(zeta, grad);
    const int R = 4000;
    double sum = 0, sum2 = 0, gsum = 0, gsum2 = 0;
    for (int r = 0; r < R; ++r) {
        target.next_minibatch();
        const double lp = target.log_density_gradient(zeta, g);
        sum += lp;
        sum2 += lp * lp;
        gsum += g[0];
        gsum2 += g[0] * g[0];
    }
    const double mean = sum / R, se = std::sqrt((sum2 / R - mean * mean) / R);
    const double gmean = gsum / R, gse = std::sqrt((gsum2 / R - gmean * gmean) / R);
    CHECK(se > 0);  // the batches do differ
    CHECK(std::abs(mean - lp_full) < 4 * se);
    CHECK(std::abs(gmean - grad[0]) < 4 * gse);

    // The evaluation batch is one fixed batch: the same value every time.
    target.use_evaluation_batch();
    const double e1 = target.log_density_gradient(zeta, g);
    target.next_minibatch();
    target.use_evaluation_batch();
    CHECK(target.log_density_gradient(zeta, g) == e1);
}

TEST_CASE("minibatch: a batch of all rows gives the full-data density", "[advi][minibatch]") {
    const Eigen::VectorXd y = simulated(50, -0.5, 9);
    Model full;
    build_normal_mean(full, y);
    Program p = compile(full.spec());
    const Eigen::VectorXd batch = y;
    Model m;
    build_normal_mean(m, batch);
    MinibatchTarget target(m.spec(), {MinibatchData("y", y)}, 1, 1);
    Eigen::VectorXd zeta(1), g1(1), g2(1);
    zeta[0] = 0.8;
    target.next_minibatch();
    CHECK(target.log_density_gradient(zeta, g1) == Approx(p.run(zeta, g2)).epsilon(1e-12));
    CHECK(g1[0] == Approx(g2[0]).epsilon(1e-10));
}

TEST_CASE("minibatch: a fit on minibatches finds the full-data posterior", "[advi][minibatch]") {
    const int N = 5000, B = 100;
    const Eigen::VectorXd y = simulated(N, 2.0, 11);
    // Conjugate: posterior precision 1/100 + N/4, mean (sum y / 4) / precision.
    const double precision = 1.0 / 100 + N / 4.0;
    const double post_mean = (y.sum() / 4.0) / precision;
    const double post_sd = 1 / std::sqrt(precision);
    const Eigen::VectorXd batch = y.head(B);
    Model m;
    build_normal_mean(m, batch);
    const Fit f = fit(m.spec(), {.seed = 3,
                                 .tol_rel_obj = 0.001,
                                 .max_iterations = 5000,
                                 .output_samples = 4000,
                                 .minibatch = {MinibatchData("y", y)}});
    INFO(f.summary());
    // Minibatch gradients are noisier than full-data ones; the step-size sequence still
    // takes the mean within a few posterior sds (0.028 here) of the truth.
    CHECK(std::abs(f.mean("mu")[0] - post_mean) < 3 * post_sd);
    CHECK(f.sd("mu")[0] == Approx(post_sd).epsilon(0.5));
}

TEST_CASE("minibatch: bad sources name the slot at fault", "[advi][minibatch]") {
    const Eigen::VectorXd y = simulated(30, 0, 1);
    const Eigen::VectorXd batch = y.head(10);
    Model m;
    build_normal_mean(m, batch);
    const ModelSpec spec = m.spec();
    CHECK_THROWS_WITH(MinibatchTarget(spec, {MinibatchData("x", y)}, 1, 1),
                      Contains("no data slot `x`") && Contains("y"));
    const Eigen::VectorXd small = simulated(5, 0, 1);
    CHECK_THROWS_WITH(MinibatchTarget(spec, {MinibatchData("y", small)}, 1, 1),
                      Contains("batch of 10 rows from full data of only 5"));
    const Eigen::MatrixXd wide = Eigen::MatrixXd::Zero(30, 2);
    CHECK_THROWS_WITH(MinibatchTarget(spec, {MinibatchData("y", wide)}, 1, 1),
                      Contains("minibatch `y`"));
    // A model whose terms read no subsampled slot, or that does not list its terms.
    Model prior_only;
    auto yy = prior_only.data("y", batch);
    (void)yy;
    auto mu = prior_only.param("mu", normal(0, 1));
    (void)mu;
    CHECK_THROWS_WITH(MinibatchTarget(prior_only.spec(), {MinibatchData("y", y)}, 1, 1),
                      Contains("no term of the log density reads the subsampled data"));
    ModelSpec unlisted = spec;
    unlisted.terms.clear();
    CHECK_THROWS_WITH(scale_terms_reading(unlisted, {0}, 2.0),
                      Contains("does not list the terms of its log density"));
    const Eigen::VectorXi ints = Eigen::VectorXi::Zero(30);
    CHECK_THROWS_WITH(MinibatchTarget(spec, {MinibatchData("y", ints)}, 1, 1),
                      Contains("the slot holds reals, the full data ints"));
}

}  // namespace
}  // namespace advi
