// Hierarchical logistic regression of election-poll data as a DSL model; the data and the
// hand-written gradient are in hier_logistic_hand.hpp. Shared by the benchmark and its test.
#pragma once

#include <advi/advi.hpp>

#include "hier_logistic_hand.hpp"

namespace advi::bench {

inline void build_hier_logistic(Model& m, const ElectionData& d) {
    using D = ElectionData;
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
    auto sigma_age = m.param("sigma_age", uniform(0, 100));
    auto sigma_edu = m.param("sigma_edu", uniform(0, 100));
    auto sigma_age_edu = m.param("sigma_age_edu", uniform(0, 100));
    auto sigma_state = m.param("sigma_state", uniform(0, 100));
    auto sigma_region = m.param("sigma_region", uniform(0, 100));
    auto b0 = m.param("b0", normal(0, 100));
    auto b_female = m.param("b_female", normal(0, 100));
    auto b_black = m.param("b_black", normal(0, 100));
    auto b_female_black = m.param("b_female_black", normal(0, 100));
    auto b_v_prev = m.param("b_v_prev", normal(0, 100));
    auto a_age = m.param("a_age", normal(0, sigma_age), D::kAge);
    auto a_edu = m.param("a_edu", normal(0, sigma_edu), D::kEdu);
    auto a_age_edu = m.param("a_age_edu", normal(0, sigma_age_edu), D::kAge * D::kEdu);
    auto a_region = m.param("a_region", normal(0, sigma_region), D::kRegion);
    auto a_state =
        m.param("a_state", normal(a_region[region] + b_v_prev * v_prev, sigma_state), D::kState);
    auto eta = b0 + b_female * female + b_black * black + b_female_black * female_black +
               a_age[age] + a_edu[edu] + a_age_edu[age_edu] + a_state[state];
    m.observe(y, bernoulli_logit(eta));
}

}  // namespace advi::bench
