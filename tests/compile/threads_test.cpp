// Long loops and matrix products split into parts chosen from their sizes alone, never the
// thread count, with partial results combined in part order: every run on any thread count
// gives the same bits (ThreadPool, Program::set_threads).
#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/compile/thread_pool.hpp>

#include "../../bench/gamma_poisson_model.hpp"
#include "../../bench/gmm_model.hpp"
#include "../../bench/hier_logistic_model.hpp"
#include "../../bench/linreg_ard_model.hpp"
#include "../../bench/ppca_ard_model.hpp"

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

// The listing without its header line (which names the thread count and the arena's size,
// whose block temporaries are per thread).
std::string body(const Program& p) {
    const std::string s = p.str();
    return s.substr(s.find('\n') + 1);
}

// The same bits on 1, 2, 3 and 8 threads (more threads than this machine's cores
// included), run after run, and the same partition in the listing.
void check_threads(Program& p) {
    const Eigen::VectorXd zeta = 0.2 * Eigen::VectorXd::LinSpaced(p.dim(), -1, 1);
    const Result one = run_with(p, 1, zeta);
    const std::string listing = body(p);
    REQUIRE(std::isfinite(one.lp));
    for (int threads : {2, 3, 8, 1}) {
        INFO("threads = " << threads);
        const Result a = run_with(p, threads, zeta);
        Eigen::VectorXd again;
        CHECK(p.run(zeta, again) == a.lp);
        CHECK(again == a.grad);
        CHECK(body(p) == listing);
        CHECK(a.lp == one.lp);
        int differ = 0;
        for (int i = 0; i < p.dim(); ++i) differ += a.grad[i] != one.grad[i] ? 1 : 0;
        CHECK(differ == 0);
    }
}

}  // namespace

TEST_CASE("thread pool runs every part once, on any number of parts", "[compile]") {
    ThreadPool pool(3);
    struct Seen {
        std::vector<std::atomic<int>> parts = std::vector<std::atomic<int>>(64);
        std::atomic<int> bad_thread{0};
    } seen;
    auto count = [](void* c, int part, int thread) {
        auto* s = static_cast<Seen*>(c);
        s->parts[static_cast<std::size_t>(part)]++;
        if (thread < 0 || thread >= 3)
            s->bad_thread++;
    };
    for (int parts : {1, 2, 3, 4, 7, 64}) {
        INFO("parts = " << parts);
        for (auto& s : seen.parts) s = 0;
        for (int r = 0; r < 100; ++r) pool.run(parts, count, &seen);
        for (int p = 0; p < 64; ++p)
            CHECK(seen.parts[static_cast<std::size_t>(p)] == (p < parts ? 100 : 0));
    }
    CHECK(seen.bad_thread == 0);
}

TEST_CASE("thread pool rethrows the lowest-numbered failing part's exception", "[compile]") {
    ThreadPool pool(3);
    auto fail = [](void*, int part, int) {
        if (part == 5 || part == 9)
            throw std::runtime_error(part == 5 ? "part 5 failed" : "part 9 failed");
    };
    // Whichever thread meets which part first, the error is the one a single thread meets.
    for (int r = 0; r < 50; ++r) CHECK_THROWS_WITH(pool.run(12, fail, nullptr), "part 5 failed");
    std::atomic<int> done{0};
    pool.run(
        12, [](void* c, int, int) { ++*static_cast<std::atomic<int>*>(c); }, &done);
    CHECK(done == 12);  // still usable
}

TEST_CASE("split loops and products give the same bits on any thread count", "[compile]") {
    // Sizes that are not multiples of the loop's block (512) nor of the row blocks.
    SECTION("linear regression with ARD: X w and X' r by row blocks in one split loop") {
        const bench::LinearRegressionData d(40037, 12);
        Model m;
        bench::build_linreg_ard(m, d);
        Program p = compile(m);
        const std::string listing = p.str();
        CHECK(listing.find("matvec %1(X) %17(w)  (by row blocks)") != std::string::npos);
        CHECK(listing.find("(row blocks accumulated)") != std::string::npos);
        CHECK(listing.find("loop over 40037 values in blocks of 512, 16 parts") !=
              std::string::npos);
        check_threads(p);
    }
    SECTION("a matrix-vector product read by a reduction is a loop of its own") {
        const bench::LinearRegressionData d(40037, 12);
        Model m;
        auto X = m.data("X", d.X);
        auto w = m.param("w", normal(0, 1), d.X.cols());
        m.target_add(log_sum_exp(X * w));
        Program p = compile(m);
        CHECK(p.str().find("(by row blocks)") != std::string::npos);
        check_threads(p);
    }
    SECTION("hierarchical logistic regression: split gathers and scatter-adds") {
        const bench::ElectionData d(50013);
        Model m;
        bench::build_hier_logistic(m, d);
        Program p = compile(m);
        CHECK(p.str().find("(scatter-added)") != std::string::npos);
        CHECK(p.str().find("parts:") != std::string::npos);
        check_threads(p);
    }
    SECTION("Gaussian mixture: matrix products and mapped loops") {
        const bench::GmmData d(20011, 6, 9);
        Model m;
        bench::build_gmm(m, d);
        Program p = compile(m);
        check_threads(p);
    }
    SECTION("PPCA with ARD: products split into partial sums") {
        const bench::PpcaArdData d(2003, 150, 5);
        Model m;
        bench::build_ppca_ard(m, d);
        Program p = compile(m);
        CHECK(p.str().find("[split, partial sums") != std::string::npos);
        check_threads(p);
    }
    SECTION("Gamma-Poisson factorisation: products split by columns and a long loop") {
        const bench::GammaPoissonData d(301, 203, 7);
        Model m;
        bench::build_gamma_poisson(m, d);
        Program p = compile(m);
        CHECK(p.str().find("[split by columns") != std::string::npos);
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

TEST_CASE("a bad index inside a split loop is the same DataError on any thread count",
          "[compile]") {
    const int n = 40000;
    Eigen::VectorXi idx = Eigen::VectorXi::Zero(n);
    idx[n - 3] = 7;      // outside 0..4, in the last part
    idx[n / 2 + 1] = 9;  // and in a middle part: the one a single thread meets first
    Eigen::VectorXd y = Eigen::VectorXd::Ones(n);
    Model m;
    auto i = m.data("idx", idx);
    auto yy = m.data("y", y);
    auto a = m.param("a", normal(0, 1), 5);
    m.observe(yy, normal(a[i], 1.0));
    Program p = compile(m);
    Eigen::VectorXd zeta = Eigen::VectorXd::Zero(p.dim()), g;
    // The same error on any thread count: the one in the lowest-numbered failing part.
    std::string first;
    for (int threads : {1, 2, 3, 8}) {
        INFO("threads = " << threads);
        p.set_threads(threads);
        try {
            (void)p.run(zeta, g);
            FAIL("no error");
        } catch (const DataError& e) {
            if (first.empty())
                first = e.what();
            CHECK(e.what() == first);
        }
    }
    CHECK(first.find("index 9") != std::string::npos);
}

}  // namespace advi
