// Hierarchical logistic regression of election-poll data as a DSL model: the example's model
// (examples/hier_logistic_model.hpp) on the benchmark's simulated poll; the data and the
// hand-written gradient are in hier_logistic_hand.hpp. Shared by the benchmark and its test.
#pragma once

#include <Eigen/Core>

#include <advi/advi.hpp>

#include "../examples/hier_logistic_model.hpp"
#include "hier_logistic_hand.hpp"

namespace advi::bench {

// ElectionData in the shape of examples::PollData, by reference (the model binds the vectors
// of `d` itself, as the example binds a PollData's). ElectionData stays free of advi (the Stan
// Math benchmark reads it), so it is not a PollData.
struct ElectionPoll {
    explicit ElectionPoll(const ElectionData& d)
        : female(d.female),
          black(d.black),
          female_black(d.female_black),
          v_prev(d.v_prev),
          age(d.age),
          edu(d.edu),
          age_edu(d.age_edu),
          state(d.state),
          region(d.region),
          y(d.y) {}
    int n_age = ElectionData::kAge, n_edu = ElectionData::kEdu;
    int n_state = ElectionData::kState, n_region = ElectionData::kRegion;
    const Eigen::VectorXd &female, &black, &female_black, &v_prev;
    const Eigen::VectorXi &age, &edu, &age_edu, &state, &region, &y;
};

inline void build_hier_logistic(Model& m, const ElectionData& d) {
    examples::build_hier_logistic(m, ElectionPoll(d));
}

}  // namespace advi::bench
