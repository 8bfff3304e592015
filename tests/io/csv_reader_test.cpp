// CSV: data columns as vectors, Stan's flattened names gathered into arrays, CmdStan's output
// CSV with its comments, every error with its file:line:col, real files of the shared data.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/csv_reader.hpp>

#include "support/error_message.hpp"

#include <unistd.h>

namespace advi {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

DataTable csv(std::string_view text) {
    return read_csv_data(text, "d.csv");
}

std::string csv_error(std::string_view text) {
    return test::error_message<ParseError>([&] { (void)csv(text); }, "no ParseError");
}

std::string stan_csv_error(std::string_view text) {
    return test::error_message<ParseError>([&] { (void)read_stan_csv(text, "out.csv"); },
                                           "no ParseError");
}

}  // namespace

TEST_CASE("CSV data: a vector per column, int when every value is an integer", "[io]") {
    const DataTable t = csv("\"n\",x,\"mixed\"\n1,0.5,1\n2,1.0,2.5\n-3,2e1,3\n");
    CHECK(t.names() == std::vector<std::string>{"n", "x", "mixed"});
    CHECK(t.at("n").is_int());
    CHECK(t.at("n").dims == std::vector<std::int64_t>{3});
    CHECK(t.at("n").ints == std::vector<int>{1, 2, -3});
    CHECK_FALSE(t.at("x").is_int());
    CHECK(t.at("x").reals == std::vector<double>{0.5, 1.0, 20.0});
    CHECK_FALSE(t.at("mixed").is_int());
    CHECK(t.at("mixed").reals == std::vector<double>{1, 2.5, 3});
    CHECK(t.at("x").source == "d.csv:1:5");
}

TEST_CASE("CSV data: CRLF, blank lines, spaces, quoted numbers, special values", "[io]") {
    const DataTable t = csv("a, b\r\n1, NaN\r\n\r\n\"2\",  -Inf \r\n3,inf\r\n");
    CHECK(t.at("a").ints == std::vector<int>{1, 2, 3});
    const std::vector<double>& b = t.at("b").reals;
    REQUIRE(b.size() == 3);
    CHECK(std::isnan(b[0]));
    CHECK(b[1] == -std::numeric_limits<double>::infinity());
    CHECK(b[2] == std::numeric_limits<double>::infinity());
}

TEST_CASE("CSV data: Excel's byte order mark is not part of the first name", "[io]") {
    CHECK(csv("\xEF\xBB\xBF\"a\",b\n1,2\n").names() == std::vector<std::string>{"a", "b"});
}

TEST_CASE("CSV data: a header without rows gives empty columns of unknown type", "[io]") {
    const DataTable t = csv("a,X.1,X.2\n");
    CHECK(t.at("a").dims == std::vector<std::int64_t>{0});
    CHECK(t.at("a").type_unknown);
    CHECK(t.at("X").dims == std::vector<std::int64_t>{0, 2});
    CHECK(t.at("X").type_unknown);
}

TEST_CASE("CSV data: columns X.1 .. X.K gather into a rows x K matrix", "[io]") {
    // X.j holds 10 n + j in row n (1-based both).
    std::string text = "y,X.1,X.2,X.3\n";
    for (int n = 1; n <= 4; ++n)
        text += fmt::format("{},{},{},{}\n", n * 0.5, 10 * n + 1, 10 * n + 2, 10 * n + 3);
    const DataTable t = csv(text);
    CHECK(t.names() == std::vector<std::string>{"y", "X"});
    const DataValue& X = t.at("X");
    CHECK(X.is_int());
    REQUIRE(X.dims == std::vector<std::int64_t>{4, 3});
    const Eigen::MatrixXi m = X.as_int_matrix();
    for (int n = 0; n < 4; ++n)
        for (int j = 0; j < 3; ++j) CHECK(m(n, j) == 10 * (n + 1) + j + 1);
    CHECK(X.source == "d.csv:1:3");
}

TEST_CASE("CSV data: columns A.i.j in any order gather into rows x I x J", "[io]") {
    // A 2 x 3 array per row, columns shuffled; A.i.j holds 100 n + 10 i + j, and one column is
    // real so that the whole array is real.
    const std::vector<std::pair<int, int>> order{
        {2, 3},
        {1, 1},
        {1, 3},
        {2, 1},
        {1, 2},
        {2, 2}
    };
    std::string text = "n";
    for (auto [i, j] : order) text += fmt::format(",A.{}.{}", i, j);
    text += "\n";
    for (int n = 1; n <= 3; ++n) {
        text += fmt::format("{}", n);
        for (auto [i, j] : order)
            text += (i == 2 && j == 2) ? fmt::format(",{}.0", 100 * n + 10 * i + j)
                                       : fmt::format(",{}", 100 * n + 10 * i + j);
        text += "\n";
    }
    const DataTable t = csv(text);
    const DataValue& A = t.at("A");
    REQUIRE(A.dims == std::vector<std::int64_t>{3, 2, 3});
    CHECK_FALSE(A.is_int());
    for (int n = 0; n < 3; ++n)
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j)
                CHECK(A.reals[n + 3 * i + 6 * j] == 100 * (n + 1) + 10 * (i + 1) + (j + 1));
    // A dotted name whose suffix is not a number is a column of its own.
    CHECK(csv("log.radon,v.2a\n1,2\n").names() == std::vector<std::string>{"log.radon", "v.2a"});
}

