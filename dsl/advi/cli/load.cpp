// Reading and lowering a model with its data for the subcommands.
#include <advi/cli/load.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/io/read_data.hpp>
#include <advi/stan/parser.hpp>

namespace advi::cli {

std::string read_model_text(const std::filesystem::path& file) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) {
        throw Error(fmt::format("cannot read model file `{}`: it is a directory", file.string()));
    }
    // C stdio rather than a stream: a failed read (an I/O error, a file that opens but cannot
    // be read) must be an error with its reason, not an empty program.
    std::FILE* f = std::fopen(file.c_str(), "rb");
    if (f == nullptr) {
        throw Error(
            fmt::format("cannot read model file `{}`: {}", file.string(), std::strerror(errno)));
    }
    std::string text;
    char buffer[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    const bool failed = std::ferror(f) != 0;
    const int error = errno;
    std::fclose(f);
    if (failed) {
        throw Error(
            fmt::format("cannot read model file `{}`: {}", file.string(), std::strerror(error)));
    }
    return text;
}

stan::Program parse_model_file(const std::filesystem::path& file) {
    return stan::parse_program(read_model_text(file), file.string());
}

namespace {

// Sizes are checked before allocating (lib/advi/base/memory_budget.hpp) against the machine's
// memory; what still runs out (several large values at once, a limit set on the process) is
// reported with the stage it happened in rather than as a bare "out of memory".
template <class Stage>
auto out_of_memory_names(const std::string& stage, Stage&& run) {
    try {
        return run();
    } catch (const std::bad_alloc&) {
        throw SizeError(fmt::format("out of memory while {}", stage));
    }
}

}  // namespace

std::unique_ptr<LoadedModel> load_model(const std::filesystem::path& model,
                                        std::span<const std::filesystem::path> data,
                                        std::uint64_t seed,
                                        const stan::MinibatchRequest* minibatch) {
    auto loaded = std::make_unique<LoadedModel>();
    loaded->program = out_of_memory_names(fmt::format("parsing `{}`", model.string()),
                                          [&] { return parse_model_file(model); });
    // A minibatch fit reads large .npy arrays row by row from their mapped files.
    loaded->data = out_of_memory_names("reading the data",
                                       [&] { return read_data(data, minibatch != nullptr); });
    loaded->lowered = out_of_memory_names(
        fmt::format("lowering `{}` with its data (a size in the program or the data is too large "
                    "for the memory there is)",
                    model.string()),
        [&] {
            if (minibatch == nullptr)
                return stan::lower(loaded->program, loaded->data, seed);
            loaded->minibatch =
                stan::lower_minibatch(loaded->program, loaded->data, *minibatch, seed);
            return std::move(loaded->minibatch->lowered);
        });
    // The program's print statements, as Stan prints them: on standard output, a line each.
    for (const std::string& line : loaded->lowered->printed()) fmt::print("{}\n", line);
    std::fflush(stdout);
    return loaded;
}

}  // namespace advi::cli
