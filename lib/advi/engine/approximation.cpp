// Gaussian variational families: parameter layout, entropy, moments, draws, printing.
#include <advi/engine/approximation.hpp>

#include <cmath>
#include <numbers>
#include <ostream>

#include <Eigen/Cholesky>
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

Approximation Approximation::initial(Family family, const Eigen::VectorXd& mu, int rank) {
    const Eigen::Index d = mu.size();
    if (family == Family::MeanField) {
        return mean_field(mu, Eigen::VectorXd::Zero(d));
    }
    if (family == Family::LowRank)
        return initial_low_rank(mu, rank);
    return full_rank(mu, Eigen::MatrixXd::Identity(d, d));
}

Approximation Approximation::initial_low_rank(const Eigen::VectorXd& mu, int rank) {
    if (rank < 1)
        throw ModelError(fmt::format("low-rank approximation: rank must be >= 1, got {}", rank));
    // A fixed stream: the start does not depend on the seed, as omega = 0 and L = I do not.
    Rng rng(0x6c6f7772616e6bull);  // "lowrank"
    Eigen::MatrixXd B = rng.normal_matrix(static_cast<int>(mu.size()), rank);
    B *= 1e-2 / std::sqrt(static_cast<double>(rank));
    return low_rank(mu, Eigen::VectorXd::Zero(mu.size()), std::move(B));
}

Approximation Approximation::low_rank(Eigen::VectorXd mu, Eigen::VectorXd omega,
                                      Eigen::MatrixXd B) {
    if (mu.size() != omega.size() || B.rows() != mu.size() || B.cols() < 1) {
        throw ShapeError(fmt::format(
            "low-rank approximation: expected omega vector({}) and B matrix({}, rank >= 1), "
            "got vector({}) and matrix({}, {})",
            mu.size(), mu.size(), omega.size(), B.rows(), B.cols()));
    }
    Approximation q;
    q.family_ = Family::LowRank;
    q.mu_ = std::move(mu);
    q.omega_ = std::move(omega);
    q.B_ = std::move(B);
    return q;
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
    if (family_ == Family::FullRank) {
        throw ModelError("omega() asked of a full-rank approximation; use L()");
    }
    return omega_;
}

const Eigen::MatrixXd& Approximation::B() const {
    if (family_ != Family::LowRank) {
        throw ModelError("B() asked of an approximation that is not low-rank");
    }
    return B_;
}

const Eigen::MatrixXd& Approximation::L() const {
    if (family_ != Family::FullRank) {
        throw ModelError("L() asked of an approximation that is not full-rank; use omega()");
    }
    return L_;
}

Eigen::MatrixXd Approximation::cholesky_factor() const {
    if (family_ == Family::MeanField) {
        return omega_.array().exp().matrix().asDiagonal();
    }
    if (family_ == Family::LowRank) {
        const Eigen::LLT<Eigen::MatrixXd> llt(covariance());
        return llt.matrixL();
    }
    return L_;
}

int Approximation::num_params() const {
    const int d = dim();
    if (family_ == Family::LowRank)
        return 2 * d + d * rank();
    return family_ == Family::MeanField ? 2 * d : d + d * (d + 1) / 2;
}

