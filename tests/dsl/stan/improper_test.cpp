// Improper and unbounded posteriors end as not converged, with the reason (issue 17, class 7):
// a flat improper posterior made q's scale grow for ever and the relative-change rule call
// it converged (draws of +-1.8e308, a summary of -nan); an unbounded density "converged" at
// an ELBO of 3.8e147.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

namespace advi::stan {
namespace {

using Catch::Matchers::Contains;

Fit fit_text(const std::string& program, const Options& opts) {
    auto low = lower(parse_program(program, "model.stan"), read_json_data("{}", "data.json"));
    return advi::fit(low->model().spec(), opts);
}

void require_not_converged(const std::string& program, std::uint64_t seed, const std::string& why,
                           Family family = Family::MeanField) {
    for (const bool search : {true, false}) {
        const Fit f = fit_text(
            program, {.family = family, .seed = seed, .adapt_engaged = search, .eta = 0.1});
        const AdviResult& r = f.result();
        INFO(program << "\nseed " << seed << (search ? ", eta searched" : ", eta 0.1") << ": "
                     << r.stop_reason);
        CHECK_FALSE(r.converged);
        CHECK_THAT(r.stop_reason, Contains(why));
        const std::string s = f.summary(1);
        CHECK_THAT(s, !Contains("nan"));
    }
}

}  // namespace

TEST_CASE("a flat improper posterior is not converged", "[stan]") {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        require_not_converged("parameters { real mu; } model { }", seed, "improper");
        // Improper in one of two parameters: the message names it.
        require_not_converged(
            "parameters { real mu; real<lower=0> s; } model { mu ~ normal(0, 1); }", seed,
            "improper");
    }
}

// Full-rank's factor grows only like i^(1/4) on a flat target, so its ELBO creeps up like
// log(i) / 4 and the relative rule called it converged; with a constant of 50 or 1e6 in the log
// density the rule was met at the first evaluation. The scale test reads gradients only.
TEST_CASE("a flat improper posterior is not converged, whatever its constant and family",
          "[stan]") {
    for (const char* c : {"0", "50", "1e6"}) {
        for (const Family family : {Family::MeanField, Family::FullRank}) {
            INFO("target += " << c << (family == Family::FullRank ? ", full-rank" : ""));
            const std::string add = std::string("target += ") + c + "; ";
            require_not_converged("parameters { real x; } model { " + add + "}", 2, "improper",
                                  family);
            require_not_converged(
                "parameters { real x; real y; } model { x ~ normal(0, 1); " + add + "}", 2,
                "`y` (unconstrained)", family);
        }
    }
}

TEST_CASE("an unbounded log density is not converged", "[stan]") {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        require_not_converged("parameters { real mu; } model { target += mu; }", seed, "improper");
        require_not_converged("parameters { real mu; } model { target += exp(mu); }", seed,
                              "unbounded");
    }
}

TEST_CASE("a run-off q names the parameter", "[stan]") {
    const Fit f =
        fit_text("parameters { real a; real b; } model { a ~ normal(0, 1); }", {.seed = 1});
    INFO(f.result().stop_reason);
    CHECK_FALSE(f.result().converged);
    CHECK_THAT(f.result().stop_reason, Contains("q ran off: the") && Contains("of `b`"));
}

TEST_CASE("proper posteriors still converge", "[stan]") {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        for (const Family family : {Family::MeanField, Family::FullRank}) {
            for (const char* c : {"", "target += 1e6; "}) {
                const Fit f = fit_text(std::string("parameters { real mu; real<lower=0> s; } "
                                                   "model { mu ~ normal(3, 2); "
                                                   "s ~ lognormal(0, 1); ") +
                                           c + "}",
                                       {.family = family, .seed = seed});
                INFO(f.result().stop_reason);
                CHECK(f.result().converged);
            }
        }
    }
}

}  // namespace advi::stan
