// DataValue and DataTable: shapes in messages, accessors and their shape errors, column-major
// storage, empty arrays of unknown type, merging with duplicate names.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/io/data_table.hpp>

namespace advi {
namespace {

DataValue real_value(std::string name, std::vector<std::int64_t> dims, std::vector<double> v) {
    DataValue d;
    d.name = std::move(name);
    d.type = DType::Real;
    d.dims = std::move(dims);
    d.reals = std::move(v);
    d.source = "test";
    return d;
}

DataValue int_value(std::string name, std::vector<std::int64_t> dims, std::vector<int> v) {
    DataValue d;
    d.name = std::move(name);
    d.dims = std::move(dims);
    d.ints = std::move(v);
    d.source = "test";
    return d;
}

}  // namespace

TEST_CASE("describe_shape writes int, real[3], real[2,3]", "[io]") {
    const std::vector<std::int64_t> none, three{3}, two_three{2, 3}, empty{0};
    CHECK(describe_shape(DType::Int, none) == "int");
    CHECK(describe_shape(DType::Real, none) == "real");
    CHECK(describe_shape(DType::Real, three) == "real[3]");
    CHECK(describe_shape(DType::Int, two_three) == "int[2,3]");
    CHECK(describe_shape(DType::Int, empty, true) == "empty[0]");
}

TEST_CASE("scalar accessors: an int reads as real, not the reverse", "[io]") {
    const DataValue n = int_value("N", {}, {5});
    const DataValue s = real_value("s", {}, {2.5});
    CHECK(n.as_int() == 5);
    CHECK(n.as_real() == 5.0);
    CHECK(s.as_real() == 2.5);
    CHECK_THROWS_WITH(s.as_int(), "data variable `s`: expected int, got real");
    const DataValue y = real_value("y", {3}, {1, 2, 3});
    CHECK_THROWS_WITH(y.as_real(), "data variable `y`: expected real, got real[3]");
    CHECK_THROWS_AS(y.as_int(), DataError);
}

TEST_CASE("a matrix is stored column-major: element (i, j) at i + R j", "[io]") {
    // The 2 x 3 matrix [[1, 2, 3], [4, 5, 6]].
    const DataValue m = real_value("m", {2, 3}, {1, 4, 2, 5, 3, 6});
    const Eigen::MatrixXd a = m.as_matrix();
    REQUIRE(a.rows() == 2);
    REQUIRE(a.cols() == 3);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) CHECK(a(i, j) == 3 * i + j + 1);
    CHECK(m.matrix_map() == a);
    CHECK_THROWS_WITH(m.as_vector(),
                      "data variable `m`: expected a vector (real[n]), got real[2,3]");
    const DataValue k = int_value("k", {2, 2}, {1, 2, 3, 4});
    CHECK(k.as_int_matrix()(0, 1) == 3);
    CHECK(k.as_matrix()(1, 0) == 2.0);
    CHECK_THROWS_WITH(k.matrix_map(), "data variable `k`: expected real[r,c], got int[2,2]");
}

TEST_CASE("vector accessors convert ints and check the rank", "[io]") {
    const DataValue y = int_value("y", {3}, {1, 2, 3});
    CHECK(y.as_vector() == Eigen::Vector3d(1, 2, 3));
    CHECK(y.as_int_vector() == Eigen::Vector3i(1, 2, 3));
    CHECK_THROWS_WITH(y.vector_map(), "data variable `y`: expected real[n], got int[3]");
    const DataValue x = real_value("x", {3}, {0.5, 1.5, 2.5});
    CHECK(x.vector_map()[2] == 2.5);
    CHECK_THROWS_WITH(x.as_int_vector(), "data variable `x`: expected int[n], got real[3]");
    CHECK_THROWS_WITH(x.as_matrix(),
                      "data variable `x`: expected a matrix (real[r,c]), got real[3]");
}

TEST_CASE("push_real promotes the values read so far", "[io]") {
    DataValue v;
    v.name = "v";
    v.push_int(1);
    v.push_int(2);
    CHECK(v.is_int());
    v.push_real(2.5);
    v.push_int(3);
    CHECK_FALSE(v.is_int());
    CHECK(v.ints.empty());
    CHECK(v.reals == std::vector<double>{1, 2, 2.5, 3});
}

