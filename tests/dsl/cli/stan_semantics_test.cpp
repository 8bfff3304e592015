// Stan's meaning through the tool (issue 17): integer arithmetic that overflows or traps is an
// error naming the expression in every subcommand that evaluates it, never a signal (INT_MIN / -1
// ended in SIGFPE); print() prints on standard output.
#include <string>

#include <catch2/catch.hpp>

#include "support/cli_runner.hpp"

using namespace advi::test;

TEST_CASE("cli: integer overflow and division are errors in check, graph, program and fit",
          "[cli]") {
    if (!cli_built())
        return;
    const std::pair<const char*, const char*> cases[] = {
        {"(-2147483647 - 1) / -1", "-2147483648 / -1 overflows Stan's int"},
        {"(-2147483647 - 1) % -1", "-2147483648 % -1 overflows Stan's int"},
        {"2147483647 + 1",         "2147483647 + 1 overflows Stan's int"  },
        {"-(-2147483647 - 1)",     "-(-2147483648) overflows Stan's int"  },
        {"7 %/% (3 - 3)",          "integer division by zero"             },
    };
    for (const auto& [e, message] : cases) {
        INFO(e);
        const fs::path m = write_file("int.stan", std::string("transformed data { int n = ") + e +
                                                      "; }\nparameters { real mu; }\n"
                                                      "model { mu ~ normal(n, 1); }\n");
        // check types the program without data: it is well typed, as stanc finds
        const Run c = tool("check " + q(m));
        CHECK(c.status == 0);
        for (const char* sub : {"graph", "program", "fit"}) {
            INFO(sub);
            const Run r = tool(std::string(sub) + " " + q(m));
            CHECK(r.status == 1);  // not 136 (SIGFPE) nor a wrapped value
            REQUIRE(!lines(r.err).empty());
            CHECK(contains(lines(r.err)[0], "int.stan:1:"));
            CHECK(contains(lines(r.err)[0], message));
        }
    }
}

TEST_CASE("cli: print() prints transformed data on standard output", "[cli]") {
    if (!cli_built())
        return;
    const fs::path m = write_file("print.stan",
                                  "transformed data { int n = 6 * 7; vector[2] v "
                                  "= [1.5, -2]'; print(\"n = \", n, \" v = \", v); "
                                  "}\nparameters { real mu; }\nmodel { mu ~ "
                                  "normal(0, 1); }\n");
    const Run r = tool("graph " + q(m));
    CHECK(r.status == 0);
    CHECK(lines(r.out).at(0) == "n = 42 v = [1.5,-2]");
}

// Issue 17, class 7: a flat improper posterior is not converged with either algorithm, whatever
// constant the log density carries (full-rank said "converged" after 900, 300 and 100
// iterations with 0, 50 and 1e6).
TEST_CASE("cli: a flat improper posterior is not converged, with the reason", "[cli]") {
    if (!cli_built())
        return;
    for (const char* c : {"0", "50", "1e6"}) {
        for (const char* algorithm : {"meanfield", "fullrank"}) {
            INFO("target += " << c << ", " << algorithm);
            const fs::path m =
                write_file("flat.stan",
                           std::string("parameters { real x; } model { target += ") + c + "; }\n");
            const fs::path out = scratch() / "flat.csv";
            const Run r =
                tool("fit " + q(m) + " --algorithm " + algorithm + " --seed 1 --output " + q(out));
            INFO(r.out << r.err);
            CHECK(r.status == 0);
            CHECK(contains(r.out, "not converged"));
            CHECK(contains(r.out, "improper"));
            const std::string csv = read_file(out);
            CHECK(contains(csv, "# converged = 0\n"));
            CHECK(contains(csv, "improper"));
        }
    }
}
