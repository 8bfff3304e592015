// Shapes of graph nodes: scalar, vector(n) or matrix(r, c), column-major as in Eigen (their
// element types, DType, are the ground floor's).
#pragma once

#include <cstdint>
#include <string>

#include <advi/base/dtype.hpp>

namespace advi {

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

}  // namespace advi
