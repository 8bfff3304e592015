// Expressions: literals, variables, operators with Stan's typing (a row vector times a vector
// is a dot product, a matrix times a vector a matrix-vector product), indexing and slicing,
// all on values that may be batched over the iterations of a vectorised loop.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include <advi/graph/ops_dynamic_index.hpp>
#include <advi/stan/ast_printer.hpp>
#include <advi/stan/int_arithmetic.hpp>
#include <advi/stan/lowerer.hpp>

namespace advi::stan {

namespace {

Expr nonzero(const Expr& x);

// Per-iteration rank of the real layout: 0 (real), 1 (vec), 2 (mat).
int rank_of(const Value& v) {
    return static_cast<int>(v.dims.size() + v.sizes.size());
}

}  // namespace

Expr Lowerer::known_reals(Eigen::VectorXd x) {
    return m().data(fresh_name("known_reals"), out_.keep(std::move(x)));
}

Value Lowerer::constant(double v) {
    Value r;
    r.base = Base::Real;
    r.expr = m().constant(v);
    return r;
}

Value Lowerer::int_scalar(int v) {
    Value r;
    r.base = Base::Int;
    r.ints = {v};
    return r;
}

int Lowerer::batch_size(int level) const {
    return level == 0 ? 1 : levels_[static_cast<std::size_t>(level) - 1].total();
}

int Lowerer::level_of(const Value& v) const {
    return v.level;
}

Value Lowerer::at_level(const Value& v, int level, Loc at) {
    if (v.has_parts()) {
        Value r = v;
        for (Value& p : r.parts) p = at_level(p, level, at);
        r.level = level;
        return r;
    }
    if (v.level == level || (v.level == 0 && !v.is_known_int()))
        return v;
    if (v.level > level)
        throw InternalError("a value cannot move to an outer vectorised level");
    const int from = batch_size(v.level), to = batch_size(level);
    Value r = v;
    r.level = level;
    const auto per = static_cast<int>(v.size());
    if (v.is_known_int()) {
        // t at the inner level is t_outer + from * rest: element e of iteration t is the
        // outer value's element e of iteration t mod from.
        r.ints.assign(static_cast<std::size_t>(to) * per, 0);
        for (int e = 0; e < per; ++e)
            for (int t = 0; t < to; ++t)
                r.ints[static_cast<std::size_t>(t) + static_cast<std::size_t>(to) * e] =
                    v.ints[static_cast<std::size_t>(t % from) + static_cast<std::size_t>(from) * e];
        return r;
    }
    if (rank_of(v) == 0) {
        r.expr = to_vector(rep_matrix(v.expr, to / from));  // the vector repeated
        return r;
    }
    if (rank_of(v) == 1) {
        Eigen::VectorXi rows(to);
        for (int t = 0; t < to; ++t) rows[t] = t % from;
        r.expr = v.expr[m().data(fresh_name("rows"), out_.keep(std::move(rows)))];
        return r;
    }
    throw NotVectorisable(at, "a matrix that differs between iterations");
}

Expr Lowerer::real(const Value& v, Loc at) {
    if (v.has_parts())
        fail(at, fmt::format("{} where reals are expected", type_str(v)));
    if (v.is_runtime_int())
        return v.expr;
    if (!v.is_int()) {
        if (!v.expr.valid())
            fail(at, "this value is used before it is assigned");
        return v.expr;
    }
    const std::int64_t n = static_cast<std::int64_t>(v.ints.size());
    if (n == 1 && v.level == 0)
        return m().constant(v.ints[0]);
    // Layout as reals: a batched scalar or a 1-d array is a vector; 2-d is a matrix.
    const int per_rank = rank_of(v);
    const int rows = v.level > 0 ? batch_size(v.level)
                                 : (per_rank >= 1 ? v.dims.empty() ? v.sizes[0] : v.dims[0] : 1);
    if (per_rank + (v.level > 0 ? 1 : 0) <= 1) {
        Eigen::VectorXd x(n);
        for (std::int64_t k = 0; k < n; ++k) x[k] = v.ints[static_cast<std::size_t>(k)];
        return m().data(fresh_name("int_as_real"), out_.keep(std::move(x)));
    }
    // two dimensions or more (unbatched): rows by the first index, the rest in the columns
    if (per_rank + (v.level > 0 ? 1 : 0) == 2 || (v.level == 0 && per_rank > 2)) {
        std::int64_t cols = 1;
        if (v.level > 0) {
            cols = rows == 0 ? 0 : n / rows;
        } else {
            std::vector<int> all = v.dims;
            all.insert(all.end(), v.sizes.begin(), v.sizes.end());
            for (std::size_t k = 1; k < all.size(); ++k) cols *= all[k];
        }
        if (static_cast<std::int64_t>(rows) * cols != n)
            fail(at, "this value is used before it is assigned");
        Eigen::MatrixXd x(rows, cols);
        for (std::int64_t k = 0; k < n; ++k) x.data()[k] = v.ints[static_cast<std::size_t>(k)];
        return m().data(fresh_name("int_as_real"), out_.keep(std::move(x)));
    }
    fail(at, fmt::format("an integer array of {} dimensions cannot be used as reals", per_rank));
}

Expr Lowerer::int_data(const Value& v, Loc at) {
    if (!v.is_known_int()) {
        fail(at, fmt::format("expected integers known before the fit, got {}", type_str(v)));
    }
    if (v.expr.valid() && v.level == 0)
        return v.expr;
    if (v.ints.empty() && v.size() > 0)  // values lost on the way: never data of nothing
        throw InternalError(fmt::format("int_data: no values for {}", type_str(v)));
    if (v.ints.size() == 1 && v.level == 0 && v.dims.empty()) {
        return m().data(fresh_name("int"), v.ints[0]);
    }
    if (rows_) {
        // A row variable's ints read whole again (`flip[n]` over the loop 1:N): its own slot,
        // which the minibatch refills. The same values by another route (a permutation that
        // happens to agree) would differ on the other batches that lower_minibatch compares.
        for (const std::string& name : rows_->row_variables) {
            const Var* var = find(name);
            if (var != nullptr && var->value.is_known_int() && var->value.expr.valid() &&
                var->value.ints == v.ints)
                return var->value.expr;
        }
    }
    Eigen::VectorXi x =
        Eigen::Map<const Eigen::VectorXi>(v.ints.data(), static_cast<Eigen::Index>(v.ints.size()));
    return m().data(fresh_name("ints"), out_.keep(std::move(x)));
}

int Lowerer::known_int(const Expression& e, const char* what) {
    Value v;
    {
        const InSize in_size(size_context_);
        v = expr(e);
    }
    if (v.level > 0)
        throw NotVectorisable(e.loc, fmt::format("{} differs between iterations", what));
    if (!v.is_known_int() || !v.is_scalar()) {
        fail(e.loc, fmt::format("{} must be an int, got {}", what, type_str(v)));
    }
    return v.ints[0];
}

// ------------------------------------------------------------------------------ variables

Value Lowerer::expr(const Expression& e) {
    // An error of the library's (a shape its ops refuse) that no lowering step placed says
    // where: the innermost expression it came from.
    try {
        return expr_here(e);
    } catch (const ParseError&) {
        throw;
    } catch (const InternalError&) {
        throw;
    } catch (const Error& err) {
        fail(e.loc, err.what());
    }
}

Value Lowerer::expr_here(const Expression& e) {
    if (const auto* x = e.as<IntLiteral>())
        return int_scalar(static_cast<int>(x->value));
    if (const auto* x = e.as<RealLiteral>())
        return constant(x->value);
    if (const auto* x = e.as<ImagLiteral>())
        return complex_of(constant(0), constant(x->value), e.loc);
    if (e.is<StringLiteral>())
        fail(e.loc, "a string can only be printed");
    if (const auto* x = e.as<Variable>()) {
        Var* var = find(x->name);
        if (var == nullptr)
            fail(e.loc, fmt::format("unknown identifier `{}`", x->name));
        if (region_ != nullptr && region_->assigned.count(x->name) &&
            var->level < static_cast<int>(levels_.size())) {
            throw NotVectorisable(
                e.loc, fmt::format("`{}` is read whole in a loop that assigns it", x->name));
        }
        if (rows_) {
            if (x->name == rows_->size_variable && size_context_ > 0)
                return batch_rows_read(e.loc);
            check_row_variable_read(x->name, e.loc);
        }
        return read_variable(x->name, e.loc);
    }
    if (const auto* x = e.as<TupleExpr>()) {
        Value t;
        t.base = Base::Tuple;
        for (const Expression& el : x->elements) {
            t.parts.push_back(expr(el));
            t.level = std::max(t.level, t.parts.back().level);
        }
        return t;
    }
    if (const auto* x = e.as<TupleIndex>()) {
        const Value t = expr(*x->base);
        if (!t.is_tuple() || !t.dims.empty() || x->index > static_cast<int>(t.parts.size()))
            fail(x->index_loc, fmt::format("`.{}` of {}", x->index, type_str(t)));
        return t.parts[static_cast<std::size_t>(x->index - 1)];
    }
    if (const auto* x = e.as<Unary>()) {
        Value v = expr(*x->operand);
        if (x->op == UnaryOp::Plus)
            return v;
        if (v.is_complex() && x->op == UnaryOp::Minus)
            return complex_binary(BinaryOp::Subtract, zeros_like(v), v, e.loc);
        if (v.is_known_int()) {
            try {
                for (int& k : v.ints) k = x->op == UnaryOp::Minus ? int_arithmetic::negate(k) : !k;
            } catch (const IntArithmeticError& err) {
                fail(e.loc, fmt::format("`{}`: {}", to_stan(e), err.what()));
            }
            v.expr = Expr();
            return v;
        }
        if (x->op == UnaryOp::Not) {
            if (!v.is_runtime_int())
                fail(e.loc, "`!` needs an int");
            v.expr = 1.0 - nonzero(v.expr);
            return v;
        }
        v.expr = -v.expr;
        return v;
    }
    if (const auto* x = e.as<Binary>()) {
        const Value a = expr(*x->lhs);
        // && and || stop at a left side that decides them, as Stan's do: the right side is not
        // evaluated (`i <= N && y[i] > 0` reads y[i] only for i <= N)
        if ((x->op == BinaryOp::And || x->op == BinaryOp::Or) && a.is_known_int() &&
            a.is_scalar() && a.level == 0 && (a.ints[0] != 0) == (x->op == BinaryOp::Or))
            return int_scalar(x->op == BinaryOp::Or ? 1 : 0);
        const Value b = expr(*x->rhs);
        return binary(x->op, a, b, x->op_loc, &e);
    }
    if (const auto* x = e.as<Conditional>()) {
        const Value c = expr(*x->condition);
        if (c.level > 0)
            throw NotVectorisable(e.loc, "a condition that differs between iterations");
        if (c.is_runtime_int() && c.is_scalar()) {
            // Known only per draw: both sides, merged.
            const Value a = expr(*x->if_true), b = expr(*x->if_false);
            return merge_branches(c.expr, a, b, e.loc);
        }
        if (!c.is_known_int() || !c.is_scalar()) {
            fail(x->condition->loc, fmt::format("a condition must be an int, got {}", type_str(c)));
        }
        return c.ints[0] != 0 ? expr(*x->if_true) : expr(*x->if_false);
    }
    if (const auto* x = e.as<Indexed>()) {
        if (const auto* v = x->base->as<Variable>(); v != nullptr && rows_)
            check_row_position(v->name, x->indices);
        if (const auto* v = x->base->as<Variable>();
            v != nullptr && scan_ && scan_->name == v->name) {
            // In a recurrence: x[t - 1] is the placeholder, x[t] the value before the loop.
            Var* var = find(v->name);
            const Value read = index(var->value, x->indices, e.loc, &e);
            Value positions;
            positions.base = Base::Int;
            positions.dims = var->value.dims;
            positions.sizes = var->value.sizes;
            for (std::int64_t k = 0; k < var->value.size(); ++k)
                positions.ints.push_back(static_cast<int>(k));
            const Value at_index = at_level(index(positions, x->indices, e.loc, &e), 1, e.loc);
            const Var* t = find(" scan index");
            bool previous = true, same = true;
            for (std::size_t k = 0; k < at_index.ints.size(); ++k) {
                previous = previous && at_index.ints[k] == t->value.ints[k] - 2;
                same = same && at_index.ints[k] == t->value.ints[k] - 1;
            }
            if (same)
                return read;
            if (!previous)
                throw NotVectorisable(
                    e.loc,
                    fmt::format("`{}` is read at an element other than the previous one", v->name));
            Value p = read;
            p.expr = scan_->placeholder;
            p.level = 1;
            return p;
        }
        // A variable that the enclosing vectorised loop assigns may be read at the element
        // the same iteration wrote; any other read would see another iteration's value.
        if (const auto* v = x->base->as<Variable>();
            v != nullptr && region_ != nullptr && region_->assigned.count(v->name)) {
            Var* var = find(v->name);
            if (var != nullptr && !var->elements.empty())
                throw NotVectorisable(
                    e.loc, fmt::format("`{}`, a tuple the loop assigns, is read", v->name));
            if (var != nullptr && var->level < static_cast<int>(levels_.size())) {
                auto w = region_->written_at.find(v->name);
                if (w == region_->written_at.end()) {
                    throw NotVectorisable(
                        e.loc, fmt::format("`{}` is read before the loop assigns it", v->name));
                }
                Value positions;
                positions.base = Base::Int;
                positions.dims = var->value.dims;
                positions.sizes = var->value.sizes;
                const auto per = var->value.size();
                for (std::int64_t k = 0; k < per; ++k)
                    positions.ints.push_back(static_cast<int>(k));
                const Value read = at_level(index(positions, x->indices, e.loc, &e),
                                            static_cast<int>(levels_.size()), e.loc);
                const int outer = batch_size(var->level);
                const int B = batch_size(static_cast<int>(levels_.size()));
                std::vector<int> where(read.ints.size());
                for (std::size_t k = 0; k < read.ints.size(); ++k) {
                    where[k] = static_cast<int>(k % static_cast<std::size_t>(B)) % outer +
                               outer * read.ints[k];
                }
                if (where != w->second) {
                    throw NotVectorisable(e.loc, fmt::format("`{}` is read at an element another "
                                                             "iteration writes (a recurrence)",
                                                             v->name));
                }
                return index(var->value, x->indices, e.loc, &e);
            }
        }
        const Value base = expr(*x->base);
        return index(base, x->indices, e.loc, &e);
    }
    if (const auto* x = e.as<Transpose>())
        return transposed(expr(*x->operand), e.loc);
    if (const auto* x = e.as<Call>())
        return call(*x, e.loc);
    if (const auto* x = e.as<ArrayExpr>()) {
        std::vector<Value> parts;
        std::vector<Loc> locs;
        for (const auto& el : x->elements) {
            parts.push_back(expr(el));
            locs.push_back(el.loc);
        }
        return array_of(parts, locs, e.loc);
    }
    if (const auto* x = e.as<RowVectorExpr>()) {
        std::vector<Value> parts;
        std::vector<Loc> locs;
        for (const auto& el : x->elements) {
            parts.push_back(expr(el));
            locs.push_back(el.loc);
            if (parts.back().level > 0)
                throw NotVectorisable(el.loc, "a row vector expression of per-iteration values");
        }
        return row_vector_of(parts, locs, e.loc);
    }
    fail(e.loc, "unsupported expression");
}

Value Lowerer::transposed(Value v, Loc at) {
    if (v.is_complex()) {
        const Value re = transposed(v.parts[0], at), im = transposed(v.parts[1], at);
        return complex_of(re, im, at);
    }
    if (v.base == Base::Vector) {
        v.base = Base::RowVector;
    } else if (v.base == Base::RowVector) {
        v.base = Base::Vector;
    } else if (v.base == Base::Matrix && v.dims.empty()) {
        if (v.level > 0)
            throw NotVectorisable(at, "a matrix that differs between iterations");
        v.expr = transpose(v.expr);
        std::swap(v.sizes[0], v.sizes[1]);
    } else {
        fail(at, fmt::format("cannot transpose {}", type_str(v)));
    }
    return v;
}

// [a, b, c] of scalars: a row vector; [r1, r2] of row vectors: a matrix, one per row; of
// complex values, the complex forms.
Value Lowerer::row_vector_of(const std::vector<Value>& parts, const std::vector<Loc>& locs,
                             Loc at) {
    if (std::any_of(parts.begin(), parts.end(), [](const Value& v) { return v.is_complex(); })) {
        std::vector<Value> re, im;
        for (std::size_t k = 0; k < parts.size(); ++k) {
            re.push_back(real_part(parts[k], locs[k]));
            im.push_back(imag_part(parts[k], locs[k]));
        }
        return complex_of(row_vector_of(re, locs, at), row_vector_of(im, locs, at), at);
    }
    Value r;
    Expr acc;
    if (!parts.empty() && parts.front().base == Base::RowVector && parts.front().dims.empty()) {
        const int K = parts.front().sizes[0];
        for (std::size_t k = 0; k < parts.size(); ++k) {
            if (parts[k].base != Base::RowVector || !parts[k].dims.empty() ||
                parts[k].sizes[0] != K) {
                fail(locs[k], fmt::format("the rows of a matrix expression differ: {} and {}",
                                          type_str(parts.front()), type_str(parts[k])));
            }
            const Expr row = rep_matrix_rows(real(parts[k], locs[k]), 1);
            acc = acc.valid() ? append_row(acc, row) : row;
        }
        r.base = Base::Matrix;
        r.sizes = {static_cast<int>(parts.size()), K};
        r.expr = acc;
        return r;
    }
    r.base = Base::RowVector;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (!parts[k].is_scalar()) {
            fail(locs[k], fmt::format("a row vector expression takes reals or row vectors, not {}",
                                      type_str(parts[k])));
        }
        const Expr one = rep_vector(real(parts[k], locs[k]), 1);
        acc = acc.valid() ? append_row(acc, one) : one;
    }
    r.sizes = {static_cast<int>(parts.size())};
    r.expr = acc;
    (void)at;
    return r;
}

