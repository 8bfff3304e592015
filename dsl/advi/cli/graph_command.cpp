// `advi graph` and `advi program`: a Stan program lowered with its data, printed at a stage of
// the pipeline (the model graph, the graph on zeta, the gradient graph, the H v graph, the
// compiled programs; README "Reading a printed graph", "Reading a printed program").
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <advi/compile/pipeline.hpp>

#include <advi/cli/commands.hpp>
#include <advi/cli/load.hpp>
#include <CLI/CLI.hpp>

namespace advi::cli {
namespace {

namespace fs = std::filesystem;

struct GraphArgs {
    std::string model;
    std::vector<std::string> data;
    std::string stage = "model";
    bool dot = false;
};

struct ProgramArgs {
    std::string model;
    std::vector<std::string> data;
    bool hessian = false;
};

std::unique_ptr<LoadedModel> load(const std::string& model, const std::vector<std::string>& data) {
    const std::vector<fs::path> files(data.begin(), data.end());
    return load_model(model, files, 0);  // transformed data's _rng calls: seed 0
}

// The lowering's loop report ("file:line: for (n in 1:N) vectorised over ...") as comments
// above the listing: `#` in text, `//` in DOT (which Graphviz reads as comments).
void print_loop_report(const stan::LoweredProgram& lowered, std::string_view comment) {
    for (const std::string& line : lowered.loop_report()) {
        std::cout << comment << ' ' << line << '\n';
    }
}

int run_graph(const GraphArgs& args) {
    const auto loaded = load(args.model, args.data);
    const ModelSpec spec = loaded->lowered->model().spec();
    Graph graph;
    if (args.stage == "model") {
        graph = spec.graph;
    } else if (args.stage == "hessian" || args.stage == "hessian_simplified") {
        CurvatureStages s = curvature_stages(spec);
        graph = args.stage == "hessian" ? std::move(s.hessian_vector) : std::move(s.simplified);
    } else {
        Stages s = stages(spec);
        graph = args.stage == "constrained" ? std::move(s.constrained)
                : args.stage == "gradient"  ? std::move(s.gradient)
                                            : std::move(s.simplified);
    }
    print_loop_report(*loaded->lowered, args.dot ? "//" : "#");
    std::cout << (args.dot ? graph.dot() : graph.str()) << std::flush;
    return 0;
}

int run_program(const ProgramArgs& args) {
    const auto loaded = load(args.model, args.data);
    const ModelSpec spec = loaded->lowered->model().spec();
    print_loop_report(*loaded->lowered, "#");
    if (args.hessian) {
        const HessianVectorProgram p = compile_hessian_vector(spec);
        std::cout << "# point stage (once per zeta): lp, the gradient and the values the "
                     "direction stage reads\n"
                  << p.point_program().str()
                  << "# direction stage (once per v): H v, reading the point values as data\n"
                  << p.direction_program().str() << std::flush;
        return 0;
    }
    std::cout << compile(spec).str() << std::flush;
    return 0;
}

void add_model_and_data(CLI::App* app, std::string& model, std::vector<std::string>& data) {
    app->add_option("model", model, "The Stan program (.stan)")->required();
    app->add_option("--data", data,
                    "Data: CmdStan JSON (.json), R dump (.R, .rdump) or CSV (.csv); repeatable")
        ->allow_extra_args(false);
}

}  // namespace

Command add_graph_command(CLI::App& parent) {
    auto args = std::make_shared<GraphArgs>();
    CLI::App* app = parent.add_subcommand(
        "graph", "Print the graph of a Stan program at a stage of the pipeline");
    add_model_and_data(app, args->model, args->data);
    app->add_option("--stage", args->stage,
                    "model (over theta), constrained (over zeta, with log|det J|), gradient "
                    "(with the adjoints), simplified (what is compiled), hessian (the gradient "
                    "differentiated along v: input [zeta; v], outputs lp, gradient, H v) or "
                    "hessian_simplified")
        ->check(CLI::IsMember(
            {"model", "constrained", "gradient", "simplified", "hessian", "hessian_simplified"}))
        ->capture_default_str();
    app->add_flag("--dot", args->dot, "Graphviz instead of text (| dot -Tsvg > graph.svg)");
    return {app, [args] { return run_graph(*args); }};
}

Command add_program_command(CLI::App& parent) {
    auto args = std::make_shared<ProgramArgs>();
    CLI::App* app =
        parent.add_subcommand("program", "Print the compiled gradient program of a Stan program");
    add_model_and_data(app, args->model, args->data);
    app->add_flag("--hessian", args->hessian,
                  "The Hessian-vector program instead, in its two stages: the point stage (input "
                  "zeta; output the gradient and the values the second reads) and the direction "
                  "stage (input v; output H v)");
    return {app, [args] { return run_program(*args); }};
}

}  // namespace advi::cli
