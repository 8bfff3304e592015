// The types of Stan's function signatures, as the function table (functions.hpp) writes them:
// "(real, int) => vector", "(T) => R", "(reals | reals, reals) => real", and as stanc3 prints
// the whole library (stan_library.hpp): complex types, tuples, function types of higher-order
// functions (`(vector, data array[] real) => vector`), arrays of any dimension.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace advi::stan {

enum class TypeKind {
    // Stan's types; `StanType::array_dims` makes arrays of them.
    Int,
    Real,
    Complex,
    Vector,
    RowVector,
    Matrix,
    ComplexVector,
    ComplexRowVector,
    ComplexMatrix,
    Tuple,     // `tuple(real, vector)`: `parts` are the element types
    Function,  // `(real, vector) => vector`: `parts` are the argument types, then the result
    // The families Stan's reference writes vectorised signatures with.
    Ints,     // `ints`: int or array[] int
    Reals,    // `reals`: real, vector, row_vector or array[] real (ints promote)
    Vectors,  // `vectors`: vector, row_vector or arrays of them
    // Type variables of elementwise functions: `T`, `T1`, `T2`, ... stand for int, real,
    // vector, row_vector, matrix or arrays of them; `R` (a result only) is the elementwise
    // broadcast of the arguments' types with real elements.
    Any,
    Broadcast,
    // What a void function returns: no value (the checker's type of such a call).
    Void,
};

struct StanType {
    TypeKind kind = TypeKind::Real;
    int array_dims = 0;
    std::string_view variable;    // the spelling of a type variable (`T1`); empty otherwise
    std::vector<StanType> parts;  // Tuple and Function only
    bool data_only = false;       // an argument of a function type written `data real`

    friend bool operator==(const StanType&, const StanType&) = default;
};

// One signature of a function: its argument types and its result. For a density the first
// argument is the variate (`normal_lpdf(reals | reals, reals) => real`).
struct Signature {
    std::vector<StanType> args;
    StanType result;
    bool density = false;  // written with `|` after the variate
};

// Stan's spelling: `array[,] real`, `vector`, `T1`, `reals`.
[[nodiscard]] std::string str(const StanType& t);
// "(real, int) => vector"
[[nodiscard]] std::string str(const Signature& s);
// Parses one signature in the notation above (type variable names are kept as views into
// `text`, which must outlive the result: the table's text is static). Throws InternalError:
// the text is ours.
[[nodiscard]] Signature parse_signature(std::string_view text);
// Signatures separated by `;`.
[[nodiscard]] std::vector<Signature> parse_signatures(std::string_view text);

}  // namespace advi::stan
