// Printing of shapes.
#include <advi/graph/shape.hpp>

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

}  // namespace advi
