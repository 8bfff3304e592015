// The pipeline passes in order, each stage printable (ADVI_DUMP).
#include <advi/compile/pipeline.hpp>

#include <iostream>

#include <advi/compile/constrain.hpp>
#include <advi/compile/dump.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/diff/simplify.hpp>

namespace advi {
namespace {

void show(std::string_view stage, const Graph& g) {
    if (dump_wanted(stage))
        std::cerr << "# after " << stage << " (" << g.size() << " nodes)\n" << g;
}

}  // namespace

Stages stages(const ModelSpec& m, bool jacobian) {
    Stages s;
    s.model = m.graph;
    show("model", s.model);
    // Simplified before differentiating too: a simpler forward graph (log(exp x) = x,
    // x / exp(y) = x exp(-y), ...) has a simpler derivative than one simplified afterwards.
    s.constrained = simplify(constrain(m, jacobian));
    show("constrain", s.constrained);
    s.gradient = differentiate(s.constrained);
    show("diff", s.gradient);
    s.simplified = simplify(s.gradient);
    show("simplify", s.simplified);
    return s;
}

Program compile(const ModelSpec& m, bool jacobian) {
    Stages s = stages(m, jacobian);
    Program p = Program::compile(s.simplified, m.data, m.zeta_dim(), m.zeta_dim(), 0, true);
    if (dump_wanted("program"))
        std::cerr << "# program\n" << p.str();
    return p;
}

Program compile_constrain_map(const ModelSpec& m) {
    Graph g = simplify(constrain_map(m));
    return Program::compile(g, m.data, m.zeta_dim(), m.theta_dim());
}

}  // namespace advi
