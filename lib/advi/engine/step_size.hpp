// ADVI's adaptive step-size sequence (paper Eqs. 8-9): rho_k^(i) = eta i^(-1/2+eps) /
// (tau + sqrt(s_k^(i))), s^(i) = alpha g^2 + (1-alpha) s^(i-1), s^(1) = (g^(1))^2.
#pragma once

#include <Eigen/Core>

namespace advi {

// One s_k per variational parameter. The i^(-1/2+eps) factor makes the sequence satisfy
// Robbins-Monro; s_k (a finite-memory RMSprop average) adapts to each coordinate's scale.
class StepSize {
public:
    static constexpr double kAlpha = 0.1;
    static constexpr double kTau = 1.0;
    static constexpr double kEpsilon = 1e-16;

    explicit StepSize(double eta) : eta_(eta) {}
    // decay = false: rho_k = eta / (tau + sqrt(s_k)), no i^(-1/2) factor. The Auto rule keeps
    // the step size fixed until the iterates are stationary and then lowers eta itself
    // (auto_rule.cpp): a decaying sequence makes q stop moving whether or not it has arrived.
    StepSize(double eta, bool decay) : eta_(eta), decay_(decay) {}

    // Advances to the next iteration with gradient g and returns rho^(i) (same size as g).
    const Eigen::VectorXd& next(const Eigen::VectorXd& g);
    // Back to iteration 0 with no gradient memory (a new eta candidate, a restart).
    void reset();
    void reset(double eta);
    // A new eta, keeping the iteration count and the gradient memory s.
    void set_eta(double eta) { eta_ = eta; }

    double eta() const { return eta_; }
    int iteration() const { return i_; }
    const Eigen::VectorXd& s() const { return s_; }
    const Eigen::VectorXd& rho() const { return rho_; }

private:
    double eta_;
    bool decay_ = true;
    int i_ = 0;
    Eigen::VectorXd s_;
    Eigen::VectorXd rho_;
};

}  // namespace advi
