#include <advi/stan/types.hpp>

#include <climits>

#include <fmt/format.h>

namespace advi::stan {

namespace {

StanType of(TypeKind k, int dims = 0) {
    StanType t;
    t.kind = k;
    t.array_dims = dims;
    return t;
}

bool is_vector_like(const StanType& t) {
    return t.kind == TypeKind::Vector || t.kind == TypeKind::RowVector;
}

// Complex kinds and their real counterparts: complex <-> real, complex_vector <-> vector, ...
bool is_complex_kind(TypeKind k) {
    return k == TypeKind::Complex || k == TypeKind::ComplexVector ||
           k == TypeKind::ComplexRowVector || k == TypeKind::ComplexMatrix;
}
StanType complexified(StanType t) {
    switch (t.kind) {
        case TypeKind::Int:
        case TypeKind::Real: t.kind = TypeKind::Complex; break;
        case TypeKind::Vector: t.kind = TypeKind::ComplexVector; break;
        case TypeKind::RowVector: t.kind = TypeKind::ComplexRowVector; break;
        case TypeKind::Matrix: t.kind = TypeKind::ComplexMatrix; break;
        default: break;
    }
    return t;
}
bool is_linear_algebra(const StanType& t) {  // vector, row_vector or matrix, not an array
    return t.array_dims == 0 && (is_vector_like(t) || t.kind == TypeKind::Matrix);
}
bool is_numeric(const StanType& t) {  // any value a function could take
    switch (t.kind) {
        case TypeKind::Int:
        case TypeKind::Real:
        case TypeKind::Complex:
        case TypeKind::Vector:
        case TypeKind::RowVector:
        case TypeKind::Matrix:
        case TypeKind::ComplexVector:
        case TypeKind::ComplexRowVector:
        case TypeKind::ComplexMatrix: return true;
        default: return false;
    }
}

// Stan's promotions of a value of kind `from` where `to` is expected (arrays elementwise, with
// the same dimensions): int to real and complex, real to complex, and a real vector, row vector
// or matrix to its complex form. 0: the same kind; 1: one promotion; nullopt: none.
std::optional<int> promotion(TypeKind to, TypeKind from) {
    if (to == from)
        return 0;
    switch (to) {
        case TypeKind::Real: return from == TypeKind::Int ? std::optional(1) : std::nullopt;
        case TypeKind::Complex:  // int to complex is two promotions (by real), as Stan counts
            return from == TypeKind::Int    ? std::optional(2)
                   : from == TypeKind::Real ? std::optional(1)
                                            : std::nullopt;
        case TypeKind::ComplexVector:
            return from == TypeKind::Vector ? std::optional(1) : std::nullopt;
        case TypeKind::ComplexRowVector:
            return from == TypeKind::RowVector ? std::optional(1) : std::nullopt;
        case TypeKind::ComplexMatrix:
            return from == TypeKind::Matrix ? std::optional(1) : std::nullopt;
        default: return std::nullopt;
    }
}

// The promotions a value of type `from` needs to be stored in `to` (summed over the elements
// of tuples, which promote element by element), or nullopt if it cannot be.
std::optional<int> promotions_to(const StanType& to, const StanType& from) {
    if (to.array_dims != from.array_dims)
        return std::nullopt;
    if (to.kind == TypeKind::Tuple || from.kind == TypeKind::Tuple) {
        if (to.kind != from.kind || to.parts.size() != from.parts.size())
            return std::nullopt;
        int n = 0;
        for (std::size_t k = 0; k < to.parts.size(); ++k) {
            const auto p = promotions_to(to.parts[k], from.parts[k]);
            if (!p)
                return std::nullopt;
            n += *p;
        }
        return n;
    }
    if (!is_numeric(to) || !is_numeric(from))
        return std::nullopt;
    return promotion(to.kind, from.kind);
}

// The same type with real elements (int -> real, array[] int -> array[] real).
StanType with_real_elements(StanType t) {
    if (t.kind == TypeKind::Int)
        t.kind = TypeKind::Real;
    return t;
}

struct Binding {
    std::string_view name;
    StanType type;
};

class Matcher {
public:
    bool fits(const StanType& p, const StanType& a) {
        if (p.kind == TypeKind::Tuple || a.kind == TypeKind::Tuple) {
            const auto n = promotions_to(p, a);
            promotions += n.value_or(0);
            return n.has_value();
        }
        if (!is_numeric(a))
            return false;
        if (is_numeric(p)) {  // a concrete type: the same, or a promotion
            const auto n = promotion(p.kind, a.kind);
            if (!n || a.array_dims != p.array_dims)
                return false;
            promotions += *n;
            return true;
        }
        switch (p.kind) {
            case TypeKind::Ints: return a.kind == TypeKind::Int && a.array_dims <= 1;
            case TypeKind::Reals:
                return ((a.kind == TypeKind::Int || a.kind == TypeKind::Real) &&
                        a.array_dims <= 1) ||
                       (is_vector_like(a) && a.array_dims == 0);
            case TypeKind::Vectors: return is_vector_like(a) && a.array_dims <= 1;
            case TypeKind::Any: {
                // (the lowering's type variables are real: complex forms are listed)
                if (is_complex_kind(a.kind) || a.array_dims < p.array_dims)
                    return false;
                StanType t = a;
                t.array_dims -= p.array_dims;
                for (Binding& b : bound) {
                    if (b.name != p.variable)
                        continue;
                    if (b.type == t)
                        return true;
                    if (with_real_elements(b.type) == with_real_elements(t)) {
                        b.type = with_real_elements(t);  // int and real: real
                        ++promotions;
                        return true;
                    }
                    return false;
                }
                bound.push_back({p.variable, t});
                return true;
            }
            default: return false;
        }
    }

