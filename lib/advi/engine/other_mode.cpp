// The second search for the mode from a random point, and what its end says.
#include <advi/engine/other_mode.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/initial_point.hpp>
#include <advi/engine/lbfgs.hpp>

namespace advi {

namespace {

std::string nats(double x) {
    return fmt::format("{:.3g}", x);
}

// Whether the log density rises from `from` (a converged search's end, lp `lp`) a tenth of
// the way toward `toward`: then `from` is no mode, whatever the search's tolerance said. L-BFGS
// from zeros stops where symmetry makes the gradient 0 (PPCA's W = 0, a saddle), and its
// relative tests are met far from the mode where the density is flat in double precision
// (posteriordb's earnings: the Hessian is 0 there); the line to the higher end is the
// direction it missed. At a mode 7 posterior sds from the other, that tenth of the way costs
// 0.25 nats; at modes 1.5 sds apart (closer ones are the same mode), 0.011; the test allows
// lp's rounding (1e-8 relative), which is all that two ends at one mode differ by.
bool rises_toward(Target& target, const Eigen::VectorXd& from, double lp,
                  const Eigen::VectorXd& toward, long& evaluations) {
    Eigen::VectorXd grad;
    ++evaluations;
    const double there = target.log_density_gradient(from + 0.1 * (toward - from), grad);
    // More than lp's rounding: two ends at one mode differ by that much either way.
    return std::isfinite(there) && there - lp > 1e-8 * std::max(1.0, std::abs(lp));
}

}  // namespace

ModeSearch search_other_mode(CurvatureTarget& target, OptimizerResult first,
                             const OptimizerSettings& settings, std::uint64_t seed) {
    ModeSearch out;
    const int dim = target.dim();
    const Eigen::VectorXd init = uniform_init(seed ^ kOtherModeStream, dim, kOtherModeRadius);
    OptimizerSettings capped = settings;
    capped.iter = std::min(settings.iter, std::max(kOtherModeMinIterations, first.iterations));
    OptimizerResult second;
    try {
        second = maximize_lbfgs(target, init, capped);
        out.gradient_evaluations += second.gradient_evaluations;
        if (second.status == OptimizeStatus::IterationLimit && second.lp > first.lp &&
            capped.iter < settings.iter) {
            // Above the first's end and still rising: the first stopped short of this.
            OptimizerSettings rest = settings;
            rest.iter = settings.iter - capped.iter;
            OptimizerResult more = maximize_lbfgs(target, second.zeta, rest);
            out.gradient_evaluations += more.gradient_evaluations;
            more.iterations += second.iterations;
            second = std::move(more);
        }
    } catch (const FitError& e) {
        out.kept = std::move(first);
        out.other.searched = true;
        out.other.description =
            fmt::format("a second search from a random point failed ({})", e.what());
        return out;
    }
    out.other.searched = second.status != OptimizeStatus::Interrupted;
    const std::string& by = out.by = fmt::format(
        "a second search from a random point (L-BFGS, {} iterations)", second.iterations);
    if (second.status == OptimizeStatus::Interrupted) {
        out.kept = std::move(first);
        return out;
    }
    if (second.status == OptimizeStatus::NoMode ||
        second.status == OptimizeStatus::NonFiniteStart) {
        // Not a mode and not a comparison: the first's end stands, and the message says what
        // the density does elsewhere (rising without bound is worth a user's attention).
        out.kept = std::move(first);
        out.other.description = fmt::format("{} found {}", by, second.message);
        return out;
    }
    const bool higher = std::isfinite(second.lp) && second.lp > first.lp;
    // The other end, a converged search's, is a mode unless lp rises from it toward the kept.
    const OptimizerResult& other_end = higher ? first : second;
    const OptimizerResult& kept_end = higher ? second : first;
    const bool not_a_mode =
        other_end.converged() &&
        rises_toward(target, other_end.zeta, other_end.lp, kept_end.zeta, out.gradient_evaluations);
    out.other.found = other_end.converged() && !not_a_mode;
    const std::string saddle_note =
        not_a_mode
            ? fmt::format(
                  " (the {} end is no mode: the log density rises from it "
                  "toward the {})",
                  higher ? "first search's" : "second search's", higher ? "second's" : "first's")
            : std::string();
    if (higher) {
        out.other.switched = true;
        out.other_zeta = std::move(first.zeta);
        out.other.gap = second.lp - first.lp;
        out.kept = std::move(second);
        // Kept even where the second search ran out of iterations: higher is nearer the mode
        // (the start takes Newton steps from there, or starts q there with unit scales).
        out.other.description =
            fmt::format("{} rose {} nats above the first search's end{}{}", by, nats(out.other.gap),
                        out.kept.converged()
                            ? ""
                            : fmt::format(" without converging ({})", status_name(out.kept.status)),
                        saddle_note);
        return out;
    }
    out.other.gap = first.lp - second.lp;
    out.other_zeta = std::move(second.zeta);
    out.kept = std::move(first);
    out.other.description =
        second.converged()
            ? fmt::format("{} ended {} nats lower{}", by, nats(out.other.gap), saddle_note)
            : fmt::format("{} ended {} nats lower ({})", by, nats(out.other.gap),
                          status_name(second.status));
    return out;
}

void measure_other_mode(ModeSearch& search, const Eigen::MatrixXd& R) {
    OtherMode& o = search.other;
    if (search.other_zeta.size() != search.kept.zeta.size())
        return;
    const Eigen::VectorXd delta = search.other_zeta - search.kept.zeta;
    if (R.rows() == delta.size()) {
        // ||R' delta||: delta' P delta = the squared distance in posterior sds.
        o.distance = (R.transpose() * delta).norm();
        o.in_sds = true;
        o.copy = o.distance < kSameModeSds;
    } else {
        o.distance = delta.norm() / std::sqrt(static_cast<double>(delta.size()));
        o.in_sds = false;
        o.copy = o.distance < kSameModeRms;
    }
    if (!std::isfinite(o.distance))
        return;
    const std::string where =
        o.in_sds ? fmt::format("{:.3g} posterior sds away", o.distance)
                 : fmt::format("{:.3g} apart (root mean square, unconstrained)", o.distance);
    if (o.found && o.copy) {
        o.description = fmt::format("{} reached the same mode ({})", search.by, where);
    } else if (o.found && !o.switched) {
        o.description += fmt::format(", at another mode ({})", where);
    } else {
        // The first search's end, below the kept one (or no mode): how far, and no more; where
        // it is a mode about as high, the verdict says so (OtherMode::comparable).
        o.description += fmt::format(", {}", where);
    }
}

}  // namespace advi
