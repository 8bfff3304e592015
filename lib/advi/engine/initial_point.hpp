// CmdStan's random initial values: each unconstrained coordinate uniform on (-radius, radius),
// from a stream of its own, so that `advi optimize --init 2 --seed S` and `advi fit --init 2
// --seed S` start from the same point.
#pragma once

#include <cstdint>
#include <optional>

#include <Eigen/Core>

#include <advi/engine/target.hpp>

namespace advi {

// The stream that `optimize` and `fit` draw their initial values from, for seed `seed`.
inline constexpr std::uint64_t kInitStream = 0x696E697400000000ull;

// `dim` values, each uniform on (-radius, radius), from Rng(stream); zeros when radius is 0.
// FitError for a radius that is negative or not finite, naming the option.
[[nodiscard]] Eigen::VectorXd uniform_init(std::uint64_t stream, int dim, double radius);

// Stan's rule for random initial values: a point where the log density or its gradient is not
// finite is replaced by the next, up to 100 tries. Try 1 is uniform_init(first_stream, ...);
// try k is drawn from a stream kInitTryStride * (k - 1) further on (a stride, not + 1, so that
// the tries of seeds next to each other do not share points).
inline constexpr int kRandomInitTries = 100;
inline constexpr std::uint64_t kInitTryStride = 0x9E3779B97F4A7C15ull;
struct FiniteInit {
    Eigen::VectorXd point;
    int tries = 0;
};
// The first point with a finite density and gradient; nothing when none of the tries had one.
[[nodiscard]] std::optional<FiniteInit> finite_uniform_init(Target& target,
                                                            std::uint64_t first_stream,
                                                            double radius,
                                                            int tries = kRandomInitTries);

}  // namespace advi
