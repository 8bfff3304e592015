// Shapes and element types of graph nodes: scalar, vector(n) or matrix(r, c), column-major
// as in Eigen; dtype real or int (integer data: counts, indices).
#pragma once

#include <cstdint>
#include <string>

namespace advi {

enum class DType : std::uint8_t { Real, Int };

struct Shape {
    enum class Kind : std::uint8_t { Scalar, Vector, Matrix };
    Kind kind = Kind::Scalar;
    int rows = 1;
    int cols = 1;

    static Shape scalar() { return {}; }
    static Shape vector(int n) { return {Kind::Vector, n, 1}; }
    static Shape matrix(int r, int c) { return {Kind::Matrix, r, c}; }

    [[nodiscard]] int size() const { return rows * cols; }
    [[nodiscard]] bool is_scalar() const { return kind == Kind::Scalar; }
    [[nodiscard]] bool is_vector() const { return kind == Kind::Vector; }
    [[nodiscard]] bool is_matrix() const { return kind == Kind::Matrix; }
    bool operator==(const Shape&) const = default;

    // "real", "vec[10]", "mat[3,4]": the notation of every printed graph and message.
    [[nodiscard]] std::string str() const;
};

[[nodiscard]] std::string dtype_name(DType t);

}  // namespace advi
