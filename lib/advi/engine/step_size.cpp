// The adaptive step-size sequence of paper Eqs. 8-9.
#include <advi/engine/step_size.hpp>

#include <cmath>

namespace advi {

const Eigen::VectorXd& StepSize::next(const Eigen::VectorXd& g) {
    ++i_;
    if (i_ == 1 || s_.size() != g.size()) {
        s_ = g.array().square().matrix();  // s^(1) = g^2: no prior memory to blend with
    } else {
        s_ = (kAlpha * g.array().square() + (1.0 - kAlpha) * s_.array()).matrix();
    }
    const double decay = decay_ ? eta_ * std::pow(static_cast<double>(i_), -0.5 + kEpsilon) : eta_;
    rho_ = (decay / (kTau + s_.array().sqrt())).matrix();
    return rho_;
}

void StepSize::reset() {
    i_ = 0;
    s_.resize(0);
    rho_.resize(0);
}

void StepSize::reset(double eta) {
    eta_ = eta;
    reset();
}

}  // namespace advi
