// The model builder of the embedded DSL: data slots bound by reference, latent variables
// with priors (support inferred from the prior or given), likelihood terms.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/compile/program.hpp>
#include <advi/dist/cdf.hpp>
#include <advi/model/model_spec.hpp>

#include <advi/cpp/distributions.hpp>
#include <advi/cpp/expr.hpp>

namespace advi {

struct ParamOptions {
    // The support; by default the prior's natural support. It may be narrower than the
    // prior's (a half-normal: normal prior, positive support), never wider.
    std::optional<Support> support{};
    // T1 (log) or T2 (softplus^-1) for bounded supports (paper section 3.3).
    PositiveTransform transform = PositiveTransform::Log;
    // Stan's <lower = a, upper = b> and <offset = mu, multiplier = tau>, instead of
    // `support`: numbers, or expressions of data and of parameters declared before (real or
    // of the parameter's shape), e.g. {.offset = mu, .multiplier = tau} for a non-centred
    // normal(mu, tau). Bounds cannot be combined with offset/multiplier. Constant vectors:
    // Support::lower_bound(v), Support::affine(offset, multiplier).
    std::optional<Arg> lower{};
    std::optional<Arg> upper{};
    std::optional<Arg> offset{};
    std::optional<Arg> multiplier{};
    // Dimensions to report it by, when not its shape's: a matrix of N rows standing for a value
    // of three or more dimensions (Stan's array[N] matrix[R, C] as mat[N, R * C]). Their product
    // must be the shape's size.
    std::vector<std::int64_t> dims{};
    // Stan's complex values: dims[0] = 2 is the real and imaginary part (LatentVariable::complex).
    bool complex{};
};

class Model {
public:
    Model() = default;
    Model(const Model&) = delete;  // expressions point at their model
    Model& operator=(const Model&) = delete;

    // Data, bound by reference: the caller keeps it alive and unchanged while the model,
    // its programs and fits are in use. Scalars are copied.
    Expr data(std::string name, const Eigen::VectorXd& v);
    Expr data(std::string name, const Eigen::MatrixXd& m);
    Expr data(std::string name, const Eigen::VectorXi& v);
    Expr data(std::string name, double v);
    Expr data(std::string name, int v);
    // Integer data the model keeps itself (the positions an index reads, built by the DSL).
    Expr owned_data(std::string name, Eigen::VectorXi v);
    // Temporaries would dangle: bind a named object. The const overloads catch Eigen's
    // `.eval()`, which returns a const temporary (a use after free that ASan found).
    Expr data(std::string name, Eigen::VectorXd&& v) = delete;
    Expr data(std::string name, Eigen::MatrixXd&& m) = delete;
    Expr data(std::string name, Eigen::VectorXi&& v) = delete;
    Expr data(std::string name, const Eigen::VectorXd&& v) = delete;
    Expr data(std::string name, const Eigen::MatrixXd&& m) = delete;
    Expr data(std::string name, const Eigen::VectorXi&& v) = delete;

    // A latent variable with its prior: scalar, vector(n) or matrix(rows, cols).
    Expr param(std::string name, const Dist& prior, ParamOptions options = {});
    Expr param(std::string name, const Dist& prior, Eigen::Index n, ParamOptions options = {});
    Expr param(std::string name, const Dist& prior, Eigen::Index rows, Eigen::Index cols,
               ParamOptions options = {});

