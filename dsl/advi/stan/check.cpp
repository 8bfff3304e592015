#include <advi/stan/algebra_solvers.hpp>
#include <advi/stan/check.hpp>
#include <advi/stan/integrators.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <advi/base/error.hpp>
#include <advi/stan/functions.hpp>
#include <advi/stan/ode_solvers.hpp>
#include <advi/stan/stan_library.hpp>
#include <advi/stan/truncation.hpp>
#include <advi/stan/types.hpp>

namespace advi::stan {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() > suffix.size() && s.ends_with(suffix);
}

bool is_cdf_name(std::string_view f) {
    return ends_with(f, "_cdf") || ends_with(f, "_lcdf") || ends_with(f, "_lccdf");
}

// Whether a statement ends its function on every path, as stanc decides it: a return (or
// reject) does; `break` leaves a loop, not the function; a loop's body may run no times.
enum class Ending { Open, Returns, Breaks };

Ending sequence(Ending before, Ending next) {
    if (before == Ending::Breaks || next == Ending::Breaks)
        return Ending::Breaks;
    return next == Ending::Returns ? Ending::Returns : Ending::Open;
}
Ending branches(Ending a, Ending b) {
    if (a == Ending::Breaks || b == Ending::Breaks)
        return Ending::Breaks;
    return a == Ending::Returns && b == Ending::Returns ? Ending::Returns : Ending::Open;
}
Ending loop(Ending body) {
    return body == Ending::Returns ? Ending::Returns : Ending::Open;
}

std::vector<StanType> argument_types(const FunctionDef& f) {
    std::vector<StanType> out;
    for (const auto& a : f.args) out.push_back(type_of(a.type));
    return out;
}
StanType return_type(const FunctionDef& f) {
    if (!f.return_type) {
        StanType v;
        v.kind = TypeKind::Void;
        return v;
    }
    return type_of(*f.return_type);
}
// "(data real, vector) => real": as the declaration and the definition must agree.
std::string signature_str(const FunctionDef& f) {
    std::string out = "(";
    for (std::size_t k = 0; k < f.args.size(); ++k) {
        out += (k > 0 ? ", " : "") + std::string(f.args[k].data_only ? "data " : "") +
               str(type_of(f.args[k].type));
    }
    return out + ") => " + str(return_type(f));
}

class Checker {
public:
    explicit Checker(const Program& p) : p_(p) {}

    void run() {
        declare_functions();
        for (const FunctionDef& f : p_.functions) {
            if (f.body)
                function_body(f);
        }
        scopes_.push_back({});
        for (int k = 0; k < kBlockKinds; ++k) {
            const auto kind = static_cast<BlockKind>(k);
            const auto& b = p_.block(kind);
            if (!b)
                continue;
            block_ = kind;
            in_model_ = kind == BlockKind::Model;
            if (kind == BlockKind::Model)
                scopes_.push_back({});
            for (const Statement& s : b->statements) {
                top_level_ = true;
                statement(s);
            }
            top_level_ = false;
            if (kind == BlockKind::Model)
                scopes_.pop_back();
        }
    }

private:
    [[noreturn]] void fail(Loc at, const std::string& m) const { throw p_.error_at(at, m); }

    // --- user functions: overloads by argument types (Stan 2.29's rule), none named like a
    // built-in, densities with the right variate.
    void declare_functions() {
        for (const FunctionDef& f : p_.functions) {
            builtin_name(f);
            density_definition(f);
            functions_.emplace(f.name, &f);
            std::vector<const FunctionDef*>& defs = overloads_[f.name];
            const auto same_args = [&](const FunctionDef* g) {
                return argument_types(*g) == argument_types(f);
            };
            const auto it = std::find_if(defs.begin(), defs.end(), same_args);
            if (it == defs.end()) {
                defs.push_back(&f);
                continue;
            }
            const FunctionDef& before = **it;
            if (signature_str(before) != signature_str(f)) {
                fail(f.name_loc,
                     fmt::format("`{}` is declared again with the same arguments and another "
                                 "signature: {}, before {}; overloads differ in their arguments",
                                 f.name, signature_str(f), signature_str(before)));
            }
            if (before.body && f.body)
                fail(f.name_loc, fmt::format("`{}` is defined twice", f.name));
            if (!f.body)  // Stan: one forward declaration, before the definition
                fail(f.name_loc, fmt::format("`{}` is already declared", f.name));
            *it = &f;  // the definition of a forward declaration
        }
        for (const auto& [name, defs] : overloads_) {
            for (const FunctionDef* f : defs) {
                if (!f->body)
                    fail(f->name_loc, fmt::format("`{}` is declared but never defined", name));
            }
        }
    }

    // The overload of user function `name` that arguments of these types call (the one with
    // the fewest int-to-real promotions), or the error listing what the overloads take.
    const FunctionDef& user_overload(const std::string& name, std::span<const StanType> args,
                                     Loc at) const {
        const std::vector<const FunctionDef*>& defs = overloads_.at(name);
        if (defs.size() == 1)
            return *defs[0];  // user_call says what is wrong, if anything
        std::vector<Signature> sigs;
        for (const FunctionDef* d : defs) sigs.push_back({argument_types(*d), return_type(*d)});
        const bool density = ends_with(name, "_lpdf") || ends_with(name, "_lpmf");
        if (const auto k = resolve_index(sigs, args)) {
            // Stan refuses a call that two overloads fit with as few promotions.
            int fewest = 0;
            (void)match(sigs[*k], args, &fewest);
            for (std::size_t j = 0; j < sigs.size(); ++j) {
                int promotions = 0;
                if (j != *k && match(sigs[j], args, &promotions) && promotions == fewest) {
                    fail(at, fmt::format("the call of `{}` with {} is ambiguous: overloads {} and "
                                         "{} fit it equally well",
                                         name, str(args, density), str(sigs[*k]), str(sigs[j])));
                }
            }
            return *defs[*k];
        }
        fail(at, fmt::format("{} takes {}; got {}", name, str_arguments(sigs), str(args, density)));
    }

    void builtin_name(const FunctionDef& f) const {
        const LibraryFunction* library = find_library_function(f.name);
        if (library == nullptr && unavailable_reason(f.name).empty())
            return;
        if (library != nullptr && library->variadic) {
            fail(f.name_loc, fmt::format("`{}` is a Stan library function that cannot be "
                                         "overloaded",
                                         f.name));
        }
        const std::span<const Signature> builtin =
            library != nullptr ? std::span<const Signature>(library->signatures)
                               : std::span<const Signature>();
        const auto args = argument_types(f);
        for (const Signature& s : builtin) {
            int promotions = 0;
            if (const auto r = match(s, args, &promotions); r && promotions == 0) {
                fail(f.name_loc,
                     fmt::format("`{}` is a built-in function with signature {} => "
                                 "{}; a user function cannot redefine it",
                                 f.name, str(args, !density_suffix(f.name).empty()), str(*r)));
            }
        }
    }

    // Whether a call of `name` with arguments of these types calls the user's function: the
    // user defines `name` and, if the library has it too, fits the arguments better.
    bool calls_user(const std::string& name, std::span<const StanType> args, Loc at) const {
        const auto it = overloads_.find(name);
        if (it == overloads_.end())
            return false;
        std::vector<Signature> sigs;
        for (const FunctionDef* d : it->second)
            sigs.push_back({argument_types(*d), return_type(*d)});
        const auto wins = user_function_wins(name, sigs, args);
        if (!wins) {
            fail(at, fmt::format("the call of `{}` with {} is ambiguous: a user function and the "
                                 "built-in fit it equally well",
                                 name, str(args, !density_suffix(name).empty())));
        }
        return *wins;
    }

