// The compiler's passes one at a time (aliases, loops, schedule, liveness, slots, emit): each
// value prints what the pass decided, and the passes in order are Program::compile.
#include <cmath>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/compile/aliases.hpp>
#include <advi/compile/emit.hpp>
#include <advi/compile/liveness.hpp>
#include <advi/compile/loops.hpp>
#include <advi/compile/repeats.hpp>
#include <advi/compile/schedule.hpp>
#include <advi/compile/slots.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/diff/simplify.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi {

TEST_CASE("each pass prints its value, and the passes in order are Program::compile", "[compile]") {
    // lp = sum(exp(z[2:5]) * y) + sum(exp(z[2:5])): a slice of zeta (an alias), one loop
    // over 3 values with two summed trees, data read in place.
    Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(3, 1, 3);
    std::vector<DataSlot> data{
        {"y", Shape::vector(3), DType::Real, y.data(), nullptr}
    };
    Graph g;
    const NodeId z = g.leaf(Op::Zeta, Shape::vector(6), DType::Real, 0, "z");
    const NodeId yd = g.leaf(Op::Data, Shape::vector(3), DType::Real, 0, "y");
    const NodeId mid = linalg::block(g, z, 2, 0, Shape::vector(3));
    const NodeId e = g.apply(Op::Exp, mid);
    g.set_output("lp",
                 g.apply(Op::Add, g.apply(Op::Sum, g.apply(Op::Mul, e, yd)), g.apply(Op::Sum, e)));

    const Graph copied = repeats_per_reader(g);  // no repeat here: the same graph
    CHECK(copied.str() == g.str());
    const Aliases aliases = find_aliases(copied);
    INFO(aliases.str());
    CHECK(aliases.str() == fmt::format("  %{} vec[3] = %{} +2\n", mid, z));
    const Loops loops = fuse_loops(aliases);
    INFO(loops.str());
    CHECK(loops.str().find("= sum <-") != std::string::npos);
    const Schedule units = schedule(loops);
    INFO(units.str());
    CHECK(units.str().find("loop over 3 values in blocks of 3:") != std::string::npos);
    const Liveness live = liveness(units);
    INFO(live.str());
    CHECK(live.str().find("data read per run: 24 bytes") != std::string::npos);
    CHECK(live.str().find("at the end (an output)") != std::string::npos);
    const Slots slots = assign_slots(live, data, 6);
    INFO(slots.str());
    CHECK(slots.str().find("doubles persistent") != std::string::npos);
    const Program p = emit(slots, data, 6, 0, 1);
    CHECK(p.str() == Program::compile(g, data, 6, 0, 1).str());

    Eigen::VectorXd zeta = Eigen::VectorXd::LinSpaced(6, -1, 1), out;
    Program run = p;
    const Eigen::ArrayXd ez = zeta.segment(2, 3).array().exp();
    CHECK(run.run(zeta, out) == Approx((ez * y.array()).sum() + ez.sum()));
}

TEST_CASE("a pass with nothing to do says so", "[compile]") {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "x");
    g.set_output("lp", g.apply(Op::Exp, x));
    const Aliases aliases = find_aliases(g);
    CHECK(aliases.str() == "  (none)\n");
    const Loops loops = fuse_loops(aliases);
    CHECK(loops.str() == "  (none)\n");
    CHECK(schedule(loops).str() == "  0: %1 real = exp\n");
}

