// Data as read from files, before any model sees it: a table of named int or real arrays with
// Stan's index order, stored column-major (first index fastest) so that a matrix is an Eigen
// matrix and R's dump order is native.
//
// Formats (one reader each, all streaming: the file is read in 1 MiB chunks and numbers go
// straight into the typed buffer of their variable; every text error is an advi::ParseError
// with file:line:col and the line with a caret):
//   - CmdStan JSON (json_reader.hpp): {"N": 3, "y": [1, 2.5, "NaN"], "X": [[1, 2], [3, 4]]};
//     nested arrays are rows (last index fastest) and are transposed to column-major per
//     variable; "NaN", "Inf", "-Inf", "+Inf", "Infinity", "-Infinity" (also bare NaN,
//     Infinity, -Infinity) are reals. A tuple {"1": ..., "2": ...} gives a variable per slot,
//     `x.1`, `x.2.1`, with the dims of arrays of tuples first. Not supported: strings,
//     true/false/null.
//   - R dump as CmdStan reads it (rdump_reader.hpp): `N <- 3`, `y <- c(1, 2.5)`, `i <- 1:10`,
//     `X <- structure(c(1, 2, 3, 4, 5, 6), .Dim = c(2L, 3L))` (column-major already), `5L`,
//     Inf, -Inf, NaN, integer(0), double(0), names bare or quoted, `#` comments. Not
//     supported: NA, logicals, strings, lists, .Dimnames.
//   - CSV (csv_reader.hpp): a header of column names and rows of numbers; each column is a
//     vector, columns `X.1, X.2` or `X.1.1, X.2.1, ...` (Stan's flattened names, 1-based)
//     gather into one array X with the row as first index. Also CmdStan's output CSV
//     (`#` comments kept, header, rows) for reading fits back.
// A number without a point or exponent is an int (Stan ints are 32-bit: a larger one is an
// error); one real value makes the whole variable real.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include <advi/base/dtype.hpp>

namespace advi {

class MappedArray;  // npy_reader.hpp

// "int", "real[3]", "real[2,3]"; an empty array of unknown type is "empty[0]".
[[nodiscard]] std::string describe_shape(DType type, std::span<const std::int64_t> dims,
                                         bool type_unknown = false);

// One variable: its values column-major over `dims` (empty dims: a scalar). Stan's index
// order: `array[N] vector[K]` has dims {N, K}, `matrix[R, C]` has {R, C}.
struct DataValue {
    std::string name;
    DType type = DType::Int;  // readers start with Int and promote at the first real
    std::vector<std::int64_t> dims;
    std::vector<int> ints;      // the values when type is Int
    std::vector<double> reals;  // the values when type is Real
    // An empty array written without a type (JSON `[]`, R `c()`, a CSV without rows) fits a
    // declaration of either type.
    bool type_unknown = false;
    std::string source;  // "file:line:col" of the name, for messages
    // Values left in a memory-mapped .npy file (npy_reader.hpp: read with keep_mapped), `ints`
    // and `reals` empty: only a minibatch fit reads them so, row by row; everything else
    // reads materialize()'s copy.
    std::shared_ptr<const MappedArray> mapped;

    [[nodiscard]] bool is_int() const { return type == DType::Int; }
    [[nodiscard]] bool is_scalar() const { return dims.empty(); }
    [[nodiscard]] std::size_t size() const;
    // The mapped values copied into `ints` or `reals` (column-major), the mapping dropped; a
    // value that is not mapped is left as it is.
    void materialize();
    [[nodiscard]] std::string shape_str() const { return describe_shape(type, dims, type_unknown); }

    // Appending while reading: an int joins the current type; a real turns the variable real.
    void push_int(int v) {
        if (is_int())
            ints.push_back(v);
        else
            reals.push_back(v);
    }
    void push_real(double v) {
        if (is_int())
            promote_to_real();
        reals.push_back(v);
    }
    void promote_to_real();

    // Throws DataError "data variable `y`: expected real[100], got real[99]" unless the value
    // fits a declaration of `type` and `dims`: an int fits a real; an empty array fits any
    // declaration with no elements whose leading sizes agree (JSON writes a 0 x 3 matrix `[]`).
    void check(DType expected_type, std::span<const std::int64_t> expected_dims) const;

    // Scalars; an int converts to real, not the reverse.
    [[nodiscard]] double as_real() const;
    [[nodiscard]] int as_int() const;
    // Copies, ints converted to real. as_vector needs one dimension, as_matrix two (an empty
    // `[]` gives an empty vector or a 0 x 0 matrix).
    [[nodiscard]] Eigen::VectorXd as_vector() const;
    [[nodiscard]] Eigen::MatrixXd as_matrix() const;
    [[nodiscard]] Eigen::VectorXi as_int_vector() const;
    [[nodiscard]] Eigen::MatrixXi as_int_matrix() const;
    // Views without a copy; real values only (an int variable throws: use the copies).
    [[nodiscard]] Eigen::Map<const Eigen::VectorXd> vector_map() const;
    [[nodiscard]] Eigen::Map<const Eigen::MatrixXd> matrix_map() const;
    // Every element of any shape, column-major, as a flat vector (ints converted).
    [[nodiscard]] Eigen::VectorXd flat_values() const;
};

// Variables by name, in the order they were read.
class DataTable {
public:
    // Throws DataError when the name is taken: "data variable `N` is given twice: at a.json:2:3
    // and at b.R:1:1".
    void add(DataValue value);
    // Adds every variable of `other` (same error for a name in both).
    void merge(DataTable other);

    [[nodiscard]] const DataValue* find(std::string_view name) const;
    // Throws DataError "data variable `y` is missing".
    [[nodiscard]] const DataValue& at(std::string_view name) const;
    [[nodiscard]] bool contains(std::string_view name) const { return find(name) != nullptr; }
    [[nodiscard]] std::vector<std::string> names() const;
    [[nodiscard]] std::size_t size() const { return values_.size(); }
    [[nodiscard]] bool empty() const { return values_.empty(); }
    [[nodiscard]] auto begin() const { return values_.begin(); }
    [[nodiscard]] auto end() const { return values_.end(); }

    // A line per variable: "N int = 272", "y real[272,2]", "e empty[0]".
    [[nodiscard]] std::string str() const;

private:
    std::vector<DataValue> values_;
    std::map<std::string, std::size_t, std::less<>> index_;
};

// The variables of several files in one table; a name given twice names both sources.
[[nodiscard]] DataTable merge_tables(std::vector<DataTable> tables);

// Reorders `values` of the given dims from row-major (last index fastest, as nested JSON arrays
// arrive) to column-major (first index fastest). One transposing copy.
template <class T>
void row_major_to_column_major(std::vector<T>& values, std::span<const std::int64_t> dims);

}  // namespace advi
