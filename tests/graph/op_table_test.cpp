// Every differentiable op of the table: symbolic gradient against finite differences, at
// points of its test domain (including near the edges), with scalar broadcasting.
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

std::vector<std::vector<double>> points(Domain d) {
    switch (d) {
        case Domain::Real:
            return {
                {-1.3,  0.4,  2.1 },
                {-25.0, 1e-7, 30.0},
                {-0.01, 0.7,  -4.0}
            };
        case Domain::Positive:
            return {
                {0.3,  1.7,  4.2 },
                {1e-3, 0.05, 60.0}
            };
        case Domain::Unit:
            return {
                {0.2, 0.45, 0.9}
            };
        // near 0 (within the finite-difference step's reach), both sides of -log 2, far out
        case Domain::Negative:
            return {
                {-0.3,  -1.7,  -4.2 },
                {-1e-3, -0.05, -60.0},
                {-0.69, -0.7,  -12.0}
            };
        case Domain::None: return {};
    }
    return {};
}

// A test graph: inputs are zeta slices; lp = sum(w .* op(inputs)) with fixed weights w
// (data) so that every output element reaches the gradient differently.
struct OpCase {
    Graph g;
    std::vector<DataSlot> data;
    std::vector<Eigen::VectorXd> keep;  // data memory
    int dim = 0;
};

NodeId add_zeta(OpCase& c, Shape s) {
    const NodeId id = c.g.leaf(Op::Zeta, s, DType::Real, c.dim, "");
    c.dim += s.size();
    return id;
}

void finish(OpCase& c, NodeId out) {
    const Shape s = c.g[out].shape;
    c.keep.reserve(4);
    Eigen::VectorXd w(s.size());
    for (int k = 0; k < s.size(); ++k) w[k] = 0.5 + 0.37 * k - 0.11 * k * k;
    c.keep.push_back(w);
    c.data.push_back({"w", s, DType::Real, c.keep.back().data(), nullptr});
    const NodeId wd = c.g.leaf(Op::Data, s, DType::Real, 0, "w");
    c.g.set_output("lp", c.g.apply(Op::Sum, c.g.apply(Op::Mul, wd, out)));
}

}  // namespace

TEST_CASE("elementwise ops: gradient matches finite differences", "[graph][op]") {
    for (int k = 0; k < kOpCount; ++k) {
        const OpInfo& info = op_info(static_cast<Op>(k));
        if (!info.elementwise || info.adjoint == nullptr || info.domain == Domain::None)
            continue;
        for (const auto& pt : points(info.domain)) {
            // shapes: (vec, vec), (real, vec), (vec, real) for binary ops
            const int variants = info.arity == 1 ? 1 : 3;
            for (int v = 0; v < variants; ++v) {
                OpCase c;
                Eigen::VectorXd z;
                NodeId out;
                if (info.arity == 1) {
                    const NodeId x = add_zeta(c, Shape::vector(3));
                    out = c.g.apply(info.op, x);
                    z = Eigen::Map<const Eigen::VectorXd>(pt.data(), 3);
                } else {
                    const Shape sa = v == 1 ? Shape::scalar() : Shape::vector(3);
                    const Shape sb = v == 2 ? Shape::scalar() : Shape::vector(3);
                    const NodeId a = add_zeta(c, sa);
                    const NodeId b = add_zeta(c, sb);
                    out = c.g.apply(info.op, a, b);
                    z.resize(c.dim);
                    for (int i = 0; i < sa.size(); ++i) z[i] = pt[i];
                    // second argument: other points of the domain (pow: a real exponent)
                    for (int i = 0; i < sb.size(); ++i) {
                        z[sa.size() + i] = info.op == Op::Pow ? 0.8 - 0.9 * i : pt[2 - i] * 1.1;
                    }
                }
                finish(c, out);
                INFO(info.name << " variant " << v << " at " << z.transpose());
                test::check_gradient(c.g, c.data, z);
            }
        }
    }
}

