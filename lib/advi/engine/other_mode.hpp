// A second search for the mode, from a random point (issue 19). L-BFGS from the init point
// (zeros by default) can stop where symmetry puts a stationary point that is not the mode: on
// examples/ppca_ard (22,021 coordinates) every gradient of W is 0 at W = 0, and L-BFGS from
// zeros stopped after 18 iterations at that saddle, 170,900 nats below where a search from a
// random point rose to. And a posterior with several modes has L-BFGS find the nearest one,
// where q then sits as if it were the only one. The start runs L-BFGS a second time, from
// CmdStan's uniform(-2, 2) initial values drawn from a stream of the fit's seed, and keeps the
// higher end: q starts there, and what the other end says goes into the start's description
// and, where it is a different mode about as high (within kOtherModeGap nats), into the
// verdict, since q covers one mode of a posterior that has two.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include <Eigen/Core>

#include <advi/engine/optimizer.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// CmdStan's default init radius, in unconstrained coordinates.
inline constexpr double kOtherModeRadius = 2.0;
// The second search's stream (xor the fit's seed), apart from the init's and the fit's.
inline constexpr std::uint64_t kOtherModeStream = 0x6F74686572000000ull;  // "other"
// The second search gets as many iterations as the first took, at least this many; where it
// is above the first's end when they run out, it goes on with the full budget.
inline constexpr int kOtherModeMinIterations = 100;
// Another mode this many nats (of log density) below the kept one or closer holds, by
// the Laplace approximation with similar curvature, at least e^-10 = 5e-5 of the mass of the
// kept one; q, fitted to one mode, does not represent such a posterior: not reliable.
inline constexpr double kOtherModeGap = 10.0;
// Two ends closer than this are the same mode: in posterior sds (the Mahalanobis distance with
// the Hessian at the kept mode) where the start has curvature, else as the root mean square of
// the unconstrained coordinates' differences (coordinates whose prior scale is about 1).
inline constexpr double kSameModeSds = 1.0;
inline constexpr double kSameModeRms = 0.05;

struct OtherMode {
    bool searched = false;  // a second search ran
    // The other end (the second search's, or the first's where the second rose above it) is a
    // mode: its search converged, and the log density does not rise from it a tenth of the
    // way toward the kept end (one evaluation; else it is a saddle, as PPCA's W = 0, or a
    // flat stretch where a relative tolerance was met).
    bool found = false;
    bool copy = false;      // to the same mode as the first (within kSameMode*)
    bool switched = false;  // its end was higher: q starts there, the first's end is the other
    // The log density at the kept end minus that at the other end (>= 0 where both converged;
    // NaN where the second search did not run or threw).
    double gap = std::numeric_limits<double>::quiet_NaN();
    // Between the two ends: in posterior sds at the kept mode (`in_sds`), else the root mean
    // square of the unconstrained differences.
    double distance = std::numeric_limits<double>::quiet_NaN();
    bool in_sds = false;
    // One clause for the start's description: "a second search from a random point (L-BFGS,
    // 41 iterations) reached the same mode", "... another mode 3.2 nats lower, 6.1 posterior
    // sds away", "... ended 812 nats lower (iteration limit)".
    std::string description;
    // A different mode about as high as the kept one: the verdict's concern.
    [[nodiscard]] bool comparable() const { return found && !copy && gap <= kOtherModeGap; }
};

// The outcome of both searches: the higher end and what is known of the other.
struct ModeSearch {
    OptimizerResult kept;
    Eigen::VectorXd other_zeta;  // the other end (empty where the second search did not end)
    OtherMode other;
    long gradient_evaluations = 0;  // the second search's and the mode check's
    std::string by;                 // "a second search from a random point (L-BFGS, 41 iterations)"
};

// Runs the second search from uniform(-kOtherModeRadius, kOtherModeRadius) drawn from
// Rng(seed ^ kOtherModeStream), given the first search's converged result `first`, with the
// first's settings. Never throws for what the second search meets (a non-finite start, a
// density without a mode: said in the description, the first's end kept); rethrows an
// interrupt's state by returning the first's end with `searched` false.
[[nodiscard]] ModeSearch search_other_mode(CurvatureTarget& target, OptimizerResult first,
                                           const OptimizerSettings& settings, std::uint64_t seed);

// Sets `other.distance`, `copy` and the description's distance for the two ends, with `R` the
// lower Cholesky factor of -H at the kept end (P = R R'), or empty for no curvature.
void measure_other_mode(ModeSearch& search, const Eigen::MatrixXd& R);

}  // namespace advi
