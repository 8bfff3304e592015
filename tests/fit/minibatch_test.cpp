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

TEST_CASE("minibatch: the full-data pass is the full model's density, N not a multiple of B",
          "[advi][minibatch]") {
    const int N = 53, B = 10;  // five batches and a last of 3 rows padded with copies
    const Eigen::VectorXd y = simulated(N, 0.7, 13);
    Model full;
    build_normal_mean(full, y);
    Program p = compile(full.spec());
    const Eigen::VectorXd batch = y.head(B);
    Model m;
    build_normal_mean(m, batch);
    MinibatchTarget target(m.spec(), {MinibatchData("y", y)}, 2, 1);
    // 100 ELBO draws x 53 rows: the ELBO's evaluation set is every row.
    CHECK(target.evaluation_rows() == static_cast<std::size_t>(N));
    Eigen::MatrixXd zetas(1, 3);
    zetas << -0.4, 0.9, 2.2;
    Eigen::VectorXd on_set, on_all, grad(1);
    target.log_densities(zetas, on_set);
    target.use_full_data();
    target.log_densities(zetas, on_all);
    for (Eigen::Index j = 0; j < zetas.cols(); ++j) {
        const double expected = p.run(zetas.col(j), grad);
        CHECK(on_all[j] == Approx(expected).epsilon(1e-12));
        CHECK(on_set[j] == Approx(expected).epsilon(1e-12));
    }
    // and the batches' program is left as it was: the evaluation batch at N / B
    Eigen::VectorXd g(1);
    target.use_evaluation_batch();
    const double e = target.log_density_gradient(zetas.col(0), g);
    CHECK(std::isfinite(e));
    CHECK(e != Approx(on_all[0]).epsilon(1e-6));
}

TEST_CASE("minibatch: an epoch of reshuffled batches sums to the full-data density",
          "[advi][minibatch]") {
    const int N = 200, B = 20;
    const Eigen::VectorXd y = simulated(N, 1.1, 17);
    Model full;
    build_normal_mean(full, y);
    Program p = compile(full.spec());
    const Eigen::VectorXd batch = y.head(B);
    Model m;
    build_normal_mean(m, batch);
    MinibatchTarget target(m.spec(), {MinibatchData("y", y)}, 4, 1, MinibatchDraw::Epochs);
    Eigen::VectorXd zeta(1), grad(1), g(1);
    zeta[0] = 0.6;
    const double lp_full = p.run(zeta, grad);
    for (int epoch = 0; epoch < 2; ++epoch) {
        // each row once per epoch: lp_k = prior + (N / B) sum of its rows, so the mean over the
        // epoch's N / B batches is exactly the full data's (independent batches: only on average)
        double mean = 0, gmean = 0;
        for (int k = 0; k < N / B; ++k) {
            target.next_minibatch();
            mean += target.log_density_gradient(zeta, g) / (N / B);
            gmean += g[0] / (N / B);
        }
        CHECK(mean == Approx(lp_full).epsilon(1e-12));
        CHECK(gmean == Approx(grad[0]).epsilon(1e-10));
    }
}

// y_n ~ N(mu, sigma), sigma ~ lognormal(0, 1): the rows' gradients in log sigma depend on the
// row however close two points are, so control variates reduce their noise without removing it.
void build_normal_scale(Model& m, const Eigen::VectorXd& y) {
    auto yy = m.data("y", y);
    auto mu = m.param("mu", normal(0, 10));
    auto sigma = m.param("sigma", lognormal(0, 1));
    m.observe(yy, normal(mu, sigma));
}

