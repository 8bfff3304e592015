// The table of Stan's functions and distributions (dsl/advi/stan/functions.hpp): every row's
// signatures read and print back, names are unique, the densities are the library's table,
// and the checker knows exactly the table's names.
#include <algorithm>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/dist/distribution.hpp>
#include <advi/stan/functions.hpp>
#include <advi/stan/lower_densities.hpp>
#include <advi/stan/signature.hpp>
#include <advi/stan/stan_library.hpp>

namespace advi::stan {

TEST_CASE("signatures read and print back", "[stan]") {
    for (const char* text : {"() => real", "(T) => R", "(T1, T2) => R", "(real, int) => vector",
                             "(array[] T, int, int) => array[] T", "(array[,] real) => matrix",
                             "(reals | reals, reals) => real", "(ints | vector) => real"}) {
        CHECK(str(parse_signature(text)) == text);
    }
    const Signature s = parse_signature("(vectors | vectors, matrix) => real");
    CHECK(s.density);
    REQUIRE(s.args.size() == 3);
    CHECK(s.args[0].kind == TypeKind::Vectors);
    CHECK(s.args[2].kind == TypeKind::Matrix);
    CHECK(parse_signatures("(vector) => int; (matrix) => int").size() == 2);
    CHECK_THROWS_AS(parse_signature("(real => real"), InternalError);
    CHECK_THROWS_AS(parse_signature("(quaternion) => real"), InternalError);
}

TEST_CASE("every row of the Stan tables has a name, signatures and a lowering", "[stan]") {
    std::set<std::string_view> names;
    auto row = [&](const auto& r) {
        INFO(r.name);
        CHECK(names.insert(r.name).second);
        CHECK(!r.signatures.empty());
        if constexpr (requires { r.whole; })  // an _rng row: elementwise or whole
            CHECK((r.lower != nullptr) != (r.whole != nullptr));
        else
            CHECK(r.lower != nullptr);
        for (const Signature& s : r.signatures) CHECK(str(parse_signature(str(s))) == str(s));
        CHECK(is_known_function(r.name));
    };
    for (const FunctionRow& r : functions()) row(r);
    for (const RandomRow& r : random_functions()) row(r);
    for (const DensityRow& r : densities()) {
        INFO(r.name);
        CHECK(is_known_distribution(r.name));
        for (const char* suffix : {"_lpdf", "_lpmf", "_lupdf", "_lupmf"})
            CHECK(is_known_function(std::string(r.name) + suffix));
        // Stan removed `_log`; the checker and the lowering say so (unavailable_reason)
        CHECK(!is_known_function(std::string(r.name) + "_log"));
        CHECK(!unavailable_reason(std::string(r.name) + "_log").empty());
        REQUIRE(!r.signatures.empty());
        CHECK(r.signatures.front().args.size() >= 1);
    }
    // every _rng draws from a distribution of the table
    for (const RandomRow& r : random_functions()) {
        const std::string_view family = r.name.substr(0, r.name.size() - 4);
        INFO(r.name);
        if (r.name == "hmm_latent_rng")
            continue;  // a hidden path of a hidden Markov model: no family of its own
        CHECK(find_density(family) != nullptr);
    }
}

TEST_CASE("the Stan densities are the library's distributions", "[stan]") {
    std::size_t stan = 0;
    for (const DistInfo& info : distributions()) {
        INFO(info.name);
        const DensityRow* row = find_density(info.name);
        // Stan's distributions only: the library's `flat` is not one of them
        const bool in_stan = find_library_function(std::string(info.name) + "_lpdf") != nullptr ||
                             find_library_function(std::string(info.name) + "_lpmf") != nullptr;
        CHECK((row != nullptr) == in_stan);
        CHECK(in_stan == (info.name != "flat"));
        if (row == nullptr)
            continue;
        ++stan;
        // the variate and the library's arguments (in one of the row's forms: wiener's first
        // is Stan's four-parameter one, without the library's sv)
        bool full = false;
        for (const Signature& sig : row->signatures)
            full = full || static_cast<int>(sig.args.size()) == info.arity + 1;
        CHECK(full);
    }
    // and std_normal, the six GLMs, the densities built as expressions that the library has not
    std::size_t composite = 0;
    for (const DensityRow& r : composite_densities()) {
        const bool library = std::any_of(distributions().begin(), distributions().end(),
                                         [&](const DistInfo& d) { return d.name == r.name; });
        composite += library ? 0 : 1;
    }
    CHECK(composite == 12);  // session 27: gaussian_dlm_obs
    CHECK(densities().size() == stan + 1 + 6 + composite);
}

TEST_CASE("the checker knows the names the lowering lowers", "[stan]") {
    // 103; issue 21: tan ... trunc, atan2, hypot, fmod, dims, choose, sub_col, sub_row,
    // quad_form_diag, gp_exp_quad_cov, log_falling_factorial, log_rising_factorial,
    // log_inv_logit_diff, binary_log_loss, no fabs; 26 CDF families x (lcdf, lccdf, cdf) and
    // std_normal_lccdf, std_normal_cdf
    // and fma, lmgamma, owens_t, lambert_w0, inv_erfc; session 21: container construction (18),
    // distances and norms (4), operators as functions (7), mdivide_* (4), matrix_power, the
    // trace forms (2), quad_form_sym, chol2inv, log_determinant_spd, int_step, beta, and the
    // rayleigh and loglogistic CDFs (4), rising_factorial, falling_factorial
    // session 25: the complex-only functions (get_real, get_imag, to_complex, polar, arg, norm,
    // conj, proj), add_diag, symmetrize_from_lower_tri; the structured transforms as functions
    // (9 kinds x constrain, jacobian, unconstrain)
    // session 26: trace_dot, gp_dot_prod_cov, gp_exponential_cov, gp_matern32_cov,
    // gp_matern52_cov, gp_periodic_cov, csr_to_dense_matrix, csr_matrix_times_vector, and the
    // QR functions (6); eigenvalues_sym, eigenvectors_sym, eigendecompose_sym;
    // log_modified_bessel_first_kind, inv_inc_beta, student_t_qf, hypergeometric_1F0, _2F1, _3F2,
    // _pFq, and the beta_binomial, beta_neg_binomial and von_mises CDFs (3 x 3)
    // session 27: hmm_marginal, hmm_hidden_state_prob, matrix_exp, matrix_exp_multiply,
    // scale_matrix_exp_multiply, singular_values, svd_U, svd_V, svd, fft, inv_fft, fft2, inv_fft2,
    // csr_extract(_w, _v, _u), eigenvalues, eigenvectors, eigendecompose,
    // complex_schur_decompose(_t, _u)
    CHECK(functions().size() == 412);
    // sub_row, quad_form_diag, gp_exp_quad_cov; no fabs
    for (const char* f : {"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
                          "tgamma", "floor", "ceil", "round", "trunc", "atan2", "hypot", "fmod"})
        CHECK(is_known_function(f));
    // issue 21: categorical(_logit), multi_normal(_cholesky), dirichlet, exp_mod_normal,
    // skew_double_exponential
    // von_mises_rng (the centred CDF inverted by bisection); session 27: hmm_latent_rng,
    // beta_binomial_rng, beta_neg_binomial_rng, hypergeometric_rng, inv_chi_square_rng,
    // scaled_inv_chi_square_rng, frechet_rng, pareto_rng, pareto_type_2_rng, skew_normal_rng,
    // multi_student_t(_cholesky)_rng, multinomial(_logit)_rng, dirichlet_multinomial_rng,
    // ordered_logistic_rng, bernoulli_logit_glm_rng; session 28: wishart(_cholesky)_rng,
    // inv_wishart(_cholesky)_rng, lkj_corr(_cholesky)_rng
    CHECK(random_functions().size() == 59);
    CHECK(is_known_function("rep_vector"));
    CHECK(is_known_function("normal_rng"));
    CHECK(is_known_function("poisson_log_lpmf"));
    CHECK(is_known_function("std_normal_lpdf"));
    CHECK(!is_known_function("fnord"));
    CHECK(!is_known_function("target"));  // the lowering refuses it by name
    CHECK(is_known_function("normal_lcdf"));
    CHECK(is_known_function("von_mises_lcdf"));
    CHECK(is_known_function("matrix_exp"));
    CHECK(is_known_function("gaussian_dlm_obs_lpdf"));
    CHECK(is_known_function("multi_normal_rng"));
    CHECK(is_known_function("wishart_rng"));
    CHECK(!is_known_function("laplace_latent_rng"));
    CHECK(!is_known_function("fnord_lpdf"));
    CHECK(is_known_distribution("std_normal"));
    CHECK(!is_known_distribution("norml"));
}

}  // namespace advi::stan
