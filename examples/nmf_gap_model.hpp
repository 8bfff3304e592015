// Constrained Gamma Poisson non-negative matrix factorisation (paper appendix A.3): counts
// y_ui ~ Poisson(theta_u . beta_i), theta_uk ~ Gamma(a0, b0) with each theta_u positive_ordered,
// beta_ik ~ Gamma(c0, d0). Shared by examples/nmf_gap.cpp and tests/examples/nmf_gap_test.cpp.
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include <Eigen/Core>

#include <advi/advi.hpp>

namespace advi::examples {

struct NmfLatents {
    Expr theta;    // U x K, row u is theta_u
    Expr beta;     // I x K, row i is beta_i
    Expr log_lik;  // log p(y_ui | theta_u, beta_i) per modelled entry (held-out density)
};

// Which entries of the U x I matrix a model sees: all (`cells` null: y holds the U x I counts
// flattened column-major) or those listed (flat column-major indices; y holds their counts in
// that order), e.g. the training or the held-out entries of split_cells.
inline Expr nmf_rates(Model& m, const Expr& theta, const Expr& beta, const Eigen::VectorXi* cells) {
    auto rates = to_vector(theta * transpose(beta));
    return cells != nullptr ? rates[m.data("cells", *cells)] : rates;
}

// A random split of the n = U x I entries: `held_fraction` of them held out (the paper's
// section 4 holds out data to measure the predictive density; here entries of the matrix,
// since every user and item has its own latent factors). Fisher-Yates on mt19937: the same
// split on every platform.
struct CellSplit {
    Eigen::VectorXi observed, held_out;  // sorted flat indices
};
inline CellSplit split_cells(int n, double held_fraction, unsigned seed) {
    std::vector<int> idx(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) idx[static_cast<std::size_t>(i)] = i;
    std::mt19937 rng(seed);
    for (int i = n - 1; i > 0; --i) {
        const auto j = static_cast<int>(rng() % static_cast<unsigned>(i + 1));
        std::swap(idx[static_cast<std::size_t>(i)], idx[static_cast<std::size_t>(j)]);
    }
    const int held = static_cast<int>(held_fraction * n);
    std::sort(idx.begin(), idx.begin() + held);
    std::sort(idx.begin() + held, idx.end());
    CellSplit s;
    s.held_out = Eigen::Map<Eigen::VectorXi>(idx.data(), held);
    s.observed = Eigen::Map<Eigen::VectorXi>(idx.data() + held, n - held);
    return s;
}

// The counts of the listed entries.
inline Eigen::VectorXi counts_at(const Eigen::VectorXi& y, const Eigen::VectorXi& cells) {
    Eigen::VectorXi out(cells.size());
    for (Eigen::Index k = 0; k < cells.size(); ++k) out[k] = y[cells[k]];
    return out;
}

struct NmfGapPriors {
    double a0 = 1, b0 = 1, c0 = 1, d0 = 1;  // the paper sets all four to 1
};

// `y` is the U x I count matrix flattened column-major (y_ui at u + U i), or the counts of
// the entries `cells` lists (nmf_rates), bound by reference: keep them alive while the model
// is used.
//
// The ordering (theta_u1 < ... < theta_uK, Stan's array[U] positive_ordered[K]) picks one of
// the K! relabellings of the factors. All U x I rates are one matrix product theta beta' and
// the likelihood one vectorised Poisson term over it.
inline NmfLatents build_nmf_gap(Model& m, const Eigen::VectorXi& y, int U, int I, int K,
                                const NmfGapPriors& p = {},
                                const Eigen::VectorXi* cells = nullptr) {
    auto yd = m.data("y", y);
    auto a0 = m.data("a0", p.a0), b0 = m.data("b0", p.b0);
    auto c0 = m.data("c0", p.c0), d0 = m.data("d0", p.d0);
    auto theta = m.param("theta", gamma(a0, b0), U, K, {.support = Support::positive_ordered()});
    auto beta = m.param("beta", gamma(c0, d0), I, K);
    const Expr rates = nmf_rates(m, theta, beta, cells);
    m.observe(yd, poisson(rates));
    return {theta, beta, m.log_density(yd, poisson(rates), true)};
}

}  // namespace advi::examples