// {a, b, c} of scalars: an int array or a real array; of vectors, row vectors, matrices or arrays
// of them: the array of them (a matrix whose rows hold each element's values, column-major); of
// tuples: a tuple of such arrays, one per element.
Value Lowerer::array_of(const std::vector<Value>& parts, const std::vector<Loc>& locs, Loc at) {
    {
        const Loc& loc = at;
        bool all_int = true;
        for (std::size_t k = 0; k < parts.size(); ++k) {
            if (parts[k].level > 0)
                throw NotVectorisable(locs[k], "an array expression of per-iteration values");
            all_int = all_int && parts[k].is_known_int();
        }
        if (std::any_of(parts.begin(), parts.end(),
                        [](const Value& v) { return v.is_complex(); })) {
            std::vector<Value> re, im;
            for (std::size_t k = 0; k < parts.size(); ++k) {
                re.push_back(real_part(parts[k], locs[k]));
                im.push_back(imag_part(parts[k], locs[k]));
            }
            return complex_of(array_of(re, locs, at), array_of(im, locs, at), at);
        }
        if (parts.front().is_tuple()) {
            Value r;
            r.base = Base::Tuple;
            r.dims = parts.front().dims;
            r.dims.insert(r.dims.begin(), static_cast<int>(parts.size()));
            for (std::size_t k = 0; k < parts.front().parts.size(); ++k) {
                std::vector<Value> column;
                for (std::size_t i = 0; i < parts.size(); ++i) {
                    if (!parts[i].is_tuple() ||
                        parts[i].parts.size() != parts.front().parts.size() ||
                        parts[i].dims != parts.front().dims) {
                        fail(locs[i], fmt::format("the elements of an array expression differ: {} "
                                                  "and {}",
                                                  type_str(parts.front()), type_str(parts[i])));
                    }
                    column.push_back(parts[i].parts[k]);
                }
                r.parts.push_back(array_of(column, locs, at));
            }
            return r;
        }
        if (!parts.front().is_scalar() && all_int) {
            // ints known now: column-major with the new index first
            const Value& first = parts.front();
            Value r = first;
            r.dims.insert(r.dims.begin(), static_cast<int>(parts.size()));
            const auto per = static_cast<std::size_t>(first.size());
            r.ints.assign(per * parts.size(), 0);
            for (std::size_t i = 0; i < parts.size(); ++i) {
                if (parts[i].dims != first.dims || parts[i].sizes != first.sizes) {
                    fail(locs[i],
                         fmt::format("the elements of an array expression differ: {} and {}",
                                     type_str(first), type_str(parts[i])));
                }
                for (std::size_t k = 0; k < per; ++k)
                    r.ints[i + parts.size() * k] = parts[i].ints[k];
            }
            return r;
        }
        if (!parts.front().is_scalar()) {
            const Value& first = parts.front();
            // a one-dimensional real array is laid out as a vector: rows of a matrix too
            const bool real_array =
                first.base == Base::Real && first.dims.size() == 1 && first.sizes.empty();
            if (first.is_int()) {
                fail(locs.front(), fmt::format("an array expression of {} is not supported yet",
                                               type_name(first)));
            }
            Value r = first;
            r.base = real_array ? Base::Real : first.base;
            r.ints.clear();
            r.dims.insert(r.dims.begin(), static_cast<int>(parts.size()));
            Expr acc;
            for (std::size_t k = 0; k < parts.size(); ++k) {
                if ((parts[k].base != first.base && !(real_array && parts[k].is_int())) ||
                    parts[k].sizes != first.sizes || parts[k].dims != first.dims) {
                    fail(locs[k],
                         fmt::format("the elements of an array expression differ: {} and {}",
                                     type_str(first), type_str(parts[k])));
                }
                // each element's values (column-major: Stan's order) one row: the layout of
                // values of two or more dimensions, rows by the first index
                const Expr e = real(parts[k], locs[k]);
                const Expr row = rep_matrix_rows(e.shape().is_matrix() ? to_vector(e) : e, 1);
                acc = acc.valid() ? append_row(acc, row) : row;
            }
            r.expr = acc;
            return r;
        }
        Value r;
        r.dims = {static_cast<int>(parts.size())};
        if (all_int) {
            r.base = Base::Int;
            for (const auto& p : parts) r.ints.push_back(p.ints[0]);
            return r;
        }
        // ints some of which are known only per draw ({k, 1}, k drawn): an int array known so
        const bool ints =
            std::all_of(parts.begin(), parts.end(), [](const Value& p) { return p.is_int(); });
        r.base = ints ? Base::Int : Base::Real;
        Expr acc;
        for (const auto& p : parts) {
            const Expr one = rep_vector(real(p, loc), 1);
            acc = acc.valid() ? append_row(acc, one) : one;
        }
        r.expr = acc;
        return r;
    }
}

