#include <advi/stan/lower_transform_functions.hpp>

#include <array>
#include <string>

#include <fmt/format.h>

#include <advi/cpp/linalg.hpp>
#include <advi/cpp/math.hpp>

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
