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
#include <map>
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
            } else if constexpr (std::is_same_v<T, ArrayExpr> || std::is_same_v<T, RowVectorExpr> ||
                                 std::is_same_v<T, TupleExpr>) {
                read_names(n.elements, out);
            } else if constexpr (std::is_same_v<T, TupleIndex>) {
                read_names(*n.base, out);
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

// Rows of an array read or written at the iteration: every use of the variable in the body
// is `x[t - c, ...]` with c a whole number >= 0 (the loop variable t), writes at c = 0. Such a
// variable needs only the rows t - C..t inside the body (a window, C the largest c): one it
// assigns carries C rows in the op's state and emits row t; one it only reads gets its window
// as the iteration's slice of the op's inputs. Either way an iteration costs what the body does,
// not the array's length.
struct Window {
    bool ok = true;
    bool written = false;
    int back = 0;  // C
};
struct Windows {
    std::string t;
    std::map<std::string, Window> vars;
    bool rewrite = false;  // replace the first index by the window's row, W - c
};

int offset_of(const Expression& e, const std::string& t) {
    if (const auto* v = e.as<Variable>())
        return v->name == t ? 0 : -1;
    if (const auto* b = e.as<Binary>(); b != nullptr && b->op == BinaryOp::Subtract) {
        const auto* v = b->lhs->as<Variable>();
        const auto* c = b->rhs->as<IntLiteral>();
        if (v != nullptr && v->name == t && c != nullptr && c->value >= 0 && c->value < (1 << 20))
            return static_cast<int>(c->value);
    }
    return -1;
}

void walk(Expression& e, Windows& w);
void walk(Statement& s, Windows& w);

void walk_index(Index& ix, Windows& w) {
    if (ix.lower)
        walk(**ix.lower, w);
    if (ix.upper)
        walk(**ix.upper, w);
}

// x[t - c, ...] of a window variable x: its offset recorded (or the variable disqualified), and
// in the rewrite the index replaced by the window's row.
void window_index(Indexed& n, Window& win, bool write, const Windows& w) {
    Index& first = n.indices.front();
    const int c = !first.is_range && first.lower ? offset_of(**first.lower, w.t) : -1;
    if (c < 0 || (write && c != 0)) {
        win.ok = false;
        return;
    }
    win.back = std::max(win.back, c);
    win.written = win.written || write;
    if (w.rewrite) {
        Expression row;
        row.loc = (*first.lower)->loc;
        row.node = IntLiteral{win.back + 1 - c};
        *first.lower = Box<Expression>(std::move(row));
    }
}

void walk(Expression& e, Windows& w) {
    std::visit(
        [&](auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, Variable>) {
                if (auto it = w.vars.find(n.name); it != w.vars.end())
                    it->second.ok = false;  // used whole
            } else if constexpr (std::is_same_v<T, Call>) {
                for (Expression& a : n.args) walk(a, w);
            } else if constexpr (std::is_same_v<T, Unary> || std::is_same_v<T, Transpose>) {
                walk(*n.operand, w);
            } else if constexpr (std::is_same_v<T, Binary>) {
                walk(*n.lhs, w);
                walk(*n.rhs, w);
            } else if constexpr (std::is_same_v<T, Conditional>) {
                walk(*n.condition, w);
                walk(*n.if_true, w);
                walk(*n.if_false, w);
            } else if constexpr (std::is_same_v<T, Indexed>) {
                const auto* v = n.base->template as<Variable>();
                auto it = v != nullptr ? w.vars.find(v->name) : w.vars.end();
                if (it != w.vars.end() && !n.indices.empty()) {
                    window_index(n, it->second, false, w);
                    for (std::size_t k = 0; k < n.indices.size(); ++k) {
                        if (k > 0 || !it->second.ok)
                            walk_index(n.indices[k], w);
                    }
                    return;
                }
                walk(*n.base, w);
                for (Index& ix : n.indices) walk_index(ix, w);
            } else if constexpr (std::is_same_v<T, ArrayExpr> || std::is_same_v<T, RowVectorExpr> ||
                                 std::is_same_v<T, TupleExpr>) {
                for (Expression& a : n.elements) walk(a, w);
            } else if constexpr (std::is_same_v<T, TupleIndex>) {
                walk(*n.base, w);
            }
        },
        e.node);
}

