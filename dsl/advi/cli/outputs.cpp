// The output path's checks and the reported blocks.
#include <advi/cli/outputs.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>

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
                fmt::format("{} `{}` is the {} `{}`: the output would destroy an input; choose "
                            "another {}",
                            option, output.string(), input.what, input.path, option));
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

void add_trace_options(CLI::App& app, std::string& diagnostic_file, std::string_view rows,
                       int& refresh, std::string_view progress) {
    app.add_option("--diagnostic-file", diagnostic_file, std::string(rows));
    app.add_option("--refresh", refresh, std::string(progress))
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
}

void check_extra_output_path(const std::string& path, std::string_view option,
                             const std::vector<InputFile>& outputs,
                             const std::vector<InputFile>& inputs) {
    if (path.empty())
        return;
    std::error_code ec;
    for (const InputFile& other : outputs) {
        if (!other.path.empty() &&
            (path == other.path || (fs::exists(path, ec) && fs::equivalent(path, other.path, ec))))
            throw Error(fmt::format("{} `{}` is the {}", option, path, other.what));
    }
    check_output_path(path, inputs, option);
}

void check_diagnostic_path(const std::string& diagnostic, const std::string& output,
                           const std::vector<InputFile>& inputs) {
    check_extra_output_path(diagnostic, "--diagnostic-file",
                            {
                                {output, "--output file"}
    },
                            inputs);
}

void write_trace_csv(const std::string& path, const std::vector<std::string>& columns,
                     const std::vector<std::vector<double>>& rows, int sig_figs,
                     const std::vector<std::string>& comments) {
    const auto number = [&](double x) {
        if (std::isnan(x))
            return std::string("nan");
        if (std::isinf(x))
            return std::string(x > 0 ? "inf" : "-inf");
        if (x == std::round(x) && std::fabs(x) < 1e15)
            return fmt::format("{}", static_cast<long long>(x));
        return sig_figs > 0 ? fmt::format("{:.{}g}", x, sig_figs) : fmt::format("{}", x);
    };
    write_output_file(path, [&](const WriteText& write) {
        std::string text;
        for (const std::string& c : comments) text += "# " + c + "\n";
        for (std::size_t j = 0; j < columns.size(); ++j) text += (j ? "," : "") + columns[j];
        text += "\n";
        for (const std::vector<double>& row : rows) {
            for (std::size_t j = 0; j < row.size(); ++j) text += (j ? "," : "") + number(row[j]);
            text += "\n";
            if (text.size() >= (1 << 16)) {
                write(text);
                text.clear();
            }
        }
        write(text);
    });
}

std::vector<std::string> optimizer_trace_columns() {
    return {"iter",  "time_in_seconds",     "lp__", "grad_norm", "step_norm",
            "alpha", "gradient_evaluations"};
}

std::vector<double> optimizer_trace_values(const OptimizerTraceRow& row) {
    return {static_cast<double>(row.iteration),
            row.seconds,
            row.lp,
            row.grad_norm,
            row.step_norm,
            row.alpha,
            static_cast<double>(row.gradient_evaluations)};
}

std::function<void(const OptimizerTraceRow&)> optimizer_progress(int refresh) {
    if (refresh <= 0)
        return {};
    return [refresh](const OptimizerTraceRow& row) {
        if (row.iteration % refresh != 0)
            return;
        if (row.iteration == 0)
            std::cerr << fmt::format("{:>8} {:>14} {:>11} {:>11} {:>11} {:>8}\n", "Iter",
                                     "log prob", "||dx||", "||grad||", "alpha", "# evals");
        std::cerr << fmt::format("{:>8} {:>14.6g} {:>11.3g} {:>11.3g} {:>11.3g} {:>8}\n",
                                 row.iteration, row.lp, row.step_norm, row.grad_norm, row.alpha,
                                 row.gradient_evaluations);
    };
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
