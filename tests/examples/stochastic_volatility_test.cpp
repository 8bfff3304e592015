// examples/stochastic_volatility: the Stan program lowers to the C++ model's log density, and
// the fit on the shared simulated series recovers the volatility path and phi.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/io/read_data.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "../../examples/example_data.hpp"
#include "../../examples/stochastic_volatility_model.hpp"

#include "support/same_model.hpp"

namespace advi {
namespace {

using advi::test::check_same_density;
using advi::test::read_file;

double correlation(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    const Eigen::VectorXd ca = a.array() - a.mean(), cb = b.array() - b.mean();
    return ca.dot(cb) / std::sqrt(ca.squaredNorm() * cb.squaredNorm());
}

TEST_CASE("stochastic_volatility.stan lowers to the C++ model's log density", "[examples]") {
    const int T = 40;
    Eigen::VectorXd y(T);
    std::string ys;
    for (int t = 0; t < T; ++t) {
        y[t] = 0.8 * std::sin(1.3 * t) * std::exp(0.3 * std::cos(0.2 * t));
        ys += fmt::format("{}{:.17g}", t ? ", " : "", y[t]);
    }
    const DataTable data =
        read_json_data(fmt::format(R"({{"T": {}, "y": [{}]}})", T, ys), "d.json");
    const auto program =
        stan::parse_program(read_file(ADVI_SOURCE_DIR "/examples/stochastic_volatility.stan"),
                            "stochastic_volatility.stan");
    const auto lowered = stan::lower(program, data);
    // the AR(1) loop reads the parameter h[t - 1]: one density, not T - 1 of them
    REQUIRE(!lowered->loop_report().empty());
    CHECK_THAT(lowered->loop_report()[0], Catch::Contains("vectorised"));
    Model m;
    examples::build_stochastic_volatility(m, y);
    check_same_density(lowered->model().spec(), m.spec(), 1e-10);
}

TEST_CASE("stochastic volatility: the fit tracks the simulated log volatility", "[examples]") {
    const auto dir = examples::sim_dir("stochvol");
    if (!std::filesystem::exists(dir / "small.data.json")) {
        WARN("shared data not found at " << dir << ": stochastic volatility fit skipped");
        return;
    }
    const DataTable data = read_data(dir / "small.data.json");
    const DataTable truth = examples::read_truth(dir / "small.truth.json");
    REQUIRE(truth.at("phi").as_real() == 0.9);
    // The first T steps of the simulated series are themselves a draw from the model with T
    // steps (h is simulated forwards), so a prefix is a smaller test with the same truth.
    const int T = 250;
    const Eigen::VectorXd y = data.at("y").as_vector().head(T);
    const Eigen::VectorXd h_true = truth.at("h").as_vector().head(T);
    Model m;
    examples::build_stochastic_volatility(m, y);
    // eta fixed at 1: the eta search may pick 0.1, from which the fit settles in a worse local
    // optimum of the ELBO (E[phi] near 0.15, ELBO -211 against -190 here).
    const Fit fit = advi::fit(m, {.family = Family::MeanField,
                                  .seed = 1,
                                  .tol_rel_obj = 1e-4,
                                  .adapt_engaged = false,
                                  .eta = 1});
    const double cor = correlation(fit.mean("h"), h_true);
    // Each y_t alone says little about h_t: log y_t^2 = h_t + log chi^2_1, noise sd 2.2 against
    // the stationary sd of h, 0.6 / sqrt(1 - 0.9^2) = 1.38, so the step-by-step estimate
    // log y_t^2 + 1.27 correlates with h at about 1.38 / sqrt(1.38^2 + 2.2^2) = 0.53. The
    // posterior mean pools neighbouring steps through the AR(1) prior and must do better; a
    // fit that loses the coupling or the scale exp(h / 2) does not.
    const Eigen::VectorXd raw = (y.array().square() + 1e-300).log() + 1.27;
    const double cor_raw = correlation(raw, h_true);
    const double phi = fit.mean("phi")[0], phi_sd = fit.sd("phi")[0];
    INFO("cor(E[h], h) = " << cor << " (log y^2: " << cor_raw << "), E[phi] = " << phi << " (sd "
                           << phi_sd << "), E[mu] = " << fit.mean("mu")[0]
                           << ", E[sigma] = " << fit.mean("sigma")[0] << ", "
                           << fit.result().iterations << " iterations");
    CHECK(cor > cor_raw + 0.05);
    CHECK(cor > 0.6);
    // mu, the level: over 250 steps of a process this persistent the data say where this path's
    // h sits on average (here far below -1.025), not where the process is centred.
    INFO("mean of the true h over the prefix: " << h_true.mean());
    CHECK(std::abs(fit.mean("mu")[0] - h_true.mean()) < 0.5);
    // phi: mean-field ADVI of the centred model is biased towards 0 (q's independent h_t
    // trade the AR coupling for a larger sigma; the paper's figure shows the same failure in
    // the mean of h). It finds E[phi] = 0.59 on this prefix, 0.5 on the whole T = 500 series
    // and 0.33 at T = 5000, against the true 0.9 (sigma 1.6 against 0.6): the check is that
    // the persistence is found, not its value.
    CHECK(phi > 0.4);
    CHECK(phi - 2 * phi_sd > 0);
}

}  // namespace
}  // namespace advi