TEST_CASE("CSV data: gathered columns must make a complete array", "[io]") {
    // Found by fuzzing (fuzz/regressions/csv_data): sizes whose product overflows int64 were
    // signed overflow; they are refused by name.
    CHECK_THAT(csv_error("X.1.1.1,X.2000000000.2000000000.2000000000\n1,2\n"),
               StartsWith("d.csv:1:1: columns of `X`: the largest indices make it 2000000000 x "
                          "2000000000 x 2000000000, more elements than its 2 columns"));
    CHECK_THAT(csv_error("X.1,X.3\n1,2\n"),
               StartsWith("d.csv:1:1: columns of `X`: `X.2` is missing (the largest indices make "
                          "it 3)"));
    CHECK_THAT(csv_error("A.1.1,A.2.1,A.1.2\n1,2,3\n"),
               StartsWith("d.csv:1:1: columns of `A`: `A.2.2` is missing (the largest indices "
                          "make it 2 x 2)"));
    CHECK_THAT(
        csv_error("X.1,X.2.1\n1,2\n"),
        StartsWith("d.csv:1:5: column `X.2.1`: `X` also has columns with 1 indices (`X.1`)"));
    CHECK_THAT(csv_error("X,X.1\n1,2\n"),
               StartsWith("d.csv:1:3: column `X.1`: `X` is both a column and the array of columns "
                          "`X.1`"));
    CHECK_THAT(csv_error("X.1,X\n1,2\n"),
               StartsWith("d.csv:1:5: column `X`: `X` is both a column"));
    CHECK_THAT(csv_error("X.0,X.1\n1,2\n"),
               StartsWith("d.csv:1:1: column `X.0`: indices start at 1"));
    CHECK_THAT(csv_error("X.1,X.01\n1,2\n"),
               StartsWith("d.csv:1:5: column `X.01`: the same element "
                          "as `X.1`"));
}

TEST_CASE("CSV data errors name file:line:col", "[io]") {
    CHECK_THAT(csv_error(""), StartsWith("d.csv:1:1: empty file: expected a header line of column "
                                         "names"));
    CHECK_THAT(csv_error("\n\n"), StartsWith("d.csv:3:1: empty file"));
    CHECK_THAT(csv_error("a,b,c,d,e\n" + std::string(16, '\n') + "1,2,3,4\n"),
               StartsWith("d.csv:18:8: row 1 has 4 fields, the header has 5"));
    std::string rows = "a,b\n";
    for (int i = 0; i < 16; ++i) rows += "1,2\n";
    CHECK_THAT(csv_error(rows + "1,2,3,4\n"),
               StartsWith("d.csv:18:5: row 17 has 4 fields, the header has 2"));
    CHECK_THAT(csv_error("a,b\n1,x\n"), StartsWith("d.csv:2:3: column `b`: expected a number, got "
                                                   "`x`"));
    CHECK_THAT(csv_error("a,b\n1,\n"),
               StartsWith("d.csv:2:3: column `b`: an empty field (a missing "
                          "value); Stan data cannot be missing"));
    CHECK_THAT(csv_error("a,b\n\"x\",1\n"), StartsWith("d.csv:2:1: column `a`: expected a number, "
                                                       "got `x`"));
    CHECK_THAT(csv_error("a,b\n1,\"2\n"), StartsWith("d.csv:2:3: unterminated quoted field"));
    CHECK_THAT(csv_error("a,b\n\"1\"x,2\n"), StartsWith("d.csv:2:4: expected `,` or a line break "
                                                        "after a quoted field, got `x`"));
    CHECK_THAT(csv_error("\"\",a\n1,2\n"), StartsWith("d.csv:1:1: column 1 has no name (R's row "
                                                      "names? write the file with row.names = "
                                                      "FALSE)"));
    CHECK_THAT(csv_error("a,b,a\n1,2,3\n"), StartsWith("d.csv:1:5: duplicate column `a`"));
    CHECK_THAT(csv_error("a\n3000000000\n"), StartsWith("d.csv:2:1: column `a`: the integer "
                                                        "3000000000 is out of range for a Stan int "
                                                        "(32-bit)"));
}

