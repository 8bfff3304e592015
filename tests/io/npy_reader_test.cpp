// NumPy .npy files, written here byte by byte as numpy.save writes them: every element type
// read, C and Fortran order to Stan's column-major order, three dimensions, format version 2,
// the variable's name from the file's, large arrays left mapped and read back the same, and
// every malformed file refused by name.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/npy_reader.hpp>
#include <advi/io/read_data.hpp>

#include "support/npy_writer.hpp"

namespace advi {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

// A directory of the test's own, removed at exit.
struct Scratch {
    fs::path dir = fs::temp_directory_path() / fmt::format("advi_npy_test_{}", ::getpid());
    Scratch() { fs::create_directories(dir); }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

fs::path scratch() {
    static const Scratch s;
    return s.dir;
}

fs::path write_npy_file(const std::string& name, const std::string& bytes) {
    const fs::path p = scratch() / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
}

template <class T>
fs::path write_npy(const std::string& name, const std::string& descr, const std::string& shape,
                   const std::vector<T>& values, bool fortran = false, int version = 1) {
    return write_npy_file(name, test::npy_bytes(descr, shape, values, fortran, version));
}

}  // namespace

TEST_CASE("npy: a C-order matrix of float64 in Stan's column-major order", "[io][npy]") {
    // numpy.array([[1, 2, 3], [4, 5, 6]], dtype=float64): rows 1 2 3 and 4 5 6
    const fs::path p = write_npy<double>("X.npy", "<f8", "(2, 3)", {1, 2, 3, 4, 5, 6});
    const DataTable t = read_data(p);
    const DataValue& x = t.at("X");
    CHECK(x.type == DType::Real);
    CHECK(x.dims == std::vector<std::int64_t>{2, 3});
    CHECK(x.reals == std::vector<double>{1, 4, 2, 5, 3, 6});
    CHECK(x.as_matrix()(1, 2) == 6);
    // the same matrix in Fortran order is stored column-major already
    const fs::path f = write_npy<double>("F.npy", "<f8", "(2, 3)", {1, 4, 2, 5, 3, 6}, true);
    CHECK(read_data(f).at("F").reals == std::vector<double>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("npy: every element type, three dimensions, version 2, the name rule", "[io][npy]") {
    CHECK(read_data(write_npy<float>("a.npy", "<f4", "(3,)", {0.5f, -1.25f, 2})).at("a").reals ==
          std::vector<double>{0.5, -1.25, 2});
    const DataValue i8 =
        read_data(write_npy<std::int64_t>("n.npy", "<i8", "(2,)", {7, -3})).at("n");
    CHECK(i8.type == DType::Int);
    CHECK(i8.ints == std::vector<int>{7, -3});
    CHECK(read_data(write_npy<std::int32_t>("k.npy", "<i4", "(2,)", {1, 2})).at("k").ints ==
          std::vector<int>{1, 2});
    CHECK(read_data(write_npy<std::uint8_t>("b.npy", "|b1", "(3,)", {1, 0, 1})).at("b").ints ==
          std::vector<int>{1, 0, 1});
    // a 0-d array is a scalar
    const DataValue s = read_data(write_npy<std::int64_t>("N.npy", "<i8", "()", {42})).at("N");
    CHECK(s.is_scalar());
    CHECK(s.as_int() == 42);
    // (2, 2, 2) in C order: element [i][j][k] = 100 i + 10 j + k; Stan's order is i fastest
    std::vector<double> c;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 2; ++k) c.push_back(100 * i + 10 * j + k);
    const DataValue cube =
        read_data(write_npy<double>("cube.npy", "<f8", "(2, 2, 2)", c)).at("cube");
    CHECK(cube.reals == std::vector<double>{0, 100, 10, 110, 1, 101, 11, 111});
    // format version 2 (a four-byte header length); the prefix before the last dot is dropped
    CHECK(
        read_data(write_npy<double>("big.v.npy", "<f8", "(2,)", {3, 4}, false, 2)).at("v").reals ==
        std::vector<double>{3, 4});
}

TEST_CASE("npy: a large array stays mapped and reads the same", "[io][npy]") {
    const std::int64_t rows = 40000, cols = 2;  // 80000 elements >= kMappedElements
    std::vector<double> v;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) v.push_back(static_cast<double>(r) + 0.5 * c);
    const fs::path p = write_npy<double>("Y.npy", "<f8", fmt::format("({}, {})", rows, cols), v);
    const DataTable mapped = read_data(p, true);
    const DataValue& m = mapped.at("Y");
    REQUIRE(m.mapped != nullptr);
    CHECK(m.reals.empty());
    CHECK(m.size() == static_cast<std::size_t>(rows * cols));
    CHECK(m.mapped->real_at(m.mapped->storage_index(123, 1)) == 123.5);
    DataValue copy = m;
    copy.materialize();
    CHECK(copy.mapped == nullptr);
    const DataTable copied = read_data(p);  // not kept mapped: copied
    const DataValue& read = copied.at("Y");
    CHECK(read.mapped == nullptr);
    CHECK(copy.reals == read.reals);
    CHECK(read.reals[static_cast<std::size_t>(rows + 7)] == 7.5);  // (7, 1), column-major
}

TEST_CASE("npy: malformed files are refused by name", "[io][npy]") {
    const auto refused = [](const fs::path& p, const std::string& why) {
        CHECK_THROWS_WITH(read_data(p), Contains(p.filename().string()) && Contains(why));
    };
    refused(write_npy<double>("big_endian.npy", ">f8", "(1,)", {1}), "element type '>f8'");
    refused(write_npy<double>("strings.npy", "<U3", "(1,)", {1}), "element type '<U3'");
    refused(write_npy<double>("short.npy", "<f8", "(4,)", {1, 2}), "needs 32 bytes");
    refused(write_npy<double>("1bad.npy", "<f8", "(1,)", {1}), "not a Stan variable name");
    const fs::path text = scratch() / "text.npy";
    std::ofstream(text) << "N,y\n1,2\n3,4\n5,6\n";
    refused(text, "no \\x93NUMPY magic");
    refused(write_npy<std::int64_t>("wide.npy", "<i8", "(1,)", {std::int64_t{1} << 40}),
            "beyond Stan's 32-bit ints");
    CHECK_THROWS_AS(read_data(scratch() / "missing.npy"), DataError);
}

}  // namespace advi
