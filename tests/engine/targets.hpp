// Hand-written log densities in unconstrained space for the ADVI engine tests: Gaussians
// (analytic ELBO), Gamma under T1 (log) and T2 (softplus), and deliberately broken targets.
#pragma once

#include <cmath>
#include <limits>
#include <numbers>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>

#include <advi/engine/approximation.hpp>
#include <advi/engine/target.hpp>

namespace advi::test {

// log N(zeta; m, S) + offset. The offset stands in for an unnormalised model's constant.
class GaussianTarget final : public Target {
public:
    GaussianTarget(Eigen::VectorXd m, const Eigen::MatrixXd& S, double offset = 0.0)
        : GaussianTarget(std::move(m), S, S.inverse(), offset) {
        const Eigen::LLT<Eigen::MatrixXd> llt(S_);
        const double logdet = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
        norm_ =
            -0.5 * static_cast<double>(m_.size()) * std::log(2.0 * std::numbers::pi) - 0.5 * logdet;
    }
    // The kernel -(zeta - m)' P (zeta - m) / 2 + offset alone, as a model whose normalising
    // constant nobody computed, from the precision P kept to the bit (a badly conditioned P
    // would not survive (P^-1)^-1, and tests of the optimal mean-field sd 1/sqrt(P_dd) read
    // it). analytic_elbo() stays exact: it has the same constant.
    static GaussianTarget unnormalised(Eigen::VectorXd m, const Eigen::MatrixXd& P,
                                       double offset = 0.0) {
        return GaussianTarget(std::move(m), P.inverse(), P, offset);
    }
    int dim() const override { return static_cast<int>(m_.size()); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        const Eigen::VectorXd r = zeta - m_;
        grad = -P_ * r;
        return offset_ + norm_ - 0.5 * r.dot(P_ * r);
    }
    // The exact ELBO E_q[log p] + H[q] for a Gaussian q.
    double analytic_elbo(const Approximation& q) const {
        const Eigen::VectorXd r = q.mu() - m_;
        const double e_log_p =
            offset_ + norm_ - 0.5 * ((P_ * q.covariance()).trace() + r.dot(P_ * r));
        return e_log_p + q.entropy();
    }
    const Eigen::MatrixXd& precision() const { return P_; }
    const Eigen::VectorXd& mean() const { return m_; }
    const Eigen::MatrixXd& covariance() const { return S_; }

private:
    GaussianTarget(Eigen::VectorXd m, Eigen::MatrixXd S, Eigen::MatrixXd P, double offset)
        : m_(std::move(m)), S_(std::move(S)), P_(std::move(P)), offset_(offset) {}

    Eigen::VectorXd m_;
    Eigen::MatrixXd S_, P_;
    double offset_;
    double norm_ = 0.0;  // log of N's normalising constant; 0 for unnormalised()
};

// The same Gaussian as a CurvatureTarget, with its exact H v = -P v: for the mode search's
// Newton steps, the start from the mode and the Laplace approximation. (GaussianTarget stays a
// plain Target, so that the engine tests keep the path of a target without curvature.)
class GaussianCurvatureTarget final : public CurvatureTarget {
public:
    GaussianCurvatureTarget(Eigen::VectorXd m, const Eigen::MatrixXd& S, double offset = 0.0)
        : g_(std::move(m), S, offset) {}
    explicit GaussianCurvatureTarget(GaussianTarget g) : g_(std::move(g)) {}
    int dim() const override { return g_.dim(); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        return g_.log_density_gradient(zeta, grad);
    }
    double hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                          Eigen::VectorXd& grad, Eigen::VectorXd& hv) override {
        hv = -g_.precision() * v;
        return g_.log_density_gradient(zeta, grad);
    }
    const GaussianTarget& gaussian() const { return g_; }

private:
    GaussianTarget g_;
};

// The centred eight schools: y_j ~ N(theta_j, sigma_j), theta_j ~ N(mu, tau), mu ~ N(0, 5),
// log tau unconstrained with its Jacobian and a N(0, 5) prior on tau.
// As tau -> 0 with every theta_j = mu the density grows like -(J - 1) log tau: no mode.
class CentredEightSchools final : public CurvatureTarget {
public:
    int dim() const override { return 2 + J; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
        const double mu = z[0], lt = z[1], tau = std::exp(lt);
        g = Eigen::VectorXd::Zero(dim());
        double lp = -mu * mu / 50.0 - tau * tau / 50.0 + lt - J * lt;
        g[0] = -mu / 25.0;
        g[1] = -tau * tau / 25.0 + 1.0 - J;
        for (int j = 0; j < J; ++j) {
            const double th = z[2 + j], r = (th - mu) / tau;
            const double e = (y[j] - th) / sigma[j];
            lp += -0.5 * e * e - 0.5 * r * r;
            g[2 + j] = e / sigma[j] - r / tau;
            g[0] += r / tau;
            g[1] += r * r;
        }
        return lp;
    }
    // Central differences of the gradient: only reached if a mode were (wrongly) found.
    double hessian_vector(const Eigen::VectorXd& z, const Eigen::VectorXd& v, Eigen::VectorXd& g,
                          Eigen::VectorXd& hv) override {
        Eigen::VectorXd gp(dim()), gm(dim());
        const double h = 1e-5;
        log_density_gradient(z + h * v, gp);
        log_density_gradient(z - h * v, gm);
        hv = (gp - gm) / (2 * h);
        return log_density_gradient(z, g);
    }

private:
    static constexpr int J = 8;
    static constexpr double y[J] = {28, 8, -3, 7, -1, 1, 18, 12};
    static constexpr double sigma[J] = {15, 10, 16, 11, 9, 11, 10, 18};
};