TEST_CASE("a whole-size reshape between a loop member and its reader is no buffer", "[compile]") {
    // lp = sum(reshape(z[idx]) .* Y) with Y 6 x 2: the lowering's shape of a loop over points
    // reading a parameter by index. The gather is a member of the sum's loop, read through
    // the reshape as a block temporary, not a 12-value buffer.
    Eigen::VectorXi idx(12);
    idx << 0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0;
    Eigen::MatrixXd y(6, 2);
    for (int j = 0; j < 12; ++j) y(j % 6, j / 6) = 0.5 + 0.25 * j;
    std::vector<DataSlot> data{
        {"idx",            Shape::vector(12), DType::Int,  nullptr,  idx.data()},
        { "Y", Shape::matrix(6,                2), DType::Real, y.data(),    nullptr}
    };
    Graph g;
    const NodeId z = g.leaf(Op::Zeta, Shape::vector(6), DType::Real, 0, "z");
    const NodeId i = g.leaf(Op::Data, Shape::vector(12), DType::Int, 0, "idx");
    const NodeId yd = g.leaf(Op::Data, Shape::matrix(6, 2), DType::Real, 1, "Y");
    const NodeId gathered = g.apply(Op::Gather, z, i);
    const NodeId m = g.apply(Op::Mul, linalg::reshape(g, gathered, Shape::matrix(6, 2)), yd);
    const NodeId lp = g.apply(Op::Sum, m);
    g.set_output("lp", lp);

    const Aliases aliases = find_aliases(g);
    const Loops loops = fuse_loops(aliases);
    INFO(loops.str());
    CHECK(loops.str() == fmt::format("  %{} real = sum <- %{} %{}\n", lp, gathered, m));
    Program p = Program::compile(g, data, 6, 0, 1);
    INFO(p.str());
    CHECK(p.str().find(fmt::format("block+0 %{} vec[12] = gather", gathered)) != std::string::npos);

    const Eigen::VectorXd zeta = Eigen::VectorXd::LinSpaced(6, 0.5, 2);
    double expected = 0;
    for (int j = 0; j < 12; ++j) expected += zeta[idx[j]] * y(j % 6, j / 6);
    Eigen::VectorXd out;
    CHECK(p.run(zeta, out) == Approx(expected).epsilon(1e-15));
}

TEST_CASE("row sums accumulate in the loop that computes their matrix", "[compile]") {
    // lp = sum(log(row_sums(exp(Z) .* X))) with Z, X 700 x 3: blocks of 512 values cross
    // column boundaries, so each value must land on its own row.
    const int rows = 700, cols = 3;
    Eigen::MatrixXd x(rows, cols);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i) x(i, j) = 1.0 + 0.01 * i + 0.5 * j;
    std::vector<DataSlot> data{
        {"X", Shape::matrix(rows, cols), DType::Real, x.data(), nullptr}
    };
    Graph g;
    const NodeId z = g.leaf(Op::Zeta, Shape::matrix(rows, cols), DType::Real, 0, "Z");
    const NodeId xd = g.leaf(Op::Data, Shape::matrix(rows, cols), DType::Real, 0, "X");
    const NodeId m = g.apply(Op::Mul, g.apply(Op::Exp, z), xd);
    const NodeId r = g.apply(Op::RowSums, m);
    g.set_output("lp", g.apply(Op::Sum, g.apply(Op::Log, r)));

    Program p = Program::compile(g, data, rows * cols, 0, 1);
    INFO(p.str());
    CHECK(p.str().find(fmt::format("block+512 %{} mat[700,3] = mul", m)) != std::string::npos);
    CHECK(p.str().find(fmt::format("%{} vec[700] = row_sums %{}  (added by rows)", r, m)) !=
          std::string::npos);

    const Eigen::VectorXd zeta = Eigen::VectorXd::LinSpaced(rows * cols, -1, 1);
    const Eigen::Map<const Eigen::MatrixXd> zm(zeta.data(), rows, cols);
    const double expected = (zm.array().exp() * x.array()).rowwise().sum().log().sum();
    Eigen::VectorXd out;
    CHECK(p.run(zeta, out) == Approx(expected).epsilon(1e-14));
}

TEST_CASE("tiles are read and their adjoints summed block by block", "[compile]") {
    // lp = -sum((tile_rows(Z, 400) - Y)^2) / 2 with Z 3 x 2 and Y 1200 x 2: the tile is read
    // by a loop over 2,400 values in blocks of 512, which start mid-tile and mid-column, and
    // its gradient, the sum of (Y - tile) over the tiles, is added back tile by tile.
    const int p = 3, reps = 400, cols = 2, rows = p * reps;
    Eigen::MatrixXd y(rows, cols);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i) y(i, j) = std::sin(0.37 * i + 1.1 * j);
    std::vector<DataSlot> data{
        {"Y", Shape::matrix(rows, cols), DType::Real, y.data(), nullptr}
    };
    Graph g;
    const NodeId z = g.leaf(Op::Zeta, Shape::matrix(p, cols), DType::Real, 0, "Z");
    const NodeId yd = g.leaf(Op::Data, Shape::matrix(rows, cols), DType::Real, 0, "Y");
    const NodeId d = g.apply(Op::Sub, linalg::tile_rows(g, z, reps), yd);
    g.set_output("lp",
                 g.apply(Op::Mul, g.constant(-0.5), g.apply(Op::Sum, g.apply(Op::Square, d))));
    const Graph gradient = simplify(differentiate(simplify(g)));
    Program prog = Program::compile(gradient, data, p * cols, p * cols, 1);
    const std::string listing = prog.str();
    INFO(listing);
    CHECK(listing.find("block+0") != std::string::npos);
    CHECK(listing.find("= tile_rows") != std::string::npos);
    CHECK(listing.find("(added by tiles)") != std::string::npos);
    CHECK(listing.find("loop over 2400 values in blocks of 512") != std::string::npos);

    const Eigen::VectorXd zeta = Eigen::VectorXd::LinSpaced(p * cols, -1, 1);
    const Eigen::Map<const Eigen::MatrixXd> zm(zeta.data(), p, cols);
    const Eigen::MatrixXd diff = zm.replicate(reps, 1) - y;
    Eigen::MatrixXd want = Eigen::MatrixXd::Zero(p, cols);
    for (int t = 0; t < reps; ++t) want -= diff.middleRows(t * p, p);
    Eigen::VectorXd out, out2;
    CHECK(prog.run(zeta, out) == Approx(-0.5 * diff.squaredNorm()).epsilon(1e-14));
    for (int k = 0; k < p * cols; ++k) CHECK(out[k] == Approx(want(k % p, k / p)).epsilon(1e-12));
    prog.set_threads(2);
    prog.run(zeta, out2);
    CHECK((out.array() == out2.array()).all());
}

