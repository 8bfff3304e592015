// The op table: every op of the graph in one row (name, arity, shape rule, elementwise,
// kernel, adjoint rule, scalar fold, test domain, and the columns the compiler reads: scratch,
// alias, loop form, thread split). Derivations sit beside each adjoint.
#include <cmath>

#include <Eigen/Core>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/math_policy.hpp>
#include <advi/graph/adjoint_terms.hpp>
#include <advi/graph/component_ops.hpp>
#include <advi/graph/const_vector.hpp>
#include <advi/graph/constraint_check.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_algebra.hpp>
#include <advi/graph/ops_constrain.hpp>
#include <advi/graph/ops_dynamic_index.hpp>
#include <advi/graph/ops_eigen.hpp>
#include <advi/graph/ops_hmm.hpp>
#include <advi/graph/ops_incomplete.hpp>
#include <advi/graph/ops_integrate.hpp>
#include <advi/graph/ops_linalg.hpp>
#include <advi/graph/ops_loop.hpp>
#include <advi/graph/ops_math.hpp>
#include <advi/graph/ops_matrix_exp.hpp>
#include <advi/graph/ops_ode.hpp>
#include <advi/graph/ops_random.hpp>
#include <advi/graph/ops_scan.hpp>
#include <advi/graph/ops_select.hpp>
#include <advi/graph/ops_sort.hpp>
#include <advi/graph/ops_special.hpp>
#include <advi/graph/ops_wiener.hpp>
#include <advi/graph/ops_wiener_cdf.hpp>

