// The same seed gives the same bits on any thread count: fits of a regression long enough to
// split into several parts (mean-field and full-rank) and of a hierarchical regression
// (gathers and scatter-adds over groups) on 1, 2, 3 and 8 threads give identical ELBO traces,
// step sizes, final q, output draws in both spaces and their densities, compared with ==.
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/compile/program.hpp>

namespace advi {
namespace {

struct Data {
    Eigen::MatrixXd X;
    Eigen::VectorXd y;
    Eigen::VectorXi group;  // 0..J-1
};

// N rows, D predictors, J groups; N is not a multiple of the loops' blocks.
Data simulate(int n, int d, int j) {
    std::mt19937 rng(11);
    std::normal_distribution<double> z(0.0, 1.0);
    std::uniform_int_distribution<int> g(0, j - 1);
    Data data{Eigen::MatrixXd(n, d), Eigen::VectorXd(n), Eigen::VectorXi(n)};
    Eigen::VectorXd beta(d), alpha(j);
    for (auto& b : beta) b = z(rng);
    for (auto& a : alpha) a = 2.0 * z(rng);
    for (int c = 0; c < d; ++c)
        for (int r = 0; r < n; ++r) data.X(r, c) = z(rng);
    for (int r = 0; r < n; ++r) {
        data.group[r] = g(rng);
        data.y[r] = alpha[data.group[r]] + data.X.row(r).dot(beta) + 0.5 * z(rng);
    }
    return data;
}

void build_regression(Model& m, const Data& d) {
    auto X = m.data("X", d.X);
    auto y = m.data("y", d.y);
    auto beta = m.param("beta", normal(0, 5), d.X.cols());
    auto sigma = m.param("sigma", lognormal(0, 1));
    m.observe(y, normal(X * beta, sigma));
}

void build_hierarchical(Model& m, const Data& d, int groups) {
    auto X = m.data("X", d.X);
    auto y = m.data("y", d.y);
    auto g = m.data("group", d.group);
    auto mu_a = m.param("mu_a", normal(0, 5));
    auto tau = m.param("tau", lognormal(0, 1));
    auto alpha = m.param("alpha", normal(mu_a, tau), groups);
    auto beta = m.param("beta", normal(0, 5), d.X.cols());
    auto sigma = m.param("sigma", lognormal(0, 1));
    m.observe(y, normal(alpha[g] + X * beta, sigma));
}

// A short fit (its bits, not its convergence, are the point): the eta search, the main loop
// with ELBO estimates, then the output draws.
Options short_fit(Family family, int threads) {
    Options o;
    o.family = family;
    o.seed = 20261125;
    o.adapt_iter = 15;
    o.max_iterations = 120;
    o.eval_elbo = 40;
    o.elbo_samples = 20;
    o.output_samples = 60;
    o.threads = threads;
    return o;
}

// How many numbers of two fits differ, by name; empty when every bit agrees.
std::vector<std::string> differences(const Fit& a, const Fit& b) {
    std::vector<std::string> out;
    auto same = [&](const char* what, bool equal) {
        if (!equal)
            out.emplace_back(what);
    };
    const AdviResult& ra = a.result();
    const AdviResult& rb = b.result();
    same("eta", ra.eta == rb.eta);
    same("iterations", ra.iterations == rb.iterations);
    same("stop reason", ra.stop_reason == rb.stop_reason);
    same("elbo trace", ra.elbo_trace == rb.elbo_trace);
    same("relative changes", ra.relative_changes == rb.relative_changes);
    same("dropped draws", ra.dropped_draws == rb.dropped_draws);
    same("eta trials", ra.eta_trials.size() == rb.eta_trials.size());
    for (std::size_t k = 0; k < std::min(ra.eta_trials.size(), rb.eta_trials.size()); ++k)
        same("eta trial elbo", ra.eta_trials[k].elbo == rb.eta_trials[k].elbo);
    same("q params", ra.q.params() == rb.q.params());
    same("zeta draws", a.zeta_draws() == b.zeta_draws());
    same("theta draws", a.theta_draws() == b.theta_draws());
    same("theta at mu", a.theta_at_mu() == b.theta_at_mu());
    same("log_p", a.log_p() == b.log_p());
    same("log_g", a.log_g() == b.log_g());
    same("log_p at mu", a.log_p_at_mu() == b.log_p_at_mu());
    return out;
}

void check_fits(const ModelSpec& spec, Family family) {
    const Fit one = fit(spec, short_fit(family, 1));
    REQUIRE(one.zeta_draws().rows() == 60);
    REQUIRE(!one.result().elbo_trace.empty());
    for (int threads : {2, 3, 8}) {
        INFO("threads = " << threads);
        const Fit other = fit(spec, short_fit(family, threads));
        CHECK(differences(one, other) == std::vector<std::string>{});
    }
}

// The gradient program's partition, printed: these fits do split (else the test shows nothing).
bool splits(const ModelSpec& spec) {
    return compile(spec).str().find(" parts") != std::string::npos;
}

}  // namespace

TEST_CASE("a regression fit has the same bits on 1, 2, 3 and 8 threads", "[fit][threads]") {
    const Data d = simulate(5003, 20, 1);
    Model m;
    build_regression(m, d);
    REQUIRE(splits(m.spec()));
    SECTION("mean-field") {
        check_fits(m.spec(), Family::MeanField);
    }
    SECTION("full-rank") {
        check_fits(m.spec(), Family::FullRank);
    }
}

TEST_CASE("a hierarchical fit has the same bits on 1, 2, 3 and 8 threads", "[fit][threads]") {
    const int groups = 40;
    const Data d = simulate(5003, 20, groups);
    Model m;
    build_hierarchical(m, d, groups);
    REQUIRE(splits(m.spec()));
    check_fits(m.spec(), Family::MeanField);
}

}  // namespace advi
