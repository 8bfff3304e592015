// The model builder: every call interns nodes through the graph and records latents,
// data slots and log-density terms; errors name the variable or slot at fault.
#include <advi/cpp/model.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/dist/wiener.hpp>
#include <advi/transform/transform.hpp>

namespace advi {

Dist dist(std::string_view name, std::vector<Arg> args) {
    return Dist{&distribution(name), std::move(args)};
}

namespace {

// rows x cols elements as one graph node, which indexes with int: refused beyond INT_MAX
// elements and, for a parameter (whose values the fit will allocate, several times over),
// beyond the memory budget. Data the caller holds are in memory already. Returns the count.
int node_size(const std::string& what, Eigen::Index rows, Eigen::Index cols,
              bool allocates = false) {
    const auto count =
        checked_product({static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)});
    if (allocates || !count)
        require_memory(fmt::format("{} ({} x {})", what, rows, cols), count);
    if (*count > std::numeric_limits<int>::max()) {
        throw SizeError(
            fmt::format("{} has {} x {} = {} elements, more than the {} a node can hold", what,
                        rows, cols, *count, std::numeric_limits<int>::max()));
    }
    return static_cast<int>(*count);
}

// Re-throws an error of the graph or distribution layer with the model context first:
// "param `beta` prior: normal: argument `sigma` must be positive, got -1".
template <class F>
auto in_context(const std::string& context, F&& f) {
    try {
        return f();
    } catch (const ShapeError& e) {
        throw ShapeError(context + ": " + e.what());
    } catch (const DataError& e) {
        throw DataError(context + ": " + e.what());
    } catch (const ModelError& e) {
        throw ModelError(context + ": " + e.what());
    }
}

}  // namespace

void Model::check_name(const std::string& name) const {
    const bool ok =
        !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    if (!ok)
        throw ModelError(fmt::format("`{}` is not a valid name", name));
    for (const auto& v : latents_) {
        if (v.name == name)
            throw ModelError(fmt::format("`{}` is already a parameter", name));
    }
    for (const auto& d : data_) {
        if (d.name == name)
            throw ModelError(fmt::format("`{}` is already a data slot", name));
    }
}

std::vector<double> Model::known_values(NodeId a) const {
    const Node& n = graph_[a];
    const int size = n.shape.size();
    if (n.op == Op::Const)
        return std::vector<double>(size, n.value);
    if (n.op == Op::Data && n.dtype == DType::Int) {  // integer data: read in place
        const int* v = data_[n.index].ints;
        return {v, v + size};
    }
    // Evaluate the data-only expression with a program of its own.
    Graph g = graph_;
    g.clear_outputs();
    g.set_output("value", a, 0);
    Program p = Program::compile(rebuild(g), data_, 0, size);
    Eigen::VectorXd none, value(size);
    p.run(none, value);
    return {value.data(), value.data() + size};
}

void Model::check_known_arguments(const DistInfo& d, std::span<const NodeId> args) const {
    for (std::size_t k = 0; k < args.size() && k < static_cast<std::size_t>(d.arity); ++k) {
        const NodeId a = args[k];
        if (graph_.is_variable(a) || graph_[a].op == Op::Const)
            continue;
        const std::vector<double> value = known_values(a);
        const std::string& label = graph_.label(a);
        for (std::size_t i = 0; i < value.size(); ++i) {
            check_argument_value(
                d, static_cast<int>(k), value[i],
                fmt::format("element {} of {}", i,
                            label.empty() ? "an expression of data" : "data `" + label + "`"));
        }
    }
}

void Model::check_upper_bound(const DistInfo& d, const DataSlot& y, NodeId bound) const {
    if (graph_.is_variable(bound))
        return;
    const std::vector<double> n = known_values(bound);
    // Either may be a scalar against the other's elements.
    const int size = std::max(y.shape.size(), static_cast<int>(n.size()));
    for (int k = 0; k < size; ++k) {
        const int yk = y.ints[y.shape.size() == 1 ? 0 : k];
        const double nk = n[n.size() == 1 ? 0 : k];
        if (yk > nk) {
            throw DataError(fmt::format("value {} at index {} is above {}'s `{}` = {}", yk, k,
                                        d.name, d.arg_names[d.upper_arg], nk));
        }
    }
}

