// Hierarchical logistic regression of election-poll data (paper appendix A.2, Gelman and Hill
// ch. 14; Stan's election88 model): a respondent's vote from sex, race, age group, education
// and state, states in regions with a previous-vote share. Shared by examples/hier_logistic.cpp
// and its test.
#pragma once

#include <string>

#include <Eigen/Dense>

#include <advi/advi.hpp>
#include <advi/io/data_table.hpp>

namespace advi::examples {

// The poll in the shape the model binds: indices 0-based (the files are 1-based, as Stan).
struct PollData {
    int n_age = 0, n_edu = 0, n_state = 0, n_region = 0;
    Eigen::VectorXd female, black, female_black, v_prev;  // v_prev per state
    Eigen::VectorXi age, edu, age_edu, state, region, y;  // region per state

    // `suffix` "_test": the held-out respondents (the same states and regions).
    static PollData from(const DataTable& d, const std::string& suffix = "") {
        PollData p;
        p.n_age = d.at("n_age").as_int();
        p.n_edu = d.at("n_edu").as_int();
        p.n_state = d.at("n_state").as_int();
        p.n_region = d.at("n_region").as_int();
        p.female = d.at("female" + suffix).as_vector();
        p.black = d.at("black" + suffix).as_vector();
        p.female_black = p.female.cwiseProduct(p.black);
        p.v_prev = d.at("v_prev").as_vector();
        const auto zero_based = [&](const std::string& name) {
            return Eigen::VectorXi(d.at(name).as_int_vector().array() - 1);
        };
        p.age = zero_based("age" + suffix);
        p.edu = zero_based("edu" + suffix);
        // (age - 1) * n_edu + edu: alpha_age_edu row-major
        p.age_edu = zero_based("age_edu" + suffix);
        p.state = zero_based("state" + suffix);
        p.region = zero_based("region");
        p.y = d.at("y" + suffix).as_int_vector();
        return p;
    }
};

// `d` is bound by reference: keep it alive while the model is used. Returns the
// log-likelihood of each respondent (for the held-out log predictive density). `Poll` is
// PollData or a type with the same members (bench/hier_logistic_model.hpp passes references to
// the benchmark's simulated poll).
template <class Poll = PollData>
Expr build_hier_logistic(Model& m, const Poll& d) {
    auto female = m.data("female", d.female);
    auto black = m.data("black", d.black);
    auto female_black = m.data("female_black", d.female_black);
    auto v_prev = m.data("v_prev", d.v_prev);
    auto age = m.data("age", d.age);
    auto edu = m.data("edu", d.edu);
    auto age_edu = m.data("age_edu", d.age_edu);
    auto state = m.data("state", d.state);
    auto region = m.data("region", d.region);
    auto y = m.data("y", d.y);
    // The scales: uniform(0, 100) as the paper's appendix.
    auto sigma_age = m.param("sigma_age", uniform(0, 100));
    auto sigma_edu = m.param("sigma_edu", uniform(0, 100));
    auto sigma_age_edu = m.param("sigma_age_edu", uniform(0, 100));
    auto sigma_state = m.param("sigma_state", uniform(0, 100));
    auto sigma_region = m.param("sigma_region", uniform(0, 100));
    // The fixed effects: vague normal(0, 100), as Stan's election88 model.
    auto b0 = m.param("beta_0", normal(0, 100));
    auto b_female = m.param("beta_female", normal(0, 100));
    auto b_black = m.param("beta_black", normal(0, 100));
    auto b_female_black = m.param("beta_female_black", normal(0, 100));
    auto b_v_prev = m.param("beta_v_prev", normal(0, 100));
    auto a_age = m.param("alpha_age", normal(0, sigma_age), d.n_age);
    auto a_edu = m.param("alpha_edu", normal(0, sigma_edu), d.n_edu);
    auto a_age_edu = m.param("alpha_age_edu", normal(0, sigma_age_edu), d.n_age * d.n_edu);
    auto a_region = m.param("alpha_region", normal(0, sigma_region), d.n_region);
    auto a_state = m.param("alpha_state", normal(a_region[region] + b_v_prev * v_prev, sigma_state),
                           d.n_state);
    auto eta = b0 + b_female * female + b_black * black + b_female_black * female_black +
               a_age[age] + a_edu[edu] + a_age_edu[age_edu] + a_state[state];
    m.observe(y, bernoulli_logit(eta));
    return m.log_density(y, bernoulli_logit(eta), true);
}

}  // namespace advi::examples
