// Stan's typing rules, as the checker (check.cpp) applies them to expressions: the type of a
// declaration, which types a value of one type may be assigned or passed to (int promotes to
// real, elementwise in arrays), how a call's argument types select a signature of the function
// table (functions.hpp) and what it returns, and the result types of Stan's operators and
// indexing. Types are the signature vocabulary's (signature.hpp), concrete: int, real, vector,
// row_vector, matrix, arrays of them, tuples of them (and arrays of tuples), and void.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <advi/stan/ast.hpp>
#include <advi/stan/signature.hpp>

namespace advi::stan {

// `vector<lower=0>[N]` -> vector; simplex -> vector; cov_matrix -> matrix; with its array dims.
[[nodiscard]] StanType type_of(const SizedType& t);
[[nodiscard]] StanType type_of(const UnsizedType& t);
[[nodiscard]] StanType int_type(int array_dims = 0);
[[nodiscard]] StanType real_type(int array_dims = 0);
[[nodiscard]] bool is_scalar(const StanType& t);  // int or real
[[nodiscard]] bool is_int(const StanType& t);     // int, not an array
// complex, complex_vector, complex_row_vector, complex_matrix, or arrays of them
[[nodiscard]] bool is_complex(const StanType& t);
// The real type of a complex one (complex_vector -> vector, array[] complex -> array[] real);
// other types unchanged.
[[nodiscard]] StanType realified(StanType t);

// Whether a value of type `from` may be stored in (or passed as) `to`: the same type, or ints
// where reals are expected (also as the elements of arrays of the same dimensions, and element
// by element in tuples).
[[nodiscard]] bool assignable(const StanType& to, const StanType& from);

// The result of calling a function of signature `s` with arguments of these types, or nullopt
// if they do not fit it. `promotions` counts the ints passed as reals, so that of two fitting
// signatures the exact one wins (Stan's rule).
[[nodiscard]] std::optional<StanType> match(const Signature& s, std::span<const StanType> args,
                                            int* promotions = nullptr);
// The best fitting signature's result among `signatures`, or nullopt.
[[nodiscard]] std::optional<StanType> resolve(std::span<const Signature> signatures,
                                              std::span<const StanType> args);

// The position of the best fitting signature (fewest promotions; the first of equals), or
// nullopt: which overload of a user function a call picks.
[[nodiscard]] std::optional<std::size_t> resolve_index(std::span<const Signature> signatures,
                                                       std::span<const StanType> args);

// "(real, int, vector)"; with `density`, "(real | int, vector)".
[[nodiscard]] std::string str(std::span<const StanType> args, bool density = false);
// "(reals | reals, reals)" or, for several, "(vector, int) or (row_vector, int)": the argument
// lists that a call may take, for "f takes ...; got (...)".
// With `at_most`, the first that many and how many more: Stan's vectorised functions have
// dozens of signatures.
[[nodiscard]] std::string str_arguments(std::span<const Signature> signatures,
                                        std::size_t at_most = SIZE_MAX);

// Operators; nullopt if Stan has no such operation.
[[nodiscard]] std::optional<StanType> unary_type(UnaryOp op, const StanType& a);
[[nodiscard]] std::optional<StanType> binary_type(BinaryOp op, const StanType& a,
                                                  const StanType& b);
[[nodiscard]] std::optional<StanType> transpose_type(const StanType& a);
// The operator of a compound assignment (`+=` -> Add); nullopt for `=`.
[[nodiscard]] std::optional<BinaryOp> binary_of(AssignOp op);

// One position inside brackets as the checker sees it: a single int index (drops a dimension),
// or a multi-index (an int array or a range: keeps it).
enum class IndexKind { Single, Multi };
// The type of `base[indices]`, or an error message ("too many indexes for vector").
struct IndexResult {
    std::optional<StanType> type;
    std::string error;
};
[[nodiscard]] IndexResult index_type(const StanType& base, std::span<const IndexKind> indices);

}  // namespace advi::stan