// ------------------------------------------------------------------------------ operators

namespace {

bool comparison(BinaryOp op) {
    switch (op) {
        case BinaryOp::Less:
        case BinaryOp::LessEqual:
        case BinaryOp::Greater:
        case BinaryOp::GreaterEqual:
        case BinaryOp::Equal:
        case BinaryOp::NotEqual:
        case BinaryOp::And:
        case BinaryOp::Or: return true;
        default: return false;
    }
}

bool compare(BinaryOp op, double a, double b) {
    switch (op) {
        case BinaryOp::Less: return a < b;
        case BinaryOp::LessEqual: return a <= b;
        case BinaryOp::Greater: return a > b;
        case BinaryOp::GreaterEqual: return a >= b;
        case BinaryOp::Equal: return a == b;
        case BinaryOp::NotEqual: return a != b;
        case BinaryOp::And: return a != 0 && b != 0;
        case BinaryOp::Or: return a != 0 || b != 0;
        default: return false;
    }
}

// 1 where x is not 0, else 0, per draw.
Expr nonzero(const Expr& x) {
    return 1.0 - step(x) * step(-x);
}

// A comparison or logical operation of values known only per draw (a parameter's, an _rng
// draw's), as 0 or 1 by step(x) = [x >= 0].
Expr compare_per_draw(BinaryOp op, const Expr& a, const Expr& b) {
    switch (op) {
        case BinaryOp::Less: return 1.0 - step(a - b);
        case BinaryOp::LessEqual: return step(b - a);
        case BinaryOp::Greater: return 1.0 - step(b - a);
        case BinaryOp::GreaterEqual: return step(a - b);
        case BinaryOp::Equal: return step(a - b) * step(b - a);
        case BinaryOp::NotEqual: return 1.0 - step(a - b) * step(b - a);
        case BinaryOp::And: return nonzero(a) * nonzero(b);
        case BinaryOp::Or: return 1.0 - (1.0 - nonzero(a)) * (1.0 - nonzero(b));
        default: throw InternalError("compare_per_draw: not a comparison");
    }
}

// Through int_arithmetic: an error names the operation and its operands; the caller adds
// the expression and its place.
int int_op(BinaryOp op, int a, int b, const Lowerer& L, Loc at) {
    namespace ia = int_arithmetic;
    switch (op) {
        case BinaryOp::Add: return ia::add(a, b);
        case BinaryOp::Subtract: return ia::subtract(a, b);
        case BinaryOp::Multiply: return ia::multiply(a, b);
        case BinaryOp::Divide:
        case BinaryOp::IntDivide: return ia::divide(a, b);
        case BinaryOp::Modulo: return ia::modulo(a, b);
        default:
            // Comparisons and logic as on reals: ints convert exactly.
            if (comparison(op))
                return compare(op, a, b);
            L.fail(at, "this operator does not apply to ints");
    }
}

}  // namespace

