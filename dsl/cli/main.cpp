// The `advi` command-line tool: fit, graph, program and check Stan programs, with CmdStan's
// conventions (data in JSON or R dump, output in CmdStan's variational CSV). Every failure is
// one line "advi: error: ..." on stderr: exit status 2 for a bad command line, 1 for anything
// else; nothing escapes as an uncaught exception.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/graph/error.hpp>

#include "commands.hpp"
#include <CLI/CLI.hpp>

namespace advi::cli {

void print_error(std::string_view message) {
    while (!message.empty() && message.back() == '\n') message.remove_suffix(1);
    std::cout.flush();  // what was printed before the error comes before it
    std::cerr << "advi: error: " << message << '\n' << std::flush;
}

namespace {

constexpr int kUsageStatus = 2;
constexpr int kErrorStatus = 1;

// CLI11's message on one line, with where to look for the right usage. A first word that is
// not a command gets a message of its own: CLI11 would say "A subcommand is required".
std::string usage_message(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    if (app.get_subcommands().empty() && argc > 1) {
        return fmt::format(
            "unknown {} `{}` (expected fit, graph, program or check; see `advi "
            "--help`)",
            argv[1][0] == '-' ? "option" : "command", argv[1]);
    }
    std::string message = e.what();
    for (char& c : message) {
        if (c == '\n')
            c = ' ';
    }
    std::string command = "advi";
    for (const CLI::App* sub : app.get_subcommands()) {
        command += " " + sub->get_name();
    }
    return message + " (see `" + command + " --help`)";
}

int run(int argc, char** argv) {
    CLI::App app{
        "advi: automatic differentiation variational inference (Kucukelbir et al., JMLR 2017) "
        "for Stan programs",
        "advi"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("advi ") + ADVI_VERSION);
    const std::vector<Command> commands = {add_fit_command(app), add_graph_command(app),
                                           add_program_command(app), add_check_command(app)};
    app.footer("Run `advi <command> --help` for the options of a command.");  // not inherited
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version are "errors" with status 0: CLI11 prints them.
        if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
            return app.exit(e);
        }
        print_error(usage_message(app, e, argc, argv));
        return kUsageStatus;
    }
    for (const Command& c : commands) {
        if (c.app->parsed()) {
            return c.run();
        }
    }
    print_error("no command given (see `advi --help`)");
    return kUsageStatus;
}

}  // namespace
}  // namespace advi::cli

int main(int argc, char** argv) {
    try {
        return advi::cli::run(argc, argv);
    } catch (const advi::InternalError& e) {
        advi::cli::print_error(std::string(e.what()) + " (an advi bug: please report it)");
    } catch (const std::bad_alloc&) {
        advi::cli::print_error("out of memory");
    } catch (const std::exception& e) {
        advi::cli::print_error(e.what());
    } catch (...) {
        advi::cli::print_error("unknown failure");
    }
    return advi::cli::kErrorStatus;
}