    // A likelihood term: log p(y | ...) added to the target. Data values are checked
    // against the distribution's support here.
    void observe(const Expr& y, const Dist& d);
    // A raw log-density term (summed if not a scalar).
    void target_add(const Expr& term);
    // A log-Jacobian term the model computes itself (Stan's `jacobian +=` and `_jacobian`
    // functions): counted with the transforms' log-Jacobians, so that a fit or optimisation
    // without them (optimize's default: the mode in constrained space) leaves it out too. The
    // graph's output "jacobian" is their sum.
    void jacobian_add(const Expr& term);
    // A declared constraint on a quantity (Stan's `real<lower=0> tp`, `simplex[K] gq`): checked,
    // not imposed. `in_log_density`: the log density is -inf where it is violated (a term
    // check_constraint(value, lower, upper)), as Stan rejects a draw whose transformed
    // parameter violates its constraint; otherwise only recorded (ModelSpec::checks), for the
    // check of each output draw of a generated quantity. `what` names the quantity in messages.
    // Bounds are read by Constraint::Bounds only (none: -inf, inf); `rowwise`: one vector per row.
    void check_constraint(std::string what, const Expr& value, Constraint c,
                          const std::optional<Arg>& lower, const std::optional<Arg>& upper,
                          bool rowwise, bool in_log_density);
    // log p(y | d) as an expression, not added to the target (Stan's normal_lpdf(y | ...)
    // inside an expression): summed over y's elements, or one value per element.
    [[nodiscard]] Expr log_density(const Expr& y, const Dist& d, bool elementwise = false);
    // log P(Y <= y) (Tail::Lower) or log P(Y > y) (Tail::Upper) for Y ~ d, summed over y's
    // elements or one value per element (lib/advi/dist/cdf.hpp): graph terms where the
    // distribution has them, else numbers when y and the arguments are known before the fit;
    // a ModelError where they depend on a latent variable and there are no graph terms.
    [[nodiscard]] Expr log_cdf(const Expr& y, const Dist& d, Tail tail, bool elementwise = false);
    // The same for a distribution whose mass is not 1 (Stan's _lcdf_unnorm and _lccdf_unnorm):
    // log P(Y <= y) and log P(y < Y < inf) for wiener, whose mass is the probability of the upper
    // boundary (lib/advi/dist/wiener.hpp); a ModelError for the other distributions.
    [[nodiscard]] Expr log_cdf_unnorm(const Expr& y, const Dist& d, Tail tail,
                                      bool elementwise = false);
    // The values (column-major) of an expression of data and constants: a ModelError if it
    // depends on a latent variable.
    [[nodiscard]] std::vector<double> evaluate(const Expr& e) const;
    // The terms of the log density so far (observe, target_add).
    [[nodiscard]] std::size_t term_count() const { return terms_.size(); }
    [[nodiscard]] std::size_t jacobian_term_count() const { return jacobian_terms_.size(); }
    // The terms added since the first `from` (removed from the model), summed: empty if none.
    // For builders that weight them before adding them back (a side of a condition).
    [[nodiscard]] Expr take_terms(std::size_t from);
    // The terms and the model's own log-Jacobian terms (jacobian_add) added so far, summed (the
    // constant 0 if none), left in the model: Stan's `target()` of a model whose parameters have
    // no transforms.
    [[nodiscard]] Expr log_density_so_far();
    // A constant of the model's graph.
    [[nodiscard]] Expr constant(double v);

    // The model graph with output "lp" (the log joint density over the latents).
    [[nodiscard]] Graph graph() const;
    // The model as the engine sees it.
    [[nodiscard]] ModelSpec spec() const;

    // For Expr and its operators.
    [[nodiscard]] const Graph& nodes() const { return graph_; }
    Expr wrap(NodeId id) { return {this, id}; }
    NodeId resolve(const Arg& a);
    // Interns op(a, b) with int data converted to real where the op reads reals.
    Expr apply(Op op, const Expr& a, const Expr& b = {});

private:
    Expr bind(std::string name, Shape shape, DType dtype, const double* real, const int* ints);
    void check_name(const std::string& name) const;
    // The support a parameter declares through its options (nothing: the prior's).
    std::optional<Support> declared_support(const std::string& name, Shape shape,
                                            const ParamOptions& options);
    // Arguments computed from data and constants only are known now: check their values
    // against the distribution's argument domains before any fit.
    void check_known_arguments(const DistInfo& d, std::span<const NodeId> args) const;
    // The arguments of `d` as nodes of this model, for a variate `y` of this model, with the
    // known ones checked (observe and log_density).
    std::vector<NodeId> density_arguments(const Expr& y, const Dist& d);
    // The values of a node that depends on data and constants only (one per element).
    [[nodiscard]] std::vector<double> known_values(NodeId a) const;
    // Integer data against the argument that bounds it above (binomial's N), if known.
    void check_upper_bound(const DistInfo& d, const DataSlot& y, NodeId bound) const;
    // Data of a multivariate distribution against its support, draw by draw (a simplex per
    // row, a covariance matrix as a whole).
    void check_draws(const DistInfo& d, const Support& s, const DataSlot& y) const;
    void add_term(NodeId term);
    // A constant vector or matrix argument as a data slot of the model, which holds it; one
    // slot per constant, however many times it is used.
    NodeId constant_array(const std::shared_ptr<const ConstantArray>& c);

    Graph graph_;
    std::vector<LatentVariable> latents_;
    std::vector<DataSlot> data_;
    std::vector<NodeId> terms_;
    std::vector<NodeId> jacobian_terms_;
    std::vector<ConstraintCheck> checks_;
    std::vector<std::unique_ptr<double>> owned_reals_;
    std::vector<std::unique_ptr<int>> owned_ints_;
    std::vector<std::unique_ptr<Eigen::VectorXi>> owned_int_vectors_;
    std::vector<std::pair<std::shared_ptr<const ConstantArray>, NodeId>> constants_;
};

}  // namespace advi
