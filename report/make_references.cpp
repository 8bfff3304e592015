// make_references: the stored references of report/references/ (issue 19, "Measured and
// reported"), run once and committed; the test suite reads them and never reruns this.
//
// Per model (reference_models.hpp):
//  - the posterior's mean and sd per constrained element: importance sampling from the Laplace
//    approximation (100,000 draws, PSIS-smoothed weights), trusted when k-hat < 0.5 or the log
//    ratios are constant (a Gaussian posterior: the Laplace Gaussian is then the analytic
//    posterior); otherwise a long random-walk Metropolis chain (adapted proposal), whose
//    batch-means Monte Carlo error is stated;
//  - the patient ELBO per family: plain Adam, fixed small step sizes, tens of thousands of
//    steps, several seeds, on the same gradient program and the engine's own gradient estimator
//    (engine/elbo.hpp), its final ELBO estimated with 100,000 draws and their standard error.
//
// Usage (from the repository root):
//   ./build/report/make_references [--only NAME] [--steps N] [--draws-only]
// --draws-only: only the reference draws (report/references/<name>.draws.txt, 2,000 draws of the
// same reference posterior: resampled from the importance weights, or thinned from the chain),
// not the patient ELBOs.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <fmt/format.h>

#include <advi/compile/pipeline.hpp>
#include <advi/engine/elbo.hpp>
#include <advi/engine/rng.hpp>
#include <advi/fit/laplace.hpp>
#include <advi/fit/psis.hpp>

#include "reference_models.hpp"

