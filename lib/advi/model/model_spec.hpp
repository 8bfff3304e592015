// The model as the engine sees it, whichever front end built it: a graph whose output
// "lp" is log p(x, theta), the latent variables with their supports, and the data slots.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/graph/constraint_check.hpp>
#include <advi/graph/graph.hpp>
#include <advi/transform/support.hpp>

namespace advi {

struct LatentVariable {
    std::string name;
    Shape shape;
    Support support;
    PositiveTransform positive = PositiveTransform::Log;
    NodeId node = kNoNode;  // its Param leaf in the model graph
    // Its dimensions as declared where they are not its shape's (Stan's array[N] matrix[R, C],
    // held as mat[N, R * C]: rows by the first index, the rest column-major), for column names;
    // empty: the shape's.
    std::vector<std::int64_t> dims;
    // Stan's complex values: the first of `dims` (2) is the real and the imaginary part, named
    // last (`z.1.real, z.1.imag, z.2.real, ...`: the parts of each element together).
    bool complex = false;
};

// A data slot points at the caller's memory (no copy): reals or ints, column-major.
struct DataSlot {
    std::string name;
    Shape shape;
    DType dtype = DType::Real;
    const double* real = nullptr;
    const int* ints = nullptr;
};

// A declared constraint checked on a quantity of the model, not imposed by a transform (Stan's
// transformed parameters and generated quantities): the quantity's node and its bounds' (real,
// or of its shape; -inf and inf where none is declared).
struct ConstraintCheck {
    std::string what;  // "transformed parameter `tp`", for messages
    Constraint constraint = Constraint::Bounds;
    bool rowwise = false;  // one vector per row (Stan's array[N] simplex[K])
    NodeId value = kNoNode;
    NodeId lower = kNoNode;
    NodeId upper = kNoNode;
    // Its check_constraint node, a term of "lp" that is -inf where the constraint is violated
    // (a transformed parameter: Stan rejects the draw); kNoNode for a quantity checked on each
    // output draw only (a generated quantity: Stan stops).
    NodeId term = kNoNode;
};

// The check's first violation at the values of its value and bounds (each laid out as its
// node's shape, column-major) as "<what> <message>" ("transformed parameter `tp` is -0.3,
// below the lower bound 0"), or nothing.
// The label of element k (column-major) of latent v: "mu", "theta[3]", "Sigma[2,1]", "p[1,2,3]"
// (by its declared dims if it has them), indices from `index_base`.
[[nodiscard]] std::string element_label(const LatentVariable& v, std::int64_t k, int index_base);

[[nodiscard]] std::optional<std::string> violation(const Graph& g, const ConstraintCheck& c,
                                                   const double* value, const double* lower,
                                                   const double* upper);

struct ModelSpec {
    // Output "lp": the log joint density over Param leaves; output "jacobian", if any: the
    // model's own log-Jacobian terms, added with the transforms' (compile/constrain.hpp);
    // output "jacobian_weight", if any: a scalar that multiplies both (a data slot of the
    // fit over row shards, fit/row_shards.hpp, which counts them in one shard only).
    Graph graph;
    std::vector<LatentVariable> latents;
    std::vector<DataSlot> data;
    // The terms whose sum is "lp", as the model added them (a prior, a likelihood, a
    // target += ...); empty when the builder did not say. Data subsampling scales whole terms.
    std::vector<NodeId> terms;
    // Declared constraints of quantities, in declaration order.
    std::vector<ConstraintCheck> checks;

    // Offsets of each latent's unconstrained coordinates in zeta, and their total (dim).
    [[nodiscard]] std::vector<int> zeta_offsets() const;
    [[nodiscard]] int zeta_dim() const;
    // Offsets of each latent's constrained values in a flat theta vector, and the total.
    [[nodiscard]] std::vector<int> theta_offsets() const;
    [[nodiscard]] int theta_dim() const;
    // T on values: the flat theta (at theta_offsets(), column-major per latent) mapped to
    // zeta, e.g. for initial values (Options::init). A ModelError names the latent whose
    // values lie outside its support or whose support has expression arguments.
    [[nodiscard]] Eigen::VectorXd unconstrain(const Eigen::VectorXd& theta) const;
    // The latent named `name`, or a ModelError listing the names there are.
    [[nodiscard]] const LatentVariable& latent(std::string_view name) const;
    [[nodiscard]] int latent_index(std::string_view name) const;
};

}  // namespace advi
