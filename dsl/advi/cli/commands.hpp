// The subcommands of the `advi` tool (fit, optimize, laplace, pathfinder, generate-quantities,
// graph, program, check, summary, report). Each adds itself to the
// application with its options and returns what to run once the command line has parsed, so
// that usage errors (exit 2) are told apart from errors of the run (exit 1).
#pragma once

#include <functional>
#include <string_view>

namespace CLI {
class App;
}

namespace advi::cli {

struct Command {
    CLI::App* app = nullptr;   // the subcommand; app->parsed() when it was chosen
    std::function<int()> run;  // runs it; returns the exit status or throws
};

// Writes "advi: error: <message>" to stderr, on one line unless the message has lines of its
// own (a ParseError's source line and caret).
void print_error(std::string_view message);

[[nodiscard]] Command add_fit_command(CLI::App& parent);
[[nodiscard]] Command add_optimize_command(CLI::App& parent);
[[nodiscard]] Command add_laplace_command(CLI::App& parent);
[[nodiscard]] Command add_pathfinder_command(CLI::App& parent);
[[nodiscard]] Command add_graph_command(CLI::App& parent);
[[nodiscard]] Command add_program_command(CLI::App& parent);
[[nodiscard]] Command add_check_command(CLI::App& parent);
[[nodiscard]] Command add_summary_command(CLI::App& parent);
[[nodiscard]] Command add_generate_quantities_command(CLI::App& parent);
[[nodiscard]] Command add_report_command(CLI::App& parent);

}  // namespace advi::cli