    // int, an array of ints, or a tuple of such: a `_lpmf`'s variate.
    static bool all_ints(const StanType& t) {
        if (t.kind == TypeKind::Tuple)
            return std::all_of(t.parts.begin(), t.parts.end(), all_ints);
        return t.kind == TypeKind::Int;
    }
    void density_definition(const FunctionDef& f) const {
        const bool pdf = ends_with(f.name, "_lpdf"), pmf = ends_with(f.name, "_lpmf");
        if (ends_with(f.name, "_lupdf") || ends_with(f.name, "_lupmf")) {
            fail(f.name_loc, fmt::format("`{}`: define the density as `_lpdf` or `_lpmf`; Stan "
                                         "derives `_lupdf` and `_lupmf`",
                                         f.name));
        }
        if (!pdf && !pmf)
            return;
        if (return_type(f) != real_type()) {
            fail(f.name_loc,
                 fmt::format("`{}` must return real, not {}", f.name, str(return_type(f))));
        }
        if (f.args.empty())
            fail(f.name_loc, fmt::format("`{}` needs a variate as its first argument", f.name));
        const StanType y = type_of(f.args[0].type);
        if (pdf && y.kind == TypeKind::Int) {
            fail(f.args[0].loc, fmt::format("the variate of a `_lpdf` must be real-valued, not {} "
                                            "(write `_lpmf` for integers)",
                                            str(y)));
        }
        if (pmf && !all_ints(y)) {
            fail(f.args[0].loc,
                 fmt::format("the variate of a `_lpmf` must be int or an int array, not {}",
                             str(y)));
        }
    }

    void function_body(const FunctionDef& f) {
        scopes_.push_back({});
        function_ = &f;
        for (const auto& a : f.args) {
            declare(a.name, a.loc, false, type_of(a.type), a.data_only);
        }
        in_model_ = ends_with(f.name, "_lp");
        const Ending e = statement(*f.body);
        if (f.return_type && e != Ending::Returns) {
            fail(f.name_loc,
                 fmt::format("`{}` may end without returning a value: every path must return {}",
                             f.name, str(return_type(f))));
        }
        function_ = nullptr;
        in_model_ = false;
        scopes_.pop_back();
    }

