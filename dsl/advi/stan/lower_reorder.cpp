#include <advi/stan/lower_reorder.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/cpp/linalg.hpp>
#include <advi/cpp/math.hpp>
#include <advi/graph/ops_sort.hpp>

namespace advi::stan {
namespace {

Graph& graph_of(CallSite& c) {
    return const_cast<Graph&>(c.m().nodes());
}

// The values of v if they are known while lowering (ints, or reals computed from data and
// constants), column-major; nothing if they depend on the parameters or are drawn per draw.
std::optional<std::vector<double>> known_values(CallSite& c, const Value& v) {
    if (v.is_known_int())
        return std::vector<double>(v.ints.begin(), v.ints.end());
    try {
        return c.m().evaluate(c.lowerer.real(v, c.at));
    } catch (const Error&) {
        return std::nullopt;
    }
}

// The length of a one-dimensional argument (an array of reals or ints, a vector, a row vector).
int length_1d(CallSite& c, const Value& v) {
    if (v.dims.size() == 1 && v.sizes.empty())
        return v.dims[0];
    if (v.dims.empty() && v.sizes.size() == 1)
        return v.sizes[0];
    c.fail(fmt::format("{} of {}: expected a one-dimensional value", c.name(), type_str(v)));
}

sort_ops::Order order_of(const CallSite& c) {
    return c.name().ends_with("desc") ? sort_ops::Order::Descending : sort_ops::Order::Ascending;
}

// The 0-based order that sorts known values, stable as the op (graph/ops_sort.hpp).
std::vector<int> known_order(const std::vector<double>& x, sort_ops::Order order) {
    std::vector<int> p(x.size());
    std::iota(p.begin(), p.end(), 0);
    auto less = [&](int a, int b) {
        if (std::isnan(x[a]) || std::isnan(x[b]))
            return !std::isnan(x[a]) && std::isnan(x[b]);
        return x[a] < x[b];
    };
    if (order == sort_ops::Order::Ascending)
        std::stable_sort(p.begin(), p.end(), less);
    else
        std::stable_sort(p.begin(), p.end(), [&](int a, int b) { return less(b, a); });
    return p;
}

Value int_array(std::vector<int> values) {
    Value r;
    r.base = Base::Int;
    r.dims = {static_cast<int>(values.size())};
    r.ints = std::move(values);
    return r;
}

// An int array known only per draw: its values are the integral reals of e.
Value runtime_int_array(Expr e, int n) {
    Value r;
    r.base = Base::Int;
    r.dims = {n};
    r.expr = std::move(e);
    return r;
}

// The position in column-major order of the multi-index `at` in `dims`.
std::size_t column_major(const std::vector<int>& at, const std::vector<int>& dims) {
    std::size_t pos = 0, stride = 1;
    for (std::size_t k = 0; k < dims.size(); ++k) {
        pos += static_cast<std::size_t>(at[k]) * stride;
        stride *= static_cast<std::size_t>(dims[k]);
    }
    return pos;
}

}  // namespace

Value sort_of(CallSite& c) {
    c.arity(1);
    const Value& x = c.args[0];
    const int n = length_1d(c, x);
    const sort_ops::Order order = order_of(c);
    if (x.is_known_int()) {
        const std::vector<int> p =
            known_order(std::vector<double>(x.ints.begin(), x.ints.end()), order);
        Value r = x;
        for (int j = 0; j < n; ++j) r.ints[j] = x.ints[p[j]];
        return r;
    }
    const Expr key = c.real_of(0);
    Value r = x;
    r.expr = c.m().wrap(sort_ops::sort_gather(graph_of(c), key.id(), key.id(), order));
    return r;
}

Value sort_indices_of(CallSite& c) {
    c.arity(1);
    const Value& x = c.args[0];
    const int n = length_1d(c, x);
    const sort_ops::Order order = order_of(c);
    if (const auto values = known_values(c, x)) {
        std::vector<int> p = known_order(*values, order);
        for (int& i : p) ++i;
        return int_array(std::move(p));
    }
    const Expr key = c.real_of(0);
    return runtime_int_array(c.m().wrap(sort_ops::arg_sort(graph_of(c), key.id(), order)), n);
}

Value rank_of(CallSite& c) {
    c.arity(2);
    const Value& x = c.args[0];
    const int n = length_1d(c, x);
    const int s = c.int_arg(1);
    if (s < 1 || s > n)
        c.fail(fmt::format("rank: s = {} must be in 1..{}", s, n));
    if (const auto values = known_values(c, x)) {
        const double at = (*values)[s - 1];
        return c.lowerer.int_scalar(static_cast<int>(
            std::count_if(values->begin(), values->end(), [&](double v) { return v < at; })));
    }
    // sum over j of [v_j < v_s] = 1 - step(v_j - v_s): piecewise constant, known per draw
    const Expr v = c.real_of(0);
    const Expr at = sum(segment(v, s - 1, 1));
    Value r;
    r.base = Base::Int;
    r.expr = sum(1.0 - step(v - at));
    return r;
}

Value reverse_of(CallSite& c) {
    c.arity(1);
    Value r = c.args[0];
    const int n = r.dims.empty() ? r.sizes.at(0) : r.dims[0];
    if (r.is_known_int()) {
        const Value& x = c.args[0];
        const std::size_t inner = x.ints.size() / static_cast<std::size_t>(std::max(n, 1));
        for (std::size_t rest = 0; rest < inner; ++rest) {
            for (int i = 0; i < n; ++i) {
                r.ints[i + n * rest] = x.ints[(n - 1 - i) + n * rest];
            }
        }
        return r;
    }
    if (r.base == Base::Matrix || r.dims.size() > 2 ||
        (r.dims.size() == 2 && r.base != Base::Real)) {
        c.fail(fmt::format("reverse of {} is not supported yet", type_str(r)));
    }
    Eigen::VectorXi idx(n);
    for (int i = 0; i < n; ++i) idx[i] = n - 1 - i;
    r.expr = c.real_of(0)[idx];  // a matrix layout: its rows, the array's elements
    return r;
}

Value to_array_1d_of(CallSite& c) {
    c.arity(1);
    const Value& x = c.args[0];
    const int n = static_cast<int>(x.size());
    if (x.is_known_int()) {
        // Stan's order: row-major over the array's indices (the last fastest)
        std::vector<int> out;
        out.reserve(x.ints.size());
        std::vector<int> at(x.dims.size(), 0);
        for (std::size_t k = 0; k < x.ints.size(); ++k) {
            out.push_back(x.ints[column_major(at, x.dims)]);
            for (int d = static_cast<int>(at.size()) - 1; d >= 0; --d) {
                if (++at[d] < x.dims[d])
                    break;
                at[d] = 0;
            }
        }
        return int_array(std::move(out));
    }
    const Expr e = c.real_of(0);
    Expr flat;
    if (x.dims.empty())  // a vector or row vector as it is; a matrix column-major
        flat = x.base == Base::Matrix ? to_vector(e) : e;
    else if (x.dims.size() == 1 && x.sizes.empty())
        flat = e;
    else if (e.shape().is_matrix() && x.base != Base::Matrix && x.dims.size() + x.sizes.size() == 2)
        flat = to_vector(transpose(e));  // array[n, m] real, array[n] vector[m]: row by row
    else
        c.fail(fmt::format("to_array_1d of {} is not supported yet", type_str(x)));
    Value r;
    r.base = x.is_int() ? Base::Int : Base::Real;
    r.dims = {n};
    r.expr = flat;
    return r;
}

Value to_array_2d_of(CallSite& c) {
    c.arity(1);
    const Value& x = c.args[0];
    Value r;
    r.base = Base::Real;
    r.dims = x.sizes;  // matrix[r, c] -> array[r, c] real: the same layout
    r.expr = c.real_of(0);
    return r;
}

Value to_int_of(CallSite& c) {
    c.arity(1);
    const Value& x = c.args[0];
    if (x.is_known_int())
        return x;
    const auto values = known_values(c, x);
    if (!values)
        c.fail("to_int of values that depend on the parameters: Stan takes data only");
    std::vector<int> out;
    for (double v : *values) {
        if (!(std::fabs(v) < static_cast<double>(std::numeric_limits<int>::max()) + 1.0))
            c.fail(fmt::format("to_int: {} is outside the range of an int", v));
        out.push_back(static_cast<int>(std::trunc(v)));
    }
    if (x.is_scalar())
        return c.lowerer.int_scalar(out[0]);
    Value r;
    r.base = Base::Int;
    r.dims = x.dims;
    r.ints = std::move(out);
    return r;
}

Value is_nan_or_inf_of(CallSite& c) {
    c.arity(1);
    const auto values = known_values(c, c.args[0]);
    if (!values || values->size() != 1) {
        c.fail(fmt::format("{} of values that depend on the parameters is not supported yet",
                           c.name()));
    }
    const double v = (*values)[0];
    return c.lowerer.int_scalar(c.name() == "is_nan" ? std::isnan(v) : std::isinf(v));
}

Value quantile_of(CallSite& c) {
    c.arity(2);
    const auto xs = known_values(c, c.args[0]);
    const auto ps = known_values(c, c.args[1]);
    if (!xs || !ps)
        c.fail("quantile of values that depend on the parameters: Stan takes data only");
    std::vector<double> x = *xs;
    if (x.empty())
        c.fail("quantile of no values");
    std::sort(x.begin(), x.end());
    const auto n = static_cast<double>(x.size());
    Eigen::VectorXd q(static_cast<Eigen::Index>(ps->size()));
    for (std::size_t k = 0; k < ps->size(); ++k) {
        const double p = (*ps)[k];
        if (!(p >= 0 && p <= 1))
            c.fail(fmt::format("quantile: p = {} must be in [0, 1]", p));
        // R's type 7: h = (n - 1) p, between the order statistics floor(h) and floor(h) + 1
        const double h = (n - 1) * p;
        const auto lo = static_cast<std::size_t>(std::floor(h));
        const std::size_t hi = std::min(lo + 1, x.size() - 1);
        q[static_cast<Eigen::Index>(k)] = x[lo] + (h - std::floor(h)) * (x[hi] - x[lo]);
    }
    if (c.args[1].is_scalar())
        return c.lowerer.constant(q[0]);
    Value r;
    r.base = Base::Real;
    r.dims = {static_cast<int>(q.size())};
    r.expr = c.lowerer.known_reals(std::move(q));
    return r;
}

Value append_array_of(CallSite& c) {
    c.arity(2);
    const Value &a = c.args[0], &b = c.args[1];
    if (a.dims.empty() || b.dims.empty())
        c.fail("append_array takes two arrays");
    auto inner = [](const Value& v) {
        std::vector<int> s(v.dims.begin() + 1, v.dims.end());
        s.insert(s.end(), v.sizes.begin(), v.sizes.end());
        return s;
    };
    if (a.base != b.base || inner(a) != inner(b)) {
        c.fail(fmt::format("append_array of {} and {}: the elements differ in type or size",
                           type_str(a), type_str(b)));
    }
    Value r = a;
    r.dims[0] = a.dims[0] + b.dims[0];
    if (a.is_known_int() && b.is_known_int()) {
        // column-major, the outer index fastest: element (i, rest) at i + n rest
        const int na = a.dims[0], nb = b.dims[0];
        const std::size_t rest = na == 0 ? (nb == 0 ? 0 : b.ints.size() / nb) : a.ints.size() / na;
        r.ints.clear();
        for (std::size_t j = 0; j < rest; ++j) {
            for (int i = 0; i < na; ++i) r.ints.push_back(a.ints[i + na * j]);
            for (int i = 0; i < nb; ++i) r.ints.push_back(b.ints[i + nb * j]);
        }
        return r;
    }
    const Expr x = c.real_of(0), y = c.real_of(1);
    if (a.base == Base::Matrix || a.dims.size() + a.sizes.size() > 2)
        c.fail(fmt::format("append_array of {} is not supported yet", type_str(a)));
    // a one-element array of reals is a scalar node: one row (or element) of the result
    auto as_rows = [&](const Expr& e, const Value& v) {
        if (v.dims.size() + v.sizes.size() == 1)
            return e.shape().is_scalar() ? rep_vector(e, 1) : e;
        return e.shape().is_matrix() ? e : to_matrix(to_vector(e), 1, static_cast<int>(v.size()));
    };
    r.expr = append_row(as_rows(x, a), as_rows(y, b));
    r.ints.clear();
    return r;
}

}  // namespace advi::stan