Eigen::VectorXd Approximation::params() const {
    const int d = dim();
    Eigen::VectorXd p(num_params());
    p.head(d) = mu_;
    if (family_ == Family::MeanField) {
        p.tail(d) = omega_;
    } else if (family_ == Family::LowRank) {
        p.segment(d, d) = omega_;
        p.tail(B_.size()) = B_.reshaped();
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
    } else if (family_ == Family::LowRank) {
        omega_ = p.segment(d, d);
        B_.reshaped() = p.tail(B_.size());
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
    if (family_ == Family::LowRank) {
        omega_.array() += rho.segment(d, d).array() * grad.segment(d, d).array();
        B_.reshaped().array() += rho.tail(B_.size()).array() * grad.tail(B_.size()).array();
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
    if (family_ == Family::LowRank) {
        sum.segment(d, d) += omega_;
        sum.tail(B_.size()) += B_.reshaped();
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
    if (family_ == Family::MeanField || family_ == Family::LowRank) {
        // exp(omega) must not overflow either, or draws become inf.
        return omega_.allFinite() && omega_.array().exp().allFinite() && B_.allFinite();
    }
    return L_.allFinite();
}

namespace {

// C = I + B' D^-2 B (R x R) for the low-rank family, D = diag(exp(omega)).
Eigen::MatrixXd capacitance(const Eigen::VectorXd& omega, const Eigen::MatrixXd& B) {
    const Eigen::MatrixXd W = (-2.0 * omega.array()).exp().matrix().asDiagonal() * B;
    Eigen::MatrixXd C = B.transpose() * W;
    C.diagonal().array() += 1.0;
    return C;
}

}  // namespace

double Approximation::entropy() const {
    if (family_ == Family::MeanField) {
        return standard_entropy(dim()) + omega_.sum();
    }
    if (family_ == Family::LowRank) {
        const Eigen::LLT<Eigen::MatrixXd> llt(capacitance(omega_, B_));
        return standard_entropy(dim()) + omega_.sum() +
               llt.matrixLLT().diagonal().array().log().sum();
    }
    // log|det L| for triangular L; |.| because the sign of a column of L does not change q.
    return standard_entropy(dim()) + L_.diagonal().array().abs().log().sum();
}

Eigen::VectorXd Approximation::sd() const {
    if (family_ == Family::MeanField) {
        return omega_.array().exp();
    }
    if (family_ == Family::LowRank) {
        return ((2.0 * omega_.array()).exp() + B_.rowwise().squaredNorm().array()).sqrt();
    }
    return L_.rowwise().norm();  // sqrt(diag(L L^T))
}

Eigen::MatrixXd Approximation::covariance() const {
    if (family_ == Family::MeanField) {
        return (2.0 * omega_.array()).exp().matrix().asDiagonal();
    }
    if (family_ == Family::LowRank) {
        Eigen::MatrixXd S = B_ * B_.transpose();
        S.diagonal() += (2.0 * omega_.array()).exp().matrix();
        return S;
    }
    return L_ * L_.transpose();
}

Eigen::MatrixXd Approximation::precision_times(const Eigen::MatrixXd& V) const {
    if (family_ != Family::LowRank)
        return covariance().llt().solve(V);
    const Eigen::VectorXd inv_var = (-2.0 * omega_.array()).exp().matrix();
    const Eigen::MatrixXd DV = inv_var.asDiagonal() * V;
    const Eigen::LLT<Eigen::MatrixXd> llt(capacitance(omega_, B_));
    const Eigen::MatrixXd c = llt.solve(B_.transpose() * DV);
    return DV - inv_var.asDiagonal() * (B_ * c);
}

Eigen::VectorXd Approximation::log_density(const Eigen::MatrixXd& zeta) const {
    // With u = S(zeta) the standardised draw (u = (zeta - mu) ./ exp(omega), or the solution of
    // L u = zeta - mu), the change of variables from N(0, I) gives log q = -|u|^2 / 2 - D/2 log
    // 2 pi - log|det S^-1|, where log|det S^-1| is sum omega or sum log|L_dd|: the same terms as
    // entropy(). Low-rank: -(r' Sigma^-1 r) / 2 - D/2 log 2 pi - log det(Sigma) / 2, r = zeta - mu.
    const Eigen::Index n = zeta.rows();
    const double log_2pi = std::log(2.0 * std::numbers::pi);
    Eigen::VectorXd out(n);
    if (family_ == Family::LowRank) {
        const double constant = standard_entropy(dim()) - entropy() - 0.5 * dim() * log_2pi;
        const Eigen::MatrixXd r = (zeta.rowwise() - mu_.transpose()).transpose();  // dim x n
        const Eigen::MatrixXd pr = precision_times(r);
        for (Eigen::Index i = 0; i < n; ++i) out[i] = constant - 0.5 * r.col(i).dot(pr.col(i));
        return out;
    }
    Eigen::MatrixXd u = (zeta.rowwise() - mu_.transpose()).transpose();  // dim x n
    double log_det = 0.0;
    if (family_ == Family::MeanField) {
        u.array().colwise() *= (-omega_).array().exp();
        log_det = omega_.sum();
    } else {
        L_.triangularView<Eigen::Lower>().solveInPlace(u);
        log_det = L_.diagonal().array().abs().log().sum();
    }
    for (Eigen::Index i = 0; i < n; ++i)
        out[i] = -0.5 * u.col(i).squaredNorm() - 0.5 * dim() * log_2pi - log_det;
    return out;
}

void Approximation::transform(const Eigen::VectorXd& eta, Eigen::VectorXd& zeta) const {
    // A draw of the wrong length would read the wrong noise (the low-rank family's last R
    // entries drive B), never an error of its own.
    if (eta.size() != noise_dim() || zeta.size() != dim()) {
        throw ShapeError(
            fmt::format("approximation: eta has {} entries and zeta {}, expected {} "
                        "and {}",
                        eta.size(), zeta.size(), noise_dim(), dim()));
    }
    if (family_ == Family::MeanField) {
        zeta.array() = mu_.array() + omega_.array().exp() * eta.array();
    } else if (family_ == Family::LowRank) {
        const int d = dim();
        zeta.noalias() = B_ * eta.tail(rank());
        zeta.array() += mu_.array() + omega_.array().exp() * eta.head(d).array();
    } else {
        zeta.noalias() = L_.triangularView<Eigen::Lower>() * eta;
        zeta += mu_;
    }
}

Eigen::MatrixXd Approximation::draw(Rng& rng, int n) const {
    const int d = dim();
    Eigen::MatrixXd out(n, d);
    Eigen::VectorXd eta(noise_dim());
    Eigen::VectorXd zeta(d);
    for (int r = 0; r < n; ++r) {
        rng.fill_normal(eta);
        transform(eta, zeta);
        out.row(r) = zeta.transpose();
    }
    return out;
}

std::string Approximation::str() const {
    std::string s = fmt::format("{} q, dim {}\n", family_name(family_, rank()), dim());
    s += fmt::format("  mu    = {}\n", vec_str(mu_));
    if (family_ == Family::MeanField) {
        s += fmt::format("  omega = {}\n", vec_str(omega_));
    } else if (family_ == Family::LowRank) {
        s += fmt::format("  omega = {}\n", vec_str(omega_));
        for (int j = 0; j < rank(); ++j)
            s += fmt::format("  {} {}\n", j == 0 ? "B     =" : "       ", vec_str(B_.col(j)));
    } else {
        for (int i = 0; i < dim(); ++i) {
            s += fmt::format("  {} {}\n", i == 0 ? "L     =" : "       ",
                             vec_str(L_.row(i).head(i + 1).transpose()));
        }
    }
    s += fmt::format("  sd    = {}\n", vec_str(sd()));
    return s;
}

std::string family_name(Family family, int rank) {
    switch (family) {
        case Family::MeanField: return "mean-field";
        case Family::FullRank: return "full-rank";
        case Family::LowRank: return fmt::format("low-rank (rank {})", rank);
    }
    return "unknown";
}

std::ostream& operator<<(std::ostream& os, const Approximation& q) {
    return os << q.str();
}

}  // namespace advi
