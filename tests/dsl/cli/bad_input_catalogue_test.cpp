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
    // Option values the row sets (0: the catalogue's defaults), for the tool as
    // `--elbo-samples N` and so on, for the library as the Options fields.
    int elbo_samples = 0;
    int output_samples = 0;
    int grad_samples = 0;
    std::string output{};         // `--output` (the tool only), relative to the scratch directory;
                                  // "" for catalogue/out.csv
    std::string command = "fit";  // or "optimize"
    std::string args{};           // more options (the tool only)
};

// The centred eight schools: as tau -> 0 with every theta = mu the density grows without bound.
const char* kEightSchools = R"(data {
  array[8] real y;
  array[8] real<lower=0> sigma;
}
parameters {
  real mu;
  real<lower=0> tau;
  array[8] real theta;
}
model {
  mu ~ normal(0, 5);
  tau ~ cauchy(0, 5);
  theta ~ normal(mu, tau);
  y ~ normal(theta, sigma);
}
)";
const char* kSchoolsJson = R"({"y": [28, 8, -3, 7, -1, 1, 18, 12],
  "sigma": [15, 10, 16, 11, 9, 11, 10, 18]})";

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

// `int n = EXPR` in transformed data, used by the model.
std::string int_program(const std::string& e) {
    return "transformed data { int n = " + e + "; }\n" +
           with_param("real mu;", "mu ~ normal(n, 1);");
}