Value Lowerer::binary(BinaryOp op, const Value& a0, const Value& b0, Loc at,
                      const Expression* whole) {
    if (a0.is_complex() || b0.is_complex())
        return complex_binary(op, a0, b0, at);
    const int level = std::max(a0.level, b0.level);
    // Integer arithmetic and comparisons: computed here (ints are always known).
    // int ^ int is real in Stan (2^-1 is 0.5): computed as reals below.
    const bool power = op == BinaryOp::Power || op == BinaryOp::EltPower;
    if (a0.is_known_int() && b0.is_known_int() && !power) {
        if (!a0.is_scalar() || !b0.is_scalar()) {
            fail(at, fmt::format("`{}` of {} and {}: integer arrays have no arithmetic",
                                 binary_op_info(op).symbol, type_str(a0), type_str(b0)));
        }
        const Value a = at_level(a0, level, at), b = at_level(b0, level, at);
        Value r = int_scalar(0);
        r.level = level;
        const std::size_t n = std::max(a.ints.size(), b.ints.size());
        r.ints.assign(n, 0);
        try {
            for (std::size_t k = 0; k < n; ++k) {
                r.ints[k] = int_op(op, a.ints[a.ints.size() == 1 ? 0 : k],
                                   b.ints[b.ints.size() == 1 ? 0 : k], *this, at);
            }
        } catch (const IntArithmeticError& e) {
            fail(at, whole != nullptr ? fmt::format("`{}`: {}", to_stan(*whole), e.what())
                                      : std::string(e.what()));
        }
        return r;
    }
    // An int known only per draw (an _rng result in generated quantities) with another int:
    // computed as reals, still integral, so still an int (`n = n + bernoulli_rng(p)`).
    if (a0.is_int() && b0.is_int() && a0.is_scalar() && b0.is_scalar() &&
        (op == BinaryOp::Add || op == BinaryOp::Subtract || op == BinaryOp::Multiply)) {
        auto as_real = [&](const Value& v) {
            Value w = v;
            w.expr = real(v, at);
            w.base = Base::Real;
            w.ints.clear();
            return w;
        };
        Value r = binary(op, as_real(a0), as_real(b0), at, whole);
        r.base = Base::Int;
        return r;
    }
    if (comparison(op)) {
        // Comparisons of reals need known values: data and constants.
        if (level > 0)
            throw NotVectorisable(at, "a comparison that differs between iterations");
        if (!a0.is_scalar() || !b0.is_scalar())
            fail(at, "comparisons are between scalars");
        auto value = [&](const Value& v) -> std::optional<double> {
            if (v.is_known_int())
                return v.ints[0];
            try {
                return m().evaluate(v.expr)[0];
            } catch (const ModelError&) {
                return std::nullopt;  // known only per draw
            }
        };
        const std::optional<double> x = value(a0), y = value(b0);
        if (x && y)
            return int_scalar(compare(op, *x, *y));
        // An int known only per draw: 0 or 1 (`if` on it merges its branches, lower.cpp).
        Value r;
        r.base = Base::Int;
        r.expr = compare_per_draw(op, real(a0, at), real(b0, at));
        return r;
    }
    if (op == BinaryOp::IntDivide || op == BinaryOp::Modulo) {
        fail(at, fmt::format("`{}` needs ints", binary_op_info(op).symbol));
    }
    // Real arithmetic.
    Value a = a0, b = b0;
    auto promote = [&](Value& v) {
        if (!v.is_int())
            return;
        v.expr = real(v, at);
        v.base = Base::Real;
        v.ints.clear();
    };
    promote(a);
    promote(b);
    const int ra = rank_of(a), rb = rank_of(b);
    // A value of rank 2 per iteration (a matrix, or one the same in every iteration combined
    // with one that is not: [[1, 2], [3, 4]] * j) has no batched layout here.
    if ((a.level > 0 && ra == 2) || (b.level > 0 && rb == 2) ||
        (level > 0 && (ra == 2 || rb == 2))) {
        throw NotVectorisable(at, "a matrix that differs between iterations");
    }
    const int B = batch_size(level);
    (void)B;
    auto elementwise = [&](Op o, const char* symbol) -> Value {
        Value r = rank_of(a) >= rank_of(b) ? a : b;
        if (ra > 0 && rb > 0 && (a.sizes != b.sizes || a.dims != b.dims)) {
            fail(at, fmt::format("`{}` of {} and {}: the sizes differ", symbol, type_str(a),
                                 type_str(b)));
        }
        if (ra > 0 && rb > 0 && (a.base != b.base)) {
            fail(at, fmt::format("`{}` of {} and {}: the types differ", symbol, type_str(a),
                                 type_str(b)));
        }
        const Expr x = spread(a, b, level, at), y = spread(b, a, level, at);
        const bool matrices = x.shape().is_matrix() && y.shape().is_matrix();
        Expr e;
        switch (o) {
            case Op::Add: e = x + y; break;
            case Op::Sub: e = x - y; break;
            case Op::Mul: e = matrices ? elt_multiply(x, y) : x * y; break;
            case Op::Div: e = x / y; break;
            case Op::Pow: e = pow(x, y); break;
            default: throw InternalError("elementwise op");
        }
        r.expr = e;
        r.level = level;
        r.ints.clear();
        return r;
    };
    switch (op) {
        case BinaryOp::Add: return elementwise(Op::Add, "+");
        case BinaryOp::Subtract: return elementwise(Op::Sub, "-");
        case BinaryOp::EltMultiply: return elementwise(Op::Mul, ".*");
        case BinaryOp::EltDivide: return elementwise(Op::Div, "./");
        case BinaryOp::EltPower: return elementwise(Op::Pow, ".^");
        case BinaryOp::Power:
            if (ra != 0 || rb != 0)
                fail(at, "`^` is for scalars; use `.^` elementwise");
            return elementwise(Op::Pow, "^");
        case BinaryOp::Divide:
            if (rb != 0 && b.base == Base::Matrix && b.dims.empty() && a.dims.empty() &&
                (a.base == Base::Matrix || a.base == Base::RowVector) && level == 0) {
                // Stan's a / B = a B^-1 (mdivide_right)
                if (b.sizes[0] != b.sizes[1] || a.sizes.back() != b.sizes[0]) {
                    fail(at, fmt::format("`/` of {} by {}: the sizes differ", type_str(a),
                                         type_str(b)));
                }
                const Expr inv = inverse(real(b, at));
                Value r = a;
                r.expr = a.base == Base::Matrix ? real(a, at) * inv : transpose(inv) * real(a, at);
                return r;
            }
            if (rb != 0)
                fail(at, fmt::format("`/` by {}: divide by a scalar, or use `./`", type_str(b)));
            return elementwise(Op::Div, "/");
        case BinaryOp::Multiply: {
            if (ra == 0 || rb == 0)
                return elementwise(Op::Mul, "*");
            if (!a.dims.empty() || !b.dims.empty()) {
                fail(at, fmt::format("`*` of {} and {}: arrays have no product", type_str(a),
                                     type_str(b)));
            }
            Value r;
            r.level = level;
            // row_vector * vector: a scalar
            if (a.base == Base::RowVector && b.base == Base::Vector) {
                if (a.sizes[0] != b.sizes[0])
                    fail(at, fmt::format("`*` of {} and {}: the sizes differ", type_str(a),
                                         type_str(b)));
                r.base = Base::Real;
                if (a.level > 0 && b.level > 0) {
                    r.expr =
                        rows_dot_product(at_level(a, level, at).expr, at_level(b, level, at).expr);
                } else if (a.level > 0) {
                    r.expr = at_level(a, level, at).expr * b.expr;
                } else if (b.level > 0) {
                    r.expr = at_level(b, level, at).expr * a.expr;
                } else {
                    r.expr = dot(a.expr, b.expr);
                }
                return r;
            }
            // matrix * vector: a vector
            if (a.base == Base::Matrix && b.base == Base::Vector) {
                if (a.level > 0)
                    throw NotVectorisable(at, "a matrix that differs between iterations");
                if (a.sizes[1] != b.sizes[0])
                    fail(at, fmt::format("`*` of {} and {}: the sizes differ", type_str(a),
                                         type_str(b)));
                r.base = Base::Vector;
                r.sizes = {a.sizes[0]};
                r.expr =
                    b.level > 0 ? at_level(b, level, at).expr * transpose(a.expr) : a.expr * b.expr;
                return r;
            }
            // row_vector * matrix: a row vector
            if (a.base == Base::RowVector && b.base == Base::Matrix) {
                if (b.level > 0)
                    throw NotVectorisable(at, "a matrix that differs between iterations");
                if (a.sizes[0] != b.sizes[0])
                    fail(at, fmt::format("`*` of {} and {}: the sizes differ", type_str(a),
                                         type_str(b)));
                r.base = Base::RowVector;
                r.sizes = {b.sizes[1]};
                r.expr =
                    a.level > 0 ? at_level(a, level, at).expr * b.expr : transpose(b.expr) * a.expr;
                return r;
            }
            if (level > 0)
                throw NotVectorisable(at, "a matrix that differs between iterations");
            // vector * row_vector: the outer product
            if (a.base == Base::Vector && b.base == Base::RowVector) {
                r.base = Base::Matrix;
                r.sizes = {a.sizes[0], b.sizes[0]};
                r.expr = to_matrix(a.expr, a.sizes[0], 1) * to_matrix(b.expr, 1, b.sizes[0]);
                return r;
            }
            if (a.base == Base::Matrix && b.base == Base::Matrix) {
                if (a.sizes[1] != b.sizes[0])
                    fail(at, fmt::format("`*` of {} and {}: the sizes differ", type_str(a),
                                         type_str(b)));
                r.base = Base::Matrix;
                r.sizes = {a.sizes[0], b.sizes[1]};
                r.expr = a.expr * b.expr;
                return r;
            }
            fail(at, fmt::format("`*` of {} and {}: no such product (use `.*` elementwise)",
                                 type_str(a), type_str(b)));
        }
        case BinaryOp::LeftDivide: fail(at, "`\\` (left division) is not supported");
        default: break;
    }
    fail(at, fmt::format("`{}` of {} and {} is not supported", binary_op_info(op).symbol,
                         type_str(a), type_str(b)));
}