    std::optional<StanType> result(const StanType& r, std::span<const StanType> args) const {
        switch (r.kind) {
            case TypeKind::Any:
                for (const Binding& b : bound) {
                    if (b.name == r.variable) {
                        StanType t = b.type;
                        t.array_dims += r.array_dims;
                        return t;
                    }
                }
                return std::nullopt;
            case TypeKind::Broadcast: {
                // elementwise over the arguments: every one that is not a scalar has the same shape
                std::optional<StanType> shape;
                for (const Binding& b : bound) {
                    if (is_scalar(b.type))
                        continue;
                    const StanType t = with_real_elements(b.type);
                    if (shape && *shape != t)
                        return std::nullopt;
                    shape = t;
                }
                return shape ? *shape : real_type();
            }
            case TypeKind::Reals:
            case TypeKind::Ints: {
                // an _rng draw: one number, or an array of them if any argument is a container
                bool container = false;
                for (const StanType& a : args) container = container || !is_scalar(a);
                return of(r.kind == TypeKind::Ints ? TypeKind::Int : TypeKind::Real,
                          container ? 1 : 0);
            }
            default: return r;
        }
    }

    std::vector<Binding> bound;
    int promotions = 0;
};

}  // namespace

StanType type_of(const SizedType& t) {
    TypeKind k = TypeKind::Real;
    switch (t.base) {
        case BaseType::Int: k = TypeKind::Int; break;
        case BaseType::Real: k = TypeKind::Real; break;
        case BaseType::Vector:
        case BaseType::Simplex:
        case BaseType::UnitVector:
        case BaseType::Ordered:
        case BaseType::PositiveOrdered:
        case BaseType::SumToZeroVector: k = TypeKind::Vector; break;
        case BaseType::RowVector: k = TypeKind::RowVector; break;
        case BaseType::Matrix:
        case BaseType::CholeskyFactorCorr:
        case BaseType::CholeskyFactorCov:
        case BaseType::CorrMatrix:
        case BaseType::CovMatrix:
        case BaseType::SumToZeroMatrix:
        case BaseType::RowStochasticMatrix:
        case BaseType::ColumnStochasticMatrix: k = TypeKind::Matrix; break;
        case BaseType::Complex: k = TypeKind::Complex; break;
        case BaseType::ComplexVector: k = TypeKind::ComplexVector; break;
        case BaseType::ComplexRowVector: k = TypeKind::ComplexRowVector; break;
        case BaseType::ComplexMatrix: k = TypeKind::ComplexMatrix; break;
        case BaseType::Tuple: {
            StanType r = of(TypeKind::Tuple, static_cast<int>(t.dims.size()));
            for (const SizedType& p : t.parts) r.parts.push_back(type_of(p));
            return r;
        }
    }
    return of(k, static_cast<int>(t.dims.size()));
}

StanType type_of(const UnsizedType& t) {
    if (t.base == BaseType::Tuple) {
        StanType r = of(TypeKind::Tuple, t.array_dims);
        for (const UnsizedType& p : t.parts) r.parts.push_back(type_of(p));
        return r;
    }
    SizedType s;
    s.base = t.base;
    StanType r = type_of(s);
    r.array_dims = t.array_dims;
    return r;
}

StanType int_type(int array_dims) {
    return of(TypeKind::Int, array_dims);
}
StanType real_type(int array_dims) {
    return of(TypeKind::Real, array_dims);
}
bool is_scalar(const StanType& t) {
    return t.array_dims == 0 && (t.kind == TypeKind::Int || t.kind == TypeKind::Real);
}
bool is_int(const StanType& t) {
    return t.array_dims == 0 && t.kind == TypeKind::Int;
}

bool assignable(const StanType& to, const StanType& from) {
    return promotions_to(to, from).has_value();
}

std::optional<StanType> match(const Signature& s, std::span<const StanType> args, int* promotions) {
    if (args.size() != s.args.size())
        return std::nullopt;
    Matcher m;
    for (std::size_t k = 0; k < args.size(); ++k) {
        if (!m.fits(s.args[k], args[k]))
            return std::nullopt;
    }
    if (promotions != nullptr)
        *promotions = m.promotions;
    return m.result(s.result, args);
}

std::optional<std::size_t> resolve_index(std::span<const Signature> signatures,
                                         std::span<const StanType> args) {
    std::optional<std::size_t> best;
    int fewest = INT_MAX;
    for (std::size_t k = 0; k < signatures.size(); ++k) {
        int promotions = 0;
        if (match(signatures[k], args, &promotions) && promotions < fewest) {
            best = k;
            fewest = promotions;
        }
    }
    return best;
}

std::optional<StanType> resolve(std::span<const Signature> signatures,
                                std::span<const StanType> args) {
    std::optional<StanType> best;
    int fewest = INT_MAX;
    for (const Signature& s : signatures) {
        int promotions = 0;
        if (auto r = match(s, args, &promotions); r && promotions < fewest) {
            best = r;
            fewest = promotions;
        }
    }
    return best;
}

std::string str(std::span<const StanType> args, bool density) {
    std::string out = "(";
    for (std::size_t k = 0; k < args.size(); ++k) {
        if (k > 0)
            out += density && k == 1 ? " | " : ", ";
        out += str(args[k]);
    }
    return out + ")";
}

std::string str_arguments(std::span<const Signature> signatures, std::size_t at_most) {
    std::string out;
    for (std::size_t k = 0; k < signatures.size() && k < at_most; ++k) {
        if (!out.empty())
            out += " or ";
        out += str(signatures[k].args, signatures[k].density);
    }
    if (signatures.size() > at_most)
        out += fmt::format(" or {} more", signatures.size() - at_most);
    return out;
}

bool is_complex(const StanType& t) {
    return is_complex_kind(t.kind);
}

StanType realified(StanType t) {
    switch (t.kind) {
        case TypeKind::Complex: t.kind = TypeKind::Real; break;
        case TypeKind::ComplexVector: t.kind = TypeKind::Vector; break;
        case TypeKind::ComplexRowVector: t.kind = TypeKind::RowVector; break;
        case TypeKind::ComplexMatrix: t.kind = TypeKind::Matrix; break;
        default: break;
    }
    return t;
}

std::optional<StanType> unary_type(UnaryOp op, const StanType& a) {
    if (is_complex(a)) {
        if (op == UnaryOp::Not)
            return std::nullopt;
        const auto r = unary_type(op, realified(a));
        return r ? std::optional(complexified(*r)) : std::nullopt;
    }
    if (op == UnaryOp::Not)
        return is_scalar(a) ? std::optional(int_type()) : std::nullopt;
    if (is_numeric(a))  // Stan's minus: arrays too
        return a;
    return std::nullopt;
}

std::optional<StanType> transpose_type(const StanType& a) {
    if (is_complex(a)) {
        const auto r = transpose_type(realified(a));
        return r ? std::optional(complexified(*r)) : std::nullopt;
    }
    if (!is_linear_algebra(a))
        return std::nullopt;
    if (a.kind == TypeKind::Vector)
        return of(TypeKind::RowVector);
    if (a.kind == TypeKind::RowVector)
        return of(TypeKind::Vector);
    return a;
}

std::optional<StanType> binary_type(BinaryOp op, const StanType& a, const StanType& b) {
    if (is_complex(a) || is_complex(b)) {
        // Stan's complex operators are the real ones with complex elements (its library's
        // add, subtract, multiply, divide, elt_*, pow, mdivide_right, logical_eq/neq forms);
        // no ordering, logic, integer arithmetic or left division.
        switch (op) {
            case BinaryOp::Equal:
            case BinaryOp::NotEqual:
                return a.array_dims == 0 && b.array_dims == 0 &&
                               (a.kind == TypeKind::Complex || is_scalar(a)) &&
                               (b.kind == TypeKind::Complex || is_scalar(b))
                           ? std::optional(int_type())
                           : std::nullopt;
            case BinaryOp::Add:
            case BinaryOp::Subtract:
            case BinaryOp::Multiply:
            case BinaryOp::Divide:
            case BinaryOp::EltMultiply:
            case BinaryOp::EltDivide:
            case BinaryOp::Power:
            case BinaryOp::EltPower: {
                if (a.array_dims > 0 || b.array_dims > 0)
                    return std::nullopt;
                const auto r = binary_type(op, realified(a), realified(b));
                return r ? std::optional(complexified(*r)) : std::nullopt;
            }
            default: return std::nullopt;
        }
    }
    const bool scalars = is_scalar(a) && is_scalar(b);
    const bool ints = is_int(a) && is_int(b);
    const StanType M = of(TypeKind::Matrix), V = of(TypeKind::Vector), RV = of(TypeKind::RowVector);
    // scalar with a vector, row vector or matrix (either side), or two of the same
    auto elementwise = [&]() -> std::optional<StanType> {
        if (scalars)
            return ints ? int_type() : real_type();
        if (is_scalar(a) && is_linear_algebra(b))
            return b;
        if (is_linear_algebra(a) && (is_scalar(b) || a == b))
            return a;
        return std::nullopt;
    };
    switch (op) {
        case BinaryOp::Or:
        case BinaryOp::And:
        case BinaryOp::Equal:
        case BinaryOp::NotEqual:
        case BinaryOp::Less:
        case BinaryOp::LessEqual:
        case BinaryOp::Greater:
        case BinaryOp::GreaterEqual: return scalars ? std::optional(int_type()) : std::nullopt;
        case BinaryOp::Add:
        case BinaryOp::Subtract:
        case BinaryOp::EltMultiply:
        case BinaryOp::EltDivide: return elementwise();
        case BinaryOp::Multiply:
            if (scalars || is_scalar(a) || is_scalar(b))
                return elementwise();
            if (a == RV && b == V)
                return real_type();
            if (a == V && b == RV)
                return M;
            if (a == M && b == V)
                return V;
            if (a == RV && b == M)
                return RV;
            if (a == M && b == M)
                return M;
            return std::nullopt;
        case BinaryOp::Divide:
            if (scalars || is_scalar(b) || is_scalar(a))
                return elementwise();
            if ((a == RV || a == M) && b == M)
                return a;
            return std::nullopt;
        case BinaryOp::LeftDivide:
            if (a == M && (b == M || b == V))
                return b;
            return std::nullopt;
        case BinaryOp::Modulo:
        case BinaryOp::IntDivide: return ints ? std::optional(int_type()) : std::nullopt;
        case BinaryOp::Power:
        case BinaryOp::EltPower: {
            if (scalars)
                return real_type();
            const auto r = elementwise();
            return r ? std::optional(with_real_elements(*r)) : std::nullopt;
        }
    }
    return std::nullopt;
}

std::optional<BinaryOp> binary_of(AssignOp op) {
    switch (op) {
        case AssignOp::Assign: return std::nullopt;
        case AssignOp::Add: return BinaryOp::Add;
        case AssignOp::Subtract: return BinaryOp::Subtract;
        case AssignOp::Multiply: return BinaryOp::Multiply;
        case AssignOp::Divide: return BinaryOp::Divide;
        case AssignOp::EltMultiply: return BinaryOp::EltMultiply;
        case AssignOp::EltDivide: return BinaryOp::EltDivide;
    }
    return std::nullopt;
}

IndexResult index_type(const StanType& base, std::span<const IndexKind> indices) {
    int kept = 0;  // array dimensions a multi-index keeps
    int dims = base.array_dims;
    std::size_t k = 0;
    for (; k < indices.size() && dims > 0; ++k, --dims) {
        if (indices[k] == IndexKind::Multi)
            ++kept;
    }
    StanType t = base;
    const std::size_t rest = indices.size() - k;
    const auto too_many = [&] {
        return IndexResult{std::nullopt, "too many indexes for " + str(base)};
    };
    if (dims == 0 && rest > 0 && is_complex(t)) {
        // as the real forms, with complex elements
        StanType r = realified(base);
        r.array_dims = 0;
        IndexResult inner = index_type(r, indices.subspan(k));
        if (!inner.type)
            return {std::nullopt, "too many indexes for " + str(base)};
        StanType out = complexified(*inner.type);
        out.array_dims += kept;
        return {out, {}};
    }
    if (dims == 0 && rest > 0) {
        if (is_vector_like(t)) {
            if (rest > 1)
                return too_many();
            if (indices[k] == IndexKind::Single)
                t.kind = TypeKind::Real;
        } else if (t.kind == TypeKind::Matrix) {
            if (rest > 2)
                return too_many();
            const bool row = indices[k] == IndexKind::Single;
            const bool col = rest == 2 && indices[k + 1] == IndexKind::Single;
            if (row && col)
                t.kind = TypeKind::Real;
            else if (row)
                t.kind = TypeKind::RowVector;
            else if (col)
                t.kind = TypeKind::Vector;
        } else {
            return too_many();
        }
    }
    t.array_dims = kept + dims;
    return {t, {}};
}

}  // namespace advi::stan
