// The Stan program as the parser hands it to the type checker and the lowering: one plain
// struct per construct, each with the byte offset where it starts, so that any later stage can
// raise a ParseError at file:line:col through Program::error_at. No Spirit types here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <advi/base/error.hpp>

namespace advi::stan {

// Where a node starts: a byte offset into Program::text.
struct Loc {
    std::size_t offset = 0;
};

// A value on the heap with value semantics (deep copy), so that a node can hold nodes of its
// own kind. Never empty, except after being moved from.
template <class T>
class Box {
public:
    Box() : p_(std::make_unique<T>()) {}
    Box(T value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT: implicit on purpose
    Box(const Box& other) : p_(std::make_unique<T>(*other.p_)) {}
    Box(Box&&) noexcept = default;
    Box& operator=(const Box& other) {
        if (this != &other)
            p_ = std::make_unique<T>(*other.p_);
        return *this;
    }
    Box& operator=(Box&&) noexcept = default;
    ~Box() = default;

    T& operator*() { return *p_; }
    const T& operator*() const { return *p_; }
    T* operator->() { return p_.get(); }
    const T* operator->() const { return p_.get(); }

private:
    std::unique_ptr<T> p_;
};

// ---------------------------------------------------------------------------------------------
// Expressions

enum class UnaryOp { Minus, Plus, Not };

// The binary operators; precedence and associativity are in the table of ast.cpp
// (binary_op_info), which the grammar and the printer both read.
enum class BinaryOp {
    Or,            // ||
    And,           // &&
    Equal,         // ==
    NotEqual,      // !=
    Less,          // <
    LessEqual,     // <=
    Greater,       // >
    GreaterEqual,  // >=
    Add,           // +
    Subtract,      // -
    Multiply,      // *
    Divide,        // /
    Modulo,        // %
    EltMultiply,   // .*
    EltDivide,     // ./
    LeftDivide,    // '\'
    IntDivide,     // %/%
    Power,         // ^
    EltPower,      // .^
};

struct Expression;

struct IntLiteral {
    std::int64_t value = 0;  // within Stan's int range (32 bits); checked by the parser
};
struct RealLiteral {
    double value = 0;
};
// `2.5i`: a complex number with real part 0.
struct ImagLiteral {
    double value = 0;
};
// Only ever an argument of print, reject or fatal_error.
struct StringLiteral {
    std::string value;  // without the quotes, as written (Stan has no escapes)
};
struct Variable {
    std::string name;
};
// f(a, b), and the conditional form `normal_lpdf(y | mu, sigma)` (conditional = true; y is
// args[0]). Also `target()`.
struct Call {
    std::string name;
    std::vector<Expression> args;
    bool conditional = false;
};
struct Unary {
    UnaryOp op = UnaryOp::Minus;
    Box<Expression> operand;
};
struct Binary {
    BinaryOp op = BinaryOp::Add;
    Box<Expression> lhs, rhs;
    Loc op_loc;  // the operator itself, for errors about the operation
};
// c ? a : b
struct Conditional {
    Box<Expression> condition, if_true, if_false;
};
// One position inside brackets. A single index `i` (an int; or an int array, a multi-index)
// has is_range = false and its expression in `lower`. Ranges: `a:b`, `a:`, `:b`, and `:` (also
// written as an empty position, `x[, 1]`), with the bounds given.
struct Index {
    Loc loc;
    bool is_range = false;
    std::optional<Box<Expression>> lower;
    std::optional<Box<Expression>> upper;
};
// x[i, j]; x[i][j] is an Indexed of an Indexed.
struct Indexed {
    Box<Expression> base;
    std::vector<Index> indices;
};
// x'
struct Transpose {
    Box<Expression> operand;
};
// {a, b, c}
struct ArrayExpr {
    std::vector<Expression> elements;
};
// [a, b, c]; [[1, 2], [3, 4]] is a row vector of row vectors (a matrix).
struct RowVectorExpr {
    std::vector<Expression> elements;
};
// (a, b) and the one-element (a,): a tuple. As the left side of `=`, an unpacking.
struct TupleExpr {
    std::vector<Expression> elements;  // at least one
};
// x.2: a tuple's element, counted from 1.
struct TupleIndex {
    Box<Expression> base;
    int index = 1;
    Loc index_loc;  // the `.`
};

struct Expression {
    using Node = std::variant<IntLiteral, RealLiteral, ImagLiteral, StringLiteral, Variable, Call,
                              Unary, Binary, Conditional, Indexed, Transpose, ArrayExpr,
                              RowVectorExpr, TupleExpr, TupleIndex>;
    Loc loc;  // the first character of the expression
    Node node;

