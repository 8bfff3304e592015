#include <advi/io/npy_reader.hpp>

#include <cctype>
#include <cstring>
#include <limits>
#include <regex>
#include <string>

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <advi/base/error.hpp>

namespace advi {
namespace {

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& why) {
    throw DataError(fmt::format("data file `{}`: {}", file.string(), why));
}

// The value of `key` in NumPy's header dict, as written: "'<f8'", "False", "(3, 4)".
std::string header_field(const std::filesystem::path& file, const std::string& header,
                         const std::string& key) {
    const std::regex field("'" + key + "'\\s*:\\s*('[^']*'|True|False|\\([^)]*\\))");
    std::smatch m;
    if (!std::regex_search(header, m, field))
        refuse(file, fmt::format("the .npy header has no '{}': {}", key, header));
    return m[1].str();
}

}  // namespace

std::shared_ptr<const MappedArray> MappedArray::open(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY);
    if (fd < 0)
        refuse(file, fmt::format("cannot open it: {}", std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        refuse(file, fmt::format("cannot read it: {}", std::strerror(errno)));
    }
    const auto bytes = static_cast<std::size_t>(st.st_size);
    if (bytes < 10) {
        ::close(fd);
        refuse(file, "not a NumPy .npy file (shorter than its header)");
    }
    void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);  // the mapping stays
    if (map == MAP_FAILED)
        refuse(file, fmt::format("cannot map it: {}", std::strerror(errno)));
    std::shared_ptr<MappedArray> a(new MappedArray());
    a->file_ = file;
    a->map_ = map;
    a->map_bytes_ = bytes;
    const auto* p = static_cast<const unsigned char*>(map);
    if (std::memcmp(p, "\x93NUMPY", 6) != 0)
        refuse(file, "not a NumPy .npy file (no \\x93NUMPY magic)");
    const int major = p[6];
    std::size_t header_len = 0, start = 0;
    if (major == 1) {
        header_len = p[8] | (static_cast<std::size_t>(p[9]) << 8);
        start = 10;
    } else if (major == 2 || major == 3) {
        if (bytes < 12)
            refuse(file, "not a NumPy .npy file (shorter than its header)");
        header_len = p[8] | (static_cast<std::size_t>(p[9]) << 8) |
                     (static_cast<std::size_t>(p[10]) << 16) |
                     (static_cast<std::size_t>(p[11]) << 24);
        start = 12;
    } else {
        refuse(file, fmt::format(".npy format version {} (1, 2 and 3 are read)", major));
    }
    if (start + header_len > bytes)
        refuse(file, "not a NumPy .npy file (its header runs past the end)");
    const std::string header(reinterpret_cast<const char*>(p + start), header_len);
    const std::string descr = header_field(file, header, "descr");
    if (descr == "'<f8'")
        a->element_ = Element::Float64;
    else if (descr == "'<f4'")
        a->element_ = Element::Float32;
    else if (descr == "'<i8'")
        a->element_ = Element::Int64;
    else if (descr == "'<i4'")
        a->element_ = Element::Int32;
    else if (descr == "'|b1'")
        a->element_ = Element::Bool;
    else
        refuse(file, fmt::format("element type {} (read: '<f8', '<f4', '<i8', '<i4', '|b1'; "
                                 "little-endian; save with .astype(numpy.float64))",
                                 descr));
    a->fortran_order_ = header_field(file, header, "fortran_order") == "True";
    const std::string shape = header_field(file, header, "shape");
    const std::regex number("[0-9]+");
    for (auto it = std::sregex_iterator(shape.begin(), shape.end(), number);
         it != std::sregex_iterator(); ++it) {
        a->shape_.push_back(std::stoll(it->str()));
    }
    const std::size_t width = a->element_ == Element::Float64 || a->element_ == Element::Int64 ? 8
                              : a->element_ == Element::Bool                                   ? 1
                                                                                               : 4;
    const std::size_t need = static_cast<std::size_t>(a->size()) * width;
    a->data_ = p + start + header_len;
    if (start + header_len + need > bytes) {
        refuse(file, fmt::format("the header's shape {} needs {} bytes of values, the file has {}",
                                 shape, need, bytes - start - header_len));
    }
    return a;
}

