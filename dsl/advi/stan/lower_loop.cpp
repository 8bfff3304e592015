// Loops the vectoriser cannot lift and that are too long to unroll, as one loop op
// (dsl/advi/cpp/loop.hpp): the body is lowered once more, with the model pointer moved to a
// model of its own, in a scope where
//   - the loop variable is an int known only per draw (the op's iteration t), so that indexing
//     by it reads and writes through dyn_gather/dyn_scatter and conditions on it select;
//   - each variable of the enclosing scopes that the body assigns is a slice of the op's state
//     (the state after the loop is the variables' values after it);
//   - each one it only reads is an input of the op (differentiated where it depends on
//     parameters, a constant of the body otherwise);
//   - its target terms add to a running total, the state's last element, added to the target
//     after the loop.
#include <set>

#include <fmt/format.h>

#include <advi/cpp/loop.hpp>
#include <advi/io/source_text.hpp>
#include <advi/stan/ast_printer.hpp>
#include <advi/stan/lowerer.hpp>

namespace advi::stan {
namespace {

void read_names(const Expression& e, std::set<std::string>& out);

void read_names(const std::vector<Expression>& es, std::set<std::string>& out) {
    for (const Expression& e : es) read_names(e, out);
}

void read_names(const Expression& e, std::set<std::string>& out) {
    std::visit(
        [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, Variable>) {
                out.insert(n.name);
            } else if constexpr (std::is_same_v<T, Call>) {
                read_names(n.args, out);
            } else if constexpr (std::is_same_v<T, Unary> || std::is_same_v<T, Transpose>) {
                read_names(*n.operand, out);
            } else if constexpr (std::is_same_v<T, Binary>) {
                read_names(*n.lhs, out);
                read_names(*n.rhs, out);
            } else if constexpr (std::is_same_v<T, Conditional>) {
                read_names(*n.condition, out);
                read_names(*n.if_true, out);
                read_names(*n.if_false, out);
            } else if constexpr (std::is_same_v<T, Indexed>) {
                read_names(*n.base, out);
                for (const Index& ix : n.indices) {
                    if (ix.lower)
                        read_names(**ix.lower, out);
                    if (ix.upper)
                        read_names(**ix.upper, out);
                }
            } else if constexpr (std::is_same_v<T, ArrayExpr> || std::is_same_v<T, RowVectorExpr>) {
                read_names(n.elements, out);
            }
        },
        e.node);
}

void read_names(const SizedType& t, std::set<std::string>& out) {
    read_names(t.dims, out);
    read_names(t.sizes, out);
    for (const auto* b : {&t.lower, &t.upper, &t.offset, &t.multiplier}) {
        if (*b)
            read_names(**b, out);
    }
}

// Every name the statement reads (an assignment `x[i] = v` reads x too: the rest of it stays).
void read_names(const Statement& s, std::set<std::string>& out) {
    std::visit(
        [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, VarDecl>) {
                read_names(n.type, out);
                if (n.initial_value)
                    read_names(*n.initial_value, out);
            } else if constexpr (std::is_same_v<T, Assign>) {
                read_names(n.lhs, out);
                read_names(n.rhs, out);
            } else if constexpr (std::is_same_v<T, Tilde>) {
                read_names(n.lhs, out);
                read_names(n.args, out);
                if (n.truncation) {
                    if (n.truncation->lower)
                        read_names(*n.truncation->lower, out);
                    if (n.truncation->upper)
                        read_names(*n.truncation->upper, out);
                }
            } else if constexpr (std::is_same_v<T, TargetPlus>) {
                read_names(n.value, out);
            } else if constexpr (std::is_same_v<T, For>) {
                read_names(n.lower, out);
                read_names(n.upper, out);
                read_names(*n.body, out);
            } else if constexpr (std::is_same_v<T, ForEach>) {
                read_names(n.container, out);
                read_names(*n.body, out);
            } else if constexpr (std::is_same_v<T, While>) {
                read_names(n.condition, out);
                read_names(*n.body, out);
            } else if constexpr (std::is_same_v<T, If>) {
                for (const auto& b : n.branches) {
                    read_names(b.condition, out);
                    read_names(*b.body, out);
                }
                if (n.otherwise)
                    read_names(**n.otherwise, out);
            } else if constexpr (std::is_same_v<T, Block> || std::is_same_v<T, Profile>) {
                for (const auto& st : n.statements) read_names(st, out);
            } else if constexpr (std::is_same_v<T, Return>) {
                if (n.value)
                    read_names(*n.value, out);
            } else if constexpr (std::is_same_v<T, Print>) {
                read_names(n.args, out);
            } else if constexpr (std::is_same_v<T, CallStatement>) {
                read_names(n.call.args, out);
            }
        },
        s.node);
}

