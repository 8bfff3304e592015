// NumPy's .npy files as data (`numpy.save("y.npy", y)`; R writes them with RcppCNPy or
// reticulate): one variable per file, named by the file (`y.npy` is `y`; `big.y.npy` is `y` too,
// the part after the last dot of the stem, so that a data set's files can share a prefix).
//
// Why .npy and not HDF5: the format is four fields and a block of numbers (the magic
// "\x93NUMPY", a version, a header length, a Python dict literal {'descr': '<f8',
// 'fortran_order': False, 'shape': (250000, 576), }, then the values in C or Fortran order), so
// the file maps into memory as it is and a batch of rows is read from it without a library;
// HDF5 (libhdf5-dev) would add a dependency, chunked and compressed layouts to get through, and
// nothing a minibatch needs that .npy lacks. Element types: little-endian float64 ('<f8'),
// float32 ('<f4', read as reals), int32 ('<i4'), int64 ('<i8', each checked to fit Stan's
// 32-bit ints), bool ('|b1', as ints 0 and 1).
//
// The file is mapped read-only (mmap): a float64 or int32 array of one or two dimensions with
// at least kMappedElements elements stays in the file (DataValue::mapped), so that a minibatch
// fit reads its rows from the mapping and its memory is bounded by the batch and the program,
// not by the rows (`advi fit --minibatch`); everything else, and every array when the caller
// does not keep mappings, is copied into the table in Stan's column-major order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include <advi/io/data_table.hpp>

namespace advi {

inline constexpr std::int64_t kMappedElements = 65536;

// An .npy file's array, the file mapped read-only; unmapped when the last owner goes.
class MappedArray {
public:
    enum class Element { Float64, Float32, Int64, Int32, Bool };

    // Throws DataError naming the file: not an .npy file, an element type or byte order other
    // than those above, a header that is not NumPy's, a file shorter than its shape says.
    static std::shared_ptr<const MappedArray> open(const std::filesystem::path& file);
    ~MappedArray();
    MappedArray(const MappedArray&) = delete;
    MappedArray& operator=(const MappedArray&) = delete;

    [[nodiscard]] Element element() const { return element_; }
    [[nodiscard]] bool is_int() const {
        return element_ != Element::Float64 && element_ != Element::Float32;
    }
    [[nodiscard]] const std::vector<std::int64_t>& shape() const { return shape_; }
    [[nodiscard]] bool fortran_order() const { return fortran_order_; }
    [[nodiscard]] std::int64_t size() const;
    // The values in storage order (C: last index fastest; Fortran: first index fastest).
    [[nodiscard]] const void* data() const { return data_; }
    [[nodiscard]] double real_at(std::int64_t storage_index) const;
    [[nodiscard]] std::int64_t int_at(std::int64_t storage_index) const;
    // Where element (row r, column c) of a one- or two-dimensional array is stored.
    [[nodiscard]] std::int64_t storage_index(std::int64_t r, std::int64_t c) const {
        if (shape_.size() < 2)
            return r;
        return fortran_order_ ? r + shape_[0] * c : r * shape_[1] + c;
    }
    // The file, for messages.
    [[nodiscard]] const std::filesystem::path& file() const { return file_; }

private:
    MappedArray() = default;
    std::filesystem::path file_;
    Element element_ = Element::Float64;
    std::vector<std::int64_t> shape_;
    bool fortran_order_ = false;
    void* map_ = nullptr;
    std::size_t map_bytes_ = 0;
    const unsigned char* data_ = nullptr;
};

// One variable from `file`. With `keep_mapped`, a large float64 or int32 array of one or two
// dimensions stays in the mapping (DataValue::mapped; DataValue::materialize copies it);
// otherwise the values are copied, in Stan's column-major order.
[[nodiscard]] DataTable read_npy_data(const std::filesystem::path& file, bool keep_mapped = false);

}  // namespace advi
