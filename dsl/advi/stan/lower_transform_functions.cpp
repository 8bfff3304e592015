#include <advi/stan/lower_transform_functions.hpp>

#include <array>
#include <string>

#include <fmt/format.h>

#include <advi/cpp/linalg.hpp>
#include <advi/cpp/math.hpp>
#include <advi/graph/ops_linalg.hpp>
#include <advi/transform/sum_to_zero.hpp>
#include <advi/transform/transform.hpp>

namespace advi::stan {
namespace {

enum class Use { Constrain, Jacobian, Unconstrain };

constexpr std::array<std::pair<std::string_view, Use>, 3> kUses = {
    {{"_constrain", Use::Constrain},
     {"_jacobian", Use::Jacobian},
     {"_unconstrain", Use::Unconstrain}}
};

// The elementwise maps, on Values so that arguments broadcast as Stan's operators do.
struct Elementwise {
    CallSite& c;
    Value map(const Value& v, Expr (*f)(const Expr&)) {
        return CallSite::result_like(v, f(c.lowerer.real(v, c.at)));
    }
    Value op(BinaryOp o, const Value& a, const Value& b) { return c.lowerer.binary(o, a, b, c.at); }
    Expr total(const Value& v) {
        const Expr e = c.lowerer.real(v, c.at);
        return e.shape().is_scalar() ? e : sum(e);
    }
};

Expr log_of(const Expr& x) {
    return log(x);
}
Expr exp_of(const Expr& x) {
    return exp(x);
}
Expr zero_of(const Expr& x) {
    return 0.0 * x;
}
Expr logit_of(const Expr& x) {
    return logit(x);
}
Expr inv_logit_of(const Expr& x) {
    return inv_logit(x);
}
// log of d/dy logit^-1(y) = log logit^-1(y) + log(1 - logit^-1(y))
Expr log_inv_logit_slope(const Expr& y) {
    return log_inv_logit(y) + log1m_inv_logit(y);
}

// The ordered maps on a vector or on each row of a matrix (an array of vectors).
struct Ordered {
    Expr x;
    bool rows;  // a matrix: each row one vector
    int k() const { return rows ? x.shape().cols : x.shape().size(); }
    int n() const { return rows ? x.shape().rows : 1; }
    Expr first() const { return rows ? block(x, 0, 0, n(), 1) : head(x, 1); }
    Expr rest() const { return rows ? block(x, 0, 1, n(), k() - 1) : tail(x, k() - 1); }
    Expr but_last() const { return rows ? block(x, 0, 0, n(), k() - 1) : head(x, k() - 1); }
    Expr join(const Expr& a, const Expr& b) const {
        return rows ? append_col(a, b) : append_row(a, b);
    }
};

// ---- the structured transforms: the library's (lib/advi/transform), one value at a time

// sum_to_zero maps y (n - 1) to H y and back by H^T, H Helmert's orthonormal basis of the
// vectors of n elements that sum to zero (transform/sum_to_zero.hpp, the declarations' own):
// an isometry, log|J| constant (0, as Stan's).
Expr known_matrix(CallSite& c, const Eigen::MatrixXd& M) {
    const Eigen::VectorXd flat = Eigen::Map<const Eigen::VectorXd>(M.data(), M.size());
    return to_matrix(c.lowerer.known_reals(flat), static_cast<int>(M.rows()),
                     static_cast<int>(M.cols()));
}

// The stick-breaking inverse of the library's simplex transform on each row of X (K columns):
// z_k = log x_k - log(x_{k+1} + ... + x_K) + log(K - 1 - k), k < K - 1 (0-based).
Expr simplex_unconstrain_rows(CallSite& c, const Expr& X) {
    const int rows = X.shape().rows, K = X.shape().cols;
    Eigen::MatrixXd after = Eigen::MatrixXd::Zero(K, K - 1);  // X after: the tails
    for (int k = 0; k + 1 < K; ++k)
        for (int j = k + 1; j < K; ++j) after(j, k) = 1;
    Eigen::VectorXd shift(K - 1);
    for (int k = 0; k + 1 < K; ++k) shift[k] = std::log(K - 1.0 - k);
    const Expr tails = X * known_matrix(c, after);
    return log(block(X, 0, 0, rows, K - 1)) - log(tails) +
           rep_matrix_rows(c.lowerer.known_reals(shift), rows);
}

struct Structured {
    Support support;
    Shape shape;  // the constrained value's
};

Value structured_one(CallSite& c, std::string_view kind, Use use);

// Element by element over the arrays of the first argument.
Value structured(CallSite& c, std::string_view kind, Use use) {
    const Value& x = c.args[0];
    if (x.dims.empty())
        return structured_one(c, kind, use);
    std::int64_t count = 1;
    for (int d : x.dims) count *= d;
    std::vector<Value> values;
    for (std::int64_t flat = 0; flat < count; ++flat) {
        std::vector<Index> at;
        std::int64_t rest = flat;
        for (int d : x.dims) {
            Index ix;
            ix.loc = c.at;
            ix.lower =
                Box<Expression>(Expression{c.at, IntLiteral{static_cast<int>(rest % d) + 1}});
            at.push_back(std::move(ix));
            rest /= d;
        }
        CallSite one{c.lowerer, c.call, c.args, c.at, c.level};
        one.args[0] = c.lowerer.index(x, at, c.at);
        values.push_back(structured_one(one, kind, use));
    }
    if (values.empty())
        c.fail(fmt::format("{} of an empty array is not supported yet", c.name()));
    return c.lowerer.stacked(values, x.dims, c.at);
}

Value structured_one(CallSite& c, std::string_view kind, Use use) {
    Lowerer& L = c.lowerer;
    const Value& x = c.args[0];
    const Expr e = c.real_of(0);
    Graph& g = const_cast<Graph&>(c.m().nodes());
    const bool matrix_arg = x.base == Base::Matrix;
    const int n = matrix_arg ? x.sizes[0] : x.sizes.at(0);
    const int cols = matrix_arg ? x.sizes[1] : 1;
    auto result = [&](const Expr& r) {
        return r.shape().is_matrix() ? CallSite::mat(r) : CallSite::vec(r, r.shape().size());
    };
    if (kind == "sum_to_zero") {
        // vector: H y; matrix: H_r Y H_c^T
        if (use == Use::Unconstrain) {
            if (!matrix_arg)
                return result(transpose(known_matrix(c, helmert_basis(n))) * e);
            return result(transpose(known_matrix(c, helmert_basis(n))) * e *
                          known_matrix(c, helmert_basis(cols)));
        }
        if (!matrix_arg)
            return result(known_matrix(c, helmert_basis(n + 1)) * e);
        return result(known_matrix(c, helmert_basis(n + 1)) * e *
                      transpose(known_matrix(c, helmert_basis(cols + 1))));
    }
    if (kind == "unit_vector" && use == Use::Unconstrain)
        return result(e);  // any point of the sphere is its own preimage
    if (use == Use::Unconstrain && (kind == "simplex" || kind.starts_with("stochastic"))) {
        if (kind == "simplex")
            return result(to_vector(simplex_unconstrain_rows(c, transpose(rep_matrix(e, 1)))));
        if (kind == "stochastic_row")
            return result(simplex_unconstrain_rows(c, e));
        return result(transpose(simplex_unconstrain_rows(c, transpose(e))));
    }
    // The library's transform: theta = T^-1(zeta) and log|J| as graph fragments.
    Structured s;
    if (kind == "simplex") {
        s = {Support::simplex(), Shape::vector(n + 1)};
    } else if (kind == "unit_vector") {
        s = {Support::unit_vector(), Shape::vector(n)};
    } else if (kind == "stochastic_row") {
        s = {Support::simplex(), Shape::matrix(n, cols + 1)};
    } else if (kind == "stochastic_column") {
        s = {Support::simplex(), Shape::matrix(cols, n + 1)};  // of the transpose
    } else {
        const int K = use == Use::Unconstrain ? x.sizes.at(0) : c.int_arg(1);
        const int M = use == Use::Unconstrain                              ? x.sizes.at(1)
                      : kind == "cholesky_factor_cov" && c.args.size() > 2 ? c.int_arg(2)
                                                                           : K;
        if (kind == "cholesky_factor_corr")
            s = {Support::cholesky_factor_corr(), Shape::matrix(K, K)};
        else if (kind == "cholesky_factor_cov")
            s = {Support::cholesky_factor_cov(), Shape::matrix(K, M)};
        else if (kind == "corr_matrix")
            s = {Support::corr_matrix(), Shape::matrix(K, K)};
        else
            s = {Support::cov_matrix(), Shape::matrix(K, K)};
    }
    const Transform& T = transform_for(s.support, PositiveTransform::Log);
    try {
        check_support_shape(s.support, s.shape);
    } catch (const Error& err) {
        c.fail(fmt::format("{}: {}", c.name(), err.what()));
    }
    const Shape free = T.unconstrained_shape(s.shape, s.support);
    if (use == Use::Unconstrain) {
        // the matrix transforms' inverses, numerically: values known before the fit
        std::vector<double> theta;
        try {
            theta = c.m().evaluate(e);
        } catch (const ModelError&) {
            c.fail(
                fmt::format("{} of a value that depends on the parameters is not supported "
                            "yet",
                            c.name()));
        }
        const Eigen::VectorXd z =
            T.unconstrain(Eigen::Map<const Eigen::VectorXd>(
                              theta.data(), static_cast<Eigen::Index>(theta.size())),
                          s.shape, s.support);
        return CallSite::vec(L.known_reals(z), static_cast<int>(z.size()));
    }
    const Expr zeta_in = kind == "stochastic_column" ? transpose(e) : e;
    if (zeta_in.shape().size() != free.size()) {
        c.fail(fmt::format("{}: a {} of these sizes takes {} free values, got {}", c.name(), kind,
                           free.size(), zeta_in.shape().size()));
    }
    const NodeId zeta = linalg::reshape(g, zeta_in.id(), free);
    const NodeId theta = T.constrain(g, zeta, s.shape, s.support);
    if (use == Use::Jacobian) {
        L.add_jacobian(c.m().wrap(T.log_abs_det_jacobian(g, zeta, theta, s.support)), 0, c.at);
    }
    const Expr out = c.m().wrap(theta);
    return result(kind == "stochastic_column" ? transpose(out) : out);
}

}  // namespace

Value transform_function_of(CallSite& c) {
    const std::string& name = c.name();
    Use use = Use::Constrain;
    std::string_view kind;
    for (const auto& [suffix, u] : kUses) {
        if (name.ends_with(suffix)) {
            use = u;
            kind = std::string_view(name).substr(0, name.size() - suffix.size());
        }
    }
    if (kind != "lower_bound" && kind != "upper_bound" && kind != "lower_upper_bound" &&
        kind != "offset_multiplier" && kind != "ordered" && kind != "positive_ordered")
        return structured(c, kind, use);
    Elementwise e{c};
    const auto& a = c.args;
    Value out;
    Expr log_jacobian;
    if (kind == "lower_bound" || kind == "upper_bound") {
        c.arity(2);
        const BinaryOp toward = kind == "lower_bound" ? BinaryOp::Add : BinaryOp::Subtract;
        if (use == Use::Unconstrain) {
            return kind == "lower_bound" ? e.map(e.op(BinaryOp::Subtract, a[0], a[1]), log_of)
                                         : e.map(e.op(BinaryOp::Subtract, a[1], a[0]), log_of);
        }
        out = e.op(toward, a[1], e.map(a[0], exp_of));
        log_jacobian = e.total(e.op(BinaryOp::Add, a[0], e.map(out, zero_of)));
    } else if (kind == "lower_upper_bound") {
        c.arity(3);
        const Value width = e.op(BinaryOp::Subtract, a[2], a[1]);
        if (use == Use::Unconstrain) {
            return e.map(e.op(BinaryOp::EltDivide, e.op(BinaryOp::Subtract, a[0], a[1]), width),
                         logit_of);
        }
        out = e.op(BinaryOp::Add, a[1],
                   e.op(BinaryOp::EltMultiply, width, e.map(a[0], inv_logit_of)));
        log_jacobian =
            e.total(e.op(BinaryOp::Add, e.map(width, log_of), e.map(a[0], log_inv_logit_slope)));
    } else if (kind == "offset_multiplier") {
        c.arity(3);
        if (use == Use::Unconstrain) {
            return e.op(BinaryOp::EltDivide, e.op(BinaryOp::Subtract, a[0], a[1]), a[2]);
        }
        out = e.op(BinaryOp::Add, a[1], e.op(BinaryOp::EltMultiply, a[2], a[0]));
        log_jacobian = e.total(e.op(BinaryOp::Add, e.map(a[2], log_of), e.map(out, zero_of)));
    } else {  // ordered, positive_ordered
        c.arity(1);
        const bool positive = kind == "positive_ordered";
        const Ordered v{c.real_of(0), c.real_of(0).shape().is_matrix()};
        if (v.k() < 1)
            c.fail(fmt::format("{} of an empty vector", name));
        out = a[0];
        if (use == Use::Unconstrain) {
            const Expr lead = positive ? log(v.first()) : v.first();
            out.expr = v.k() == 1 ? lead : v.join(lead, log(v.rest() - v.but_last()));
            return out;
        }
        const Expr lead = positive ? exp(v.first()) : v.first();
        const Expr steps = v.k() == 1 ? lead : v.join(lead, exp(v.rest()));
        if (v.rows) {  // each row's cumulative sums: times the upper triangle of ones
            Eigen::VectorXd upper = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(v.k()) * v.k());
            for (int j = 0; j < v.k(); ++j) {
                for (int i = 0; i <= j; ++i) upper[i + static_cast<Eigen::Index>(j) * v.k()] = 1;
            }
            out.expr = steps * to_matrix(c.lowerer.known_reals(std::move(upper)), v.k(), v.k());
        } else {
            out.expr = cumulative_sum(steps);
        }
        log_jacobian = v.k() == 1 ? (positive ? sum(v.first()) : Expr()) : sum(v.rest());
        if (positive && v.k() > 1)
            log_jacobian = log_jacobian + sum(v.first());
    }
    if (use == Use::Jacobian && log_jacobian.valid())
        c.lowerer.add_jacobian(log_jacobian, 0, c.at);
    return out;
}

}  // namespace advi::stan