TEST_CASE("repeats of many rows are read in runs by their reader, not copied", "[compile]") {
    // lp = -sum((Z - rep_rows(v))^2) / 2 + sum(rep_cols(u) / exp(Z)), Z of `rows` x 3: with 700
    // rows, blocks of 512 values cross the repeats' runs (a column each) in both operand
    // orders, and the gradient's repeats of adjoints are read in runs too; with 100 rows the
    // runs are too short and the repeats are copied. Values and gradient against the
    // analytic ones, and the same bits on two threads.
    for (const int rows : {700, 100}) {
        const int cols = 3, dim = rows * cols + cols + rows;
        Graph g;
        const NodeId z = g.leaf(Op::Zeta, Shape::matrix(rows, cols), DType::Real, 0, "Z");
        const NodeId v = g.leaf(Op::Zeta, Shape::vector(cols), DType::Real, rows * cols, "v");
        const NodeId u =
            g.leaf(Op::Zeta, Shape::vector(rows), DType::Real, rows * cols + cols, "u");
        const NodeId d = g.apply(Op::Sub, z, linalg::rep_rows(g, v, rows));
        const NodeId q = g.apply(Op::Div, linalg::rep_cols(g, u, cols), g.apply(Op::Exp, z));
        const NodeId half_ss =
            g.apply(Op::Mul, g.constant(-0.5), g.apply(Op::Sum, g.apply(Op::Square, d)));
        g.set_output("lp", g.apply(Op::Add, half_ss, g.apply(Op::Sum, q)));
        Program value = Program::compile(simplify(g), {}, dim, 0, 1);
        Program prog = Program::compile(simplify(differentiate(simplify(g))), {}, dim, dim, 1);
        INFO(value.str() << prog.str());
        const bool in_runs = rows >= 256;
        CHECK((value.str().find("(not copied: read in runs)") != std::string::npos) == in_runs);
        CHECK((prog.str().find("(not copied: read in runs)") != std::string::npos) == in_runs);

        const Eigen::VectorXd zeta = Eigen::VectorXd::LinSpaced(dim, -1.3, 0.9);
        const Eigen::Map<const Eigen::MatrixXd> Z(zeta.data(), rows, cols);
        const Eigen::Map<const Eigen::RowVectorXd> V(zeta.data() + rows * cols, cols);
        const Eigen::Map<const Eigen::VectorXd> U(zeta.data() + rows * cols + cols, rows);
        const Eigen::MatrixXd D = Z.rowwise() - V;
        const Eigen::MatrixXd E = (-Z).array().exp();
        const double lp = -0.5 * D.squaredNorm() + (E.array().colwise() * U.array()).sum();
        Eigen::VectorXd want(dim);
        Eigen::Map<Eigen::MatrixXd>(want.data(), rows, cols) =
            -D.array() - E.array().colwise() * U.array();
        want.segment(rows * cols, cols) = D.colwise().sum().transpose();
        want.tail(rows) = E.rowwise().sum();

        Eigen::VectorXd none, out, out2;
        CHECK(value.run(zeta, none) == Approx(lp).epsilon(1e-13));
        CHECK(prog.run(zeta, out) == Approx(lp).epsilon(1e-13));
        for (int k = 0; k < dim; ++k) {
            INFO("coordinate " << k);
            CHECK(out[k] == Approx(want[k]).epsilon(1e-12).margin(1e-13));
        }
        prog.set_threads(2);
        prog.run(zeta, out2);
        CHECK((out.array() == out2.array()).all());
    }
}

