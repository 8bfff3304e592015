// The bytes numpy.save writes for an array (tests of the .npy reader and of minibatch fits
// from .npy files): magic, version, header length, the dict padded with spaces to a multiple of
// 64 bytes with a final newline, then the raw values as given (storage order).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace advi::test {

template <class T>
std::string npy_bytes(const std::string& descr, const std::string& shape,
                      const std::vector<T>& values, bool fortran = false, int version = 1) {
    std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", descr,
                                   fortran ? "True" : "False", shape);
    const std::size_t prefix = version == 1 ? 10 : 12;
    while ((prefix + dict.size() + 1) % 64 != 0) dict += ' ';
    dict += '\n';
    std::string bytes = std::string("\x93NUMPY", 6) + static_cast<char>(version) + '\0';
    const std::size_t len = dict.size();
    bytes += static_cast<char>(len & 0xff);
    bytes += static_cast<char>((len >> 8) & 0xff);
    if (version != 1) {
        bytes += static_cast<char>((len >> 16) & 0xff);
        bytes += static_cast<char>((len >> 24) & 0xff);
    }
    bytes += dict;
    bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    return bytes;
}

}  // namespace advi::test