// Three integer outcomes y and the parameters of the categorical family.
std::string outcome_program(const std::string& model) {
    return "data { array[3] int y; }\nparameters { simplex[3] theta; ordered[2] c; }\nmodel { " +
           model + " }\n";
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
        {"unsupported library function", text("generated quantities { real o = generate_laplace_options(1).2; }"), "", {}, "`generate_laplace_options` is not supported yet"},
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
        // Ill-typed programs: refused by the type checker before anything is lowered.
        {"wrong number of arguments", text(with_param("real mu;", "mu ~ normal(0, 1, 2, 3);")), "", {},
         "m.stan:2:14: normal takes (reals | reals, reals); got (real | int, int, int, int)"},
        {"user function returns another type than declared",
         text("functions { real f(real x) { return [x]'; } }\n" + with_param("real mu;", "mu ~ normal(f(1), 1);")), "", {},
         "m.stan:1:37: `f` returns real; got vector"},
        {"void function used as a value",
         text("functions { void f(real x) { } }\n" + with_param("real mu;", "mu ~ normal(f(1), 1);")), "", {},
         "m.stan:3:21: `f` is a void function: its call has no value to use"},
        {"non-void function called as a statement",
         text("functions { real f(real x) { return x; } }\n" + with_param("real mu;", "f(mu); mu ~ normal(0, 1);")), "", {},
         "m.stan:3:9: `f` returns real: a function with a value cannot be called as a statement"},
        {"user function named like a built-in",
         text("functions { real exp(real x) { return x; } }\n" + with_param("real mu;", "mu ~ normal(exp(1), 1);")), "", {},
         "m.stan:1:18: `exp` is a built-in function with signature (real) => real; a user function cannot redefine it"},
        {"real argument where a user function declares int",
         text("functions { real f(int k) { return k; } }\n" + with_param("real mu;", "mu ~ normal(f(mu), 1);")), "", {},
         "m.stan:3:21: f takes (int); got (real)"},
        {"parameter-dependent value for a `data` argument of a user function",
         text("functions { real f(data real x) { return x; } }\n" + with_param("real mu;", "mu ~ normal(f(mu), 1);")), "", {},
         "m.stan:3:23: argument `x` of `f` is declared `data`, but the value given depends on parameters"},
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
        // Buffers whose size an option sets (issue 17, class 10), refused before they are made.
        {"--elbo-samples beyond the memory", text(with_param("real mu;", "mu ~ normal(0, 1);")),
         "", {}, "option `elbo_samples` = 2147483647 (the common ELBO draws", false, 2147483647},
        {"--output-samples beyond the memory", text(with_param("vector[1000] b;", "b ~ normal(0, 1);")),
         "", {}, "option `output_samples` = 2147483647", false, 0, 2147483647},
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
        // Integer arithmetic (issue 17): an error naming the expression, never a wrap or SIGFPE.
        {"int overflow: +", text(int_program("2147483647 + 1")), "", {}, "m.stan:1:39: `2147483647 + 1`: 2147483647 + 1 overflows Stan's int"},
        {"int overflow: -", text(int_program("-2147483647 - 2")), "", {}, "`-2147483647 - 2`: -2147483647 - 2 overflows"},
        {"int overflow: *", text(int_program("46341 * 46341")), "", {}, "m.stan:1:34: `46341 * 46341`: 46341 * 46341 overflows"},
        {"int overflow: unary minus", text(int_program("-(-2147483647 - 1)")), "", {}, "-(-2147483648) overflows"},
        {"int overflow: INT_MIN / -1", text(int_program("(-2147483647 - 1) / -1")), "", {}, "m.stan:1:46: `(-2147483647 - 1) / -1`: -2147483648 / -1 overflows"},
        {"int overflow: INT_MIN %/% -1", text(int_program("(-2147483647 - 1) %/% -1")), "", {}, "-2147483648 / -1 overflows"},
        {"int overflow: INT_MIN % -1", text(int_program("(-2147483647 - 1) % -1")), "", {}, "`(-2147483647 - 1) % -1`: -2147483648 % -1 overflows"},
        {"int overflow: data", text("data { int N; }\n" + int_program("N * N")), "d.json", text(R"({"N": 65536})"), "`N * N`: 65536 * 65536 overflows"},
        {"int overflow: sum", text(int_program("sum({2147483647, 1})")), "", {}, "sum of ints: the sum overflows"},
        {"int overflow: loop", text("transformed data { int n = 1; for (i in 1:40) n *= 2; }\n" + with_param("real mu;", "mu ~ normal(0, 1);")), "", {}, "1073741824 * 2 overflows"},
        {"int division by zero", text(int_program("5 / (2 - 2)")), "", {}, "`5 / (2 - 2)`: integer division by zero (5 / 0)"},
        {"int modulus by zero", text(int_program("5 % 0")), "", {}, "`5 % 0`: modulus by zero"},
        // Integer outcomes and indices (issue 17): Stan's ranges, named.
        {"categorical outcome 0", text(outcome_program("y ~ categorical(theta);")), "d.json", text(R"({"y": [1, 0, 3]})"), "m.stan:3:9: `y`[2] = 0 is outside categorical's outcomes 1..3"},
        {"categorical outcome above K", text(outcome_program("for (n in 1:3) y[n] ~ categorical(theta);")), "d.json", text(R"({"y": [1, 4, 3]})"), "`y[n]` = 4 (at n = 2) is outside categorical's outcomes 1..3"},
        {"ordered_logistic outcome 0", text(outcome_program("y ~ ordered_logistic(rep_vector(0.5, 3), c);")), "d.json", text(R"({"y": [0, 1, 3]})"), "`y`[1] = 0 is outside ordered_logistic's outcomes 1..3"},
        {"bernoulli outcome 2", text(outcome_program("y ~ bernoulli(0.5);")), "d.json", text(R"({"y": [0, 1, 2]})"), "`y`[3] = 2 is outside bernoulli's outcomes 0..1"},
        {"poisson outcome -1", text(outcome_program("y ~ poisson(3);")), "d.json", text(R"({"y": [0, -1, 2]})"), "`y`[2] = -1 is outside poisson's outcomes 0, 1, ..."},
        {"binomial outcome above N", text(outcome_program("y ~ binomial(2, 0.5);")), "d.json", text(R"({"y": [0, 1, 3]})"), "`y`[3] = 3 is outside binomial's outcomes 0..2 (`N` = 2)"},
        {"index out of range", text(outcome_program("for (n in 1:3) target += theta[y[n]];")), "d.json", text(R"({"y": [1, 7, 3]})"), "m.stan:3:40: index `y[n]` = 7 of `theta[y[n]]` is outside 1..3 (at n = 2)"},
        // Output paths that would destroy an input, or cannot be written: refused before the
        // fit, or the system's reason (issue 17, class 8).
        {"output path that is the model file", text(kModel), "d.json", text(kGoodJson),
         "--output `catalogue/m.stan` is the model file `catalogue/m.stan`", false, 0, 0, 0, "catalogue/m.stan"},
        {"output path that is the data file, spelled otherwise", text(kModel), "d.json", text(kGoodJson),
         "--output `catalogue/./d.json` is the data file `catalogue/d.json`", false, 0, 0, 0, "catalogue/./d.json"},
        {"output path that is a directory", text(kModel), "d.json", text(kGoodJson),
         "cannot write `catalogue`: it is a directory", false, 0, 0, 0, "catalogue"},
        {"output in a directory that does not exist", text(kModel), "d.json", text(kGoodJson),
         "directory `catalogue/nowhere` does not exist", false, 0, 0, 0, "catalogue/nowhere/out.csv"},
        {"output that cannot be written (full disk)", text(kModel), "d.json", text(kGoodJson),
         "cannot write `/dev/full`: No space left on device", false, 0, 0, 0, "/dev/full"},
        // `advi optimize`: the same rules, and its own endings that leave no point to write.
        {"optimize: output path that is the model file", text(kModel), "d.json", text(kGoodJson),
         "--output `catalogue/m.stan` is the model file `catalogue/m.stan`", false, 0, 0, 0, "catalogue/m.stan", "optimize"},
        {"optimize: a density without a maximum (centred eight schools)", text(kEightSchools), "d.json", text(kSchoolsJson),
         "no mode: ", false, 0, 0, 0, "", "optimize"},
        {"optimize: a density without a maximum names the scale", text(kEightSchools), "d.json", text(kSchoolsJson),
         "`tau` (", false, 0, 0, 0, "", "optimize"},
        {"optimize: log density not finite at the initial point", text("parameters {\n  real mu;\n}\nmodel {\n  target += log(mu - 10);\n}\n"), "", text(""),
         "the log density is NaN at the initial point; choose other initial values (--init); op `log` gives nan", false, 0, 0, 0, "", "optimize"},
        {"optimize: init file without a parameter", text(kModel), "d.json", text(kGoodJson),
         "--init `catalogue/d.json`: parameter `mu` is not given", false, 0, 0, 0, "", "optimize", "--init catalogue/d.json"},
        {"optimize: init value outside the support", text(kEightSchools), "d.json", text(kSchoolsJson),
         "`tau`", false, 0, 0, 0, "", "optimize", "--init catalogue/i.json"},
        // `advi fit --runs K` keeps every run's draws until they are compared: refused before
        // any run starts when they cannot fit in memory.
        {"runs whose draws exceed the memory", text(kModel), "d.json", text(kGoodJson),
         "option `runs` = 2000000000 (keeping 10 output draws", false, 0, 10, 0, "", "fit", "--runs 2000000000"},
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
    if (!row.output.empty() || !row.args.empty())
        return std::nullopt;  // so are the output file and the tool's options
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
        options.output_samples = row.output_samples > 0 ? row.output_samples : 10;
        if (row.elbo_samples > 0)
            options.elbo_samples = row.elbo_samples;
        if (row.grad_samples > 0)
            options.grad_samples = row.grad_samples;
        if (row.command == "optimize") {
            // Endings without a point are a status of the library's result, an error of the tool.
            const advi::Optimum o = advi::optimize(lowered->model().spec(), {});
            return o.status() == advi::OptimizeStatus::NoMode ||
                           o.status() == advi::OptimizeStatus::NonFiniteStart
                       ? o.message()
                       : "(no error)";
        }
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
        // An initial value outside tau's support, for the row that names it.
        materialise(dir / "i.json",
                    text(R"({"mu": 0, "tau": -1, "theta": [0, 0, 0, 0, 0, 0, 0, 0]})"));
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
        std::string args = row.command + " catalogue/m.stan --quiet --output " +
                           (row.output.empty() ? "catalogue/out.csv" : row.output) + " " + row.args;
        if (row.command == "fit")
            args += " --iter 100";
        if (!row.data_name.empty())
            args += " --data catalogue/" + row.data_name;
        if (row.full_rank)
            args += " --algorithm fullrank";
        if (row.elbo_samples > 0)
            args += " --elbo-samples " + std::to_string(row.elbo_samples);
        if (row.output_samples > 0)
            args += " --output-samples " + std::to_string(row.output_samples);
        if (row.grad_samples > 0)
            args += " --grad-samples " + std::to_string(row.grad_samples);
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
        // The inputs are as they were.
        if (row.model.kind == File::Kind::Text)
            CHECK(read_file(model) == row.model.text);
        if (!row.data_name.empty() && row.data.kind == File::Kind::Text)
            CHECK(read_file(data) == row.data.text);
    }
}