TEST_CASE("a long repeat read by several nodes gets a copy per reader, each read in runs",
          "[compile]") {
    // R = rep_rows(exp(v), 300) read by Z * R, by reshape(R) + W (a reader through a
    // whole-size reshape) and by sum(R): three copies (aux 0, 1, 2), none stored; a short
    // repeat (rep_rows of 3 rows) keeps one node. Values against the graph without copies.
    const int rows = 300, cols = 4;
    Graph g;
    const NodeId z = g.leaf(Op::Zeta, Shape::matrix(rows, cols), DType::Real, 0, "Z");
    const NodeId v = g.leaf(Op::Zeta, Shape::vector(cols), DType::Real, rows * cols, "v");
    const NodeId w =
        g.leaf(Op::Zeta, Shape::matrix(cols * 2, rows / 2), DType::Real, rows * cols + cols, "W");
    const NodeId r = linalg::rep_rows(g, g.apply(Op::Exp, v), rows);
    const NodeId a = g.apply(Op::Sum, g.apply(Op::Square, g.apply(Op::Mul, z, r)));
    const NodeId b = g.apply(
        Op::Sum,
        g.apply(Op::Exp,
                g.apply(Op::Add, linalg::reshape(g, r, Shape::matrix(cols * 2, rows / 2)), w)));
    const NodeId c = g.apply(Op::Sum, r);
    const NodeId short_r = linalg::rep_rows(g, v, 3);
    const NodeId d = g.apply(Op::Add, g.apply(Op::Sum, g.apply(Op::Exp, short_r)),
                             g.apply(Op::Sum, g.apply(Op::Square, short_r)));
    g.set_output("lp", g.apply(Op::Add, g.apply(Op::Add, a, b), g.apply(Op::Add, c, d)));
    const Graph copied = repeats_per_reader(g);
    const std::string listing = copied.str();
    INFO(listing);
    auto count = [&](const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = listing.find(what); at != std::string::npos;
             at = listing.find(what, at + 1))
            ++n;
        return n;
    };
    CHECK(count("mat[300,4] = rep_rows") == 3);
    CHECK(count("mat[3,4] = rep_rows") == 1);

    const int dim = rows * cols + cols + rows * cols;
    Program p = Program::compile(g, {}, dim, 0, 1);
    INFO(p.str());
    // No copy is stored in a full buffer: each lives in its reader's loop (read in runs, or
    // in a block temporary where the sum reads it).
    const std::string program = p.str();
    std::size_t stored = 0, looped = 0;
    for (std::size_t at = program.find("mat[300,4] = rep_rows"); at != std::string::npos;
         at = program.find("mat[300,4] = rep_rows", at + 1)) {
        const std::size_t line = program.rfind('\n', at) + 1;
        const std::string head = program.substr(line, at - line);
        ++(head.find('@') != std::string::npos ? stored : looped);
    }
    CHECK(stored == 0);
    CHECK(looped == 3);
    const Eigen::VectorXd zeta = Eigen::VectorXd::LinSpaced(dim, -0.7, 0.6);
    const Eigen::Map<const Eigen::MatrixXd> Z(zeta.data(), rows, cols);
    const Eigen::RowVectorXd ev =
        Eigen::Map<const Eigen::RowVectorXd>(zeta.data() + rows * cols, cols).array().exp();
    const Eigen::Map<const Eigen::MatrixXd> W(zeta.data() + rows * cols + cols, cols * 2, rows / 2);
    const Eigen::MatrixXd R = ev.replicate(rows, 1);
    const Eigen::Map<const Eigen::MatrixXd> Rr(R.data(), cols * 2, rows / 2);
    const Eigen::Map<const Eigen::VectorXd> V(zeta.data() + rows * cols, cols);
    const double want = (Z.array() * R.array()).square().sum() + (Rr + W).array().exp().sum() +
                        R.sum() + 3 * (V.array().exp().sum() + V.squaredNorm());
    Eigen::VectorXd none;
    CHECK(p.run(zeta, none) == Approx(want).epsilon(1e-13));
}

}  // namespace advi
