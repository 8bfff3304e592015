#include <advi/compile/theta_program.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

ThetaProgram::ThetaProgram(const ModelSpec& spec,
                           const std::vector<std::pair<std::string, NodeId>>& outputs)
    : spec_(spec) {
    Graph g = spec_.graph;
    g.clear_outputs();
    for (const auto& [name, id] : outputs) {
        if (id < 0 || id >= g.size()) {
            throw ModelError(fmt::format("quantity `{}` is not a node of the model graph", name));
        }
        g.set_output(name, id, size_);
        size_ += g[id].shape.size();
    }
    // The latents become data slots read from per-draw buffers.
    std::vector<DataSlot> data = spec_.data;
    const int first = static_cast<int>(data.size());
    theta_.reserve(spec_.latents.size());
    for (const auto& l : spec_.latents) {
        theta_.emplace_back(Eigen::VectorXd::Zero(l.shape.size()));
        data.push_back({l.name, l.shape, DType::Real, theta_.back().data(), nullptr});
    }
    const Graph on_theta = rebuild(g, [&](Graph& out, const Node& n, NodeId) {
        if (n.op != Op::Param)
            return out.intern(n);
        return out.leaf(Op::Data, n.shape, DType::Real, first + static_cast<int>(n.index),
                        spec_.latents[static_cast<std::size_t>(n.index)].name);
    });
    program_ = Program::compile(on_theta, data, 0, size_, 1);
    out_.resize(size_);
}

const Eigen::VectorXd& ThetaProgram::evaluate(const Eigen::VectorXd& theta) {
    if (theta.size() != spec_.theta_dim()) {
        throw ShapeError(fmt::format("ThetaProgram::evaluate: expected theta of size {}, got {}",
                                     spec_.theta_dim(), theta.size()));
    }
    const std::vector<int> offsets = spec_.theta_offsets();
    for (std::size_t k = 0; k < theta_.size(); ++k) {
        theta_[k] = theta.segment(offsets[k], theta_[k].size());
    }
    program_.reload_data();
    const Eigen::VectorXd none;
    program_.run(none, out_);
    return out_;
}

}  // namespace advi
