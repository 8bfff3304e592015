// The `advi` command-line tool: fit, graph, program and check Stan programs, with CmdStan's
// conventions (data in JSON or R dump, output in CmdStan's variational CSV). Every failure is
// one line "advi: error: ..." on stderr: exit status 2 for a bad command line, 1 for anything
// else; nothing escapes as an uncaught exception.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <vector>
#ifdef __GLIBC__
#include <malloc.h>  // mallopt
#endif

#include <fmt/format.h>

#include <advi/base/error.hpp>

#include <advi/cli/commands.hpp>
#include <advi/cli/process_ranks.hpp>
#include <CLI/CLI.hpp>

namespace advi::cli {

namespace {

// A message names what it is about as the user wrote it; a name of 100000 characters (or a
// whole minified line quoted back) would make the message unreadable, so any run of more
// than 120 bytes without a space keeps its first 60 and last 20 (cut on UTF-8 boundaries).
std::string shorten_long_words(std::string_view message) {
    constexpr std::size_t kLong = 120, kHead = 60, kTail = 20;
    const auto continuation = [&](std::size_t i) {
        return i < message.size() && (static_cast<unsigned char>(message[i]) & 0xC0) == 0x80;
    };
    std::string out;
    std::size_t i = 0;
    while (i < message.size()) {
        std::size_t end = i;
        while (end < message.size() && message[end] != ' ' && message[end] != '\n') ++end;
        if (end - i > kLong) {
            std::size_t head = i + kHead, tail = end - kTail;
            while (continuation(head)) ++head;
            while (continuation(tail)) ++tail;
            out += message.substr(i, head - i);
            out += fmt::format("...({} bytes)...", tail - head);
            out += message.substr(tail, end - tail);
        } else {
            out += message.substr(i, end - i);
        }
        if (end < message.size())
            out += message[end++];
        i = end;
    }
    return out;
}

}  // namespace

void print_error(std::string_view message) {
    while (!message.empty() && message.back() == '\n') message.remove_suffix(1);
    std::cout.flush();  // what was printed before the error comes before it
    // Only the message line: the source excerpt below it is cut to a window already, and its
    // caret must stay under the column. Under mpirun, ranks other than 0 say which they are.
    const std::size_t first_line = std::min(message.find('\n'), message.size());
    const Ranks& ranks = process_ranks();
    std::cerr << (ranks.rank() == 0 ? std::string("advi: error: ")
                                    : fmt::format("advi: error (rank {}): ", ranks.rank()))
              << shorten_long_words(message.substr(0, first_line)) << message.substr(first_line)
              << '\n'
              << std::flush;
}

namespace {

constexpr int kUsageStatus = 2;
constexpr int kErrorStatus = 1;

// CLI11's message on one line, with where to look for the right usage. A first word that is
// not a command gets a message of its own: CLI11 would say "A subcommand is required".
std::string usage_message(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    if (app.get_subcommands().empty() && argc > 1) {
        return fmt::format(
            "unknown {} `{}` (expected fit, optimize, laplace, pathfinder, generate-quantities, "
            "graph, program, check, summary or report; see `advi --help`)",
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
    const std::vector<Command> commands = {add_fit_command(app),
                                           add_optimize_command(app),
                                           add_laplace_command(app),
                                           add_pathfinder_command(app),
                                           add_generate_quantities_command(app),
                                           add_graph_command(app),
                                           add_program_command(app),
                                           add_check_command(app),
                                           add_summary_command(app),
                                           add_report_command(app)};
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
            const int ranks = process_ranks().size();
            if (ranks > 1 && c.app->get_name() != "fit") {
                print_error(fmt::format(
                    "`advi {}` under mpirun with {} ranks: only `advi fit --rows N` runs over "
                    "MPI ranks (they share its rows); run the others as one process",
                    c.app->get_name(), ranks));
                return kUsageStatus;
            }
            return c.run();
        }
    }
    print_error("no command given (see `advi --help`)");
    return kUsageStatus;
}

}  // namespace
}  // namespace advi::cli

int main(int argc, char** argv) {
#ifdef __GLIBC__
    // A fit frees and reallocates buffers of the same size every iteration (a full-rank factor
    // and its gradient: 2 MB each at 500 parameters). glibc's defaults hand such buffers back
    // to the kernel on every free (mmap, or trimming the heap's top), and each reuse then
    // page-faults them in again: at 500 parameters full-rank that was 2,100 page faults and
    // 7 ms of system time per iteration, 3.6 times the iteration's own work. Freed memory up
    // to these sizes stays in the process instead (issue 19, item 5).
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
    advi::cli::ProcessRanks ranks(&argc, &argv);
    const int status = [&] {
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
    }();
    // A failure on one rank after the ranks started sharing the rows leaves the others waiting
    // for it: the job ends on every rank. (An error of the command line is the same on all of
    // them and ends each alone.)
    if (status == advi::cli::kErrorStatus && ranks.ranks().size() > 1)
        ranks.ranks().abort(status);
    return status;
}
