#include <advi/stan/report.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/fit/draw_summary.hpp>
#include <advi/model/model_spec.hpp>

namespace advi::stan {

namespace {

// Uniform on the open interval (0, 1): 53 random bits, offset by half a step.
double open_uniform(std::mt19937_64& rng) {
    return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
}

}  // namespace

Reporter::Reporter(LoweredProgram& program) : lowered_(program) {
    for (const auto& v : program.transformed_parameters()) values_.push_back(v);
    for (const auto& v : program.generated_quantities()) values_.push_back(v);
    std::vector<std::pair<std::string, NodeId>> outputs;
    for (const auto& v : values_) {
        outputs.emplace_back(v.name, v.value.id());
        size_ += v.value.shape().size();
    }
    for (const ConstraintCheck& c : program.model().spec().checks) {
        if (c.term != kNoNode)
            continue;  // a transformed parameter's: checked by the log density
        checks_.push_back(c);
        outputs.emplace_back(c.what, c.value);
        outputs.emplace_back(c.what + " lower", c.lower);
        outputs.emplace_back(c.what + " upper", c.upper);
    }
    program_ = std::make_unique<ThetaProgram>(program.model().spec(), outputs);
}

Eigen::VectorXd Reporter::evaluate(const Eigen::VectorXd& theta, std::mt19937_64& rng,
                                   std::string_view where) {
    std::normal_distribution<double> normal;
    for (const auto& r : lowered_.random_inputs()) {
        for (auto& x : *r.values) x = r.normal ? normal(rng) : open_uniform(rng);
    }
    const Eigen::VectorXd& v = program_->evaluate(theta);
    const Graph& g = program_->spec().graph;
    int at = size_;
    for (const ConstraintCheck& c : checks_) {
        const int lower = at + g[c.value].shape.size();
        const int upper = lower + g[c.lower].shape.size();
        if (auto why = violation(g, c, v.data() + at, v.data() + lower, v.data() + upper)) {
            throw FitError(
                fmt::format("{} (at {}): a generated quantity must satisfy its declared constraint",
                            *why, where));
        }
        at = upper + g[c.upper].shape.size();
    }
    return v.head(size_);
}

ReportedDraws report(LoweredProgram& program, const Fit& fit, std::uint64_t seed) {
    Reporter r(program);
    ReportedDraws d;
    d.values = r.values();
    std::mt19937_64 rng(seed);
    const ModelSpec& spec = fit.model();
    Eigen::VectorXd mean(spec.theta_dim());
    const std::vector<int> offsets = spec.theta_offsets();
    for (std::size_t k = 0; k < spec.latents.size(); ++k) {
        const Eigen::VectorXd v = fit.at_mu(spec.latents[k].name);
        mean.segment(offsets[k], v.size()) = v;
    }
    d.at_mean = r.size() > 0 ? r.evaluate(mean, rng, "the mean of q") : Eigen::VectorXd();
    const Eigen::MatrixXd& theta = fit.theta_draws();
    d.draws.resize(theta.rows(), r.size());
    for (Eigen::Index i = 0; i < theta.rows() && r.size() > 0; ++i) {
        d.draws.row(i) =
            r.evaluate(theta.row(i).transpose(), rng, fmt::format("output draw {}", i + 1))
                .transpose();
    }
    return d;
}

std::string summary_rows(const ReportedDraws& d) {
    std::string s;
    Eigen::Index offset = 0;
    for (const auto& v : d.values) {
        std::int64_t size = 1;
        for (const std::int64_t n : v.dims) size *= n;
        // labelled as the parameters are: indices 1-based, the first varying fastest
        LatentVariable labels;
        labels.name = v.name;
        labels.dims = v.dims;
        labels.complex = v.complex;
        for (std::int64_t k = 0; k < size; ++k) {
            const std::string label = element_label(labels, k, 1);
            if (d.draws.rows() == 0)
                continue;
            s += summary_row(label, summarize_draws(d.draws.col(offset + k)));
        }
        offset += size;
    }
    return s;
}

}  // namespace advi::stan
