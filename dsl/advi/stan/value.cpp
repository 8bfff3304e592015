#include <advi/stan/value.hpp>

#include <fmt/format.h>

namespace advi::stan {

std::int64_t Value::size() const {
    if (is_tuple()) {
        std::int64_t n = 0;
        for (const Value& p : parts) n += p.size();
        return n;
    }
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
        case Base::Tuple: return "tuple";
        case Base::Complex: return "complex";
    }
    return "?";
}
std::string join(const std::vector<int>& v) {
    std::string s;
    for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
    return s;
}

// The value without its first n array dims (and its parts' alike), for a type's name.
Value without_dims(const Value& v, std::size_t n) {
    Value e;
    e.base = v.base;
    e.dims.assign(v.dims.begin() + static_cast<std::ptrdiff_t>(n), v.dims.end());
    e.sizes = v.sizes;
    for (const Value& p : v.parts) e.parts.push_back(without_dims(p, n));
    return e;
}
// A tuple's element as declared: its part without the tuple array's dims.
Value element_of(const Value& tuple, const Value& part) {
    return without_dims(part, tuple.dims.size());
}

// complex, complex_vector, ...: by the real part's base
std::string complex_name(const Value& v) {
    if (v.parts.empty() || v.parts[0].base == Base::Real)
        return "complex";
    return fmt::format("complex_{}", base_name(v.parts[0].base));
}
}  // namespace

std::string type_str(const Value& v) {
    std::string s = v.dims.empty() ? "" : fmt::format("array[{}] ", join(v.dims));
    s += v.is_complex() ? complex_name(v) : std::string(base_name(v.base));
    if (v.is_tuple()) {
        s += "(";
        for (std::size_t k = 0; k < v.parts.size(); ++k)
            s += (k ? ", " : "") + type_str(element_of(v, v.parts[k]));
        s += ")";
    }
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
    s += v.is_complex() ? complex_name(v) : std::string(base_name(v.base));
    if (v.is_tuple()) {
        s += "(";
        for (std::size_t k = 0; k < v.parts.size(); ++k)
            s += (k ? ", " : "") + type_name(element_of(v, v.parts[k]));
        s += ")";
    }
    return s;
}

}  // namespace advi::stan
