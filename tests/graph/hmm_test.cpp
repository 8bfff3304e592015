// The hidden Markov model ops (graph/ops_hmm.hpp) against sums over every hidden path: the
// marginal, the state probabilities, the gradient in log_omega, Gamma and rho (central
// differences of the sum over paths, which is a polynomial in Gamma and rho, defined off the
// simplexes too), draws of a path against the paths' posterior probabilities, and Stan's checks.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/graph/node.hpp>
#include <advi/graph/ops_hmm.hpp>

namespace advi {
namespace {

constexpr int K = 3;
constexpr int N = 4;

struct Hmm {
    std::vector<double> log_omega;  // K x N, column-major
    std::vector<double> Gamma;      // K x K, column-major; rows are simplexes
    std::vector<double> rho;        // K
};

Hmm example() {
    Hmm h;
    h.log_omega = {-1.2, -0.3, -2.5, -0.7, -1.9, -0.4, -3.0, -0.2, -1.1, -0.5, -0.9, -2.2};
    const double G[K][K] = {
        {0.70, 0.20, 0.10},
        {0.15, 0.60, 0.25},
        {0.05, 0.35, 0.60}
    };
    h.Gamma.resize(K * K);
    for (int i = 0; i < K; ++i)
        for (int j = 0; j < K; ++j) h.Gamma[static_cast<std::size_t>(i + K * j)] = G[i][j];
    h.rho = {0.5, 0.3, 0.2};
    return h;
}

double at(const std::vector<double>& m, int i, int j, int rows) {
    return m[static_cast<std::size_t>(i + rows * j)];
}

// p(y) and p(z, y) for every path z (index sum_n z_n K^n), by enumeration.
double path_probability(const Hmm& h, int path) {
    int z_prev = -1;
    double p = 1;
    for (int n = 0; n < N; ++n) {
        const int z = path % K;
        path /= K;
        p *= (n == 0 ? h.rho[static_cast<std::size_t>(z)] : at(h.Gamma, z_prev, z, K)) *
             std::exp(at(h.log_omega, z, n, K));
        z_prev = z;
    }
    return p;
}
int paths() {
    return static_cast<int>(std::pow(K, N));
}
double log_marginal_by_paths(const Hmm& h) {
    double p = 0;
    for (int path = 0; path < paths(); ++path) p += path_probability(h, path);
    return std::log(p);
}

std::vector<double> run(Op op, const Hmm& h, int index, int out_rows, int out_cols,
                        const std::vector<double>& third = {}) {
    Node node;
    node.op = op;
    node.index = index;
    KernelArgs a;
    a.in[0] = View{h.log_omega.data(), nullptr, K, N};
    a.in[1] = View{h.Gamma.data(), nullptr, K, K};
    const std::vector<double>& in2 = third.empty() ? h.rho : third;
    a.in[2] = View{in2.data(), nullptr, static_cast<int>(in2.size()), 1};
    std::vector<double> out(static_cast<std::size_t>(out_rows * out_cols));
    a.out = out.data();
    a.out_rows = out_rows;
    a.out_cols = out_cols;
    a.node = &node;
    if (op == Op::HmmMarginal)
        hmm_ops::hmm_marginal_kernel(a);
    else if (op == Op::HmmGrad)
        hmm_ops::hmm_grad_kernel(a);
    else
        hmm_ops::hmm_latent_kernel(a);
    return out;
}

// Central difference of the sum over paths in one entry of one of the three inputs.
double numeric(Hmm h, int which, std::size_t k) {
    std::vector<double>& v = which == 0 ? h.log_omega : which == 1 ? h.Gamma : h.rho;
    const double e = 1e-6, x = v[k];
    v[k] = x + e;
    const double up = log_marginal_by_paths(h);
    v[k] = x - e;
    const double down = log_marginal_by_paths(h);
    return (up - down) / (2 * e);
}

}  // namespace

TEST_CASE("hmm_marginal: the log of the sum over every hidden path", "[graph][hmm]") {
    const Hmm h = example();
    CHECK(run(Op::HmmMarginal, h, 0, 1, 1)[0] == Approx(log_marginal_by_paths(h)).epsilon(1e-13));
    // observations far in the tails: the rescaled forward pass keeps them finite
    Hmm far = h;
    for (double& v : far.log_omega) v -= 900;
    CHECK(run(Op::HmmMarginal, far, 0, 1, 1)[0] ==
          Approx(log_marginal_by_paths(h) - 900.0 * N).epsilon(1e-13));
}

TEST_CASE("hmm_grad: state probabilities and the gradient in log_omega, Gamma and rho",
          "[graph][hmm]") {
    const Hmm h = example();
    // index 0: P(z_n = k | y), by the paths through state k at step n
    const std::vector<double> states = run(Op::HmmGrad, h, 0, K, N);
    const double total = std::exp(log_marginal_by_paths(h));
    for (int n = 0; n < N; ++n) {
        for (int k = 0; k < K; ++k) {
            double through = 0;
            for (int path = 0; path < paths(); ++path) {
                if ((path / static_cast<int>(std::pow(K, n))) % K == k)
                    through += path_probability(h, path);
            }
            CHECK(at(states, k, n, K) == Approx(through / total).epsilon(1e-12));
            CHECK(at(states, k, n, K) ==
                  Approx(numeric(h, 0, static_cast<std::size_t>(k + K * n))).epsilon(1e-7));
        }
    }
    const std::vector<double> gamma_bar = run(Op::HmmGrad, h, 1, K, K);
    for (std::size_t k = 0; k < gamma_bar.size(); ++k)
        CHECK(gamma_bar[k] == Approx(numeric(h, 1, k)).epsilon(1e-7));
    const std::vector<double> rho_bar = run(Op::HmmGrad, h, 2, K, 1);
    for (std::size_t k = 0; k < rho_bar.size(); ++k)
        CHECK(rho_bar[k] == Approx(numeric(h, 2, k)).epsilon(1e-7));
}

TEST_CASE("hmm_latent: paths drawn with their posterior probabilities", "[graph][hmm]") {
    const Hmm h = example();
    const double total = std::exp(log_marginal_by_paths(h));
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    constexpr int draws = 40000;
    std::map<int, int> counts;
    for (int d = 0; d < draws; ++d) {
        std::vector<double> in2 = h.rho;
        for (int n = 0; n < N; ++n) in2.push_back(uniform(rng));
        const std::vector<double> z = run(Op::HmmLatent, h, 0, N, 1, in2);
        int path = 0;
        for (int n = N - 1; n >= 0; --n) {
            REQUIRE(z[static_cast<std::size_t>(n)] >= 1);
            REQUIRE(z[static_cast<std::size_t>(n)] <= K);
            path = path * K + static_cast<int>(z[static_cast<std::size_t>(n)]) - 1;
        }
        ++counts[path];
    }
    for (int path = 0; path < paths(); ++path) {
        const double p = path_probability(h, path) / total;
        const double sd = std::sqrt(p * (1 - p) / draws);
        CHECK(std::abs(counts[path] / static_cast<double>(draws) - p) <= 4.5 * sd + 1e-12);
    }
}

TEST_CASE("hmm ops: Stan's checks make the value NaN", "[graph][hmm]") {
    Hmm rows = example();
    rows.Gamma[0] += 0.01;  // row 1 sums to 1.01
    CHECK(std::isnan(run(Op::HmmMarginal, rows, 0, 1, 1)[0]));
    CHECK(std::isnan(run(Op::HmmGrad, rows, 1, K, K)[0]));
    Hmm rho = example();
    rho.rho = {0.6, 0.6, -0.2};
    CHECK(std::isnan(run(Op::HmmMarginal, rho, 0, 1, 1)[0]));
    Hmm nan = example();
    nan.log_omega[3] = std::numeric_limits<double>::quiet_NaN();
    CHECK(std::isnan(run(Op::HmmMarginal, nan, 0, 1, 1)[0]));
    // an observation impossible in every state: log p = -inf, no gradient
    Hmm impossible = example();
    for (int k = 0; k < K; ++k)
        impossible.log_omega[static_cast<std::size_t>(k + K * 2)] =
            -std::numeric_limits<double>::infinity();
    CHECK(run(Op::HmmMarginal, impossible, 0, 1, 1)[0] == -std::numeric_limits<double>::infinity());
    CHECK(std::isnan(run(Op::HmmGrad, impossible, 0, K, N)[0]));
}

}  // namespace advi
