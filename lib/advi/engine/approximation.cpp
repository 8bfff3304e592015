// Gaussian variational families: parameter layout, entropy, moments, draws, printing.
#include <advi/engine/approximation.hpp>

#include <cmath>
#include <numbers>
#include <ostream>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

namespace {

std::string vec_str(const Eigen::VectorXd& v) {
    std::string s = "[";
    for (Eigen::Index i = 0; i < v.size(); ++i) {
        s += fmt::format("{}{:.6g}", i == 0 ? "" : ", ", v[i]);
    }
    return s + "]";
}

// D/2 (1 + log 2 pi): the entropy of N(0, I_D).
double standard_entropy(int dim) {
    return 0.5 * dim * (1.0 + std::log(2.0 * std::numbers::pi));
}

}  // namespace

Approximation Approximation::initial(Family family, const Eigen::VectorXd& mu) {
    const Eigen::Index d = mu.size();
    if (family == Family::MeanField) {
        return mean_field(mu, Eigen::VectorXd::Zero(d));
    }
    return full_rank(mu, Eigen::MatrixXd::Identity(d, d));
}

Approximation Approximation::mean_field(Eigen::VectorXd mu, Eigen::VectorXd omega) {
    if (mu.size() != omega.size()) {
        throw ShapeError(
            fmt::format("mean-field approximation: omega: expected vector({}), got "
                        "vector({})",
                        mu.size(), omega.size()));
    }
    Approximation q;
    q.family_ = Family::MeanField;
    q.mu_ = std::move(mu);
    q.omega_ = std::move(omega);
    return q;
}

Approximation Approximation::full_rank(Eigen::VectorXd mu, Eigen::MatrixXd L) {
    if (L.rows() != mu.size() || L.cols() != mu.size()) {
        throw ShapeError(
            fmt::format("full-rank approximation: L: expected matrix({}, {}), got "
                        "matrix({}, {})",
                        mu.size(), mu.size(), L.rows(), L.cols()));
    }
    Approximation q;
    q.family_ = Family::FullRank;
    q.mu_ = std::move(mu);
    q.L_ = L.triangularView<Eigen::Lower>();
    return q;
}

const Eigen::VectorXd& Approximation::omega() const {
    if (family_ != Family::MeanField) {
        throw ModelError("omega() asked of a full-rank approximation; use L()");
    }
    return omega_;
}

const Eigen::MatrixXd& Approximation::L() const {
    if (family_ != Family::FullRank) {
        throw ModelError("L() asked of a mean-field approximation; use omega()");
    }
    return L_;
}

Eigen::MatrixXd Approximation::cholesky_factor() const {
    if (family_ == Family::MeanField) {
        return omega_.array().exp().matrix().asDiagonal();
    }
    return L_;
}

int Approximation::num_params() const {
    const int d = dim();
    return family_ == Family::MeanField ? 2 * d : d + d * (d + 1) / 2;
}

Eigen::VectorXd Approximation::params() const {
    const int d = dim();
    Eigen::VectorXd p(num_params());
    p.head(d) = mu_;
    if (family_ == Family::MeanField) {
        p.tail(d) = omega_;
    } else {
        pack_full_rank(mu_, L_, p);
    }
    return p;
}

void Approximation::set_params(const Eigen::VectorXd& p) {
    if (p.size() != num_params()) {
        throw ShapeError(
            fmt::format("approximation parameters: expected vector({}), got "
                        "vector({})",
                        num_params(), p.size()));
    }
    const int d = dim();
    mu_ = p.head(d);
    if (family_ == Family::MeanField) {
        omega_ = p.tail(d);
    } else {
        Eigen::Index k = d;
        for (int j = 0; j < d; ++j) {
            L_.col(j).tail(d - j) = p.segment(k, d - j);
            k += d - j;
        }
    }
}

