// run() allocates nothing: a counting global allocator sees no allocation during runs of
// compiled programs (after the first run), with one thread and with several, for the
// benchmark models and for models that use every kind of kernel with scratch needs
// (factorisations, inverses, determinants, constraining transforms).
#include <atomic>
#include <cerrno>
#include <cstdlib>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>

#include "../../bench/gmm_model.hpp"
#include "../../bench/hier_logistic_model.hpp"
#include "../../bench/linreg_ard_model.hpp"
#include "../../bench/stochvol_model.hpp"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// Every allocation reaches malloc and its relatives: operator new (libstdc++ calls malloc)
// and Eigen's aligned allocator alike. These definitions interpose glibc's and count.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);

void* malloc(std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t align, std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_memalign(align, size);
}
void* memalign(std::size_t align, std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_memalign(align, size);
}
int posix_memalign(void** out, std::size_t align, std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    *out = __libc_memalign(align, size);
    return *out == nullptr ? ENOMEM : 0;
}
}

namespace advi {
namespace {

// Allocations during `runs` runs of p at a fixed point, after one warm-up run.
long allocations_per_runs(Program& p, int threads, int runs = 3) {
    p.set_threads(threads);
    const Eigen::VectorXd zeta = 0.1 * Eigen::VectorXd::LinSpaced(p.dim(), -1, 1);
    Eigen::VectorXd out(p.output_dim());
    p.run(zeta, out);
    const long before = g_allocations.load();
    for (int r = 0; r < runs; ++r) p.run(zeta, out);
    return g_allocations.load() - before;
}

void check_no_allocation(Program& p) {
    for (int threads : {1, 2, 3}) {
        INFO("threads = " << threads);
        CHECK(allocations_per_runs(p, threads) == 0);
    }
}

}  // namespace

TEST_CASE("the counting allocator counts", "[compile]") {
    const long before = g_allocations.load();
    Eigen::MatrixXd A = Eigen::MatrixXd::Random(20, 20);        // Eigen's aligned malloc
    std::vector<double> v(static_cast<std::size_t>(A.size()));  // operator new
    std::copy(A.data(), A.data() + A.size(), v.begin());
    CHECK(g_allocations.load() - before == 2);
    CHECK(v[3] == A(3, 0));
}

TEST_CASE("benchmark models run without allocating", "[compile]") {
    SECTION("linear regression with ARD") {
        const bench::LinearRegressionData d(2000, 40);
        Model m;
        bench::build_linreg_ard(m, d);
        Program p = compile(m);
        check_no_allocation(p);
    }
    SECTION("hierarchical logistic regression") {
        const bench::ElectionData d(3000);
        Model m;
        bench::build_hier_logistic(m, d);
        Program p = compile(m);
        check_no_allocation(p);
    }
    SECTION("stochastic volatility") {
        const bench::StochVolData d(300);
        Model m;
        bench::build_stochvol(m, d);
        Program p = compile(m);
        check_no_allocation(p);
    }
    SECTION("Gaussian mixture") {
        const bench::GmmData d(3000, 8, 4);
        Model m;
        bench::build_gmm(m, d);
        Program p = compile(m);
        check_no_allocation(p);
    }
}

TEST_CASE("models with factorisations and constrained matrices run without allocating",
          "[compile]") {
    const int K = 4;
    Eigen::MatrixXd Y(30, K);
    for (int i = 0; i < Y.rows(); ++i)
        for (int j = 0; j < K; ++j) Y(i, j) = std::sin(1.0 + i * 0.7 + j * 1.3);
    Eigen::MatrixXd S = Eigen::MatrixXd::Identity(K, K);
    Eigen::VectorXd zero = Eigen::VectorXd::Zero(K);
    // Data is read in place: named vectors, not temporaries (Model::data refuses those).
    const Eigen::VectorXd y0 = Y.row(0).transpose();
    const Eigen::VectorXd ones = Eigen::VectorXd::Ones(K);
    SECTION("multi_normal with a covariance matrix and an LKJ Cholesky factor") {
        Model m;
        auto y = m.data("y", y0);
        auto z = m.data("zero", zero);
        auto L = m.param("L", lkj_corr_cholesky(2.0), K, K);
        auto tau = m.param("tau", lognormal(0, 1), K);
        auto Sigma = m.param("Sigma", inv_wishart(K + 2.0, m.data("S", S)), K, K);
        m.observe(y, multi_normal_cholesky(z, diag_pre_multiply(tau, L)));
        m.observe(y, multi_normal(z, Sigma));
        m.target_add(log_determinant(Sigma) + sum(inverse(Sigma)));
        Program p = compile(m);
        check_no_allocation(p);
    }
    SECTION("simplex, ordered and correlation matrices") {
        Model m;
        auto theta = m.param("theta", dirichlet(m.data("alpha", ones)), K);
        auto c = m.param("c", normal(0, 3), K, ParamOptions{.support = Support::ordered()});
        auto Omega = m.param("Omega", lkj_corr(2.0), K, K);
        auto W = m.param("W", wishart(K + 1.0, m.data("S", S)), K, K);
        m.target_add(sum(log(theta)) + sum(c) + log_determinant(Omega) + log_determinant(W));
        Program p = compile(m);
        check_no_allocation(p);
    }
}

// The curvature program: hessian_vector(zeta, v, grad, hv) with grad and hv of the right size
// copies into its own [zeta; v] and out of its [grad; H v], and runs a Program.
TEST_CASE("Hessian-vector products run without allocating", "[compile][hessian]") {
    auto check = [](HessianVectorProgram& p) {
        for (int threads : {1, 2, 3}) {
            INFO("threads = " << threads);
            p.set_threads(threads);
            const Eigen::VectorXd zeta = 0.1 * Eigen::VectorXd::LinSpaced(p.dim(), -1, 1);
            const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(p.dim(), 1, -0.5);
            Eigen::VectorXd grad(p.dim()), hv(p.dim());
            p.hessian_vector(zeta, v, grad, hv);
            const long before = g_allocations.load();
            for (int r = 0; r < 3; ++r) {
                p.hessian_vector(zeta, v, grad, hv);
                p.log_density_gradient(zeta, grad);
            }
            CHECK(g_allocations.load() - before == 0);
        }
    };
    SECTION("Gaussian mixture (simplex, log_sum_exp_rows)") {
        const bench::GmmData d(500, 5, 3);
        Model m;
        bench::build_gmm(m, d);
        HessianVectorProgram p = compile_hessian_vector(m.spec());
        check(p);
    }
    SECTION("stochastic volatility (linear scans)") {
        const bench::StochVolData d(300);
        Model m;
        bench::build_stochvol(m, d);
        HessianVectorProgram p = compile_hessian_vector(m.spec());
        check(p);
    }
}

}  // namespace advi