void Model::check_draws(const DistInfo& d, const Support& s, const DataSlot& y) const {
    // A simplex is a vector: in a matrix of draws, each row is one; matrix supports
    // (correlation, covariance) hold for the whole variate.
    const bool rows = s.kind == Support::Kind::Simplex && y.shape.is_matrix();
    const Eigen::Map<const Eigen::MatrixXd> v(y.real, y.shape.rows, y.shape.cols);
    for (int r = 0; r < (rows ? y.shape.rows : 1); ++r) {
        const Eigen::VectorXd draw =
            rows ? Eigen::VectorXd(v.row(r).transpose())
                 : Eigen::Map<const Eigen::VectorXd>(y.real, y.shape.size());
        const Shape shape = rows ? Shape::vector(y.shape.cols) : y.shape;
        if (!s.contains(draw, shape)) {
            throw DataError(fmt::format("{} is outside the support {} of {}",
                                        rows ? fmt::format("row {}", r) : std::string("the value"),
                                        s.str(), d.name));
        }
    }
}

Expr Model::bind(std::string name, Shape shape, DType dtype, const double* real, const int* ints) {
    check_name(name);
    if (real != nullptr) {
        for (int k = 0; k < shape.size(); ++k) {
            if (!std::isfinite(real[k])) {
                throw DataError(fmt::format("data slot `{}`: element {} is {}, not a finite number",
                                            name, k, real[k]));
            }
        }
    }
    const auto slot = static_cast<std::int64_t>(data_.size());
    data_.push_back({name, shape, dtype, real, ints});
    return wrap(graph_.leaf(Op::Data, shape, dtype, slot, name));
}

Expr Model::data(std::string name, const Eigen::VectorXd& v) {
    const int n = node_size(fmt::format("data `{}`", name), v.size(), 1);
    return bind(std::move(name), Shape::vector(n), DType::Real, v.data(), nullptr);
}
Expr Model::data(std::string name, const Eigen::MatrixXd& m) {
    node_size(fmt::format("data `{}`", name), m.rows(), m.cols());
    return bind(std::move(name),
                Shape::matrix(static_cast<int>(m.rows()), static_cast<int>(m.cols())), DType::Real,
                m.data(), nullptr);
}
Expr Model::data(std::string name, const Eigen::VectorXi& v) {
    const int n = node_size(fmt::format("data `{}`", name), v.size(), 1);
    return bind(std::move(name), Shape::vector(n), DType::Int, nullptr, v.data());
}
Expr Model::owned_data(std::string name, Eigen::VectorXi v) {
    owned_int_vectors_.push_back(std::make_unique<Eigen::VectorXi>(std::move(v)));
    return data(std::move(name), *owned_int_vectors_.back());
}
Expr Model::data(std::string name, double v) {
    owned_reals_.push_back(std::make_unique<double>(v));
    return bind(std::move(name), Shape::scalar(), DType::Real, owned_reals_.back().get(), nullptr);
}
Expr Model::data(std::string name, int v) {
    owned_ints_.push_back(std::make_unique<int>(v));
    return bind(std::move(name), Shape::scalar(), DType::Int, nullptr, owned_ints_.back().get());
}

NodeId Model::resolve(const Arg& a) {
    if (a.is_array())
        return constant_array(a.array());
    if (!a.is_expr())
        return graph_.constant(a.value());
    if (&a.expr().model() != this)
        throw ModelError("an expression of another model was used here");
    return a.expr().id();
}

