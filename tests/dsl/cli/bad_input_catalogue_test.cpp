// The catalogue of bad input (issue 8): one table, each row an input a user might hand us and
// the fragment its message must contain. Every row goes through the library as a program would
// (parse, read data, lower, fit) and through the `advi` tool as a user would (`advi fit`); both
// must end in that message, the tool with status 1, one error line (plus the source line and a
// caret when the error has a position), no crash and no output file.
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/cli_runner.hpp"

namespace fs = std::filesystem;
using namespace advi::test;

namespace {

// What a row's file is: text to write, nothing (a missing file), a directory, or a path that
// exists but cannot be read.
struct File {
    enum class Kind { Text, Missing, Directory, Unreadable } kind = Kind::Text;
    std::string text;
};
File text(std::string t) {
    return {File::Kind::Text, std::move(t)};
}
const File kMissing{File::Kind::Missing, ""};
const File kDirectory{File::Kind::Directory, ""};
const File kUnreadable{File::Kind::Unreadable, ""};

struct BadInput {
    std::string fault;      // the class of bad input, as the issue names it
    File model;             // written as m.stan
    std::string data_name;  // the data file's name ("" for no data), by extension its format
    File data;
    std::string fragment;    // what the message must contain
    bool full_rank = false;  // `--algorithm fullrank`
};

// A model whose data have every kind of declaration the rows below break.
const char* kModel = R"(data {
  int<lower=0> N;
  vector[N] y;
  real<lower=0> s;
  simplex[3] w;
}
parameters {
  real mu;
}
model {
  y ~ normal(mu, s);
}
)";

std::string json(const std::string& n, const std::string& y, const std::string& s) {
    return R"({"N": )" + n + R"(, "y": )" + y + R"(, "s": )" + s + R"(, "w": [0.2, 0.3, 0.5]})";
}
const std::string kGoodJson = json("3", "[1.5, 2.5, 3.5]", "1");

std::string with_param(const std::string& decl, const std::string& use) {
    return "parameters { " + decl + " }\nmodel { " + use + " }\n";
}

// A parameter whose size is the data's N.
std::string sized_param(const std::string& decl, const std::string& use) {
    return "data { int N; }\n" + with_param(decl, use);
}

std::string repeat(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
}

