#include <advi/fit/constraint_checker.hpp>

#include <utility>
#include <vector>

#include <fmt/format.h>

namespace advi {

ConstraintChecker::ConstraintChecker(const ModelSpec& spec) : spec_(spec) {
    // Each check's value, lower and upper bound, one after the other.
    std::vector<std::pair<std::string, NodeId>> outputs;
    for (const ConstraintCheck& c : spec.checks) {
        if (c.term == kNoNode)
            continue;
        outputs.emplace_back(c.what, c.value);
        outputs.emplace_back(c.what + " lower", c.lower);
        outputs.emplace_back(c.what + " upper", c.upper);
    }
    if (!outputs.empty())
        program_ = std::make_unique<ThetaProgram>(spec, outputs);
}

std::optional<std::string> ConstraintChecker::violation(const Eigen::VectorXd& theta) {
    if (program_ == nullptr)
        return std::nullopt;
    const Eigen::VectorXd& v = program_->evaluate(theta);
    const Graph& g = spec_.graph;
    int at = 0;
    for (const ConstraintCheck& c : spec_.checks) {
        if (c.term == kNoNode)
            continue;
        const int lower = at + g[c.value].shape.size();
        const int upper = lower + g[c.lower].shape.size();
        if (auto why = advi::violation(g, c, v.data() + at, v.data() + lower, v.data() + upper))
            return why;
        at = upper + g[c.upper].shape.size();
    }
    return std::nullopt;
}

}  // namespace advi