namespace {

using advi::Approximation;
using advi::Family;
using advi::Program;
using advi::Rng;
using advi::Target;
using advi::TargetRef;
using advi::references::LoadedModel;
using advi::references::PatientElbo;
using advi::references::Reference;
using advi::references::ReferenceModel;

const std::filesystem::path kSource = ADVI_SOURCE_DIR;
const std::filesystem::path kShared = ADVI_SHARED_DATA;

constexpr int kLaplaceDraws = 100000;
constexpr int kSeeds = 3;
constexpr int kGradSamples = 4;
constexpr double kFastRate = 1e-2, kSlowRate = 1e-3;
constexpr int kAveraged = 5000;  // the last steps, averaged (Polyak): the noise floor's mean
constexpr int kElboDraws = 100000;
// Reference draws kept for compare_fits' 1-Wasserstein column: two independent sets of 1,000
// (one to compare fits with, one to measure the distance's floor between two exact samples).
constexpr int kReferenceDraws = 2000;

// The target in coordinates u with zeta = center + scale .* u (a fixed affine map): both
// families are closed under it and the ELBO is invariant (the log-Jacobian sum log scale is
// added), so Adam here optimises the same objective; it makes Adam's fixed step, which is about
// the step size in every coordinate whatever the gradient's scale, a fraction of a posterior sd
// in each (linreg_raw has posterior sds from 1e-6 to 1).
class AffineTarget final : public Target {
public:
    AffineTarget(Target& base, Eigen::VectorXd center, Eigen::VectorXd scale)
        : base_(base),
          center_(std::move(center)),
          scale_(std::move(scale)),
          log_det_(scale_.array().log().sum()),
          zeta_(center_.size()),
          grad_(center_.size()) {}
    int dim() const override { return static_cast<int>(center_.size()); }
    double log_density_gradient(const Eigen::VectorXd& u, Eigen::VectorXd& grad) override {
        zeta_ = center_ + scale_.cwiseProduct(u);
        const double lp = base_.log_density_gradient(zeta_, grad_);
        grad = scale_.cwiseProduct(grad_);
        return lp + log_det_;
    }
    Approximation to_zeta(const Approximation& q) const {
        const Eigen::VectorXd mu = center_ + scale_.cwiseProduct(q.mu());
        if (q.family() == Family::MeanField)
            return Approximation::mean_field(mu, q.omega() + scale_.array().log().matrix());
        return Approximation::full_rank(mu, scale_.asDiagonal() * q.L());
    }

private:
    Target& base_;
    Eigen::VectorXd center_, scale_;
    double log_det_;
    Eigen::VectorXd zeta_, grad_;
};

struct Moments {
    Eigen::VectorXd mean, sd;
};

Moments weighted_moments(const Eigen::MatrixXd& x, const Eigen::VectorXd& w) {
    Moments m;
    m.mean = (x.transpose() * w) / w.sum();
    const Eigen::MatrixXd centred = x.rowwise() - m.mean.transpose();
    m.sd = ((centred.array().square().matrix().transpose() * w) / w.sum()).cwiseSqrt();
    return m;
}

// Random-walk Metropolis on zeta: three adaptation rounds (the proposal's covariance
// 2.38^2 / d times the round's sample covariance, Roberts and Rosenthal's scaling), then a
// long chain thinned by 10. Returns the kept zeta draws, one per row.
Eigen::MatrixXd random_walk(Target& target, Eigen::VectorXd start, Eigen::MatrixXd chol, long steps,
                            std::uint64_t seed, double* acceptance) {
    const int d = target.dim();
    Rng rng(seed);
    Eigen::VectorXd x = std::move(start), y(d), eta(d);
    double lp = target.log_density(x);
    auto uniform = [&] {
        return (static_cast<double>(rng.next_u64() >> 11) + 0.5) / 9007199254740992.0;
    };
    long accepted = 0;
    auto step = [&] {
        for (int i = 0; i < d; ++i) eta[i] = rng.normal();
        y = x + chol * eta;
        const double lq = target.log_density(y);
        if (std::isfinite(lq) && std::log(uniform()) < lq - lp) {
            x = y;
            lp = lq;
            ++accepted;
        }
    };
    const int round = 50000;
    for (int r = 0; r < 3; ++r) {
        Eigen::MatrixXd s(round, d);
        for (int i = 0; i < round; ++i) {
            step();
            s.row(i) = x.transpose();
        }
        const Eigen::RowVectorXd m = s.colwise().mean();
        const Eigen::MatrixXd c = s.rowwise() - m;
        Eigen::MatrixXd cov = (c.transpose() * c) / (round - 1);
        cov.diagonal().array() += 1e-12;
        chol = Eigen::LLT<Eigen::MatrixXd>(cov * (2.38 * 2.38 / d)).matrixL();
    }
    const int thin = 10;
    Eigen::MatrixXd kept(steps / thin, d);
    accepted = 0;
    for (long i = 0; i < steps; ++i) {
        step();
        if (i % thin == thin - 1)
            kept.row(i / thin) = x.transpose();
    }
    *acceptance = static_cast<double>(accepted) / static_cast<double>(steps);
    return kept;
}

// The largest batch-means Monte Carlo standard error of the column means, in column sds.
double worst_mcse_in_sds(const Eigen::MatrixXd& x) {
    const int batches = 50;
    const Eigen::Index per = x.rows() / batches;
    double worst = 0.0;
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
        Eigen::VectorXd means(batches);
        for (int b = 0; b < batches; ++b) means[b] = x.col(j).segment(b * per, per).mean();
        const double sd_batch =
            std::sqrt((means.array() - means.mean()).square().sum() / (batches - 1));
        const double sd = std::sqrt((x.col(j).array() - x.col(j).mean()).square().sum() /
                                    static_cast<double>(x.rows() - 1));
        worst = std::max(worst, sd_batch / std::sqrt(static_cast<double>(batches)) / sd);
    }
    return worst;
}

// kReferenceDraws rows of x: evenly spaced through a chain (its kept draws are nearly
// independent when there are many more), so the two halves are independent samples.
Eigen::MatrixXd thinned(const Eigen::MatrixXd& x) {
    Eigen::MatrixXd out(kReferenceDraws, x.cols());
    for (int i = 0; i < kReferenceDraws; ++i)
        out.row(i) = x.row(static_cast<Eigen::Index>(i) * x.rows() / kReferenceDraws);
    return out;
}

// kReferenceDraws rows of x drawn in proportion to the weights w (systematic resampling: one
// uniform, then evenly spaced points on the weights' cumulative sum), in a random order so
// that the two halves are alike.
Eigen::MatrixXd resampled(const Eigen::MatrixXd& x, const Eigen::VectorXd& w, std::uint64_t seed) {
    Rng rng(seed);
    auto uniform = [&rng] { return static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53; };
    const double total = w.sum();
    Eigen::MatrixXd out(kReferenceDraws, x.cols());
    double cumulative = 0.0, point = uniform() / kReferenceDraws;
    Eigen::Index j = -1;
    for (int i = 0; i < kReferenceDraws; ++i, point += 1.0 / kReferenceDraws) {
        while (cumulative <= point && j + 1 < x.rows()) cumulative += w[++j] / total;
        out.row(i) = x.row(j);
    }
    for (int i = kReferenceDraws - 1; i > 0; --i) {  // Fisher-Yates
        const auto k = static_cast<Eigen::Index>(uniform() * (i + 1)) % (i + 1);
        out.row(i).swap(out.row(k));
    }
    return out;
}