Expr Lowerer::spread(const Value& v, const Value& like, int level, Loc at) {
    const int rv = rank_of(v), rl = rank_of(like);
    if (level == 0)
        return real(v, at);
    if (v.level == 0) {
        if (rv == 0)
            return real(v, at);  // a scalar broadcasts
        if (rv == 1)
            return rep_matrix_rows(real(v, at), batch_size(level));
    }
    // batched: bring to this level
    const Value w = at_level(v, level, at);
    if (rv == 0 && rl == 1)
        return rep_matrix(real(w, at), like.sizes.empty() ? like.dims[0] : like.sizes[0]);
    return real(w, at);
}

// ------------------------------------------------------------------------------ indexing

namespace {

// One bracket position, resolved: a single index per iteration (ints at `level`), or a list
// of positions (a range, a multi-index, all).
struct Pick {
    bool single = true;
    int level = 0;
    std::vector<int> at;  // 0-based; single: one per iteration (or one)
    bool all = false;
};

// The longest L dividing the positions' count for which they are constant over each run of L
// in a row (every change of value at a multiple of L); 1 when none is.
std::int64_t run_length(const std::vector<std::int64_t>& position) {
    const auto total = static_cast<std::int64_t>(position.size());
    std::int64_t run = total;
    for (std::int64_t k = 1; k < total && run > 1; ++k) {
        if (position[static_cast<std::size_t>(k)] != position[static_cast<std::size_t>(k) - 1])
            run = std::gcd(run, k);
    }
    return std::max<std::int64_t>(run, 1);
}

// The smallest P dividing `rows` for which the positions, read as a column-major matrix of
// `rows` rows, repeat every P rows: position(r, c) = position(r mod P, c). `rows` when none
// does.
std::int64_t row_period(const std::vector<std::int64_t>& position, std::int64_t rows) {
    const auto total = static_cast<std::int64_t>(position.size());
    if (rows <= 1 || total < rows || total % rows != 0)
        return rows;
    auto at = [&](std::int64_t k) { return position[static_cast<std::size_t>(k)]; };
    for (std::int64_t p = 1; p <= rows / 2; ++p) {
        if (rows % p != 0)
            continue;
        bool repeats = true;
        for (std::int64_t r = p; r < rows && repeats; ++r) repeats = at(r) == at(r - p);
        for (std::int64_t k = rows; k < total && repeats; ++k) {
            const std::int64_t r = k % rows;
            repeats = r < p || at(k) == at(k - p);
        }
        if (repeats)
            return p;
    }
    return rows;
}

}  // namespace

