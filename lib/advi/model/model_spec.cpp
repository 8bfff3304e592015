// Offsets and lookups over a model's latent variables.
#include <advi/model/model_spec.hpp>

#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/transform/transform.hpp>

namespace advi {

std::optional<std::string> violation(const Graph& g, const ConstraintCheck& c, const double* value,
                                     const double* lower, const double* upper) {
    const auto view = [&](NodeId id, const double* x) {
        return View{.x = x, .rows = g[id].shape.rows, .cols = g[id].shape.cols};
    };
    const Shape& x = g[c.value].shape;
    std::vector<double> scratch(static_cast<std::size_t>(x.rows) * x.rows);
    auto v = check_ops::violation(c.constraint, c.rowwise, view(c.value, value),
                                  view(c.lower, lower), view(c.upper, upper), scratch.data());
    if (!v)
        return std::nullopt;
    return c.what + " " + *v;
}

std::vector<int> ModelSpec::zeta_offsets() const {
    std::vector<int> off;
    int at = 0;
    for (const auto& v : latents) {
        off.push_back(at);
        at += transform_for(v.support, v.positive).unconstrained_shape(v.shape, v.support).size();
    }
    return off;
}

int ModelSpec::zeta_dim() const {
    int at = 0;
    for (const auto& v : latents) {
        at += transform_for(v.support, v.positive).unconstrained_shape(v.shape, v.support).size();
    }
    return at;
}

std::vector<int> ModelSpec::theta_offsets() const {
    std::vector<int> off;
    int at = 0;
    for (const auto& v : latents) {
        off.push_back(at);
        at += v.shape.size();
    }
    return off;
}

int ModelSpec::theta_dim() const {
    int at = 0;
    for (const auto& v : latents) at += v.shape.size();
    return at;
}

Eigen::VectorXd ModelSpec::unconstrain(const Eigen::VectorXd& theta) const {
    if (theta.size() != theta_dim()) {
        throw DataError(fmt::format("unconstrain: expected {} constrained values, got {}",
                                    theta_dim(), theta.size()));
    }
    Eigen::VectorXd zeta(zeta_dim());
    const std::vector<int> in = theta_offsets();
    const std::vector<int> out = zeta_offsets();
    for (std::size_t k = 0; k < latents.size(); ++k) {
        const LatentVariable& v = latents[k];
        const Eigen::VectorXd x = theta.segment(in[k], v.shape.size());
        if (!v.support.has_expression() && !v.support.contains(x, v.shape)) {
            throw DataError(
                fmt::format("unconstrain: the values of `{}` are outside its support {}", v.name,
                            v.support.str()));
        }
        try {
            const Transform& t = transform_for(v.support, v.positive);
            const Eigen::VectorXd z = t.unconstrain(x, v.shape, v.support);
            zeta.segment(out[k], z.size()) = z;
        } catch (const ModelError& e) {
            throw ModelError(fmt::format("unconstrain `{}`: {}", v.name, e.what()));
        }
    }
    return zeta;
}

int ModelSpec::latent_index(std::string_view name) const {
    for (std::size_t k = 0; k < latents.size(); ++k) {
        if (latents[k].name == name)
            return static_cast<int>(k);
    }
    std::string names;
    for (const auto& v : latents) names += (names.empty() ? "" : ", ") + v.name;
    throw ModelError(fmt::format("no latent variable named `{}` (the model has: {})", name,
                                 names.empty() ? "none" : names));
}

const LatentVariable& ModelSpec::latent(std::string_view name) const {
    return latents[latent_index(name)];
}

std::string element_label(const LatentVariable& v, std::int64_t k, int index_base) {
    std::vector<std::int64_t> dims = v.dims;
    if (dims.empty() && v.shape.is_vector())
        dims = {v.shape.rows};
    if (dims.empty() && v.shape.is_matrix())
        dims = {v.shape.rows, v.shape.cols};
    if (dims.empty())
        return v.name;
    std::string part;  // a complex value's part, named last
    if (v.complex && !dims.empty()) {
        part = k % dims[0] == 0 ? ".real" : ".imag";
        k /= dims[0];
        dims.erase(dims.begin());
        if (dims.empty())
            return v.name + part;
    }
    std::string label = v.name + "[";
    for (std::size_t d = 0; d < dims.size(); ++d) {
        label += fmt::format("{}{}", d > 0 ? "," : "", k % dims[d] + index_base);
        k /= dims[d];
    }
    return label + "]" + part;
}

}  // namespace advi