TEST_CASE("minibatch: control variates are exact at the anchor and unbiased, with less noise",
          "[advi][minibatch]") {
    const int N = 203, B = 20;  // the anchor's full-data pass ends with a padded batch of 3
    const Eigen::VectorXd y = simulated(N, 1.5, 23);
    Model full;
    build_normal_scale(full, y);
    Program p = compile(full.spec());
    const Eigen::VectorXd batch = y.head(B);
    Model m;
    build_normal_scale(m, batch);
    MinibatchTarget plain(m.spec(), {MinibatchData("y", y)}, 7, 1);
    MinibatchTarget target(m.spec(), {MinibatchData("y", y)}, 7, 1);
    target.set_control_variates(true);
    Eigen::VectorXd a(2);
    a << 1.4, 0.6;
    const Approximation q = Approximation::mean_field(a, Eigen::Vector2d(-2.0, -2.0));
    target.offer_anchor(q);
    CHECK(target.anchor_passes() == 1);
    plain.offer_anchor(q);  // without control variates: ignored
    CHECK(plain.anchor_passes() == 0);

    // At the anchor every batch gives the full data's gradient (the value stays the batch's).
    Eigen::VectorXd full_grad(2), g(2);
    p.run(a, full_grad);
    for (int r = 0; r < 5; ++r) {
        target.next_minibatch();
        CHECK(std::isfinite(target.log_density_gradient(a, g)));
        CHECK(g[0] == Approx(full_grad[0]).epsilon(1e-10));
        CHECK(g[1] == Approx(full_grad[1]).epsilon(1e-10));
    }
    // Off it, unbiased (the batch's noise averages out) and far less noisy than the plain
    // batches' at the same point: the rows' gradients differ between zeta and a by sd(q)'s
    // order, not by the rows' own spread.
    Eigen::VectorXd zeta(2);
    zeta << 1.43, 0.56;  // a third of an sd of q from the anchor
    p.run(zeta, full_grad);
    const int R = 4000;
    Eigen::Array2d sum = Eigen::Array2d::Zero(), sum2 = sum, plain_sum = sum, plain_sum2 = sum;
    for (int r = 0; r < R; ++r) {
        target.next_minibatch();
        target.log_density_gradient(zeta, g);
        sum += g.array();
        sum2 += g.array().square();
        plain.next_minibatch();
        plain.log_density_gradient(zeta, g);
        plain_sum += g.array();
        plain_sum2 += g.array().square();
    }
    const Eigen::Array2d mean = sum / R, sd = (sum2 / R - mean.square()).sqrt();
    const Eigen::Array2d plain_mean = plain_sum / R,
                         plain_sd = (plain_sum2 / R - plain_mean.square()).sqrt();
    INFO("control-variate sds " << sd.transpose() << ", plain " << plain_sd.transpose());
    for (int k = 0; k < 2; ++k) {
        CHECK(sd[k] > 0);
        CHECK(std::abs(mean[k] - full_grad[k]) < 4 * sd[k] / std::sqrt(R));
        CHECK(sd[k] < 0.25 * plain_sd[k]);
    }

    // The evaluation batch keeps the batch's own density: the ELBO's comparisons stay paired.
    target.use_evaluation_batch();
    plain.use_evaluation_batch();
    Eigen::VectorXd g2(2);
    CHECK(target.log_density_gradient(zeta, g) == plain.log_density_gradient(zeta, g2));

    // The anchor moves to q's mean once per epoch of batches (N / B = 11 here).
    const auto exact_at = [&](const Eigen::VectorXd& point) {
        target.next_minibatch();
        Eigen::VectorXd expected(2), got(2);
        p.run(point, expected);
        target.log_density_gradient(point, got);
        return (got - expected).norm() < 1e-9 * expected.norm();
    };
    const Eigen::VectorXd b = a + Eigen::Vector2d(0.2, 0.2);
    const Approximation moved = Approximation::mean_field(b, Eigen::Vector2d(-2.0, -2.0));
    const int passes = target.anchor_passes();
    for (int r = 0; r < 11; ++r) target.next_minibatch();
    target.offer_anchor(moved);
    CHECK(target.anchor_passes() == passes + 1);
    CHECK(exact_at(b));
    target.offer_anchor(q);  // within the epoch: stays at b
    CHECK(target.anchor_passes() == passes + 1);
    CHECK(exact_at(b));
    // A mean whose full-data log density is far below the anchor's (an iterate's excursion)
    // waits kAnchorWaits epochs before the anchor follows it.
    const Eigen::VectorXd far_mean = a + Eigen::Vector2d(4.0, -1.5);
    const Approximation far = Approximation::mean_field(far_mean, Eigen::Vector2d(-2.0, -2.0));
    for (int w = 0; w < kAnchorWaits; ++w) {
        for (int r = 0; r < 11; ++r) target.next_minibatch();
        target.offer_anchor(far);
        CHECK(exact_at(b));
    }
    for (int r = 0; r < 11; ++r) target.next_minibatch();
    target.offer_anchor(far);
    CHECK(exact_at(far_mean));
}

TEST_CASE("minibatch: a term that couples rows is refused before the fit", "[advi][minibatch]") {
    const Eigen::VectorXd y = simulated(100, 0.0, 19);
    const Eigen::VectorXd batch = y.head(10);
    Model m;
    auto yy = m.data("y", batch);
    auto mu = m.param("mu", normal(0, 1));
    const Expr total = sum(yy - mu);
    m.target_add(-0.5 * total * total);  // (sum of rows)^2: products of pairs of rows
    CHECK_THROWS_WITH(MinibatchTarget(m.spec(), {MinibatchData("y", y)}, 1, 1),
                      Contains("not a sum of terms of one row each of `y`"));
    // the same density written row by row passes
    Model rows;
    auto yr = rows.data("y", batch);
    auto mr = rows.param("mu", normal(0, 1));
    rows.target_add(-0.5 * sum((yr - mr) * (yr - mr)));
    CHECK_NOTHROW(MinibatchTarget(rows.spec(), {MinibatchData("y", y)}, 1, 1));
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
    // Minibatch gradients are noisier than full-data ones; with the ELBO on every row (the
    // evaluation set: 100 draws x 5000 rows) the mean ends within 0.2 posterior sds (0.028) of
    // the truth and the sd within 10% (measured; 3 sds and 50% with the ELBO on one batch).
    CHECK(std::abs(f.mean("mu")[0] - post_mean) < 0.5 * post_sd);
    CHECK(f.sd("mu")[0] == Approx(post_sd).epsilon(0.2));

    // With control variates (here the rows' gradients are linear in mu: g_b(mu) - g_b(a) is
    // the same for every batch, so the batches' noise vanishes and only q's own draws are
    // left), the mean within 0.2 posterior sds and the sd within 10% (measured: 0.11 sds, 7%;
    // what is left is the Auto rule's tolerance, whose 0.05 nats an sd 7% off costs 0.005 of).
    const Fit anchored = fit(m.spec(), {.seed = 3,
                                        .tol_rel_obj = 0.001,
                                        .max_iterations = 5000,
                                        .output_samples = 4000,
                                        .minibatch = {MinibatchData("y", y)},
                                        .control_variates = true});
    INFO(anchored.summary());
    CHECK(std::abs(anchored.mean("mu")[0] - post_mean) < 0.2 * post_sd);
    CHECK(anchored.sd("mu")[0] == Approx(post_sd).epsilon(0.1));
    CHECK_THAT(anchored.result().stop_reason, Contains("full-data pass(es) for the anchor"));
    // Without minibatches there is no batch noise to cancel: refused by the option's name.
    Model full;
    build_normal_mean(full, y);
    CHECK_THROWS_WITH(fit(full.spec(), {.seed = 3, .control_variates = true}),
                      Contains("option `control_variates` is for minibatch gradients"));
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
