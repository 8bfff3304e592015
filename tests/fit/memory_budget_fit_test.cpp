// What a fit allocates is refused before it starts when it exceeds the memory budget
// (lib/advi/base/memory_budget.hpp): the compiled program's arena, a full-rank factor, the output
// draws; each message names the thing at fault.
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/base/memory_budget.hpp>

namespace advi {

TEST_CASE("a fit's allocations are refused before they are made when beyond the budget",
          "[advi][memory]") {
    // 100000 latents: 800 kB per vector of them.
    Model m;
    auto x = m.param("x", normal(0, 1), 100000);
    (void)x;
    const ModelSpec spec = m.spec();

    // 1 MB: one vector fits, the program's arena (several) does not.
    set_memory_budget_bytes(1000000);
    CHECK_THROWS_AS(compile(spec), SizeError);
    CHECK_THROWS_WITH(compile(spec), Catch::StartsWith("the compiled program (the values of one "
                                                       "evaluation of its nodes) needs") &&
                                         Catch::Contains("more than the budget of 1 MB"));

    // 100 MB: the program fits; a full-rank factor (4 x 10^10 doubles) and 1000 draws of
    // 3 x 10^5 values each (zeta kept and drawn, theta; 2.4 GB) do not.
    set_memory_budget_bytes(100000000);
    CHECK_NOTHROW(compile(spec));
    Options full{.family = Family::FullRank};
    CHECK_THROWS_WITH(
        fit(spec, full),
        Catch::StartsWith("the full-rank approximation of 100000 dimensions needs 320 GB"));
    Options mean_field{.output_samples = 1000};
    CHECK_THROWS_WITH(
        fit(spec, mean_field),
        Catch::StartsWith("option `output_samples` = 1000 (keeping 1000 output draws of 100000 "
                          "unconstrained and 100000 constrained values) needs 2.4 GB (300002000 "
                          "elements"));
    // The common ELBO draws: 100000 x (2 x 100000 + 7) doubles, 160 GB (issue 17, class 10).
    Options elbo{.elbo_samples = 100000, .output_samples = 0};
    CHECK_THROWS_WITH(fit(spec, elbo),
                      Catch::StartsWith("option `elbo_samples` = 100000 (the common ELBO draws") &&
                          Catch::Contains("needs 160 GB"));
    // Stan's rule draws afresh for each estimate and keeps no such buffer.
    CHECK_NOTHROW(require_engine_memory(
        {.elbo_samples = 100000, .output_samples = 0, .convergence = ConvergenceRule::Stan},
        100000));
    set_memory_budget_bytes(0);
}

}  // namespace advi
