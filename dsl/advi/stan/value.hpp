// What a Stan expression lowers to: its Stan type and sizes, and its value: integers are
// always known while lowering (Stan ints are data, sizes and loop indices), reals are nodes of
// the model's graph. Inside a vectorised loop a value may be batched: one per iteration.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <advi/cpp/expr.hpp>

namespace advi::stan {

// Constrained types (simplex, cov_matrix, ...) are vectors and matrices once declared.
enum class Base { Int, Real, Vector, RowVector, Matrix, Tuple, Complex };

// Layout of a real value as a graph node:
//   real -> real;  vector[n], row_vector[n], array[n] real -> vec[n];  matrix[r, c] -> mat[r, c];
//   array[n] vector[k] (or row_vector) -> mat[n, k], row i the i-th vector; array[n, m] real ->
//   mat[n, m]; three or more dimensions: rows by the first index, the others column-major in
//   the columns (array[n] matrix[r, c] -> mat[n, r * c], array[n, m, k] real -> mat[n, m * k]),
//   so that the flat column-major order is always Stan's, first index fastest.
//   Batched over B iterations: real -> vec[B]; vector[k] -> mat[B, k].
// Integers: column-major over all indices (array dims, then the base's own sizes), batched
// ones with the iteration index first (fastest).
// Tuples, and arrays of them, are held element by element ("structure of arrays"): `parts[k]`
// is the k-th element of every tuple of the array, its array dims the tuple array's `dims`
// followed by the element's own. Indexing the array indexes every part alike; `.k` of a
// tuple (no dims) is parts[k - 1].
// Complex values (complex, complex_vector, ..., arrays of them) hold their real and imaginary
// parts as two real values of the same dims and sizes, `parts[0]` and `parts[1]` (whose base,
// real, vector, row_vector or matrix, says which complex type it is); indexing indexes both.
struct Value {
    Base base = Base::Real;
    std::vector<int> dims;     // array dimensions, outermost first
    std::vector<int> sizes;    // vector/row_vector: {n}; matrix: {r, c}; int and real: {}
    std::vector<int> ints;     // base Int: the values
    Expr expr;                 // other bases: the graph node
    int level = 0;             // 0: one value; d > 0: one per iteration of vectorised level d
    std::vector<Value> parts;  // base Tuple: the elements

    [[nodiscard]] bool is_int() const { return base == Base::Int; }
    [[nodiscard]] bool is_tuple() const { return base == Base::Tuple; }
    [[nodiscard]] bool is_complex() const { return base == Base::Complex; }
    // Held as parts (a tuple's elements, a complex value's real and imaginary parts).
    [[nodiscard]] bool has_parts() const { return is_tuple() || is_complex(); }
    // An int known only per draw (an _rng result in generated quantities): its values are
    // in `expr`, integral reals.
    [[nodiscard]] bool is_runtime_int() const {
        return base == Base::Int && ints.empty() && expr.valid();
    }
    // Ints known while lowering.
    [[nodiscard]] bool is_known_int() const { return base == Base::Int && !is_runtime_int(); }
    [[nodiscard]] bool is_scalar() const { return dims.empty() && sizes.empty(); }
    // Elements of one (unbatched) value; of a tuple, the numbers of all its parts.
    [[nodiscard]] std::int64_t size() const;
};

// `int`, `real`, `vector[3]`, `array[2] matrix[3, 4]`, `tuple(real, vector[3])`, with
// "(one per iteration)" if batched.
[[nodiscard]] std::string type_str(const Value& v);
// The type without sizes: `array[] vector`.
[[nodiscard]] std::string type_name(const Value& v);

}  // namespace advi::stan