bool Approximation::step(const Eigen::VectorXd& rho, const Eigen::VectorXd& grad) {
    const int d = dim();
    if (rho.size() != num_params() || grad.size() != num_params()) {
        throw ShapeError(fmt::format("approximation step: expected vectors({}), got {} and {}",
                                     num_params(), rho.size(), grad.size()));
    }
    mu_.array() += rho.head(d).array() * grad.head(d).array();
    if (family_ == Family::MeanField) {
        omega_.array() += rho.tail(d).array() * grad.tail(d).array();
        return is_finite();
    }
    // Column j of the lower triangle is the d - j entries at k in params() layout.
    bool finite = mu_.allFinite();
    Eigen::Index k = d;
    for (int j = 0; j < d; ++j) {
        const Eigen::Index n = d - j;
        auto col = L_.col(j).tail(n);
        col.array() += rho.segment(k, n).array() * grad.segment(k, n).array();
        finite = finite && col.allFinite();
        k += n;
    }
    return finite;
}

void Approximation::add_params_to(Eigen::VectorXd& sum) const {
    const int d = dim();
    if (sum.size() != num_params()) {
        throw ShapeError(
            fmt::format("approximation parameters: expected vector({}), got vector({})",
                        num_params(), sum.size()));
    }
    sum.head(d) += mu_;
    if (family_ == Family::MeanField) {
        sum.tail(d) += omega_;
        return;
    }
    Eigen::Index k = d;
    for (int j = 0; j < d; ++j) {
        sum.segment(k, d - j) += L_.col(j).tail(d - j);
        k += d - j;
    }
}

void Approximation::pack_full_rank(const Eigen::VectorXd& g_mu, const Eigen::MatrixXd& g_L,
                                   Eigen::VectorXd& out) {
    const Eigen::Index d = g_mu.size();
    out.resize(d + d * (d + 1) / 2);
    out.head(d) = g_mu;
    Eigen::Index k = d;
    for (Eigen::Index j = 0; j < d; ++j) {
        out.segment(k, d - j) = g_L.col(j).tail(d - j);
        k += d - j;
    }
}

bool Approximation::is_finite() const {
    if (!mu_.allFinite()) {
        return false;
    }
    if (family_ == Family::MeanField) {
        // exp(omega) must not overflow either, or draws become inf.
        return omega_.allFinite() && omega_.array().exp().allFinite();
    }
    return L_.allFinite();
}

double Approximation::entropy() const {
    if (family_ == Family::MeanField) {
        return standard_entropy(dim()) + omega_.sum();
    }
    // log|det L| for triangular L; |.| because the sign of a column of L does not change q.
    return standard_entropy(dim()) + L_.diagonal().array().abs().log().sum();
}

Eigen::VectorXd Approximation::sd() const {
    if (family_ == Family::MeanField) {
        return omega_.array().exp();
    }
    return L_.rowwise().norm();  // sqrt(diag(L L^T))
}

Eigen::MatrixXd Approximation::covariance() const {
    if (family_ == Family::MeanField) {
        return (2.0 * omega_.array()).exp().matrix().asDiagonal();
    }
    return L_ * L_.transpose();
}

void Approximation::transform(const Eigen::VectorXd& eta, Eigen::VectorXd& zeta) const {
    if (family_ == Family::MeanField) {
        zeta.array() = mu_.array() + omega_.array().exp() * eta.array();
    } else {
        zeta.noalias() = L_.triangularView<Eigen::Lower>() * eta;
        zeta += mu_;
    }
}

Eigen::MatrixXd Approximation::draw(Rng& rng, int n) const {
    const int d = dim();
    Eigen::MatrixXd out(n, d);
    Eigen::VectorXd eta(d);
    Eigen::VectorXd zeta(d);
    for (int r = 0; r < n; ++r) {
        rng.fill_normal(eta);
        transform(eta, zeta);
        out.row(r) = zeta.transpose();
    }
    return out;
}

std::string Approximation::str() const {
    std::string s = fmt::format("{} q, dim {}\n",
                                family_ == Family::MeanField ? "mean-field" : "full-rank", dim());
    s += fmt::format("  mu    = {}\n", vec_str(mu_));
    if (family_ == Family::MeanField) {
        s += fmt::format("  omega = {}\n", vec_str(omega_));
    } else {
        for (int i = 0; i < dim(); ++i) {
            s += fmt::format("  {} {}\n", i == 0 ? "L     =" : "       ",
                             vec_str(L_.row(i).head(i + 1).transpose()));
        }
    }
    s += fmt::format("  sd    = {}\n", vec_str(sd()));
    return s;
}

std::ostream& operator<<(std::ostream& os, const Approximation& q) {
    return os << q.str();
}

}  // namespace advi
