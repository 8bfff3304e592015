// What each fuzz target does with one input, shared by the libFuzzer programs (fuzz/*_fuzz.cpp)
// and the Catch2 test that replays fuzz/regressions/ (tests/fuzz/regressions_test.cpp), so that
// a regression input is run through exactly the code that found it.
//
// Every entry point reads user text, so a bad input must end in an advi::Error that names the
// fault. InternalError (our own broken invariant) and any other exception are let through:
// libFuzzer sees them as a crash (std::terminate), the test as a failure.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/io/csv_reader.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/io/rdump_reader.hpp>
#include <advi/stan/check.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

namespace advi::fuzz {

// libFuzzer stops a run at -rss_limit_mb (2048 in smoke.sh). The library refuses sizes larger
// than its memory budget before allocating them (lib/advi/base/memory_budget.hpp); with the budget
// well under the limit, a short input that asks for gigabytes (R's `1:2000000000`) is refused
// as it would be on a small machine instead of being reported as an out-of-memory.
inline constexpr std::int64_t kMemoryBudget = std::int64_t{256} << 20;

// Runs `read` and swallows the errors advi throws on purpose; anything else propagates.
template <class Read>
void expect_clean_failure(Read&& read) {
    static const bool budget_set = (set_memory_budget_bytes(kMemoryBudget), true);
    (void)budget_set;
    try {
        read();
    } catch (const InternalError&) {
        throw;
    } catch (const Error&) {
        // ParseError, DataError, ModelError, ...: the input was refused with a message.
    }
}

inline void stan_program(std::string_view text) {
    expect_clean_failure([&] {
        const stan::Program program = stan::parse_program(std::string(text), "fuzz.stan");
        stan::check(program);
    });
}

// A whole model: a Stan program, then optionally a line `@data` and its CmdStan JSON data. The
// program is parsed, checked, lowered with the data onto a Model, compiled into its gradient
// program, and the gradient evaluated once at zeta = 0 (a non-finite value there is allowed;
// the fit's own checks handle it). Shapes, indexing, loops and functions all meet user text here.
inline constexpr std::string_view kDataSeparator = "\n@data\n";

inline void stan_model(std::string_view text) {
    const std::size_t split = text.find(kDataSeparator);
    const std::string program_text(text.substr(0, split));
    const std::string_view data_text = split == std::string_view::npos
                                           ? std::string_view("{}")
                                           : text.substr(split + kDataSeparator.size());
    expect_clean_failure([&] {
        const stan::Program program = stan::parse_program(program_text, "fuzz.stan");
        stan::check(program);
        const DataTable data = read_json_data(data_text, "fuzz.json");
        const auto lowered = stan::lower(program, data);
        const ModelSpec spec = lowered->model().spec();
        Program gradient = compile(spec);
        Eigen::VectorXd zeta = Eigen::VectorXd::Zero(spec.zeta_dim()), grad(spec.zeta_dim());
        (void)gradient.run(zeta, grad);
    });
}

inline void json_data(std::string_view text) {
    expect_clean_failure([&] { (void)read_json_data(text, "fuzz.json"); });
}

inline void rdump_data(std::string_view text) {
    expect_clean_failure([&] { (void)read_rdump_data(text, "fuzz.R"); });
}

inline void csv_data(std::string_view text) {
    expect_clean_failure([&] { (void)read_csv_data(text, "fuzz.csv"); });
}

inline void stan_csv(std::string_view text) {
    expect_clean_failure([&] { (void)read_stan_csv(text, "fuzz.csv"); });
}

// The targets by name (the folder names under fuzz/corpus/ and fuzz/regressions/).
struct Target {
    std::string_view name;
    void (*run)(std::string_view);
};
inline constexpr std::array<Target, 6> kTargets{
    {{"stan_program", stan_program},
     {"stan_model", stan_model},
     {"json_data", json_data},
     {"rdump_data", rdump_data},
     {"csv_data", csv_data},
     {"stan_csv", stan_csv}}
};

}  // namespace advi::fuzz