namespace {

// `advi laplace`'s own bad input: its options (status 2), its mode file, and posteriors where
// no Gaussian at a mode exists (status 1); files written into catalogue_laplace/.
struct BadLaplace {
    std::string fault;
    std::string model;  // m.stan
    std::string mode;   // the mode file's text ("" for none), written as `mode_name`
    std::string mode_name;
    std::string options;  // the rest of the command line
    int status = 1;
    std::string fragment;
};

std::vector<BadLaplace> laplace_catalogue() {
    const std::string two =
        "parameters { real mu; real<lower=0> s; }\nmodel { mu ~ normal(0, 1); s ~ lognormal(0, 1); "
        "}\n";
    // clang-format off
    return {
        {"laplace: draws not positive", two, "", "", "--draws 0", 2, "--draws: expected a positive integer, got `0`"},
        {"laplace: jacobian not 0 or 1", two, "", "", "--jacobian 2", 2, "--jacobian: 2 not in {0,1,true,false}"},
        {"laplace: negative regularization", two, "", "", "--regularization -1", 2, "--regularization: expected a positive number"},
        {"laplace: mode file missing", two, "", "", "--mode nope.json", 2, "--mode: File does not exist"},
        {"laplace: --iter with --mode", two, R"({"mu": 0, "s": 1})", "m.json", "--iter 10", 2, "--mode excludes --iter"},
        {"laplace: mode misses a parameter", two, R"({"mu": 0})", "m.json", "", 1, "mode file `catalogue_laplace/m.json`: parameter `s` (real) is not in the file"},
        {"laplace: mode outside the support", two, R"({"mu": 0, "s": -1})", "m.json", "", 1, "the values of `s` are outside its support positive"},
        {"laplace: mode of the wrong shape", two, R"({"mu": [0, 1], "s": 1})", "m.json", "", 1, "`mu`"},
        {"laplace: mode CSV of several rows", two, "lp__,mu,s\n0,0,1\n0,0,1\n", "m.csv", "", 1, "expected one row of values (an optimize CSV), got 2"},
        {"laplace: mode CSV without a column", two, "lp__,mu\n0,0\n", "m.csv", "", 1, "column `s` of parameter `s` (real) is not in the file"},
        {"laplace: mode file of another format", two, "mu = 0", "m.txt", "", 1, "expected an optimize CSV (.csv) or JSON"},
        {"laplace: output is the mode file", two, R"({"mu": 0, "s": 1})", "m.json", "--output catalogue_laplace/m.json", 1, "is the mode file"},
        {"laplace: flat posterior (no curvature)", "parameters { real mu; }\nmodel { }\n", "", "", "", 1, "not positive definite: 1 direction where the log density does not curve down: eigenvalue 0 along 1 `mu`"},
        {"laplace: saddle at the given mode", "parameters { real mu; real tau; }\nmodel { target += -square(mu) - square(tau) + 4 * mu * tau; }\n", R"({"mu": 0, "tau": 0})", "m.json", "", 1, "eigenvalue -2 along 0.707 `mu` + 0.707 `tau`"},
        {"laplace: posterior without a mode", "parameters { real<lower=0> s; }\nmodel { }\n", "", "", "", 1, "optimize found no mode to centre the approximation on: no mode"},
    };
    // clang-format on
}

}  // namespace

