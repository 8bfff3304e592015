// Long loops and matrix products split over threads with a fixed partition: for a given
// thread count, runs are bit-identical; across thread counts, results agree to rounding.
#include <atomic>
#include <stdexcept>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/compile/thread_pool.hpp>

#include "../../bench/gmm_model.hpp"
#include "../../bench/hier_logistic_model.hpp"
#include "../../bench/linreg_ard_model.hpp"

namespace advi {
namespace {

struct Result {
    double lp;
    Eigen::VectorXd grad;
};

Result run_with(Program& p, int threads, const Eigen::VectorXd& zeta) {
    p.set_threads(threads);
    Result r{0.0, Eigen::VectorXd(p.output_dim())};
    r.lp = p.run(zeta, r.grad);
    return r;
}

void check_threads(Program& p) {
    const Eigen::VectorXd zeta = 0.2 * Eigen::VectorXd::LinSpaced(p.dim(), -1, 1);
    const Result one = run_with(p, 1, zeta);
    for (int threads : {2, 3, 4}) {
        INFO("threads = " << threads);
        const Result a = run_with(p, threads, zeta);
        const Result b = run_with(p, threads, zeta);
        CHECK(a.lp == b.lp);  // bit-identical from run to run
        CHECK(a.grad == b.grad);
        CHECK(a.lp == Approx(one.lp).epsilon(1e-12));
        for (int i = 0; i < p.dim(); ++i) {
            INFO("coordinate " << i);
            CHECK(std::abs(a.grad[i] - one.grad[i]) <=
                  1e-10 * std::max(1.0, std::abs(one.grad[i])));
        }
    }
    // The listing says how loops split.
    p.set_threads(2);
    CHECK(p.str().find("2 threads") != std::string::npos);
}

}  // namespace

TEST_CASE("thread pool runs every part once and rethrows a part's exception", "[compile]") {
    ThreadPool pool(3);
    std::atomic<int> seen[3] = {0, 0, 0};
    auto count = [](void* c, int part) { static_cast<std::atomic<int>*>(c)[part]++; };
    for (int r = 0; r < 100; ++r) pool.run(3, count, seen);
    for (auto& s : seen) CHECK(s.load() == 100);
    auto fail = [](void*, int part) {
        if (part == 2)
            throw std::runtime_error("part 2 failed");
    };
    CHECK_THROWS_WITH(pool.run(3, fail, nullptr), "part 2 failed");
    pool.run(3, count, seen);  // still usable
    CHECK(seen[2].load() == 101);
}

TEST_CASE("split loops and products give the same results on any thread count", "[compile]") {
    SECTION("linear regression with ARD: X w and X' r by row blocks in one split loop") {
        const bench::LinearRegressionData d(40000, 12);
        Model m;
        bench::build_linreg_ard(m, d);
        Program p = compile(m);
        p.set_threads(2);
        const std::string listing = p.str();
        CHECK(listing.find("matvec %1(X) %17(w)  (by row blocks)") != std::string::npos);
        CHECK(listing.find("(row blocks accumulated)") != std::string::npos);
        CHECK(listing.find("loop over 40000 values in blocks of 512, 2 parts") !=
              std::string::npos);
        check_threads(p);
    }
    SECTION("a matrix-vector product read by a reduction is a loop of its own") {
        const bench::LinearRegressionData d(40000, 12);
        Model m;
        auto X = m.data("X", d.X);
        auto w = m.param("w", normal(0, 1), d.X.cols());
        m.target_add(log_sum_exp(X * w));
        Program p = compile(m);
        p.set_threads(2);
        CHECK(p.str().find("(by row blocks)") != std::string::npos);
        check_threads(p);
    }
    SECTION("hierarchical logistic regression: split gathers and scatter-adds") {
        const bench::ElectionData d(50000);
        Model m;
        bench::build_hier_logistic(m, d);
        Program p = compile(m);
        p.set_threads(2);
        CHECK(p.str().find("(scatter-added)") != std::string::npos);
        check_threads(p);
    }
    SECTION("Gaussian mixture: split matrix products and mapped loops") {
        const bench::GmmData d(20000, 6, 4);
        Model m;
        bench::build_gmm(m, d);
        Program p = compile(m);
        check_threads(p);
    }
}

TEST_CASE("a copied program runs on its own arena", "[compile]") {
    const bench::LinearRegressionData d(500, 5);
    Model m;
    bench::build_linreg_ard(m, d);
    Program p = compile(m);
    Program q = p;
    const Eigen::VectorXd zeta = 0.1 * Eigen::VectorXd::LinSpaced(p.dim(), -1, 1);
    Eigen::VectorXd gp, gq;
    const double lp = p.run(zeta, gp);
    p = Program();  // the original is gone
    CHECK(q.run(zeta, gq) == lp);
    CHECK(gq == gp);
}

TEST_CASE("a bad index inside a split loop is a DataError on any thread", "[compile]") {
    const int n = 40000;
    Eigen::VectorXi idx = Eigen::VectorXi::Zero(n);
    idx[n - 3] = 7;  // outside 0..4, in the last thread's part
    Eigen::VectorXd y = Eigen::VectorXd::Ones(n);
    Model m;
    auto i = m.data("idx", idx);
    auto yy = m.data("y", y);
    auto a = m.param("a", normal(0, 1), 5);
    m.observe(yy, normal(a[i], 1.0));
    Program p = compile(m);
    Eigen::VectorXd zeta = Eigen::VectorXd::Zero(p.dim()), g;
    for (int threads : {1, 2}) {
        p.set_threads(threads);
        CHECK_THROWS_AS(p.run(zeta, g), DataError);
    }
}

}  // namespace advi