MappedArray::~MappedArray() {
    if (map_ != nullptr)
        ::munmap(map_, map_bytes_);
}

std::int64_t MappedArray::size() const {
    std::int64_t n = 1;
    for (const std::int64_t d : shape_) n *= d;
    return n;
}

double MappedArray::real_at(std::int64_t i) const {
    const auto k = static_cast<std::size_t>(i);
    switch (element_) {
        case Element::Float64: {
            double v = 0;
            std::memcpy(&v, data_ + 8 * k, 8);
            return v;
        }
        case Element::Float32: {
            float v = 0;
            std::memcpy(&v, data_ + 4 * k, 4);
            return v;
        }
        default: return static_cast<double>(int_at(i));
    }
}

std::int64_t MappedArray::int_at(std::int64_t i) const {
    const auto k = static_cast<std::size_t>(i);
    switch (element_) {
        case Element::Int64: {
            std::int64_t v = 0;
            std::memcpy(&v, data_ + 8 * k, 8);
            return v;
        }
        case Element::Int32: {
            std::int32_t v = 0;
            std::memcpy(&v, data_ + 4 * k, 4);
            return v;
        }
        case Element::Bool: return data_[k] != 0 ? 1 : 0;
        default: return static_cast<std::int64_t>(real_at(i));
    }
}

DataTable read_npy_data(const std::filesystem::path& file, bool keep_mapped) {
    std::string name = file.stem().string();
    if (const auto dot = name.rfind('.'); dot != std::string::npos)
        name = name.substr(dot + 1);
    static const std::regex identifier("[A-Za-z][A-Za-z0-9_]*");
    if (!std::regex_match(name, identifier)) {
        refuse(file, fmt::format("`{}` is not a Stan variable name (the file's name, or the part "
                                 "after its last dot, names the variable: y.npy, big.y.npy)",
                                 name));
    }
    const std::shared_ptr<const MappedArray> a = MappedArray::open(file);
    DataValue v;
    v.name = name;
    v.type = a->is_int() ? DType::Int : DType::Real;
    v.dims = a->shape();
    v.source = file.string();
    if (a->element() == MappedArray::Element::Int64) {
        for (std::int64_t i = 0; i < a->size(); ++i) {
            const std::int64_t x = a->int_at(i);
            if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) {
                refuse(file, fmt::format("`{}` holds {}, beyond Stan's 32-bit ints", name, x));
            }
        }
    }
    const bool mappable = (a->element() == MappedArray::Element::Float64 ||
                           a->element() == MappedArray::Element::Int32) &&
                          a->shape().size() >= 1 && a->shape().size() <= 2 &&
                          a->size() >= kMappedElements;
    if (keep_mapped && mappable) {
        v.mapped = a;
    } else if (a->shape().size() <= 2) {
        v.mapped = a;
        v.materialize();
    } else {
        // three or more dimensions: storage order to Stan's column-major order
        const auto n = static_cast<std::size_t>(a->size());
        if (v.is_int()) {
            v.ints.resize(n);
            for (std::size_t i = 0; i < n; ++i)
                v.ints[i] = static_cast<int>(a->int_at(static_cast<std::int64_t>(i)));
            if (!a->fortran_order())
                row_major_to_column_major(v.ints, v.dims);
        } else {
            v.reals.resize(n);
            for (std::size_t i = 0; i < n; ++i)
                v.reals[i] = a->real_at(static_cast<std::int64_t>(i));
            if (!a->fortran_order())
                row_major_to_column_major(v.reals, v.dims);
        }
    }
    DataTable t;
    t.add(std::move(v));
    return t;
}

}  // namespace advi
