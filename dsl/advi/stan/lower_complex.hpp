// Complex numbers in the lowering (lower_complex.cpp): the library's functions of complex
// arguments, as real operations on the parts of complex values (value.hpp).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <advi/stan/value.hpp>

namespace advi::stan {

struct CallSite;

// The call lowered on complex values, or nullopt if this function takes no complex path here
// (no complex argument, and it is not a complex-only function such as get_real).
[[nodiscard]] std::optional<Value> complex_call(CallSite& c);
// The functions lowered here: those only for complex numbers (`get_real`, `to_complex`, ...) or
// those whose complex forms are (`exp`, `block`, ...), for the function table's signatures.
[[nodiscard]] std::vector<std::string_view> complex_function_names(bool complex_only);

}  // namespace advi::stan