TEST_CASE("reductions, products and indexing: gradients match finite differences", "[graph][op]") {
    Eigen::VectorXi idx(5);
    idx << 2, 0, 2, 3, 1;
    const DataSlot idx_slot{"idx", Shape::vector(5), DType::Int, nullptr, idx.data()};
    Eigen::VectorXd z;
    auto fill = [&](int n) {
        z.resize(n);
        for (int i = 0; i < n; ++i) z[i] = std::sin(1.0 + 2.3 * i);
    };

    SECTION("sum") {
        OpCase c;
        const NodeId x = add_zeta(c, Shape::vector(4));
        finish(c, c.g.apply(Op::Sum, x));
        fill(c.dim);
        test::check_gradient(c.g, c.data, z);
    }
    SECTION("broadcast") {
        OpCase c;
        const NodeId x = add_zeta(c, Shape::scalar());
        finish(c, c.g.broadcast(x, Shape::vector(4)));
        fill(c.dim);
        test::check_gradient(c.g, c.data, z);
    }
    SECTION("dot") {
        OpCase c;
        const NodeId a = add_zeta(c, Shape::vector(3));
        const NodeId b = add_zeta(c, Shape::vector(3));
        finish(c, c.g.apply(Op::Dot, a, b));
        fill(c.dim);
        test::check_gradient(c.g, c.data, z);
    }
    SECTION("matvec, mattvec, outer") {
        for (Op op : {Op::MatVec, Op::MatTVec, Op::Outer}) {
            OpCase c;
            NodeId out;
            if (op == Op::Outer) {
                const NodeId u = add_zeta(c, Shape::vector(3));
                const NodeId v = add_zeta(c, Shape::vector(2));
                out = c.g.apply(op, u, v);
            } else {
                const NodeId A = add_zeta(c, Shape::matrix(3, 2));
                const NodeId x = add_zeta(c, Shape::vector(op == Op::MatVec ? 2 : 3));
                out = c.g.apply(op, A, x);
            }
            finish(c, out);
            fill(c.dim);
            INFO(op_name(op));
            test::check_gradient(c.g, c.data, z);
        }
    }
    SECTION("gather and scatter_add") {
        for (Op op : {Op::Gather, Op::ScatterAdd}) {
            OpCase c;
            NodeId out;
            const NodeId ix = c.g.leaf(Op::Data, Shape::vector(5), DType::Int, 1, "idx");
            if (op == Op::Gather) {
                const NodeId v = add_zeta(c, Shape::vector(4));
                out = c.g.apply(Op::Gather, v, ix);
            } else {
                const NodeId u = add_zeta(c, Shape::vector(5));
                Node n;
                n.op = Op::ScatterAdd;
                n.shape = Shape::vector(4);
                n.in = {u, ix, kNoNode};
                out = c.g.intern(n);
            }
            finish(c, out);
            c.data.push_back(idx_slot);
            fill(c.dim);
            INFO(op_name(op));
            test::check_gradient(c.g, c.data, z);
        }
    }
}

TEST_CASE("gather evaluates by index and rejects an index out of range", "[graph][op]") {
    Graph g;
    Eigen::VectorXi idx(3);
    idx << 1, 1, 0;
    const NodeId v = g.leaf(Op::Zeta, Shape::vector(2), DType::Real, 0, "v");
    const NodeId ix = g.leaf(Op::Data, Shape::vector(3), DType::Int, 0, "idx");
    g.set_output("out", g.apply(Op::Gather, v, ix), 0);
    std::vector<DataSlot> data{
        {"idx", Shape::vector(3), DType::Int, nullptr, idx.data()}
    };
    Program p = Program::compile(g, data, 2, 3);
    Eigen::VectorXd z(2), out;
    z << 10, 20;
    p.run(z, out);
    CHECK(out[0] == 20);
    CHECK(out[1] == 20);
    CHECK(out[2] == 10);
    idx[2] = 7;
    CHECK_THROWS_WITH(p.run(z, out), Catch::Contains("index 7 at position 2 is outside 0..1"));
}

