// --init: a radius or a file of constrained values.
#include <advi/cli/init_option.hpp>

#include <cmath>
#include <exception>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/fit/cmdstan_output.hpp>
#include <advi/io/read_data.hpp>

namespace advi::cli {

namespace fs = std::filesystem;

std::optional<double> init_radius(const std::string& s) {
    std::size_t used = 0;
    double v = 0.0;
    try {
        v = std::stod(s, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (used != s.size())
        return std::nullopt;
    if (!std::isfinite(v) || v < 0.0)
        throw Error(fmt::format("--init: expected a radius >= 0 or a file, got `{}`", s));
    return v;
}

Eigen::VectorXd init_from_file(const ModelSpec& spec, const fs::path& file) {
    const DataTable table = read_data(file);
    Eigen::VectorXd theta(spec.theta_dim());
    const std::vector<int> offsets = spec.theta_offsets();
    for (std::size_t k = 0; k < spec.latents.size(); ++k) {
        const LatentVariable& v = spec.latents[k];
        const DataValue* value = table.find(v.name);
        if (value == nullptr)
            throw Error(
                fmt::format("--init `{}`: parameter `{}` is not given (an init file "
                            "gives every parameter)",
                            file.string(), v.name));
        value->check(DType::Real, latent_dims(v));
        // Column-major, as the latent's values are laid out (a scalar reads as one value).
        auto into = theta.segment(offsets[k], v.shape.size());
        if (value->is_scalar()) {
            into.setConstant(value->as_real());
        } else if (value->dims.size() == 1) {
            into = value->as_vector();
        } else {
            const Eigen::MatrixXd m = value->as_matrix();
            into = Eigen::Map<const Eigen::VectorXd>(m.data(), m.size());
        }
    }
    try {
        return spec.unconstrain(theta);
    } catch (const Error& e) {
        throw Error(fmt::format("--init `{}`: {}", file.string(), e.what()));
    }
}

}  // namespace advi::cli
