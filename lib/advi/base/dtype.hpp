// The element types of values, shared by data files (lib/advi/io/) and graph nodes: real, or
// int (integer data: counts, indices).
#pragma once

#include <cstdint>
#include <string>

namespace advi {

enum class DType : std::uint8_t { Real, Int };

[[nodiscard]] inline std::string dtype_name(DType t) {
    return t == DType::Real ? "real" : "int";
}

}  // namespace advi
