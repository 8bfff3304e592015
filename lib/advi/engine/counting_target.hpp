// A Target that counts what the fit asks of the target it wraps (issue 19: "every evaluation
// counts"): gradient evaluations (a Hessian-vector product counts as one: it computes the
// gradient too) and value-only evaluations (one per point of a batch). run_advi wraps its
// target in one, so that every evaluation, whoever makes it, is counted.
#pragma once

#include <Eigen/Core>

#include <advi/engine/target.hpp>

namespace advi {

// Base: Target, or CurvatureTarget when the wrapped target gives curvature, so that a
// dynamic_cast to CurvatureTarget sees through the wrapper exactly when it would without it.
template <class Base>
class Counting : public Base {
public:
    explicit Counting(Base& inner) : inner_(inner) {}

    int dim() const override { return inner_.dim(); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        ++gradient_evaluations_;
        return inner_.log_density_gradient(zeta, grad);
    }
    double log_density(const Eigen::VectorXd& zeta) override {
        ++value_evaluations_;
        return inner_.log_density(zeta);
    }
    void log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) override {
        value_evaluations_ += zetas.cols();
        inner_.log_densities(zetas, out);
    }
    void next_minibatch() override { inner_.next_minibatch(); }
    void use_evaluation_batch() override { inner_.use_evaluation_batch(); }
    void offer_anchor(const Approximation& q) override { inner_.offer_anchor(q); }

    long gradient_evaluations() const { return gradient_evaluations_; }
    long value_evaluations() const { return value_evaluations_; }

protected:
    Base& inner_;
    long gradient_evaluations_ = 0;
    long value_evaluations_ = 0;
};

using CountingTarget = Counting<Target>;

class CountingCurvatureTarget final : public Counting<CurvatureTarget> {
public:
    using Counting<CurvatureTarget>::Counting;
    double hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                          Eigen::VectorXd& grad, Eigen::VectorXd& hv) override {
        ++gradient_evaluations_;
        return inner_.hessian_vector(zeta, v, grad, hv);
    }
};

}  // namespace advi
