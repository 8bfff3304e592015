#include <advi/fit/diagnose.hpp>

#include <cmath>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <advi/compile/pipeline.hpp>
#include <advi/compile/program.hpp>
#include <advi/compile/theta_program.hpp>
#include <advi/fit/constraint_checker.hpp>
#include <advi/graph/op.hpp>

namespace advi {

namespace {

// Beyond this many values the node-by-node program is not built: only whole terms are.
constexpr long kMaxValues = 20'000'000;

bool is_leaf(Op op) {
    return op == Op::Const || op == Op::Data || op == Op::Param || op == Op::Zeta;
}

// The nodes `id` depends on, itself included.
std::vector<bool> ancestors(const Graph& g, NodeId id) {
    std::vector<bool> in(static_cast<std::size_t>(g.size()), false);
    in[static_cast<std::size_t>(id)] = true;
    for (NodeId k = id; k >= 0; --k) {
        if (!in[static_cast<std::size_t>(k)])
            continue;
        const Node& n = g[k];
        for (int a = 0; a < n.arity(); ++a) in[static_cast<std::size_t>(n.in[a])] = true;
    }
    return in;
}

// "latent `mu` and data `y`": the leaves under `id`.
std::string reads(const ModelSpec& spec, NodeId id) {
    const std::vector<bool> in = ancestors(spec.graph, id);
    std::set<std::string> latents, data;
    for (NodeId k = 0; k <= id; ++k) {
        if (!in[static_cast<std::size_t>(k)])
            continue;
        const Node& n = spec.graph[k];
        if (n.op == Op::Param)
            latents.insert(spec.latents[static_cast<std::size_t>(n.index)].name);
        if (n.op == Op::Data)
            data.insert(spec.data[static_cast<std::size_t>(n.index)].name);
    }
    const auto list = [](const std::set<std::string>& s) {
        std::string out;
        std::size_t i = 0;
        for (const std::string& v : s) {
            out += (i == 0 ? "" : (i + 1 == s.size() ? " and " : ", ")) + fmt::format("`{}`", v);
            ++i;
        }
        return out;
    };
    std::string out;
    if (!latents.empty())
        out += (latents.size() == 1 ? "latent " : "latents ") + list(latents);
    if (!data.empty())
        out += (out.empty() ? "" : " and ") + std::string("data ") + list(data);
    return out.empty() ? "constants only" : "reading " + out;
}

std::string number(double v) {
    return std::isnan(v) ? "nan" : fmt::format("{:.6g}", v);
}

// Where only the gradient is not finite (a derivative's special function overflows, sqrt at 0):
// the first node of the gradient program whose inputs are finite and whose value is not, with
// the latent variables (by their zeta coordinates) and data it reads.
std::string explain_nonfinite_gradient(const ModelSpec& spec, const Eigen::VectorXd& zeta) {
    Graph g = stages(spec).simplified;
    const std::vector<bool> live = live_nodes(g);
    g.clear_outputs();
    std::vector<int> offset(static_cast<std::size_t>(g.size()), -1);
    int at = 0;
    for (NodeId id = 0; id < g.size(); ++id) {
        if (!live[static_cast<std::size_t>(id)] || is_leaf(g[id].op))
            continue;
        if (at + static_cast<long>(g[id].shape.size()) > kMaxValues)
            return "";
        g.set_output(fmt::format("%{}", id), id, at);
        offset[static_cast<std::size_t>(id)] = at;
        at += g[id].shape.size();
    }
    Program p = Program::compile(g, spec.data, spec.zeta_dim(), at, 1);
    Eigen::VectorXd v;
    p.run(zeta, v);
    const auto finite = [&](NodeId id) {
        const int o = offset[static_cast<std::size_t>(id)];
        if (o >= 0)
            return v.segment(o, g[id].shape.size()).allFinite();
        return g[id].op != Op::Const || std::isfinite(g[id].value);
    };
    const std::vector<int> zeta_offsets = spec.zeta_offsets();
    for (NodeId id = 0; id < g.size(); ++id) {
        const int o = offset[static_cast<std::size_t>(id)];
        if (o < 0 || finite(id))
            continue;
        const Node& n = g[id];
        bool inputs_finite = true;
        for (int a = 0; a < n.arity(); ++a) inputs_finite = inputs_finite && finite(n.in[a]);
        if (!inputs_finite)
            continue;
        int element = 0;
        while (std::isfinite(v[o + element])) ++element;
        std::string message = fmt::format("the gradient is not finite: op `{}` gives {}",
                                          op_name(n.op), number(v[o + element]));
        if (n.shape.size() > 1)
            message += fmt::format(" at element {} of {}", element, n.shape.str());
        // The latents (by their zeta coordinates) and data under the node.
        std::set<std::string> latents, data;
        const std::vector<bool> in = ancestors(g, id);
        for (NodeId k = 0; k <= id; ++k) {
            if (!in[static_cast<std::size_t>(k)])
                continue;
            if (g[k].op == Op::Data)
                data.insert(spec.data[static_cast<std::size_t>(g[k].index)].name);
            if (g[k].op != Op::Zeta)
                continue;
            for (std::size_t l = spec.latents.size(); l-- > 0;) {
                if (zeta_offsets[l] <= g[k].index) {
                    latents.insert(spec.latents[l].name);
                    break;
                }
            }
        }
        const auto list = [](const std::set<std::string>& names) {
            std::vector<std::string> quoted;
            for (const std::string& x : names) quoted.push_back(fmt::format("`{}`", x));
            return fmt::format("{}", fmt::join(quoted, ", "));
        };
        if (!latents.empty())
            message +=
                fmt::format(", reading latent{} {}", latents.size() > 1 ? "s" : "", list(latents));
        if (!data.empty())
            message +=
                fmt::format("{} data {}", latents.empty() ? ", reading" : " and", list(data));
        return message + " (the log density itself is finite there)";
    }
    return "";
}

}  // namespace

std::string explain_nonfinite(const ModelSpec& spec, const Eigen::VectorXd& zeta) {
    // The latents in constrained space: a transform can overflow on its own.
    Program to_theta = compile_constrain_map(spec);
    Eigen::VectorXd theta(spec.theta_dim());
    to_theta.run(zeta, theta);
    const std::vector<int> offsets = spec.theta_offsets();
    for (std::size_t k = 0; k < spec.latents.size(); ++k) {
        const LatentVariable& l = spec.latents[k];
        for (int i = 0; i < l.shape.size(); ++i) {
            const double v = theta[offsets[k] + i];
            if (!std::isfinite(v)) {
                return fmt::format("latent `{}` is {} at element {} after its transform to {}",
                                   l.name, number(v), i, l.support.str());
            }
        }
    }
    const Graph& g = spec.graph;
    const std::optional<NodeId> lp = g.output("lp");
    if (!lp)
        return "";
    const std::vector<bool> live = ancestors(g, *lp);
    std::vector<std::pair<std::string, NodeId>> outputs;
    long values = 0;
    for (NodeId id = 0; id < g.size(); ++id) {
        if (live[static_cast<std::size_t>(id)] && !is_leaf(g[id].op)) {
            outputs.emplace_back(fmt::format("%{}", id), id);
            values += g[id].shape.size();
        }
    }
    if (values > kMaxValues) {  // whole terms only
        outputs.clear();
        for (NodeId t : spec.terms) outputs.emplace_back(fmt::format("%{}", t), t);
    }
    ThetaProgram program(spec, outputs);
    const Eigen::VectorXd& v = program.evaluate(theta);
    std::vector<int> offset(static_cast<std::size_t>(g.size()), -1);
    int at = 0;
    for (const auto& [name, id] : outputs) {
        offset[static_cast<std::size_t>(id)] = at;
        at += g[id].shape.size();
    }
    const auto finite = [&](NodeId id) {
        const int o = offset[static_cast<std::size_t>(id)];
        return o < 0 || v.segment(o, g[id].shape.size()).allFinite();
    };
    for (const auto& [name, id] : outputs) {
        const Node& n = g[id];
        if (finite(id))
            continue;
        bool inputs_finite = true;
        for (int a = 0; a < n.arity(); ++a) inputs_finite = inputs_finite && finite(n.in[a]);
        if (!inputs_finite)
            continue;
        if (n.op == Op::CheckConstraint) {  // a declared constraint: say which, and why
            ConstraintChecker checker(spec);
            if (auto why = checker.violation(theta)) {
                return *why + " (Stan rejects such a draw)";
            }
        }
        const int o = offset[static_cast<std::size_t>(id)];
        int element = 0;
        while (std::isfinite(v[o + element])) ++element;
        std::string message =
            fmt::format("op `{}` gives {}", op_name(n.op), number(v[o + element]));
        if (n.shape.size() > 1)
            message += fmt::format(" at element {} of {}", element, n.shape.str());
        // The inputs at that element, where they have one (elementwise ops and scalars).
        std::vector<std::string> args;
        for (int a = 0; a < n.arity(); ++a) {
            const NodeId in = n.in[a];
            const int size = g[in].shape.size();
            double x = 0;
            const int e = size == 1 ? 0 : element;
            if (g[in].op == Op::Const) {
                x = g[in].value;
            } else if (g[in].op == Op::Param && (size == 1 || size == n.shape.size())) {
                x = theta[offsets[static_cast<std::size_t>(g[in].index)] + e];
            } else if (g[in].op == Op::Data && (size == 1 || size == n.shape.size()) &&
                       spec.data[static_cast<std::size_t>(g[in].index)].real != nullptr) {
                x = spec.data[static_cast<std::size_t>(g[in].index)].real[e];
            } else if (offset[static_cast<std::size_t>(in)] >= 0 &&
                       (size == 1 || size == n.shape.size())) {
                x = v[offset[static_cast<std::size_t>(in)] + (size == 1 ? 0 : element)];
            } else {
                args.clear();
                break;
            }
            args.push_back(number(x));
        }
        if (!args.empty() && op_info(n.op).elementwise) {
            message += fmt::format(" ({} of {})", op_name(n.op), fmt::join(args, ", "));
        }
        message += ", " + reads(spec, id);
        for (std::size_t t = 0; t < spec.terms.size(); ++t) {
            if (ancestors(g, spec.terms[t])[static_cast<std::size_t>(id)]) {
                message +=
                    fmt::format(", in term {} of {} of the log density", t + 1, spec.terms.size());
                break;
            }
        }
        return message;
    }
    // Every value of the log density is finite here: the fault is in its gradient.
    return explain_nonfinite_gradient(spec, zeta);
}

}  // namespace advi