NodeId Model::constant_array(const std::shared_ptr<const ConstantArray>& c) {
    for (const auto& [held, id] : constants_) {
        if (held == c)
            return id;
    }
    const Eigen::MatrixXd& v = c->values;
    const std::string what = c->vector ? "vector" : "matrix";
    for (Eigen::Index k = 0; k < v.size(); ++k) {
        if (!std::isfinite(v.data()[k])) {
            throw DataError(
                fmt::format("a constant {} argument: element {} is {}, not a finite "
                            "number",
                            what, k, v.data()[k]));
        }
    }
    const std::string label = fmt::format("(constant {} {})", what, constants_.size() + 1);
    const Shape shape = c->vector
                            ? Shape::vector(node_size(label, v.size(), 1))
                            : Shape::matrix(static_cast<int>(v.rows()), static_cast<int>(v.cols()));
    if (!c->vector)
        node_size(label, v.rows(), v.cols());
    const auto slot = static_cast<std::int64_t>(data_.size());
    const DType dtype = c->integer ? DType::Int : DType::Real;
    data_.push_back({label, shape, dtype, c->integer ? nullptr : v.data(),
                     c->integer ? c->ints.data() : nullptr});
    const NodeId id = graph_.leaf(Op::Data, shape, dtype, slot, label);
    constants_.emplace_back(c, id);
    return id;
}

Expr Model::apply(Op op, const Expr& a, const Expr& b) {
    auto real = [&](const Expr& e) -> NodeId {
        if (&e.model() != this)
            throw ModelError("an expression of another model was used here");
        const bool reads_ints = op == Op::Gather || op == Op::ScatterAdd;
        if (graph_[e.id()].dtype == DType::Int && !(reads_ints && &e == &b)) {
            return graph_.apply(Op::ToReal, e.id());
        }
        return e.id();
    };
    const NodeId x = real(a);
    const NodeId y = b.valid() ? real(b) : kNoNode;
    return wrap(graph_.apply(op, x, y));
}

Expr Model::param(std::string name, const Dist& prior, ParamOptions options) {
    return param(std::move(name), prior, -1, -1, options);
}

Expr Model::param(std::string name, const Dist& prior, Eigen::Index n, ParamOptions options) {
    if (n < 0)
        throw ModelError(fmt::format("param `{}`: negative size {}", name, n));
    return param(std::move(name), prior, n, -2, options);
}

std::optional<Support> Model::declared_support(const std::string& name, Shape shape,
                                               const ParamOptions& options) {
    const bool bounds = options.lower || options.upper;
    const bool affine = options.offset || options.multiplier;
    if (!bounds && !affine)
        return options.support;
    if (options.support) {
        throw ModelError(
            fmt::format("param `{}`: give either a support or lower/upper/offset/"
                        "multiplier, not both",
                        name));
    }
    if (bounds && affine) {
        throw ModelError(
            fmt::format("param `{}`: bounds (lower, upper) cannot be combined with "
                        "offset and multiplier",
                        name));
    }
    auto arg = [&](const std::optional<Arg>& a, std::string_view what,
                   double absent) -> SupportArg {
        if (!a)
            return absent;
        if (!a->is_expr() && !a->is_array())
            return a->value();
        NodeId id = resolve(*a);
        if (graph_[id].dtype == DType::Int)
            id = graph_.apply(Op::ToReal, id);
        const Shape& s = graph_[id].shape;
        if (!s.is_scalar() && s != shape) {
            throw ShapeError(
                fmt::format("param `{}`: the {} is {} but the parameter is {} "
                            "(expected real or {})",
                            name, what, s.str(), shape.str(), shape.str()));
        }
        return SupportArg::expression(id);
    };
    if (affine) {
        return Support::affine(arg(options.offset, "offset", 0.0),
                               arg(options.multiplier, "multiplier", 1.0));
    }
    if (options.lower && options.upper) {
        return Support::interval(arg(options.lower, "lower bound", 0.0),
                                 arg(options.upper, "upper bound", 0.0));
    }
    if (options.lower)
        return Support::lower_bound(arg(options.lower, "lower bound", 0.0));
    return Support::upper_bound(arg(options.upper, "upper bound", 0.0));
}