inline double softplus(double x) {
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
inline double inv_logit(double x) {
    return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
}

enum class PositiveMap { T1Log, T2Softplus };

// The normalised density of zeta for theta ~ Gamma(a, b) (shape, rate):
//   T1: theta = exp(zeta),      log p = a log b - lgamma(a) + (a-1) zeta - b e^zeta + zeta
//   T2: theta = softplus(zeta), log p = a log b - lgamma(a) + (a-1) log theta - b theta
//                                       + log inv_logit(zeta)
// Normalised, so that the ELBO is -KL(q || p) (close to 0 at the optimum).
class GammaTarget final : public Target {
public:
    GammaTarget(double a, double b, PositiveMap map) : a_(a), b_(b), map_(map) {}
    int dim() const override { return 1; }
    double log_density(double z) const {
        const double c = a_ * std::log(b_) - std::lgamma(a_);
        if (map_ == PositiveMap::T1Log) {
            return c + a_ * z - b_ * std::exp(z);
        }
        const double theta = softplus(z);
        // log(softplus(z)) loses nothing for z > -30; below, softplus(z) = e^z to 1e-13.
        const double log_theta = z < -30.0 ? z : std::log(theta);
        return c + (a_ - 1.0) * log_theta - b_ * theta - softplus(-z);
    }
    double dlog_density(double z) const {
        if (map_ == PositiveMap::T1Log) {
            return a_ - b_ * std::exp(z);
        }
        const double s = inv_logit(z);
        const double theta = softplus(z);
        // sigma(z) / softplus(z) -> 1 as z -> -inf.
        const double ratio = z < -30.0 ? 1.0 : s / theta;
        return (a_ - 1.0) * ratio - b_ * s + (1.0 - s);
    }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        grad[0] = dlog_density(zeta[0]);
        return log_density(zeta[0]);
    }

private:
    double a_, b_;
    PositiveMap map_;
};

// KL(q || p) for a 1-D Gaussian q and the normalised GammaTarget, by the trapezoid rule on
// mu +- 12 sd (the integrand is smooth and decays like a Gaussian, so this is accurate to
// far below the differences we test).
inline double kl_by_quadrature(const Approximation& q, const GammaTarget& p, int n = 20001) {
    const double mu = q.mu()[0];
    const double sd = q.sd()[0];
    const double lo = mu - 12.0 * sd, hi = mu + 12.0 * sd;
    const double h = (hi - lo) / (n - 1);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        const double z = lo + i * h;
        const double u = (z - mu) / sd;
        const double log_q = -0.5 * u * u - std::log(sd) - 0.5 * std::log(2.0 * std::numbers::pi);
        const double w = (i == 0 || i == n - 1) ? 0.5 : 1.0;
        sum += w * std::exp(log_q) * (log_q - p.log_density(z));
    }
    return sum * h;
}

// Wraps a target and makes it non-finite (value `bad`) wherever some |zeta_k| > limit:
// a model that overflows far from its mode, so large step sizes blow up.
class CliffTarget final : public Target {
public:
    CliffTarget(Target& inner, double limit, double bad)
        : inner_(inner), limit_(limit), bad_(bad) {}
    int dim() const override { return inner_.dim(); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        if (zeta.cwiseAbs().maxCoeff() > limit_ || !zeta.allFinite()) {
            grad.setConstant(bad_);
            return bad_;
        }
        return inner_.log_density_gradient(zeta, grad);
    }

private:
    Target& inner_;
    double limit_, bad_;
};

// Non-finite everywhere.
class BrokenTarget final : public Target {
public:
    explicit BrokenTarget(int dim, double value) : dim_(dim), value_(value) {}
    int dim() const override { return dim_; }
    double log_density_gradient(const Eigen::VectorXd&, Eigen::VectorXd& grad) override {
        grad.setZero();
        return value_;
    }

private:
    int dim_;
    double value_;
};

// A finite log density whose gradient is NaN everywhere.
class BrokenGradientTarget final : public Target {
public:
    int dim() const override { return 2; }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        grad.setConstant(std::numeric_limits<double>::quiet_NaN());
        return -0.5 * zeta.squaredNorm();
    }
};

inline Eigen::MatrixXd correlated_cov(double sd1, double sd2, double rho) {
    Eigen::MatrixXd S(2, 2);
    S << sd1 * sd1, rho * sd1 * sd2, rho * sd1 * sd2, sd2 * sd2;
    return S;
}

}  // namespace advi::test
