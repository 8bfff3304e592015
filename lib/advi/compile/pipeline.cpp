// The pipeline passes in order, each stage printable (ADVI_DUMP).
#include <advi/compile/pipeline.hpp>

#include <iostream>

#include <advi/compile/constrain.hpp>
#include <advi/compile/dump.hpp>
#include <advi/diff/hessian_vector.hpp>
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

Program compile_value(const ModelSpec& m, bool jacobian) {
    Graph g = simplify(constrain(m, jacobian));
    // Only lp: any other output of the forward graph would keep its nodes alive.
    const std::optional<NodeId> lp = g.output("lp");
    g.clear_outputs();
    if (lp)
        g.set_output("lp", *lp);
    show("value", g);
    Program p = Program::compile(g, m.data, m.zeta_dim(), 0);
    if (dump_wanted("value_program"))
        std::cerr << "# value program\n" << p.str();
    return p;
}

CurvatureStages curvature_stages(const ModelSpec& m, bool jacobian) {
    CurvatureStages s;
    s.gradient = stages(m, jacobian);
    s.hessian_vector = hessian_vector_graph(s.gradient.simplified, m.zeta_dim());
    show("hessian", s.hessian_vector);
    s.simplified = simplify(s.hessian_vector);
    show("hessian_simplify", s.simplified);
    return s;
}

HessianVectorProgram compile_hessian_vector_graph(const Graph& simplified_gradient,
                                                  const std::vector<DataSlot>& data, int dim) {
    const Graph g = simplify(hessian_vector_graph(simplified_gradient, dim));
    return HessianVectorProgram(Program::compile(simplified_gradient, data, dim, dim), g, data,
                                dim);
}

HessianVectorProgram compile_hessian_vector(const ModelSpec& m, bool jacobian) {
    CurvatureStages s = curvature_stages(m, jacobian);
    Program gradient =
        Program::compile(s.gradient.simplified, m.data, m.zeta_dim(), m.zeta_dim(), 0, true);
    HessianVectorProgram p(std::move(gradient), s.simplified, m.data, m.zeta_dim());
    if (dump_wanted("hessian_program")) {
        std::cerr << "# hessian_vector program, point stage\n"
                  << p.point_program().str() << "# hessian_vector program, direction stage\n"
                  << p.direction_program().str();
    }
    return p;
}

Program compile_constrain_map(const ModelSpec& m) {
    Graph g = simplify(constrain_map(m));
    return Program::compile(g, m.data, m.zeta_dim(), m.theta_dim());
}

}  // namespace advi