std::vector<BadInput> catalogue() {
    const std::string deep = repeat("(", 100000) + "mu" + repeat(")", 100000);
    const std::string long_name(100000, 'a');
    return {
  // Syntax errors, one of each class of the grammar.
  // clang-format off
        {"syntax: missing `;`", text("parameters {\n  real mu\n}\n"), "", {}, "m.stan:2:10: expected `;`"},
        {"syntax: unbalanced parentheses", text("model { target += (1 + 2; }"), "", {}, "expected `)`"},
        {"syntax: unbalanced braces", text("model {\n  target += 1;\n"), "", {}, "expected `}`"},
        {"syntax: missing operand", text("model { target += 1 + ; }"), "", {}, "expected an expression"},
        {"syntax: not a statement", text("model { 1 + 2; }"), "", {}, "this expression is not a statement"},
        {"syntax: unknown block", text("paramters { real mu; }"), "", {}, "unknown block `paramters`"},
        {"syntax: blocks out of order", text("model { }\nparameters { real mu; }"), "", {},
         "m.stan:2:1: the `parameters` block"},
        {"syntax: unknown type", text("data { integer N; }"), "", {}, "expected a type"},
        {"syntax: stray character", text("model { target += 1 @ 2; }"), "", {}, "unexpected character `@`"},
        {"syntax: unterminated comment", text("model { /* target += 1; }"), "", {}, "comment"},
        {"syntax: malformed number", text("model { target += 1e; }"), "", {}, "m.stan:1:19: malformed number `1e`"},
        {"syntax: unterminated string", text("model { print(\"abc); }"), "", {}, "m.stan:1:15: unterminated string"},
        {"syntax: reserved word as a name", text("parameters { real for; }"), "", {},
         "`for` is a reserved word; it cannot be used as a name"},
        {"syntax: integer literal too large", text("model { target += 3000000000; }"), "", {},
         "integer literal 3000000000 is too large"},
        {"syntax: unsupported feature", text("parameters { complex z; }"), "", {}, "complex numbers are not supported"},
        {"syntax: #include", text("#include \"other.stan\"\n"), "", {}, "#include is not supported"},
        {"recursive function", text("functions { real f(real x) { return f(x); } }\n" + with_param("real y;", "y ~ normal(f(1), 1);")),
         "", {}, "`f` calls itself: recursive functions are not supported"},
        {"syntax: removed Stan syntax", text("model { real x; x <- 3; }"), "", {},
         "the assignment `<-` was removed from Stan; use `=`"},
        // Names and types the program gets wrong.
        {"unknown identifier", text("model { x ~ normal(0, 1); }"), "", {}, "m.stan:1:9: unknown identifier `x`"},
        {"unknown function", text(with_param("real mu;", "target += fnord(mu);")), "", {},
         "unknown function `fnord`"},
        {"unknown distribution", text(with_param("real mu;", "mu ~ nromal(0, 1);")), "", {},
         "unknown distribution `nromal`"},
        {"wrong type", text(with_param("real mu;", "int k = mu;")), "", {}, "`k` is declared int; cannot assign real"},
        {"wrong shape in the program (expected and actual)",
         text(with_param("vector[3] v;", "vector[2] z = v;")), "", {}, "`z` is declared vector[2]; cannot assign vector[3]"},
        {"log density not finite anywhere q looks", text(with_param("real x;", "target += log(x - 1e6);")), "", {},
         "op `log` gives nan (log of -1e+06), reading latent `x`, in term 1 of 1 of the log density"},
        // Data that do not fit their declarations.
        {"wrong shape of data (expected and actual)", text(kModel), "d.json",
         text(json("3", "[1.5, 2.5]", "1")), "data variable `y`: expected real[3], got real[2]"},
        {"wrong type of data", text(kModel), "d.json", text(json("3.5", "[1.5, 2.5, 3.5]", "1")),
         "data variable `N`: expected int"},
        {"data value violating its bounds", text(kModel), "d.json", text(json("3", "[1.5, 2.5, 3.5]", "-1")),
         "data variable `s`: element 1 is -1, outside the declared bounds [0, inf]"},
        {"data value violating its simplex", text(kModel), "d.json",
         text(R"({"N": 0, "y": [], "s": 1, "w": [0.5, 0.5, 0.5]})"), "m.stan:5:14: data variable `w` is not a simplex: it sums to 1.5"},
        {"NaN in data (JSON)", text(kModel), "d.json", text(json("3", R"([1.5, "NaN", 3.5])", "1")),
         "m.stan:3:13: data variable `y`: element 2 is NaN"},
        {"infinity in data (JSON)", text(kModel), "d.json", text(json("3", "[1.5, 2.5, 3.5]", R"("Infinity")")),
         "data variable `s`: element 1 is inf"},
        {"NaN in data (R dump)", text(kModel), "d.R",
         text("N <- 3\ny <- c(1.5, NaN, 3.5)\ns <- 1\nw <- c(0.2, 0.3, 0.5)\n"),
         "data variable `y`: element 2 is NaN"},
        {"infinity in data (R dump)", text(kModel), "d.R",
         text("N <- 3\ny <- c(1.5, 2.5, -Inf)\ns <- 1\nw <- c(0.2, 0.3, 0.5)\n"),
         "data variable `y`: element 3 is -inf"},
        {"missing data variable", text(kModel), "d.json", text(R"({"N": 3, "y": [1.5, 2.5, 3.5]})"),
         "m.stan:4:17: data variable `s` is missing from the data"},
        {"no data at all", text(kModel), "", {}, "data variable `N` is missing from the data"},
        {"empty data file (JSON)", text(kModel), "d.json", text(""), "d.json:1:1: expected `{`"},
        {"empty data object", text(kModel), "d.json", text("{}"), "data variable `N` is missing"},
        {"empty array for a sized vector", text(kModel), "d.json", text(json("3", "[]", "1")),
         "data variable `y`: expected real[3]"},
        {"empty model", text(""), "", {}, "the model has no parameters"},
        // A declared constraint that no draw meets (issue 17, class 3): every draw is rejected.
        {"transformed parameter that can never meet its declared constraint",
         text("parameters { vector[3] a; }\ntransformed parameters { simplex[3] s = a; }\nmodel { a ~ normal(0.3, 0.3); }\n"),
         "", {}, "transformed parameter `s` is not a simplex"},
        // Sizes that overflow or need more memory than any machine has, refused before allocating.
        {"size product overflowing int64", text(sized_param("array[N, N, N] real x;", "")), "d.json",
         text(R"({"N": 2000000000})"), "the number of elements overflows"},
        {"size needing more memory than the machine has", text(sized_param("matrix[N, N] x;", "")), "d.json",
         text(R"({"N": 2000000000})"), "more than this machine's"},
        {"full-rank covariance needing more memory than the machine has",
         text(sized_param("vector[N] x;", "x ~ normal(0, 1);")), "d.json", text(R"({"N": 200000000})"),
         "the full-rank approximation of 200000000 dimensions needs", true},
        {"nested loops whose values need more than a vector holds or the memory",
         text(with_param("real mu;", "for (i in 1:100000) for (j in 1:100000) target += -0.5 * square(mu - i * j);")),
         "", {}, "the loop over `j` (100000 iterations in 100000 of the enclosing loops)"},
        {"R dump .Dim overflowing", text(kModel), "d.R",
         text("y <- structure(c(1, 2), .Dim = c(2000000000, 2000000000, 2000000000))\n"), ".Dim"},
        {"R dump integer out of range", text(kModel), "d.R", text("N <- 1:3000000000\n"),
         "out of range for a Stan int"},
        // Files that are missing, unreadable or cut short.
        {"missing model file", kMissing, "", {}, "m.stan`: No such file or directory"},
        {"missing data file", text(kModel), "d.json", kMissing, "d.json`: No such file or directory"},
        {"model file that is a directory", kDirectory, "", {}, "it is a directory"},
        {"data file that is a directory", text(kModel), "d.json", kDirectory, "Is a directory"},
        {"unreadable model file", kUnreadable, "", {}, "cannot read model file"},
        {"unreadable data file", text(kModel), "d.json", kUnreadable, "d.json"},
        {"truncated model", text(std::string(kModel).substr(0, 60)), "", {}, "expected `}`"},
        {"truncated JSON", text(kModel), "d.json", text(kGoodJson.substr(0, 25)), "got end of file"},
        {"truncated R dump", text(kModel), "d.R", text("N <- 3\ny <- c(1.5, 2.5"), "got end of file"},
        {"truncated CSV", text(kModel), "d.csv", text("N,y.1,y.2,y.3,s,w.1,w.2,w.3\n3,1.5,2.5"),
         "d.csv:2:"},
        // Pathological text.
        {"deeply nested expression", text(with_param("real mu;", "target += " + deep + ";")), "", {},
         "nesting too deep"},
        {"very long line", text(with_param("real mu;", repeat("target += mu; ", 100000) + "target += mu mu;")), "",
         {}, "m.stan:2:1400022: expected `;`"},
        {"very long expression", text(with_param("real mu;", "target += mu" + repeat(" + mu", 200000) + ";")), "",
         {}, "expression too deeply nested (more than 1000 levels of operators)"},
        {"very long identifier", text(with_param("real mu;", "target += " + long_name + ";")), "", {},
         "unknown identifier `aaaa"},
        {"bytes that are not UTF-8 in the program", text("model { real x\xff = 1; }"), "", {},
         "m.stan:1:15: a byte that is not UTF-8 (0xff)"},
        {"bytes that are not UTF-8 in a JSON name", text(kModel), "d.json",
         text("{\"N\xc3\": 3}"), "d.json:1:4: a byte that is not UTF-8 (0xc3)"},
        {"bytes that are not UTF-8 in an R dump", text(kModel), "d.R", text("N\xfe <- 3\n"),
         "d.R:1:2: expected `<-` after the name `N`, got a byte that is not UTF-8 (0xfe)"},
  // clang-format on
    };
}

