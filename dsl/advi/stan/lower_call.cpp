// Function calls by Stan's names onto the DSL (dsl/advi/cpp/math.hpp, dsl/advi/cpp/linalg.hpp), and
// densities: `y ~ d(...)`, `d_lpdf(y | ...)` and friends onto the distribution table. Elementwise
// functions apply to batched values as they are; reductions of a batched vector become
// reductions per row.
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include <advi/stan/lowerer.hpp>

namespace advi::stan {

namespace {

using Unary1 = Expr (*)(const Expr&);

const std::map<std::string, Unary1, std::less<>>& elementwise_functions() {
    static const std::map<std::string, Unary1, std::less<>> table = {
  // clang-format off
        {"exp", [](const Expr& x) { return exp(x); }},
        {"log", [](const Expr& x) { return log(x); }},
        {"log1p", [](const Expr& x) { return log1p(x); }},
        {"expm1", [](const Expr& x) { return expm1(x); }},
        {"sqrt", [](const Expr& x) { return sqrt(x); }},
        {"square", [](const Expr& x) { return square(x); }},
        {"inv_logit", [](const Expr& x) { return inv_logit(x); }},
        {"log_inv_logit", [](const Expr& x) { return log_inv_logit(x); }},
        {"log1p_exp", [](const Expr& x) { return log1p_exp(x); }},
        {"lgamma", [](const Expr& x) { return lgamma(x); }},
        {"step", [](const Expr& x) { return step(x); }},
        {"fabs", [](const Expr& x) { return fabs(x); }},
        {"abs", [](const Expr& x) { return abs(x); }},
        {"sin", [](const Expr& x) { return sin(x); }},
        {"cos", [](const Expr& x) { return cos(x); }},
        {"tanh", [](const Expr& x) { return tanh(x); }},
        {"cbrt", [](const Expr& x) { return cbrt(x); }},
        {"erf", [](const Expr& x) { return erf(x); }},
        {"erfc", [](const Expr& x) { return erfc(x); }},
        {"Phi", [](const Expr& x) { return Phi(x); }},
        {"Phi_approx", [](const Expr& x) { return Phi_approx(x); }},
        {"log1m", [](const Expr& x) { return log1m(x); }},
        {"log1m_exp", [](const Expr& x) { return log1m_exp(x); }},
        {"logit", [](const Expr& x) { return logit(x); }},
        {"log1m_inv_logit", [](const Expr& x) { return log1m_inv_logit(x); }},
        {"inv_cloglog", [](const Expr& x) { return inv_cloglog(x); }},
        {"inv", [](const Expr& x) { return inv(x); }},
        {"inv_sqrt", [](const Expr& x) { return inv_sqrt(x); }},
        {"inv_square", [](const Expr& x) { return inv_square(x); }},
        {"log2", [](const Expr& x) { return log2(x); }},
        {"log10", [](const Expr& x) { return log10(x); }},
        {"exp2", [](const Expr& x) { return exp2(x); }},
        {"digamma", [](const Expr& x) { return digamma(x); }},
        {"trigamma", [](const Expr& x) { return trigamma(x); }},
        {"std_normal_log_cdf", [](const Expr& x) { return log_Phi(x); }},
  // clang-format on
    };
    return table;
}

using Binary2 = Expr (*)(const Expr&, const Expr&);

const std::map<std::string, Binary2, std::less<>>& elementwise_binary_functions() {
    static const std::map<std::string, Binary2, std::less<>> table = {
        {"pow",          [](const Expr& x, const Expr& y) { return pow(x, y); }         },
        {"fmin",         [](const Expr& x, const Expr& y) { return fmin(x, y); }        },
        {"fmax",         [](const Expr& x, const Expr& y) { return fmax(x, y); }        },
        {"lmultiply",    [](const Expr& x, const Expr& y) { return lmultiply(x, y); }   },
        {"log_diff_exp", [](const Expr& x, const Expr& y) { return log_diff_exp(x, y); }},
        {"lbeta",        [](const Expr& x, const Expr& y) { return lbeta(x, y); }       },
        {"lchoose",      [](const Expr& x, const Expr& y) { return lchoose(x, y); }     },
        {"fdim",         [](const Expr& x, const Expr& y) { return fmax(x - y, 0.0); }  },
    };
    return table;
}

// Distributions whose integer variate is a category: Stan counts from 1, the library from 0.
bool categorical_variate(std::string_view d) {
    return d == "categorical" || d == "categorical_logit" || d == "ordered_logistic";
}

// `normal_lpdf` -> {"normal", true}; `foo` -> {"", false}.
std::pair<std::string, bool> density_name(const std::string& f) {
    for (std::string_view suffix : {"_lpdf", "_lpmf", "_lupdf", "_lupmf", "_log"}) {
        if (f.size() > suffix.size() &&
            f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0) {
            return {f.substr(0, f.size() - suffix.size()), true};
        }
    }
    return {"", false};
}

}  // namespace

Expr Lowerer::density(const std::string& name0, const Value& y, const std::vector<Value>& args0,
                      Loc at, bool per_iteration) {
    std::string name = name0;
    std::vector<Value> args = args0;
    if (name == "std_normal") {  // std_normal() = normal(0, 1)
        if (!args.empty())
            fail(at, "std_normal takes no arguments");
        name = "normal";
        args = {constant(0), constant(1)};
    }
    const DistInfo* info = nullptr;
    try {
        info = &distribution(name);
    } catch (const ModelError&) {
        fail(at, fmt::format("unknown distribution `{}`", name));
    }
    if (static_cast<int>(args.size()) != info->arity) {
        fail(at, fmt::format("{} takes {} argument{}, got {}", name, info->arity,
                             info->arity == 1 ? "" : "s", args.size()));
    }
    int level = y.level;
    for (const auto& a : args) level = std::max(level, a.level);
    if (level > 0 && info->multivariate && y.level == 0) {
        throw NotVectorisable(
            at, "a multivariate density whose variate is the same in every iteration");
    }
    // Every argument and the variate in the batched layout (one row per iteration).
    const int B = batch_size(level);
    const int K = [&] {
        if (y.level > 0 && (y.base == Base::Vector || y.base == Base::RowVector))
            return y.sizes[0];
        return 0;
    }();
    auto to_level = [&](const Value& v, bool variate) -> Expr {
        if (v.is_int() && (variate ? info->variate == DType::Int : false)) {
            Value w = at_level(v, level, at);
            if (categorical_variate(name)) {
                for (int& c : w.ints) c -= 1;
            }
            return int_data(w, at);
        }
        if (v.is_int() && !variate && v.is_scalar() && v.level == 0)
            return m().constant(v.ints[0]);
        if (v.is_int() && !variate && name.find("binomial") != std::string::npos) {
            return int_data(at_level(v, level, at), at);
        }
        const Value w = at_level(v, level, at);
        Expr e = real(w, at);
        if (level == 0 || info->multivariate) {
            if (level > 0 && w.level == 0 &&
                (w.base == Base::Vector || w.base == Base::RowVector) && variate) {
                return rep_matrix_rows(e, B);
            }
            return e;
        }
        // univariate, batched: per-iteration scalars against a per-iteration vector variate
        if (K > 0 && w.level > 0 && rank_of_value(w) == 0)
            return rep_matrix(e, K);
        if (w.level == 0 && rank_of_value(w) == 1 && K > 0)
            return rep_matrix_rows(e, B);
        return e;
    };
    if (info->variate == DType::Int && !y.is_int()) {
        fail(at, fmt::format("{}: the variate must be integers, got {}", name, type_str(y)));
    }
    const Expr ye = to_level(y, true);
    // A batched integer array variate is flat, the iteration index fastest (int_data), where a
    // batched vector argument is mat[B, n] with row b the iteration's: the same order column-
    // major, so such an argument is flattened to match (y[u] ~ poisson(beta * theta[u]) over u:
    // one U x I term), and per-iteration sums fold the flat terms back into B rows.
    const bool flat_variate = level > 0 && y.is_int() && !info->multivariate &&
                              ye.shape().is_vector() && rank_of_value(y) > 0;
    std::vector<Arg> dargs;
    bool flattened = false;
    for (const auto& a : args) {
        Expr e = to_level(a, false);
        if (flat_variate && e.shape().is_matrix() && e.shape().size() == ye.shape().size()) {
            e = to_vector(e);
            flattened = true;
        }
        dargs.emplace_back(e);
    }
    try {
        const Dist d = dist(name, dargs);
        if (!per_iteration || level == 0)
            return m().log_density(ye, d);
        Expr e = m().log_density(ye, d, true);
        if (flattened)
            e = to_matrix(e, B, ye.shape().size() / B);
        return e.shape().is_matrix() ? row_sums(e) : e;
    } catch (const Error& e) {
        fail(at, e.what());
    }
}

int Lowerer::rank_of_value(const Value& v) {
    return static_cast<int>(v.dims.size() + v.sizes.size());
}

Value Lowerer::call(const Call& c, Loc at) {
    const std::string& f = c.name;
    std::vector<Value> args;
    for (const auto& a : c.args) args.push_back(expr(a));
    const int level = [&] {
        int l = 0;
        for (const auto& a : args) l = std::max(l, a.level);
        return l;
    }();
    auto arity = [&](std::size_t n) {
        if (args.size() != n) {
            fail(at, fmt::format("{} takes {} argument{}, got {}", f, n, n == 1 ? "" : "s",
                                 args.size()));
        }
    };
    auto real_of = [&](std::size_t k) { return real(args[k], c.args[k].loc); };
    auto result_like = [&](const Value& v, Expr e) {
        Value r = v;
        if (r.is_int())
            r.base = r.is_scalar() ? Base::Real : r.base;
        if (r.base == Base::Int)
            r.base = Base::Real;
        r.ints.clear();
        r.expr = e;
        return r;
    };
    auto real_scalar = [&](Expr e, int lvl = 0) {
        Value r;
        r.base = Base::Real;
        r.expr = e;
        r.level = lvl;
        return r;
    };
    if (has_user_function(f)) {
        auto r = call_user_function(f, args, at);
        if (!r) {
            Value none;
            none.base = Base::Real;
            return none;  // a void function: its effects (target +=) are done
        }
        return *r;
    }
    // Densities.
    if (auto [d, is_density] = density_name(f); is_density) {
        if (args.empty())
            fail(at, fmt::format("{} needs a variate", f));
        std::vector<Value> rest(args.begin() + 1, args.end());
        return real_scalar(density(d, args[0], rest, at, true), level);
    }
    if (f.size() > 4 && f.compare(f.size() - 4, 4, "_rng") == 0) {
        return random_draw(f.substr(0, f.size() - 4), args, at);
    }
    for (std::string_view suffix : {"_lcdf", "_lccdf", "_cdf"}) {
        if (f.size() > suffix.size() &&
            f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0) {
            fail(at, fmt::format("`{}` is not available: the library has no {} functions yet", f,
                                 suffix.substr(1)));
        }
    }
    // Elementwise functions of one argument.
    if (auto it = elementwise_functions().find(f); it != elementwise_functions().end()) {
        arity(1);
        return result_like(args[0], it->second(real_of(0)));
    }
    if (auto it = elementwise_binary_functions().find(f);
        it != elementwise_binary_functions().end()) {
        arity(2);
        Value a = args[0], b = args[1];
        const Value r = binary(BinaryOp::Add, a, b, at);  // the broadcast type and layout
        const int lv = r.level;
        Expr x = real(at_level(a, lv, at), at), y = real(at_level(b, lv, at), at);
        if (lv > 0 && x.shape() != y.shape()) {
            // per-iteration scalar against per-iteration vector: the sum already spread them
            fail(at,
                 fmt::format("{} of {} and {}: mixed batched shapes", f, type_str(a), type_str(b)));
        }
        return result_like(r, it->second(x, y));
    }
    // Constants.
    if (args.empty()) {
        if (f == "pi")
            return constant(M_PI);
        if (f == "e")
            return constant(M_E);
        if (f == "sqrt2")
            return constant(std::sqrt(2.0));
        if (f == "log2")
            return constant(std::log(2.0));
        if (f == "log10")
            return constant(std::log(10.0));
        if (f == "positive_infinity")
            return constant(std::numeric_limits<double>::infinity());
        if (f == "negative_infinity")
            return constant(-std::numeric_limits<double>::infinity());
        if (f == "not_a_number")
            return constant(std::numeric_limits<double>::quiet_NaN());
        if (f == "machine_precision")
            return constant(std::numeric_limits<double>::epsilon());
        if (f == "target" || f == "get_lp")
            fail(at, "`target()` is not supported: the lowering has no running total");
    }
    // Sizes: known ints.
    if (f == "num_elements" || f == "size" || f == "rows" || f == "cols") {
        arity(1);
        const Value& v = args[0];
        if (f == "num_elements")
            return int_scalar(static_cast<int>(v.size()));
        if (f == "size")
            return int_scalar(v.dims.empty() ? (v.sizes.empty() ? 1 : v.sizes[0]) : v.dims[0]);
        if (f == "rows")
            return int_scalar(v.sizes.empty() ? 1 : v.sizes[0]);
        return int_scalar(v.sizes.size() < 2 ? (v.base == Base::RowVector ? v.sizes[0] : 1)
                                             : v.sizes[1]);
    }
    // Integer functions on known ints.
    if ((f == "max" || f == "min" || f == "sum" || f == "abs") && !args.empty() &&
        args[0].is_int() && (args.size() == 1 || args[1].is_int()) && level == 0) {
        const auto& v = args[0].ints;
        if (f == "abs")
            return int_scalar(std::abs(v[0]));
        if (args.size() == 2) {
            return int_scalar(f == "max" ? std::max(v[0], args[1].ints[0])
                                         : std::min(v[0], args[1].ints[0]));
        }
        if (f == "sum") {
            long s = 0;
            for (int x : v) s += x;
            return int_scalar(static_cast<int>(s));
        }
        if (v.empty())
            fail(at, fmt::format("{} of an empty array", f));
        return int_scalar(f == "max" ? *std::max_element(v.begin(), v.end())
                                     : *std::min_element(v.begin(), v.end()));
    }
    // Reductions: a batched vector reduces per iteration (per row).
    auto batched_vector = [&](std::size_t k) {
        return args[k].level > 0 && rank_of_value(args[k]) == 1;
    };
    if (f == "sum" || f == "log_sum_exp" || f == "mean" || f == "dot_self" || f == "prod" ||
        f == "variance" || f == "sd" || f == "max" || f == "min") {
        if (f == "log_sum_exp" && args.size() == 2) {
            const Value r = binary(BinaryOp::Add, args[0], args[1], at);
            const int lv = r.level;
            const Expr x = real(at_level(args[0], lv, at), at),
                       y = real(at_level(args[1], lv, at), at);
            if (rank_of_value(r) > 0 || lv > 0) {
                // elementwise log(exp(x) + exp(y)) = max + log1p(exp(-|x - y|))
                return result_like(r, fmax(x, y) + log1p_exp(-fabs(x - y)));
            }
            return result_like(r, log_sum_exp(x, y));
        }
        arity(1);
        if (args[0].level > 0 && rank_of_value(args[0]) == 0) {
            fail(at, fmt::format("{} of a scalar", f));
        }
        const Expr x = real_of(0);
        if (batched_vector(0)) {
            const int n = args[0].sizes.empty() ? args[0].dims[0] : args[0].sizes[0];
            if (f == "sum")
                return real_scalar(row_sums(x), level);
            if (f == "log_sum_exp")
                return real_scalar(log_sum_exp_rows(x), level);
            if (f == "mean")
                return real_scalar(row_sums(x) / static_cast<double>(n), level);
            if (f == "dot_self")
                return real_scalar(row_sums(square(x)), level);
            throw NotVectorisable(at,
                                  fmt::format("{} of a vector that differs between iterations", f));
        }
        if (level > 0)
            throw NotVectorisable(at,
                                  fmt::format("{} of a matrix that differs between iterations", f));
        if (f == "sum")
            return real_scalar(sum(x));
        if (f == "log_sum_exp")
            return real_scalar(log_sum_exp(x));
        if (f == "mean")
            return real_scalar(mean(x));
        if (f == "dot_self")
            return real_scalar(dot_self(x));
        if (f == "prod")
            return real_scalar(prod(x));
        if (f == "variance")
            return real_scalar(variance(x));
        if (f == "sd")
            return real_scalar(sd(x));
        if (f == "max")
            return real_scalar(max(x));
        return real_scalar(min(x));
    }
    if (f == "dot_product") {
        arity(2);
        Value a = args[0], b = args[1];
        a.base = Base::RowVector;
        b.base = Base::Vector;
        return binary(BinaryOp::Multiply, a, b, at);
    }
    if (f == "log_mix") {
        arity(3);
        // log(theta exp(a) + (1 - theta) exp(b)), elementwise
        const Value theta = args[0];
        const Value la = binary(BinaryOp::Add, call_log(theta, at), args[1], at);
        const Value lb = binary(BinaryOp::Add, call_log1m(theta, at), args[2], at);
        const Value r = binary(BinaryOp::Add, la, lb, at);
        const int lv = r.level;
        const Expr x = real(at_level(la, lv, at), at), y = real(at_level(lb, lv, at), at);
        return result_like(r, fmax(x, y) + log1p_exp(-fabs(x - y)));
    }
    if (level > 0)
        throw NotVectorisable(at, fmt::format("`{}` of values that differ between iterations", f));
    // Linear algebra and building vectors, on whole values.
    auto vec = [&](Expr e, int n, Base b = Base::Vector) {
        Value r;
        r.base = b;
        r.sizes = {n};
        r.expr = e;
        return r;
    };
    auto mat = [&](Expr e) {
        Value r;
        r.base = Base::Matrix;
        r.sizes = {e.shape().rows, e.shape().cols};
        r.expr = e;
        return r;
    };
    auto int_arg = [&](std::size_t k) {
        if (!args[k].is_int() || !args[k].is_scalar())
            fail(c.args[k].loc, fmt::format("{}: expected an int", f));
        return args[k].ints[0];
    };
    try {
        if (f == "rep_vector" || f == "rep_row_vector") {
            arity(2);
            return vec(rep_vector(real_of(0), int_arg(1)), int_arg(1),
                       f == "rep_vector" ? Base::Vector : Base::RowVector);
        }
        if (f == "rep_array") {
            if (args.size() != 2)
                fail(at, "rep_array: only the one-dimensional form is supported");
            if (args[0].is_int()) {
                Value r;
                r.base = Base::Int;
                r.dims = {int_arg(1)};
                r.ints.assign(static_cast<std::size_t>(int_arg(1)), int_arg(0));
                return r;
            }
            Value r = vec(rep_vector(real_of(0), int_arg(1)), int_arg(1));
            r.base = Base::Real;
            r.dims = {int_arg(1)};
            r.sizes.clear();
            return r;
        }
        if (f == "rep_matrix") {
            if (args.size() == 3)
                return mat(rep_matrix(real_of(0), int_arg(1), int_arg(2)));
            arity(2);
            if (args[0].base == Base::RowVector)
                return mat(rep_matrix_rows(real_of(0), int_arg(1)));
            return mat(rep_matrix(real_of(0), int_arg(1)));
        }
        if (f == "to_vector" || f == "to_row_vector") {
            arity(1);
            const Expr x = real_of(0);
            return vec(x.shape().is_matrix()   ? to_vector(x)
                       : x.shape().is_scalar() ? rep_vector(x, 1)
                                               : x,
                       static_cast<int>(args[0].size()),
                       f == "to_vector" ? Base::Vector : Base::RowVector);
        }
        if (f == "to_matrix") {
            if (args.size() == 3)
                return mat(
                    to_matrix(real_of(0).shape().is_matrix() ? to_vector(real_of(0)) : real_of(0),
                              int_arg(1), int_arg(2)));
            arity(1);
            return mat(real_of(0));
        }
        if (f == "head" || f == "tail") {
            arity(2);
            Value r = args[0];
            const int n = int_arg(1);
            r.expr = f == "head" ? head(real_of(0), n) : tail(real_of(0), n);
            (r.dims.empty() ? r.sizes : r.dims)[0] = n;
            if (r.is_int())
                fail(at, fmt::format("{} of an int array is not supported", f));
            return r;
        }
        if (f == "segment") {
            arity(3);
            Value r = args[0];
            r.expr = segment(real_of(0), int_arg(1) - 1, int_arg(2));
            (r.dims.empty() ? r.sizes : r.dims)[0] = int_arg(2);
            return r;
        }
        if (f == "append_row") {
            arity(2);
            const Expr x = real_of(0), y = real_of(1);
            const Expr e = append_row(x, y);
            if (e.shape().is_matrix())
                return mat(e);
            return vec(e, e.shape().size());
        }
        if (f == "append_col") {
            arity(2);
            return mat(append_col(real_of(0), real_of(1)));
        }
        if (f == "col") {
            arity(2);
            return vec(col(real_of(0), int_arg(1) - 1), args[0].sizes[0]);
        }
        if (f == "row") {
            arity(2);
            return vec(row(real_of(0), int_arg(1) - 1), args[0].sizes[1], Base::RowVector);
        }
        if (f == "block") {
            arity(5);
            return mat(block(real_of(0), int_arg(1) - 1, int_arg(2) - 1, int_arg(3), int_arg(4)));
        }
        if (f == "diag_matrix") {
            arity(1);
            return mat(diag_matrix(real_of(0)));
        }
        if (f == "diagonal") {
            arity(1);
            return vec(diagonal(real_of(0)), args[0].sizes[0]);
        }
        if (f == "diag_pre_multiply") {
            arity(2);
            return mat(diag_pre_multiply(real_of(0), real_of(1)));
        }
        if (f == "diag_post_multiply") {
            arity(2);
            return mat(diag_post_multiply(real_of(0), real_of(1)));
        }
        if (f == "quad_form") {
            arity(2);
            const Expr e = quad_form(real_of(0), real_of(1));
            return e.shape().is_scalar() ? real_scalar(e) : mat(e);
        }
        if (f == "crossprod") {
            arity(1);
            return mat(crossprod(real_of(0)));
        }
        if (f == "tcrossprod") {
            arity(1);
            return mat(tcrossprod(real_of(0)));
        }
        if (f == "transpose") {
            arity(1);
            return mat(transpose(real_of(0)));
        }
        if (f == "trace") {
            arity(1);
            return real_scalar(trace(real_of(0)));
        }
        if (f == "cholesky_decompose") {
            arity(1);
            return mat(cholesky_decompose(real_of(0)));
        }
        if (f == "multiply_lower_tri_self_transpose") {
            arity(1);
            return mat(multiply_lower_tri_self_transpose(real_of(0)));
        }
        if (f == "log_determinant") {
            arity(1);
            return real_scalar(log_determinant(real_of(0)));
        }
        if (f == "inverse" || f == "inverse_spd") {
            arity(1);
            return mat(f == "inverse" ? inverse(real_of(0)) : inverse_spd(real_of(0)));
        }
        if (f == "mdivide_left_tri_low") {
            arity(2);
            const Expr e = mdivide_left_tri_low(real_of(0), real_of(1));
            return e.shape().is_matrix() ? mat(e) : vec(e, e.shape().size());
        }
        if (f == "mdivide_right_tri_low") {
            arity(2);
            const Expr e = mdivide_right_tri_low(real_of(0), real_of(1));
            return e.shape().is_matrix() ? mat(e) : vec(e, e.shape().size(), Base::RowVector);
        }
        if (f == "rows_dot_product" || f == "columns_dot_product") {
            arity(2);
            const Expr e = f == "rows_dot_product" ? rows_dot_product(real_of(0), real_of(1))
                                                   : columns_dot_product(real_of(0), real_of(1));
            return vec(e, e.shape().size(),
                       f == "rows_dot_product" ? Base::Vector : Base::RowVector);
        }
        if (f == "rows_dot_self" || f == "columns_dot_self") {
            arity(1);
            const Expr e =
                f == "rows_dot_self" ? rows_dot_self(real_of(0)) : columns_dot_self(real_of(0));
            return vec(e, e.shape().size(), f == "rows_dot_self" ? Base::Vector : Base::RowVector);
        }
        if (f == "softmax" || f == "log_softmax") {
            arity(1);
            return vec(f == "softmax" ? softmax(real_of(0)) : log_softmax(real_of(0)),
                       args[0].sizes[0]);
        }
        if (f == "cumulative_sum") {
            arity(1);
            Value r = args[0];
            r.expr = cumulative_sum(real_of(0));
            return result_like(r, r.expr);
        }
    } catch (const Error& e) {
        fail(at, fmt::format("{}: {}", f, e.what()));
    }
    fail(at, fmt::format("unknown function `{}`", f));
}

bool is_known_function(std::string_view f) {
    // the names `call` handles by name below (besides the tables and densities)
    static const std::set<std::string, std::less<>> named = {"pi",
                                                             "e",
                                                             "sqrt2",
                                                             "log2",
                                                             "log10",
                                                             "positive_infinity",
                                                             "negative_infinity",
                                                             "not_a_number",
                                                             "machine_precision",
                                                             "num_elements",
                                                             "size",
                                                             "rows",
                                                             "cols",
                                                             "max",
                                                             "min",
                                                             "sum",
                                                             "abs",
                                                             "log_sum_exp",
                                                             "mean",
                                                             "dot_self",
                                                             "prod",
                                                             "variance",
                                                             "sd",
                                                             "dot_product",
                                                             "log_mix",
                                                             "rep_vector",
                                                             "rep_row_vector",
                                                             "rep_array",
                                                             "rep_matrix",
                                                             "to_vector",
                                                             "to_row_vector",
                                                             "to_matrix",
                                                             "head",
                                                             "tail",
                                                             "segment",
                                                             "append_row",
                                                             "append_col",
                                                             "col",
                                                             "row",
                                                             "block",
                                                             "diag_matrix",
                                                             "diagonal",
                                                             "diag_pre_multiply",
                                                             "diag_post_multiply",
                                                             "quad_form",
                                                             "crossprod",
                                                             "tcrossprod",
                                                             "transpose",
                                                             "trace",
                                                             "cholesky_decompose",
                                                             "multiply_lower_tri_self_transpose",
                                                             "log_determinant",
                                                             "inverse",
                                                             "inverse_spd",
                                                             "mdivide_left_tri_low",
                                                             "mdivide_right_tri_low",
                                                             "rows_dot_product",
                                                             "columns_dot_product",
                                                             "rows_dot_self",
                                                             "columns_dot_self",
                                                             "softmax",
                                                             "log_softmax",
                                                             "cumulative_sum"};
    static const std::set<std::string, std::less<>> rngs = {"normal",
                                                            "std_normal",
                                                            "lognormal",
                                                            "exponential",
                                                            "uniform",
                                                            "cauchy",
                                                            "logistic",
                                                            "gumbel",
                                                            "weibull",
                                                            "double_exponential",
                                                            "gamma",
                                                            "inv_gamma",
                                                            "chi_square",
                                                            "beta",
                                                            "student_t",
                                                            "bernoulli",
                                                            "bernoulli_logit",
                                                            "poisson",
                                                            "poisson_log",
                                                            "binomial",
                                                            "binomial_logit",
                                                            "neg_binomial_2",
                                                            "neg_binomial_2_log"};
    if (named.count(f) || elementwise_functions().count(f) ||
        elementwise_binary_functions().count(f)) {
        return true;
    }
    const std::string name(f);
    if (name.size() > 4 && name.compare(name.size() - 4, 4, "_rng") == 0) {
        return rngs.count(name.substr(0, name.size() - 4)) > 0;
    }
    if (auto [d, is_density] = density_name(name); is_density)
        return is_known_distribution(d);
    return false;
}

bool is_known_distribution(std::string_view d) {
    if (d == "std_normal")
        return true;
    for (const DistInfo& info : distributions()) {
        if (info.name == d)
            return true;
    }
    return false;
}

Value Lowerer::random_draw(const std::string& d, const std::vector<Value>& args, Loc at) {
    if (block_kind() != BlockKind::GeneratedQuantities) {
        fail(at, fmt::format("`{}_rng` is for generated quantities only", d));
    }
    // The result's layout: the broadcast of the arguments (a scalar without arguments).
    Value like = constant(0);
    for (const Value& a : args) like = binary(BinaryOp::Add, like, a, at);
    // Each iteration of the enclosing vectorised loops draws its own number.
    const int level = std::max(like.level, static_cast<int>(levels_.size()));
    like.level = level;
    if (rank_of_value(like) > 1)
        fail(at, fmt::format("`{}_rng` of matrices is not supported", d));
    const std::int64_t n = static_cast<std::int64_t>(batch_size(level)) * like.size();
    auto input = [&](bool normal) -> Expr {
        Eigen::VectorXd& values = out_.random_input(n, normal);
        Expr e = m().data(fresh_name(normal ? "normal" : "uniform"), values);
        if (level == 0 && rank_of_value(like) == 0)
            return sum(e);
        if (level > 0 && rank_of_value(like) == 1) {
            return to_matrix(e, batch_size(level), static_cast<int>(like.size()));
        }
        return e;
    };
    auto arg = [&](std::size_t k) { return spread(args[k], like, level, at); };
    auto expect = [&](std::size_t n_args) {
        if (args.size() != n_args) {
            fail(at, fmt::format("{}_rng takes {} argument{}, got {}", d, n_args,
                                 n_args == 1 ? "" : "s", args.size()));
        }
    };
    Graph& g = const_cast<Graph&>(m().nodes());
    auto quantile = [&](Op op, std::vector<Expr> in) {
        NodeId ids[3] = {kNoNode, kNoNode, kNoNode};
        for (std::size_t k = 0; k < in.size(); ++k) ids[k] = in[k].id();
        return m().wrap(g.apply(op, ids[0], ids[1], ids[2]));
    };
    auto sign = [](const Expr& x) { return 2.0 * step(x) - 1.0; };
    Value r = like;
    r.ints.clear();
    if (r.base == Base::Int)
        r.base = Base::Real;
    bool discrete = false;
    Expr x;
    try {
        if (d == "normal") {
            expect(2);
            x = arg(0) + arg(1) * input(true);
        } else if (d == "std_normal") {
            expect(0);
            x = input(true);
        } else if (d == "lognormal") {
            expect(2);
            x = exp(arg(0) + arg(1) * input(true));
        } else if (d == "exponential") {
            expect(1);
            x = -log(input(false)) / arg(0);
        } else if (d == "uniform") {
            expect(2);
            x = arg(0) + (arg(1) - arg(0)) * input(false);
        } else if (d == "cauchy") {
            expect(2);
            const Expr a = M_PI * (input(false) - 0.5);
            x = arg(0) + arg(1) * (sin(a) / cos(a));
        } else if (d == "logistic") {
            expect(2);
            x = arg(0) + arg(1) * logit(input(false));
        } else if (d == "gumbel") {
            expect(2);
            x = arg(0) - arg(1) * log(-log(input(false)));
        } else if (d == "weibull") {
            expect(2);
            x = arg(1) * pow(-log(input(false)), 1.0 / arg(0));
        } else if (d == "double_exponential") {
            expect(2);
            const Expr c = input(false) - 0.5;
            x = arg(0) - arg(1) * sign(c) * log1m(2.0 * fabs(c));
        } else if (d == "gamma") {
            expect(2);
            x = quantile(Op::GammaQuantile, {input(false), arg(0), arg(1)});
        } else if (d == "inv_gamma") {
            expect(2);
            x = 1.0 / quantile(Op::GammaQuantile, {input(false), arg(0), arg(1)});
        } else if (d == "chi_square") {
            expect(1);
            x = quantile(Op::GammaQuantile, {input(false), 0.5 * arg(0), m().constant(0.5)});
        } else if (d == "beta") {
            expect(2);
            x = quantile(Op::BetaQuantile, {input(false), arg(0), arg(1)});
        } else if (d == "student_t") {
            expect(3);
            x = arg(1) + arg(2) * quantile(Op::StudentTQuantile, {input(false), arg(0)});
        } else if (d == "bernoulli") {
            expect(1);
            x = step(arg(0) - input(false));
            discrete = true;
        } else if (d == "bernoulli_logit") {
            expect(1);
            x = step(inv_logit(arg(0)) - input(false));
            discrete = true;
        } else if (d == "poisson") {
            expect(1);
            x = quantile(Op::PoissonQuantile, {input(false), arg(0)});
            discrete = true;
        } else if (d == "poisson_log") {
            expect(1);
            x = quantile(Op::PoissonQuantile, {input(false), exp(arg(0))});
            discrete = true;
        } else if (d == "binomial") {
            expect(2);
            x = quantile(Op::BinomialQuantile, {input(false), arg(0), arg(1)});
            discrete = true;
        } else if (d == "binomial_logit") {
            expect(2);
            x = quantile(Op::BinomialQuantile, {input(false), arg(0), inv_logit(arg(1))});
            discrete = true;
        } else if (d == "neg_binomial_2") {
            expect(2);
            x = quantile(Op::NegBinomial2Quantile, {input(false), arg(0), arg(1)});
            discrete = true;
        } else if (d == "neg_binomial_2_log") {
            expect(2);
            x = quantile(Op::NegBinomial2Quantile, {input(false), exp(arg(0)), arg(1)});
            discrete = true;
        } else {
            fail(at, fmt::format("`{}_rng` is not available", d));
        }
    } catch (const ParseError&) {
        throw;
    } catch (const Error& e) {
        fail(at, fmt::format("{}_rng: {}", d, e.what()));
    }
    r.expr = x;
    if (discrete) {
        // ints known per draw; vectors of them are int arrays
        r.base = Base::Int;
        if (!r.sizes.empty()) {
            r.dims.insert(r.dims.end(), r.sizes.begin(), r.sizes.end());
            r.sizes.clear();
        }
    }
    return r;
}

Value Lowerer::call_log(const Value& v, Loc at) {
    Value r = v;
    r.expr = log(real(v, at));
    if (r.is_int())
        r.base = r.is_scalar() ? Base::Real : r.base;
    r.ints.clear();
    if (r.base == Base::Int)
        r.base = Base::Real;
    return r;
}

Value Lowerer::call_log1m(const Value& v, Loc at) {
    Value r = call_log(v, at);
    r.expr = log1m(real(v, at));
    return r;
}

}  // namespace advi::stan
