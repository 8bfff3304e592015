// Reading and lowering a model with its data for the subcommands.
#include "load.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include <advi/dsl/stan/parser.hpp>
#include <advi/graph/error.hpp>
#include <advi/io/read_data.hpp>

namespace advi::cli {

std::string read_model_text(const std::filesystem::path& file) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) {
        throw Error(fmt::format("cannot read model file `{}`: it is a directory", file.string()));
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        throw Error(
            fmt::format("cannot read model file `{}`: {}", file.string(), std::strerror(errno)));
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
        throw Error(fmt::format("cannot read model file `{}`: read error", file.string()));
    }
    return text.str();
}

stan::Program parse_model_file(const std::filesystem::path& file) {
    return stan::parse_program(read_model_text(file), file.string());
}

std::unique_ptr<LoadedModel> load_model(const std::filesystem::path& model,
                                        std::span<const std::filesystem::path> data) {
    auto loaded = std::make_unique<LoadedModel>();
    loaded->program = parse_model_file(model);
    loaded->data = read_data(data);
    loaded->lowered = stan::lower(loaded->program, loaded->data);
    return loaded;
}

}  // namespace advi::cli