// The left side of an assignment: a write of its variable, reads in its indices.
void walk_target(Expression& lhs, bool compound, Windows& w) {
    std::vector<Indexed*> chain;  // outermost first
    Expression* e = &lhs;
    while (auto* ix = std::get_if<Indexed>(&e->node)) {
        chain.push_back(ix);
        e = &*ix->base;
    }
    const auto* v = e->as<Variable>();
    auto it = v != nullptr ? w.vars.find(v->name) : w.vars.end();
    if (it != w.vars.end() && chain.empty()) {
        it->second.ok = false;  // assigned whole
        return;
    }
    for (std::size_t k = 0; k < chain.size(); ++k) {
        Indexed& ix = *chain[k];
        const bool innermost = k + 1 == chain.size();
        if (innermost && it != w.vars.end()) {
            window_index(ix, it->second, true, w);
            (void)compound;  // x[t] op= v reads row t: the window holds it (the slice of x's old
                             // rows)
            for (std::size_t j = 1; j < ix.indices.size(); ++j) walk_index(ix.indices[j], w);
            continue;
        }
        for (Index& i : ix.indices) walk_index(i, w);
    }
}

void walk(Statement& s, Windows& w) {
    std::visit(
        [&](auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, VarDecl>) {
                for (Expression& d : n.type.dims) walk(d, w);
                for (Expression& d : n.type.sizes) walk(d, w);
                for (auto* b : {&n.type.lower, &n.type.upper, &n.type.offset, &n.type.multiplier}) {
                    if (*b)
                        walk(**b, w);
                }
                if (n.initial_value)
                    walk(*n.initial_value, w);
            } else if constexpr (std::is_same_v<T, Assign>) {
                walk_target(n.lhs, n.op != AssignOp::Assign, w);
                walk(n.rhs, w);
            } else if constexpr (std::is_same_v<T, Tilde>) {
                walk(n.lhs, w);
                for (Expression& a : n.args) walk(a, w);
                if (n.truncation) {
                    if (n.truncation->lower)
                        walk(*n.truncation->lower, w);
                    if (n.truncation->upper)
                        walk(*n.truncation->upper, w);
                }
            } else if constexpr (std::is_same_v<T, TargetPlus>) {
                walk(n.value, w);
            } else if constexpr (std::is_same_v<T, For>) {
                walk(n.lower, w);
                walk(n.upper, w);
                walk(*n.body, w);
            } else if constexpr (std::is_same_v<T, ForEach>) {
                walk(n.container, w);
                walk(*n.body, w);
            } else if constexpr (std::is_same_v<T, While>) {
                walk(n.condition, w);
                walk(*n.body, w);
            } else if constexpr (std::is_same_v<T, If>) {
                for (auto& b : n.branches) {
                    walk(b.condition, w);
                    walk(*b.body, w);
                }
                if (n.otherwise)
                    walk(**n.otherwise, w);
            } else if constexpr (std::is_same_v<T, Block> || std::is_same_v<T, Profile>) {
                for (Statement& st : n.statements) walk(st, w);
            } else if constexpr (std::is_same_v<T, Return>) {
                if (n.value)
                    walk(*n.value, w);
            } else if constexpr (std::is_same_v<T, Print>) {
                for (Expression& a : n.args) walk(a, w);
            } else if constexpr (std::is_same_v<T, CallStatement>) {
                for (Expression& a : n.call.args) walk(a, w);
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
    const int T = static_cast<int>(trip);
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
    assigned_names(*loop.body, written);
    read_names(*loop.body, read);
    for (const std::set<std::string>* names : {&written, &read}) {
        for (const std::string& n : *names) {
            const Var* v = find(n);
            if (v != nullptr && (!v->elements.empty() || v->value.has_parts()))
                refuse(fmt::format("the tuple `{}` in its body", n));
        }
    }

    // Which arrays the body uses by rows at the iteration only (windows), decided on the body
    // as written, then the body rewritten to index the windows.
    Windows windows;
    windows.t = loop.variable;
    for (const std::string& n : read) {
        const Var* v = find(n);
        if (v == nullptr || n == loop.variable || v->value.is_int())
            continue;
        const std::size_t rank = v->value.dims.size() + v->value.sizes.size();
        const bool input = written.count(n) == 0;
        if (rank < 1 || rank > 2)
            continue;
        if (input && (!v->value.expr.valid() || !m().nodes().is_variable(v->value.expr.id())))
            continue;  // constants of the body: read where they are, at no cost per iteration
        windows.vars[n] = Window{};
    }
    Statement body_copy = *loop.body;
    walk(body_copy, windows);
    auto extent = [](const Value& v) { return v.dims.empty() ? v.sizes[0] : v.dims[0]; };
    for (auto it = windows.vars.begin(); it != windows.vars.end();) {
        const Value& v = find(it->first)->value;
        const Window& w = it->second;
        const bool fits = lower - w.back >= 1 && upper <= extent(v);
        const bool assigned = written.count(it->first) > 0;
        if (!w.ok || !fits || (assigned && !w.written))
            it = windows.vars.erase(it);
        else
            ++it;
    }
    windows.rewrite = true;
    body_copy = *loop.body;
    walk(body_copy, windows);

    // A window's rows in one vector, row after row, and back.
    struct Rows {
        int rows = 0;  // W = C + 1, the last one the iteration's
        int width = 1;
        Value like;  // the variable's type with W rows
    };
    auto rows_of = [&](const Value& v, int w) {
        Rows r;
        r.rows = w;
        r.width = static_cast<int>(v.size() / extent(v));
        r.like = v;
        r.like.ints.clear();
        r.like.expr = Expr();
        (r.like.dims.empty() ? r.like.sizes[0] : r.like.dims[0]) = w;
        return r;
    };
    auto row_major = [](const Expr& e) {
        return e.shape().is_matrix() ? to_vector(transpose(e)) : e;
    };
    auto from_row_major = [](const Expr& v, const Rows& r) {
        return r.like.dims.size() + r.like.sizes.size() == 1
                   ? v
                   : transpose(to_matrix(v, r.width, r.rows));
    };
    // For each iteration, rows t - back .. t - back + count - 1 of x, row-major, iteration after
    // iteration (a gather from x's column-major values).
    auto rows_per_iteration = [&](const Value& x, int back, int count, int iterations) {
        const int n = extent(x), width = static_cast<int>(x.size() / n);
        Eigen::VectorXi idx(static_cast<Eigen::Index>(iterations) * count * width);
        Eigen::Index at_k = 0;
        for (int t = lower; t < lower + iterations; ++t) {
            for (int w = 0; w < count; ++w) {
                for (int j = 0; j < width; ++j) idx[at_k++] = (t - back + w - 1) + n * j;
            }
        }
        return flat(real(x, at))[m().data(fresh_name("rows"), out_.keep(std::move(idx)))];
    };

    // The state: the assigned variables of the enclosing scopes (whole, or the last C rows of a
    // window), then the running total.
    struct Carried {
        std::string name;
        Value like;  // type, sizes, layout
        int offset = 0;
        bool window = false;
        Rows rows;
        int slice = -1;    // the slice with x's old row t (a window of an assigned x)
        int emission = 0;  // offset of its row in the iteration's emission
    };
    std::vector<Carried> carried;
    int size = 0, emitted = 0;
    Expr init;
    std::vector<Expr> slices;
    auto append = [&](const Expr& e) { init = init.valid() ? append_row(init, e) : e; };
    for (const std::string& n : written) {
        const Var* v = find(n);
        if (v == nullptr)
            continue;  // declared inside the body
        if (v->value.is_int())
            refuse(fmt::format("assigning the int variable `{}` in it", n));
        const bool known = v->initialised && v->value.expr.valid();
        Carried c{n, v->value, size, false, {}, -1, 0};
        if (auto w = windows.vars.find(n); w != windows.vars.end()) {
            c.window = true;
            c.rows = rows_of(v->value, w->second.back + 1);
            const int back = w->second.back;
            const int elements = back * c.rows.width;
            if (elements > 0) {
                append(known ? rows_per_iteration(v->value, back, back, 1)
                             : rep_vector(m().constant(std::nan("")), elements));
            }
            size += elements;
            if (known) {  // row t before the body writes it: x's old values
                c.slice = static_cast<int>(slices.size());
                slices.push_back(rows_per_iteration(v->value, 0, 1, T));
            }
            c.emission = emitted;
            emitted += c.rows.width;
        } else {
            const auto elements = static_cast<int>(v->value.size());
            append(known ? flat(real(v->value, at))
                         : rep_vector(m().constant(std::nan("")), elements));
            size += elements;
        }
        carried.push_back(std::move(c));
    }
    const int total_at = size;
    append(rep_vector(m().constant(0), 1));

    // The inputs: what the body reads of the enclosing scopes and does not assign; windows of
    // rows as slices.
    struct Captured {
        std::string name;
        Var var;
        int arg = -1;    // position among the loop's arguments (reals)
        int slice = -1;  // or among its slices (a window)
        Rows rows;
    };
    std::vector<Captured> captured;
    std::vector<Expr> args;
    for (const std::string& n : read) {
        if (written.count(n) > 0 || n == loop.variable)
            continue;
        const Var* v = find(n);
        if (v == nullptr)
            continue;  // a body local, or a function's name
        Captured c{n, *v, -1, -1, {}};
        if (v->value.is_known_int()) {
            c.var.value.expr = Expr();  // a node of the enclosing model must not leak in
        } else if (auto w = windows.vars.find(n); w != windows.vars.end()) {
            c.rows = rows_of(v->value, w->second.back + 1);
            c.slice = static_cast<int>(slices.size());
            slices.push_back(rows_per_iteration(v->value, w->second.back, w->second.back + 1, T));
        } else if (v->value.expr.valid()) {
            c.arg = static_cast<int>(args.size());
            args.push_back(real(v->value, at));
        } else {
            c.var.value.expr = Expr();  // not assigned: reading it says so
        }
        captured.push_back(std::move(c));
    }

    bool has_terms = false;
    const ScanBodyFunction body = [&](Model& inner, const Expr& t, const Expr& state,
                                      const std::vector<Expr>& inputs,
                                      const std::vector<Expr>& rows) -> LoopStep {
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
                } else if (c.slice >= 0) {
                    var.value = c.rows.like;
                    var.value.expr =
                        from_row_major(rows[static_cast<std::size_t>(c.slice)], c.rows);
                }
                scope[c.name] = std::move(var);
            }
            for (const Carried& c : carried) {
                Var var;
                var.block = block_;
                var.initialised = true;
                if (!c.window) {
                    var.value = c.like;
                    var.value.ints.clear();
                    var.value.expr = slice_like(state, c.offset, c.like);
                } else {
                    const int older = (c.rows.rows - 1) * c.rows.width;
                    const Expr current =
                        c.slice >= 0 ? rows[static_cast<std::size_t>(c.slice)]
                                     : rep_vector(inner.constant(std::nan("")), c.rows.width);
                    const Expr all =
                        older > 0 ? append_row(segment(state, c.offset, older), current) : current;
                    var.value = c.rows.like;
                    var.value.expr = from_row_major(all, c.rows);
                }
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
            statement(body_copy);
            Expr next, emit;
            for (const Carried& c : carried) {
                const Expr e = row_major(real(find(c.name)->value, at));
                if (!c.window) {
                    next = next.valid() ? append_row(next, flat(e)) : flat(e);
                    continue;
                }
                const int older = (c.rows.rows - 1) * c.rows.width;
                const Expr row = segment(flat(e), older, c.rows.width);
                emit = emit.valid() ? append_row(emit, row) : row;
                if (older > 0) {  // the window moves on a row
                    const Expr kept = segment(flat(e), c.rows.width, older);
                    next = next.valid() ? append_row(next, kept) : kept;
                }
            }
            if (inner.jacobian_term_count() > 0) {
                fail(at, "`jacobian +=` in a loop run as a loop op is not supported yet");
            }
            Expr running = sum(segment(state, total_at, 1));
            for (const NodeId term : inner.spec().terms) {
                running = running + inner.wrap(term);
                has_terms = true;
            }
            const Expr last = rep_vector(running, 1);
            next = next.valid() ? append_row(next, last) : last;
            restore();
            return {next, emit};
        } catch (...) {
            restore();
            throw;
        }
    };
    const ScanResult r =
        scan(body, init, lower, upper, args, slices,
             fmt::format("the loop over `{}` at {}:{}", loop.variable, program_.file, here.line));
    for (const Carried& c : carried) {
        Var* v = find(c.name);
        if (!c.window) {
            v->value.ints.clear();
            v->value.expr = slice_like(r.state, c.offset, c.like);
            v->initialised = true;
            continue;
        }
        // rows lower..upper of x: the emitted rows; the others as they were (NaN if unassigned)
        const int n = extent(c.like), width = c.rows.width;
        Eigen::VectorXi idx(static_cast<Eigen::Index>(T) * width);
        for (int k = 0; k < T; ++k)
            for (int j = 0; j < width; ++j) idx[k + T * j] = k * emitted + c.emission + j;
        const Expr rows_written =
            r.emitted[m().data(fresh_name("emitted"), out_.keep(std::move(idx)))];
        const bool known = v->initialised && v->value.expr.valid();
        const Expr old = known ? real(v->value, at) : Expr();
        auto kept = [&](int from, int count) -> Expr {  // rows [from, from + count), 0-based
            if (known)
                return width == 1 && old.shape().cols == 1 ? segment(old, from, count)
                                                           : block(old, from, 0, count, width);
            const Expr nan = rep_vector(m().constant(std::nan("")), count * width);
            return width == 1 && c.like.dims.size() + c.like.sizes.size() == 1
                       ? nan
                       : to_matrix(nan, count, width);
        };
        Expr value = c.like.dims.size() + c.like.sizes.size() == 1
                         ? rows_written
                         : to_matrix(rows_written, T, width);
        if (lower > 1)
            value = append_row(kept(0, lower - 1), value);
        if (upper < n)
            value = append_row(value, kept(upper, n - upper));
        v->value.ints.clear();
        v->value.expr = value;
        v->initialised = true;
    }
    if (has_terms)
        add_target(sum(segment(r.state, total_at, 1)), 0);
    std::string windowed;
    for (const auto& [n, w] : windows.vars)
        windowed += fmt::format("{}`{}`", windowed.empty() ? "" : ", ", n);
    out_.loop_report().push_back(
        fmt::format("{}:{}: loop over `{}` run as a loop op over {} iterations ({} at line {}){}",
                    program_.file, here.line, loop.variable, trip, why.what(), reason.line,
                    windowed.empty() ? "" : fmt::format("; rows at the iteration: {}", windowed)));
}

}  // namespace advi::stan
