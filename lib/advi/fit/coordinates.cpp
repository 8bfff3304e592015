// Names and runaway limits of a model's unconstrained coordinates.
#include <advi/fit/coordinates.hpp>

#include <vector>

#include <fmt/format.h>

#include <advi/engine/runaway.hpp>

namespace advi {

std::function<std::string(int)> coordinate_namer(const ModelSpec& m) {
    std::vector<std::string> names;
    for (const auto& l : m.latents) names.push_back(l.name);
    return [offsets = m.zeta_offsets(), dim = m.zeta_dim(), names = std::move(names)](int k) {
        for (std::size_t i = offsets.size(); i-- > 0;) {
            if (k >= offsets[i]) {
                const int end = i + 1 < offsets.size() ? offsets[i + 1] : dim;
                if (end - offsets[i] == 1) {
                    return fmt::format("`{}`", names[i]);
                }
                return fmt::format("`{}` (unconstrained element {} of {})", names[i],
                                   k - offsets[i] + 1, end - offsets[i]);
            }
        }
        return fmt::format("coordinate {}", k);
    };
}

Eigen::VectorXd coordinate_runaway_limits(const ModelSpec& m) {
    constexpr double kExpLimit = 700.0;
    Eigen::VectorXd limits = Eigen::VectorXd::Constant(m.zeta_dim(), kRunawayMagnitude);
    const std::vector<int> offsets = m.zeta_offsets();
    for (std::size_t i = 0; i < m.latents.size(); ++i) {
        const LatentVariable& v = m.latents[i];
        using K = Support::Kind;
        const K kind = v.support.kind;
        const bool exponentiates =
            ((kind == K::Lower || kind == K::Upper) && v.positive == PositiveTransform::Log) ||
            kind == K::Interval;
        if (exponentiates) {
            const int end = i + 1 < offsets.size() ? offsets[i + 1] : m.zeta_dim();
            limits.segment(offsets[i], end - offsets[i]).setConstant(kExpLimit);
        }
    }
    return limits;
}

}  // namespace advi