Expr Model::param(std::string name, const Dist& prior, Eigen::Index rows, Eigen::Index cols,
                  ParamOptions options) {
    check_name(name);
    // (-1, -1): scalar; (n, -2): vector(n); else matrix(rows, cols).
    Shape shape;
    if (rows == -1 && cols == -1) {
        shape = Shape::scalar();
    } else if (cols == -2) {
        if (rows < 0)
            throw ModelError(fmt::format("param `{}`: negative size {}", name, rows));
        shape = Shape::vector(node_size(fmt::format("param `{}`", name), rows, 1, true));
    } else {
        if (rows < 0 || cols < 0) {
            throw ModelError(fmt::format("param `{}`: negative size {}x{}", name, rows, cols));
        }
        node_size(fmt::format("param `{}`", name), rows, cols, true);
        shape = Shape::matrix(static_cast<int>(rows), static_cast<int>(cols));
    }
    const std::string context = fmt::format("param `{}` prior", name);
    std::vector<NodeId> args;
    const Support natural = in_context(context, [&] {
        if (prior.info == nullptr)
            throw ModelError("no distribution given");
        const DistInfo& d = *prior.info;
        if (d.variate == DType::Int) {
            throw ModelError(
                fmt::format("{} is a distribution over integers; a latent variable "
                            "needs a continuous prior",
                            d.name));
        }
        for (const Arg& a : prior.args) args.push_back(resolve(a));
        const Support s = natural_support(graph_, d, args);
        check_known_arguments(d, args);
        return s;
    });
    const Support support = declared_support(name, shape, options).value_or(natural);
    if (!natural.covers(support)) {
        if (support.has_expression()) {
            throw ModelError(
                fmt::format("param `{}`: support {} has expression arguments and "
                            "cannot be checked against {}'s support {}; give "
                            "constant bounds or a prior over the real line",
                            name, support.str(), prior.info->name, natural.str()));
        }
        throw ModelError(fmt::format("{}: support {} is wider than {}'s support {}", context,
                                     support.str(), prior.info->name, natural.str()));
    }
    try {
        check_support_shape(support, shape);
    } catch (const ShapeError& e) {
        throw ShapeError(fmt::format("param `{}`: {}", name, e.what()));
    }
    if (!options.dims.empty()) {
        std::int64_t n = 1;
        for (const std::int64_t d : options.dims) n *= d;
        if (n != shape.size()) {
            throw ShapeError(fmt::format("param `{}`: dims [{}] hold {} values; its shape holds {}",
                                         name, fmt::join(options.dims, ", "), n, shape.size()));
        }
    }
    return in_context(context, [&] {
        const auto index = static_cast<std::int64_t>(latents_.size());
        const NodeId node = graph_.leaf(Op::Param, shape, DType::Real, index, name);
        add_term(advi::log_density(graph_, *prior.info, node, args));
        latents_.push_back(
            {name, shape, support, options.transform, node, options.dims, options.complex});
        return wrap(node);
    });
}

void Model::observe(const Expr& y, const Dist& d) {
    const std::string& label = graph_.label(y.id());
    const std::string context =
        label.empty() ? fmt::format("observe %{}", y.id()) : fmt::format("observe `{}`", label);
    in_context(context, [&] {
        const std::vector<NodeId> args = density_arguments(y, d);
        const Node& n = graph_[y.id()];
        // Data values are known now: check them against the support once, here, rather
        // than meet a NaN in the middle of a fit.
        if (n.op == Op::Data) {
            const DataSlot& slot = data_[n.index];
            if (d.info->variate == DType::Int && slot.ints != nullptr) {
                for (int k = 0; k < slot.shape.size(); ++k) {
                    if (!d.info->valid_int(slot.ints[k])) {
                        throw DataError(
                            fmt::format("value {} at index {} is outside the support of {}",
                                        slot.ints[k], k, d.info->name));
                    }
                }
                if (d.info->upper_arg >= 0)
                    check_upper_bound(*d.info, slot, args[d.info->upper_arg]);
            } else if (d.info->variate == DType::Real) {
                const Support s = natural_support(graph_, *d.info, args);
                for (int k = 0; k < slot.shape.size(); ++k) {
                    const double v = slot.real ? slot.real[k] : slot.ints[k];
                    if (!s.contains(v) && !(s.kind == Support::Kind::Real)) {
                        throw DataError(
                            fmt::format("value {} at index {} is outside the support {} of {}", v,
                                        k, s.str(), d.info->name));
                    }
                }
                if (d.info->multivariate && slot.real != nullptr)
                    check_draws(*d.info, s, slot);
            }
        }
        add_term(advi::log_density(graph_, *d.info, y.id(), args));
        return 0;
    });
}