Eigen::MatrixXd to_theta(const advi::ModelSpec& spec, const Eigen::MatrixXd& zeta) {
    Program map = advi::compile_constrain_map(spec);
    map.set_threads(1);
    Eigen::MatrixXd theta(zeta.rows(), spec.theta_dim());
    Eigen::VectorXd z(spec.zeta_dim()), t(spec.theta_dim());
    for (Eigen::Index i = 0; i < zeta.rows(); ++i) {
        z = zeta.row(i).transpose();
        map.run(z, t);
        theta.row(i) = t.transpose();
    }
    return theta;
}

struct Posterior {
    Moments theta;
    Eigen::VectorXd zeta_mean, zeta_sd;  // for the patient runs' affine map
    std::string method;
    Eigen::MatrixXd zeta_draws;   // the chain, when there is one
    Eigen::MatrixXd theta_draws;  // kReferenceDraws draws (constrained), for the W1 column
    // log p(x) by importance sampling from the Laplace approximation, where trusted; NaN else.
    double log_evidence = std::numeric_limits<double>::quiet_NaN();
};

Posterior posterior_by_random_walk(const ReferenceModel& m, const LoadedModel& model,
                                   Target& target, const advi::LaplaceFit* laplace) {
    const int d = model.spec.zeta_dim();
    Eigen::VectorXd start = laplace ? laplace->mode() : Eigen::VectorXd::Zero(d);
    Eigen::MatrixXd chol =
        laplace ? Eigen::MatrixXd(
                      Eigen::LLT<Eigen::MatrixXd>(laplace->gaussian().covariance()).matrixL()) *
                      (2.38 / std::sqrt(d))
                : Eigen::MatrixXd(Eigen::MatrixXd::Identity(d, d) * 0.1);
    const long steps = 4000000;
    double acceptance = 0.0;
    Posterior p;
    p.zeta_draws = random_walk(target, start, chol, steps, 19, &acceptance);
    const Eigen::MatrixXd theta = to_theta(model.spec, p.zeta_draws);
    p.theta = weighted_moments(theta, Eigen::VectorXd::Ones(theta.rows()));
    p.theta_draws = thinned(theta);
    const Moments z = weighted_moments(p.zeta_draws, Eigen::VectorXd::Ones(theta.rows()));
    p.zeta_mean = z.mean;
    p.zeta_sd = z.sd;
    p.method = fmt::format(
        "random-walk Metropolis, {} steps after 3 adaptation rounds of 50000, thinned by 10, "
        "acceptance {:.2f}; largest batch-means MCSE of a mean {:.3f} sd{}",
        steps, acceptance, worst_mcse_in_sds(theta),
        laplace ? "" : " (no Laplace approximation: " + m.name + " has no mode)");
    return p;
}

// Centred eight schools has no mode (no Laplace start) and its funnel is where a random walk
// under-visits the neck; its posterior over (mu, tau, theta) is the non-centred model's, whose
// geometry a random walk handles, so its reference is that chain mapped: theta = mu + tau eta.
Posterior centred_from_noncentred(Target& centred_target) {
    const ReferenceModel& nc = advi::references::reference_model("eight_schools_nc");
    auto model = advi::references::load(nc, kSource, kShared);
    Program gradient = advi::compile(model->spec);
    gradient.set_threads(1);
    TargetRef<Program> target(gradient);
    advi::LaplaceOptions lo;
    lo.draws = 1000;
    lo.threads = 1;
    const advi::LaplaceFit laplace = advi::laplace(model->spec, lo);
    Posterior chain = posterior_by_random_walk(nc, *model, target, &laplace);
    // nc's zeta: mu, log tau, eta[1..J]; the centred model's: mu, log tau, theta[1..J].
    Eigen::MatrixXd zeta = chain.zeta_draws;
    const Eigen::VectorXd tau = zeta.col(1).array().exp();
    for (Eigen::Index j = 2; j < zeta.cols(); ++j)
        zeta.col(j) = zeta.col(0) + tau.cwiseProduct(zeta.col(j));
    Posterior p;
    const Eigen::VectorXd ones = Eigen::VectorXd::Ones(zeta.rows());
    const Moments z = weighted_moments(zeta, ones);
    p.zeta_mean = z.mean;
    p.zeta_sd = z.sd;
    Eigen::MatrixXd theta = zeta;
    theta.col(1) = tau;
    p.theta = weighted_moments(theta, ones);
    p.theta_draws = thinned(theta);
    p.method = "the non-centred model's chain mapped, theta = mu + tau eta: " + chain.method;
    (void)centred_target;
    return p;
}