Expr Lowerer::runtime_index_guard(const Expr& positions, const RuntimeIndex& rt, int size) {
    if (taken_.empty())
        return {};
    Expr taken = taken_.front();
    for (std::size_t k = 1; k < taken_.size(); ++k) taken = taken * taken_[k];
    // 1 where rt.i is out of range: a read of zeros that fills 1 there
    Graph& g = const_cast<Graph&>(m().nodes());
    const Expr zeros = rep_vector(m().constant(0), size);
    const Expr out = m().wrap(
        dyn_index::gather(g, zeros.id(), positions.id(), rt.i.id(), rt.stride, rt.extent, 1.0));
    return taken * max(out);
}

Value Lowerer::index(const Value& base, const std::vector<Index>& indices, Loc at,
                     const Expression* whole, RuntimeIndex* runtime_out) {
    if (base.is_complex()) {
        const Value re = index(base.parts[0], indices, at, whole);
        return complex_of(re, index(base.parts[1], indices, at, whole), at);
    }
    if (base.is_tuple()) {
        // An array of tuples: every element array indexed alike (the checker allows indices on
        // the tuple array's dims only). The result keeps the dims a multi-index keeps.
        if (indices.size() > base.dims.size())
            fail(at, fmt::format("{} indices for {}", indices.size(), type_str(base)));
        Value r;
        r.base = Base::Tuple;
        for (const Value& p : base.parts) {
            r.parts.push_back(index(p, indices, at, whole));
            r.level = std::max(r.level, r.parts.back().level);
        }
        const Value& first = base.parts.front();
        const std::size_t own = first.dims.size() - base.dims.size();
        const std::vector<int>& kept = r.parts.front().dims;
        r.dims.assign(kept.begin(), kept.end() - static_cast<std::ptrdiff_t>(own));
        return r;
    }
    RuntimeIndex runtime;
    // The extents indexed in turn: array dims first, then the base's own sizes.
    std::vector<int> extents = base.dims;
    extents.insert(extents.end(), base.sizes.begin(), base.sizes.end());
    if (indices.size() > extents.size()) {
        fail(at, fmt::format("{} indices for {}", indices.size(), type_str(base)));
    }
    std::vector<Pick> picks;
    int level = base.level;
    for (std::size_t k = 0; k < indices.size(); ++k) {
        const Index& ix = indices[k];
        const int n = extents[k];
        auto written = [](const std::optional<Box<Expression>>& e) {
            return e && !(*e)->is<IntLiteral>() ? fmt::format("`{}` = ", to_stan(**e))
                                                : std::string();
        };
        Pick p;
        // "index `k` = 7 of `theta[k]` is outside 1..6 (at n = 3)": the index as written, its
        // value, what it indexes and, in a vectorised loop, which iteration.
        auto check = [&](int i, Loc where, const std::string& what, int it_level, std::int64_t t) {
            if (i >= 1 && i <= n)
                return;
            const std::string of =
                whole != nullptr
                    ? fmt::format("`{}`{}", to_stan(*whole),
                                  indices.size() > 1 ? fmt::format(" (position {})", k + 1) : "")
                    : fmt::format("position {} of {}", k + 1, type_str(base));
            const std::string when =
                it_level > 0 ? fmt::format(" (at {})", iteration(it_level, t)) : "";
            fail(where, fmt::format("index {}{} of {} is outside 1..{}{}", what, i, of, n, when));
        };
        if (ix.is_range) {
            p.single = false;
            int lo = 1, hi = n;
            if (ix.lower)
                lo = known_int(**ix.lower, "a slice bound");
            if (ix.upper)
                hi = known_int(**ix.upper, "a slice bound");
            p.all = !ix.lower && !ix.upper;
            if (hi >= lo) {
                check(lo, ix.loc, written(ix.lower), 0, 0);
                check(hi, ix.loc, written(ix.upper), 0, 0);
            }
            for (int i = lo; i <= hi; ++i) p.at.push_back(i - 1);
        } else {
            const Value v = expr(**ix.lower);
            if (v.is_runtime_int() && v.is_scalar()) {
                // known only per draw: the positions of index 1, shifted when the program runs
                if (v.level > 0)
                    throw NotVectorisable(ix.loc,
                                          "an index known only per draw in a loop whose "
                                          "iterations run at once");
                if (runtime.active)
                    fail(ix.loc, "indexing by two ints known only per draw is not supported yet");
                runtime.active = true;
                runtime.i = v.expr;
                runtime.extent = n;
                runtime.stride = static_cast<int>(k);  // the position; the stride comes below
                p.at.push_back(0);
                level = std::max(level, p.level);
                picks.push_back(std::move(p));
                continue;
            }
            if (!v.is_known_int())
                fail(ix.loc,
                     fmt::format("an index must be an int or int array, got {}", type_str(v)));
            if (v.is_scalar()) {
                p.level = v.level;
                for (std::size_t t = 0; t < v.ints.size(); ++t) {
                    const int i = v.ints[t];
                    check(i, ix.loc, written(ix.lower), v.level, static_cast<std::int64_t>(t));
                    p.at.push_back(i - 1);
                }
            } else {
                if (v.level > 0 || v.dims.size() != 1) {
                    throw NotVectorisable(ix.loc, "a multi-index that differs between iterations");
                }
                p.single = false;
                for (std::size_t t = 0; t < v.ints.size(); ++t) {
                    const int i = v.ints[t];
                    check(i, ix.loc, fmt::format("`{}`[{}] = ", to_stan(**ix.lower), t + 1), 0, 0);
                    p.at.push_back(i - 1);
                }
            }
        }
        level = std::max(level, p.level);
        picks.push_back(std::move(p));
    }
    const int B = batch_size(level);
    // The result's type: indexed extents drop when single, stay (with their new length) when
    // lists; remaining extents follow.
    Value r;
    r.base = base.base;
    r.level = level;
    const std::size_t nd = base.dims.size();
    for (std::size_t k = 0; k < extents.size(); ++k) {
        const bool is_dim = k < nd;
        int len = extents[k];
        if (k < picks.size()) {
            if (picks[k].single)
                continue;
            len = static_cast<int>(picks[k].at.size());
        }
        (is_dim ? r.dims : r.sizes).push_back(len);
    }
    // A matrix with one index left is a row vector; with a single column index, a vector.
    if (base.base == Base::Matrix && r.sizes.size() == 1) {
        const bool row_taken = nd < picks.size() && picks[nd].single;
        r.base = row_taken ? Base::RowVector : Base::Vector;
    }
    if ((base.base == Base::Vector || base.base == Base::RowVector) && r.sizes.empty()) {
        r.base = base.is_int() ? Base::Int : Base::Real;
    }
    if (base.base == Base::Matrix && r.sizes.empty())
        r.base = Base::Real;

    // Pad the picks to all extents with `all`.
    for (std::size_t k = picks.size(); k < extents.size(); ++k) {
        Pick p;
        p.single = false;
        p.all = true;
        for (int i = 0; i < extents[k]; ++i) p.at.push_back(i);
        picks.push_back(std::move(p));
    }
    // Flat positions of the selection, per iteration: the base is column-major over
    // extents, the result column-major over its kept extents.
    auto index_at = [&](const Pick& p, int t, int j) {
        if (!p.single)
            return p.at[static_cast<std::size_t>(j)];
        return p.at.size() == 1 ? p.at[0] : p.at[static_cast<std::size_t>(t % batch_size(p.level))];
    };
    std::vector<int> kept_len;
    for (const Pick& p : picks) kept_len.push_back(p.single ? 1 : static_cast<int>(p.at.size()));
    const std::int64_t per =
        std::accumulate(kept_len.begin(), kept_len.end(), std::int64_t{1}, std::multiplies<>());
    std::vector<std::int64_t> stride(extents.size(), 1);
    for (std::size_t k = 1; k < extents.size(); ++k) stride[k] = stride[k - 1] * extents[k - 1];
    const std::int64_t base_size = stride.empty() ? 1 : stride.back() * extents.back();
    const int Bb = batch_size(base.level);
    // position[t + B * e] in the flattened base (batched bases: t_base + Bb * element)
    std::vector<std::int64_t> position(static_cast<std::size_t>(B * per));
    for (int t = 0; t < B; ++t) {
        for (std::int64_t e = 0; e < per; ++e) {
            std::int64_t rest = e, off = 0;
            for (std::size_t k = 0; k < picks.size(); ++k) {
                const int j = static_cast<int>(rest % kept_len[k]);
                rest /= kept_len[k];
                off += stride[k] * index_at(picks[k], t, j);
            }
            position[static_cast<std::size_t>(t + B * e)] =
                base.level > 0 ? (t % Bb) + Bb * off : off;
        }
    }
    if (runtime.active) {
        if (level > 0)
            throw NotVectorisable(at,
                                  "an index known only per draw in a loop whose iterations "
                                  "run at once");
        runtime.stride = static_cast<int>(stride[static_cast<std::size_t>(runtime.stride)]);
        runtime.positions.assign(position.begin(), position.end());
        if (runtime_out != nullptr)
            *runtime_out = runtime;
        if (base.is_known_int() && base.ints.empty())
            fail(at, "indexing a value that is not assigned");
        if (!base.is_known_int() && !base.expr.valid())
            fail(at, "indexing a value that is not assigned");
        Eigen::VectorXi idx(static_cast<Eigen::Index>(position.size()));
        for (std::size_t k = 0; k < position.size(); ++k)
            idx[static_cast<Eigen::Index>(k)] = static_cast<int>(position[k]);
        const Expr positions = m().data(fresh_name("positions"), out_.keep(std::move(idx)));
        Expr flat = real(base, at);
        if (flat.shape().is_matrix())
            flat = to_vector(flat);
        Graph& g = const_cast<Graph&>(m().nodes());
        const Expr guard = runtime_index_guard(positions, runtime, flat.shape().size());
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const NodeId picked =
            dyn_index::gather(g, flat.id(), positions.id(), runtime.i.id(), runtime.stride,
                              runtime.extent, guard.valid() ? 0.0 : nan);
        Expr e = m().wrap(picked);
        if (guard.valid())
            e = m().wrap(g.apply(Op::Select, guard.id(), m().constant(nan).id(), picked));
        const int r_rank = rank_of(r);
        if (base.is_known_int())
            r.ints.clear();  // an int known only per draw: its value in expr
        if (r_rank == 0)
            r.expr = sum(e);
        else if (r_rank == 1)
            r.expr = e;
        else
            r.expr = to_matrix(
                e, r.dims.empty() ? r.sizes[0] : r.dims[0],
                static_cast<int>(position.size()) / (r.dims.empty() ? r.sizes[0] : r.dims[0]));
        return r;
    }
    if (base.is_known_int()) {
        r.ints.resize(position.size());
        for (std::size_t k = 0; k < position.size(); ++k) {
            r.ints[k] = base.ints[static_cast<std::size_t>(position[k])];
        }
        r.expr = Expr();
        return r;
    }
    if (!base.expr.valid())
        fail(at, "indexing a value that is not assigned");
    // Reals: contiguous runs become slices, the rest a gather from the flattened base.
    const Shape bs = base.expr.shape();
    Expr flat = bs.is_matrix() ? to_vector(base.expr) : base.expr;
    const std::int64_t total = static_cast<std::int64_t>(position.size());
    auto select = [&](const std::vector<std::int64_t>& at) -> Expr {
        const auto n = static_cast<std::int64_t>(at.size());
        bool contiguous = true;
        for (std::int64_t k = 1; k < n && contiguous; ++k) {
            contiguous = at[static_cast<std::size_t>(k)] == at[0] + k;
        }
        if (contiguous && n == static_cast<std::int64_t>(bs.size()))
            return flat;
        if (contiguous) {
            // An empty selection (`h[3:2]`, `h[:0]`) is an empty segment: Stan's empty slice.
            return segment(flat, n == 0 ? 0 : static_cast<int>(at[0]), static_cast<int>(n));
        }
        Eigen::VectorXi idx(n);
        for (std::int64_t k = 0; k < n; ++k)
            idx[k] = static_cast<int>(at[static_cast<std::size_t>(k)]);
        return flat[m().data(fresh_name("index"), out_.keep(std::move(idx)))];
    };
    // A vectorised loop reads a value indexed by its inner variable in runs (mu[k] for n, k
    // at iterations n + N k: each mu[k] over N iterations in a row), and one indexed by its
    // outer variable in tiles (the same rows every N iterations). Either way the values
    // picked once are repeated, not gathered: no index or scatter-add as long as the loop.
    const std::int64_t batch_rows = level > 0 ? B : total;
    Expr picked;
    if (bs.is_scalar()) {
        picked = base.expr;
    } else if (const std::int64_t run = run_length(position); run > 1) {
        std::vector<std::int64_t> once;
        for (std::int64_t k = 0; k < total; k += run)
            once.push_back(position[static_cast<std::size_t>(k)]);
        picked = to_vector(rep_matrix_rows(select(once), static_cast<int>(run)));
    } else if (const std::int64_t period = row_period(position, batch_rows); period < batch_rows) {
        const std::int64_t cols = total / batch_rows;
        std::vector<std::int64_t> once;
        for (std::int64_t c = 0; c < cols; ++c) {
            for (std::int64_t r = 0; r < period; ++r)
                once.push_back(position[static_cast<std::size_t>(r + batch_rows * c)]);
        }
        const Expr one = select(once);
        const int reps = static_cast<int>(batch_rows / period);
        picked = cols == 1
                     ? tile_rows(one, reps)
                     : to_vector(tile_rows(
                           to_matrix(one, static_cast<int>(period), static_cast<int>(cols)), reps));
    } else {
        picked = select(position);
    }
    (void)base_size;
    // Back to the result's layout.
    const int r_rank = rank_of(r) + (level > 0 ? 1 : 0);
    if (r_rank == 0) {
        r.expr = total == 1 && picked.shape().size() == 1 && !picked.shape().is_scalar()
                     ? sum(picked)
                     : picked;
    } else if (r_rank == 1) {
        r.expr = picked;
    } else {
        const int rows = level > 0 ? B : (r.dims.empty() ? r.sizes[0] : r.dims[0]);
        r.expr = to_matrix(picked, rows, static_cast<int>(total / rows));
    }
    return r;
}

}  // namespace advi::stan
