// What the commands that write a CmdStan CSV (fit, laplace) share: the refusal of an output
// path before a long run, and the transformed parameters and generated quantities as column
// blocks.
#pragma once

#include <string>
#include <vector>

#include <advi/fit/cmdstan_output.hpp>
#include <advi/stan/report.hpp>

namespace advi::cli {

// Refuses, before a long run rather than after it, an output that would land in a directory
// that does not exist, or on a directory, or on one of the inputs (`inputs`: the model file,
// the data files, a mode file): the same file by identity (device and inode), whatever the
// spelling, a link or a hard link. `inputs` pairs a file with what it is ("data file").
struct InputFile {
    std::string path;
    std::string what;
};
void check_output_path(const std::string& output, const std::vector<InputFile>& inputs);

// Transformed parameters and generated quantities, a column block each, at the mean (or
// mode) and at every draw.
[[nodiscard]] std::vector<ExtraBlock> extra_blocks(const stan::ReportedDraws& reported);

}  // namespace advi::cli
