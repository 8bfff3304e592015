#include <advi/stan/value.hpp>

#include <fmt/format.h>

namespace advi::stan {

std::int64_t Value::size() const {
    std::int64_t n = 1;
    for (int d : dims) n *= d;
    for (int s : sizes) n *= s;
    return n;
}

namespace {
std::string_view base_name(Base b) {
    switch (b) {
        case Base::Int: return "int";
        case Base::Real: return "real";
        case Base::Vector: return "vector";
        case Base::RowVector: return "row_vector";
        case Base::Matrix: return "matrix";
    }
    return "?";
}
std::string join(const std::vector<int>& v) {
    std::string s;
    for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
    return s;
}
}  // namespace

std::string type_str(const Value& v) {
    std::string s = v.dims.empty() ? "" : fmt::format("array[{}] ", join(v.dims));
    s += base_name(v.base);
    if (!v.sizes.empty())
        s += fmt::format("[{}]", join(v.sizes));
    if (v.level > 0)
        s += " (one per iteration)";
    return s;
}

std::string type_name(const Value& v) {
    std::string s;
    if (!v.dims.empty())
        s = "array[" + std::string(v.dims.size() - 1, ',') + "] ";
    return s + std::string(base_name(v.base));
}

}  // namespace advi::stan
