// `advi check model.stan`: parses and checks a Stan program without data (names, functions and
// distributions, block rules: check.hpp) and says "model.stan: ok", or prints the error at
// file:line:col; --print shows the program as the parser understood it (ast_printer.hpp);
// --lower lowers it too, with made-up data (lower.hpp), to show what the lowering refuses.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <advi/stan/ast_printer.hpp>
#include <advi/stan/check.hpp>
#include <advi/stan/lower.hpp>

#include <advi/cli/commands.hpp>
#include <advi/cli/load.hpp>
#include <CLI/CLI.hpp>

namespace advi::cli {
namespace {

struct CheckArgs {
    std::vector<std::string> models;
    bool print = false;
    bool lower = false;
};

// Every file is checked; the first error is thrown after the others have been reported, so
// that `advi check *.stan` lists every bad file.
int run_check(const CheckArgs& args) {
    int failed = 0;
    for (const std::string& model : args.models) {
        try {
            const stan::Program program = parse_model_file(model);
            stan::check(program);
            if (args.lower)
                (void)stan::lower_with_placeholder_data(program);
            std::cout << model << (args.lower ? ": ok (lowered with made-up data)\n" : ": ok\n");
            if (args.print) {
                std::cout << stan::to_stan(program);
            }
        } catch (const std::exception& e) {
            if (args.models.size() == 1)
                throw;
            std::cout << std::flush;
            print_error(e.what());
            ++failed;
        }
    }
    std::cout << std::flush;
    return failed == 0 ? 0 : 1;
}

}  // namespace

Command add_check_command(CLI::App& parent) {
    auto args = std::make_shared<CheckArgs>();
    CLI::App* app = parent.add_subcommand("check", "Parse and check Stan programs without data");
    app->add_option("models", args->models, "Stan programs (.stan)")->required();
    app->add_flag("--print", args->print, "Print each program back as canonical Stan");
    app->add_flag("--lower", args->lower,
                  "Lower each program too, with made-up data of the declared types and "
                  "constraints: what the lowering refuses without the data");
    return {app, [args] { return run_check(*args); }};
}

}  // namespace advi::cli