Posterior reference_posterior(const ReferenceModel& m, const LoadedModel& model, Target& target) {
    if (m.name == "eight_schools_c")
        return centred_from_noncentred(target);
    std::optional<advi::LaplaceFit> laplace;
    std::string laplace_failure;
    try {
        advi::LaplaceOptions lo;
        lo.draws = kLaplaceDraws;
        lo.seed = 19;
        lo.threads = 1;
        laplace.emplace(advi::laplace(model.spec, lo));
    } catch (const std::exception& e) {
        laplace_failure = e.what();
        laplace_failure = laplace_failure.substr(0, laplace_failure.find('\n'));
    }
    if (laplace) {
        const advi::Psis& w = laplace->psis();
        if (w.constant || w.k_hat < 0.5) {
            Posterior p;
            Eigen::VectorXd weights = w.log_weights.array().exp();
            p.theta = weighted_moments(laplace->theta_draws(), weights);
            p.theta_draws = resampled(laplace->theta_draws(), weights, 23);
            p.zeta_mean = laplace->mode();
            p.zeta_sd = laplace->gaussian().covariance().diagonal().cwiseSqrt();
            // log mean exp(log p - log g): every ELBO is below it (ELBO = log p(x) - KL).
            const Eigen::VectorXd ratio = laplace->log_p() - laplace->log_g();
            const double top = ratio.maxCoeff();
            p.log_evidence = top + std::log((ratio.array() - top).exp().mean());
            p.method = w.constant
                           ? fmt::format(
                                 "Laplace approximation, exact (log p - log g constant over {} "
                                 "draws: the posterior is Gaussian); moments of its draws",
                                 kLaplaceDraws)
                           : fmt::format(
                                 "importance sampling from the Laplace approximation, {} draws, "
                                 "PSIS k-hat {:.3f}, ESS {:.0f}",
                                 kLaplaceDraws, w.k_hat, w.ess);
            return p;
        }
        Posterior p = posterior_by_random_walk(m, model, target, &*laplace);
        p.method +=
            fmt::format(" (importance sampling from Laplace not trusted: k-hat {:.2f})", w.k_hat);
        return p;
    }
    Posterior p = posterior_by_random_walk(m, model, target, nullptr);
    p.method += " [" + laplace_failure + "]";
    return p;
}

// Plain Adam on the ELBO of one family from q = N(center, diag(scale^2)) in the affine
// coordinates: kFastRate for 2/3 of the steps, then kSlowRate, the last kAveraged iterates
// averaged; returns q in zeta.
Approximation patient_adam(AffineTarget& u_target, Family family, int steps, std::uint64_t seed) {
    const int d = u_target.dim();
    Approximation q = Approximation::initial(family, Eigen::VectorXd::Zero(d));
    Eigen::VectorXd p = q.params(), m1 = Eigen::VectorXd::Zero(p.size()),
                    m2 = Eigen::VectorXd::Zero(p.size()), avg = Eigen::VectorXd::Zero(p.size());
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    Rng rng(seed);
    const int slow_from = steps * 2 / 3;
    const int averaged = std::min(kAveraged, steps - slow_from);
    for (int t = 1; t <= steps; ++t) {
        const advi::ElboGradient g =
            advi::elbo_gradient(u_target, q, rng, kGradSamples, 10 * kGradSamples);
        if (g.ok()) {
            m1 = b1 * m1 + (1 - b1) * g.grad;
            m2 = b2 * m2 + (1 - b2) * g.grad.cwiseAbs2();
            const double rate = t <= slow_from ? kFastRate : kSlowRate;
            const Eigen::ArrayXd mhat = m1.array() / (1 - std::pow(b1, t));
            const Eigen::ArrayXd vhat = m2.array() / (1 - std::pow(b2, t));
            p.array() += rate * mhat / (vhat.sqrt() + eps);
            q.set_params(p);
        }
        if (t > steps - averaged)
            avg += p / averaged;
    }
    q.set_params(avg);
    return u_target.to_zeta(q);
}