TEST_CASE("shape rules name the op and the shapes", "[graph][op]") {
    Graph g;
    const NodeId a = g.leaf(Op::Zeta, Shape::vector(3), DType::Real, 0, "a");
    const NodeId b = g.leaf(Op::Zeta, Shape::vector(4), DType::Real, 3, "b");
    const NodeId A = g.leaf(Op::Zeta, Shape::matrix(2, 5), DType::Real, 7, "A");
    CHECK_THROWS_AS(g.apply(Op::Add, a, b), ShapeError);
    CHECK_THROWS_WITH(g.apply(Op::Add, a, b), Catch::Contains("add") && Catch::Contains("vec[3]") &&
                                                  Catch::Contains("vec[4]"));
    CHECK_THROWS_WITH(g.apply(Op::MatVec, A, a),
                      Catch::Contains("mat[2,5]") && Catch::Contains("vec[3]"));
    CHECK_THROWS_WITH(g.apply(Op::Dot, a, b), Catch::Contains("dot"));
}

TEST_CASE("op table rows follow the enumeration and name every op", "[graph][op]") {
    for (int k = 0; k < kOpCount; ++k) {
        const OpInfo& info = op_info(static_cast<Op>(k));
        CHECK(static_cast<int>(info.op) == k);
        CHECK(!info.name.empty());
        CHECK((info.elementwise == (info.fold != nullptr)));
    }
}

// The compiler's columns (compile/ asks them instead of switching over ops): each holds only
// for ops whose inputs it speaks of.
TEST_CASE("the compiler's columns fit their ops' arities", "[graph][op]") {
    for (int k = 0; k < kOpCount; ++k) {
        const Op op = static_cast<Op>(k);
        const OpInfo& info = op_info(op);
        INFO(info.name);
        if (info.alias != nullptr)
            CHECK(info.arity == 1);  // an alias reads its input 0's buffer
        CHECK((loop_form(op) == LoopForm::Elementwise) == info.elementwise);
        CHECK(info.loop != LoopForm::Elementwise);  // elementwise ops are so by their column
        if (info.loop_fits != nullptr)
            CHECK(info.loop != LoopForm::None);
        switch (info.loop) {
            case LoopForm::Gather:
            case LoopForm::RowsMatVec:
            case LoopForm::ScatterAdd:
            case LoopForm::RowsTVec: CHECK(info.arity == 2); break;
            case LoopForm::RepCols:
            case LoopForm::RepRows:
            case LoopForm::TileRows:
            case LoopForm::TileSum:
            case LoopForm::RowSums:
            case LoopForm::ColSums:
            case LoopForm::Fill:
            case LoopForm::Embed:
            case LoopForm::Sum: CHECK(info.arity == 1); break;
            case LoopForm::None:
            case LoopForm::Elementwise: break;
        }
        if (info.split != ThreadSplit::None)
            CHECK(info.arity == 2);
    }
}

// The program runs a scalar elementwise op through its fold (the scalar function) and every
// other instance through the kernel: the two must agree bit for bit.
TEST_CASE("elementwise kernels agree with their scalar folds", "[graph][op]") {
    for (int k = 0; k < kOpCount; ++k) {
        const OpInfo& info = op_info(static_cast<Op>(k));
        if (!info.elementwise || info.op == Op::ToReal)
            continue;
        for (const auto& p : points(info.domain)) {
            const int n = static_cast<int>(p.size());
            std::vector<double> x = p, y(p.rbegin(), p.rend()), out(n);
            KernelArgs a;
            a.in[0] = {x.data(), nullptr, n, 1};
            a.in[1] = {y.data(), nullptr, n, 1};
            a.out = out.data();
            a.out_rows = n;
            Node node;
            node.op = info.op;
            a.node = &node;
            info.kernel(a);
            for (int i = 0; i < n; ++i) {
                INFO(info.name << " at " << x[i] << ", " << y[i]);
                const double f = info.fold(x[i], info.arity > 1 ? y[i] : 0.0);
                CHECK(((std::isnan(f) && std::isnan(out[i])) || f == out[i]));
            }
        }
    }
}

}  // namespace advi
