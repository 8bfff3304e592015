// examples/hier_logistic: the Stan program lowers to the C++ model's log density, and on the
// shared simulated poll the fixed effects come out near the truth.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <advi/advi.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/io/read_data.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "../../examples/example_data.hpp"
#include "../../examples/hier_logistic_model.hpp"

#include "support/same_model.hpp"

namespace advi {
namespace {

using advi::test::check_same_density;
using advi::test::read_file;

TEST_CASE("hier_logistic.stan lowers to the C++ model's log density", "[examples]") {
    // A small poll in the files' layout (1-based indices): 60 respondents, 6 states, 2 regions.
    const int N = 60, n_state = 6;
    std::vector<int> female, black, age, edu, age_edu, state, y, region{1, 1, 2, 2, 2, 1};
    std::vector<double> v_prev;
    for (int j = 0; j < n_state; ++j) v_prev.push_back(0.3 + 0.09 * j);
    for (int n = 0; n < N; ++n) {
        female.push_back(n % 2);
        black.push_back((n * 7) % 5 == 0);
        age.push_back(1 + (n * 3) % 4);
        edu.push_back(1 + (n / 3) % 4);
        age_edu.push_back((age.back() - 1) * 4 + edu.back());
        state.push_back(1 + (n * 5) % n_state);
        y.push_back((n * 11) % 7 < 3);
    }
    const DataTable data = read_json_data(
        fmt::format(R"({{"N": {}, "n_age": 4, "n_edu": 4, "n_age_edu": 16, "n_state": {},
                        "n_region": 2, "region": [{}], "v_prev": [{}], "female": [{}],
                        "black": [{}], "age": [{}], "edu": [{}], "age_edu": [{}],
                        "state": [{}], "y": [{}]}})",
                    N, n_state, fmt::join(region, ","), fmt::join(v_prev, ","),
                    fmt::join(female, ","), fmt::join(black, ","), fmt::join(age, ","),
                    fmt::join(edu, ","), fmt::join(age_edu, ","), fmt::join(state, ","),
                    fmt::join(y, ",")),
        "d.json");
    const auto program = stan::parse_program(
        read_file(ADVI_SOURCE_DIR "/examples/hier_logistic.stan"), "hier_logistic.stan");
    const auto lowered = stan::lower(program, data);
    const auto poll = examples::PollData::from(data);
    CHECK(poll.age_edu.minCoeff() == 0);  // 0-based for the C++ model
    Model m;
    examples::build_hier_logistic(m, poll);
    check_same_density(lowered->model().spec(), m.spec(), 1e-10);
}

TEST_CASE("hier_logistic: the fixed effects come out near the truth", "[examples]") {
    const auto dir = examples::sim_dir("hier_logistic");
    if (!std::filesystem::exists(dir / "small.data.json")) {
        WARN("shared data not found at " << dir << ": hier_logistic fit skipped");
        return;
    }
    // small: N = 2000 (the example fits medium, N = 10000)
    const DataTable data = read_data(dir / "small.data.json");
    const DataTable truth = examples::read_truth(dir / "small.truth.json");
    const auto poll = examples::PollData::from(data);
    Model m;
    examples::build_hier_logistic(m, poll);
    const Fit fit = advi::fit(m, {.family = Family::MeanField, .seed = 1, .tol_rel_obj = 0.001});
    // The respondent-level effects are identified by the respondents themselves.
    for (const char* name : {"beta_female", "beta_black", "beta_female_black"}) {
        const double t = truth.at(name).as_real(), mean = fit.mean(name)[0], sd = fit.sd(name)[0];
        INFO(name << ": truth " << t << ", E " << mean << " (sd " << sd << "), z "
                  << (mean - t) / sd);
        CHECK(std::abs(mean - t) < 3.5 * sd);
        CHECK(sd < 0.5);
    }
    // beta_0 and beta_v_prev lie on a ridge: v_prev (0.25 to 0.85) is not centred, so a shift
    // of beta_v_prev is undone by beta_0 and alpha_state, and mean-field ADVI creeps along the
    // ridge for 10^5 iterations. What the data fix is each state's total intercept
    // beta_0 + alpha_state[j]: compare that with the truth's.
    const Eigen::VectorXd total = fit.mean("beta_0")[0] + fit.mean("alpha_state").array();
    const Eigen::VectorXd total_true =
        truth.at("beta_0").as_real() + truth.at("alpha_state").as_vector().array();
    const double rmse = std::sqrt((total - total_true).squaredNorm() / total.size());
    const Eigen::VectorXd ca = total.array() - total.mean(),
                          cb = total_true.array() - total_true.mean();
    const double cor = ca.dot(cb) / std::sqrt(ca.squaredNorm() * cb.squaredNorm());
    INFO("state intercepts beta_0 + alpha_state: rmse "
         << rmse << ", correlation " << cor << " (true sd "
         << std::sqrt(cb.squaredNorm() / cb.size()) << ")");
    // About 40 respondents a state: the data alone pin a state's intercept to about
    // 1 / sqrt(40 p (1 - p)) = 0.32, against a spread of 0.45 between the true intercepts; a
    // wrong state or region index drops the correlation to near 0.
    CHECK(rmse < 0.42);
    CHECK(cor > 0.7);
    CHECK(fit.mean("beta_v_prev")[0] > 0);  // the direction at least
}

}  // namespace
}  // namespace advi
