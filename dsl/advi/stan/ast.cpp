#include <advi/stan/ast.hpp>

#include <algorithm>
#include <array>

#include <advi/io/source_text.hpp>

namespace advi::stan {

const std::optional<ProgramBlock>& Program::block(BlockKind kind) const {
    switch (kind) {
        case BlockKind::Data: return data;
        case BlockKind::TransformedData: return transformed_data;
        case BlockKind::Parameters: return parameters;
        case BlockKind::TransformedParameters: return transformed_parameters;
        case BlockKind::Model: return model;
        case BlockKind::GeneratedQuantities: return generated_quantities;
    }
    throw InternalError("Program::block: unknown block kind");
}

std::optional<ProgramBlock>& Program::block(BlockKind kind) {
    return const_cast<std::optional<ProgramBlock>&>(std::as_const(*this).block(kind));
}

ParseError Program::error_at(Loc loc, std::string_view message) const {
    return parse_error_at(file, text, loc.offset, message);
}

// The Stan Reference Manual's operator table (precedence 1 binds tightest). `\` and `%/%` bind
// tighter than `*`; `^` and `.^` are right-associative and bind tighter than the prefix
// operators, so -a^2 is -(a^2).
const std::vector<BinaryOpInfo>& binary_op_table() {
    static const std::vector<BinaryOpInfo> table = {
        {BinaryOp::Or,           "||",  9, false},
        {BinaryOp::And,          "&&",  8, false},
        {BinaryOp::Equal,        "==",  7, false},
        {BinaryOp::NotEqual,     "!=",  7, false},
        {BinaryOp::Less,         "<",   6, false},
        {BinaryOp::LessEqual,    "<=",  6, false},
        {BinaryOp::Greater,      ">",   6, false},
        {BinaryOp::GreaterEqual, ">=",  6, false},
        {BinaryOp::Add,          "+",   5, false},
        {BinaryOp::Subtract,     "-",   5, false},
        {BinaryOp::Multiply,     "*",   4, false},
        {BinaryOp::Divide,       "/",   4, false},
        {BinaryOp::Modulo,       "%",   4, false},
        {BinaryOp::EltMultiply,  ".*",  4, false},
        {BinaryOp::EltDivide,    "./",  4, false},
        {BinaryOp::LeftDivide,   "\\",  3, false},
        {BinaryOp::IntDivide,    "%/%", 3, false},
        {BinaryOp::Power,        "^",   1, true },
        {BinaryOp::EltPower,     ".^",  1, true },
    };
    return table;
}

const BinaryOpInfo& binary_op_info(BinaryOp op) {
    const auto& table = binary_op_table();
    const auto i = static_cast<std::size_t>(op);
    if (i >= table.size() || table[i].op != op)
        throw InternalError("binary_op_info: the table is out of enum order");
    return table[i];
}

std::string_view symbol(UnaryOp op) {
    switch (op) {
        case UnaryOp::Minus: return "-";
        case UnaryOp::Plus: return "+";
        case UnaryOp::Not: return "!";
    }
    return "?";
}

std::string_view symbol(AssignOp op) {
    switch (op) {
        case AssignOp::Assign: return "=";
        case AssignOp::Add: return "+=";
        case AssignOp::Subtract: return "-=";
        case AssignOp::Multiply: return "*=";
        case AssignOp::Divide: return "/=";
        case AssignOp::EltMultiply: return ".*=";
        case AssignOp::EltDivide: return "./=";
    }
    return "?";
}

std::string_view name(BaseType type) {
    switch (type) {
        case BaseType::Int: return "int";
        case BaseType::Real: return "real";
        case BaseType::Vector: return "vector";
        case BaseType::RowVector: return "row_vector";
        case BaseType::Matrix: return "matrix";
        case BaseType::Simplex: return "simplex";
        case BaseType::UnitVector: return "unit_vector";
        case BaseType::Ordered: return "ordered";
        case BaseType::PositiveOrdered: return "positive_ordered";
        case BaseType::CholeskyFactorCorr: return "cholesky_factor_corr";
        case BaseType::CholeskyFactorCov: return "cholesky_factor_cov";
        case BaseType::CorrMatrix: return "corr_matrix";
        case BaseType::CovMatrix: return "cov_matrix";
        case BaseType::SumToZeroVector: return "sum_to_zero_vector";
        case BaseType::SumToZeroMatrix: return "sum_to_zero_matrix";
        case BaseType::RowStochasticMatrix: return "row_stochastic_matrix";
        case BaseType::ColumnStochasticMatrix: return "column_stochastic_matrix";
        case BaseType::Tuple: return "tuple";
        case BaseType::Complex: return "complex";
        case BaseType::ComplexVector: return "complex_vector";
        case BaseType::ComplexRowVector: return "complex_row_vector";
        case BaseType::ComplexMatrix: return "complex_matrix";
    }
    return "?";
}

std::string_view name(BlockKind kind) {
    switch (kind) {
        case BlockKind::Data: return "data";
        case BlockKind::TransformedData: return "transformed data";
        case BlockKind::Parameters: return "parameters";
        case BlockKind::TransformedParameters: return "transformed parameters";
        case BlockKind::Model: return "model";
        case BlockKind::GeneratedQuantities: return "generated quantities";
    }
    return "?";
}

std::string_view name(PrintKind kind) {
    switch (kind) {
        case PrintKind::Print: return "print";
        case PrintKind::Reject: return "reject";
        case PrintKind::FatalError: return "fatal_error";
    }
    return "?";
}

bool is_reserved_word(std::string_view word) {
    // Sorted, for binary search: stanc3's keywords (its lexer's) and the words its type
    // checker keeps for the future (`generated`, `struct`, `true`, ...). `T` (truncation) is an
    // ordinary name.
    static constexpr std::array<std::string_view, 61> words = {
        "array",
        "auto",
        "break",
        "cholesky_factor_corr",
        "cholesky_factor_cov",
        "column_stochastic_matrix",
        "complex",
        "complex_matrix",
        "complex_row_vector",
        "complex_vector",
        "continue",
        "corr_matrix",
        "cov_matrix",
        "data",
        "else",
        "export",
        "extern",
        "false",
        "fatal_error",
        "for",
        "functions",
        "generated",
        "if",
        "in",
        "int",
        "jacobian",
        "lower",
        "matrix",
        "model",
        "multiplier",
        "offset",
        "ordered",
        "parameters",
        "positive_ordered",
        "print",
        "profile",
        "quantities",
        "real",
        "reject",
        "repeat",
        "return",
        "row_stochastic_matrix",
        "row_vector",
        "simplex",
        "static",
        "struct",
        "sum_to_zero_matrix",
        "sum_to_zero_vector",
        "target",
        "then",
        "transformed",
        "true",
        "tuple",
        "typedef",
        "unit_vector",
        "until",
        "upper",
        "var",
        "vector",
        "void",
        "while",
    };
    static_assert(std::is_sorted(words.begin(), words.end()));
    return std::binary_search(words.begin(), words.end(), word);
}

}  // namespace advi::stan