TEST_CASE("catalogue of bad input: advi laplace", "[cli][catalogue][laplace]") {
    if (!cli_built())
        return;
    const fs::path dir = scratch() / "catalogue_laplace";
    fs::create_directories(dir);
    for (const BadLaplace& row : laplace_catalogue()) {
        INFO("row: " << row.fault << "\nexpected: " << row.fragment);
        const fs::path output = dir / "out.csv";
        fs::remove(output);
        std::ofstream(dir / "m.stan") << row.model;
        std::string args = "laplace catalogue_laplace/m.stan -q";
        if (!row.mode_name.empty()) {
            std::ofstream(dir / row.mode_name) << row.mode;
            args += " --mode catalogue_laplace/" + row.mode_name;
        }
        if (row.options.find("--output") == std::string::npos)
            args += " --output catalogue_laplace/out.csv";
        args += " " + row.options;
        const Run r = tool(args);
        const std::vector<std::string> l = lines(r.err);
        INFO("tool: status " << r.status << ", stderr:\n" << r.err.substr(0, 2000));
        CHECK(r.status == row.status);
        REQUIRE(l.size() == 1);
        CHECK(l[0].rfind("advi: error: ", 0) == 0);
        CHECK(contains(l[0], row.fragment));
        CHECK(l[0].size() < 400);
        CHECK(!fs::exists(output));
        if (!row.mode_name.empty())
            CHECK(read_file(dir / row.mode_name) == row.mode);
    }
}

