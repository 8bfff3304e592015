// Argument checks, the term accumulator, and lookup over the distribution table.
#include <advi/dist/distribution.hpp>

#include <cmath>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

void Terms::add(NodeId term) {
    if (propto_ && !g_.is_variable(term))
        return;
    const Shape& s = g_[term].shape;
    NodeId total;
    if (elementwise_) {
        if (s != shape_ && !s.is_scalar()) {
            throw InternalError(fmt::format(
                "log density term of shape {} over a variate of shape {}", s.str(), shape_.str()));
        }
        total = s == shape_ ? term : g_.broadcast(term, shape_);
    } else if (s == shape_) {
        total = shape_.is_scalar() ? term : g_.apply(Op::Sum, term);
    } else if (s.is_scalar()) {
        total = g_.apply(Op::Mul, g_.constant(static_cast<double>(shape_.size())), term);
    } else {
        throw InternalError(fmt::format("log density term of shape {} over a variate of shape {}",
                                        s.str(), shape_.str()));
    }
    total_ = total_ == kNoNode ? total : g_.apply(Op::Add, total_, total);
}

NodeId Terms::total() {
    if (total_ != kNoNode)
        return total_;
    return elementwise_ ? g_.constant(0.0, shape_) : g_.constant(0.0);
}

namespace {

std::string_view domain_name(ArgDomain d) {
    switch (d) {
        case ArgDomain::Real: return "real";
        case ArgDomain::Positive: return "positive";
        case ArgDomain::NonNegative: return "non-negative";
        case ArgDomain::Unit: return "in [0, 1]";
        case ArgDomain::Count: return "a non-negative integer";
    }
    return "?";
}

bool in_domain(ArgDomain d, double v) {
    switch (d) {
        case ArgDomain::Real: return std::isfinite(v);
        case ArgDomain::Positive: return v > 0 && std::isfinite(v);
        case ArgDomain::NonNegative: return v >= 0 && std::isfinite(v);
        case ArgDomain::Unit: return v >= 0 && v <= 1;
        case ArgDomain::Count: return v >= 0 && std::isfinite(v) && v == std::floor(v);
    }
    return false;
}

}  // namespace

Shape broadcast_of(const Graph& g, const DistInfo& d, NodeId x, std::span<const NodeId> args) {
    Shape shape = g[x].shape;
    for (NodeId a : args) {
        if (shape.is_scalar())
            shape = g[a].shape;
    }
    check_arguments(g, d, args, &shape);
    if (!g[x].shape.is_scalar() && g[x].shape != shape) {
        throw ShapeError(fmt::format("{}: the variate is {} but the arguments are {}", d.name,
                                     g[x].shape.str(), shape.str()));
    }
    return shape;
}

void check_arguments(const Graph& g, const DistInfo& d, std::span<const NodeId> args,
                     const Shape* variate) {
    if (static_cast<int>(args.size()) != d.arity) {
        throw ModelError(
            fmt::format("{}: expects {} arguments, got {}", d.name, d.arity, args.size()));
    }
    for (int k = 0; k < d.arity; ++k) {
        const Node& a = g[args[k]];
        if (variate != nullptr && !a.shape.is_scalar() && a.shape != *variate) {
            throw ShapeError(
                fmt::format("{}: argument `{}` is {} but the variate is {} (expected real or {})",
                            d.name, d.arg_names[k], a.shape.str(), variate->str(), variate->str()));
        }
        if (auto v = g.const_value(args[k]))
            check_argument_value(d, k, *v);
    }
}

void check_argument_value(const DistInfo& d, int k, double v, std::string_view where) {
    if (in_domain(d.arg_domains[k], v))
        return;
    throw ModelError(fmt::format("{}: argument `{}` must be {}, got {}{}", d.name, d.arg_names[k],
                                 domain_name(d.arg_domains[k]), v,
                                 where.empty() ? "" : fmt::format(" ({})", where)));
}

const DistInfo& distribution(std::string_view name) {
    for (const DistInfo& d : distributions()) {
        if (d.name == name)
            return d;
    }
    std::string names;
    for (const DistInfo& d : distributions())
        names += (names.empty() ? "" : ", ") + std::string(d.name);
    throw ModelError(fmt::format("unknown distribution `{}` (known: {})", name, names));
}

NodeId log_density(Graph& g, const DistInfo& d, NodeId x, std::span<const NodeId> args,
                   bool propto) {
    const Shape variate = g[x].shape;
    check_arguments(g, d, args, d.multivariate ? nullptr : &variate);
    if (d.variate == DType::Int && g[x].dtype != DType::Int) {
        throw ModelError(
            fmt::format("{}: the variate must be integer data (counts or outcomes), "
                        "got a real {}{}",
                        d.name, variate.str(), g.label(x).empty() ? "" : " `" + g.label(x) + "`"));
    }
    if (d.multivariate) {
        Terms t(g, Shape::scalar(), propto);
        d.log_density(t, x, args);
        return t.total();
    }
    // The density is over the broadcast of variate and arguments (a scalar variate with a
    // vector argument counts once per argument element).
    Shape shape = variate;
    for (NodeId a : args) {
        if (shape.is_scalar())
            shape = g[a].shape;
    }
    Terms t(g, shape, propto);
    const NodeId xr = g[x].dtype == DType::Int ? g.apply(Op::ToReal, x) : x;
    d.log_density(t, xr, args);
    return t.total();
}

NodeId log_density_elementwise(Graph& g, const DistInfo& d, NodeId x,
                               std::span<const NodeId> args) {
    if (d.multivariate) {
        throw ModelError(
            fmt::format("{}: a multivariate density has no per-element values", d.name));
    }
    const Shape variate = g[x].shape;
    check_arguments(g, d, args, &variate);
    if (d.variate == DType::Int && g[x].dtype != DType::Int) {
        throw ModelError(
            fmt::format("{}: the variate must be integer data (counts or outcomes), "
                        "got a real {}",
                        d.name, variate.str()));
    }
    Shape shape = variate;
    for (NodeId a : args) {
        if (shape.is_scalar())
            shape = g[a].shape;
    }
    Terms t(g, shape, false, true);
    const NodeId xr = g[x].dtype == DType::Int ? g.apply(Op::ToReal, x) : x;
    d.log_density(t, xr, args);
    return t.total();
}

Support natural_support(const Graph& g, const DistInfo& d, std::span<const NodeId> args) {
    check_arguments(g, d, args, nullptr);
    return d.support(g, args);
}

}  // namespace advi
