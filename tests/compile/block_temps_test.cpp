// One block temporary feeds several trees of a loop: a loop root read only by later steps of its
// own loop, at the block's offset, is never stored in a full buffer (schedule's `temp`); its block
// is freed after its last reader, so the trees between them cannot overwrite it.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <advi/compile/program.hpp>

namespace advi {
namespace {

// lp = sum(t .* y) + sum(t .* t) + sum(t + y) with t = exp(z): t has three readers (one reads it
// twice), three summed trees of one loop over n values.
struct ThreeReaders {
    Eigen::VectorXd y;
    std::vector<DataSlot> data;
    Graph g;
    NodeId t = kNoNode;

    ThreeReaders(int n, bool t_is_output) : y(Eigen::VectorXd::LinSpaced(n, -2, 3)) {
        data = {
            {"y", Shape::vector(n), DType::Real, y.data(), nullptr}
        };
        const NodeId z = g.leaf(Op::Zeta, Shape::vector(n), DType::Real, 0, "z");
        const NodeId yd = g.leaf(Op::Data, Shape::vector(n), DType::Real, 0, "y");
        t = g.apply(Op::Exp, z);
        const NodeId a = g.apply(Op::Sum, g.apply(Op::Mul, t, yd));
        const NodeId b = g.apply(Op::Sum, g.apply(Op::Mul, t, t));
        const NodeId c = g.apply(Op::Sum, g.apply(Op::Add, t, yd));
        g.set_output("lp", g.apply(Op::Add, g.apply(Op::Add, a, b), c));
        if (t_is_output)
            g.set_output("t", t, 0);
    }
    [[nodiscard]] double expected(const Eigen::VectorXd& zeta) const {
        const Eigen::ArrayXd e = zeta.array().exp();
        return (e * y.array()).sum() + (e * e).sum() + (e + y.array()).sum();
    }
};

}  // namespace

TEST_CASE("a loop root read only within its loop lives in a block temporary", "[compile]") {
    const int n = 3000;  // six blocks of 512 and a short one
    ThreeReaders m(n, false);
    Program p = Program::compile(m.g, m.data, n, 0, 1);
    const std::string listing = p.str();
    INFO(listing);
    // exp(z) in a block, no n-value buffer: the arena holds the input and a few blocks.
    CHECK(listing.find(fmt::format("block+0 %{} vec[{}] = exp", m.t, n)) != std::string::npos);
    CHECK(p.arena_bytes() < static_cast<std::size_t>(2 * n) * sizeof(double));
    const Eigen::VectorXd zeta = 0.5 * Eigen::VectorXd::LinSpaced(n, -1, 1);
    Eigen::VectorXd out;
    CHECK(p.run(zeta, out) == Approx(m.expected(zeta)).epsilon(1e-13));
}

TEST_CASE("a loop root read outside its loop keeps its buffer", "[compile]") {
    const int n = 3000;
    ThreeReaders m(n, true);  // t is also an output: it must be stored
    Program p = Program::compile(m.g, m.data, n, n, 1);
    INFO(p.str());
    CHECK(p.arena_bytes() >= static_cast<std::size_t>(2 * n) * sizeof(double));
    const Eigen::VectorXd zeta = 0.5 * Eigen::VectorXd::LinSpaced(n, -1, 1);
    Eigen::VectorXd out;
    CHECK(p.run(zeta, out) == Approx(m.expected(zeta)).epsilon(1e-13));
    CHECK((out.array() == zeta.array().exp()).all());
}

TEST_CASE("block temporaries of a loop split over threads agree bit for bit", "[compile]") {
    const int n = 70000;  // several parts of the loop
    ThreeReaders m(n, false);
    Program p = Program::compile(m.g, m.data, n, 0, 1);
    const Eigen::VectorXd zeta = 0.5 * Eigen::VectorXd::LinSpaced(n, -1, 1);
    Eigen::VectorXd out;
    const double lp1 = p.run(zeta, out);
    p.set_threads(2);
    const double lp2 = p.run(zeta, out);
    CHECK(lp1 == lp2);
    CHECK(lp1 == Approx(m.expected(zeta)).epsilon(1e-12));
}

}  // namespace advi
