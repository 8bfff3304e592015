// Issue 19, "Measured and reported": the default fit against the stored references of
// report/references/ (written once by report/make_references; this test never reruns them).
// Per model and family, over three seeds: the median final ELBO (re-estimated with 5,000 draws)
// is within max(1 nat, 0.1%) of the patient plain-Adam ELBO, full-rank's is at least
// mean-field's, and on near-Gaussian posteriors full-rank's means are within 0.3 reference sds.
#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/compile/pipeline.hpp>
#include <advi/fit/compiled_target.hpp>
#include <advi/fit/fit.hpp>
#include <advi/io/read_data.hpp>

#include "reference_models.hpp"

namespace advi::test {
namespace {

const std::filesystem::path kSource = ADVI_SOURCE_DIR;
const std::filesystem::path kShared = ADVI_SHARED_DATA;

// ../shared/data sits beside the repository on our machines; a clone elsewhere has none, and
// the cases that read its data say so and skip, as the data readers' tests do.
bool shared_data_present() {
    if (std::filesystem::exists(kShared / "sim"))
        return true;
    WARN("shared data not found at " << kShared << ": skipped");
    return false;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The tolerance for "meets the patient ELBO".
double tolerance(double patient) {
    return std::max(1.0, 1e-3 * std::abs(patient));
}

// Draws of each fit's precise ELBO. Its Monte Carlo standard error is checked below a tenth of
// the tolerance (measured 0.014 to 0.041 nats at 5,000 draws, 0.007 to 0.022 at 20,000): more
// draws would resolve differences far below what the test decides, and the estimate was 90% of
// the test's time (262 s under the sanitizers at 20,000 draws, with the gradient program).
constexpr int kElboDraws = 5000;

struct FamilyResult {
    double median_elbo = 0.0;
    double median_worst_mean_error = 0.0;  // in reference sds
    double max_elbo_se = 0.0;              // the precise ELBOs' largest standard error
};

FamilyResult fit_family(const references::LoadedModel& model, Target& target,
                        const references::Reference& ref, Family family) {
    std::vector<double> elbos, errors;
    double max_se = 0.0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        Options o;
        o.family = family;
        o.seed = seed;
        o.threads = 1;
        const Fit f = fit(model.spec, o);
        const references::ElboWithSe e =
            references::precise_elbo(target, f.result().q, kElboDraws, 100 + seed);
        elbos.push_back(e.elbo);
        // NaN (a non-finite draw) stays NaN and fails the check on it.
        max_se = std::isnan(e.se) ? e.se : std::max(max_se, e.se);
        const Eigen::VectorXd mean = f.theta_draws().colwise().mean().transpose();
        errors.push_back(((mean - ref.mean).array().abs() / ref.sd.array()).maxCoeff());
    }
    return {median(elbos), median(errors), max_se};
}

void check_model(const std::string& name) {
    const references::ReferenceModel& m = references::reference_model(name);
    auto model = references::load(m, kSource, kShared);
    const references::Reference ref =
        references::read_reference(kSource / "report/references" / (m.name + ".reference.txt"));
    REQUIRE(ref.labels == references::theta_labels(model->spec));
    Program gradient = compile(model->spec);
    gradient.set_threads(1);
    // The precise ELBOs' log densities from the value program alone: the gradient
    // program's (TargetRef's log_density) cost twice as much, and under the sanitizers a new
    // gradient vector per draw besides.
    CompiledTarget target(model->spec, gradient, 1);
    const FamilyResult mf = fit_family(*model, target, ref, Family::MeanField);
    const FamilyResult fr = fit_family(*model, target, ref, Family::FullRank);
    INFO(name << ": mean-field median ELBO " << mf.median_elbo << " (patient "
              << ref.mean_field.elbo << "), full-rank " << fr.median_elbo << " (patient "
              << ref.full_rank.elbo << "); full-rank worst mean error "
              << fr.median_worst_mean_error << " reference sds");
    INFO("largest precise-ELBO standard errors: mean-field " << mf.max_elbo_se << ", full-rank "
                                                             << fr.max_elbo_se);
    CHECK(mf.max_elbo_se < 0.1 * tolerance(ref.mean_field.elbo));
    CHECK(fr.max_elbo_se < 0.1 * tolerance(ref.full_rank.elbo));
    CHECK(mf.median_elbo >= ref.mean_field.elbo - tolerance(ref.mean_field.elbo));
    CHECK(fr.median_elbo >= ref.full_rank.elbo - tolerance(ref.full_rank.elbo));
    CHECK(fr.median_elbo >= mf.median_elbo - tolerance(mf.median_elbo));
    if (m.near_gaussian)
        CHECK(fr.median_worst_mean_error <= 0.3);
}

}  // namespace

// The stored references are themselves checked against mathematics where it is known: gauss2d's
// posterior is Gaussian, N(m, P^-1) with P = Sigma0^-1 + N Sigma^-1 (computed here from the
// data), so its stored moments must be the analytic ones, and the patient ELBOs of the two
// families must differ by KL(mean-field optimum || p) = (sum log P_dd - log det P) / 2.
TEST_CASE("references: gauss2d's stored reference is the analytic posterior", "[report]") {
    if (!shared_data_present())
        return;
    const DataTable data = read_data(kShared / "sim/gauss2d/small.data.json");
    const Eigen::MatrixXd y = data.at("y").as_matrix();
    const Eigen::MatrixXd Sigma = data.at("Sigma").as_matrix();
    const Eigen::MatrixXd Sigma0 = data.at("Sigma0").as_matrix();
    const Eigen::VectorXd mu0 = data.at("mu0").as_vector();
    const Eigen::MatrixXd P = Sigma0.inverse() + static_cast<double>(y.rows()) * Sigma.inverse();
    const Eigen::MatrixXd cov = P.inverse();
    const Eigen::VectorXd mean =
        cov * (Sigma0.inverse() * mu0 + Sigma.inverse() * y.colwise().sum().transpose());
    const references::Reference ref =
        references::read_reference(kSource / "report/references/gauss2d.reference.txt");
    REQUIRE(ref.mean.size() == 2);
    for (int d = 0; d < 2; ++d) {
        const double sd = std::sqrt(cov(d, d));
        // 100,000 draws: Monte Carlo error 0.003 sd in a mean, 0.2% in an sd.
        CHECK(std::abs(ref.mean[d] - mean[d]) < 0.015 * sd);
        CHECK(std::abs(ref.sd[d] / sd - 1.0) < 0.01);
    }
    const double kl = 0.5 * (P.diagonal().array().log().sum() - std::log(P.determinant()));
    const double se = std::hypot(ref.mean_field.se, ref.full_rank.se);
    INFO("patient gap " << ref.full_rank.elbo - ref.mean_field.elbo << ", analytic " << kl);
    CHECK(std::abs((ref.full_rank.elbo - ref.mean_field.elbo) - kl) < 4 * se + 0.02);
}

// The reference draws (compare_fits' W1 column) are draws of the stored reference posterior:
// their columns name the same elements, and their means and sds agree with the stored moments
// within Monte Carlo error (2,000 draws: a mean's standard error is 0.022 sds; 0.1 sds and 10%
// would catch draws of another posterior, another ordering or another model's file).
TEST_CASE("references: the stored draws agree with the stored moments", "[report]") {
    for (const references::ReferenceModel& m : references::reference_models()) {
        const references::Reference ref =
            references::read_reference(kSource / "report/references" / (m.name + ".reference.txt"));
        const references::ReferenceDraws d = references::read_reference_draws(
            kSource / "report/references" / (m.name + ".draws.txt"));
        INFO(m.name);
        REQUIRE(d.labels == ref.labels);
        REQUIRE(d.theta.rows() == 2000);
        const Eigen::VectorXd mean = d.theta.colwise().mean().transpose();
        const Eigen::VectorXd sd =
            ((d.theta.rowwise() - mean.transpose()).array().square().colwise().sum() /
             static_cast<double>(d.theta.rows() - 1))
                .sqrt()
                .transpose();
        CHECK(((mean - ref.mean).array() / ref.sd.array()).abs().maxCoeff() < 0.1);
        CHECK((sd.array() / ref.sd.array() - 1.0).abs().maxCoeff() < 0.1);
    }
}

// Every ELBO is log p(x) - KL(q || p), so the stored patient ELBOs lie below the log evidence
// where importance sampling gives it, full-rank's at least mean-field's (its family is larger),
// and on gauss2d, where the full-rank optimum is the posterior itself, full-rank's is log p(x).
TEST_CASE("references: patient ELBOs lie below the log evidence and full-rank's above mean-field's",
          "[report]") {
    int with_evidence = 0;
    for (const references::ReferenceModel& m : references::reference_models()) {
        const references::Reference ref =
            references::read_reference(kSource / "report/references" / (m.name + ".reference.txt"));
        INFO(m.name << ": mean-field " << ref.mean_field.elbo << ", full-rank "
                    << ref.full_rank.elbo << ", log evidence " << ref.log_evidence);
        const double se = std::hypot(ref.mean_field.se, ref.full_rank.se);
        CHECK(ref.full_rank.elbo >= ref.mean_field.elbo - 4 * se);
        if (!std::isfinite(ref.log_evidence))
            continue;
        ++with_evidence;
        // 0.01: the evidence's own Monte Carlo error (ESS above 85,000 on these models).
        CHECK(ref.full_rank.elbo <= ref.log_evidence + 4 * ref.full_rank.se + 0.01);
        if (m.name == "gauss2d")
            CHECK(std::abs(ref.full_rank.elbo - ref.log_evidence) < 4 * ref.full_rank.se + 0.01);
    }
    CHECK(with_evidence >= 6);
}

// The ELBO check has teeth: the stored patient q's ELBO is the optimum's, so q moved off it by
// two posterior sds in every coordinate is far below it (a Gaussian target loses 2 nats per
// coordinate) and must fail the same tolerance the fits are held to.
TEST_CASE("references: an approximation two sds off fails the patient-ELBO check", "[report]") {
    const references::ReferenceModel& m = references::reference_model("linreg_std");
    auto model = references::load(m, kSource, kShared);
    const references::Reference ref =
        references::read_reference(kSource / "report/references/linreg_std.reference.txt");
    Program gradient = compile(model->spec);
    gradient.set_threads(1);
    CompiledTarget target(model->spec, gradient, 1);
    Options o;
    o.family = Family::FullRank;
    o.seed = 1;
    o.threads = 1;
    const Fit f = fit(model->spec, o);
    Approximation off = f.result().q;
    off = Approximation::full_rank(off.mu() + 2.0 * off.sd(), off.L());
    const double moved = references::precise_elbo(target, off, 20000, 5).elbo;
    CHECK(moved < ref.full_rank.elbo - tolerance(ref.full_rank.elbo));
}

// Every case passes on issue 19's engine (start at the mode, the Auto rule); on the old engine
// (main at 9f9dbb0), measured over three seeds (median), the mean-field ELBO was short of the
// patient value on gauss2d (by 4.97 nats), logistic (1.95), linreg_raw (527), eight_schools_c
// (1.17), full-rank's on linreg_raw (430), linreg_std (1.18), eight_schools_nc (1.19),
// eight_schools_c (2.83), and full-rank means were off by 0.33 to 1177 reference sds on
// logistic, linreg_raw, linreg_std, logistic_glm, poisson_glm.
#define ADVI_REFERENCE_CASE(model, tags)                                             \
    TEST_CASE("references: default fit of " model " meets the patient ELBO", tags) { \
        if (shared_data_present())                                                   \
            check_model(model);                                                      \
    }

ADVI_REFERENCE_CASE("gauss2d", "[report]")
ADVI_REFERENCE_CASE("logistic", "[report]")
ADVI_REFERENCE_CASE("linreg_raw", "[report]")
ADVI_REFERENCE_CASE("linreg_std", "[report]")
ADVI_REFERENCE_CASE("logistic_glm", "[report]")
ADVI_REFERENCE_CASE("poisson_glm", "[report]")
ADVI_REFERENCE_CASE("eight_schools_nc", "[report]")
ADVI_REFERENCE_CASE("eight_schools_c", "[report]")
ADVI_REFERENCE_CASE("hier_logistic_small", "[report]")

}  // namespace advi::test
