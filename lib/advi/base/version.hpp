// The library's version (the CMake project's), for the CSV headers and `advi --version`.
#pragma once

#include <string_view>

namespace advi {

[[nodiscard]] std::string_view version();

}  // namespace advi
