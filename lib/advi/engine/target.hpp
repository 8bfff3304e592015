// What the ADVI engine optimises against: the log joint density in unconstrained space,
// log p(x, T^-1(zeta)) + log|det J_T^-1(zeta)|, and its gradient (paper Eqs. 5-7).
#pragma once

#include <concepts>
#include <exception>
#include <limits>
#include <new>

#include <Eigen/Core>

#include <advi/base/error.hpp>

namespace advi {

class Approximation;

// The engine knows nothing about graphs or transforms: a compiled model, or a hand-written
// density in a test, is just a dimension and a log density with gradient.
class Target {
public:
    virtual ~Target() = default;
    virtual int dim() const = 0;
    // log p(x, T^-1(zeta)) + log|det J|; writes its gradient into grad (already sized dim()).
    // A non-finite return value (or gradient) is allowed: the engine drops such draws.
    virtual double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) = 0;
    // The log density alone, for ELBO estimates and the output draws' log_p__ (issue 19: no
    // gradient where none is needed). A compiled model overrides it with a value-only program;
    // this default pays for the gradient it throws away.
    virtual double log_density(const Eigen::VectorXd& zeta) {
        Eigen::VectorXd grad(dim());
        return log_density_gradient(zeta, grad);
    }
    // The log densities of many points at once, one per column of `zetas`, into `out` (resized
    // to zetas.cols()): NaN where an evaluation failed as evaluate_value() makes it. A compiled
    // model evaluates the columns in parallel over threads; each value is computed alone, so
    // the results are the same bits on any thread count. This default evaluates them in turn.
    virtual void log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out);

    // Data subsampling (paper section 4.3, after Hoffman et al. 2013): a target whose
    // likelihood reads a minibatch of the data. The estimator asks for a fresh minibatch
    // before each gradient, and for one fixed evaluation batch before each ELBO estimate, so
    // that two ELBO estimates differ because q moved, not because other rows were drawn.
    // A full-data target ignores both.
    virtual void next_minibatch() {}
    virtual void use_evaluation_batch() {}
    // Control variates for minibatch gradients (Options::control_variates; after SVRG, Johnson
    // and Zhang 2013): such a target's gradient at zeta is g_batch(zeta) - g_batch(a) +
    // g_full(a), as unbiased as g_batch(zeta), with the batch's noise shrinking as zeta nears
    // the anchor a. The estimator offers q before each gradient; the target moves its anchor
    // to q's mean when it judges the old one stale (a full-data pass). Others ignore it.
    virtual void offer_anchor(const Approximation& /*q*/) {}
};

// A target that also gives curvature: the Hessian of the same log density (the Jacobian
// term included where the target includes it) times a vector, for Newton steps, the Laplace
// approximation and curvature-aware ADVI. A compiled model gives it exactly, from the graph
// of its gradient differentiated once more (compile/pipeline.hpp).
class CurvatureTarget : public Target {
public:
    // Returns the log density at zeta; writes its gradient into grad and H(zeta) v into hv
    // (both already sized dim()). Non-finite values are allowed, as for the gradient.
    virtual double hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                                  Eigen::VectorXd& grad, Eigen::VectorXd& hv) = 0;
};

// The engine's one way to evaluate a target: an exception from a library inside the target (a
// special function's overflow, a failed factorisation) is a failed evaluation at that point,
// NaN, which the engine drops and counts like any non-finite value, instead of ending the fit.
// Our own errors (advi::Error: bad data, an index out of range) and a failed allocation are
// faults of the model or the machine and pass on. `call` is the evaluation itself (the log
// density with gradient, or alone), so that both ways share this one rule.
template <std::invocable F>
double evaluate_or_nan(F&& call) {
    try {
        return call();
    } catch (const Error&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception&) {
        return std::numeric_limits<double>::quiet_NaN();
    }
}

// The log density with its gradient, as evaluate_or_nan() rules.
inline double evaluate(Target& target, const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) {
    return evaluate_or_nan([&] { return target.log_density_gradient(zeta, grad); });
}

// The same for the log density alone.
inline double evaluate_value(Target& target, const Eigen::VectorXd& zeta) {
    return evaluate_or_nan([&] { return target.log_density(zeta); });
}

inline void Target::log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) {
    out.resize(zetas.cols());
    Eigen::VectorXd zeta(zetas.rows());
    for (Eigen::Index i = 0; i < zetas.cols(); ++i) {
        zeta = zetas.col(i);
        out[i] = evaluate_value(*this, zeta);
    }
}

template <class T>
concept LogDensity = requires(T& t, const Eigen::VectorXd& z, Eigen::VectorXd& g) {
    { t.dim() } -> std::convertible_to<int>;
    { t.log_density_gradient(z, g) } -> std::convertible_to<double>;
};

// Lets any LogDensity (a lambda-holding struct, a compiled program) be used as a Target
// without inheriting from it; the wrapped object must outlive the TargetRef.
template <LogDensity T>
class TargetRef final : public Target {
public:
    explicit TargetRef(T& t) : t_(t) {}
    int dim() const override { return static_cast<int>(t_.dim()); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        return static_cast<double>(t_.log_density_gradient(zeta, grad));
    }

private:
    T& t_;
};

template <class T>
concept HessianVectorDensity = LogDensity<T> &&
    requires(T& t, const Eigen::VectorXd& z, Eigen::VectorXd& g) {
    { t.hessian_vector(z, z, g, g) } -> std::convertible_to<double>;
};

// The same for a CurvatureTarget: a compiled model's HessianVectorProgram
// (compile/hessian_vector_program.hpp, from compile_hessian_vector()) as the target of Newton
// steps and the Laplace approximation.
template <HessianVectorDensity T>
class CurvatureTargetRef final : public CurvatureTarget {
public:
    explicit CurvatureTargetRef(T& t) : t_(t) {}
    int dim() const override { return static_cast<int>(t_.dim()); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        return static_cast<double>(t_.log_density_gradient(zeta, grad));
    }
    double hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                          Eigen::VectorXd& grad, Eigen::VectorXd& hv) override {
        return static_cast<double>(t_.hessian_vector(zeta, v, grad, hv));
    }

private:
    T& t_;
};

}  // namespace advi
