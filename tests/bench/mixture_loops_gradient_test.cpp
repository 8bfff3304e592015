// Issue 19's mixture written with loops (Stan): the benchmark compares equal work, the compiled
// gradient equals the hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/mixture_loops_model.hpp"
#include "support/same_gradient.hpp"

namespace advi {

TEST_CASE("mixture written with loops: compiled gradient equals the hand-written one", "[bench]") {
    const bench::MixtureLoopsData d(300, 6, 4);
    auto lowered = bench::lower_mixture_loops(d);
    Program p = compile(lowered->model().spec());
    bench::MixtureLoopsHand h(d);
    test::check_same_gradient(p, h, {0.0, 0.2, -0.5});
}

TEST_CASE("mixture written with loops: N x K x D repeats in blocks, and threads agree bit for bit",
          "[bench]") {
    // 2000 x 5 x 10 = 100,000 values per repeat: a loop of several parts.
    const bench::MixtureLoopsData d(2000, 5, 10);
    auto lowered = bench::lower_mixture_loops(d);
    Program p = compile(lowered->model().spec());
    const std::string listing = p.str();
    INFO(listing);
    // mu[k] and sigma[k] at iterations n + N k are runs of N: mu, log sigma and 1 / sigma
    // repeated, each read in runs by its reader (no index as long as the loop, no copy), 1 /
    // sigma once per reader (the forward loop and the reverse sweep's). Their adjoints are
    // column sums added in the loops, not scatter-adds.
    std::size_t in_runs = 0, other = 0, at = 0;
    while ((at = listing.find("mat[2000,50] = rep_rows", at)) != std::string::npos) {
        const std::size_t end = listing.find('\n', at);
        ++(listing.compare(end - 26, 26, "(not copied: read in runs)") == 0 ? in_runs : other);
        ++at;
    }
    CHECK(in_runs == 4);
    CHECK(other == 0);
    CHECK(listing.find("vec[100000] = gather") == std::string::npos);
    CHECK(listing.find("scatter_add") == std::string::npos);
    CHECK(listing.find("vec[50] = col_sums") != std::string::npos);
    const Eigen::VectorXd zeta = 0.3 * Eigen::VectorXd::LinSpaced(p.dim(), -1, 1);
    Eigen::VectorXd g1(p.dim()), g2(p.dim());
    p.set_threads(1);
    const double lp1 = p.run(zeta, g1);
    p.set_threads(2);
    const double lp2 = p.run(zeta, g2);
    CHECK(lp1 == lp2);
    CHECK((g1.array() == g2.array()).all());
}

}  // namespace advi