namespace {

// `advi fit`'s own options of issue 19 with values it cannot take: status 2, one line naming
// the option.
struct BadFitOption {
    std::string options;
    std::string fragment;
};

}  // namespace

TEST_CASE(
    "catalogue of bad input: advi fit --runs, --psis-resample, DADVI's, low-rank's and "
    "RQMC's options",
    "[cli][catalogue]") {
    if (!cli_built())
        return;
    const fs::path dir = scratch() / "catalogue_fit";
    fs::create_directories(dir);
    std::ofstream(dir / "m.stan") << "parameters { real mu; }\nmodel { mu ~ normal(0, 1); }\n";
    // clang-format off
    const std::vector<BadFitOption> rows = {
        {"--runs 0", "--runs: expected a positive integer, got `0`"},
        {"--runs -2", "--runs: expected a positive integer, got `-2`"},
        {"--runs two", "--runs: expected a positive integer, got `two`"},
        {"--runs 2.5", "--runs: expected a positive integer, got `2.5`"},
        {"--runs 3000000000", "--runs: expected a positive integer, got `3000000000`"},
        {"--runs", "--runs"},
        {"--psis-resample=maybe", "--psis-resample"},
        {"--algorithm dadvi --runs 2", "--runs: is not supported with --algorithm dadvi"},
        {"--linear-response", "--linear-response: needs --algorithm dadvi"},
        {"--algorithm dadvi --dadvi-draws 1",
         "--dadvi-draws: (1 not in {auto}) OR (Value 1 not in range 2 to 100000)"},
        {"--algorithm dadvi --dadvi-draws many", "--dadvi-draws"},
        {"--dadvi-family fullrank", "--dadvi-family: needs --algorithm dadvi"},
        {"--algorithm dadvi --dadvi-family lowrank", "--dadvi-family"},
        {"--rank 3", "--rank: needs --algorithm lowrank"},
        {"--algorithm lowrank --rank 0", "--rank: expected a positive integer, got `0`"},
        {"--algorithm lowrank --rank many", "--rank"},
        {"--draws rqmc", "--draws: rqmc needs --grad-samples >= 2"},
        {"--draws rqmc --grad-samples 4 --algorithm dadvi",
         "--draws: rqmc is not supported with --algorithm dadvi"},
        {"--draws sobol", "--draws"},
    };
    // clang-format on
    for (const BadFitOption& row : rows) {
        INFO("options: " << row.options << "\nexpected: " << row.fragment);
        const fs::path output = dir / "out.csv";
        fs::remove(output);
        const Run r =
            tool("fit catalogue_fit/m.stan -q --output catalogue_fit/out.csv " + row.options);
        const std::vector<std::string> l = lines(r.err);
        INFO("tool: status " << r.status << ", stderr:\n" << r.err.substr(0, 2000));
        CHECK(r.status == 2);
        REQUIRE(l.size() == 1);
        CHECK(l[0].rfind("advi: error: ", 0) == 0);
        CHECK(contains(l[0], row.fragment));
        CHECK(!fs::exists(output));
    }  // A rank the model cannot have (one coordinate): the fit's own error, status 1.
    const Run r = tool(
        "fit catalogue_fit/m.stan -q --output catalogue_fit/out.csv --algorithm "
        "lowrank");
    INFO("stderr: " << r.err);
    CHECK(r.status == 1);
    CHECK(lines(r.err).size() == 1);
    CHECK(contains(r.err, "option `rank` = 10: the low-rank family needs 1 <= rank < 1"));
    CHECK(contains(r.err, "use the full-rank family"));
    CHECK(!fs::exists(dir / "out.csv"));
}