    template <class T>
    [[nodiscard]] const T* as() const {
        return std::get_if<T>(&node);
    }
    template <class T>
    [[nodiscard]] bool is() const {
        return std::holds_alternative<T>(node);
    }
};

// ---------------------------------------------------------------------------------------------
// Types

enum class BaseType {
    Int,
    Real,
    Vector,
    RowVector,
    Matrix,
    Simplex,
    UnitVector,
    Ordered,
    PositiveOrdered,
    CholeskyFactorCorr,
    CholeskyFactorCov,
    CorrMatrix,
    CovMatrix,
    SumToZeroVector,
    SumToZeroMatrix,
    RowStochasticMatrix,
    ColumnStochasticMatrix,
    Tuple,  // `tuple(real, vector[N])`: the element types are the type's `parts`
    // Complex numbers and their containers (no constraints).
    Complex,
    ComplexVector,
    ComplexRowVector,
    ComplexMatrix,
};

// A declared type: `array[N, M] vector<lower = 0>[K]` (the parser refuses the old
// `vector<lower=0>[K] x[N, M]`, removed from Stan). Sizes: vector-like [n], matrix [rows, cols],
// cholesky_factor_cov [M] or [M, N], the square ones [K]. Bounds and offset/multiplier are never
// mixed (the parser checks); only int, real, vector, row_vector and matrix take them, and int not
// offset/multiplier.
struct SizedType {
    Loc loc;
    BaseType base = BaseType::Real;
    std::vector<Expression> dims;   // array dimensions, outermost first
    std::vector<Expression> sizes;  // the base type's own sizes
    std::optional<Expression> lower, upper, offset, multiplier;
    std::vector<SizedType> parts;  // Tuple: the element types, each with its own constraints
};

// A function argument or return type: `real`, `array[,] vector` (also the old `vector[,]`),
// `tuple(real, array[] int)`. Only int, real, vector, row_vector, matrix and tuples of them.
struct UnsizedType {
    BaseType base = BaseType::Real;
    int array_dims = 0;
    std::vector<UnsizedType> parts;  // Tuple: the element types (`data` applies to the whole)
};

// ---------------------------------------------------------------------------------------------
// Statements

enum class AssignOp { Assign, Add, Subtract, Multiply, Divide, EltMultiply, EltDivide };
enum class PrintKind { Print, Reject, FatalError };

struct Statement;

// `vector<lower=0>[N] x = e;`. `real a, b;` gives two declarations with the same loc.
struct VarDecl {
    SizedType type;
    std::string name;
    Loc name_loc;
    std::optional<Expression> initial_value;
};
// lhs op rhs; lhs is a Variable, or an Indexed or TupleIndex whose base is (recursively) one;
// with `=`, also a TupleExpr of such (`(a, b.1) = f();`, nested: an unpacking).
struct Assign {
    Expression lhs;
    AssignOp op = AssignOp::Assign;
    Expression rhs;
};
// T[lower, upper], either bound optional (T[L, ], T[, U]).
struct Truncation {
    Loc loc;
    std::optional<Expression> lower, upper;
};
// y ~ normal(mu, sigma) T[L, U];
struct Tilde {
    Expression lhs;
    std::string distribution;
    Loc distribution_loc;
    std::vector<Expression> args;
    std::optional<Truncation> truncation;
};
// target += e; or jacobian += e; (a log-Jacobian term: transformed parameters and functions
// ending in `_jacobian` only)
struct TargetPlus {
    Expression value;
    bool jacobian = false;
};
// for (i in lower:upper) body
struct For {
    std::string variable;
    Loc variable_loc;
    Expression lower, upper;
    Box<Statement> body;
};
// for (x in container) body
struct ForEach {
    std::string variable;
    Loc variable_loc;
    Expression container;
    Box<Statement> body;
};
struct While {
    Expression condition;
    Box<Statement> body;
};
// if (c1) s1 else if (c2) s2 ... else s: the `else if` chain is flattened into branches.
struct IfBranch {
    Expression condition;
    Box<Statement> body;
};
struct If {
    std::vector<IfBranch> branches;  // at least one
    std::optional<Box<Statement>> otherwise;
};
// { ... }, with its local declarations as statements.
struct Block {
    std::vector<Statement> statements;
};
// profile("name") { ... }
struct Profile {
    std::string name;
    std::vector<Statement> statements;
};
struct Break {};
struct Continue {};
struct Return {
    std::optional<Expression> value;
};
// print(...), reject(...), fatal_error(...): expressions and StringLiterals.
struct Print {
    PrintKind kind = PrintKind::Print;
    std::vector<Expression> args;
};
// foo(x); (a call whose value, if any, is dropped)
struct CallStatement {
    Call call;
};
// ;
struct Empty {};

struct Statement {
    using Node = std::variant<VarDecl, Assign, Tilde, TargetPlus, For, ForEach, While, If, Block,
                              Profile, Break, Continue, Return, Print, CallStatement, Empty>;
    Loc loc;  // the first character of the statement
    Node node;

