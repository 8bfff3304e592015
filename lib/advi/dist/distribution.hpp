// The distribution table: each row adds its log density (full normalising constant) to a
// graph and declares its natural support, so that a prior implies a latent's support.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include <advi/graph/graph.hpp>
#include <advi/transform/support.hpp>

namespace advi {

// The domain of a distribution argument, checked where the argument is a known value.
// Count: a non-negative integer (binomial's N), whether given as a number or integer data.
enum class ArgDomain { Real, Positive, NonNegative, Unit, Count };

class Terms;

// The most arguments a row takes (wiener's seven).
inline constexpr int kMaxDistArgs = 7;

struct DistInfo {
    std::string_view name;
    int arity;
    std::array<std::string_view, kMaxDistArgs> arg_names;
    std::array<ArgDomain, kMaxDistArgs> arg_domains;
    // Int: a distribution over integers (counts, binary outcomes): the variate must be
    // integer data and cannot be a latent variable.
    DType variate;
    // The natural support of the variate given the arguments (reals only).
    Support (*support)(const Graph& g, std::span<const NodeId> args);
    // Adds the elementwise log density terms of x given args.
    void (*log_density)(Terms& t, NodeId x, std::span<const NodeId> args);
    // For integer distributions: whether a value is in the support.
    bool (*valid_int)(int y);
    // For integer distributions: the argument that bounds the variate above (binomial's N),
    // or -1. Model::observe checks data against it where its value is known (a number or
    // data); valid_int checks the rest of the support.
    int upper_arg = -1;
    // Multivariate rows (lib/advi/dist/multivariate.hpp) check the shapes of their variate and
    // arguments themselves (no scalar broadcasting) and add scalar terms; an integer variate
    // reaches them as integer data, unconverted (they index with it).
    bool multivariate = false;
};

// Accumulates log density terms over the broadcast shape of variate and arguments: a
// scalar term counts once per element, a full term is summed. With `propto`, terms that
// do not depend on a latent variable are dropped.
class Terms {
public:
    Terms(Graph& g, Shape shape, bool propto, bool elementwise = false)
        : g_(g), shape_(shape), propto_(propto), elementwise_(elementwise) {}
    void add(NodeId term);
    [[nodiscard]] NodeId total();

    Graph& g() { return g_; }
    // The broadcast shape of the variate and the arguments.
    [[nodiscard]] const Shape& shape() const { return shape_; }
    NodeId c(double v) { return g_.constant(v); }
    NodeId add(NodeId a, NodeId b) { return g_.apply(Op::Add, a, b); }
    NodeId sub(NodeId a, NodeId b) { return g_.apply(Op::Sub, a, b); }
    NodeId mul(NodeId a, NodeId b) { return g_.apply(Op::Mul, a, b); }
    NodeId div(NodeId a, NodeId b) { return g_.apply(Op::Div, a, b); }
    NodeId neg(NodeId a) { return g_.apply(Op::Neg, a); }
    NodeId f(Op op, NodeId a) { return g_.apply(op, a); }

private:
    Graph& g_;
    Shape shape_;
    bool propto_;
    bool elementwise_;  // total() keeps one value per element instead of their sum
    NodeId total_ = kNoNode;
};

[[nodiscard]] std::span<const DistInfo> distributions();
// The row named `name`, or a ModelError listing the names there are.
[[nodiscard]] const DistInfo& distribution(std::string_view name);

// log p(x | args) summed over x's elements, added to g. Checks arity, that every argument
// is a scalar or has x's shape, and the domain of constant arguments; errors name the
// distribution and the argument.
[[nodiscard]] NodeId log_density(Graph& g, const DistInfo& d, NodeId x,
                                 std::span<const NodeId> args, bool propto = false);
// The same, one value per element of the broadcast shape (univariate distributions only):
// the densities of a vectorised loop's iterations (Stan's normal_lpdf(y[n] | ...) inside an
// expression of a loop over n).
[[nodiscard]] NodeId log_density_elementwise(Graph& g, const DistInfo& d, NodeId x,
                                             std::span<const NodeId> args);

// The shape of a distribution function's terms: the broadcast of x and the arguments (a scalar
// x with vector arguments too), after check_arguments against it; a ShapeError if x is neither
// a scalar nor of that shape.
[[nodiscard]] Shape broadcast_of(const Graph& g, const DistInfo& d, NodeId x,
                                 std::span<const NodeId> args);

// Checks the arity, that every argument is a scalar or has the variate's shape (where
// `variate` is given), and the domain of constant arguments; errors name the distribution
// and the argument.
void check_arguments(const Graph& g, const DistInfo& d, std::span<const NodeId> args,
                     const Shape* variate);

// Checks a known value of argument k (a constant, or computed from data before the fit):
// a ModelError naming the distribution and the argument unless it lies in its domain.
// `where` says where the value came from (e.g. "element 3 of data").
void check_argument_value(const DistInfo& d, int k, double v, std::string_view where = "");

// The natural support of the variate, after the same checks of the arguments.
[[nodiscard]] Support natural_support(const Graph& g, const DistInfo& d,
                                      std::span<const NodeId> args);

}  // namespace advi
