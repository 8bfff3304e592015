// Printing of shapes and dtypes.
#include "shape.hpp"

#include <fmt/format.h>

namespace advi {

std::string Shape::str() const {
    switch (kind) {
        case Kind::Scalar: return "real";
        case Kind::Vector: return fmt::format("vec[{}]", rows);
        case Kind::Matrix: return fmt::format("mat[{},{}]", rows, cols);
    }
    return "?";
}

std::string dtype_name(DType t) { return t == DType::Real ? "real" : "int"; }

}  // namespace advi
