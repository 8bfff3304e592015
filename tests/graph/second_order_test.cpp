// The adjoint rules that make every op twice differentiable (issue 18): the ops that adjoint
// rules emit (trigamma, polygamma, to_real, prod_others, min, max, linear_scan_reverse, the
// fused transforms' vector-Jacobian products, cholesky_adjoint) against finite differences of
// sum(w .* op(x)) at several points, and a walk of the op table: every op that any adjoint
// rule emits has a rule itself, or is listed here as not differentiable, with the reason.
#include <cmath>
#include <limits>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/graph/const_vector.hpp>
#include <advi/graph/constraint_check.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_algebra.hpp>
#include <advi/graph/ops_constrain.hpp>
#include <advi/graph/ops_dynamic_index.hpp>
#include <advi/graph/ops_eigen.hpp>
#include <advi/graph/ops_incomplete.hpp>
#include <advi/graph/ops_integrate.hpp>
#include <advi/graph/ops_linalg.hpp>
#include <advi/graph/ops_loop.hpp>
#include <advi/graph/ops_ode.hpp>
#include <advi/graph/ops_sort.hpp>
#include <advi/graph/ops_special.hpp>
#include <advi/graph/ops_wiener_cdf.hpp>

#include "support/graph_case.hpp"

namespace advi {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using test::Case;
using test::check_close;
using test::check_grad;
using test::eval;
using test::fill;

// The gradient of lp over zeta, by the compiled gradient program.
VectorXd gradient(const Graph& g, const std::vector<DataSlot>& data, const VectorXd& z) {
    Program p = test::gradient_program(g, data, static_cast<int>(z.size()));
    VectorXd grad(z.size());
    p.run(z, grad);
    return grad;
}

// The shapes each fused map is sampled at: an input and an output (row-wise ones also as
// a matrix of rows).
template <class M>
std::vector<std::pair<Shape, Shape>> fused_shapes() {
    if constexpr (std::is_same_v<M, SimplexKernels>)
        return {
            {Shape::vector(3), Shape::vector(4)},
            { Shape::matrix(2, 3),               Shape::matrix(2, 4)}
        };
    if constexpr (std::is_same_v<M, OrderedKernels> || std::is_same_v<M, PositiveOrderedKernels>)
        return {
            {Shape::vector(4), Shape::vector(4)},
            { Shape::matrix(2, 3),               Shape::matrix(2, 3)}
        };
    if constexpr (std::is_same_v<M, CholeskyCorrKernels>)
        return {
            {Shape::vector(3), Shape::matrix(3, 3)},
            {Shape::vector(6), Shape::matrix(4, 4)}
        };
    if constexpr (std::is_same_v<M, CholeskyCovKernels>)
        return {
            {Shape::vector(5), Shape::matrix(3, 2)},
            {Shape::vector(3), Shape::matrix(2, 2)}
        };
    return {
        {Shape::matrix(3, 3), Shape::matrix(3, 3)}
    };
}

// Irregular values of a shape, all within (-1.3, 1.3): where every transform is smooth and
// well conditioned.
VectorXd values(Shape s, double seed) {
    return fill(s.size(), seed) * 1.3;
}

// One of the fused map's four ops (0 constrain, 1 vjp, 2 jvp; 3 hvp) on zeta inputs.
template <class M>
NodeId fused_op(Case& c, int which, std::pair<Shape, Shape> io, double seed) {
    const auto [in, out] = io;
    const NodeId x = c.input(values(in, seed).data(), in);
    if (which == 0)
        return fused::Op1<M>::build(c.g, x, out);
    if (which == 1)
        return c.g.apply(M::vjp_op, x, c.input(values(out, seed + 1).data(), out));
    const NodeId h = c.input(values(in, seed + 2).data(), in);
    if (which == 2)
        return fused::Op1<M>::build_jvp(c.g, x, h, out);
    return c.g.apply(M::hvp_op, x, c.input(values(out, seed + 1).data(), out), h);
}

// Positive-definite S = A A' + n I of a free A.
NodeId spd(Case& c, double seed) {
    const NodeId A = c.mat(fill(3, 3, seed));
    const NodeId I = c.g.apply(Op::DiagMatrix, c.g.constant(1.0, Shape::vector(3)));
    return c.g.apply(Op::Add, c.g.apply(Op::MatMulT, A, A), c.g.apply(Op::Mul, c.g.constant(3), I));
}
// A lower-triangular factor with a comfortable diagonal and garbage above (never read).
MatrixXd lower_factor(double seed) {
    MatrixXd L = fill(3, 3, seed);
    for (int i = 0; i < 3; ++i) L(i, i) = 1.2 + 0.3 * i;
    L(0, 1) = 7;
    L(0, 2) = -5;
    L(1, 2) = 3;
    return L;
}

// y' = A(p) y with y = (u, v): u' = -p0 u + p1 v, v' = p0 u - p1 v (a linear two-state system,
// written by hand: the graph room's tests do not compile right-hand sides).
class LinearRhs final : public OdeRhs {
public:
    [[nodiscard]] int states() const override { return 2; }
    [[nodiscard]] int parameters() const override { return 2; }
    [[nodiscard]] std::shared_ptr<OdeRhsInstance> instance() const override {
        struct Instance final : OdeRhsInstance {
            void value(double, const double* y, const double* p, double* d) override {
                d[0] = -p[0] * y[0] + p[1] * y[1];
                d[1] = p[0] * y[0] - p[1] * y[1];
            }
            void jacobian(double t, const double* y, const double* p, double* d,
                          double* j) override {
                value(t, y, p, d);
                // rows of [df/du, df/dv, df/dp0, df/dp1]
                const double rows[2][4] = {
                    {-p[0], p[1],  -y[0], y[1] },
                    {p[0],  -p[1], y[0],  -y[1]}
                };
                for (int r = 0; r < 2; ++r)
                    for (int k = 0; k < 4; ++k) j[r * 4 + k] = rows[r][k];
            }
        };
        return std::make_shared<Instance>();
    }
};

std::int64_t linear_system() {
    static const std::int64_t id = [] {
        OdeSystem s;
        s.rhs = std::make_shared<LinearRhs>();
        s.times = {0.5, 1.0, 2.0};
        s.relative_tolerance = 1e-11;
        s.absolute_tolerance = 1e-11;
        s.name = "linear";
        return register_ode_system(std::move(s));
    }();
    return id;
}

// f(x, p) = (x0^2 - p0, x1 - x0 p1), whose root from a positive guess is (sqrt(p0), sqrt(p0) p1)
// (written by hand, as LinearRhs).
class RootSystem final : public OdeRhs {
public:
    [[nodiscard]] int states() const override { return 2; }
    [[nodiscard]] int parameters() const override { return 2; }
    [[nodiscard]] std::shared_ptr<OdeRhsInstance> instance() const override {
        struct Instance final : OdeRhsInstance {
            void value(double, const double* x, const double* p, double* f) override {
                f[0] = x[0] * x[0] - p[0];
                f[1] = x[1] - x[0] * p[1];
            }
            void jacobian(double t, const double* x, const double* p, double* f,
                          double* j) override {
                value(t, x, p, f);
                const double rows[2][4] = {
                    {2 * x[0], 0, -1, 0    },
                    {-p[1],    1, 0,  -x[0]}
                };
                for (int r = 0; r < 2; ++r)
                    for (int k = 0; k < 4; ++k) j[r * 4 + k] = rows[r][k];
            }
        };
        return std::make_shared<Instance>();
    }
};

// f(x, xc, p) = p1 exp(-p0 x^2) (written by hand, as LinearRhs).
class GaussianIntegrand final : public OdeRhs {
public:
    [[nodiscard]] int states() const override { return 1; }
    [[nodiscard]] int parameters() const override { return 2; }
    [[nodiscard]] std::shared_ptr<OdeRhsInstance> instance() const override {
        struct Instance final : OdeRhsInstance {
            void value(double x, const double*, const double* p, double* f) override {
                f[0] = p[1] * std::exp(-p[0] * x * x);
            }
            void jacobian(double x, const double* xc, const double* p, double* f,
                          double* j) override {
                value(x, xc, p, f);
                j[0] = 0;
                j[1] = -p[1] * x * x * std::exp(-p[0] * x * x);
                j[2] = std::exp(-p[0] * x * x);
            }
        };
        return std::make_shared<Instance>();
    }
};

std::int64_t gaussian_integral() {
    static const std::int64_t id = [] {
        IntegralSystem s;
        s.f = std::make_shared<GaussianIntegrand>();
        s.relative_tolerance = 1e-10;
        s.name = "gaussian";
        return register_integral(std::move(s));
    }();
    return id;
}

std::int64_t root_system() {
    static const std::int64_t id = [] {
        AlgebraSystem s;
        s.f = std::make_shared<RootSystem>();
        s.name = "roots";
        return register_algebra_system(std::move(s));
    }();
    return id;
}

// s_t = (p s0 + sin(s1), s1 cos(p t / 10)) over t = 1..4, z = [s0; s1; p] (a loop body written
// by hand, as LinearRhs above).
class NonlinearBody final : public LoopBody {
public:
    [[nodiscard]] int states() const override { return 2; }
    [[nodiscard]] int parameters() const override { return 1; }
    [[nodiscard]] std::shared_ptr<LoopBodyInstance> instance() const override {
        struct Instance final : LoopBodyInstance {
            void value(double t, const double* s, const double* p, const double*,
                       double* n) override {
                n[0] = p[0] * s[0] + std::sin(s[1]);
                n[1] = s[1] * std::cos(0.1 * p[0] * t);
            }
            void vjp(double t, const double* s, const double* p, const double*, const double* g,
                     double* gs, double* gp, double*) override {
                const double c = std::cos(0.1 * p[0] * t);
                gs[0] = g[0] * p[0];
                gs[1] = g[0] * std::cos(s[1]) + g[1] * c;
                gp[0] += g[0] * s[0] - g[1] * s[1] * std::sin(0.1 * p[0] * t) * 0.1 * t;
            }
        };
        return std::make_shared<Instance>();
    }
};

std::int64_t nonlinear_loop() {
    static const std::int64_t id =
        register_loop_system({std::make_shared<NonlinearBody>(), 1, 4, "nonlinear"});
    return id;
}

// A node of op `op` on zeta inputs at smooth points of its domain, or kNoNode for the leaves
// (and the ops without a rule, which no sample needs). Every op with a rule has one: the walk
// below asserts it, so that a new op must come with one.
NodeId sample(Case& c, Op op, double seed) {
    const OpInfo& info = op_info(op);
    auto in_domain = [&](Domain d, int n, double sd) -> VectorXd {
        const VectorXd v = fill(n, sd);
        switch (d) {
            case Domain::Positive: return v.array().abs() * 2 + 0.3;
            case Domain::Unit: return v.array().abs() * 0.8 + 0.1;
            case Domain::Negative: return -(v.array().abs() * 2 + 0.3);
            default: return v * 2;
        }
    };
    Eigen::VectorXi idx(5);
    idx << 2, 0, 2, 3, 1;
    if (info.elementwise && info.domain != Domain::None) {
        const NodeId a = c.vec(in_domain(info.domain, 3, seed));
        if (info.arity == 1)
            return c.g.apply(op, a);
        return c.g.apply(op, a, c.vec(in_domain(info.domain, 3, seed + 0.7)));
    }
    auto mat = [&](int r, int k) { return c.mat(fill(r, k, seed + r + 0.1 * k)); };
    auto vec = [&](int n) { return c.vec(fill(n, seed + 0.3 * n)); };
    switch (op) {
        case Op::ToReal: return c.g.apply(op, vec(3));
        // a / b between 1.4 and 9, far from whole numbers (where d/db = -trunc(a / b) jumps)
        case Op::Fmod: {
            VectorXd a(3), b(3);
            a << 3.3 + seed, 7.9, 2.15 * seed + 1.0;
            b << 1.1, 2.05 + 0.1 * seed, 0.7;
            return c.g.apply(op, c.vec(a), c.vec(b));
        }
        case Op::SortGather:
        case Op::SortScatter: {  // distinct keys: the order is the same at the differences' points
            VectorXd key(4);
            key << 0.3, -1.2, 2.0 + seed, 0.9;
            const NodeId k = c.vec(key);
            const auto order = seed < 1 ? sort_ops::Order::Ascending : sort_ops::Order::Descending;
            if (op == Op::SortGather)
                return sort_ops::sort_gather(c.g, k, seed < 2 ? k : vec(4), order);
            return sort_ops::sort_scatter(c.g, k, vec(4), order);
        }
        case Op::ArgSort: return sort_ops::arg_sort(c.g, vec(4), sort_ops::Order::Ascending);
        case Op::LambertWm1: {  // the lower branch's domain [-1/e, 0)
            VectorXd x(3);
            x << -0.36, -0.2 + 0.05 * seed, -0.01;
            return c.g.apply(op, c.vec(x));
        }
        case Op::BesselJ:
        case Op::BesselY:
        case Op::BesselI:
        case Op::BesselK:  // orders 0, 1 and 3 over the seeds, x > 0
            return c.g.apply(op, c.g.constant(std::floor(seed * 1.5)),
                             c.vec(in_domain(Domain::Positive, 3, seed)));
        case Op::Polygamma:
            return c.g.apply(op, c.g.constant(2), c.vec(in_domain(Domain::Positive, 3, seed)));
        case Op::Sum:
        case Op::LogSumExp:
        case Op::CumulativeSum:
        case Op::ReverseCumulativeSum:
        case Op::Prod:
        case Op::ProdOthers:
        case Op::Min:
        case Op::Max: return c.g.apply(op, vec(4));
        case Op::Broadcast: return c.g.broadcast(c.scalar(0.3 + seed), Shape::vector(3));
        case Op::Dot: return c.g.apply(op, vec(3), c.vec(fill(3, seed + 2)));
        case Op::MatVec: return c.g.apply(op, mat(3, 2), vec(2));
        case Op::MatTVec: return c.g.apply(op, mat(3, 2), vec(3));
        case Op::Outer: return c.g.apply(op, vec(3), vec(2));
        case Op::Gather: return c.g.apply(op, vec(4), c.index(idx));
        case Op::ScatterAdd: return c.make(op, Shape::vector(4), vec(5), c.index(idx));
        case Op::MatMul: return c.g.apply(op, mat(3, 2), mat(2, 2));
        case Op::MatTMul: return c.g.apply(op, mat(3, 2), mat(3, 1));
        case Op::MatMulT: return c.g.apply(op, mat(3, 2), mat(2, 2));
        case Op::Transpose: return c.g.apply(op, mat(3, 2));
        case Op::DiagMatrix: return c.g.apply(op, vec(3));
        case Op::Diagonal:
        case Op::Tril: return c.g.apply(op, mat(3, 3));
        case Op::Cholesky:
        case Op::LogDeterminant:
        case Op::Inverse: return c.g.apply(op, spd(c, seed));
        case Op::Determinant: return c.g.apply(op, mat(3, 3));  // not symmetric: any sign
        case Op::CholeskyAdjoint: return c.g.apply(op, c.mat(lower_factor(seed)), mat(3, 3));
        case Op::TriLowSolve: return c.g.apply(op, c.mat(lower_factor(seed)), mat(3, 2));
        case Op::TriLowTSolve: return c.g.apply(op, c.mat(lower_factor(seed)), vec(3));
        case Op::LseShiftRows: {
            // Its rule (none flows) holds only where the DSL uses it, as the shift m of
            // log_sum_exp_rows(X) = m + log(row_sums(exp(X - m))): sampled there.
            const NodeId X = mat(3, 2);
            const NodeId m = c.g.apply(op, X);
            const NodeId shifted = c.g.apply(Op::Sub, X, linalg::rep_cols(c.g, m, 2));
            return c.g.apply(
                Op::Add, m,
                c.g.apply(Op::Log, c.g.apply(Op::RowSums, c.g.apply(Op::Exp, shifted))));
        }
        case Op::LogSumExpRows:
        case Op::LogSumExpCols:
        case Op::RowSums:
        case Op::ColSums: return c.g.apply(op, mat(3, 2));
        case Op::Block: return linalg::block(c.g, mat(3, 3), 1, 0, Shape::matrix(2, 2));
        case Op::Embed: return linalg::embed(c.g, mat(2, 2), 1, 1, Shape::matrix(3, 3));
        case Op::Reshape: return linalg::reshape(c.g, mat(3, 2), Shape::vector(6));
        case Op::AppendRow: return c.g.apply(op, vec(3), vec(2));
        case Op::AppendCol: return c.g.apply(op, mat(3, 2), mat(3, 1));
        case Op::RepCols: return linalg::rep_cols(c.g, vec(3), 2);
        case Op::RepRows: return linalg::rep_rows(c.g, vec(3), 2);
        case Op::GatherRows: return c.g.apply(op, mat(4, 2), c.index(idx));
        case Op::ScatterAddRows: return linalg::scatter_add_rows(c.g, mat(5, 2), c.index(idx), 4);
        case Op::TileRows: return linalg::tile_rows(c.g, mat(2, 2), 3);
        case Op::TileSumRows: return linalg::tile_sum_rows(c.g, mat(6, 2), 3);
        case Op::LinearScan:
            return c.g.apply(op, c.vec(fill(4, seed) * 0.9), vec(4), c.scalar(0.4));
        case Op::LinearScanReverse: return c.g.apply(op, c.vec(fill(4, seed) * 0.9), vec(4));
        case Op::Select: {
            VectorXd sign(3);
            sign << 1, -1, 1;  // the condition: step(sign) = (1, 0, 1)
            return c.g.apply(op, c.g.apply(Op::Step, c.vec(sign)), vec(3),
                             c.vec(fill(3, seed + 2)));
        }
        case Op::OdeSolve: {
            // z = [y0; p], p positive
            VectorXd z(4);
            z << 1.0 + 0.1 * seed, 0.5, 0.6 + 0.2 * seed, 0.3;
            Node n;
            n.op = op;
            n.in = {c.vec(z), kNoNode, kNoNode};
            n.index = linear_system();
            return c.g.intern(n);
        }
        case Op::EigenvaluesSym:
        case Op::EigenvectorsSym: {
            // a symmetric matrix with distinct eigenvalues (its upper triangle is not read)
            MatrixXd A = fill(3, 3, seed);
            A = (A + A.transpose()).eval();
            A.diagonal() += Eigen::Vector3d(1.0, 3.0, 6.0);
            Node n;
            n.op = op;
            n.in = {c.mat(A), kNoNode, kNoNode};
            return c.g.intern(n);
        }
        case Op::MatrixExp: return c.g.apply(op, c.mat(fill(3, 3, seed) * 0.6));
        case Op::HmmMarginal: {
            // log_omega free; Gamma's rows and rho simplexes (constants: the kernel refuses
            // other values, and tests/graph/hmm_test.cpp checks their gradients)
            MatrixXd Gamma(3, 3);
            Gamma << 0.7, 0.2, 0.1, 0.15, 0.6, 0.25, 0.05, 0.35, 0.6;
            const VectorXd rho = Eigen::Vector3d(0.5, 0.3, 0.2);
            return c.g.apply(op, c.mat(fill(3, 4, seed) - MatrixXd::Constant(3, 4, 1.0)),
                             constant_vector(c.g, {Gamma.data(), 9}, Shape::matrix(3, 3)),
                             constant_vector(c.g, {rho.data(), 3}, Shape::vector(3)));
        }
        case Op::Integrate1d: {
            // z = [0; p0; p1], p0 positive; limits inside (-1, 2)
            VectorXd z(3);
            z << 0.0, 1.2 + 0.2 * seed, 0.7;
            Node n;
            n.op = op;
            n.in = {c.vec(z), c.scalar(-0.5 + 0.1 * seed), c.scalar(1.3)};
            n.index = gaussian_integral();
            return c.g.intern(n);
        }
        case Op::AlgebraSolve: {
            // z = [guess; p], p0 positive
            VectorXd z(4);
            z << 1.0, 1.0, 2.0 + 0.3 * seed, 0.5 + 0.1 * seed;
            Node n;
            n.op = op;
            n.in = {c.vec(z), kNoNode, kNoNode};
            n.index = root_system();
            return c.g.intern(n);
        }
        case Op::DynGather:
        case Op::DynScatter: {
            // runtime index 2 of 3, stride 2: positions {0, 1} shifted to {2, 3} of 6
            Eigen::VectorXi at(2);
            at << 0, 1;
            const NodeId i = c.g.constant(2.0);
            const double nan = std::numeric_limits<double>::quiet_NaN();
            if (op == Op::DynGather)
                return dyn_index::gather(c.g, vec(6), c.index(at), i, 2, 3, nan);
            return dyn_index::scatter(c.g, vec(2), c.index(at), i, 2, 3, nan, Shape::vector(6));
        }
        // a scalar broadcast against vectors; lower tail at one seed, upper at the others; both
        // sides of the switch between series (or fraction) and its complement
        case Op::LogIncGamma: {
            const auto tail = seed < 1 ? incomplete::Tail::Lower : incomplete::Tail::Upper;
            VectorXd x(3);
            x << 0.3 * seed, 2.5, 6.0 + seed;
            return incomplete::log_inc_gamma(c.g, c.scalar(1.3 + seed), c.vec(x), tail);
        }
        case Op::LogIncBeta: {
            const auto tail = seed < 1 ? incomplete::Tail::Lower : incomplete::Tail::Upper;
            VectorXd a = in_domain(Domain::Positive, 3, seed), x(3);
            x << 0.1 + 0.2 * seed, 0.5, 0.93;
            return incomplete::log_inc_beta(c.g, c.vec(a), c.scalar(0.8 + seed), c.vec(x), tail);
        }
        // the Bessel function's series (small z) and asymptotic expansion (z = 45); inv_inc_beta
        // through either tail; the von Mises CDF's series, blend-free normal form (kappa 60), both
        // tails and a cut on either side of mu
        case Op::LogBesselI: {
            VectorXd v(3), z(3);
            v << 0.2, 1.3, 2.0 + seed;
            z << 0.4 + seed, 3.0, 45.0;
            return special::log_bessel_i(c.g, c.vec(v), c.vec(z));
        }
        case Op::InvIncBeta: {
            VectorXd a = in_domain(Domain::Positive, 3, seed), p(3);
            p << 0.1 + 0.2 * seed, 0.5, 0.93;
            return special::inv_inc_beta(c.g, c.vec(a), c.scalar(0.8 + seed), c.vec(p));
        }
        case Op::VonMisesLogCdf: {
            VectorXd x(3), kappa(3);
            x << -2.0, 0.3 * seed, 0.6;  // (kappa 60 near its mode: its tails round to 0 or 1)
            kappa << 0.7, 5.0, 60.0;
            return special::von_mises_log_cdf(c.g, c.vec(x), c.scalar(0.4 - 0.5 * seed),
                                              c.vec(kappa), seed >= 1);
        }
        case Op::HypergeometricPFq: {
            // 3F2, |z| < 1: the derivative series in a and b (one seed with them constant)
            VectorXd a(3), b(2);
            a << 0.7, 1.5 + seed, 2.0;
            b << 2.5, 3.2;
            const NodeId z = c.scalar(0.3 - 0.4 * seed);
            if (seed < 1) {
                const std::vector<double> av(a.data(), a.data() + 3), bv(b.data(), b.data() + 2);
                return special::hypergeometric_pfq(c.g, constant_vector(c.g, av, Shape::vector(3)),
                                                   constant_vector(c.g, bv, Shape::vector(2)), z);
            }
            return special::hypergeometric_pfq(c.g, c.vec(a), c.vec(b), z);
        }
        case Op::HypergeometricPFqGrad: {
            // 2F1 of a scalar b (the gradient in b)
            VectorXd a(2);
            a << 0.8 + 0.1 * seed, 1.4;
            return special::pfq_grad(c.g, c.vec(a), c.scalar(2.3), c.scalar(0.5 - 0.3 * seed),
                                     seed < 1 ? 0 : 1);
        }
        case Op::WienerLogCdf: {
            // both tails; small and large times (each series, and the switch for cancellation)
            const auto tail = seed < 1 ? wiener::CdfTail::Lower : wiener::CdfTail::Upper;
            VectorXd u(3), drift(3);
            u << 0.05 + 0.1 * seed, 0.6, 2.5;
            drift << -1.2, 0.3 * seed, 1.5;
            return wiener::log_first_passage_cdf(c.g, c.vec(u), c.scalar(0.35 + 0.1 * seed),
                                                 c.vec(drift), tail);
        }
        case Op::WienerLogCdfSv: {
            // with drift variability: both tails, the far upper tail's rule too (u = 4)
            const auto tail = seed < 1 ? wiener::CdfTail::Lower : wiener::CdfTail::Upper;
            VectorXd u(3), drift(3), spread(3);
            u << 0.05 + 0.1 * seed, 0.6, 4.0;
            drift << -1.2, 0.3 * seed, 1.5;
            spread << 0.4, 1.0 + 0.2 * seed, 2.0;
            return wiener::log_first_passage_cdf_sv(c.g, c.vec(u), c.scalar(0.35 + 0.1 * seed),
                                                    c.vec(drift), c.vec(spread), tail);
        }
        case Op::Loop: {
            VectorXd z(3);
            z << 0.4 + 0.1 * seed, -0.3, 0.8;
            Node n;
            n.op = op;
            n.in = {c.vec(z), kNoNode, kNoNode};
            n.index = nonlinear_loop();
            return c.g.intern(n);
        }
        case Op::CheckConstraint: {
            Node n;
            n.op = op;
            n.in = {c.vec(fill(3, seed)), c.g.constant(-2.0), c.g.constant(2.0)};
            n.index = static_cast<int>(Constraint::Bounds);
            return c.g.intern(n);
        }
        default: break;
    }
    const int k = static_cast<int>(seed * 10) % 2;  // which of the sample shapes
    auto pick = [&](auto shapes) { return shapes[std::min<std::size_t>(k, shapes.size() - 1)]; };
#define ADVI_FUSED_SAMPLE(M, prefix)                             \
    if (op == Op::prefix)                                        \
        return fused_op<M>(c, 0, pick(fused_shapes<M>()), seed); \
    if (op == Op::prefix##Vjp)                                   \
        return fused_op<M>(c, 1, pick(fused_shapes<M>()), seed); \
    if (op == Op::prefix##Jvp)                                   \
        return fused_op<M>(c, 2, pick(fused_shapes<M>()), seed);
    ADVI_FUSED_SAMPLE(SimplexKernels, SimplexConstrain)
    ADVI_FUSED_SAMPLE(OrderedKernels, OrderedConstrain)
    ADVI_FUSED_SAMPLE(PositiveOrderedKernels, PositiveOrderedConstrain)
    ADVI_FUSED_SAMPLE(CholeskyCorrKernels, CholeskyCorrConstrain)
    ADVI_FUSED_SAMPLE(CholeskyCovKernels, CholeskyCovConstrain)
    ADVI_FUSED_SAMPLE(LowerTriSelfTransposeKernels, LowerTriSelfTranspose)
#undef ADVI_FUSED_SAMPLE
    return kNoNode;
}

// lp = sum(w .* out) with irregular constant weights.
void set_weighted_sum(Graph& g, NodeId out) {
    const Shape s = g[out].shape;
    const VectorXd w = fill(s.size(), 0.4).array() + 0.3;
    const NodeId wn = constant_vector(g, {w.data(), static_cast<std::size_t>(w.size())}, s);
    g.set_output("lp", g.apply(Op::Sum, g.apply(Op::Mul, wn, out)));
}

// The first differentiation's graph with one output, v . grad lp for irregular v: its own
// gradient is the Hessian of lp times v, the second differentiation.
Graph hessian_times_v(const Graph& g) {
    Graph d = differentiate(g);
    NodeId total = kNoNode;
    for (const auto& o : d.outputs()) {
        if (o.offset < 0)
            continue;
        const Shape s = d[o.id].shape;
        const VectorXd v = fill(s.size(), 1.9 + o.offset).array() + 0.2;
        const NodeId vn = constant_vector(d, {v.data(), static_cast<std::size_t>(v.size())}, s);
        const NodeId term = d.apply(Op::Sum, d.apply(Op::Mul, vn, o.id));
        total = total == kNoNode ? term : d.apply(Op::Add, total, term);
    }
    d.clear_outputs();
    d.set_output("lp", total);
    return d;
}

// Every op of g with inputs has a rule or a reason not to.
void check_closed(const Graph& g, std::string_view what) {
    for (NodeId id = 0; id < g.size(); ++id) {
        const Op op = g[id].op;
        if (g[id].arity() == 0)
            continue;
        INFO(what << " emits " << op_name(op));
        CHECK((op_info(op).adjoint != nullptr || !no_derivative_reason(op).empty()));
    }
}

}  // namespace

TEST_CASE("the op table: an op has a rule or says why not", "[graph][second-order]") {
    for (int k = 0; k < kOpCount; ++k) {
        const Op op = static_cast<Op>(k);
        const OpInfo& info = op_info(op);
        INFO(info.name);
        if (info.arity == 0) {
            CHECK(no_derivative_reason(op).empty());
            continue;
        }
        CHECK((info.adjoint == nullptr) == !no_derivative_reason(op).empty());
    }
}

// The walk: for every op with a rule, a sample graph lp = sum(w .* op(x)) at three points is
// differentiated once (the gradient, against central differences of lp) and its v . gradient
// again (a Hessian-vector product, against central differences of the gradient); every op
// either emits has a rule or a listed reason.
TEST_CASE("every op is twice differentiable: the rules close, and H v matches differences",
          "[graph][second-order]") {
    for (int k = 0; k < kOpCount; ++k) {
        const Op op = static_cast<Op>(k);
        const OpInfo& info = op_info(op);
        if (info.arity == 0 || info.adjoint == nullptr)
            continue;
        for (const double seed : {0.35, 1.15, 2.05}) {
            Case c;
            const NodeId out = sample(c, op, seed);
            INFO(info.name << " at seed " << seed);
            REQUIRE(out != kNoNode);
            bool present = false;
            for (NodeId id = 0; id < c.g.size(); ++id) present = present || c.g[id].op == op;
            REQUIRE(present);
            set_weighted_sum(c.g, out);
            test::check_gradient(c.g, c.data, c.zeta());
            const Graph grad = differentiate(c.g);
            check_closed(grad, "its gradient");
            // An op that is itself a derivative (prod_others, a vector-Jacobian product, a
            // Jacobian-vector product) is differentiated once in a Hessian-vector product; its
            // rule emits a third-order op, which is listed as such.
            bool third = false;
            for (NodeId id = 0; id < grad.size(); ++id) {
                third = third || !no_derivative_reason(grad[id].op).empty();
            }
            const Graph hv = hessian_times_v(c.g);
            if (third) {
                CHECK_THROWS_WITH(differentiate(hv), Catch::Contains("cannot differentiate"));
                continue;
            }
            check_closed(differentiate(hv), "its Hessian-vector product");
            test::check_gradient(hv, c.data, c.zeta(), 1e-5);
        }
    }
}

TEST_CASE("polygamma: values against known constants, gradients, the order a constant",
          "[graph][second-order]") {
    // polygamma(n, 1) = (-1)^(n+1) n! zeta(n+1): -gamma, pi^2/6, -2 zeta(3), pi^4/15.
    constexpr double kPi = 3.14159265358979323846;
    const double want[] = {-0.57721566490153286061, kPi * kPi / 6, -2 * 1.2020569031595942854,
                           kPi * kPi * kPi * kPi / 15};
    for (int n = 0; n < 4; ++n) {
        Case c;
        const NodeId x = c.vec(VectorXd::Constant(1, 1.0));
        const MatrixXd got = eval(c, c.g.apply(Op::Polygamma, c.g.constant(n), x));
        INFO("order " << n);
        CHECK(got(0, 0) == Approx(want[n]).epsilon(1e-14));
    }
    for (int n = 0; n < 4; ++n) {
        for (const double x0 : {0.05, 0.7, 3.2, 40.0}) {
            Case c;
            VectorXd v(3);
            v << x0, 1.5 * x0, 2.5 * x0;
            const NodeId x = c.vec(v);
            INFO("order " << n << " at " << x0);
            check_grad(c, c.g.apply(Op::Polygamma, c.g.constant(n), x));
        }
    }
    // Orders outside the whole numbers, and the poles, are NaN (as trigamma's pole).
    CHECK(std::isnan(op_info(Op::Polygamma).fold(1.5, 2.0)));
    CHECK(std::isnan(op_info(Op::Polygamma).fold(-1, 2.0)));
    CHECK(std::isnan(op_info(Op::Polygamma).fold(2, -3.0)));
    CHECK(op_info(Op::Polygamma).fold(1, 0.7) == op_info(Op::Trigamma).fold(0.7, 0));
    // A parameter flowing into the order is refused by name.
    Case c;
    const NodeId n = c.scalar(1.0);
    const NodeId x = c.scalar(2.0);
    c.g.set_output("lp", c.g.apply(Op::Polygamma, n, x));
    CHECK_THROWS_AS(differentiate(c.g), ModelError);
    CHECK_THROWS_WITH(differentiate(c.g), Catch::Contains("polygamma: the order n"));
}

TEST_CASE("to_real of a real is the identity: gradient", "[graph][second-order]") {
    Case c;
    const NodeId x = c.vec(fill(4, 0.3));
    check_grad(c, c.g.apply(Op::ToReal, c.g.apply(Op::Exp, x)));
}

TEST_CASE("min and max: gradient is the indicator of the extremum, ties split",
          "[graph][second-order]") {
    for (Op op : {Op::Min, Op::Max}) {
        for (double seed : {0.2, 1.1, 2.9}) {
            Case c;
            const NodeId x = c.mat(fill(2, 3, seed));
            INFO(op_name(op) << " seed " << seed);
            check_grad(c, c.g.apply(op, x));
        }
        // A tie between elements 0 and 2: each gets half the adjoint (a subgradient).
        Case c;
        VectorXd v(4);
        v << 1.0, op == Op::Min ? 3.0 : -3.0, 1.0, op == Op::Min ? 2.0 : -2.0;
        const NodeId x = c.vec(v);
        c.g.set_output("lp", c.g.apply(Op::Mul, c.g.constant(3.0), c.g.apply(op, x)));
        const VectorXd grad = gradient(c.g, c.data, c.zeta());
        INFO(op_name(op) << " tie: gradient " << grad.transpose());
        CHECK(grad[0] == 1.5);
        CHECK(grad[1] == 0.0);
        CHECK(grad[2] == 1.5);
        CHECK(grad[3] == 0.0);
    }
}

TEST_CASE("prod_others: gradient, with and without a zero factor", "[graph][second-order]") {
    for (int zeros = 0; zeros <= 2; ++zeros) {
        for (double seed : {0.4, 1.7}) {
            VectorXd v = fill(5, seed);
            for (int k = 0; k < zeros; ++k) v[1 + 2 * k] = 0.0;
            Case c;
            const NodeId x = c.vec(v);
            INFO(zeros << " zeros, seed " << seed);
            check_grad(c, c.g.apply(Op::ProdOthers, x));
            // The kernel against the definition x_bar_k = sum_{i != k} g_i prod_{j != i,k} x_j,
            // exact at zeros where a quotient would be NaN.
            const VectorXd g = fill(5, seed + 0.5);
            Case d;
            const NodeId xv = d.vec(v);
            const NodeId gv = d.vec(g);
            VectorXd want = VectorXd::Zero(5);
            for (int k = 0; k < 5; ++k) {
                for (int i = 0; i < 5; ++i) {
                    if (i == k)
                        continue;
                    double p = g[i];
                    for (int j = 0; j < 5; ++j) p *= j == i || j == k ? 1.0 : v[j];
                    want[k] += p;
                }
            }
            check_close(eval(d, d.g.apply(Op::ProdOthersVjp, xv, gv)), want, 1e-14);
        }
    }
    // A matrix argument (prod of a matrix) keeps its shape.
    Case c;
    const NodeId X = c.mat(fill(2, 3, 0.9));
    check_grad(c, c.g.apply(Op::ProdOthers, X));
}

TEST_CASE("linear_scan_reverse: gradient in a (vector and scalar) and g", "[graph][second-order]") {
    for (int T : {1, 2, 6}) {
        for (bool scalar_a : {false, true}) {
            Case c;
            const NodeId a = scalar_a ? c.scalar(0.7) : c.vec(fill(T, 0.6) * 0.9);
            const NodeId g = c.vec(fill(T, 2.1));
            INFO("T " << T << (scalar_a ? " scalar a" : " vector a"));
            check_grad(c, c.g.apply(Op::LinearScanReverse, a, g));
        }
    }
}

}  // namespace advi