std::vector<NodeId> Model::density_arguments(const Expr& y, const Dist& d) {
    if (&y.model() != this)
        throw ModelError("an expression of another model was used here");
    if (d.info == nullptr)
        throw ModelError("no distribution given");
    std::vector<NodeId> args;
    for (const Arg& a : d.args) args.push_back(resolve(a));
    check_known_arguments(*d.info, args);
    return args;
}

Expr Model::log_density(const Expr& y, const Dist& d, bool elementwise) {
    const std::vector<NodeId> args = density_arguments(y, d);
    const NodeId id = elementwise ? advi::log_density_elementwise(graph_, *d.info, y.id(), args)
                                  : advi::log_density(graph_, *d.info, y.id(), args);
    return wrap(id);
}

Expr Model::log_cdf_unnorm(const Expr& y, const Dist& d, Tail tail, bool elementwise) {
    const std::vector<NodeId> args = density_arguments(y, d);
    if (d.info->name != "wiener") {
        throw ModelError(
            fmt::format("{}: no unnormalised distribution function (only wiener's mass is not 1)",
                        d.info->name));
    }
    return wrap(wiener_log_cdf(graph_, y.id(), args, tail, elementwise));
}

Expr Model::log_cdf(const Expr& y, const Dist& d, Tail tail, bool elementwise) {
    const std::vector<NodeId> args = density_arguments(y, d);
    const std::string_view what = tail == Tail::Lower ? "lcdf" : "lccdf";
    if (has_graph_cdf(d.info->name, tail))
        return wrap(advi::log_cdf(graph_, *d.info, y.id(), args, tail, elementwise));
    const CdfInfo* c = find_cdf(d.info->name);
    if (c == nullptr)
        throw ModelError(fmt::format("{}: no {}", d.info->name, what));
    bool known = !graph_.is_variable(y.id());
    for (NodeId a : args) known = known && !graph_.is_variable(a);
    if (!known) {
        throw ModelError(
            fmt::format("{}_{} of values that depend on the parameters is not "
                        "supported yet: advi computes it only from data and "
                        "constants",
                        d.info->name, what));
    }
    // Numbers, over the broadcast of y and the arguments.
    Shape shape = graph_[y.id()].shape;
    for (NodeId a : args) {
        if (shape.is_scalar())
            shape = graph_[a].shape;
    }
    check_arguments(graph_, *d.info, args, &shape);
    const std::vector<double> ys = known_values(y.id());
    std::vector<std::vector<double>> as;
    for (NodeId a : args) as.push_back(known_values(a));
    const int n = shape.size();
    Eigen::VectorXd values(n);
    std::vector<double> at(args.size());
    for (int k = 0; k < n; ++k) {
        for (std::size_t j = 0; j < args.size(); ++j) {
            at[j] = as[j].size() == 1 ? as[j][0] : as[j][static_cast<std::size_t>(k)];
            check_argument_value(*d.info, static_cast<int>(j), at[j]);
        }
        const double x = ys.size() == 1 ? ys[0] : ys[static_cast<std::size_t>(k)];
        try {
            values[k] = std::log(c->probability(x, at, tail));
        } catch (const std::exception& e) {
            throw ModelError(fmt::format("{}_{}({} | ...): {}", d.info->name, what, x, e.what()));
        }
    }
    if (!elementwise)
        return constant(values.sum());
    if (shape.is_scalar())
        return constant(values[0]);
    if (shape.cols > 1) {
        const Eigen::MatrixXd m =
            Eigen::Map<const Eigen::MatrixXd>(values.data(), shape.rows, shape.cols);
        return wrap(resolve(Arg(m)));
    }
    return wrap(resolve(Arg(values)));
}

