// Hierarchical logistic regression (paper appendix A.2) on the shared simulated election-poll
// data (4 age x 4 education groups, 50 states in 5 regions; medium: N = 10000 as the paper's
// election88, small: N = 2000): the fixed effects and scales next to the truth, and the
// held-out log predictive density per respondent at the posterior mean.
//   ./build/examples/hier_logistic [medium|small]
#include <cmath>
#include <iostream>
#include <string>

#include <Eigen/Dense>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "example_data.hpp"
#include "hier_logistic_model.hpp"

int main(int argc, char** argv) {
    const std::string size = argc > 1 ? argv[1] : "medium";
    const auto dir = advi::examples::sim_dir("hier_logistic");
    if (!advi::examples::have_sim_data(dir, size))
        return 0;  // a clone without it
    const advi::DataTable data = advi::read_data(dir / (size + ".data.json"));
    const advi::DataTable truth = advi::examples::read_truth(dir / (size + ".truth.json"));
    const auto d = advi::examples::PollData::from(data);

    advi::Model m;
    advi::examples::build_hier_logistic(m, d);
    fmt::print(
        "hierarchical logistic regression: N = {}, {} age x {} edu, {} states, {} regions ({})\n",
        d.y.size(), d.n_age, d.n_edu, d.n_state, d.n_region, size);
    const advi::Fit fit =
        advi::fit(m, {.family = advi::Family::MeanField, .seed = 1, .tol_rel_obj = 0.001});
    fmt::print("{} iterations, {:.2f} s, eta {}\n\n", fit.result().iterations, fit.result().seconds,
               fit.result().eta);

    fmt::print("{:<18} {:>8} {:>8} {:>7} {:>8}\n", "", "truth", "mean", "sd", "z");
    for (const char* name :
         {"beta_0", "beta_female", "beta_black", "beta_female_black", "beta_v_prev", "sigma_age",
          "sigma_edu", "sigma_age_edu", "sigma_state", "sigma_region"}) {
        const double t = truth.at(name).as_real(), mean = fit.mean(name)[0], sd = fit.sd(name)[0];
        fmt::print("{:<18} {:>8.3f} {:>8.3f} {:>7.3f} {:>8.2f}\n", name, t, mean, sd,
                   (mean - t) / sd);
    }
    // beta_0 and beta_v_prev lie on a ridge (v_prev, 0.25 to 0.85, is not centred: a shift of
    // beta_v_prev is undone by beta_0 and alpha_state), along which mean-field ADVI moves
    // slowly and its sds are far too small. The data fix each state's total intercept
    // beta_0 + alpha_state[j]: compare that with the truth's.
    const Eigen::VectorXd a_state = fit.mean("alpha_state");
    const Eigen::VectorXd a_state_true = truth.at("alpha_state").as_vector();
    const Eigen::VectorXd total = fit.mean("beta_0")[0] + a_state.array();
    const Eigen::VectorXd total_true = truth.at("beta_0").as_real() + a_state_true.array();
    const Eigen::VectorXd ca = total.array() - total.mean();
    const Eigen::VectorXd cb = total_true.array() - total_true.mean();
    fmt::print(
        "\nbeta_0 + alpha_state over {} states: correlation with the truth {:.3f}, rmse {:.3f} "
        "(true sd {:.3f})\n",
        d.n_state, ca.dot(cb) / std::sqrt(ca.squaredNorm() * cb.squaredNorm()),
        std::sqrt((total - total_true).squaredNorm() / d.n_state),
        std::sqrt(cb.squaredNorm() / d.n_state));

    // Held-out log predictive density per respondent at the posterior mean, against the truth's.
    const auto at = [&](const char* name) { return fit.mean(name)[0]; };
    const Eigen::VectorXd a_age = fit.mean("alpha_age"), a_edu = fit.mean("alpha_edu"),
                          a_age_edu = fit.mean("alpha_age_edu");
    const Eigen::MatrixXd age_edu_true = truth.at("alpha_age_edu").as_matrix();
    const Eigen::VectorXd age_true = truth.at("alpha_age").as_vector(),
                          edu_true = truth.at("alpha_edu").as_vector();
    const Eigen::VectorXi age = data.at("age_test").as_int_vector(),
                          edu = data.at("edu_test").as_int_vector(),
                          state = data.at("state_test").as_int_vector(),
                          y = data.at("y_test").as_int_vector();
    const Eigen::VectorXd female = data.at("female_test").as_vector(),
                          black = data.at("black_test").as_vector();
    double lpd_fit = 0, lpd_true = 0;
    for (Eigen::Index n = 0; n < y.size(); ++n) {
        const int a = age[n] - 1, e = edu[n] - 1, s = state[n] - 1;
        const double fb = female[n] * black[n];
        const double eta_fit = at("beta_0") + at("beta_female") * female[n] +
                               at("beta_black") * black[n] + at("beta_female_black") * fb +
                               a_age[a] + a_edu[e] + a_age_edu[a * d.n_edu + e] + a_state[s];
        const double eta_true = truth.at("beta_0").as_real() +
                                truth.at("beta_female").as_real() * female[n] +
                                truth.at("beta_black").as_real() * black[n] +
                                truth.at("beta_female_black").as_real() * fb + age_true[a] +
                                edu_true[e] + age_edu_true(a, e) + a_state_true[s];
        // log p(y | eta) = y eta - log(1 + exp(eta))
        const auto lp = [&](double eta) { return y[n] * eta - std::log1p(std::exp(eta)); };
        lpd_fit += lp(eta_fit);
        lpd_true += lp(eta_true);
    }
    fmt::print(
        "held-out log density per respondent ({}): {:.4f} at the fit's mean, {:.4f} at the truth\n",
        y.size(), lpd_fit / y.size(), lpd_true / y.size());
    return 0;
}
