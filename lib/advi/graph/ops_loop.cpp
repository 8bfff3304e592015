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

void run(const LoopSystem& s, const double* z, double* final_state, const double* g, double* vjp) {
    const int S = s.body->states(), P = s.body->parameters();
    const std::shared_ptr<LoopBodyInstance> body = s.body->instance();
    const double* p = z + S;
    const std::int64_t T = std::max<std::int64_t>(0, s.last - s.first + 1);
    // Segments of K iterations: the state before each segment is kept (checkpoints); the
    // reverse pass recomputes one segment's states at a time.
    const std::int64_t K =
        T * S <= s.stored_states
            ? std::max<std::int64_t>(T, 1)
            : std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(std::sqrt(double(T)))));
    const std::int64_t segments = (T + K - 1) / K;
    std::vector<double> checkpoints(static_cast<std::size_t>(std::max<std::int64_t>(segments, 1)) *
                                    static_cast<std::size_t>(S));
    std::vector<double> cur(z, z + S), next(static_cast<std::size_t>(S));
    for (std::int64_t k = 0; k < T; ++k) {
        if (k % K == 0)
            std::copy(cur.begin(), cur.end(), checkpoints.begin() + (k / K) * S);
        body->value(static_cast<double>(s.first + k), cur.data(), p, next.data());
        std::swap(cur, next);
    }
    std::copy(cur.begin(), cur.end(), final_state);
    if (g == nullptr)
        return;
    // Backwards: gs is the adjoint of the state after iteration k.
    std::vector<double> gs(g, g + S), gs_prev(static_cast<std::size_t>(S));
    double* gp = vjp + S;
    std::fill(gp, gp + P, 0.0);
    std::vector<double> states(static_cast<std::size_t>(K) * static_cast<std::size_t>(S));
    for (std::int64_t seg = segments - 1; seg >= 0; --seg) {
        const std::int64_t from = seg * K, to = std::min(T, from + K);  // iterations [from, to)
        // states[j] = the state before iteration from + j
        std::copy(checkpoints.begin() + seg * S, checkpoints.begin() + (seg + 1) * S,
                  states.begin());
        for (std::int64_t k = from; k + 1 < to; ++k) {
            const std::size_t j = static_cast<std::size_t>(k - from) * static_cast<std::size_t>(S);
            body->value(static_cast<double>(s.first + k), states.data() + j, p,
                        states.data() + j + static_cast<std::size_t>(S));
        }
        for (std::int64_t k = to - 1; k >= from; --k) {
            const std::size_t j = static_cast<std::size_t>(k - from) * static_cast<std::size_t>(S);
            body->vjp(static_cast<double>(s.first + k), states.data() + j, p, gs.data(),
                      gs_prev.data(), gp);
            std::swap(gs, gs_prev);
        }
    }
    std::copy(gs.begin(), gs.end(), vjp);
}

namespace {

const Shape& z_shape(const Graph& g, const Node& n, const LoopSystem& s) {
    const Shape& z = g[n.in[0]].shape;
    const int size = s.body->states() + s.body->parameters();
    if (z.size() != size || z.cols != 1 || z.is_scalar()) {
        throw ShapeError(
            fmt::format("{}: z must be a vector of the {} initial states and {} inputs, "
                        "got {}",
                        s.name, s.body->states(), s.body->parameters(), z.str()));
    }
    return z;
}

}  // namespace

Shape loop_shape(const Graph& g, const Node& n) {
    const LoopSystem& s = loop_system(n.index);
    z_shape(g, n, s);
    return Shape::vector(s.body->states());
}

Shape loop_vjp_shape(const Graph& g, const Node& n) {
    const LoopSystem& s = loop_system(n.index);
    const Shape& z = z_shape(g, n, s);
    if (g[n.in[1]].shape.size() != s.body->states()) {
        throw ShapeError(fmt::format("loop_vjp: the adjoint is {}, the state has {} values",
                                     g[n.in[1]].shape.str(), s.body->states()));
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
    std::vector<double> final_state(static_cast<std::size_t>(s.body->states()));
    run(s, a.in[0].x, final_state.data(), a.in[1].x, a.out);
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
