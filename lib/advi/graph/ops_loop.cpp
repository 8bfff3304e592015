#include <advi/graph/ops_loop.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>

namespace advi {

namespace {

std::mutex& registry_mutex() {
    static std::mutex m;
    return m;
}
// A deque: references to registered loops stay valid as more are added.
std::deque<LoopSystem>& registry() {
    static std::deque<LoopSystem> r;
    return r;
}

}  // namespace

std::int64_t register_loop_system(LoopSystem s) {
    if (s.body == nullptr)
        throw InternalError(fmt::format("{}: no body", s.name));
    const std::lock_guard lock(registry_mutex());
    registry().push_back(std::move(s));
    return static_cast<std::int64_t>(registry().size()) - 1;
}

const LoopSystem& loop_system(std::int64_t id) {
    const std::lock_guard lock(registry_mutex());
    if (id < 0 || id >= static_cast<std::int64_t>(registry().size()))
        throw InternalError(fmt::format("loop: no loop {}", id));
    return registry()[static_cast<std::size_t>(id)];
}

namespace loop_ops {

std::int64_t trip(const LoopSystem& s) {
    return std::max<std::int64_t>(0, s.last - s.first + 1);
}

void run(const LoopSystem& s, const double* z, double* out, const double* g, double* vjp) {
    const LoopBody& b = *s.body;
    const int S = b.states(), P = b.parameters(), X = b.slice(), E = b.emissions();
    const std::shared_ptr<LoopBodyInstance> body = b.instance();
    const double* p = z + S;
    const double* xs = z + S + P;
    const std::int64_t T = trip(s);
    auto x_at = [&](std::int64_t k) { return xs + k * X; };
    // Segments of K iterations: the state before each segment is kept (checkpoints); the
    // reverse pass recomputes one segment's states at a time.
    const std::int64_t K =
        T * S <= s.stored_states
            ? std::max<std::int64_t>(T, 1)
            : std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(std::sqrt(double(T)))));
    const std::int64_t segments = (T + K - 1) / K;
    const auto su = static_cast<std::size_t>(S);
    std::vector<double> checkpoints(static_cast<std::size_t>(std::max<std::int64_t>(segments, 1)) *
                                    su);
    std::vector<double> cur(z, z + S), next(su + static_cast<std::size_t>(E));
    for (std::int64_t k = 0; k < T; ++k) {
        if (k % K == 0)
            std::copy(cur.begin(), cur.end(), checkpoints.begin() + (k / K) * S);
        body->value(static_cast<double>(s.first + k), cur.data(), p, x_at(k), next.data());
        std::copy(next.begin(), next.begin() + S, cur.begin());
        std::copy(next.begin() + S, next.end(), out + S + k * E);
    }
    std::copy(cur.begin(), cur.end(), out);
    if (g == nullptr)
        return;
    // Backwards: gn is the adjoint of [s_t; y_t], its state part that of the state after t.
    std::vector<double> gn(su + static_cast<std::size_t>(E)), gs_prev(su);
    std::copy(g, g + S, gn.begin());
    double* gp = vjp + S;
    std::fill(gp, gp + P, 0.0);
    double* gx = vjp + S + P;
    std::vector<double> states(static_cast<std::size_t>(K) * su), scratch(su + E);
    for (std::int64_t seg = segments - 1; seg >= 0; --seg) {
        const std::int64_t from = seg * K, to = std::min(T, from + K);  // iterations [from, to)
        // states[j] = the state before iteration from + j
        std::copy(checkpoints.begin() + seg * S, checkpoints.begin() + (seg + 1) * S,
                  states.begin());
        for (std::int64_t k = from; k + 1 < to; ++k) {
            const std::size_t j = static_cast<std::size_t>(k - from) * su;
            body->value(static_cast<double>(s.first + k), states.data() + j, p, x_at(k),
                        scratch.data());
            std::copy(scratch.begin(), scratch.begin() + S, states.begin() + j + su);
        }
        for (std::int64_t k = to - 1; k >= from; --k) {
            const std::size_t j = static_cast<std::size_t>(k - from) * su;
            std::copy(g + S + k * E, g + S + (k + 1) * E, gn.begin() + S);
            body->vjp(static_cast<double>(s.first + k), states.data() + j, p, x_at(k), gn.data(),
                      gs_prev.data(), gp, gx + k * X);
            std::copy(gs_prev.begin(), gs_prev.end(), gn.begin());
        }
    }
    std::copy(gn.begin(), gn.begin() + S, vjp);
}

namespace {

const Shape& z_shape(const Graph& g, const Node& n, const LoopSystem& s) {
    const Shape& z = g[n.in[0]].shape;
    const LoopBody& b = *s.body;
    const std::int64_t size = b.states() + b.parameters() + trip(s) * b.slice();
    if (z.size() != size || z.cols != 1 || (z.is_scalar() && size != 1)) {
        throw ShapeError(
            fmt::format("{}: z must be a vector of the {} initial states, {} inputs "
                        "and {} per iteration, got {}",
                        s.name, b.states(), b.parameters(), b.slice(), z.str()));
    }
    return z;
}

Shape out_shape(const LoopSystem& s) {
    return Shape::vector(static_cast<int>(s.body->states() + trip(s) * s.body->emissions()));
}

}  // namespace

Shape loop_shape(const Graph& g, const Node& n) {
    const LoopSystem& s = loop_system(n.index);
    z_shape(g, n, s);
    return out_shape(s);
}

Shape loop_vjp_shape(const Graph& g, const Node& n) {
    const LoopSystem& s = loop_system(n.index);
    const Shape& z = z_shape(g, n, s);
    if (g[n.in[1]].shape.size() != out_shape(s).size()) {
        throw ShapeError(fmt::format("loop_vjp: the adjoint is {}, the loop's output {}",
                                     g[n.in[1]].shape.str(), out_shape(s).str()));
    }
    return z;
}

// The kernels allocate the states they keep, unlike other kernels: their size depends on the
// trip count and the checkpoints.
void loop_kernel(const KernelArgs& a) {
    run(loop_system(a.node->index), a.in[0].x, a.out);
}

void loop_vjp_kernel(const KernelArgs& a) {
    const LoopSystem& s = loop_system(a.node->index);
    std::vector<double> out(static_cast<std::size_t>(out_shape(s).size()));
    run(s, a.in[0].x, out.data(), a.in[1].x, a.out);
}

void adj_loop(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    Node n;
    n.op = Op::LoopVjp;
    n.in = {g[y].in[0], adj, kNoNode};
    n.index = g[y].index;
    c[0] = g.intern(n);
}

}  // namespace loop_ops

}  // namespace advi