// The names the statement assigns (an assignment's variable, with or without indices).
void written_names(const Statement& s, std::set<std::string>& out) {
    std::visit(
        [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, Assign>) {
                const Expression* e = &n.lhs;
                while (const auto* ix = e->as<Indexed>()) e = &*ix->base;
                if (const auto* v = e->as<Variable>())
                    out.insert(v->name);
            } else if constexpr (std::is_same_v<T, For> || std::is_same_v<T, ForEach> ||
                                 std::is_same_v<T, While>) {
                written_names(*n.body, out);
            } else if constexpr (std::is_same_v<T, If>) {
                for (const auto& b : n.branches) written_names(*b.body, out);
                if (n.otherwise)
                    written_names(**n.otherwise, out);
            } else if constexpr (std::is_same_v<T, Block> || std::is_same_v<T, Profile>) {
                for (const auto& st : n.statements) written_names(st, out);
            }
        },
        s.node);
}

// A break or continue of this loop (not of a loop inside it): where the loop stops is known
// only per draw.
bool breaks(const Statement& s) {
    return std::visit(
        [&](const auto& n) -> bool {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, Break> || std::is_same_v<T, Continue>) {
                return true;
            } else if constexpr (std::is_same_v<T, If>) {
                for (const auto& b : n.branches) {
                    if (breaks(*b.body))
                        return true;
                }
                return n.otherwise && breaks(**n.otherwise);
            } else if constexpr (std::is_same_v<T, Block> || std::is_same_v<T, Profile>) {
                for (const auto& st : n.statements) {
                    if (breaks(st))
                        return true;
                }
                return false;
            } else {
                return false;
            }
        },
        s.node);
}

// A value's elements as a column vector (a scalar as one element).
Expr flat(const Expr& e) {
    if (e.shape().is_scalar())
        return rep_vector(e, 1);
    if (e.shape().is_matrix())
        return to_vector(e);
    return e;
}

// Elements [offset, offset + v's size) of `state` in the layout of v.
Expr slice_like(const Expr& state, int offset, const Value& v) {
    const int n = static_cast<int>(v.size());
    const Expr s = segment(state, offset, n);
    const std::size_t rank = v.dims.size() + v.sizes.size();
    if (rank == 0)
        return sum(s);
    if (rank == 1)
        return s;
    const int rows = v.dims.empty() ? v.sizes[0] : v.dims[0];
    return to_matrix(s, rows, n / rows);
}

}  // namespace

