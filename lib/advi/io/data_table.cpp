#include <advi/io/data_table.hpp>

#include <advi/io/npy_reader.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>

namespace advi {

std::string describe_shape(DType type, std::span<const std::int64_t> dims, bool type_unknown) {
    std::string s = type_unknown ? "empty" : (type == DType::Int ? "int" : "real");
    if (!dims.empty())
        s += fmt::format("[{}]", fmt::join(dims, ","));
    return s;
}

std::size_t DataValue::size() const {
    if (mapped) {
        std::size_t n = 1;
        for (const std::int64_t d : dims) n *= static_cast<std::size_t>(d);
        return n;
    }
    return is_int() ? ints.size() : reals.size();
}

void DataValue::materialize() {
    if (!mapped)
        return;
    const std::size_t n = size();
    const std::int64_t rows = dims.empty() ? 1 : dims[0];
    const std::int64_t cols = rows == 0 ? 0 : static_cast<std::int64_t>(n) / rows;
    if (is_int())
        ints.resize(n);
    else
        reals.resize(n);
    for (std::int64_t c = 0; c < cols; ++c) {
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::int64_t at = mapped->storage_index(r, c);
            const auto to = static_cast<std::size_t>(c * rows + r);
            if (is_int())
                ints[to] = static_cast<int>(mapped->int_at(at));
            else
                reals[to] = mapped->real_at(at);
        }
    }
    mapped.reset();
}

void DataValue::promote_to_real() {
    if (!is_int())
        return;
    reals.assign(ints.begin(), ints.end());
    std::vector<int>().swap(ints);  // give the memory back: a large array would hold it twice
    type = DType::Real;
}

namespace {

[[noreturn]] void shape_mismatch(const DataValue& v, std::string_view expected) {
    throw DataError(
        fmt::format("data variable `{}`: expected {}, got {}", v.name, expected, v.shape_str()));
}

}  // namespace

void DataValue::check(DType expected_type, std::span<const std::int64_t> expected_dims) const {
    const std::string expected = describe_shape(expected_type, expected_dims);
    if (expected_type == DType::Int && !is_int() && !type_unknown)
        shape_mismatch(*this, expected);
    if (std::equal(dims.begin(), dims.end(), expected_dims.begin(), expected_dims.end()))
        return;
    // JSON cannot write the trailing sizes of an array with no elements (`[]` is every 0 x K
    // array), so an empty value fits when its sizes agree up to its first 0.
    if (size() == 0 && checked_product(expected_dims) == 0 && !dims.empty()) {
        const auto zero = std::find(dims.begin(), dims.end(), 0);
        const std::size_t n = static_cast<std::size_t>(zero - dims.begin()) + 1;
        if (zero != dims.end() && n == dims.size() && n <= expected_dims.size() &&
            std::equal(dims.begin(), dims.end(), expected_dims.begin()))
            return;
    }
    shape_mismatch(*this, expected);
}

double DataValue::as_real() const {
    if (!is_scalar())
        shape_mismatch(*this, "real");
    return is_int() ? ints[0] : reals[0];
}

int DataValue::as_int() const {
    if (!is_scalar() || !is_int())
        shape_mismatch(*this, "int");
    return ints[0];
}

Eigen::VectorXd DataValue::as_vector() const {
    if (dims.size() != 1)
        shape_mismatch(*this, "a vector (real[n])");
    return flat_values();
}

Eigen::MatrixXd DataValue::as_matrix() const {
    if (type_unknown && dims.size() == 1)
        return Eigen::MatrixXd(0, 0);
    if (dims.size() != 2)
        shape_mismatch(*this, "a matrix (real[r,c])");
    return flat_values().reshaped(dims[0], dims[1]);
}

Eigen::VectorXi DataValue::as_int_vector() const {
    if (dims.size() != 1 || (!is_int() && !type_unknown))
        shape_mismatch(*this, "int[n]");
    if (type_unknown)
        return Eigen::VectorXi(0);
    return Eigen::Map<const Eigen::VectorXi>(ints.data(), static_cast<Eigen::Index>(ints.size()));
}

