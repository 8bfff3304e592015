// What the subcommands read: the model file (parsed), the data files (by extension, merged)
// and the program lowered onto the Model builder, kept together so that everything the model
// points into stays alive as long as it does.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <advi/io/data_table.hpp>
#include <advi/stan/ast.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/minibatch.hpp>

namespace advi::cli {

// The text of a model file. Throws Error "cannot read model file `m.stan`: No such file or
// directory".
[[nodiscard]] std::string read_model_text(const std::filesystem::path& file);

// Parses a model file; ParseErrors name the file as the user wrote it.
[[nodiscard]] stan::Program parse_model_file(const std::filesystem::path& file);

struct LoadedModel {
    stan::Program program;
    DataTable data;
    std::unique_ptr<stan::LoweredProgram> lowered;
    // With a minibatch request: the row variables' full data (Options::minibatch), `lowered`
    // being the program over one batch (its `lowered` moved to the field above).
    std::optional<stan::LoweredMinibatch> minibatch;
};

// Parses `model`, reads `data` (no files: an empty table) and lowers them (`seed`: the run's,
// for the `_rng` calls of transformed data), over one batch of rows where `minibatch` is given.
// Not movable once built: the lowered model may point into the program and the data.
[[nodiscard]] std::unique_ptr<LoadedModel> load_model(
    const std::filesystem::path& model, std::span<const std::filesystem::path> data,
    std::uint64_t seed, const stan::MinibatchRequest* minibatch = nullptr);

}  // namespace advi::cli
