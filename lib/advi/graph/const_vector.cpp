// The table of interned constant vectors behind ConstVector leaves. Entries are never
// removed or moved (each is its own allocation), so a span handed out stays valid.
#include <advi/graph/const_vector.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {
namespace {

struct Table {
    std::mutex mutex;
    std::vector<std::unique_ptr<const std::vector<double>>> entries;
    std::map<std::vector<double>, std::int64_t> index;
};

Table& table() {
    static Table t;
    return t;
}

}  // namespace

NodeId constant_vector(Graph& g, std::span<const double> values, Shape shape) {
    if (static_cast<int>(values.size()) != shape.size()) {
        throw InternalError(
            fmt::format("constant_vector: {} values for a {}", values.size(), shape.str()));
    }
    if (values.empty() ||
        std::all_of(values.begin(), values.end(), [&](double v) { return v == values[0]; })) {
        return g.constant(values.empty() ? 0.0 : values[0], shape);
    }
    Table& t = table();
    std::int64_t id;
    {
        std::lock_guard<std::mutex> lock(t.mutex);
        std::vector<double> key(values.begin(), values.end());
        auto it = t.index.find(key);
        if (it == t.index.end()) {
            id = static_cast<std::int64_t>(t.entries.size());
            t.entries.push_back(std::make_unique<const std::vector<double>>(key));
            t.index.emplace(std::move(key), id);
        } else {
            id = it->second;
        }
    }
    return g.leaf(Op::ConstVector, shape, DType::Real, id, "");
}

std::span<const double> constant_vector_values(std::int64_t index) {
    Table& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    if (index < 0 || index >= static_cast<std::int64_t>(t.entries.size())) {
        throw InternalError(fmt::format("const_vector: no constant vector {}", index));
    }
    return *t.entries[index];
}

Shape const_vector_shape(const Graph&, const Node& n) {
    const auto v = constant_vector_values(n.index);
    if (static_cast<int>(v.size()) != n.shape.size()) {
        throw ShapeError(fmt::format("const_vector: {} values for a {}", v.size(), n.shape.str()));
    }
    return n.shape;
}

// Runs once per data (the node depends on no parameter).
void const_vector_kernel(const KernelArgs& a) {
    const auto v = constant_vector_values(a.node->index);
    std::copy(v.begin(), v.end(), a.out);
}

}  // namespace advi