std::vector<double> Model::evaluate(const Expr& e) const {
    if (&e.model() != this)
        throw ModelError("an expression of another model was used here");
    if (graph_.is_variable(e.id())) {
        throw ModelError(
            "the value depends on a latent variable: only data and constants are known "
            "before the fit");
    }
    return known_values(e.id());
}

Expr Model::constant(double v) {
    return wrap(graph_.constant(v));
}

void Model::target_add(const Expr& term) {
    if (&term.model() != this)
        throw ModelError("target_add: an expression of another model");
    add_term(term.shape().is_scalar() ? term.id() : apply(Op::Sum, term).id());
}

void Model::jacobian_add(const Expr& term) {
    if (&term.model() != this)
        throw ModelError("jacobian_add: an expression of another model");
    jacobian_terms_.push_back(term.shape().is_scalar() ? term.id() : apply(Op::Sum, term).id());
}

void Model::add_term(NodeId term) {
    // A flat prior's density is the constant 0: no term (so that `param(x, flat())` and a
    // later `observe(x, d)` give the graph of `param(x, d)`).
    if (graph_.is_const(term, 0.0))
        return;
    terms_.push_back(term);
}

Expr Model::take_terms(std::size_t from) {
    if (from >= terms_.size())
        return {};
    NodeId total = terms_[from];
    for (std::size_t k = from + 1; k < terms_.size(); ++k)
        total = graph_.apply(Op::Add, total, terms_[k]);
    terms_.resize(from);
    return wrap(total);
}

Graph Model::graph() const {
    Graph g = graph_;
    NodeId lp = g.constant(0.0);
    for (std::size_t k = 0; k < terms_.size(); ++k) {
        lp = k == 0 ? terms_[0] : g.apply(Op::Add, lp, terms_[k]);
    }
    g.set_output("lp", lp);
    if (!jacobian_terms_.empty()) {
        NodeId j = jacobian_terms_[0];
        for (std::size_t k = 1; k < jacobian_terms_.size(); ++k)
            j = g.apply(Op::Add, j, jacobian_terms_[k]);
        g.set_output("jacobian", j);
    }
    return g;
}

void Model::check_constraint(std::string what, const Expr& value, Constraint c,
                             const std::optional<Arg>& lower, const std::optional<Arg>& upper,
                             bool rowwise, bool in_log_density) {
    if (&value.model() != this)
        throw ModelError(fmt::format("{}: an expression of another model", what));
    const double inf = std::numeric_limits<double>::infinity();
    const auto real = [&](NodeId id) {
        return graph_[id].dtype == DType::Int ? graph_.apply(Op::ToReal, id) : id;
    };
    ConstraintCheck check{.what = std::move(what),
                          .constraint = c,
                          .rowwise = rowwise,
                          .value = real(value.id()),
                          .lower = lower ? real(resolve(*lower)) : graph_.constant(-inf),
                          .upper = upper ? real(resolve(*upper)) : graph_.constant(inf)};
    try {
        if (in_log_density) {
            Node n;
            n.op = Op::CheckConstraint;
            n.in = {check.value, check.lower, check.upper};
            n.index = static_cast<std::int64_t>(c);
            n.aux = rowwise ? 1 : 0;
            check.term = graph_.intern(n);
            add_term(check.term);
        }
    } catch (const ShapeError& e) {
        throw ShapeError(fmt::format("{}: {}", check.what, e.what()));
    }
    checks_.push_back(std::move(check));
}

ModelSpec Model::spec() const {
    return ModelSpec{graph(), latents_, data_, terms_, checks_};
}

}  // namespace advi
