// The full data in shards: the shards' sum against the full-data program (value, gradient,
// Hessian-vector products, a short padded last shard), the same fit bit for bit on 1, 2 and 3
// ranks (threads standing in for MPI's processes), and the refusals.
#include <cmath>
#include <mutex>
#include <random>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/fit/row_shards.hpp>

#include "../support/thread_ranks.hpp"

namespace advi {
namespace {

using Catch::Matchers::Contains;

struct Regression {
    Eigen::VectorXd x, y;
};

Regression simulated(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-2, 2);
    std::normal_distribution<double> z(0, 0.5);
    Regression r{Eigen::VectorXd(n), Eigen::VectorXd(n)};
    for (int i = 0; i < n; ++i) {
        r.x[i] = u(rng);
        r.y[i] = 1 + 2 * r.x[i] + z(rng);
    }
    return r;
}

// y ~ normal(a + b x, sigma) over the rows given: the model of one shard or of the full data.
void regression(Model& m, const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
    auto xx = m.data("x", x);
    auto yy = m.data("y", y);
    auto a = m.param("a", normal(0, 10));
    auto b = m.param("b", normal(0, 10));
    auto sigma = m.param("sigma", lognormal(0, 1));
    m.observe(yy, normal(a + b * xx, sigma));
}

TEST_CASE("row shards: the sum over shards is the full-data density, gradient and H v",
          "[advi][row_shards]") {
    const int N = 10000;  // shards of 4096 rows: two whole and a short last one of 1808
    const int C = shard_rows(N);
    REQUIRE(C == kShardRows);
    const Regression d = simulated(N, 3);
    Model full;
    regression(full, d.x, d.y);
    const Eigen::VectorXd xs = d.x.head(C), ys = d.y.head(C);
    Model shard;
    regression(shard, xs, ys);
    RowShardTarget target(shard.spec(), {MinibatchData("x", d.x), MinibatchData("y", d.y)}, 1, 1,
                          nullptr, true);
    CHECK(target.shards() == 3);
    CHECK(target.first_shard() == 0);
    CHECK(target.last_shard() == 3);
    Program p = compile(full.spec());
    HessianVectorProgram hvp = compile_hessian_vector(full.spec());
    Eigen::VectorXd zeta(3), g(3), g_full(3), hv(3), hv_full(3), v(3);
    v << 0.3, -1.1, 0.7;
    Eigen::MatrixXd points(3, 3);
    points << 0.9, 1.2, -0.4, 2.1, 1.9, 0.3, -0.7, -0.2, 0.5;
    Eigen::VectorXd values;
    target.log_densities(points, values);
    for (int j = 0; j < 3; ++j) {
        zeta = points.col(j);
        const double lp = p.run(zeta, g_full);
        // the sums differ from the full program's only in rounding (another order of addition)
        CHECK(target.log_density_gradient(zeta, g) == Approx(lp).epsilon(1e-12));
        CHECK((g - g_full).norm() <= 1e-9 * g_full.norm());
        CHECK(values[j] == Approx(lp).epsilon(1e-12));
        CHECK(target.log_density(zeta) == values[j]);
        (void)hvp.hessian_vector(zeta, v, g_full, hv_full);
        CHECK(target.hessian_vector(zeta, v, g, hv) == Approx(lp).epsilon(1e-12));
        CHECK((hv - hv_full).norm() <= 1e-9 * hv_full.norm());
    }
}

TEST_CASE("row shards: one shard when N is at most kShardRows, at most kMaxShards shards",
          "[advi][row_shards]") {
    CHECK(shard_rows(1) == 1);
    CHECK(shard_rows(4096) == 4096);
    CHECK(shard_rows(4097) == 4096);
    CHECK(shard_rows(1'700'000) == 6641);  // ceil(1.7e6 / 256)
    CHECK((1'700'000 + 6640) / 6641 == 256);
}

TEST_CASE("row shards: the same fit, bit for bit, on 1, 2 and 3 ranks and on 1 or 3 threads",
          "[advi][row_shards]") {
    const int N = 9000;  // three shards: 4096, 4096, 808
    const Regression d = simulated(N, 11);
    const int C = shard_rows(N);
    const Eigen::VectorXd xs = d.x.head(C), ys = d.y.head(C);
    Model shard;
    regression(shard, xs, ys);
    const auto fit_on = [&](int P, int threads = 1) {
        test::ThreadRanksGroup group(P);
        std::vector<Eigen::MatrixXd> draws(static_cast<std::size_t>(P));
        std::vector<double> elbo(static_cast<std::size_t>(P));
        std::mutex m;
        group.run([&](Ranks& ranks) {
            Options o;
            o.seed = 5;
            o.threads = threads;
            o.output_samples = 200;
            o.minibatch = {MinibatchData("x", d.x), MinibatchData("y", d.y)};
            o.row_shards = true;
            o.ranks = &ranks;
            const Fit f = fit(shard.spec(), o);
            std::lock_guard lock(m);
            draws[static_cast<std::size_t>(ranks.rank())] = f.theta_draws();
            elbo[static_cast<std::size_t>(ranks.rank())] = f.result().elbo;
        });
        for (int r = 1; r < P; ++r) {  // every rank holds the same fit
            CHECK(draws[static_cast<std::size_t>(r)] == draws[0]);
            CHECK(elbo[static_cast<std::size_t>(r)] == elbo[0]);
        }
        return std::make_pair(draws[0], elbo[0]);
    };
    const auto one = fit_on(1);
    const auto two = fit_on(2);
    const auto three = fit_on(3);
    const auto threaded = fit_on(1, 3);  // the three shards of one rank on three threads
    CHECK(threaded.first == one.first);
    CHECK(threaded.second == one.second);
    CHECK(one.first.rows() == 200);
    CHECK(two.first == one.first);
    CHECK(three.first == one.first);
    CHECK(two.second == one.second);
    CHECK(three.second == one.second);
    // and the fit is the full data's: sigma near 0.5, b near 2
    CHECK(one.first.col(1).mean() == Approx(2.0).margin(0.02));
}

TEST_CASE("row shards: refusals name the reason", "[advi][row_shards]") {
    const Regression d = simulated(5000, 2);
    const Eigen::VectorXd xs = d.x.head(100), ys = d.y.head(100);
    Model wrong;
    regression(wrong, xs, ys);
    CHECK_THROWS_WITH(
        RowShardTarget(wrong.spec(), {MinibatchData("x", d.x), MinibatchData("y", d.y)}, 1, 1,
                       nullptr, false),
        Contains("the model is written over 100 rows") &&
            Contains("shards of 5000 rows have 4096"));
    // the C++ API's own misuses
    Options no_rows;
    no_rows.row_shards = true;
    CHECK_THROWS_WITH(fit(wrong.spec(), no_rows),
                      Contains("row shards: no row variable's full data (Options::minibatch)"));
    Options dadvi;
    dadvi.row_shards = true;
    dadvi.minibatch = {MinibatchData("x", d.x), MinibatchData("y", d.y)};
    CHECK_THROWS_WITH(fit_dadvi(wrong.spec(), dadvi, {}),
                      Contains("DADVI over row shards is not supported"));
    const Eigen::VectorXd x4 = d.x.head(4096), y4 = d.y.head(4096);
    Model shard;
    regression(shard, x4, y4);
    RowShardTarget flat(shard.spec(), {MinibatchData("x", d.x), MinibatchData("y", d.y)}, 1, 1,
                        nullptr, false);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(3), g(3), hv(3);
    CHECK_THROWS_WITH(flat.hessian_vector(z, z, g, hv),
                      Contains("row shards: the target was made without its curvature program"));
    // a term coupling rows: the log of the rows' sum
    const Eigen::VectorXd y = d.y.head(4096).array().abs();
    Model coupled;
    auto yy = coupled.data("y", y);
    auto s = coupled.param("s", lognormal(0, 1));
    coupled.observe(yy, normal(0, s));
    const Expr total = sum(yy - s);
    coupled.target_add(-0.5 * total * total);  // (sum of rows)^2: products of pairs of rows
    const Eigen::VectorXd all_y = d.y.array().abs();
    CHECK_THROWS_WITH(
        RowShardTarget(coupled.spec(), {MinibatchData("y", all_y)}, 1, 1, nullptr, false),
        Contains("row shards: the log density is not a sum of terms of one row") &&
            Contains("a sum over blocks of rows would not be the full-data density"));
}

}  // namespace
}  // namespace advi