    template <class T>
    [[nodiscard]] const T* as() const {
        return std::get_if<T>(&node);
    }
    template <class T>
    [[nodiscard]] bool is() const {
        return std::holds_alternative<T>(node);
    }
};

// ---------------------------------------------------------------------------------------------
// Functions and the program

struct Argument {
    Loc loc;
    bool data_only = false;  // `data real x`
    UnsizedType type;
    std::string name;
};

// `real foo(real x, data vector y) { ... }`, or a forward declaration `real foo(real x);`.
struct FunctionDef {
    Loc loc;
    std::optional<UnsizedType> return_type;  // nullopt: void
    std::string name;
    Loc name_loc;
    std::vector<Argument> args;
    std::optional<Statement> body;  // nullopt: a forward declaration
};

enum class BlockKind {
    Data,
    TransformedData,
    Parameters,
    TransformedParameters,
    Model,
    GeneratedQuantities,
};
inline constexpr int kBlockKinds = 6;

// A program block. The data and parameters blocks hold only declarations without initial
// values (the parser checks).
struct ProgramBlock {
    Loc loc;  // the block's name
    std::vector<Statement> statements;
};

struct Program {
    std::string file;  // for messages
    std::string text;  // what every Loc points into
    std::vector<FunctionDef> functions;
    std::optional<ProgramBlock> data, transformed_data, parameters, transformed_parameters, model,
        generated_quantities;

    [[nodiscard]] const std::optional<ProgramBlock>& block(BlockKind kind) const;
    [[nodiscard]] std::optional<ProgramBlock>& block(BlockKind kind);
    // "file:line:col: message" with the line and a caret, for any stage after the parser.
    [[nodiscard]] ParseError error_at(Loc loc, std::string_view message) const;
};

// ---------------------------------------------------------------------------------------------
// Names and the operator table

struct BinaryOpInfo {
    BinaryOp op;
    std::string_view symbol;
    int precedence;  // as the Stan Reference Manual: 1 binds tightest (^), 9 loosest (||)
    bool right_associative;
};
// Stan's precedence of the prefix operators (- + !) and of `c ? a : b`.
inline constexpr int kUnaryPrecedence = 2;
inline constexpr int kConditionalPrecedence = 10;

[[nodiscard]] const BinaryOpInfo& binary_op_info(BinaryOp op);
// Every row of the table, in enum order.
[[nodiscard]] const std::vector<BinaryOpInfo>& binary_op_table();
[[nodiscard]] std::string_view symbol(UnaryOp op);
[[nodiscard]] std::string_view symbol(AssignOp op);
[[nodiscard]] std::string_view name(BaseType type);   // "cholesky_factor_cov"
[[nodiscard]] std::string_view name(BlockKind kind);  // "transformed data"
[[nodiscard]] std::string_view name(PrintKind kind);  // "fatal_error"
// Words that cannot name a variable or function: Stan's keywords (with `array`, `lower`,
// `upper`, `offset` and `multiplier`, reserved since Stan 2.33).
[[nodiscard]] bool is_reserved_word(std::string_view word);

}  // namespace advi::stan