TEST_CASE("check compares the declared type and dims", "[io]") {
    const std::vector<std::int64_t> hundred{100}, ninety_nine{99}, none;
    const DataValue y = real_value("y", {99}, std::vector<double>(99, 1.0));
    CHECK_NOTHROW(y.check(DType::Real, ninety_nine));
    CHECK_THROWS_WITH(y.check(DType::Real, hundred),
                      "data variable `y`: expected real[100], got real[99]");
    CHECK_THROWS_WITH(y.check(DType::Int, ninety_nine),
                      "data variable `y`: expected int[99], got real[99]");
    const DataValue n = int_value("n", {}, {3});
    CHECK_NOTHROW(n.check(DType::Real, none));  // an int fits a real
}

TEST_CASE("an empty array of unknown type fits either type and any empty shape", "[io]") {
    DataValue e;
    e.name = "e";
    e.dims = {0};
    e.type_unknown = true;
    const std::vector<std::int64_t> zero{0}, zero_by_three{0, 3}, three{3}, two_zero{2, 0};
    CHECK_NOTHROW(e.check(DType::Int, zero));
    CHECK_NOTHROW(e.check(DType::Real, zero));
    CHECK_NOTHROW(e.check(DType::Real, zero_by_three));  // JSON's `[]` for a 0 x 3 matrix
    CHECK_THROWS_WITH(e.check(DType::Real, three),
                      "data variable `e`: expected real[3], got empty[0]");
    CHECK_THROWS_AS(e.check(DType::Real, two_zero), DataError);
    CHECK(e.as_vector().size() == 0);
    CHECK(e.as_int_vector().size() == 0);
    CHECK(e.as_matrix().size() == 0);
    DataValue rows;  // [[], []]: two empty rows
    rows.name = "rows";
    rows.dims = {2, 0};
    rows.type_unknown = true;
    CHECK_NOTHROW(rows.check(DType::Int, two_zero));
    const std::vector<std::int64_t> two_zero_five{2, 0, 5};
    CHECK_NOTHROW(rows.check(DType::Real, two_zero_five));
    CHECK(rows.as_matrix().rows() == 2);
    CHECK(rows.as_matrix().cols() == 0);
}

TEST_CASE("row_major_to_column_major transposes a 2x3 and a 2x3x4 array", "[io]") {
    std::vector<int> m{1, 2, 3, 4, 5, 6};  // rows [1 2 3], [4 5 6]
    const std::vector<std::int64_t> d23{2, 3};
    row_major_to_column_major(m, d23);
    CHECK(m == std::vector<int>{1, 4, 2, 5, 3, 6});

    // Element (i, j, k) holds 100 i + 10 j + k; row-major position 12 i + 4 j + k.
    const std::vector<std::int64_t> d234{2, 3, 4};
    std::vector<double> a(24);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k) a[12 * i + 4 * j + k] = 100 * i + 10 * j + k;
    row_major_to_column_major(a, d234);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k) CHECK(a[i + 2 * j + 6 * k] == 100 * i + 10 * j + k);
}

TEST_CASE("DataTable keeps insertion order and names what is missing", "[io]") {
    DataTable t;
    t.add(int_value("N", {}, {3}));
    t.add(real_value("y", {3}, {1, 2, 3}));
    t.add(int_value("a", {}, {1}));
    CHECK(t.names() == std::vector<std::string>{"N", "y", "a"});
    CHECK(t.size() == 3);
    CHECK(t.contains("y"));
    CHECK(t.find("x") == nullptr);
    CHECK(t.at("N").as_int() == 3);
    CHECK_THROWS_WITH(t.at("x"), "data variable `x` is missing");
    CHECK(t.str() == "N int = 3\ny real[3]\na int = 1\n");
}

TEST_CASE("merging tables names both sources of a duplicate", "[io]") {
    DataTable a, b;
    DataValue n1 = int_value("N", {}, {3});
    n1.source = "a.json:2:3";
    DataValue n2 = int_value("N", {}, {4});
    n2.source = "b.R:1:1";
    a.add(std::move(n1));
    b.add(real_value("y", {1}, {0.5}));
    b.add(std::move(n2));
    CHECK_THROWS_WITH(merge_tables({a, b}),
                      "data variable `N` is given twice: at a.json:2:3 and at b.R:1:1");
    DataTable c;
    c.add(real_value("z", {}, {1.0}));
    const DataTable m = merge_tables({a, c});
    CHECK(m.names() == std::vector<std::string>{"N", "z"});
}

}  // namespace advi
