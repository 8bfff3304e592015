// The low-rank family at scale (issue 20: "low-rank at rank 10 fits a model of 10,000
// parameters within the memory of mean-field times 20"): under a memory budget that refuses
// full-rank's factor, a rank-10 fit of 10,000 coordinates runs, and finds the posterior.
#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/base/memory_budget.hpp>

namespace advi {

TEST_CASE("low-rank at rank 10 fits 10,000 coordinates where full-rank cannot be allocated",
          "[fit][low_rank][memory]") {
    // y_k ~ normal(x_k, 1), x_k ~ normal(0, 1): the posterior is N(y / 2, 1/2) per coordinate.
    const int K = 10000;
    Eigen::VectorXd data(K);
    for (int k = 0; k < K; ++k) data[k] = std::sin(0.37 * k) * 2.0;
    Model m;
    auto y = m.data("y", data);
    auto x = m.param("x", normal(0, 1), K);
    m.observe(y, normal(x, 1));
    const ModelSpec spec = m.spec();
    // 200 MB: full-rank's factor (4 x 10^8 doubles) is refused, before anything runs.
    set_memory_budget_bytes(200000000);
    CHECK_THROWS_WITH(fit(spec, {.family = Family::FullRank}),
                      Catch::StartsWith("the full-rank approximation of 10000 dimensions needs"));
    const Fit f =
        fit(spec, {.family = Family::LowRank, .seed = 1, .output_samples = 200, .rank = 10});
    set_memory_budget_bytes(0);
    CHECK(f.result().q.rank() == 10);
    CHECK(f.result().converged);
    const Eigen::VectorXd mean = f.result().q.mu();
    const Eigen::VectorXd sd = f.result().q.sd();
    CHECK((mean - data / 2).cwiseAbs().maxCoeff() < 0.1);
    CHECK((sd.array() / std::sqrt(0.5) - 1.0).abs().maxCoeff() < 0.1);
}

}  // namespace advi
