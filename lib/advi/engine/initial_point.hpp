// CmdStan's random initial values: each unconstrained coordinate uniform on (-radius, radius),
// from a stream of its own, so that `advi optimize --init 2 --seed S` and `advi fit --init 2
// --seed S` start from the same point.
#pragma once

#include <cstdint>

#include <Eigen/Core>

namespace advi {

// The stream that `optimize` and `fit` draw their initial values from, for seed `seed`.
inline constexpr std::uint64_t kInitStream = 0x696E697400000000ull;

// `dim` values, each uniform on (-radius, radius), from Rng(stream); zeros when radius is 0.
// FitError for a radius that is negative or not finite, naming the option.
[[nodiscard]] Eigen::VectorXd uniform_init(std::uint64_t stream, int dim, double radius);

}  // namespace advi
