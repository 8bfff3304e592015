// The output path's checks and the reported blocks.
#include <advi/cli/outputs.hpp>

#include <cstdint>
#include <filesystem>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <advi/base/error.hpp>
#include <advi/io/output_file.hpp>

namespace advi::cli {

namespace fs = std::filesystem;

void check_output_path(const std::string& output_file, const std::vector<InputFile>& inputs,
                       std::string_view option) {
    const fs::path output = output_file;
    std::error_code ec;
    if (fs::is_directory(output, ec)) {
        throw Error(fmt::format("cannot write `{}`: it is a directory", output.string()));
    }
    const fs::path dir = output_target(output).parent_path();
    if (!dir.empty() && !fs::is_directory(dir, ec)) {
        throw Error(fmt::format("cannot write `{}`: directory `{}` does not exist", output.string(),
                                dir.string()));
    }
    for (const InputFile& input : inputs) {
        if (fs::exists(output, ec) && fs::equivalent(output, input.path, ec)) {
            throw Error(
                fmt::format("{0} `{1}` is the {2} `{3}`: the output would destroy an input; choose "
                            "another {0}",
                            option, output.string(), input.what, input.path));
        }
    }
}

std::vector<InputFile> model_and_data_inputs(const std::string& model,
                                             const std::vector<std::string>& data) {
    std::vector<InputFile> inputs{
        {model, "model file"}
    };
    for (const std::string& d : data) inputs.push_back({d, "data file"});
    return inputs;
}

void add_sig_figs_option(CLI::App& app, int& sig_figs) {
    app.add_option("--sig-figs", sig_figs,
                   "Significant digits of the CSV's values (CmdStan's sig_figs), 1 to 18; -1: "
                   "the shortest text that reads back as the same double")
        ->check(CLI::IsMember({-1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}))
        ->capture_default_str();
}

void write_csv(const std::string& path, CsvOutput csv, const CsvRunInfo& run) {
    csv.sig_figs = run.sig_figs;
    write_cmdstan_csv_file(path, csv);
}

CsvRunInfo csv_run_info(const std::string& model, const std::vector<std::string>& data,
                        const std::string& output) {
    CsvRunInfo run{.model = fs::path(model).stem().string() + "_model",
                   .data_file = "",
                   .init_file = "",
                   .output_file = output};
    for (const std::string& d : data) run.data_file += (run.data_file.empty() ? "" : ", ") + d;
    return run;
}

std::vector<ExtraBlock> extra_blocks(const stan::ReportedDraws& reported) {
    std::vector<ExtraBlock> blocks;
    Eigen::Index offset = 0;
    for (const stan::ReportedValue& v : reported.values) {
        Eigen::Index size = 1;
        for (const std::int64_t d : v.dims) size *= d;
        blocks.push_back({.name = v.name,
                          .dims = v.dims,
                          .complex = v.complex,
                          .at_mean = reported.at_mean.segment(offset, size),
                          .draws = reported.draws.middleCols(offset, size)});
        offset += size;
    }
    return blocks;
}

}  // namespace advi::cli