PatientElbo patient_elbo(Target& target, const Posterior& post, Family family, int steps,
                         std::string& log) {
    AffineTarget u_target(target, post.zeta_mean, post.zeta_sd);
    PatientElbo best{-std::numeric_limits<double>::infinity(), 0.0, 0.0};
    double lowest = std::numeric_limits<double>::infinity();
    for (int s = 1; s <= kSeeds; ++s) {
        const Approximation q = patient_adam(u_target, family, steps, s);
        const auto e = advi::references::precise_elbo(target, q, kElboDraws, 1000 + s);
        log += fmt::format(" {:.3f}", e.elbo);
        lowest = std::min(lowest, e.elbo);
        if (e.elbo > best.elbo) {
            best.elbo = e.elbo;
            best.se = e.se;
        }
    }
    best.spread = best.elbo - lowest;
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    std::string only;
    int steps = 20000;
    bool draws_only = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--only" && i + 1 < argc)
            only = argv[++i];
        else if (a == "--steps" && i + 1 < argc)
            steps = std::stoi(argv[++i]);
        else if (a == "--draws-only")
            draws_only = true;
        else {
            std::cerr << "usage: make_references [--only NAME] [--steps N] [--draws-only]\n";
            return 2;
        }
    }
    try {
        if (!only.empty())
            (void)advi::references::reference_model(only);  // refuses an unknown name
        for (const ReferenceModel& m : advi::references::reference_models()) {
            if (!only.empty() && m.name != only)
                continue;
            auto model = advi::references::load(m, kSource, kShared);
            Program gradient = advi::compile(model->spec);
            gradient.set_threads(1);
            TargetRef<Program> target(gradient);
            const Posterior post = reference_posterior(m, *model, target);
            const auto draws_file = kSource / "report/references" / (m.name + ".draws.txt");
            advi::references::write_reference_draws(
                draws_file,
                {post.method, advi::references::theta_labels(model->spec), post.theta_draws});
            fmt::print("{}: {} reference draws written: {}\n", m.name, post.theta_draws.rows(),
                       post.method);
            std::fflush(stdout);
            if (draws_only)
                continue;
            Reference r;
            r.method = post.method;
            r.command = "./build/report/make_references --only " + m.name +
                        (steps == 20000 ? "" : " --steps " + std::to_string(steps));
            r.settings = fmt::format(
                "plain Adam (beta 0.9, 0.999), {} steps: {} at step size {} then {} at {}, "
                "{} gradient draws per step, the last {} iterates averaged, in coordinates "
                "zeta = reference mean + reference sd .* u (affine: the ELBO is unchanged); "
                "{} seeds, the best kept; its ELBO over {} draws",
                steps, steps * 2 / 3, kFastRate, steps - steps * 2 / 3, kSlowRate, kGradSamples,
                std::min(kAveraged, steps - steps * 2 / 3), kSeeds, kElboDraws);
            r.labels = advi::references::theta_labels(model->spec);
            r.log_evidence = post.log_evidence;
            r.mean = post.theta.mean;
            r.sd = post.theta.sd;
            std::string mf_log, fr_log;
            r.mean_field = patient_elbo(target, post, Family::MeanField, steps, mf_log);
            r.full_rank = patient_elbo(target, post, Family::FullRank, steps, fr_log);
            const auto file = kSource / "report/references" / (m.name + ".reference.txt");
            advi::references::write_reference(file, r);
            fmt::print("{}: {}\n  mean-field ELBO per seed{}\n  full-rank ELBO per seed{}\n",
                       m.name, r.method, mf_log, fr_log);
            std::fflush(stdout);
        }
    } catch (const std::exception& e) {
        std::cerr << "make_references: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