namespace advi {
namespace {

using ArrayMap = Eigen::Map<Eigen::ArrayXd>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXd>;
using ConstMatrixMap = Eigen::Map<const Eigen::MatrixXd>;
using ConstVectorMap = Eigen::Map<const Eigen::VectorXd>;

// ---------------------------------------------------------------- scalar functions

double log1p_exp(double x) {
    // log(1 + e^x) without overflow: for x > 0 it is x + log1p(e^-x).
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
double inv_logit(double x) {
    if (x >= 0)
        return 1.0 / (1.0 + std::exp(-x));
    const double e = std::exp(x);
    return e / (1.0 + e);
}
double log_inv_logit(double x) {
    return -log1p_exp(-x);
}
// At the poles (0 and the negative integers) NaN, as the density there is not finite anyway;
// an overflow (digamma(inf), digamma of a denormal) is inf under MathPolicy, never a throw.
double digamma(double x) {
    if (!(x > 0) && x == std::floor(x))
        return std::nan("");
    return boost::math::digamma(x, MathPolicy());
}
double trigamma(double x) {
    if (!(x > 0) && x == std::floor(x))
        return std::nan("");
    return boost::math::trigamma(x, MathPolicy());
}

// One struct per elementwise op: `f` for scalars (folding, broadcasting loops) and,
// where Eigen has a vectorised form, `a` for whole arrays.
// clang-format off
struct NegF { static double f(double x, double) { return -x; } };
struct ExpF { static double f(double x, double) { return std::exp(x); } };
struct LogF { static double f(double x, double) { return std::log(x); } };
struct Log1pF { static double f(double x, double) { return std::log1p(x); } };
struct Expm1F { static double f(double x, double) { return std::expm1(x); } };
struct SqrtF { static double f(double x, double) { return std::sqrt(x); } };
struct SquareF { static double f(double x, double) { return x * x; } };
struct InvLogitF { static double f(double x, double) { return inv_logit(x); } };
struct LogInvLogitF { static double f(double x, double) { return log_inv_logit(x); } };
struct Log1pExpF { static double f(double x, double) { return log1p_exp(x); } };
struct LgammaF { static double f(double x, double) { return std::lgamma(x); } };
struct DigammaF { static double f(double x, double) { return digamma(x); } };
struct TrigammaF { static double f(double x, double) { return trigamma(x); } };
struct ToRealF { static double f(double x, double) { return x; } };
struct AddF { static double f(double x, double y) { return x + y; } };
struct SubF { static double f(double x, double y) { return x - y; } };
struct MulF { static double f(double x, double y) { return x * y; } };
struct DivF { static double f(double x, double y) { return x / y; } };
struct PowF { static double f(double x, double y) { return std::pow(x, y); } };
// clang-format on

// ---------------------------------------------------------------- kernels

template <class F>
void unary_kernel(const KernelArgs& a) {
    const int n = a.out_size();
    const double* x = a.in[0].x;
    double* o = a.out;
    for (int i = 0; i < n; ++i) o[i] = F::f(x[i], 0.0);
}

// exp and log element by element through libm: on x86-64 glibc picks an FMA version at run
// time (about 2 ns per call), which beats Eigen's SSE2 polynomial (about 4.5 ns for log) in a
// build without -march flags.
void exp_kernel(const KernelArgs& a) {
    unary_kernel<ExpF>(a);
}
void log_kernel(const KernelArgs& a) {
    unary_kernel<LogF>(a);
}
void sqrt_kernel(const KernelArgs& a) {
    ArrayMap(a.out, a.out_size()) = ConstArrayMap(a.in[0].x, a.out_size()).sqrt();
}

void to_real_kernel(const KernelArgs& a) {
    const int n = a.out_size();
    if (a.in[0].i != nullptr) {
        for (int k = 0; k < n; ++k) a.out[k] = a.in[0].i[k];
    } else {
        for (int k = 0; k < n; ++k) a.out[k] = a.in[0].x[k];
    }
}

// Binary elementwise with scalar broadcasting: the stride of a scalar input is 0. The
// four cases are separate loops so that the compiler vectorises the common ones.
template <class F>
void binary_kernel(const KernelArgs& a) {
    const int n = a.out_size();
    const double* x = a.in[0].x;
    const double* y = a.in[1].x;
    double* o = a.out;
    const bool xs = a.in[0].size() == 1 && n != 1;
    const bool ys = a.in[1].size() == 1 && n != 1;
    if (!xs && !ys) {
        for (int i = 0; i < n; ++i) o[i] = F::f(x[i], y[i]);
    } else if (xs && !ys) {
        const double x0 = x[0];
        for (int i = 0; i < n; ++i) o[i] = F::f(x0, y[i]);
    } else if (!xs && ys) {
        const double y0 = y[0];
        for (int i = 0; i < n; ++i) o[i] = F::f(x[i], y0);
    } else {
        const double v = F::f(x[0], y[0]);
        for (int i = 0; i < n; ++i) o[i] = v;
    }
}

void const_kernel(const KernelArgs& a) {
    ArrayMap(a.out, a.out_size()).setConstant(a.node->value);
}
void sum_kernel(const KernelArgs& a) {
    a.out[0] = ConstArrayMap(a.in[0].x, a.in[0].size()).sum();
}
void broadcast_kernel(const KernelArgs& a) {
    ArrayMap(a.out, a.out_size()).setConstant(a.in[0].x[0]);
}
void dot_kernel(const KernelArgs& a) {
    a.out[0] =
        ConstVectorMap(a.in[0].x, a.in[0].size()).dot(ConstVectorMap(a.in[1].x, a.in[1].size()));
}
void matvec_kernel(const KernelArgs& a) {
    Eigen::Map<Eigen::VectorXd>(a.out, a.out_size()).noalias() =
        ConstMatrixMap(a.in[0].x, a.in[0].rows, a.in[0].cols) *
        ConstVectorMap(a.in[1].x, a.in[1].size());
}
void mattvec_kernel(const KernelArgs& a) {
    Eigen::Map<Eigen::VectorXd>(a.out, a.out_size()).noalias() =
        ConstMatrixMap(a.in[0].x, a.in[0].rows, a.in[0].cols).transpose() *
        ConstVectorMap(a.in[1].x, a.in[1].size());
}
void outer_kernel(const KernelArgs& a) {
    Eigen::Map<Eigen::MatrixXd>(a.out, a.out_rows, a.out_cols).noalias() =
        ConstVectorMap(a.in[0].x, a.in[0].size()) *
        ConstVectorMap(a.in[1].x, a.in[1].size()).transpose();
}
[[noreturn]] void index_out_of_range(int at, int index, int n) {
    throw DataError(fmt::format("index {} at position {} is outside 0..{}", index, at, n - 1));
}
void gather_kernel(const KernelArgs& a) {
    const int n = a.in[0].size();
    const int m = a.out_size();
    const double* v = a.in[0].x;
    const int* idx = a.in[1].i;
    for (int k = 0; k < m; ++k) {
        const int j = idx[k];
        if (j < 0 || j >= n)
            index_out_of_range(k, j, n);
        a.out[k] = v[j];
    }
}
void scatter_add_kernel(const KernelArgs& a) {
    const int n = a.out_size();
    const int m = a.in[0].size();
    const double* u = a.in[0].x;
    const int* idx = a.in[1].i;
    std::fill(a.out, a.out + n, 0.0);
    for (int k = 0; k < m; ++k) {
        const int j = idx[k];
        if (j < 0 || j >= n)
            index_out_of_range(k, j, n);
        a.out[j] += u[k];
    }
}

// ---------------------------------------------------------------- shape rules

const Shape& shape_of(const Graph& g, NodeId id) {
    return g[id].shape;
}

void require_real(const Graph& g, const Node& n, int k) {
    if (g[n.in[k]].dtype != DType::Real) {
        throw ShapeError(fmt::format(
            "{}: argument {} is integer data{}; convert it to real first", op_name(n.op), k + 1,
            g.label(n.in[k]).empty() ? "" : " `" + g.label(n.in[k]) + "`"));
    }
}

Shape leaf_shape(const Graph&, const Node& n) {
    if (n.shape.rows < 0 || n.shape.cols < 0) {
        throw ShapeError(fmt::format("{}: negative size in {}", op_name(n.op), n.shape.str()));
    }
    return n.shape;
}
Shape unary_shape(const Graph& g, const Node& n) {
    if (n.op != Op::ToReal)
        require_real(g, n, 0);
    return shape_of(g, n.in[0]);
}
Shape broadcast_shapes(const Graph& g, const Node& n) {
    require_real(g, n, 0);
    require_real(g, n, 1);
    const Shape& a = shape_of(g, n.in[0]);
    const Shape& b = shape_of(g, n.in[1]);
    if (a == b || b.is_scalar())
        return a;
    if (a.is_scalar())
        return b;
    throw ShapeError(fmt::format("{}: shapes {} and {} do not match (only scalars broadcast)",
                                 op_name(n.op), a.str(), b.str()));
}
Shape sum_shape(const Graph& g, const Node& n) {
    require_real(g, n, 0);
    return Shape::scalar();
}
Shape broadcast_shape(const Graph& g, const Node& n) {
    if (!shape_of(g, n.in[0]).is_scalar()) {
        throw ShapeError(
            fmt::format("broadcast: expected a scalar, got {}", shape_of(g, n.in[0]).str()));
    }
    return n.shape;
}
Shape dot_shape(const Graph& g, const Node& n) {
    const Shape& a = shape_of(g, n.in[0]);
    const Shape& b = shape_of(g, n.in[1]);
    if (!a.is_vector() || a != b) {
        throw ShapeError(fmt::format("dot: expected two vectors of one length, got {} and {}",
                                     a.str(), b.str()));
    }
    return Shape::scalar();
}
Shape matvec_shape(const Graph& g, const Node& n) {
    const Shape& A = shape_of(g, n.in[0]);
    const Shape& x = shape_of(g, n.in[1]);
    if (!A.is_matrix() || !x.is_vector() || A.cols != x.rows) {
        throw ShapeError(fmt::format(
            "matrix-vector product: expected mat[r,c] * vec[c], got {} * {}", A.str(), x.str()));
    }
    return Shape::vector(A.rows);
}
Shape mattvec_shape(const Graph& g, const Node& n) {
    const Shape& A = shape_of(g, n.in[0]);
    const Shape& v = shape_of(g, n.in[1]);
    if (!A.is_matrix() || !v.is_vector() || A.rows != v.rows) {
        throw ShapeError(fmt::format(
            "transposed matrix-vector product: expected mat[r,c]' * vec[r], got {}' * {}", A.str(),
            v.str()));
    }
    return Shape::vector(A.cols);
}
Shape outer_shape(const Graph& g, const Node& n) {
    const Shape& u = shape_of(g, n.in[0]);
    const Shape& v = shape_of(g, n.in[1]);
    if (!u.is_vector() || !v.is_vector()) {
        throw ShapeError(
            fmt::format("outer: expected two vectors, got {} and {}", u.str(), v.str()));
    }
    return Shape::matrix(u.rows, v.rows);
}
void require_index(const Graph& g, const Node& n) {
    const Node& idx = g[n.in[1]];
    if (idx.dtype != DType::Int || !idx.shape.is_vector()) {
        throw ShapeError(fmt::format("{}: the index must be an integer data vector, got {} {}",
                                     op_name(n.op), dtype_name(idx.dtype), idx.shape.str()));
    }
}
Shape gather_shape(const Graph& g, const Node& n) {
    require_index(g, n);
    if (!shape_of(g, n.in[0]).is_vector()) {
        throw ShapeError(
            fmt::format("index: only vectors can be indexed, got {}", shape_of(g, n.in[0]).str()));
    }
    return shape_of(g, n.in[1]);
}
Shape scatter_add_shape(const Graph& g, const Node& n) {
    require_index(g, n);
    if (shape_of(g, n.in[0]) != shape_of(g, n.in[1]) || !n.shape.is_vector()) {
        throw ShapeError("scatter_add: values and index must be vectors of one length");
    }
    return n.shape;
}

// ---------------------------------------------------------------- adjoint rules
// `y` is the node's value, `g` its adjoint; contributions go to c[k] for input k.

using C = std::array<NodeId, 3>;
using namespace adjoint_terms;

void adj_neg(Graph& gr, NodeId, NodeId g, C& c) {
    c[0] = neg(gr, g);
}
// d exp(x) = exp(x) dx
void adj_exp(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = mul(gr, g, y);
}
// d log(x) = dx / x
void adj_log(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = div(gr, g, in(gr, y, 0));
}
// d log1p(x) = dx / (1 + x)
void adj_log1p(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = div(gr, g, add(gr, num(gr, 1), in(gr, y, 0)));
}
// d expm1(x) = (expm1(x) + 1) dx
void adj_expm1(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = mul(gr, g, add(gr, y, num(gr, 1)));
}
// d sqrt(x) = dx / (2 sqrt(x))
void adj_sqrt(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = div(gr, mul(gr, num(gr, 0.5), g), y);
}
// d x^2 = 2x dx
void adj_square(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = mul(gr, g, mul(gr, num(gr, 2), in(gr, y, 0)));
}
// d logit^-1(x) = y (1 - y) dx
void adj_inv_logit(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = mul(gr, g, mul(gr, y, sub(gr, num(gr, 1), y)));
}
// d log logit^-1(x) = (1 - logit^-1(x)) dx = logit^-1(-x) dx
void adj_log_inv_logit(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = mul(gr, g, gr.apply(Op::InvLogit, neg(gr, in(gr, y, 0))));
}
// d log(1 + e^x) = logit^-1(x) dx
void adj_log1p_exp(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = mul(gr, g, gr.apply(Op::InvLogit, in(gr, y, 0)));
}
void adj_lgamma(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = mul(gr, g, gr.apply(Op::Digamma, in(gr, y, 0)));
}
void adj_digamma(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = mul(gr, g, gr.apply(Op::Trigamma, in(gr, y, 0)));
}
// to_real is the identity on reals (integer data is never a variable, so nothing flows there)
void adj_to_real(Graph&, NodeId, NodeId g, C& c) {
    c[0] = g;
}
void adj_add(Graph&, NodeId, NodeId g, C& c) {
    c[0] = g;
    c[1] = g;
}
void adj_sub(Graph& gr, NodeId, NodeId g, C& c) {
    c[0] = g;
    c[1] = neg(gr, g);
}
void adj_mul(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = mul(gr, g, in(gr, y, 1));
    c[1] = mul(gr, g, in(gr, y, 0));
}
// y = a / b: dy = da / b - y db / b
void adj_div(Graph& gr, NodeId y, NodeId g, C& c) {
    const NodeId b = in(gr, y, 1);
    c[0] = div(gr, g, b);
    c[1] = neg(gr, div(gr, mul(gr, g, y), b));
}
// y = a^b: dy = b a^(b-1) da + y log(a) db
void adj_pow(Graph& gr, NodeId y, NodeId g, C& c) {
    const NodeId a = in(gr, y, 0);
    const NodeId b = in(gr, y, 1);
    if (!gr.is_variable(b) && !gr.is_variable(a))
        return;
    c[0] = mul(gr, g, mul(gr, b, gr.apply(Op::Pow, a, sub(gr, b, num(gr, 1)))));
    if (gr.is_variable(b))
        c[1] = mul(gr, g, mul(gr, y, gr.apply(Op::Log, a)));
}
// y = sum(x): dx = g broadcast to x's shape
void adj_sum(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = gr.broadcast(g, gr[in(gr, y, 0)].shape);
}
void adj_broadcast(Graph& gr, NodeId, NodeId g, C& c) {
    c[0] = gr.apply(Op::Sum, g);
}
void adj_dot(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = mul(gr, g, in(gr, y, 1));
    c[1] = mul(gr, g, in(gr, y, 0));
}
// y = A x: dA = g x', dx = A' g
void adj_matvec(Graph& gr, NodeId y, NodeId g, C& c) {
    const NodeId A = in(gr, y, 0);
    const NodeId x = in(gr, y, 1);
    if (gr.is_variable(A))
        c[0] = gr.apply(Op::Outer, g, x);
    c[1] = gr.apply(Op::MatTVec, A, g);
}
// y = A' v: dA = v g', dv = A g
void adj_mattvec(Graph& gr, NodeId y, NodeId g, C& c) {
    const NodeId A = in(gr, y, 0);
    const NodeId v = in(gr, y, 1);
    if (gr.is_variable(A))
        c[0] = gr.apply(Op::Outer, v, g);
    c[1] = gr.apply(Op::MatVec, A, g);
}
// Y = u v': du = G v, dv = G' u
void adj_outer(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = gr.apply(Op::MatVec, g, in(gr, y, 1));
    c[1] = gr.apply(Op::MatTVec, g, in(gr, y, 0));
}
// y = v[idx]: dv = scatter-add of g at idx
void adj_gather(Graph& gr, NodeId y, NodeId g, C& c) {
    Node n;
    n.op = Op::ScatterAdd;
    n.shape = gr[in(gr, y, 0)].shape;
    n.in = {g, in(gr, y, 1), kNoNode};
    c[0] = gr.intern(n);
}
void adj_scatter_add(Graph& gr, NodeId y, NodeId g, C& c) {
    c[0] = gr.apply(Op::Gather, g, in(gr, y, 1));
}

template <class F>
double fold(double a, double b) {
    return F::f(a, b);
}

// ---------------------------------------------------------------- compiler columns

// Aliases: a reshape is its input's values; a block is a contiguous run of them when it takes
// whole columns or a run within one column.
std::int64_t whole_input(const Graph&, const Node&) {
    return 0;
}
std::int64_t contiguous_block(const Graph& g, const Node& n) {
    const Shape& in = g[n.in[0]].shape;
    if (n.shape.rows == in.rows || n.shape.cols == 1)
        return n.index + n.aux * static_cast<std::int64_t>(in.rows);
    return -1;
}

// Loop forms: a loop reads a gather's or scatter-add's indices block by block, so they must be
// data (known before the run) and the result a vector; an embed fills a block by index only
// when it places its input as one contiguous run; a sum over one value needs no loop; A' r
// accumulated by row blocks reads r at the block's offset, so r must not be A.
bool vector_at_data_indices(const Graph& g, const Node& n) {
    return g[n.in[1]].op == Op::Data && n.shape.cols == 1;
}
bool contiguous_embed(const Graph& g, const Node& n) {
    const Shape& in = g[n.in[0]].shape;
    return in.rows == n.shape.rows || (in.cols == 1 && n.shape.cols == 1);
}
bool sum_of_many(const Graph& g, const Node& n) {
    return g[n.in[0]].shape.size() >= 2;
}
bool distinct_inputs(const Graph&, const Node& n) {
    return n.in[0] != n.in[1];
}

// clang-format off
constexpr OpInfo kOps[] = {
    // op               name             ar elem   shape               kernel                     adjoint             fold                 domain
    // and, where an op has them: scratch, alias, loop form, loop fits, thread split (op.hpp)
    {Op::Const,       "const",          0, false, leaf_shape,        const_kernel,              nullptr,            nullptr,             Domain::None},
    {Op::Data,        "data",           0, false, leaf_shape,        nullptr,                   nullptr,            nullptr,             Domain::None},
    {Op::Param,       "param",          0, false, leaf_shape,        nullptr,                   nullptr,            nullptr,             Domain::None},
    {Op::Zeta,        "zeta",           0, false, leaf_shape,        nullptr,                   nullptr,            nullptr,             Domain::None},
    {Op::Neg,         "neg",            1, true,  unary_shape,       unary_kernel<NegF>,        adj_neg,            fold<NegF>,          Domain::Real},
    {Op::Exp,         "exp",            1, true,  unary_shape,       exp_kernel,                adj_exp,            fold<ExpF>,          Domain::Real},
    {Op::Log,         "log",            1, true,  unary_shape,       log_kernel,                adj_log,            fold<LogF>,          Domain::Positive},
    {Op::Log1p,       "log1p",          1, true,  unary_shape,       unary_kernel<Log1pF>,      adj_log1p,          fold<Log1pF>,        Domain::Positive},
    {Op::Expm1,       "expm1",          1, true,  unary_shape,       unary_kernel<Expm1F>,      adj_expm1,          fold<Expm1F>,        Domain::Real},
    {Op::Sqrt,        "sqrt",           1, true,  unary_shape,       sqrt_kernel,               adj_sqrt,           fold<SqrtF>,         Domain::Positive},
    {Op::Square,      "square",         1, true,  unary_shape,       unary_kernel<SquareF>,     adj_square,         fold<SquareF>,       Domain::Real},
    {Op::InvLogit,    "inv_logit",      1, true,  unary_shape,       unary_kernel<InvLogitF>,   adj_inv_logit,      fold<InvLogitF>,     Domain::Real},
    {Op::LogInvLogit, "log_inv_logit",  1, true,  unary_shape,       unary_kernel<LogInvLogitF>,adj_log_inv_logit,  fold<LogInvLogitF>,  Domain::Real},
    {Op::Log1pExp,    "log1p_exp",      1, true,  unary_shape,       unary_kernel<Log1pExpF>,   adj_log1p_exp,      fold<Log1pExpF>,     Domain::Real},
    {Op::Lgamma,      "lgamma",         1, true,  unary_shape,       unary_kernel<LgammaF>,     adj_lgamma,         fold<LgammaF>,       Domain::Positive},
    {Op::Digamma,     "digamma",        1, true,  unary_shape,       unary_kernel<DigammaF>,    adj_digamma,        fold<DigammaF>,      Domain::Positive},
    {Op::Trigamma,    "trigamma",       1, true,  unary_shape,       unary_kernel<TrigammaF>,   math::adj_trigamma,            fold<TrigammaF>,     Domain::Positive},
    {Op::ToReal,      "to_real",        1, true,  unary_shape,       to_real_kernel,            adj_to_real,         fold<ToRealF>,       Domain::None},
    {Op::Add,         "add",            2, true,  broadcast_shapes,  binary_kernel<AddF>,       adj_add,            fold<AddF>,          Domain::Real},
    {Op::Sub,         "sub",            2, true,  broadcast_shapes,  binary_kernel<SubF>,       adj_sub,            fold<SubF>,          Domain::Real},
    {Op::Mul,         "mul",            2, true,  broadcast_shapes,  binary_kernel<MulF>,       adj_mul,            fold<MulF>,          Domain::Real},
    {Op::Div,         "div",            2, true,  broadcast_shapes,  binary_kernel<DivF>,       adj_div,            fold<DivF>,          Domain::Positive},
    {Op::Pow,         "pow",            2, true,  broadcast_shapes,  binary_kernel<PowF>,       adj_pow,            fold<PowF>,          Domain::Positive},
    // scalar functions: functors and adjoints in ops_math.cpp. cbrt is tested on
    // positive points only: at the real points' 1e-7, its third derivative swamps the finite
    // difference; tests/graph/ops_math_test.cpp checks negative arguments.
    {Op::Step,        "step",           1, true,  unary_shape,       unary_kernel<math::StepF>, math::adj_step,     fold<math::StepF>,   Domain::Real},
    {Op::Fabs,        "fabs",           1, true,  unary_shape,       unary_kernel<math::FabsF>, math::adj_fabs,     fold<math::FabsF>,   Domain::Real},
    {Op::Sin,         "sin",            1, true,  unary_shape,       unary_kernel<math::SinF>,  math::adj_sin,      fold<math::SinF>,    Domain::Real},
    {Op::Cos,         "cos",            1, true,  unary_shape,       unary_kernel<math::CosF>,  math::adj_cos,      fold<math::CosF>,    Domain::Real},
    {Op::Tanh,        "tanh",           1, true,  unary_shape,       unary_kernel<math::TanhF>, math::adj_tanh,     fold<math::TanhF>,   Domain::Real},
    {Op::Cbrt,        "cbrt",           1, true,  unary_shape,       unary_kernel<math::CbrtF>, math::adj_cbrt,     fold<math::CbrtF>,   Domain::Positive},
    {Op::Erf,         "erf",            1, true,  unary_shape,       unary_kernel<math::ErfF>,  math::adj_erf,      fold<math::ErfF>,    Domain::Real},
    {Op::Erfc,        "erfc",           1, true,  unary_shape,       unary_kernel<math::ErfcF>, math::adj_erfc,     fold<math::ErfcF>,   Domain::Real},
    {Op::Phi,         "Phi",            1, true,  unary_shape,       unary_kernel<math::PhiF>,  math::adj_phi,      fold<math::PhiF>,    Domain::Real},
    {Op::LogPhi,      "log_Phi",        1, true,  unary_shape,       unary_kernel<math::LogPhiF>, math::adj_log_phi, fold<math::LogPhiF>, Domain::Real},
    {Op::Log1mExp,    "log1m_exp",      1, true,  unary_shape,       unary_kernel<math::Log1mExpF>, math::adj_log1m_exp, fold<math::Log1mExpF>, Domain::Negative},
    {Op::LogBesselI0, "log_bessel_i0",  1, true,  unary_shape,       unary_kernel<math::LogBesselI0F>, math::adj_log_bessel_i0, fold<math::LogBesselI0F>, Domain::Positive},
    {Op::BesselI1OverI0, "bessel_i1_over_i0", 1, true, unary_shape, unary_kernel<math::BesselI1OverI0F>, math::adj_bessel_i1_over_i0, fold<math::BesselI1OverI0F>, Domain::Positive},
    // tan, asin, acos and atanh are tested on (0.1, 0.9) (tan: away from its poles), floor,
    // ceil, round and trunc there too (away from their jumps: Unit's points avoid 0.5).
    {Op::Tan, "tan", 1, true, unary_shape, unary_kernel<math::TanF>, math::adj_tan, fold<math::TanF>, Domain::Unit},
    {Op::Asin, "asin", 1, true, unary_shape, unary_kernel<math::AsinF>, math::adj_asin, fold<math::AsinF>, Domain::Unit},
    {Op::Acos, "acos", 1, true, unary_shape, unary_kernel<math::AcosF>, math::adj_acos, fold<math::AcosF>, Domain::Unit},
    {Op::Atan, "atan", 1, true, unary_shape, unary_kernel<math::AtanF>, math::adj_atan, fold<math::AtanF>, Domain::Real},
    {Op::Sinh, "sinh", 1, true, unary_shape, unary_kernel<math::SinhF>, math::adj_sinh, fold<math::SinhF>, Domain::Real},
    {Op::Cosh, "cosh", 1, true, unary_shape, unary_kernel<math::CoshF>, math::adj_cosh, fold<math::CoshF>, Domain::Real},
    {Op::Asinh, "asinh", 1, true, unary_shape, unary_kernel<math::AsinhF>, math::adj_asinh, fold<math::AsinhF>, Domain::Real},
    {Op::Atanh, "atanh", 1, true, unary_shape, unary_kernel<math::AtanhF>, math::adj_atanh, fold<math::AtanhF>, Domain::Unit},
    {Op::Tgamma, "tgamma", 1, true, unary_shape, unary_kernel<math::TgammaF>, math::adj_tgamma, fold<math::TgammaF>, Domain::Positive},
    {Op::Floor, "floor", 1, true, unary_shape, unary_kernel<math::FloorF>, math::adj_floor, fold<math::FloorF>, Domain::Unit},
    {Op::Ceil, "ceil", 1, true, unary_shape, unary_kernel<math::CeilF>, math::adj_ceil, fold<math::CeilF>, Domain::Unit},
    {Op::Round, "round", 1, true, unary_shape, unary_kernel<math::RoundF>, math::adj_round, fold<math::RoundF>, Domain::Unit},
    {Op::Trunc, "trunc", 1, true, unary_shape, unary_kernel<math::TruncF>, math::adj_trunc, fold<math::TruncF>, Domain::Unit},
    {Op::LambertW0, "lambert_w0", 1, true, unary_shape, unary_kernel<math::LambertW0F>, math::adj_lambert_w0, fold<math::LambertW0F>, Domain::Positive},
    // x in [-1/e, 0): sampled in tests/graph/second_order_test.cpp
    {Op::LambertWm1, "lambert_wm1", 1, true, unary_shape, unary_kernel<math::LambertWm1F>, math::adj_lambert_w0, fold<math::LambertWm1F>, Domain::None},
    {Op::InvErfc, "inv_erfc", 1, true, unary_shape, unary_kernel<math::InvErfcF>, math::adj_inv_erfc, fold<math::InvErfcF>, Domain::Unit},
    {Op::Fmin,        "fmin",           2, true,  broadcast_shapes,  binary_kernel<math::FminF>, math::adj_fmin,    fold<math::FminF>,   Domain::Real},
    {Op::Fmax,        "fmax",           2, true,  broadcast_shapes,  binary_kernel<math::FmaxF>, math::adj_fmax,    fold<math::FmaxF>,   Domain::Real},
    {Op::Lmultiply,   "lmultiply",      2, true,  broadcast_shapes,  binary_kernel<math::LmultiplyF>, math::adj_lmultiply, fold<math::LmultiplyF>, Domain::Positive},
    // fmod has no test domain here: d/db = -trunc(a / b) jumps where a / b is a whole number, which
    // the Positive points' (60, 0.0011) puts within a step (tests/graph/second_order_test.cpp and
    // tests/dsl/cpp/math_test.cpp check it at safe points); atan2 and hypot on positive points: the Real points put (1e-7, 1.1e-7) where their curvature, 1 / r, defeats
    // the finite differences (tests/dsl/cpp/math_test.cpp checks it in every quadrant)
    {Op::Atan2, "atan2", 2, true, broadcast_shapes, binary_kernel<math::Atan2F>, math::adj_atan2, fold<math::Atan2F>, Domain::Positive},
    {Op::Hypot, "hypot", 2, true, broadcast_shapes, binary_kernel<math::HypotF>, math::adj_hypot, fold<math::HypotF>, Domain::Positive},
    {Op::Fmod, "fmod", 2, true, broadcast_shapes, binary_kernel<math::FmodF>, math::adj_fmod, fold<math::FmodF>, Domain::None},
    {Op::OwensT, "owens_t", 2, true, broadcast_shapes, binary_kernel<math::OwensTF>, math::adj_owens_t, fold<math::OwensTF>, Domain::Real},
    // the order n (input 0) a constant whole number; tested in tests/graph/second_order_test.cpp
    {Op::Polygamma,   "polygamma",      2, true,  broadcast_shapes,  binary_kernel<math::PolygammaF>, math::adj_polygamma, fold<math::PolygammaF>, Domain::None},
    // the order v (input 0) a constant whole number; tested in tests/graph/second_order_test.cpp
    {Op::BesselJ, "bessel_j", 2, true, broadcast_shapes, binary_kernel<math::BesselJF>, math::adj_bessel, fold<math::BesselJF>, Domain::None},
    {Op::BesselY, "bessel_y", 2, true, broadcast_shapes, binary_kernel<math::BesselYF>, math::adj_bessel, fold<math::BesselYF>, Domain::None},
    {Op::BesselI, "bessel_i", 2, true, broadcast_shapes, binary_kernel<math::BesselIF>, math::adj_bessel, fold<math::BesselIF>, Domain::None},
    {Op::BesselK, "bessel_k", 2, true, broadcast_shapes, binary_kernel<math::BesselKF>, math::adj_bessel, fold<math::BesselKF>, Domain::None},
    // log f(u | w) of the Wiener first passage, its gradient and Hessian entries (ops_wiener.hpp);
    // the unit points put u in the small-time series' range (tests/graph/wiener_test.cpp: both)
    {Op::WienerLogF,    "wiener_log_f",     2, true, broadcast_shapes, binary_kernel<wiener::LogFirstPassageF<0>>, wiener::adj_log_first_passage,    fold<wiener::LogFirstPassageF<0>>, Domain::Unit},
    {Op::WienerLogFDu,  "wiener_log_f_du",  2, true, broadcast_shapes, binary_kernel<wiener::LogFirstPassageF<1>>, wiener::adj_log_first_passage_du, fold<wiener::LogFirstPassageF<1>>, Domain::Unit},
    {Op::WienerLogFDw,  "wiener_log_f_dw",  2, true, broadcast_shapes, binary_kernel<wiener::LogFirstPassageF<2>>, wiener::adj_log_first_passage_dw, fold<wiener::LogFirstPassageF<2>>, Domain::Unit},
    {Op::WienerLogFDuu, "wiener_log_f_duu", 2, true, broadcast_shapes, binary_kernel<wiener::LogFirstPassageF<3>>, nullptr,                          fold<wiener::LogFirstPassageF<3>>, Domain::Unit},
    {Op::WienerLogFDuw, "wiener_log_f_duw", 2, true, broadcast_shapes, binary_kernel<wiener::LogFirstPassageF<4>>, nullptr,                          fold<wiener::LogFirstPassageF<4>>, Domain::Unit},
    {Op::WienerLogFDww, "wiener_log_f_dww", 2, true, broadcast_shapes, binary_kernel<wiener::LogFirstPassageF<5>>, nullptr,                          fold<wiener::LogFirstPassageF<5>>, Domain::Unit},
    // log P, log Q (attribute aux: the tail) of (a, x), log I, log(1 - I) of (a, b, x), and the
    // components of their gradients (attribute index) and Hessians (ops_incomplete.hpp); sampled
    // in tests/graph/second_order_test.cpp, checked against Boost in incomplete_test.cpp
    {Op::WienerLogCdf,        "wiener_log_cdf",         3, false, component_ops::broadcast_shape, wiener::cdf_kernel,         wiener::adj_cdf, nullptr, Domain::None},
    {Op::WienerLogCdfHessian, "wiener_log_cdf_hessian", 3, false, component_ops::broadcast_shape, wiener::cdf_hessian_kernel, nullptr,         nullptr, Domain::None},
    {Op::WienerLogCdfSv,        "wiener_log_cdf_sv",         3, false, wiener::cdf_sv_shape, wiener::cdf_sv_kernel,         wiener::adj_cdf_sv, nullptr, Domain::None},
    {Op::WienerLogCdfSvHessian, "wiener_log_cdf_sv_hessian", 3, false, wiener::cdf_sv_shape, wiener::cdf_sv_hessian_kernel, nullptr,            nullptr, Domain::None},
    {Op::LogIncGamma,        "log_inc_gamma",         2, false, component_ops::broadcast_shape, incomplete::gamma_kernel,         incomplete::adj_gamma, nullptr, Domain::None},
    {Op::LogIncGammaHessian, "log_inc_gamma_hessian", 2, false, component_ops::broadcast_shape, incomplete::gamma_hessian_kernel, nullptr,               nullptr, Domain::None},
    {Op::LogIncBeta,         "log_inc_beta",          3, false, component_ops::broadcast_shape, incomplete::beta_kernel,          incomplete::adj_beta,  nullptr, Domain::None},
    {Op::LogIncBetaHessian,  "log_inc_beta_hessian",  3, false, component_ops::broadcast_shape, incomplete::beta_hessian_kernel,  nullptr,               nullptr, Domain::None},
    // log I_v(z), inv_inc_beta(a, b, p), Stan's von Mises CDF in log (aux: the tail), and their
    // gradients' and Hessians' components (ops_special.hpp; tests/graph/special_test.cpp)
    {Op::LogBesselI,            "log_bessel_i",              2, false, component_ops::broadcast_shape, special::bessel_kernel,               special::adj_bessel,       nullptr, Domain::None},
    {Op::LogBesselIHessian,     "log_bessel_i_hessian",      2, false, component_ops::broadcast_shape, special::bessel_hessian_kernel,       nullptr,                   nullptr, Domain::None},
    {Op::InvIncBeta,            "inv_inc_beta",              3, false, component_ops::broadcast_shape, special::inv_inc_beta_kernel,         special::adj_inv_inc_beta, nullptr, Domain::None},
    {Op::InvIncBetaHessian,     "inv_inc_beta_hessian",      3, false, component_ops::broadcast_shape, special::inv_inc_beta_hessian_kernel, nullptr,                   nullptr, Domain::None},
    {Op::VonMisesLogCdf,        "von_mises_log_cdf",         3, false, component_ops::broadcast_shape, special::von_mises_kernel,            special::adj_von_mises,    nullptr, Domain::None},
    {Op::VonMisesLogCdfHessian, "von_mises_log_cdf_hessian", 3, false, component_ops::broadcast_shape, special::von_mises_hessian_kernel,    nullptr,                   nullptr, Domain::None},
    {Op::HypergeometricPFq,     "hypergeometric_pfq",        3, false, special::pfq_shape,             special::pfq_kernel,                  special::adj_pfq,          nullptr, Domain::None},
    {Op::HypergeometricPFqGrad, "hypergeometric_pfq_grad",   3, false, special::pfq_grad_shape,        special::pfq_grad_kernel,             special::adj_pfq_grad,     nullptr, Domain::None},
    {Op::HypergeometricPFqHvp,  "hypergeometric_pfq_hvp",    3, false, special::pfq_hvp_shape,         special::pfq_hvp_kernel,              nullptr,                   nullptr, Domain::None},
    {Op::Sum,         "sum",            1, false, sum_shape,         sum_kernel,                adj_sum,            nullptr,             Domain::Real, nullptr, nullptr, LoopForm::Sum, sum_of_many},
    {Op::Broadcast,   "broadcast",      1, false, broadcast_shape,   broadcast_kernel,          adj_broadcast,      nullptr,             Domain::Real, nullptr, nullptr, LoopForm::Fill},
    {Op::Dot,         "dot",            2, false, dot_shape,         dot_kernel,                adj_dot,            nullptr,             Domain::Real},
    {Op::MatVec,      "matvec",         2, false, matvec_shape,      matvec_kernel,             adj_matvec,         nullptr,             Domain::Real, nullptr, nullptr, LoopForm::RowsMatVec, nullptr, ThreadSplit::InnerSum},
    {Op::MatTVec,     "mattvec",        2, false, mattvec_shape,     mattvec_kernel,            adj_mattvec,        nullptr,             Domain::Real, nullptr, nullptr, LoopForm::RowsTVec, distinct_inputs, ThreadSplit::OutRows},
    {Op::Outer,       "outer",          2, false, outer_shape,       outer_kernel,              adj_outer,          nullptr,             Domain::Real},
    {Op::Gather,      "gather",         2, false, gather_shape,      gather_kernel,             adj_gather,         nullptr,             Domain::Real, nullptr, nullptr, LoopForm::Gather, vector_at_data_indices},
    {Op::ScatterAdd,  "scatter_add",    2, false, scatter_add_shape, scatter_add_kernel,        adj_scatter_add,    nullptr,             Domain::Real, nullptr, nullptr, LoopForm::ScatterAdd, vector_at_data_indices},
    {Op::MatMul,           "matmul",                  2, false, linalg::matmul_shape,            linalg::matmul_kernel,                   linalg::adj_matmul,                  nullptr,             Domain::Real, nullptr, nullptr, LoopForm::None, nullptr, ThreadSplit::OutCols},
    {Op::MatTMul,          "mattmul",                 2, false, linalg::mattmul_shape,           linalg::mattmul_kernel,                  linalg::adj_mattmul,                 nullptr,             Domain::Real, nullptr, nullptr, LoopForm::None, nullptr, ThreadSplit::OutCols},
    {Op::MatMulT,          "matmult",                 2, false, linalg::matmult_shape,           linalg::matmult_kernel,                  linalg::adj_matmult,                 nullptr,             Domain::Real, nullptr, nullptr, LoopForm::None, nullptr, ThreadSplit::InnerSumT},
    {Op::Transpose,        "transpose",               1, false, linalg::transpose_shape,         linalg::transpose_kernel,                linalg::adj_transpose,               nullptr,             Domain::Real},
    {Op::DiagMatrix,       "diag_matrix",             1, false, linalg::diag_matrix_shape,       linalg::diag_matrix_kernel,              linalg::adj_diag_matrix,             nullptr,             Domain::Real},
    {Op::Diagonal,         "diagonal",                1, false, linalg::diagonal_shape,          linalg::diagonal_kernel,                 linalg::adj_diagonal,                nullptr,             Domain::Real},
    {Op::Tril,             "tril",                    1, false, linalg::same_matrix_shape,       linalg::tril_kernel,                     linalg::adj_tril,                    nullptr,             Domain::Real},
    {Op::Cholesky,         "cholesky_decompose",      1, false, linalg::square_shape,            linalg::cholesky_kernel,                 linalg::adj_cholesky,                nullptr,             Domain::None},
    {Op::CholeskyAdjoint,  "cholesky_adjoint",        2, false, linalg::cholesky_adjoint_shape,  linalg::cholesky_adjoint_kernel,         linalg::adj_cholesky_adjoint,        nullptr,             Domain::None},
    {Op::TriLowSolve,      "mdivide_left_tri_low",    2, false, linalg::tri_solve_shape,         linalg::tri_low_solve_kernel,            linalg::adj_tri_low_solve,           nullptr,             Domain::None},
    {Op::TriLowTSolve,     "mdivide_left_tri_low_t",  2, false, linalg::tri_solve_shape,         linalg::tri_low_t_solve_kernel,          linalg::adj_tri_low_t_solve,         nullptr,             Domain::None},
    {Op::LogDeterminant,   "log_determinant",         1, false, linalg::square_to_scalar_shape,  linalg::log_determinant_kernel,          linalg::adj_log_determinant,         nullptr,             Domain::None, linalg::square_scratch},
    {Op::Determinant,      "determinant",             1, false, linalg::square_to_scalar_shape,  linalg::determinant_kernel,              linalg::adj_determinant,             nullptr,             Domain::None, linalg::square_scratch},
    {Op::Inverse,          "inverse",                 1, false, linalg::square_shape,            linalg::inverse_kernel,                  linalg::adj_inverse,                 nullptr,             Domain::None, linalg::square_scratch},
    {Op::LogSumExp,        "log_sum_exp",             1, false, linalg::to_scalar_shape,         linalg::log_sum_exp_kernel,              linalg::adj_log_sum_exp,             nullptr,             Domain::Real},
    {Op::LogSumExpRows,    "log_sum_exp_rows",        1, false, linalg::row_reduce_shape,        linalg::log_sum_exp_rows_kernel,         linalg::adj_log_sum_exp_rows,        nullptr,             Domain::Real, linalg::rows_scratch},
    {Op::LogSumExpCols,    "log_sum_exp_cols",        1, false, linalg::col_reduce_shape,        linalg::log_sum_exp_cols_kernel,         linalg::adj_log_sum_exp_cols,        nullptr,             Domain::Real},
    // the row maxima where finite, else 0: log_sum_exp_rows(X) = m + log(row_sums(exp(X - m)))
    // for any m, so its adjoint is exactly zero (the DSL builds log_sum_exp_rows this way so
    // that the gradient reuses the forward pass's exponentials)
    {Op::LseShiftRows,     "lse_shift_rows",          1, false, linalg::row_reduce_shape,        linalg::lse_shift_rows_kernel,           linalg::adj_none,                    nullptr,             Domain::None},
    {Op::CumulativeSum,    "cumulative_sum",          1, false, linalg::vector_shape,            linalg::cumulative_sum_kernel,           linalg::adj_cumulative_sum,          nullptr,             Domain::Real},
    {Op::ReverseCumulativeSum, "reverse_cumulative_sum",  1, false, linalg::vector_shape,            linalg::reverse_cumulative_sum_kernel,   linalg::adj_reverse_cumulative_sum,  nullptr,             Domain::Real},
    {Op::Prod,             "prod",                    1, false, linalg::to_scalar_shape,         linalg::prod_kernel,                     linalg::adj_prod,                    nullptr,             Domain::Real},
    {Op::ProdOthers,       "prod_others",             1, false, linalg::same_shape,              linalg::prod_others_kernel,              linalg::adj_prod_others,             nullptr,             Domain::None},
    // x_bar of prod_others: the third derivative of prod, never differentiated (its rule would
    // be the fourth); see linalg::adj_prod_others
    {Op::ProdOthersVjp,    "prod_others_vjp",         2, false, linalg::prod_others_vjp_shape,   linalg::prod_others_vjp_kernel,          nullptr,                             nullptr,             Domain::None, linalg::input_scratch},
    {Op::Min,              "min",                     1, false, linalg::to_scalar_shape,         linalg::min_kernel,                      linalg::adj_min,                     nullptr,             Domain::None},
    {Op::Max,              "max",                     1, false, linalg::to_scalar_shape,         linalg::max_kernel,                      linalg::adj_max,                     nullptr,             Domain::None},
    {Op::Block,            "block",                   1, false, linalg::block_shape,             linalg::block_kernel,                    linalg::adj_block,                   nullptr,             Domain::Real, nullptr, contiguous_block},
    {Op::Embed,            "embed",                   1, false, linalg::embed_shape,             linalg::embed_kernel,                    linalg::adj_embed,                   nullptr,             Domain::Real, nullptr, nullptr, LoopForm::Embed, contiguous_embed},
    {Op::Reshape,          "reshape",                 1, false, linalg::reshape_shape,           linalg::reshape_kernel,                  linalg::adj_reshape,                 nullptr,             Domain::Real, nullptr, whole_input},
    {Op::AppendRow,        "append_row",              2, false, linalg::append_row_shape,        linalg::append_row_kernel,               linalg::adj_append_row,              nullptr,             Domain::Real},
    {Op::AppendCol,        "append_col",              2, false, linalg::append_col_shape,        linalg::append_col_kernel,               linalg::adj_append_col,              nullptr,             Domain::Real},
    {Op::RepCols,          "rep_cols",                1, false, linalg::rep_cols_shape,          linalg::rep_cols_kernel,                 linalg::adj_rep_cols,                nullptr,             Domain::Real, nullptr, nullptr, LoopForm::RepCols},
    {Op::RepRows,          "rep_rows",                1, false, linalg::rep_rows_shape,          linalg::rep_rows_kernel,                 linalg::adj_rep_rows,                nullptr,             Domain::Real, nullptr, nullptr, LoopForm::RepRows},
    {Op::RowSums,          "row_sums",                1, false, linalg::row_reduce_shape,        linalg::row_sums_kernel,                 linalg::adj_row_sums,                nullptr,             Domain::Real, nullptr, nullptr, LoopForm::RowSums},
    {Op::ColSums,          "col_sums",                1, false, linalg::col_reduce_shape,        linalg::col_sums_kernel,                 linalg::adj_col_sums,                nullptr,             Domain::Real, nullptr, nullptr, LoopForm::ColSums},
    {Op::GatherRows,       "gather_rows",             2, false, linalg::gather_rows_shape,       linalg::gather_rows_kernel,              linalg::adj_gather_rows,             nullptr,             Domain::Real},
    {Op::ScatterAddRows,   "scatter_add_rows",        2, false, linalg::scatter_add_rows_shape,  linalg::scatter_add_rows_kernel,         linalg::adj_scatter_add_rows,        nullptr,             Domain::Real},
    {Op::TileRows,         "tile_rows",               1, false, linalg::tile_rows_shape,         linalg::tile_rows_kernel,                linalg::adj_tile_rows,               nullptr,             Domain::Real, nullptr, nullptr, LoopForm::TileRows},
    {Op::TileSumRows,      "tile_sum_rows",           1, false, linalg::tile_sum_rows_shape,     linalg::tile_sum_rows_kernel,            linalg::adj_tile_sum_rows,           nullptr,             Domain::Real, nullptr, nullptr, LoopForm::TileSum},
    // fused constrain ops (ops_constrain.hpp: Op1 generates the rows' functions from each
    // kernel struct) and the vector constants they use. Each map f has four ops: f, its
    // vector-Jacobian product J' u, its Jacobian-vector product J h (from the adjoint of J' u
    // in u) and hvp = sum_o u_o Hess(f_o) h (from the adjoint of J' u in the point, and of J h).
    // hvp has no rule: it is f's third derivative, reached only by a third differentiation.
    {Op::ConstVector,                 "const_vector",                   0, false, const_vector_shape,                                  const_vector_kernel,                                    nullptr,                                            nullptr, Domain::None},
    {Op::SimplexConstrain,            "simplex_constrain",              1, false, fused::Op1<SimplexKernels>::shape,                   fused::Op1<SimplexKernels>::kernel,                     fused::Op1<SimplexKernels>::adjoint,                nullptr, Domain::None},
    {Op::SimplexConstrainVjp,         "simplex_constrain_vjp",          2, false, fused::Op1<SimplexKernels>::vjp_shape,               fused::Op1<SimplexKernels>::vjp_kernel,                 fused::Op1<SimplexKernels>::vjp_adjoint, nullptr, Domain::None},
    {Op::SimplexConstrainJvp, "simplex_constrain_jvp", 2, false, fused::Op1<SimplexKernels>::jvp_shape, fused::Op1<SimplexKernels>::jvp_kernel, fused::Op1<SimplexKernels>::jvp_adjoint, nullptr, Domain::None, fused::Op1<SimplexKernels>::jvp_scratch},
    {Op::SimplexConstrainHvp, "simplex_constrain_hvp", 3, false, fused::Op1<SimplexKernels>::hvp_shape, fused::Op1<SimplexKernels>::hvp_kernel, nullptr, nullptr, Domain::None, fused::Op1<SimplexKernels>::hvp_scratch},
    {Op::OrderedConstrain,            "ordered_constrain",              1, false, fused::Op1<OrderedKernels>::shape,                   fused::Op1<OrderedKernels>::kernel,                     fused::Op1<OrderedKernels>::adjoint,                nullptr, Domain::None},
    {Op::OrderedConstrainVjp,         "ordered_constrain_vjp",          2, false, fused::Op1<OrderedKernels>::vjp_shape,               fused::Op1<OrderedKernels>::vjp_kernel,                 fused::Op1<OrderedKernels>::vjp_adjoint, nullptr, Domain::None},
    {Op::OrderedConstrainJvp, "ordered_constrain_jvp", 2, false, fused::Op1<OrderedKernels>::jvp_shape, fused::Op1<OrderedKernels>::jvp_kernel, fused::Op1<OrderedKernels>::jvp_adjoint, nullptr, Domain::None, fused::Op1<OrderedKernels>::jvp_scratch},
    {Op::OrderedConstrainHvp, "ordered_constrain_hvp", 3, false, fused::Op1<OrderedKernels>::hvp_shape, fused::Op1<OrderedKernels>::hvp_kernel, nullptr, nullptr, Domain::None, fused::Op1<OrderedKernels>::hvp_scratch},
    {Op::PositiveOrderedConstrain,    "positive_ordered_constrain",     1, false, fused::Op1<PositiveOrderedKernels>::shape,           fused::Op1<PositiveOrderedKernels>::kernel,             fused::Op1<PositiveOrderedKernels>::adjoint,        nullptr, Domain::None},
    {Op::PositiveOrderedConstrainVjp, "positive_ordered_constrain_vjp", 2, false, fused::Op1<PositiveOrderedKernels>::vjp_shape,       fused::Op1<PositiveOrderedKernels>::vjp_kernel,         fused::Op1<PositiveOrderedKernels>::vjp_adjoint, nullptr, Domain::None},
    {Op::PositiveOrderedConstrainJvp, "positive_ordered_constrain_jvp", 2, false, fused::Op1<PositiveOrderedKernels>::jvp_shape, fused::Op1<PositiveOrderedKernels>::jvp_kernel, fused::Op1<PositiveOrderedKernels>::jvp_adjoint, nullptr, Domain::None, fused::Op1<PositiveOrderedKernels>::jvp_scratch},
    {Op::PositiveOrderedConstrainHvp, "positive_ordered_constrain_hvp", 3, false, fused::Op1<PositiveOrderedKernels>::hvp_shape, fused::Op1<PositiveOrderedKernels>::hvp_kernel, nullptr, nullptr, Domain::None, fused::Op1<PositiveOrderedKernels>::hvp_scratch},
    {Op::CholeskyCorrConstrain,       "cholesky_corr_constrain",        1, false, fused::Op1<CholeskyCorrKernels>::shape,              fused::Op1<CholeskyCorrKernels>::kernel,                fused::Op1<CholeskyCorrKernels>::adjoint,           nullptr, Domain::None},
    {Op::CholeskyCorrConstrainVjp,    "cholesky_corr_constrain_vjp",    2, false, fused::Op1<CholeskyCorrKernels>::vjp_shape,          fused::Op1<CholeskyCorrKernels>::vjp_kernel,            fused::Op1<CholeskyCorrKernels>::vjp_adjoint, nullptr, Domain::None},
    {Op::CholeskyCorrConstrainJvp, "cholesky_corr_constrain_jvp", 2, false, fused::Op1<CholeskyCorrKernels>::jvp_shape, fused::Op1<CholeskyCorrKernels>::jvp_kernel, fused::Op1<CholeskyCorrKernels>::jvp_adjoint, nullptr, Domain::None, fused::Op1<CholeskyCorrKernels>::jvp_scratch},
    {Op::CholeskyCorrConstrainHvp, "cholesky_corr_constrain_hvp", 3, false, fused::Op1<CholeskyCorrKernels>::hvp_shape, fused::Op1<CholeskyCorrKernels>::hvp_kernel, nullptr, nullptr, Domain::None, fused::Op1<CholeskyCorrKernels>::hvp_scratch},
    {Op::CholeskyCovConstrain,        "cholesky_cov_constrain",         1, false, fused::Op1<CholeskyCovKernels>::shape,               fused::Op1<CholeskyCovKernels>::kernel,                 fused::Op1<CholeskyCovKernels>::adjoint,            nullptr, Domain::None},
    {Op::CholeskyCovConstrainVjp,     "cholesky_cov_constrain_vjp",     2, false, fused::Op1<CholeskyCovKernels>::vjp_shape,           fused::Op1<CholeskyCovKernels>::vjp_kernel,             fused::Op1<CholeskyCovKernels>::vjp_adjoint, nullptr, Domain::None},
    {Op::CholeskyCovConstrainJvp, "cholesky_cov_constrain_jvp", 2, false, fused::Op1<CholeskyCovKernels>::jvp_shape, fused::Op1<CholeskyCovKernels>::jvp_kernel, fused::Op1<CholeskyCovKernels>::jvp_adjoint, nullptr, Domain::None, fused::Op1<CholeskyCovKernels>::jvp_scratch},
    {Op::CholeskyCovConstrainHvp, "cholesky_cov_constrain_hvp", 3, false, fused::Op1<CholeskyCovKernels>::hvp_shape, fused::Op1<CholeskyCovKernels>::hvp_kernel, nullptr, nullptr, Domain::None, fused::Op1<CholeskyCovKernels>::hvp_scratch},
    {Op::LowerTriSelfTranspose,       "lower_tri_self_transpose",       1, false, fused::Op1<LowerTriSelfTransposeKernels>::shape,     fused::Op1<LowerTriSelfTransposeKernels>::kernel,       fused::Op1<LowerTriSelfTransposeKernels>::adjoint,  nullptr, Domain::None},
    {Op::LowerTriSelfTransposeVjp,    "lower_tri_self_transpose_vjp",   2, false, fused::Op1<LowerTriSelfTransposeKernels>::vjp_shape, fused::Op1<LowerTriSelfTransposeKernels>::vjp_kernel,   fused::Op1<LowerTriSelfTransposeKernels>::vjp_adjoint, nullptr, Domain::None},
    {Op::LowerTriSelfTransposeJvp, "lower_tri_self_transpose_jvp", 2, false, fused::Op1<LowerTriSelfTransposeKernels>::jvp_shape, fused::Op1<LowerTriSelfTransposeKernels>::jvp_kernel, fused::Op1<LowerTriSelfTransposeKernels>::jvp_adjoint, nullptr, Domain::None, fused::Op1<LowerTriSelfTransposeKernels>::jvp_scratch},
    {Op::LowerTriSelfTransposeHvp, "lower_tri_self_transpose_hvp", 3, false, fused::Op1<LowerTriSelfTransposeKernels>::hvp_shape, fused::Op1<LowerTriSelfTransposeKernels>::hvp_kernel, nullptr, nullptr, Domain::None, fused::Op1<LowerTriSelfTransposeKernels>::hvp_scratch},
    {Op::GammaQuantile,               "gamma_quantile",                 3, false, random_ops::quantile_shape,                          random_ops::gamma_quantile_kernel,                      nullptr,                                            nullptr, Domain::None},
    {Op::BetaQuantile,                "beta_quantile",                  3, false, random_ops::quantile_shape,                          random_ops::beta_quantile_kernel,                       nullptr,                                            nullptr, Domain::None},
    {Op::StudentTQuantile,            "student_t_quantile",             2, false, random_ops::quantile_shape,                          random_ops::student_t_quantile_kernel,                  nullptr,                                            nullptr, Domain::None},
    {Op::VonMisesQuantile,            "von_mises_quantile",             3, false, random_ops::quantile_shape,                          special::von_mises_quantile_kernel,                     nullptr,                                            nullptr, Domain::None},
    {Op::PoissonQuantile,             "poisson_quantile",               2, false, random_ops::quantile_shape,                          random_ops::poisson_quantile_kernel,                    nullptr,                                            nullptr, Domain::None},
    {Op::BinomialQuantile,            "binomial_quantile",              3, false, random_ops::quantile_shape,                          random_ops::binomial_quantile_kernel,                   nullptr,                                            nullptr, Domain::None},
    {Op::NegBinomial2Quantile,        "neg_binomial_2_quantile",        3, false, random_ops::quantile_shape,                          random_ops::neg_binomial_2_quantile_kernel,             nullptr,                                            nullptr, Domain::None},
    {Op::LinearScan,                  "linear_scan",                    3, false, scan_ops::linear_scan_shape,                         scan_ops::linear_scan_kernel,                           scan_ops::adj_linear_scan,                          nullptr, Domain::None},
    {Op::LinearScanReverse,           "linear_scan_reverse",            2, false, scan_ops::linear_scan_reverse_shape,                 scan_ops::linear_scan_reverse_kernel,                   scan_ops::adj_linear_scan_reverse,                  nullptr, Domain::None},
    {Op::OdeSolve,                    "ode_solve",                      1, false, ode_ops::ode_solve_shape,                            ode_ops::ode_solve_kernel,                              ode_ops::adj_ode_solve,                             nullptr, Domain::None},
    {Op::OdeSolveVjp,                 "ode_solve_vjp",                  2, false, ode_ops::ode_solve_vjp_shape,                        ode_ops::ode_solve_vjp_kernel,                          nullptr,                                            nullptr, Domain::None},
    {Op::AlgebraSolve,                "algebra_solve",                  1, false, algebra_ops::algebra_solve_shape,                    algebra_ops::algebra_solve_kernel,                      algebra_ops::adj_algebra_solve,                     nullptr, Domain::None},
    {Op::AlgebraSolveVjp,             "algebra_solve_vjp",              2, false, algebra_ops::algebra_solve_vjp_shape,                algebra_ops::algebra_solve_vjp_kernel,                  nullptr,                                            nullptr, Domain::None},
    {Op::Integrate1d,                 "integrate_1d",                   3, false, integrate_ops::integrate_shape,                      integrate_ops::integrate_kernel,                        integrate_ops::adj_integrate,                       nullptr, Domain::None},
    {Op::Integrate1dGrad,             "integrate_1d_grad",              3, false, integrate_ops::integrate_grad_shape,                 integrate_ops::integrate_grad_kernel,                   nullptr,                                            nullptr, Domain::None},
    {Op::EigenvaluesSym,              "eigenvalues_sym",                1, false, eigen_ops::eigenvalues_sym_shape,                    eigen_ops::eigenvalues_sym_kernel,                      eigen_ops::adj_eigenvalues_sym,                     nullptr, Domain::None},
    {Op::EigenvectorsSym,             "eigenvectors_sym",               1, false, eigen_ops::eigenvectors_sym_shape,                   eigen_ops::eigenvectors_sym_kernel,                     eigen_ops::adj_eigenvectors_sym,                    nullptr, Domain::None},
    {Op::HmmMarginal,                 "hmm_marginal",                   3, false, hmm_ops::hmm_marginal_shape,                         hmm_ops::hmm_marginal_kernel,                           hmm_ops::adj_hmm_marginal,                          nullptr, Domain::None},
    {Op::HmmGrad,                     "hmm_grad",                       3, false, hmm_ops::hmm_grad_shape,                             hmm_ops::hmm_grad_kernel,                               nullptr,                                            nullptr, Domain::None},
    {Op::HmmLatent,                   "hmm_latent",                     3, false, hmm_ops::hmm_latent_shape,                           hmm_ops::hmm_latent_kernel,                             nullptr,                                            nullptr, Domain::None},
    {Op::MatrixExp,                   "matrix_exp",                     1, false, matrix_exp_ops::matrix_exp_shape,                    matrix_exp_ops::matrix_exp_kernel,                      matrix_exp_ops::adj_matrix_exp,                     nullptr, Domain::None},
    {Op::Loop,    "loop",     1, false, loop_ops::loop_shape,     loop_ops::loop_kernel,     loop_ops::adj_loop, nullptr, Domain::None},
    {Op::LoopVjp, "loop_vjp", 2, false, loop_ops::loop_vjp_shape, loop_ops::loop_vjp_kernel, nullptr,            nullptr, Domain::None},
    {Op::Select,                      "select",                         3, false, select_ops::select_shape,                            select_ops::select_kernel,                              select_ops::adj_select,                             nullptr, Domain::None},
    {Op::DynGather,  "dyn_gather",  3, false, dyn_index::gather_shape,  dyn_index::gather_kernel,  dyn_index::adj_gather,  nullptr, Domain::None},
    {Op::DynScatter, "dyn_scatter", 3, false, dyn_index::scatter_shape, dyn_index::scatter_kernel, dyn_index::adj_scatter, nullptr, Domain::None},
    // 0 or -inf, piecewise constant in its inputs: derivative 0 wherever it is finite
    {Op::CheckConstraint,             "check_constraint",               3, false, check_ops::check_constraint_shape,                   check_ops::check_constraint_kernel,                     linalg::adj_none,                                   nullptr, Domain::None, check_ops::check_constraint_scratch},
    // the order is piecewise constant in the key: arg_sort's derivative is 0 wherever it exists
    {Op::SortGather,  "sort_gather",  2, false, sort_ops::permute_shape,  sort_ops::gather_kernel,   sort_ops::adj_gather,  nullptr, Domain::None},
    {Op::SortScatter, "sort_scatter", 2, false, sort_ops::permute_shape,  sort_ops::scatter_kernel,  sort_ops::adj_scatter, nullptr, Domain::None},
    {Op::ArgSort,     "arg_sort",     1, false, sort_ops::arg_sort_shape, sort_ops::arg_sort_kernel, linalg::adj_none,      nullptr, Domain::None},
};
// clang-format on

static_assert(std::size(kOps) == kOpCount, "one row per op");

constexpr bool rows_in_order() {
    for (int k = 0; k < kOpCount; ++k) {
        if (static_cast<int>(kOps[k].op) != k)
            return false;
    }
    return true;
}
static_assert(rows_in_order(), "op table rows must follow the Op enumeration");

// The ops with inputs but no adjoint rule, and why (tests/graph/second_order_test.cpp walks the
// table: every op an adjoint rule emits has a rule or a line here). Ops with a rule are twice
// differentiable wherever their rule's ops are; where that is only almost everywhere (step,
// fabs, fmin, fmax, min, max: the kink or tie has measure zero) the rule says so.
struct NoDerivative {
    Op op;
    std::string_view reason;
};
constexpr std::string_view kRandomDraw =
    "a quantile of a uniform draw, used only in generated quantities, which are not "
    "differentiated; its derivative in the shape parameters has no closed form";
constexpr std::string_view kThirdOrder =
    "a third derivative (the adjoint of a second-order rule), which a Hessian-vector product, "
    "the second differentiation, never differentiates";
constexpr std::string_view kOdeSecondOrder =
    "second-order sensitivities of an ODE solution, which advi does not integrate: methods that "
    "need Hessian-vector products (laplace, optimize's Newton steps, the start from the mode) "
    "refuse or skip a model with an ODE solve";
constexpr std::string_view kAlgebraSecondOrder =
    "second derivatives of an algebraic system's root, which advi does not build: methods that "
    "need Hessian-vector products (laplace, optimize's Newton steps, the start from the mode) "
    "refuse or skip a model with an algebraic solve";
constexpr std::string_view kIntegralSecondOrder =
    "second derivatives of a definite integral, which advi does not build: methods that need "
    "Hessian-vector products (laplace, optimize's Newton steps, the start from the mode) refuse "
    "or skip a model with integrate_1d";
constexpr std::string_view kLoopSecondOrder =
    "second-order adjoints of a loop op's body, which advi does not build yet: methods that need "
    "Hessian-vector products (laplace, optimize's Newton steps, the start from the mode) refuse "
    "or skip a model with a loop op";
constexpr std::string_view kHmmSecondOrder =
    "second derivatives of a hidden Markov model's marginal density (the forward-backward "
    "pass's own derivatives), which advi does not build: methods that need Hessian-vector "
    "products (laplace, optimize's Newton steps, the start from the mode) refuse or skip a model "
    "with hmm_marginal, and hmm_hidden_state_prob of parameters has no gradient";
constexpr std::string_view kHmmDraw =
    "a hidden path drawn from a uniform per step, used only in generated quantities and "
    "transformed data, which are not differentiated";
constexpr NoDerivative kNoDerivative[] = {
    {Op::OdeSolveVjp,                 kOdeSecondOrder     },
    {Op::AlgebraSolveVjp,             kAlgebraSecondOrder },
    {Op::Integrate1dGrad,             kIntegralSecondOrder},
    {Op::LoopVjp,                     kLoopSecondOrder    },
    {Op::HmmGrad,                     kHmmSecondOrder     },
    {Op::HmmLatent,                   kHmmDraw            },
    {Op::GammaQuantile,               kRandomDraw         },
    {Op::BetaQuantile,                kRandomDraw         },
    {Op::StudentTQuantile,            kRandomDraw         },
    {Op::VonMisesQuantile,            kRandomDraw         },
    {Op::PoissonQuantile,             kRandomDraw         },
    {Op::BinomialQuantile,            kRandomDraw         },
    {Op::NegBinomial2Quantile,        kRandomDraw         },
    {Op::ProdOthersVjp,               kThirdOrder         },
    {Op::WienerLogFDuu,               kThirdOrder         },
    {Op::WienerLogFDuw,               kThirdOrder         },
    {Op::WienerLogFDww,               kThirdOrder         },
    {Op::WienerLogCdfHessian,         kThirdOrder         },
    {Op::WienerLogCdfSvHessian,       kThirdOrder         },
    {Op::LogIncGammaHessian,          kThirdOrder         },
    {Op::LogIncBetaHessian,           kThirdOrder         },
    {Op::LogBesselIHessian,           kThirdOrder         },
    {Op::InvIncBetaHessian,           kThirdOrder         },
    {Op::VonMisesLogCdfHessian,       kThirdOrder         },
    {Op::HypergeometricPFqHvp,        kThirdOrder         },
    {Op::SimplexConstrainHvp,         kThirdOrder         },
    {Op::OrderedConstrainHvp,         kThirdOrder         },
    {Op::PositiveOrderedConstrainHvp, kThirdOrder         },
    {Op::CholeskyCorrConstrainHvp,    kThirdOrder         },
    {Op::CholeskyCovConstrainHvp,     kThirdOrder         },
    {Op::LowerTriSelfTransposeHvp,    kThirdOrder         },
};

}  // namespace

std::string_view no_derivative_reason(Op op) {
    for (const NoDerivative& n : kNoDerivative) {
        if (n.op == op)
            return n.reason;
    }
    return {};
}

const OpInfo& op_info(Op op) {
    return kOps[static_cast<int>(op)];
}
std::string_view op_name(Op op) {
    return op_info(op).name;
}
LoopForm loop_form(Op op) {
    const OpInfo& info = op_info(op);
    return info.elementwise ? LoopForm::Elementwise : info.loop;
}

}  // namespace advi