    // --- names
    struct Name {
        BlockKind block;
        bool assignable;
        StanType type;
        // Whether it can hold a value that depends on the parameters (stanc's autodiff level):
        // parameters, transformed parameters, locals of the model block, and a function's
        // arguments not marked `data` and its locals; never an int.
        bool autodiff = false;
    };
    void declare(const std::string& name, Loc at, bool assignable, StanType type,
                 bool data_argument = false) {
        if (ends_with(name, "_lupdf") || ends_with(name, "_lupmf")) {
            fail(at,
                 fmt::format("`{}`: names ending in `_lupdf` or `_lupmf` are for densities", name));
        }
        for (const auto& s : scopes_) {
            if (s.count(name))
                fail(at, fmt::format("`{}` is already declared", name));
        }
        const bool autodiff =
            type.kind != TypeKind::Int &&
            (function_ != nullptr
                 ? !data_argument
                 : block_ == BlockKind::Parameters || block_ == BlockKind::TransformedParameters ||
                       block_ == BlockKind::Model);
        scopes_.back()[name] = {block_, assignable, type, autodiff};
    }
    const Name* find(const std::string& name) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
            if (auto n = it->find(name); n != it->end())
                return &n->second;
        }
        return nullptr;
    }

    // --- declarations
    void int_expr(const Expression& e, std::string_view what) {
        const StanType t = expr(e);
        if (!is_int(t))
            fail(e.loc, fmt::format("{} must be int, got {}", what, str(t)));
    }
    void declared_type(const SizedType& t, StanType declared) {
        if (t.base == BaseType::Tuple) {
            for (const auto& e : t.dims) int_expr(e, "an array size");
            for (const SizedType& part : t.parts) declared_type(part, type_of(part));
            return;
        }
        for (const auto& e : t.dims) int_expr(e, "an array size");
        for (const auto& e : t.sizes) int_expr(e, "a size");
        StanType element = declared;
        element.array_dims = 0;
        for (const auto* e : {&t.lower, &t.upper, &t.offset, &t.multiplier}) {
            if (!*e)
                continue;
            const StanType b = expr(**e);
            // a scalar, or (elementwise bounds) the variable's own type
            const bool ok =
                assignable(declared, b) ||
                (element.kind == TypeKind::Int ? is_int(b)
                                               : is_scalar(b) || assignable(element, b));
            if (!ok) {
                fail((*e)->loc, fmt::format("a bound of {} must be {}, got {}", str(element),
                                            element.kind == TypeKind::Int ? "int"
                                            : is_scalar(element)          ? "real"
                                                                 : "real or " + str(element),
                                            str(b)));
            }
        }
    }

    // Stan: the sizes of a block's variables are known before the parameters are, so they read
    // only data and transformed data (and functions of them).
    void data_sizes(const SizedType& t) const {
        for (const SizedType& part : t.parts) data_sizes(part);
        for (const auto* list : {&t.dims, &t.sizes}) {
            for (const Expression& e : *list) {
                visit_variables(e, [&](const Variable& v, Loc at) {
                    const Name* n = find(v.name);
                    if (n != nullptr && n->block != BlockKind::Data &&
                        n->block != BlockKind::TransformedData) {
                        fail(at, fmt::format("the size of a block's variable can only read data "
                                             "and transformed data; `{}` is a {} variable",
                                             v.name, stan::name(n->block)));
                    }
                });
            }
        }
    }
    // Calls `f(variable, loc)` for every variable that `e` reads.
    template <class F>
    static void visit_variables(const Expression& e, const F& f) {
        auto all = [&](const std::vector<Expression>& xs) {
            for (const auto& x : xs) visit_variables(x, f);
        };
        if (const auto* v = e.as<Variable>()) {
            f(*v, e.loc);
        } else if (const auto* c = e.as<Call>()) {
            all(c->args);
        } else if (const auto* u = e.as<Unary>()) {
            visit_variables(*u->operand, f);
        } else if (const auto* b = e.as<Binary>()) {
            visit_variables(*b->lhs, f);
            visit_variables(*b->rhs, f);
        } else if (const auto* c = e.as<Conditional>()) {
            visit_variables(*c->condition, f);
            visit_variables(*c->if_true, f);
            visit_variables(*c->if_false, f);
        } else if (const auto* ix = e.as<Indexed>()) {
            visit_variables(*ix->base, f);
            for (const auto& i : ix->indices) {
                for (const auto* bound : {&i.lower, &i.upper}) {
                    if (*bound)
                        visit_variables(***bound, f);
                }
            }
        } else if (const auto* t = e.as<Transpose>()) {
            visit_variables(*t->operand, f);
        } else if (const auto* a = e.as<ArrayExpr>()) {
            all(a->elements);
        } else if (const auto* r = e.as<RowVectorExpr>()) {
            all(r->elements);
        } else if (const auto* t = e.as<TupleExpr>()) {
            all(t->elements);
        } else if (const auto* t = e.as<TupleIndex>()) {
            visit_variables(*t->base, f);
        }
    }

    // --- expressions: each returns its type; a void call is refused where a value is needed
    StanType expr(const Expression& e) {
        return std::visit([&](const auto& n) { return node(n, e); }, e.node);
    }
    StanType node(const IntLiteral&, const Expression&) { return int_type(); }
    StanType node(const RealLiteral&, const Expression&) { return real_type(); }
    StanType node(const ImagLiteral&, const Expression&) {
        StanType t;
        t.kind = TypeKind::Complex;
        return t;
    }
    StanType node(const StringLiteral&, const Expression& e) {
        fail(e.loc, "a string can only be printed");
    }
    StanType node(const Variable& n, const Expression& e) {
        const Name* v = find(n.name);
        if (v == nullptr)
            fail(e.loc, fmt::format("unknown identifier `{}`", n.name));
        return v->type;
    }
    StanType node(const Call& n, const Expression& e) {
        const StanType t = call(n, e.loc);
        if (t.kind == TypeKind::Void) {
            fail(e.loc,
                 fmt::format("`{}` is a void function: its call has no value to use", n.name));
        }
        return t;
    }
    StanType node(const Unary& n, const Expression& e) {
        const StanType a = expr(*n.operand);
        const auto r = unary_type(n.op, a);
        if (!r)
            fail(e.loc, fmt::format("no operator {}{}", symbol(n.op), str(a)));
        return *r;
    }
    StanType node(const Binary& n, const Expression&) {
        const StanType a = expr(*n.lhs), b = expr(*n.rhs);
        auto r = binary_type(n.op, a, b);
        if (!r && n.op == BinaryOp::EltPower) {
            // `.^` is Stan's pow, arrays included
            const std::array<StanType, 2> args{a, b};
            r = resolve(find_library_function("pow")->signatures, args);
        }
        if (!r) {
            fail(n.op_loc,
                 fmt::format("no operator {} {} {}", str(a), binary_op_info(n.op).symbol, str(b)));
        }
        return *r;
    }
    StanType node(const Conditional& n, const Expression& e) {
        int_expr(*n.condition, "the condition of `?:`");
        const StanType a = expr(*n.if_true), b = expr(*n.if_false);
        if (const auto t = common_type(a, b))
            return *t;
        fail(e.loc,
             fmt::format("the branches of `?:` have different types: {} and {}", str(a), str(b)));
    }
    StanType node(const Indexed& n, const Expression& e) {
        const StanType base = expr(*n.base);
        std::vector<IndexKind> kinds;
        for (const auto& ix : n.indices) {
            if (ix.is_range) {
                for (const auto* bound : {&ix.lower, &ix.upper}) {
                    if (*bound)
                        int_expr(***bound, "a range bound");
                }
                kinds.push_back(IndexKind::Multi);
                continue;
            }
            const StanType t = expr(**ix.lower);
            if (is_int(t))
                kinds.push_back(IndexKind::Single);
            else if (t == int_type(1))
                kinds.push_back(IndexKind::Multi);
            else
                fail(ix.loc, fmt::format("an index must be int or array[] int, got {}", str(t)));
        }
        const IndexResult r = index_type(base, kinds);
        if (!r.type)
            fail(e.loc, r.error);
        return *r.type;
    }
    StanType node(const Transpose& n, const Expression& e) {
        const StanType a = expr(*n.operand);
        const auto r = transpose_type(a);
        if (!r)
            fail(e.loc, fmt::format("no transpose of {}", str(a)));
        return *r;
    }
    StanType node(const ArrayExpr& n, const Expression& e) {
        StanType t = elements(n.elements, e.loc);
        t.array_dims += 1;
        return t;
    }
    StanType node(const RowVectorExpr& n, const Expression& e) {
        if (n.elements.empty()) {  // `[]`: a row vector of size 0
            StanType r;
            r.kind = TypeKind::RowVector;
            return r;
        }
        const StanType t = elements(n.elements, e.loc);
        if (is_scalar(t)) {
            StanType r;
            r.kind = TypeKind::RowVector;
            return r;
        }
        if (t.kind == TypeKind::RowVector && t.array_dims == 0) {
            StanType r;
            r.kind = TypeKind::Matrix;
            return r;
        }
        if (t.kind == TypeKind::Complex && t.array_dims == 0) {
            StanType r;
            r.kind = TypeKind::ComplexRowVector;
            return r;
        }
        if (t.kind == TypeKind::ComplexRowVector && t.array_dims == 0) {
            StanType r;
            r.kind = TypeKind::ComplexMatrix;
            return r;
        }
        fail(e.loc,
             fmt::format("[...] takes reals (a row vector) or row vectors (a matrix), not {}",
                         str(t)));
    }
    StanType node(const TupleExpr& n, const Expression&) {
        StanType t;
        t.kind = TypeKind::Tuple;
        for (const Expression& x : n.elements) t.parts.push_back(expr(x));
        return t;
    }
    StanType node(const TupleIndex& n, const Expression&) {
        const StanType base = expr(*n.base);
        if (base.kind != TypeKind::Tuple || base.array_dims > 0) {
            fail(n.index_loc,
                 fmt::format(
                     "`.{}` takes an element of a tuple; this is {}{}", n.index, str(base),
                     base.kind == TypeKind::Tuple ? " (index the array first: `x[i].1`)" : ""));
        }
        if (n.index > static_cast<int>(base.parts.size())) {
            fail(n.index_loc, fmt::format("`.{}`: {} has {} element{}", n.index, str(base),
                                          base.parts.size(), base.parts.size() == 1 ? "" : "s"));
        }
        return base.parts[static_cast<std::size_t>(n.index - 1)];
    }
    // The common type of the elements of {...} or [...]: ints promote to reals.
    StanType elements(const std::vector<Expression>& xs, Loc at) {
        if (xs.empty())
            fail(at, "an empty {} or [] has no type");
        StanType t = expr(xs[0]);
        for (std::size_t k = 1; k < xs.size(); ++k) {
            const StanType u = expr(xs[k]);
            const auto joined = common_type(t, u);
            if (!joined) {
                fail(xs[k].loc,
                     fmt::format("elements of different types: {} and {}", str(t), str(u)));
            }
            t = *joined;
        }
        return t;
    }
    // The type both promote to: the wider one, or, for tuples, the wider of each element
    // (`{(1, x), (x, 1)}` is an array of tuple(real, real)).
    static std::optional<StanType> common_type(const StanType& a, const StanType& b) {
        if (assignable(a, b))
            return a;
        if (assignable(b, a))
            return b;
        if (a.kind != TypeKind::Tuple || b.kind != TypeKind::Tuple ||
            a.array_dims != b.array_dims || a.parts.size() != b.parts.size())
            return std::nullopt;
        StanType t = a;
        for (std::size_t k = 0; k < a.parts.size(); ++k) {
            const auto p = common_type(a.parts[k], b.parts[k]);
            if (!p)
                return std::nullopt;
            t.parts[k] = *p;
        }
        return t;
    }

    // --- calls
    StanType call(const Call& c, Loc at) {
        const std::string& f = c.name;
        const bool user_function = functions_.count(user_density(f, [&](const std::string& n) {
            return functions_.count(n) > 0;
        })) > 0;
        if (f == "target" && c.args.empty()) {
            if (!in_model_ && !(function_ == nullptr && block_ == BlockKind::TransformedParameters))
                fail(at,
                     "`target()` can only be used in the model block, in transformed "
                     "parameters or in a function whose name ends in `_lp`");
            return real_type();
        }
        if (const OdeSolverRow* ode = find_ode_solver(f); ode != nullptr && !user_function)
            return ode_call(c, *ode, at);
        if (const AlgebraSolverRow* row = find_algebra_solver(f); row != nullptr && !user_function)
            return algebra_call(c, *row, at);
        if (const IntegratorRow* row = find_integrator(f); row != nullptr && !user_function)
            return integrate_call(c, *row, at);
        if ((f == "reduce_sum" || f == "reduce_sum_static") && !user_function)
            return reduce_sum_call(c, at);
        if (f == "map_rect" && !user_function)
            return map_rect_call(c, at);
        // A library function advi cannot lower is refused before its arguments are read: those
        // of a higher-order function name functions, which are no values here.
        if (const std::string why = unavailable_reason(f); !why.empty() && !user_function)
            fail(at, why);
        std::vector<StanType> args;
        for (const auto& a : c.args) args.push_back(expr(a));
        const std::string_view suffix = density_suffix(f);
        if (c.conditional && suffix.empty() && !is_cdf_name(f)) {
            fail(at,
                 fmt::format("`{}` is not a density or distribution function: it takes no `|`", f));
        }
        if (!c.conditional && (!suffix.empty() || is_cdf_name(f)) && args.size() > 1) {
            fail(at,
                 fmt::format("`{}` takes its variate first and `|` after it: {}(y | ...)", f, f));
        }
        if (ends_with(f, "_rng"))
            random_call(f, at);
        if (suffix == "_lupdf" || suffix == "_lupmf") {
            if (!(in_model_ && function_ == nullptr) &&
                !(function_ != nullptr &&
                  (ends_with(function_->name, "_lpdf") || ends_with(function_->name, "_lpmf")))) {
                fail(at, fmt::format("`{}`: `_lupdf` and `_lupmf` can only be used in the model "
                                     "block or in functions ending in `_lpdf` or `_lpmf`",
                                     f));
            }
        }
        if (find(f) != nullptr && !is_known_function(f))
            fail(at, fmt::format("`{}` is a variable, not a function", f));
        const std::string user =
            user_density(f, [&](const std::string& n) { return functions_.count(n) > 0; });
        if (calls_user(user, args, at)) {
            const FunctionDef& def = user_overload(user, args, at);
            const StanType r = user_call(def, args, at);
            std::vector<const Expression*> given;
            for (const auto& a : c.args) given.push_back(&a);
            data_arguments(def, given);
            return r;
        }
        if (data_only_arguments(f)) {
            for (std::size_t k = 0; k < c.args.size(); ++k) {
                // an int is data whatever it is computed from (size(x) of a parameter x)
                if (k < args.size() && args[k].kind == TypeKind::Int)
                    continue;
                if (depends_on_parameters(c.args[k])) {
                    fail(c.args[k].loc,
                         fmt::format("`{}` takes data only; argument {} depends on the parameters",
                                     f, k + 1));
                }
            }
        }
        if (const FunctionRow* row = find_function(f)) {
            const StanType r = library_call(f, f, row->signatures, args, at);
            if (ends_with(f, "_jacobian") && find_library_function(f) != nullptr &&
                !(function_ != nullptr && ends_with(function_->name, "_jacobian")) &&
                !(function_ == nullptr && block_ == BlockKind::TransformedParameters)) {
                fail(at,
                     fmt::format("`{}` adds to the Jacobian: it can only be called in transformed "
                                 "parameters or in a `_jacobian` function",
                                 f));
            }
            return r;
        }
        if (const RandomRow* row = find_random_function(f))
            return library_call(f, f, row->signatures, args, at);
        if (!suffix.empty()) {
            const std::string_view d = density_family(f);
            if (const DensityRow* row = find_density(d)) {
                variate_kind(d, suffix, *row, at);
                return library_call(f, f, row->signatures, args, at);
            }
        }
        fail(at, fmt::format("unknown function `{}`", f));
    }

    // A call of a function of Stan's library that advi lowers: Stan's signatures say whether
    // the program is valid Stan (stan_library.hpp), the lowering's (functions.hpp) whether advi
    // can build it; a valid call that advi cannot build is refused as not supported yet.
    // `f` is the full name (`normal_lpdf`); `shown` the name the program wrote (`normal` in
    // `y ~ normal(...)`). A call Stan refuses is described by the lowering's signatures, which
    // read better than Stan's dozens (`reals` for real, vector, row_vector, array[] real).
    StanType library_call(std::string_view f, std::string_view shown,
                          std::span<const Signature> lowered, std::span<const StanType> args,
                          Loc at) const {
        const LibraryFunction* library = find_library_function(f);
        if (library == nullptr) {
            throw InternalError(
                fmt::format("`{}` has a lowering but is not in Stan's library "
                            "(stan_library_signatures.inc)",
                            f));
        }
        const auto stan = resolve(library->signatures, args);
        const bool density = !lowered.empty() && lowered.front().density;
        if (!stan) {
            fail(at, fmt::format("{} takes {}; got {}", shown, str_arguments(lowered),
                                 str(args, density)));
        }
        const auto ours = resolve(lowered, args);
        if (!ours) {
            fail(at, fmt::format("`{}` with arguments {} is not supported yet: advi lowers {}",
                                 shown, str(args, density), str_arguments(lowered)));
        }
        return *stan;
    }

    StanType resolved(std::string_view f, std::span<const Signature> signatures,
                      std::span<const StanType> args, Loc at) const {
        if (const auto r = resolve(signatures, args))
            return *r;
        const bool density = !signatures.empty() && signatures.front().density;
        fail(at,
             fmt::format("{} takes {}; got {}", f, str_arguments(signatures), str(args, density)));
    }

    // `_lpdf` is for real variates, `_lpmf` for ints (Stan's rule).
    void variate_kind(std::string_view d, std::string_view suffix, const DensityRow& row,
                      Loc at) const {
        const bool ints = integer_variate(row);
        const bool pmf = suffix == "_lpmf" || suffix == "_lupmf";
        if (ints && !pmf) {
            fail(at, fmt::format("`{}` is a distribution of integers: write `{}{}`", d, d,
                                 suffix == "_lupdf" ? "_lupmf" : "_lpmf"));
        }
        if (!ints && pmf) {
            fail(at, fmt::format("`{}` is a distribution of reals: write `{}{}`", d, d,
                                 suffix == "_lupmf" ? "_lupdf" : "_lpdf"));
        }
    }

    // Whether e can depend on the parameters: it names a variable that can (Name::autodiff), or
    // calls target(). In transformed data and generated quantities nothing does (Stan reads the
    // parameters there as numbers).
    bool depends_on_parameters(const Expression& e) const {
        if (function_ == nullptr &&
            (block_ == BlockKind::Data || block_ == BlockKind::TransformedData ||
             block_ == BlockKind::GeneratedQuantities))
            return false;
        return reads_parameters(e);
    }
    // `everywhere`: conditions and indices too (a value chosen by a parameter is not data
    // either, which is Stan's rule for a higher-order function's data arguments).
    bool reads_parameters(const Expression& e, bool everywhere = false) const {
        auto any = [&](const std::vector<Expression>& xs) {
            return std::any_of(xs.begin(), xs.end(), [&](const Expression& x) {
                return reads_parameters(x, everywhere);
            });
        };
        if (const auto* v = e.as<Variable>()) {
            const Name* n = find(v->name);
            return n != nullptr && n->autodiff;
        }
        if (const auto* c = e.as<Call>())
            return c->name == "target" || any(c->args);
        if (const auto* u = e.as<Unary>())
            return reads_parameters(*u->operand, everywhere);
        if (const auto* b = e.as<Binary>())
            return reads_parameters(*b->lhs, everywhere) || reads_parameters(*b->rhs, everywhere);
        if (const auto* c = e.as<Conditional>()) {
            return (everywhere && reads_parameters(*c->condition, true)) ||
                   reads_parameters(*c->if_true, everywhere) ||
                   reads_parameters(*c->if_false, everywhere);
        }
        if (const auto* ix = e.as<Indexed>()) {  // an index is an int: data
            if (everywhere) {
                for (const Index& i : ix->indices) {
                    for (const auto* bound : {&i.lower, &i.upper}) {
                        if (*bound && reads_parameters(***bound, true))
                            return true;
                    }
                }
            }
            return reads_parameters(*ix->base, everywhere);
        }
        if (const auto* t = e.as<Transpose>())
            return reads_parameters(*t->operand, everywhere);
        if (const auto* a = e.as<ArrayExpr>())
            return any(a->elements);
        if (const auto* r = e.as<RowVectorExpr>())
            return any(r->elements);
        if (const auto* t = e.as<TupleExpr>())
            return any(t->elements);
        if (const auto* t = e.as<TupleIndex>())
            return reads_parameters(*t->base, everywhere);
        return false;  // literals
    }
    // Stan: an argument declared `data` takes only values that do not depend on parameters.
    void data_arguments(const FunctionDef& def, std::span<const Expression* const> args) const {
        for (std::size_t k = 0; k < def.args.size() && k < args.size(); ++k) {
            if (def.args[k].data_only && depends_on_parameters(*args[k])) {
                fail(args[k]->loc,
                     fmt::format("argument `{}` of `{}` is declared `data`, but the value given "
                                 "depends on parameters",
                                 def.args[k].name, def.name));
            }
        }
    }

    StanType user_call(const FunctionDef& def, std::span<const StanType> args, Loc at) const {
        const auto params = argument_types(def);
        bool ok = params.size() == args.size();
        for (std::size_t k = 0; ok && k < args.size(); ++k) ok = assignable(params[k], args[k]);
        if (!ok) {
            const bool density = ends_with(def.name, "_lpdf") || ends_with(def.name, "_lpmf");
            fail(at, fmt::format("{} takes {}; got {}", def.name, str(params, density),
                                 str(args, density)));
        }
        const bool in_jacobian_function =
            function_ != nullptr && ends_with(function_->name, "_jacobian");
        if (ends_with(def.name, "_jacobian") && !in_jacobian_function &&
            !(function_ == nullptr && block_ == BlockKind::TransformedParameters)) {
            fail(at, fmt::format("`{}` adds to the Jacobian: it can only be called in transformed "
                                 "parameters or in another `_jacobian` function",
                                 def.name));
        }
        if (ends_with(def.name, "_lp") && !in_model_ &&
            !(function_ == nullptr && block_ == BlockKind::TransformedParameters)) {
            fail(at, fmt::format("`{}` adds to target: it can only be called in the model block, "
                                 "in transformed parameters or in another `_lp` function",
                                 def.name));
        }
        return return_type(def);
    }

    // The function a higher-order call passes on: a function of the functions block that
    // neither adds to the target nor draws (Stan's rule for reduce_sum and map_rect).
    std::string passed_function(const Call& c, Loc at) const {
        const auto* fv = c.args.empty() ? nullptr : c.args[0].as<Variable>();
        const std::string name =
            fv == nullptr ? std::string() : user_density(fv->name, [&](const std::string& n) {
                return functions_.count(n) > 0;
            });
        if (fv == nullptr || functions_.count(name) == 0) {
            fail(c.args.empty() ? at : c.args[0].loc,
                 fmt::format("`{}` takes the name of a function of the functions block first",
                             c.name));
        }
        for (const char* suffix : {"_lp", "_jacobian", "_rng"}) {
            if (ends_with(fv->name, suffix)) {
                fail(c.args[0].loc,
                     fmt::format("`{}` ends in `{}`: a function that {} cannot be passed to `{}`",
                                 fv->name, suffix,
                                 std::string_view(suffix) == "_rng" ? "draws random numbers"
                                                                    : "adds to the log density",
                                 c.name));
            }
        }
        // `foo_lupdf` for the user's foo_lpdf: where `_lupdf` may be called
        if ((ends_with(fv->name, "_lupdf") || ends_with(fv->name, "_lupmf")) &&
            !(in_model_ && function_ == nullptr) &&
            !(function_ != nullptr &&
              (ends_with(function_->name, "_lpdf") || ends_with(function_->name, "_lpmf")))) {
            fail(c.args[0].loc, fmt::format("`{}`: `_lupdf` and `_lupmf` can only be used in the "
                                            "model block or in functions ending in `_lpdf` or "
                                            "`_lpmf`",
                                            fv->name));
        }
        return name;
    }

    // reduce_sum(f, x, grainsize, s...): f(x[start:end], start, end, s...) summed over slices
    // of the array x; f returns real and takes x's type (an array of int, real, vectors or
    // matrices), two ints, then what s... are assignable to.
    StanType reduce_sum_call(const Call& c, Loc at) {
        const std::string f = passed_function(c, at);
        if (c.args.size() < 3)
            fail(at, fmt::format("{} takes (f, x, grainsize, ...); got {} arguments", c.name,
                                 c.args.size()));
        std::vector<StanType> args;
        for (std::size_t k = 1; k < c.args.size(); ++k) args.push_back(expr(c.args[k]));
        const StanType& x = args[0];
        if (x.array_dims == 0 || x.kind == TypeKind::Tuple || is_complex(x)) {
            fail(c.args[1].loc, fmt::format("{} slices an array of int, real, vectors or "
                                            "matrices; got {}",
                                            c.name, str(x)));
        }
        if (!is_int(args[1]))
            fail(c.args[2].loc,
                 fmt::format("{}: the grainsize must be an int, got {}", c.name, str(args[1])));
        std::vector<StanType> f_args{x, int_type(), int_type()};
        f_args.insert(f_args.end(), args.begin() + 2, args.end());
        const FunctionDef& def = user_overload(f, f_args, c.args[0].loc);
        const std::vector<StanType> params = argument_types(def);
        auto same = [](const StanType& a, const StanType& b) {
            return a.kind == b.kind && a.array_dims == b.array_dims;
        };
        bool fits = params.size() == f_args.size() && same(return_type(def), real_type()) &&
                    same(params[0], x) && is_int(params[1]) && is_int(params[2]);
        for (std::size_t k = 3; fits && k < params.size(); ++k)
            fits = assignable(params[k], f_args[k]);
        if (!fits) {
            fail(c.args[0].loc,
                 fmt::format("{} calls `{}` as ({}, int, int{}) => real; `{}` is {}", c.name, f,
                             str(x), args.size() > 2 ? ", ..." : "", f, signature_str(def)));
        }
        return real_type();
    }

    // map_rect(f, phi, thetas, x_r, x_i): f(phi, thetas[j], x_r[j], x_i[j]) for each job j,
    // the results stacked; f is (vector, vector, data array[] real, data array[] int) => vector.
    StanType map_rect_call(const Call& c, Loc at) {
        const std::string f = passed_function(c, at);
        if (c.args.size() != 5)
            fail(at, fmt::format("map_rect takes (f, phi, thetas, x_r, x_i); got {} arguments",
                                 c.args.size()));
        std::vector<StanType> args;
        for (std::size_t k = 1; k < c.args.size(); ++k) args.push_back(expr(c.args[k]));
        StanType vector;
        vector.kind = TypeKind::Vector;
        StanType vectors = vector;
        vectors.array_dims = 1;
        const std::vector<StanType> want{vector, vectors, real_type(2), int_type(2)};
        for (std::size_t k = 0; k < 4; ++k) {
            if (!(args[k] == want[k])) {
                fail(c.args[k + 1].loc, fmt::format("map_rect's argument {} must be {}, got {}",
                                                    k + 2, str(want[k]), str(args[k])));
            }
        }
        for (std::size_t k : {3, 4}) {
            if (reads_parameters(c.args[k], true)) {
                fail(c.args[k].loc, fmt::format("map_rect: argument {} must be data only; this "
                                                "one depends on the parameters",
                                                k + 1));
            }
        }
        const std::vector<StanType> f_args{vector, vector, real_type(1), int_type(1)};
        const FunctionDef& def = user_overload(f, f_args, c.args[0].loc);
        const std::vector<StanType> params = argument_types(def);
        bool fits = params.size() == f_args.size() && return_type(def).kind == TypeKind::Vector &&
                    return_type(def).array_dims == 0;
        for (std::size_t k = 0; fits && k < params.size(); ++k)
            fits = params[k].kind == f_args[k].kind && params[k].array_dims == f_args[k].array_dims;
        if (!fits) {
            fail(c.args[0].loc, fmt::format("map_rect calls `{}` as (vector, vector, data array[] "
                                            "real, data array[] int) => vector; `{}` is {}",
                                            f, f, signature_str(def)));
        }
        return vector;
    }

    // An ODE solver's call (ode_solvers.hpp): the function named first, the fixed arguments,
    // and the arguments passed on to the function, which must fit its signature.
    // How a solver call lays out its arguments: those it takes itself after the function
    // (`fixed`; more follow for f where `variadic`), the ones of them that must be data, the
    // arguments f takes first (the solver's own: the time, the state), and the types f and the
    // call return.
    struct SolverLayout {
        std::vector<StanType> fixed;
        bool variadic = false;
        std::vector<std::size_t> data_only;
        std::vector<StanType> f_args;  // the solver's own; the rest are appended
        StanType f_result, result;
    };

    static StanType type(TypeKind kind, int dims) {
        StanType t;
        t.kind = kind;
        t.array_dims = dims;
        return t;
    }

    StanType ode_call(const Call& c, const OdeSolverRow& row, Loc at) {
        std::vector<StanType> args;
        for (std::size_t k = 1; k < c.args.size(); ++k) args.push_back(expr(c.args[k]));
        const StanType real = type(TypeKind::Real, 0), reals = type(TypeKind::Real, 1),
                       ints = type(TypeKind::Int, 1), vector = type(TypeKind::Vector, 0),
                       integer = type(TypeKind::Int, 0);
        SolverLayout l;
        if (row.interface == OdeInterface::Arrays) {
            l.fixed = {reals, real, reals, reals, reals, ints};
            if (args.size() == 9 && c.name != "integrate_ode")
                l.fixed.insert(l.fixed.end(), {real, real, real});
            l.f_args = {real, reals, reals, reals, ints};
            l.f_result = reals;
            l.result = type(TypeKind::Real, 2);
            // Stan's `data` arguments: x_r, and the tolerances
            l.data_only = args.size() == 9 ? std::vector<std::size_t>{4, 6, 7, 8}
                                           : std::vector<std::size_t>{4};
        } else {
            l.variadic = true;
            l.fixed = {vector, real, reals};
            if (row.interface == OdeInterface::VariadicTolerances) {
                l.fixed.insert(l.fixed.end(), {real, real, integer});
                l.data_only = {3, 4, 5};
            }
            if (row.interface == OdeInterface::AdjointControl) {
                l.fixed.insert(l.fixed.end(), {real, vector, real, vector, real, real, integer,
                                               integer, integer, integer, integer});
                l.data_only = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
            }
            l.f_args = {real, vector};
            l.f_result = vector;
            l.result = type(TypeKind::Vector, 1);
        }
        return solver_call(c, l, args, at);
    }

    StanType algebra_call(const Call& c, const AlgebraSolverRow& row, Loc at) {
        std::vector<StanType> args;
        for (std::size_t k = 1; k < c.args.size(); ++k) args.push_back(expr(c.args[k]));
        const StanType real = type(TypeKind::Real, 0), reals = type(TypeKind::Real, 1),
                       ints = type(TypeKind::Int, 1), vector = type(TypeKind::Vector, 0),
                       integer = type(TypeKind::Int, 0);
        SolverLayout l;
        l.f_result = vector;
        l.result = vector;
        switch (row.interface) {
            case AlgebraInterface::Legacy:
                l.fixed = {vector, vector, reals, ints};
                l.data_only = {2};
                if (args.size() == 7) {
                    l.fixed.insert(l.fixed.end(), {real, real, real});
                    l.data_only = {2, 4, 5, 6};
                }
                l.f_args = {vector, vector, reals, ints};
                break;
            case AlgebraInterface::Variadic:
                l.variadic = true;
                l.fixed = {vector};
                l.f_args = {vector};
                break;
            case AlgebraInterface::VariadicTolerances:
                l.variadic = true;
                l.fixed = {vector, real, real, integer};
                l.data_only = {1, 2, 3};
                l.f_args = {vector};
                break;
        }
        return solver_call(c, l, args, at);
    }

    StanType integrate_call(const Call& c, const IntegratorRow& row, Loc at) {
        std::vector<StanType> args;
        for (std::size_t k = 1; k < c.args.size(); ++k) args.push_back(expr(c.args[k]));
        const StanType real = type(TypeKind::Real, 0), reals = type(TypeKind::Real, 1),
                       ints = type(TypeKind::Int, 1), integer = type(TypeKind::Int, 0);
        SolverLayout l;
        l.f_result = real;
        l.result = real;
        l.f_args = {real, real};  // x, xc
        switch (row.interface) {
            case IntegratorInterface::Legacy:
                l.fixed = {real, real, reals, reals, ints};
                l.data_only = {3};
                if (args.size() == 6) {
                    l.fixed.push_back(real);
                    l.data_only = {3, 5};
                }
                l.f_args.insert(l.f_args.end(), {reals, reals, ints});
                break;
            case IntegratorInterface::Variadic:
                l.variadic = true;
                l.fixed = {real, real};
                break;
            case IntegratorInterface::VariadicTolerances:
                l.variadic = true;
                l.fixed = {real, real, real, real, integer};
                l.data_only = {2, 3, 4};
                break;
        }
        return solver_call(c, l, args, at);
    }

    // A call of an ODE or algebraic solver: f first, a function of the functions block that
    // neither adds to the target nor draws, then the arguments of `layout`.
    StanType solver_call(const Call& c, SolverLayout l, const std::vector<StanType>& args, Loc at) {
        const std::string& name = c.name;
        const auto* fv = c.args.empty() ? nullptr : c.args[0].as<Variable>();
        if (fv == nullptr || functions_.count(fv->name) == 0) {
            fail(c.args.empty() ? at : c.args[0].loc,
                 fmt::format("`{}` takes the name of a function of the functions block first",
                             name));
        }
        // Stan: a function that changes the target or the Jacobian cannot be passed on
        for (const char* suffix : {"_lp", "_jacobian", "_rng"}) {
            if (ends_with(fv->name, suffix)) {
                fail(c.args[0].loc,
                     fmt::format("`{}` ends in `{}`: a function that {} cannot be "
                                 "passed to `{}`",
                                 fv->name, suffix,
                                 std::string_view(suffix) == "_rng" ? "draws random numbers"
                                                                    : "adds to the log density",
                                 name));
            }
        }
        const std::size_t own = l.f_args.size();  // the arguments the solver passes
        if (l.variadic) {
            for (std::size_t k = l.fixed.size(); k < args.size(); ++k) l.f_args.push_back(args[k]);
        }
        // "(a, b)" without its parentheses, to be spliced into a list.
        auto listed = [](std::span<const StanType> ts) {
            const std::string s = str(ts);
            return s.substr(1, s.size() - 2);
        };
        bool ok = args.size() == l.fixed.size() || (l.variadic && args.size() > l.fixed.size());
        for (std::size_t k = 0; ok && k < l.fixed.size(); ++k) ok = assignable(l.fixed[k], args[k]);
        if (!ok) {
            fail(at,
                 fmt::format("{} takes ({}, {}{}); got ({}, {})", name, fv->name, listed(l.fixed),
                             l.variadic ? ", ..." : "", fv->name, listed(args)));
        }
        for (const std::size_t k : l.data_only) {
            if (reads_parameters(c.args[k + 1])) {
                fail(c.args[k + 1].loc,
                     fmt::format("{}: argument {} must be data only; this one depends on the "
                                 "parameters",
                                 name, k + 2));
            }
        }
        auto same = [](const StanType& a, const StanType& b) {
            return a.kind == b.kind && a.array_dims == b.array_dims;
        };
        const FunctionDef& def = user_overload(fv->name, l.f_args, c.args[0].loc);
        const std::vector<StanType> params = argument_types(def);
        const std::size_t exact = l.variadic ? own : l.f_args.size();
        bool fits = params.size() == l.f_args.size() && same(return_type(def), l.f_result);
        for (std::size_t k = 0; fits && k < params.size(); ++k)
            fits = k < exact ? same(params[k], l.f_args[k]) : assignable(params[k], l.f_args[k]);
        if (!fits) {
            fail(c.args[0].loc,
                 fmt::format("{} solves a function ({}{}) => {}; `{}` is {}", name,
                             listed(std::span<const StanType>(l.f_args).first(exact)),
                             l.variadic ? ", <the remaining arguments' types>" : "",
                             str(l.f_result), fv->name, signature_str(def)));
        }
        return l.result;
    }

    // Stan allows _rng calls in transformed data, generated quantities and functions whose names
    // end in `_rng`; advi draws random numbers in generated quantities only.
    void random_call(const std::string& f, Loc at) const {
        if (function_ != nullptr) {
            if (!ends_with(function_->name, "_rng")) {
                fail(at, fmt::format("`{}` can only be called in generated quantities or in a "
                                     "function whose name ends in `_rng`",
                                     f));
            }
            return;
        }
        if (block_ != BlockKind::GeneratedQuantities && block_ != BlockKind::TransformedData)
            fail(at, fmt::format("`{}` is for generated quantities only", f));
    }

    // --- statements; each says whether it ends its function
    Ending statement(const Statement& s) {
        if (!s.is<VarDecl>())
            top_level_ = false;  // what it holds is local
        return std::visit([&](const auto& n) { return node(n, s.loc); }, s.node);
    }
    // Whether a type holds ints (in a tuple: any element does).
    static bool holds_int(const StanType& t) {
        return t.kind == TypeKind::Int || std::any_of(t.parts.begin(), t.parts.end(), holds_int);
    }
    // Whether a declared type has a constraint (bounds, affine, or a constrained type such as
    // simplex), here or in any element of a tuple.
    static bool constrained(const SizedType& t) {
        if (t.base == BaseType::Tuple)
            return std::any_of(t.parts.begin(), t.parts.end(), constrained);
        return t.lower || t.upper || t.offset || t.multiplier ||
               (t.base != BaseType::Int && t.base != BaseType::Real && t.base != BaseType::Vector &&
                t.base != BaseType::RowVector && t.base != BaseType::Matrix &&
                t.base != BaseType::Complex && t.base != BaseType::ComplexVector &&
                t.base != BaseType::ComplexRowVector && t.base != BaseType::ComplexMatrix);
    }
    Ending node(const VarDecl& n, Loc) {
        const StanType t = type_of(n.type);
        const bool global = top_level_ && function_ == nullptr && block_ != BlockKind::Model;
        if (global && holds_int(t) &&
            (block_ == BlockKind::Parameters || block_ == BlockKind::TransformedParameters)) {
            fail(n.type.loc,
                 fmt::format(
                     "`{}`: {} cannot be int", n.name,
                     block_ == BlockKind::Parameters ? "parameters" : "transformed parameters"));
        }
        if (!global && constrained(n.type)) {
            fail(n.type.loc,
                 fmt::format("`{}`: a local variable cannot have a constrained type", n.name));
        }
        top_level_ = false;
        if (global)
            data_sizes(n.type);
        declared_type(n.type, t);
        // in scope in its own initial value, as in Stan (`real x = x;` reads x unassigned: the
        // lowering refuses that read)
        declare(
            n.name, n.name_loc,
            function_ != nullptr || (block_ != BlockKind::Data && block_ != BlockKind::Parameters),
            t);
        if (n.initial_value) {
            const StanType v = expr(*n.initial_value);
            if (!assignable(t, v)) {
                fail(n.initial_value->loc,
                     fmt::format("`{}` is declared {}; cannot assign {}", n.name, str(t), str(v)));
            }
        }
        return Ending::Open;
    }
    // The variable under an lvalue: `x` of x[i].2[j].
    static const Expression& lvalue_base(const Expression& e) {
        if (const auto* ix = e.as<Indexed>())
            return lvalue_base(*ix->base);
        if (const auto* t = e.as<TupleIndex>())
            return lvalue_base(*t->base);
        return e;
    }
    // The name an assignment writes, checked: declared, and assignable here.
    const std::string& assigned_variable(const Expression& lhs) {
        const Expression& x = lvalue_base(lhs);
        const auto* v = x.as<Variable>();
        const Name* name = find(v->name);
        if (name == nullptr)
            fail(x.loc, fmt::format("unknown identifier `{}`", v->name));
        if (!name->assignable || (function_ == nullptr && name->block != block_)) {
            fail(x.loc,
                 fmt::format("`{}` cannot be assigned here ({} variable)", v->name,
                             function_ != nullptr ? "function argument" : stan::name(name->block)));
        }
        assigned_indices(lhs, v->name);
        return v->name;
    }
    Ending node(const Assign& n, Loc at) {
        if (n.lhs.is<TupleExpr>()) {
            unpacking(n);
            return Ending::Open;
        }
        const std::string& assigned = assigned_variable(n.lhs);
        const auto* v = &assigned;
        const StanType lhs = expr(n.lhs), rhs = expr(n.rhs);
        if (const auto op = binary_of(n.op)) {
            const bool elementwise = n.op == AssignOp::EltMultiply || n.op == AssignOp::EltDivide;
            const auto r = binary_type(*op, lhs, rhs);
            if (!r || !assignable(lhs, *r) || (elementwise && is_scalar(lhs))) {
                fail(at, fmt::format("no operator {} {} {}", str(lhs), symbol(n.op), str(rhs)));
            }
        } else if (!assignable(lhs, rhs)) {
            fail(n.rhs.loc,
                 fmt::format("cannot assign {} to `{}` of type {}", str(rhs), *v, str(lhs)));
        }
        return Ending::Open;
    }

    // `(a, b[i], (c, d.1)) = e;`: e is a tuple whose elements go to the places on the left, all
    // of e read before any is written. Stan's rules: no place is written twice or inside
    // another (any two indices of one variable may be the same element, so `y[1]` and `y[2]`
    // overlap), and no variable written is read by the indices on the left.
    void unpacking(const Assign& n) {
        const StanType rhs = expr(n.rhs);
        std::vector<const Expression*> places;
        unpack_places(n.lhs, rhs, n.rhs.loc, places);
        // A place as a path from its variable: tuple elements by number, any index as "[...]".
        auto path = [](const Expression* e) {
            std::vector<std::string> steps;
            for (;;) {
                if (const auto* ix = e->as<Indexed>()) {
                    steps.emplace_back("[...]");
                    e = &*ix->base;
                } else if (const auto* t = e->as<TupleIndex>()) {
                    steps.push_back("." + std::to_string(t->index));
                    e = &*t->base;
                } else {
                    steps.push_back(e->as<Variable>()->name);
                    break;
                }
            }
            std::reverse(steps.begin(), steps.end());
            return steps;
        };
        std::vector<std::vector<std::string>> paths;
        for (const Expression* p : places) paths.push_back(path(p));
        for (std::size_t a = 0; a < paths.size(); ++a) {
            for (std::size_t b = 0; b < a; ++b) {
                const auto& shorter = paths[a].size() < paths[b].size() ? paths[a] : paths[b];
                const auto& longer = paths[a].size() < paths[b].size() ? paths[b] : paths[a];
                if (std::equal(shorter.begin(), shorter.end(), longer.begin())) {
                    fail(places[a]->loc,
                         fmt::format("`{}` is written twice by this unpacking (it is, or holds, "
                                     "an earlier place on the left: indices may be equal)",
                                     fmt::join(longer, "")));
                }
            }
        }
        std::set<std::string> written;
        for (const auto& p : paths) written.insert(p.front());
        for (const Expression* p : places) {
            for (const Expression* e = p; !e->is<Variable>();) {
                if (const auto* t = e->as<TupleIndex>()) {
                    e = &*t->base;
                    continue;
                }
                const auto* ix = e->as<Indexed>();
                for (const auto& i : ix->indices) {
                    for (const auto* bound : {&i.lower, &i.upper}) {
                        if (!*bound)
                            continue;
                        visit_variables(***bound, [&](const Variable& u, Loc at) {
                            if (written.count(u.name) > 0) {
                                fail(at, fmt::format("`{}` is written by this unpacking: the "
                                                     "indices on the left cannot read it",
                                                     u.name));
                            }
                        });
                    }
                }
                e = &*ix->base;
            }
        }
    }
    // The places of an unpacking's left side, each checked against its part of `rhs`.
    void unpack_places(const Expression& lhs, const StanType& rhs, Loc rhs_loc,
                       std::vector<const Expression*>& places) {
        if (const auto* t = lhs.as<TupleExpr>()) {
            if (rhs.kind != TypeKind::Tuple || rhs.array_dims > 0 ||
                rhs.parts.size() != t->elements.size()) {
                fail(rhs_loc, fmt::format("cannot unpack {} into a tuple of {} element{}", str(rhs),
                                          t->elements.size(), t->elements.size() == 1 ? "" : "s"));
            }
            for (std::size_t k = 0; k < t->elements.size(); ++k)
                unpack_places(t->elements[k], rhs.parts[k], rhs_loc, places);
            return;
        }
        const std::string& name = assigned_variable(lhs);
        const StanType type = expr(lhs);
        if (!assignable(type, rhs)) {
            fail(lhs.loc,
                 fmt::format("cannot assign {} to `{}` of type {}", str(rhs), name, str(type)));
        }
        places.push_back(&lhs);
    }
    // Stan's rules for the indices of an assignment's left side: only the last brackets may
    // hold a multi-index (`y[:][1] = ...` is refused), and they do not read the variable
    // being assigned (`x[x[1]] = ...`), whose value they would see half-written.
    void assigned_indices(const Expression& lhs, const std::string& name) {
        bool outermost = true;
        for (const Expression* x = &lhs; !x->is<Variable>();) {
            if (const auto* t = x->as<TupleIndex>()) {  // `x[i].1[j]`: between two brackets
                x = &*t->base;
                continue;
            }
            const auto* ix = x->as<Indexed>();
            x = &*ix->base;
            for (const auto& i : ix->indices) {
                const bool multi = i.is_range || (i.lower && expr(**i.lower) == int_type(1));
                if (multi && !outermost) {
                    fail(i.loc,
                         "the left side of an assignment cannot index a multi-index "
                         "again (`y[:][1]`): write the indices in one pair of brackets "
                         "(`y[:, 1]`)");
                }
                for (const auto* bound : {&i.lower, &i.upper}) {
                    if (!*bound)
                        continue;
                    visit_variables(***bound, [&](const Variable& u, Loc at) {
                        if (u.name == name) {
                            fail(at, fmt::format("`{}` is assigned here: the indices on the left "
                                                 "side cannot read it",
                                                 name));
                        }
                    });
                }
            }
            outermost = false;
        }
    }
    Ending node(const Tilde& n, Loc at) {
        if (!in_model_)
            fail(at, "`~` statements belong in the model block");
        // A library distribution advi cannot lower is refused before its arguments are read
        // (those of the embedded Laplace densities name functions, no values here).
        if (functions_.count(n.distribution + "_lpdf") == 0 &&
            functions_.count(n.distribution + "_lpmf") == 0 &&
            find_density(n.distribution) == nullptr) {
            for (const char* suffix : {"_lpdf", "_lpmf"}) {
                if (const std::string why = unavailable_reason(n.distribution + suffix);
                    !why.empty())
                    fail(n.distribution_loc, why);
            }
        }
        std::vector<StanType> args{expr(n.lhs)};
        for (const auto& a : n.args) args.push_back(expr(a));
        const std::string& d = n.distribution;
        for (const char* suffix : {"_lpdf", "_lpmf"}) {
            if (calls_user(d + suffix, args, n.distribution_loc)) {
                const FunctionDef& def = user_overload(d + suffix, args, n.distribution_loc);
                user_call(def, args, n.distribution_loc);
                std::vector<const Expression*> given{&n.lhs};
                for (const auto& a : n.args) given.push_back(&a);
                data_arguments(def, given);
                return truncation(n);
            }
        }
        const DensityRow* row = find_density(d);
        if (row == nullptr) {
            std::string why = unavailable_reason(d + "_lpdf");
            if (why.empty())
                why = unavailable_reason(d + "_lpmf");
            fail(n.distribution_loc,
                 why.empty() ? fmt::format("unknown distribution `{}`", d) : why);
        }
        library_call(d + (integer_variate(*row) ? "_lpmf" : "_lpdf"), d, row->signatures, args,
                     n.distribution_loc);
        return truncation(n);
    }
    Ending truncation(const Tilde& n) {
        if (!n.truncation)
            return Ending::Open;
        for (const auto* b : {&n.truncation->lower, &n.truncation->upper}) {
            if (*b && !is_scalar(expr(**b)))
                fail((*b)->loc, "a truncation bound must be int or real");
        }
        // the normalising term the lowering adds (truncation.hpp), typed here: D's CDFs exist
        // and take these arguments
        const bool ints = functions_.count(n.distribution + "_lpmf") > 0 ||
                          (functions_.count(n.distribution + "_lpdf") == 0 &&
                           find_density(n.distribution) != nullptr &&
                           integer_variate(*find_density(n.distribution)));
        if (const auto e = truncation_normaliser(n, ints)) {
            const StanType t = expr(*e);
            if (t != real_type())
                fail(n.truncation->loc,
                     fmt::format("the truncation's CDF is {}, not real", str(t)));
        }
        return Ending::Open;
    }
    Ending node(const TargetPlus& n, Loc at) {
        if (n.jacobian) {
            const bool in_jacobian_function =
                function_ != nullptr && ends_with(function_->name, "_jacobian");
            if (!in_jacobian_function &&
                (function_ != nullptr || block_ != BlockKind::TransformedParameters)) {
                fail(at,
                     "`jacobian +=` belongs in transformed parameters or in a function ending "
                     "in `_jacobian`");
            }
            expr(n.value);
            return Ending::Open;
        }
        if (!in_model_)
            fail(at, "`target +=` belongs in the model block");
        expr(n.value);
        return Ending::Open;
    }
    Ending node(const For& n, Loc) {
        int_expr(n.lower, "a loop bound");
        int_expr(n.upper, "a loop bound");
        scopes_.push_back({});
        declare(n.variable, n.variable_loc, false, int_type());
        const Ending e = loop_body(*n.body);
        scopes_.pop_back();
        return loop(e);
    }
    Ending node(const ForEach& n, Loc) {
        StanType t = expr(n.container);
        if (t.array_dims > 0) {
            t.array_dims -= 1;
        } else if (t.kind == TypeKind::Vector || t.kind == TypeKind::RowVector ||
                   t.kind == TypeKind::Matrix) {
            t = real_type();
        } else if (t.kind == TypeKind::ComplexVector || t.kind == TypeKind::ComplexRowVector ||
                   t.kind == TypeKind::ComplexMatrix) {
            t.kind = TypeKind::Complex;
        } else {
            fail(n.container.loc,
                 fmt::format("a foreach loop needs an array, vector or matrix, got {}", str(t)));
        }
        scopes_.push_back({});
        declare(n.variable, n.variable_loc, false, t);
        const Ending e = loop_body(*n.body);
        scopes_.pop_back();
        return loop(e);
    }
    Ending node(const While& n, Loc) {
        int_expr(n.condition, "the condition of `while`");
        scopes_.push_back({});
        const Ending e = loop_body(*n.body);
        scopes_.pop_back();
        // `while (1)` is left only by a return, as stanc counts it
        const auto* lit = n.condition.as<IntLiteral>();
        if (e == Ending::Open && lit != nullptr && lit->value != 0)
            return Ending::Returns;
        return loop(e);
    }
    Ending node(const If& n, Loc) {
        Ending e = Ending::Returns;
        for (const auto& b : n.branches) {
            int_expr(b.condition, "the condition of `if`");
            e = branches(e, scope(*b.body));
        }
        return branches(e, n.otherwise ? scope(**n.otherwise) : Ending::Open);
    }
    Ending node(const Block& n, Loc) { return statements(n.statements); }
    Ending node(const Profile& n, Loc) { return statements(n.statements); }
    Ending node(const Break&, Loc at) {
        if (loops_ == 0)
            fail(at, "`break` outside a loop");
        return Ending::Breaks;
    }
    Ending node(const Continue&, Loc at) {
        if (loops_ == 0)
            fail(at, "`continue` outside a loop");
        return Ending::Open;
    }
    Ending node(const Empty&, Loc) { return Ending::Open; }
    Ending node(const Return& n, Loc at) {
        if (function_ == nullptr)
            fail(at, "return outside a function");
        const FunctionDef& f = *function_;
        if (!n.value) {
            if (f.return_type) {
                fail(at, fmt::format("`{}` returns {}: `return;` has no value", f.name,
                                     str(return_type(f))));
            }
            return Ending::Returns;
        }
        if (!f.return_type)
            fail(at, fmt::format("`{}` is a void function: it cannot return a value", f.name));
        const StanType t = expr(*n.value);
        if (!assignable(return_type(f), t)) {
            fail(n.value->loc,
                 fmt::format("`{}` returns {}; got {}", f.name, str(return_type(f)), str(t)));
        }
        return Ending::Returns;
    }
    Ending node(const Print& n, Loc) {
        for (const auto& a : n.args) {
            if (!a.template is<StringLiteral>())
                expr(a);
        }
        return n.kind == PrintKind::Print ? Ending::Open : Ending::Returns;
    }
    Ending node(const CallStatement& n, Loc at) {
        const StanType t = call(n.call, at);
        if (t.kind != TypeKind::Void) {
            fail(at, fmt::format("`{}` returns {}: a function with a value cannot be called as a "
                                 "statement",
                                 n.call.name, str(t)));
        }
        return Ending::Open;
    }
    Ending statements(const std::vector<Statement>& ss) {
        scopes_.push_back({});
        Ending e = Ending::Open;
        for (const auto& st : ss) e = sequence(e, statement(st));
        scopes_.pop_back();
        return e;
    }
    Ending loop_body(const Statement& s) {
        ++loops_;
        const Ending e = statement(s);
        --loops_;
        return e;
    }
    Ending scope(const Statement& s) {
        scopes_.push_back({});
        const Ending e = statement(s);
        scopes_.pop_back();
        return e;
    }

    const Program& p_;
    std::map<std::string, const FunctionDef*> functions_;               // a definition of each name
    std::map<std::string, std::vector<const FunctionDef*>> overloads_;  // each, by arguments
    std::vector<std::map<std::string, Name>> scopes_;
    BlockKind block_ = BlockKind::Data;
    bool in_model_ = false;
    const FunctionDef* function_ = nullptr;  // whose body is being checked
    int loops_ = 0;                          // loops around the statement
    bool top_level_ = false;                 // a declaration of the block, not a local
};

}  // namespace

void check(const Program& program) {
    Checker(program).run();
}

}  // namespace advi::stan
