// Calls of Stan functions: user-defined ones inlined, built-ins through their rows
// (functions.hpp), and densities: `y ~ d(...)`, `d_lpdf(y | ...)` and friends onto the
// library's distribution table; `_rng` draws as transforms of uniform or normal numbers.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include <advi/dist/multivariate.hpp>
#include <advi/stan/algebra_solvers.hpp>
#include <advi/stan/ast_printer.hpp>
#include <advi/stan/integrators.hpp>
#include <advi/stan/lower_complex.hpp>
#include <advi/stan/lowerer.hpp>

namespace advi::stan {

namespace {

// Distributions whose integer variate is a category: Stan counts from 1, the library from 0.
// K, the number of categories, is the length of argument `sized` plus `extra`.
struct CategoricalRow {
    std::string_view name;
    int sized;
    int extra;
};
constexpr CategoricalRow kCategorical[] = {
    {"categorical",       0, 0},
    {"categorical_logit", 0, 0},
    {"ordered_logistic",  1, 1}, // K - 1 cut points
};

const CategoricalRow* categorical_row(std::string_view d) {
    for (const CategoricalRow& r : kCategorical) {
        if (r.name == d)
            return &r;
    }
    return nullptr;
}

bool categorical_variate(std::string_view d) {
    return categorical_row(d) != nullptr;
}

// `y`, `y[n]`, `(a + b)`: the variate as written.
std::string variate_text(const Expression* e) {
    if (e == nullptr)
        return "the variate";
    if (const auto* v = e->as<Variable>())
        return fmt::format("`{}`", v->name);
    return fmt::format("`{}`", to_stan(*e));
}

}  // namespace

std::string Lowerer::iteration(int level, std::int64_t t) const {
    std::string out;
    for (int l = level; l >= 1; --l) {
        const Level& lv = levels_[static_cast<std::size_t>(l) - 1];
        const std::int64_t j = t / lv.outer;
        t %= lv.outer;
        const std::string part = lv.foreach
                                     ? fmt::format("iteration {} over `{}`", j + 1, lv.variable)
                                     : fmt::format("{} = {}", lv.variable, lv.lower + j);
        out = out.empty() ? part : part + ", " + out;
    }
    return out;
}

void Lowerer::check_outcomes(const DistInfo& info, const Value& y, const std::vector<Value>& args,
                             int level, Loc at, const Expression* variate) {
    if (!y.is_known_int())
        return;  // int_data refuses it
    // The library's integer rows count from 0 (categories too: Stan's 1..K minus one) or 1
    // (yule_simon), or take every int (discrete_range: -inf outside its range, as Stan).
    if (info.valid_int(std::numeric_limits<int>::min()))
        return;
    int lowest = -1;
    for (const int k : {0, 1}) {
        if (info.valid_int(k) && !info.valid_int(k - 1))
            lowest = k;
    }
    if (lowest < 0)
        throw InternalError(fmt::format("{}: the lowest outcome is neither 0 nor 1", info.name));
    const CategoricalRow* cat = categorical_row(info.name);
    if (info.valid_int == multivariate::category && cat == nullptr)
        throw InternalError(fmt::format("{}: a categorical row without its K", info.name));
    const int lo = cat != nullptr ? 1 : lowest;
    std::optional<int> hi;
    std::string hi_what;
    if (!info.valid_int(2))
        hi = 1;  // bernoulli
    if (cat != nullptr) {
        const Value& a = args[static_cast<std::size_t>(cat->sized)];
        if (a.sizes.size() != 1 || !a.dims.empty())
            return;  // not a vector: the library's shape check names it
        hi = a.sizes[0] + cat->extra;
    }
    // A per-element bound (binomial's N), where known and laid out like y.
    Value bound;
    if (info.upper_arg >= 0) {
        const Value& n = args[static_cast<std::size_t>(info.upper_arg)];
        if (n.is_known_int())
            bound = at_level(n, level, at);
    }
    const Value w = at_level(y, level, at);
    const std::int64_t B = batch_size(level);
    std::vector<int> extents = w.dims;
    extents.insert(extents.end(), w.sizes.begin(), w.sizes.end());
    for (std::size_t k = 0; k < w.ints.size(); ++k) {
        const int v = w.ints[k];
        std::optional<int> top = hi;
        std::string top_what;
        if (!bound.ints.empty() && (bound.ints.size() == 1 || bound.ints.size() == w.ints.size())) {
            top = bound.ints[bound.ints.size() == 1 ? 0 : k];
            top_what = fmt::format(" (`{}` = {})", info.arg_names[info.upper_arg], *top);
        }
        if (v >= lo && (!top || v <= *top))
            continue;
        const std::int64_t t = static_cast<std::int64_t>(k) % B;
        std::int64_t e = static_cast<std::int64_t>(k) / B;
        std::string element;
        for (const int n : extents) {
            element += fmt::format("[{}]", e % n + 1);
            e /= n;
        }
        const std::string when = level > 0 ? fmt::format(" (at {})", iteration(level, t)) : "";
        const std::string range = !top        ? fmt::format("{}, {}, ...", lo, lo + 1)
                                  : *top < lo ? fmt::format("none ({}..{})", lo, *top)
                                              : fmt::format("{}..{}", lo, *top);
        fail(variate != nullptr ? variate->loc : at,
             fmt::format("{}{} = {}{} is outside {}'s outcomes {}{}", variate_text(variate),
                         element, v, when, info.name, range, top_what));
    }
}

Expr Lowerer::density(const std::string& name, const Value& y, const std::vector<Value>& args,
                      Loc at, bool per_iteration, const Expression* variate) {
    const DensityRow* row = find_density(name);
    if (row == nullptr)
        fail(at, fmt::format("unknown distribution `{}`", name));
    DensitySite site{*this, name, y, args, at, per_iteration, variate};
    site.y = variate_like_arguments(name, y, args, at);
    return row->lower(site);
}

// Stan's vectorised densities take a scalar variate with container arguments (one term per
// element: normal_lpdf(0 | mu, 1) with a vector mu), and a category as a scalar; the library
// takes the variate in the arguments' shape, so a scalar repeats.
Value Lowerer::variate_like_arguments(const std::string& name, const Value& y,
                                      const std::vector<Value>& args, Loc at) {
    if (y.level == 0 && y.dims.empty() && y.sizes.size() == 1 &&
        (y.base == Base::Vector || y.base == Base::RowVector)) {
        // one vector against an array of N argument vectors (multi_normal(y | mu) with N
        // means): the vector N times, one density per argument vector
        for (const Value& a : args) {
            if (a.level == 0 && a.dims.size() == 1 && a.sizes.size() == 1 && !a.is_int()) {
                Value v = y;
                v.dims = {a.dims[0]};
                v.expr = rep_matrix_rows(real(y, at), a.dims[0]);
                return v;
            }
        }
        return y;
    }
    if (!y.is_scalar() || y.level > 0 || y.is_runtime_int())
        return y;
    if (categorical_variate(name)) {
        Value v = y;
        v.dims = {1};
        return v;
    }
    const DistInfo* info = nullptr;
    try {
        info = &distribution(name);
    } catch (const ModelError&) {
        return y;
    }
    if (info->multivariate)
        return y;
    int n = 0;
    for (const Value& a : args) {
        if (a.level == 0 && rank_of_value(a) == 1)
            n = static_cast<int>(a.size());
    }
    if (n == 0)
        return y;
    Value v;
    if (y.is_known_int()) {
        v.base = Base::Int;
        v.dims = {n};
        v.ints.assign(static_cast<std::size_t>(n), y.ints[0]);
        return v;
    }
    if (y.is_int()) {  // known only per draw: the same int n times
        v.base = Base::Int;
        v.dims = {n};
        v.expr = rep_vector(real(y, at), n);
        return v;
    }
    v.base = Base::Vector;
    v.sizes = {n};
    v.expr = rep_vector(real(y, at), n);
    return v;
}

Expr library_density(DensitySite& s) {
    return s.lowerer.library_density(s.name, s.y, s.args, s.at, s.per_iteration, s.variate);
}

Expr Lowerer::library_density(const std::string& name, const Value& y,
                              const std::vector<Value>& args, Loc at, bool per_iteration,
                              const Expression* variate) {
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
    if (y.is_runtime_int() && (name == "categorical" || name == "categorical_logit") &&
        y.is_scalar() && level == 0) {
        // one outcome known only per draw (read at a loop op's iteration, drawn in generated
        // quantities): theta's element at it, by the indicator of y == k over the categories
        const Expr p = real(args.at(0), at);
        const int n = p.shape().size();
        Eigen::VectorXd k(n);
        for (int i = 0; i < n; ++i) k[i] = i + 1;
        const Expr indicator = step(0.5 - fabs(rep_vector(real(y, at), n) - known_reals(k)));
        if (name == "categorical")
            return log(dot(p, indicator));
        return dot(p - log_sum_exp(p), indicator);
    }
    if ((name == "categorical" || name == "categorical_logit") && level > 0 &&
        args.at(0).level > 0 && y.is_known_int() && rank_of_value(y) == 0) {
        // one category per iteration against a vector per iteration (y[n] ~
        // categorical_logit(v[n]')): the log probabilities as rows, each row's at its outcome
        const Value w = at_level(y, level, at);
        const int B = batch_size(level);
        const Expr P = real(at_level(args[0], level, at), at);  // B x K
        const int K = P.shape().cols;
        const Expr logs = name == "categorical" ? log(P) : P - rep_matrix(log_sum_exp_rows(P), K);
        Eigen::VectorXi positions(B);
        for (int i = 0; i < B; ++i) {
            const int yi = w.ints.at(static_cast<std::size_t>(w.ints.size() == 1 ? 0 : i));
            if (yi < 1 || yi > K)
                fail(at, fmt::format("{}: outcome {} is not a category 1..{}", name, yi, K));
            positions[i] = i + B * (yi - 1);  // column-major
        }
        const Expr per = to_vector(logs)[positions];
        return per_iteration ? per : sum(per);
    }
    if (level > 0 && info->multivariate && y.level == 0) {
        throw NotVectorisable(
            at, "a multivariate density whose variate is the same in every iteration");
    }
    // The library's multivariate densities take a batch of vectors as the rows of a matrix; a
    // matrix per iteration (lkj_corr_cholesky(L[j]), wishart, multi_normal(mu, Sigma[j])) has
    // no such layout.
    if (level > 0 && info->multivariate) {
        const auto matrix_per_iteration = [](const Value& v) {
            return v.level > 0 && v.base == Base::Matrix && v.sizes.size() == 2;
        };
        if (matrix_per_iteration(y) || std::any_of(args.begin(), args.end(), matrix_per_iteration))
            throw NotVectorisable(at, fmt::format("{} of a matrix per iteration", name));
    }
    // Every argument and the variate in the batched layout (one row per iteration).
    const int B = batch_size(level);
    // The per-iteration length of a vector (or 1-d array) variate.
    const int K = [&] {
        if (y.level > 0 && (y.base == Base::Vector || y.base == Base::RowVector))
            return y.sizes[0];
        if (y.level > 0 && y.base == Base::Real && y.dims.size() == 1)
            return y.dims[0];
        return 0;
    }();
    auto to_level = [&](const Value& v, bool variate) -> Expr {
        if (v.is_int() && (variate ? info->variate == DType::Int : false)) {
            Value w = at_level(v, level, at);
            if (w.is_runtime_int()) {
                fail(at, fmt::format("{}: an outcome known only per draw (an int read at a loop "
                                     "op's iteration or drawn in generated quantities) is not "
                                     "supported yet here",
                                     name));
            }
            if (categorical_variate(name)) {
                for (int& c : w.ints) c -= 1;
                // Not the data node of the unshifted values: int_data would return it as it
                // is, and a vectorised `y ~ categorical(theta)` read 0-based outcomes 1..K.
                w.expr = Expr();
                // Stan's categorical of one outcome: the library's variate is a vector
                if (level == 0 && w.dims.empty() && w.sizes.empty())
                    w.dims = {1};
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
    if (info->variate == DType::Int)
        check_outcomes(*info, y, args, level, at, variate);
    Expr ye = to_level(y, true);
    // a variate that is the same in every iteration against per-iteration arguments, one
    // density per iteration (`for (j in 1:2) la[j] = normal_lpdf(y[1] | mu[j], s)`)
    if (per_iteration && level > 0 && ye.shape().is_scalar() && !info->multivariate)
        ye = rep_vector(ye, B);
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
        if (info->multivariate) {
            // one value per iteration of a multivariate density (`target += dirichlet_lpdf(
            // theta[k] | alpha[k]')` in a loop over k): the library's density sums its rows, so
            // the loop runs unrolled or as a loop op
            throw NotVectorisable(at,
                                  fmt::format("{} is multivariate: its value per iteration", name));
        }
        Expr e = m().log_density(ye, d, true);
        if (flattened)
            e = to_matrix(e, B, ye.shape().size() / B);
        return e.shape().is_matrix() ? row_sums(e) : e;
    } catch (const ParseError&) {
        throw;  // already says where
    } catch (const Error& e) {
        fail(at, e.what());
    }
}

int Lowerer::rank_of_value(const Value& v) {
    return static_cast<int>(v.dims.size() + v.sizes.size());
}

namespace {

// Whether a declared type has a transform (bounds, affine, or a constrained type), here or in
// any element of a tuple.
bool transformed(const SizedType& t) {
    if (t.base == BaseType::Tuple)
        return std::any_of(t.parts.begin(), t.parts.end(), transformed);
    return t.lower || t.upper || t.offset || t.multiplier ||
           (t.base != BaseType::Real && t.base != BaseType::Vector &&
            t.base != BaseType::RowVector && t.base != BaseType::Matrix &&
            t.base != BaseType::Complex && t.base != BaseType::ComplexVector &&
            t.base != BaseType::ComplexRowVector && t.base != BaseType::ComplexMatrix);
}

}  // namespace

Value Lowerer::target_so_far(Loc at) {
    // Stan's target() also holds the change-of-variables terms of the parameters' transforms,
    // which advi adds after the lowering, in its own coordinates: refused rather than a value
    // that leaves them out.
    if (program_.parameters) {
        for (const Statement& s : program_.parameters->statements) {
            if (const auto* d = s.as<VarDecl>(); d != nullptr && transformed(d->type)) {
                fail(at, fmt::format("`target()` is not supported yet where a parameter has a "
                                     "transform (`{}` is constrained): its value would lack the "
                                     "transform's log-Jacobian",
                                     d->name));
            }
        }
    }
    if (region_ != nullptr)
        throw NotVectorisable(at, "target() (the running total of each iteration)");
    if (model_ != &out_.model() || !taken_.empty()) {
        fail(at,
             "`target()` inside a loop run as one op, an ODE's right-hand side or a condition "
             "known only per draw is not supported yet");
    }
    Value v;
    v.base = Base::Real;
    v.expr = m().log_density_so_far();
    return v;
}

Value Lowerer::call(const Call& c, Loc at) {
    // a user's foo_lpdf called as foo_lupdf (functions.cpp: user_density)
    const std::string f =
        user_density(c.name, [&](const std::string& n) { return has_user_function(n); });
    if (const OdeSolverRow* ode = find_ode_solver(f); ode != nullptr && !has_user_function(f))
        return ode_call(c, *ode, at);  // before its arguments: the first names a function
    if (const AlgebraSolverRow* row = find_algebra_solver(f);
        row != nullptr && !has_user_function(f))
        return algebra_call(c, *row, at);
    if (const IntegratorRow* row = find_integrator(f); row != nullptr && !has_user_function(f))
        return integrate_call(c, *row, at);
    if ((f == "reduce_sum" || f == "reduce_sum_static" || f == "map_rect") && !has_user_function(f))
        return parallel_call(c, at);
    if (f == "target" && c.args.empty())
        return target_so_far(at);
    CallSite site{*this, c, {}, at};
    std::vector<Value>& args = site.args;
    {
        // Functions whose arguments are sizes (and fill values): under --minibatch the size
        // variable in them means the batch's rows, as in a declaration (lower.hpp: RowBatch).
        static const std::set<std::string, std::less<>> kSized = {"rep_vector",
                                                                  "rep_row_vector",
                                                                  "rep_matrix",
                                                                  "rep_array",
                                                                  "zeros_vector",
                                                                  "zeros_row_vector",
                                                                  "zeros_array",
                                                                  "zeros_int_array",
                                                                  "ones_vector",
                                                                  "ones_row_vector",
                                                                  "ones_array",
                                                                  "ones_int_array",
                                                                  "linspaced_vector",
                                                                  "linspaced_row_vector",
                                                                  "linspaced_array",
                                                                  "linspaced_int_array",
                                                                  "uniform_simplex",
                                                                  "identity_matrix",
                                                                  "one_hot_vector",
                                                                  "one_hot_row_vector",
                                                                  "one_hot_array",
                                                                  "one_hot_int_array",
                                                                  "head",
                                                                  "tail"};
        const bool sized = rows_ && !has_user_function(f) && kSized.count(f) != 0;
        std::optional<InSize> in_size;
        if (sized)
            in_size.emplace(size_context_);
        for (const auto& a : c.args) args.push_back(expr(a));
    }
    for (const auto& a : args) site.level = std::max(site.level, a.level);
    if (calls_user(f, args)) {
        auto r = call_user_function(f, args, at);
        if (!r) {
            Value none;
            none.base = Base::Real;
            return none;  // a void function: its effects (target +=) are done
        }
        return *r;
    }
    // Densities.
    if (const std::string_view d = density_family(f); !d.empty()) {
        if (args.empty())
            fail(at, fmt::format("{} needs a variate", f));
        std::vector<Value> rest(args.begin() + 1, args.end());
        return CallSite::real_scalar(density(std::string(d), args[0], rest, at, true, &c.args[0]),
                                     site.level);
    }
    if (f.size() > 4 && f.compare(f.size() - 4, 4, "_rng") == 0) {
        Value r = random_draw(f.substr(0, f.size() - 4), args, at);
        if (block_kind() == BlockKind::TransformedData && r.is_runtime_int()) {
            // drawn once: ints known from here on, as every int of transformed data
            for (const double x : m().evaluate(r.expr)) r.ints.push_back(static_cast<int>(x));
            r.expr = Expr();
        }
        return r;
    }
    if (auto r = complex_call(site))
        return *std::move(r);
    if (const FunctionRow* row = find_function(f))
        return row->lower(site);
    if (const std::string why = unavailable_reason(f); !why.empty())
        fail(at, why);  // the checker's words (functions.cpp)
    site.no_match();
}

void CallSite::arity(std::size_t n) const {
    if (args.size() != n) {
        fail(fmt::format("{} takes {} argument{}, got {}", name(), n, n == 1 ? "" : "s",
                         args.size()));
    }
}

Expr CallSite::real_of(std::size_t k) {
    return lowerer.real(args[k], call.args[k].loc);
}

int CallSite::int_arg(std::size_t k) const {
    if (!args[k].is_int() || !args[k].is_scalar())
        lowerer.fail(call.args[k].loc, fmt::format("{}: expected an int", name()));
    if (args[k].level > 0) {
        throw NotVectorisable(
            call.args[k].loc,
            fmt::format("`{}`: argument {} differs between iterations", name(), k + 1));
    }
    if (args[k].is_runtime_int()) {
        lowerer.fail(call.args[k].loc,
                     fmt::format("{}: argument {} is an int known only per draw (read at a loop "
                                 "op's iteration, or drawn); advi needs it before the fit, as it "
                                 "sets a size or a position: not supported yet",
                                 name(), k + 1));
    }
    return args[k].ints[0];
}

bool CallSite::batched_vector(std::size_t k) const {
    return args[k].level > 0 && Lowerer::rank_of_value(args[k]) == 1;
}

void CallSite::no_match() const {
    if (level > 0) {
        throw NotVectorisable(at,
                              fmt::format("`{}` of values that differ between iterations", name()));
    }
    fail(fmt::format("unknown function `{}`", name()));
}

Value CallSite::result_like(const Value& v, Expr e) {
    Value r = v;
    if (r.is_int())
        r.base = r.is_scalar() ? Base::Real : r.base;
    if (r.base == Base::Int)
        r.base = Base::Real;
    r.ints.clear();
    r.expr = e;
    return r;
}

Value CallSite::real_scalar(Expr e, int level) {
    Value r;
    r.base = Base::Real;
    r.expr = e;
    r.level = level;
    return r;
}

Value CallSite::vec(Expr e, int n, Base b) {
    Value r;
    r.base = b;
    r.sizes = {n};
    r.expr = e;
    return r;
}

Value CallSite::mat(Expr e) {
    Value r;
    r.base = Base::Matrix;
    r.sizes = {e.shape().rows, e.shape().cols};
    r.expr = e;
    return r;
}

Value Lowerer::random_draw(const std::string& d, const std::vector<Value>& args, Loc at) {
    if (block_kind() != BlockKind::GeneratedQuantities &&
        block_kind() != BlockKind::TransformedData) {
        fail(at, fmt::format("`{}_rng` is for transformed data and generated quantities only", d));
    }
    if (const RandomRow* row = find_random_function(d + "_rng"); row != nullptr && row->whole) {
        // inside vectorised loops, one draw per iteration (the rows that can: others say
        // NotVectorisable and the loop is unrolled)
        const int level = static_cast<int>(levels_.size());
        RandomDraw draw{*this, args, at, constant(0), level, batch_size(level)};
        try {
            return row->whole(draw);
        } catch (const ParseError&) {
            throw;
        } catch (const Error& e) {
            fail(at, fmt::format("{}_rng: {}", d, e.what()));
        }
    }
    // The result's layout: the broadcast of the arguments (a scalar without arguments).
    // (arrays as vectors: Stan broadcasts normal_rng(vector, array[] real) as well)
    Value like = constant(0);
    for (const Value& a : args) {
        Value layout = a;
        if (a.level == 0 && ((a.dims.size() == 1 && a.sizes.empty()) ||
                             (a.dims.empty() && a.base == Base::RowVector))) {
            layout.base = Base::Vector;
            layout.sizes = a.dims.empty() ? a.sizes : a.dims;
            layout.dims.clear();
            layout.expr = real(a, at);
            layout.ints.clear();
        }
        like = binary(BinaryOp::Add, like, layout, at);
    }
    // Each iteration of the enclosing vectorised loops draws its own number.
    const int level = std::max(like.level, static_cast<int>(levels_.size()));
    like.level = level;
    if (rank_of_value(like) > 1)
        fail(at, fmt::format("`{}_rng` of matrices is not supported", d));
    const std::int64_t n = static_cast<std::int64_t>(batch_size(level)) * like.size();
    RandomDraw draw{*this, args, at, like, level, n};
    const RandomRow* row = find_random_function(d + "_rng");
    Value r = like;
    r.ints.clear();
    if (r.base == Base::Int)
        r.base = Base::Real;
    Expr x;
    try {
        if (row == nullptr)
            fail(at, fmt::format("`{}_rng` is not available", d));
        const std::size_t n_args = row->signatures.front().args.size();
        if (args.size() != n_args) {
            fail(at, fmt::format("{}_rng takes {} argument{}, got {}", d, n_args,
                                 n_args == 1 ? "" : "s", args.size()));
        }
        x = row->lower(draw);
    } catch (const ParseError&) {
        throw;
    } catch (const Error& e) {
        fail(at, fmt::format("{}_rng: {}", d, e.what()));
    }
    r.expr = x;
    if (row->signatures.front().result.kind == TypeKind::Ints) {
        // ints known per draw; vectors of them are int arrays
        r.base = Base::Int;
        if (!r.sizes.empty()) {
            r.dims.insert(r.dims.end(), r.sizes.begin(), r.sizes.end());
            r.sizes.clear();
        }
    }
    return r;
}

Expr RandomDraw::input(bool normal) {
    Eigen::VectorXd& values = lowerer.random_input(n, normal);
    Expr e = m().data(lowerer.fresh_name(normal ? "normal" : "uniform"), values);
    if (level == 0 && Lowerer::rank_of_value(like) == 0)
        return sum(e);
    if (level > 0 && Lowerer::rank_of_value(like) == 1) {
        return to_matrix(e, lowerer.batch_size(level), static_cast<int>(like.size()));
    }
    return e;
}

Expr RandomDraw::inputs(std::int64_t count, bool normal) {
    Eigen::VectorXd& values = lowerer.random_input(count, normal);
    Expr e = m().data(lowerer.fresh_name(normal ? "normal" : "uniform"), values);
    return e;
}

Expr RandomDraw::quantile(Op op, std::vector<Expr> in) {
    Graph& g = const_cast<Graph&>(m().nodes());
    NodeId ids[3] = {kNoNode, kNoNode, kNoNode};
    for (std::size_t k = 0; k < in.size(); ++k) ids[k] = in[k].id();
    return m().wrap(g.apply(op, ids[0], ids[1], ids[2]));
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

namespace advi::stan {

// reduce_sum(f, x, grainsize, s...) is the sum of f over slices of x, which is f of the whole
// array: f(x, 1, size(x), s...) (the grainsize only says how Stan splits the work; one slice
// is exact, up to rounding in another order). map_rect(f, phi, thetas, x_r, x_i) stacks
// f(phi, thetas[j], x_r[j], x_i[j]) over the jobs j.
Value Lowerer::parallel_call(const Call& c, Loc at) {
    const std::string f = user_density(c.args.at(0).as<Variable>()->name,
                                       [&](const std::string& n) { return has_user_function(n); });
    std::vector<Value> args;
    for (std::size_t k = 1; k < c.args.size(); ++k) args.push_back(expr(c.args[k]));
    if (c.name != "map_rect") {
        // Slices of at least the grainsize, at most 16 of them (the graph grows with their
        // number); Stan's sum is the same for any partition.
        const Value& x = args[0];
        const int n = x.dims.empty() ? 0 : x.dims[0];
        if (n == 0)
            return constant(0);  // no slices: Stan's sum is 0
        const int grain = args[1].is_known_int() && args[1].is_scalar() ? args[1].ints[0] : 1;
        const int slice = std::max({grain, 1, (n + 15) / 16});
        Value total;
        for (int start = 1; start <= n; start += slice) {
            const int end = std::min(n, start + slice - 1);
            Index range;
            range.loc = at;
            range.is_range = true;
            range.lower = Box<Expression>(Expression{at, IntLiteral{start}});
            range.upper = Box<Expression>(Expression{at, IntLiteral{end}});
            std::vector<Value> f_args{index(x, {range}, at), int_scalar(start), int_scalar(end)};
            f_args.insert(f_args.end(), args.begin() + 2, args.end());
            // recursion through reduce_sum ends when every level's slice is smaller
            const int size = end - start + 1;
            bool shrinks = true;
            for (const auto& [g, m] : reduce_slices_) shrinks = shrinks && (g != f || size < m);
            shrinking_call_ = shrinks;
            reduce_slices_.emplace_back(f, size);
            std::optional<Value> r;
            try {
                r = call_user_function(f, f_args, at);
            } catch (...) {
                reduce_slices_.pop_back();
                shrinking_call_ = false;
                throw;
            }
            reduce_slices_.pop_back();
            if (!r)
                fail(at, fmt::format("`{}` returns no value", f));
            total =
                total.expr.valid() || total.is_int() ? binary(BinaryOp::Add, total, *r, at) : *r;
        }
        return total;
    }
    const Value& thetas = args[1];
    const int jobs = thetas.dims.empty() ? 0 : thetas.dims[0];
    for (std::size_t k : {2, 3}) {
        const int n = args[k].dims.empty() ? 0 : args[k].dims[0];
        if (n != jobs && n != 0) {
            fail(c.args[k + 1].loc,
                 fmt::format("map_rect: {} jobs in thetas, but {} here", jobs, n));
        }
    }
    Expr stacked;
    int size = 0;
    for (int j = 1; j <= jobs; ++j) {
        Index ix;
        ix.loc = at;
        ix.lower = Box<Expression>(Expression{at, IntLiteral{j}});
        auto job = [&](const Value& v) {
            // x_r and x_i may have no columns (array[J, 0]) or no rows at all (array[0, 0])
            if (v.dims.empty() || v.dims[0] == 0) {
                Value e = v;
                e.dims = {0};
                return e;
            }
            return index(v, {ix}, at);
        };
        const std::optional<Value> r =
            call_user_function(f, {args[0], job(thetas), job(args[2]), job(args[3])}, at);
        if (!r || r->base != Base::Vector || !r->dims.empty())
            fail(at, fmt::format("`{}` must return a vector", f));
        const Expr e = real(*r, at);
        stacked = stacked.valid() ? append_row(stacked, e) : e;
        size += r->sizes[0];
    }
    if (!stacked.valid())
        fail(at, "map_rect with no jobs: an empty result is not supported yet");
    return CallSite::vec(stacked, size);
}

}  // namespace advi::stan