Eigen::MatrixXi DataValue::as_int_matrix() const {
    if (type_unknown && dims.size() == 1)
        return Eigen::MatrixXi(0, 0);
    if (dims.size() != 2 || (!is_int() && !type_unknown))
        shape_mismatch(*this, "int[r,c]");
    if (type_unknown)
        return Eigen::MatrixXi(dims[0], dims[1]);
    return Eigen::Map<const Eigen::MatrixXi>(ints.data(), dims[0], dims[1]);
}

Eigen::Map<const Eigen::VectorXd> DataValue::vector_map() const {
    if (dims.size() != 1 || (is_int() && !type_unknown))
        shape_mismatch(*this, "real[n]");
    return {reals.data(), static_cast<Eigen::Index>(reals.size())};
}

Eigen::Map<const Eigen::MatrixXd> DataValue::matrix_map() const {
    if (dims.size() != 2 || (is_int() && !type_unknown))
        shape_mismatch(*this, "real[r,c]");
    return {reals.data(), dims[0], dims[1]};
}

Eigen::VectorXd DataValue::flat_values() const {
    if (!is_int())
        return Eigen::Map<const Eigen::VectorXd>(reals.data(),
                                                 static_cast<Eigen::Index>(reals.size()));
    return Eigen::Map<const Eigen::VectorXi>(ints.data(), static_cast<Eigen::Index>(ints.size()))
        .cast<double>();
}

void DataTable::add(DataValue value) {
    if (const DataValue* old = find(value.name))
        throw DataError(fmt::format("data variable `{}` is given twice: at {} and at {}",
                                    value.name, old->source, value.source));
    index_.emplace(value.name, values_.size());
    values_.push_back(std::move(value));
}

void DataTable::merge(DataTable other) {
    for (DataValue& v : other.values_) add(std::move(v));
}

const DataValue* DataTable::find(std::string_view name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &values_[it->second];
}

const DataValue& DataTable::at(std::string_view name) const {
    if (const DataValue* v = find(name))
        return *v;
    throw DataError(fmt::format("data variable `{}` is missing", name));
}

std::vector<std::string> DataTable::names() const {
    std::vector<std::string> out;
    out.reserve(values_.size());
    for (const DataValue& v : values_) out.push_back(v.name);
    return out;
}

std::string DataTable::str() const {
    std::string out;
    for (const DataValue& v : values_) {
        out += fmt::format("{} {}", v.name, v.shape_str());
        if (v.is_scalar())
            out += v.is_int() ? fmt::format(" = {}", v.ints[0]) : fmt::format(" = {}", v.reals[0]);
        out += '\n';
    }
    return out;
}

DataTable merge_tables(std::vector<DataTable> tables) {
    DataTable out;
    for (DataTable& t : tables) out.merge(std::move(t));
    return out;
}

template <class T>
void row_major_to_column_major(std::vector<T>& values, std::span<const std::int64_t> dims) {
    if (dims.size() < 2 || values.empty())
        return;
    const std::size_t rank = dims.size();
    // Walk the source in row-major order with an odometer over the indices, moving the
    // column-major destination by the stride of each index that changes.
    std::vector<std::int64_t> stride(rank, 1);  // column-major strides
    for (std::size_t k = 1; k < rank; ++k) stride[k] = stride[k - 1] * dims[k - 1];
    std::vector<std::int64_t> index(rank, 0);
    std::vector<T> out(values.size());
    std::int64_t dest = 0;
    for (std::size_t src = 0; src < values.size(); ++src) {
        out[static_cast<std::size_t>(dest)] = values[src];
        for (std::size_t k = rank; k-- > 0;) {
            if (++index[k] < dims[k]) {
                dest += stride[k];
                break;
            }
            index[k] = 0;
            dest -= stride[k] * (dims[k] - 1);
        }
    }
    values.swap(out);
}

template void row_major_to_column_major<int>(std::vector<int>&, std::span<const std::int64_t>);
template void row_major_to_column_major<double>(std::vector<double>&,
                                                std::span<const std::int64_t>);

}  // namespace advi