// Writes `f` at `path` (or makes it a directory, or leaves it missing).
void materialise(const fs::path& path, const File& f) {
    std::error_code ec;
    fs::remove_all(path, ec);
    switch (f.kind) {
        case File::Kind::Text: std::ofstream(path, std::ios::binary) << f.text; break;
        case File::Kind::Missing: break;
        case File::Kind::Directory: fs::create_directory(path); break;
        case File::Kind::Unreadable:
            // A file that opens but cannot be read: /proc/self/mem fails every read at offset 0,
            // even for root (for whom permission bits do not stop a read).
            fs::create_symlink("/proc/self/mem", path);
            break;
    }
}

// The row through the library, as a program calls it; the message of the error, or nothing.
std::optional<std::string> library_error(const BadInput& row, const fs::path& model,
                                         const fs::path& data) {
    if (row.model.kind != File::Kind::Text)
        return std::nullopt;  // reading the model file is the tool's part (dsl/advi/cli/load.cpp)
    try {
        std::ifstream in(model, std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        const advi::stan::Program program = advi::stan::parse_program(s.str(), "m.stan");
        const advi::DataTable table =
            row.data_name.empty() ? advi::DataTable{} : advi::read_data(data);
        const auto lowered = advi::stan::lower(program, table);
        advi::Options options;
        options.family = row.full_rank ? advi::Family::FullRank : advi::Family::MeanField;
        options.max_iterations = 100;
        options.output_samples = 10;
        (void)advi::fit(lowered->model().spec(), options);
    } catch (const advi::Error& e) {
        return std::string(e.what());
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("catalogue of bad input: each row ends in a message that names the fault",
          "[cli][catalogue]") {
    const fs::path dir = scratch() / "catalogue";
    fs::create_directories(dir);
    for (const BadInput& row : catalogue()) {
        INFO("row: " << row.fault << "\nexpected: " << row.fragment);
        const fs::path model = dir / "m.stan",
                       data = dir / (row.data_name.empty() ? "none" : row.data_name),
                       output = dir / "out.csv";
        materialise(model, row.model);
        if (!row.data_name.empty())
            materialise(data, row.data);
        fs::remove(output);

        // The library: an advi::Error with the fragment (the model file is read by the tool).
        if (const auto message = library_error(row, model, data)) {
            INFO("library: " << message->substr(0, 2000));
            CHECK(contains(*message, row.fragment));
        }

        if (!cli_built())
            continue;
        std::string args = "fit catalogue/m.stan --output catalogue/out.csv --iter 100";
        if (!row.data_name.empty())
            args += " --data catalogue/" + row.data_name;
        if (row.full_rank)
            args += " --algorithm fullrank";
        const Run r = tool(args);
        const std::vector<std::string> l = lines(r.err);
        INFO("tool: status " << r.status << ", stderr:\n" << r.err.substr(0, 2000));
        CHECK(r.status == 1);
        REQUIRE(!l.empty());
        CHECK(l[0].rfind("advi: error: ", 0) == 0);
        CHECK(contains(l[0], row.fragment));
        // One line, or one line with the source line and a caret under the column.
        CHECK((l.size() == 1 || (l.size() == 3 && contains(l[2], "^"))));
        // Lines stay readable, however long the input's.
        for (const std::string& line : l) CHECK(line.size() < 400);
        CHECK(!fs::exists(output));
    }
}
