// Supports of latent variables (real, positive, lower(a), upper(b), interval(a, b)) and
// the choice of transform for positive-type supports (the paper's T1 = log, T2 = softplus^-1).
#pragma once

#include <cmath>
#include <limits>
#include <string>

namespace advi {

struct Support {
    enum class Kind { Real, Lower, Upper, Interval };
    Kind kind = Kind::Real;
    double lower = -std::numeric_limits<double>::infinity();
    double upper = std::numeric_limits<double>::infinity();

    static Support real() { return {}; }
    static Support positive() { return {Kind::Lower, 0.0}; }
    static Support lower_bound(double a) { return {Kind::Lower, a}; }
    static Support upper_bound(double b) { return {Kind::Upper, -std::numeric_limits<double>::infinity(), b}; }
    // Throws ModelError unless a < b.
    static Support interval(double a, double b);

    [[nodiscard]] bool contains(double x) const { return x > lower && x < upper; }
    // True when every point of `other` lies in this support.
    [[nodiscard]] bool covers(const Support& other) const {
        return lower <= other.lower && upper >= other.upper;
    }
    bool operator==(const Support&) const = default;
    // "real", "positive", "lower(1)", "upper(0)", "interval(0, 1)".
    [[nodiscard]] std::string str() const;
};

// How a support with a lower or upper bound reaches the real line: T1 = log (the default,
// as Stan) or T2 = log(exp(x) - 1), the softplus inverse of the paper's section 3.3.
enum class PositiveTransform { Log, Softplus };

}  // namespace advi
