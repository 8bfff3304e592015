// Strong-Wolfe line search with backtracking from non-finite values.
#include <advi/engine/line_search.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace advi {
namespace {

struct Trial {
    double a = 0.0;
    double f = 0.0;
    double d = 0.0;  // phi'(a) = g(x0 + a p)'p
};

// The minimiser of the cubic through (lo, hi) with their values and slopes, kept within
// [lo, hi] shrunk by 10% at each end so that the bracket always shrinks; bisection where the
// cubic has no minimiser there.
double interpolate(const Trial& lo, const Trial& hi) {
    const double left = std::min(lo.a, hi.a), right = std::max(lo.a, hi.a);
    const double margin = 0.1 * (right - left);
    double a = 0.5 * (lo.a + hi.a);
    const double d1 = lo.d + hi.d - 3.0 * (lo.f - hi.f) / (lo.a - hi.a);
    const double disc = d1 * d1 - lo.d * hi.d;
    if (std::isfinite(disc) && disc >= 0.0) {
        const double d2 = std::copysign(std::sqrt(disc), hi.a - lo.a);
        const double denom = hi.d - lo.d + 2.0 * d2;
        if (denom != 0.0) {
            const double c = hi.a - (hi.a - lo.a) * (hi.d + d2 - d1) / denom;
            if (std::isfinite(c))
                a = c;
        }
    }
    return std::clamp(a, left + margin, right - margin);
}

}  // namespace

LineSearchResult strong_wolfe_search(const Objective& fn, const Eigen::VectorXd& x0, double f0,
                                     const Eigen::VectorXd& g0, const Eigen::VectorXd& p,
                                     double alpha0, Eigen::VectorXd& x, Eigen::VectorXd& g,
                                     const LineSearchSettings& s) {
    LineSearchResult r;
    const double d0 = g0.dot(p);
    x = x0;
    g = g0;
    if (!(d0 < 0.0) || !(alpha0 > 0.0))
        return r;

    Eigen::VectorXd xt(x0.size()), gt(x0.size());
    // Evaluates phi at step a; false when f or its gradient is not finite there.
    const auto eval = [&](double a, Trial& t) {
        xt = x0 + a * p;
        t.a = a;
        t.f = fn(xt, gt);
        ++r.evaluations;
        if (!std::isfinite(t.f) || !gt.allFinite()) {
            r.met_nonfinite = true;
            if (t.f == -std::numeric_limits<double>::infinity())
                r.minus_infinity = true;
            return false;
        }
        t.d = gt.dot(p);
        return true;
    };
    const double armijo = s.c1 * d0;
    const double curvature = -s.c2 * d0;
    // The best point with sufficient decrease so far (x, g hold it once r.ok).
    const auto keep = [&](const Trial& t, bool wolfe) {
        r.ok = true;
        r.wolfe = wolfe;
        r.alpha = t.a;
        r.f = t.f;
        x = xt;
        g = gt;
    };

    Trial prev{0.0, f0, d0};
    double finite_cap = std::numeric_limits<double>::infinity();  // first non-finite step
    double a = alpha0;
    Trial lo, hi;
    bool bracketed = false;
    while (r.evaluations < s.max_evaluations) {
        Trial t;
        if (!eval(a, t)) {
            // Too long: back off towards the last finite point, never past it again.
            finite_cap = a;
            a = prev.a + 0.1 * (a - prev.a);
            if (!(a > prev.a))
                break;
            continue;
        }
        if (t.f > f0 + armijo * t.a || (prev.a > 0.0 && t.f >= prev.f)) {
            lo = prev;
            hi = t;
            bracketed = true;
            break;
        }
        if (std::abs(t.d) <= curvature) {
            keep(t, true);
            return r;
        }
        keep(t, false);
        if (t.d >= 0.0) {
            lo = t;
            hi = prev;
            bracketed = true;
            break;
        }
        prev = t;
        // Extrapolate, but stay short of a step known to be non-finite.
        a = std::isfinite(finite_cap) ? 0.5 * (t.a + finite_cap) : s.extrapolation * t.a;
    }
    if (!bracketed)
        return r;

    // Zoom: lo has sufficient decrease and the lowest f of the bracket; hi does not (or has
    // a slope that makes lo..hi contain a minimiser).
    bool hi_finite = true;
    while (r.evaluations < s.max_evaluations) {
        const double width = std::abs(hi.a - lo.a);
        if (width <= std::numeric_limits<double>::epsilon() * std::max(lo.a, hi.a))
            break;
        const double a_try = hi_finite ? interpolate(lo, hi) : lo.a + 0.1 * (hi.a - lo.a);
        Trial t;
        if (!eval(a_try, t)) {
            hi = t;
            hi_finite = false;
            continue;
        }
        if (t.f > f0 + armijo * t.a || t.f >= lo.f) {
            hi = t;
            hi_finite = true;
            continue;
        }
        if (std::abs(t.d) <= curvature) {
            keep(t, true);
            return r;
        }
        keep(t, false);
        if (t.d * (hi.a - lo.a) >= 0.0) {
            hi = lo;
            hi_finite = true;
        }
        lo = t;
    }
    return r;
}

}  // namespace advi