void Lowerer::loop_op(const LoopSpec& loop, int lower, int upper, Loc at,
                      const NotVectorisable& why) {
    if (!levels_.empty())
        throw NotVectorisable(why.loc, why.what());  // the enclosing loop cannot run at once
    const SourcePosition here = position_of(program_.text, at.offset);
    const SourcePosition reason = position_of(program_.text, why.loc.offset);
    const std::int64_t trip = std::int64_t{upper} - lower + 1;
    auto refuse = [&](const std::string& what) {
        fail(at, fmt::format("this loop over {} iterations cannot be vectorised ({} at line {}), "
                             "is too long to unroll (more than {} iterations), and cannot run as "
                             "a loop op: {} is not supported yet",
                             trip, why.what(), reason.line, unroll_limit_, what));
    };
    if (loop.container != nullptr)
        refuse("a foreach loop");
    if (breaks(*loop.body))
        refuse("a break or continue, which ends the loop at an iteration known only per draw");

    std::set<std::string> written, read;
    written_names(*loop.body, written);
    read_names(*loop.body, read);

    // The state: the assigned variables of the enclosing scopes, then the running total.
    struct Carried {
        std::string name;
        Value like;  // type, sizes, layout
        int offset = 0;
    };
    std::vector<Carried> carried;
    int size = 0;
    Expr init;
    auto append = [&](const Expr& e) { init = init.valid() ? append_row(init, e) : e; };
    for (const std::string& n : written) {
        const Var* v = find(n);
        if (v == nullptr)
            continue;  // declared inside the body
        if (v->value.is_int())
            refuse(fmt::format("assigning the int variable `{}` in it", n));
        const auto elements = static_cast<int>(v->value.size());
        carried.push_back({n, v->value, size});
        append(v->initialised && v->value.expr.valid()
                   ? flat(real(v->value, at))
                   : rep_vector(m().constant(std::nan("")), elements));
        size += elements;
    }
    const int total_at = size;
    append(rep_vector(m().constant(0), 1));

    // The inputs: what the body reads of the enclosing scopes and does not assign.
    struct Captured {
        std::string name;
        Var var;
        int arg = -1;  // position among the loop's arguments (reals), or -1 (known ints)
    };
    std::vector<Captured> captured;
    std::vector<Expr> args;
    for (const std::string& n : read) {
        if (written.count(n) > 0 || n == loop.variable)
            continue;
        const Var* v = find(n);
        if (v == nullptr)
            continue;  // a body local, or a function's name
        Captured c{n, *v};
        if (v->value.is_known_int()) {
            c.var.value.expr = Expr();  // a node of the enclosing model must not leak in
        } else if (v->value.expr.valid()) {
            c.arg = static_cast<int>(args.size());
            args.push_back(real(v->value, at));
        } else {
            c.var.value.expr = Expr();  // not assigned: reading it says so
        }
        captured.push_back(std::move(c));
    }

    bool has_terms = false;
    const LoopBodyFunction body = [&](Model& inner, const Expr& t, const Expr& state,
                                      const std::vector<Expr>& inputs) -> Expr {
        Model* const outer = model_;
        const std::size_t depth = scopes_.size();
        const int loop_depth = loop_depth_;
        model_ = &inner;
        push_scope();
        auto restore = [&] {
            scopes_.resize(depth);
            model_ = outer;
            loop_depth_ = loop_depth;
        };
        try {
            auto& scope = scopes_.back();
            for (const Captured& c : captured) {
                Var var = c.var;
                if (c.arg >= 0) {
                    var.value.expr = inputs[static_cast<std::size_t>(c.arg)];
                    if (var.value.is_int())
                        var.value.ints.clear();  // an int known only per draw stays one
                }
                scope[c.name] = std::move(var);
            }
            for (const Carried& c : carried) {
                Var var;
                var.value = c.like;
                var.value.ints.clear();
                var.value.expr = slice_like(state, c.offset, c.like);
                var.block = block_;
                var.initialised = true;
                scope[c.name] = std::move(var);
            }
            Var index;
            index.value.base = Base::Int;
            index.value.expr = t;  // the iteration, known only per draw
            index.block = block_;
            index.initialised = true;
            index.readonly = true;
            scope[loop.variable] = std::move(index);
            loop_depth_ = 0;
            statement(*loop.body);
            Expr next;
            for (const Carried& c : carried) {
                const Var* v = find(c.name);
                const Expr e = flat(real(v->value, at));
                next = next.valid() ? append_row(next, e) : e;
            }
            Expr running = sum(segment(state, total_at, 1));
            for (const NodeId term : inner.spec().terms) {
                running = running + inner.wrap(term);
                has_terms = true;
            }
            const Expr last = rep_vector(running, 1);
            next = next.valid() ? append_row(next, last) : last;
            restore();
            return next;
        } catch (...) {
            restore();
            throw;
        }
    };
    const Expr final = advi::loop(
        body, init, lower, upper, args,
        fmt::format("the loop over `{}` at {}:{}", loop.variable, program_.file, here.line));
    for (const Carried& c : carried) {
        Var* v = find(c.name);
        v->value.ints.clear();
        v->value.expr = slice_like(final, c.offset, c.like);
        v->initialised = true;
    }
    if (has_terms)
        add_target(sum(segment(final, total_at, 1)), 0);
    out_.loop_report().push_back(
        fmt::format("{}:{}: loop over `{}` run as a loop op over {} iterations ({} at line {})",
                    program_.file, here.line, loop.variable, trip, why.what(), reason.line));
}

}  // namespace advi::stan