TEST_CASE("CmdStan output CSV: comments in order, header, rows", "[io]") {
    const std::string text =
        "# model = bernoulli_model\n"
        "# method = variational\n"
        "lp__,log_p__,log_g__,theta,z.1,z.2\n"
        "# Adaptation terminated\n"
        "# Stepsize = 1\n"
        "0,0,0,0.25,1.5,-2\n"
        "0,-7.1,-0.5,0.2,nan,inf\n"
        "0,-6.9,-1.5e-1,0.3,-inf,3\n"
        "# \n"
        "#  Elapsed Time: 0.01 seconds\n";
    const StanCsv out = read_stan_csv(text, "out.csv");
    CHECK(out.comments == std::vector<std::string>{"# model = bernoulli_model",
                                                   "# method = variational",
                                                   "# Adaptation terminated", "# Stepsize = 1",
                                                   "# ", "#  Elapsed Time: 0.01 seconds"});
    CHECK(out.columns ==
          std::vector<std::string>{"lp__", "log_p__", "log_g__", "theta", "z.1", "z.2"});
    REQUIRE(out.values.rows() == 3);
    REQUIRE(out.values.cols() == 6);
    CHECK(out.values(0, 3) == 0.25);  // the first row is the mean
    CHECK(out.values(2, 2) == -0.15);
    CHECK(std::isnan(out.values(1, 4)));
    CHECK(out.values(1, 5) == std::numeric_limits<double>::infinity());
    CHECK(out.column("theta") == Eigen::Vector3d(0.25, 0.2, 0.3));
    CHECK(out.column_index("z.2") == 5);
    CHECK(out.column_index("nope") == -1);
    CHECK_THROWS_WITH(out.column("nope"), "column `nope` is not in the CSV file");
}

TEST_CASE("CmdStan output CSV errors", "[io]") {
    CHECK_THAT(stan_csv_error("# only comments\n"), StartsWith("out.csv:2:1: empty file"));
    CHECK_THAT(stan_csv_error("a,b\n1,2\n# c\n3\n"), StartsWith("out.csv:4:2: row 2 has 1 field, "
                                                                "the header has 2"));
    CHECK_THAT(stan_csv_error("a,b\n1,-\n"), StartsWith("out.csv:2:3: column `b`: expected a "
                                                        "number, got `-`"));
}

TEST_CASE("CSV: real files of the shared data", "[io]") {
    const fs::path data = ADVI_SHARED_DATA;
    // ../shared/data sits beside the repository on our machines; a clone elsewhere has none.
    if (!fs::exists(data / "real")) {
        WARN("shared data not found at " << data << ": real-file checks skipped");
        return;
    }
    const DataTable faithful = read_csv_data(data / "real/faithful.csv");
    CHECK(faithful.names() == std::vector<std::string>{"eruptions", "waiting"});
    CHECK(faithful.at("waiting").is_int());
    CHECK(faithful.at("eruptions").dims == std::vector<std::int64_t>{272});
    CHECK(faithful.at("eruptions").reals[0] == 3.6);
    CHECK(faithful.at("waiting").ints[0] == 79);

    const DataTable wells = read_csv_data(data / "real/wells.csv");
    CHECK(wells.at("switch").is_int());
    CHECK(wells.at("switch").dims == std::vector<std::int64_t>{3020});
    CHECK(wells.at("arsenic").reals[0] == 2.36);
    CHECK(wells.at("dist").reals[1] == 47.3219985961914);

    const DataTable images = read_csv_data(data / "real/fashion_mnist_nmf.csv");
    CHECK(images.size() == 560);
    CHECK(images.at("p560").dims == std::vector<std::int64_t>{2000});
    CHECK(images.at("p1").is_int());

    // radon.csv names its counties: strings are not data.
    try {
        (void)read_csv_data(data / "real/radon.csv");
        FAIL("no ParseError");
    } catch (const ParseError& e) {
        CHECK(e.line() == 2);
        CHECK(e.column() == 3);
        CHECK_THAT(e.what(), Contains("column `county`: expected a number, got `AITKIN`"));
    }
}

TEST_CASE("CSV from a file, with a row error shown from the file", "[io]") {
    const fs::path dir = fs::temp_directory_path() / fmt::format("advi_io_csv_{}", ::getpid());
    fs::create_directories(dir);
    const fs::path p = dir / "d.csv";
    std::ofstream(p) << "a,b\n1,2\n3,4,5\n";
    try {
        (void)read_csv_data(p);
        FAIL("no ParseError");
    } catch (const ParseError& e) {
        CHECK(e.what() ==
              fmt::format("{}:3:5: row 2 has 3 fields, the header has 2\n  3,4,5\n      ^",
                          p.string()));
    }
    fs::remove_all(dir);
}

}  // namespace advi
