// `advi fit --output` by what is at the path (issue 17, class 8): an input is refused before
// the fit, a symlink's target is written and the link kept, a FIFO and a character device are
// written in place, and a write that fails names the file and the system's reason.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace advi::test;

namespace {

const char* kModel = R"(data { real y; }
parameters { real mu; }
model { mu ~ normal(0, 1); y ~ normal(mu, 1); }
)";

const char* kData = R"({"y": 0.5})";

// The model and data files of a test, in a directory of their own.
struct Inputs {
    fs::path dir, model, data;
    explicit Inputs(const std::string& tag) : dir(scratch() / tag) {
        fs::create_directories(dir);
        model = dir / "m.stan";
        data = dir / "d.json";
        std::ofstream(model) << kModel;
        std::ofstream(data) << kData;
    }
    [[nodiscard]] std::string fit(const std::string& output,
                                  const std::string& iter = "200") const {
        return "fit " + q(model) + " --data " + q(data) + " --iter " + iter +
               " --output-samples 50 -q --output " + q(output);
    }
};

// A complete CSV of this model: 50 draws after the mean row, CmdStan's trailer.
void check_complete_csv(const std::string& text, const fs::path& as_file) {
    CHECK(text.rfind("# advi_version = ", 0) == 0);
    CHECK(contains(text, "\n# model = "));
    CHECK(contains(text, "#  Elapsed Time: "));
    const advi::StanCsv parsed = advi::read_stan_csv(as_file);
    CHECK(parsed.values.rows() == 51);
}

}  // namespace

TEST_CASE("cli --output: an input file is refused before the fit, whatever its spelling",
          "[cli][output]") {
    if (!cli_built())
        return;
    const Inputs in("refuse");
    fs::create_symlink("m.stan", in.dir / "model_link");
    fs::create_hard_link(in.data, in.dir / "data_hard_link");
    const struct {
        fs::path output;
        std::string what;
    } cases[] = {
        {in.model,                  "is the model file"},
        {in.dir / "." / "m.stan",   "is the model file"},
        {in.dir / "model_link",     "is the model file"},
        {in.data,                   "is the data file" },
        {in.dir / "data_hard_link", "is the data file" },
    };
    for (const auto& c : cases) {
        INFO("--output " << c.output);
        // Refused before the fit: a fit of a billion iterations would not end.
        const Run r = tool(in.fit(c.output.string(), "1000000000") + " --tol-rel-obj 1e-15");
        check_one_line_error(r, 1, c.what);
        CHECK(contains(r.err, "`" + c.output.string() + "`"));
        CHECK(read_file(in.model) == kModel);
        CHECK(read_file(in.data) == kData);
        CHECK(fs::is_symlink(in.dir / "model_link"));
    }
}

TEST_CASE("cli --output: a symlink is followed, its target replaced and the link kept",
          "[cli][output]") {
    if (!cli_built())
        return;
    const Inputs in("symlink");
    fs::create_directory(in.dir / "results");
    const fs::path target = in.dir / "results" / "fit.csv";
    std::ofstream(target) << "previous\n";
    fs::create_symlink("results/fit.csv", in.dir / "latest.csv");
    const Run r = tool(in.fit((in.dir / "latest.csv").string()));
    INFO("stderr: " << r.err);
    REQUIRE(r.status == 0);
    CHECK(fs::is_symlink(in.dir / "latest.csv"));
    CHECK(fs::read_symlink(in.dir / "latest.csv") == "results/fit.csv");
    check_complete_csv(read_file(target), target);
    // Nothing else beside the target: no temporary file.
    int files = 0;
    for (const auto& e : fs::directory_iterator(in.dir / "results")) {
        (void)e;
        ++files;
    }
    CHECK(files == 1);
}

TEST_CASE("cli --output: a FIFO is written in place", "[cli][output]") {
    if (!cli_built())
        return;
    const Inputs in("fifo");
    const fs::path fifo = in.dir / "pipe.csv";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string received;
    std::atomic<bool> done = false;
    std::thread reader([&] {
        received = read_file(fifo);
        done = true;
    });
    const Run r = tool(in.fit(fifo.string()));
    // A tool that failed before opening the FIFO leaves the reader blocked in open(): a writer
    // opened and closed here gives it end-of-file, so that the test fails instead of hanging
    // (while no reader has the FIFO open, the open fails with ENXIO and is tried again).
    while (!done) {
        if (const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); fd >= 0)
            ::close(fd);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    reader.join();
    INFO("stderr: " << r.err);
    CHECK(r.status == 0);
    CHECK(fs::is_fifo(fs::symlink_status(fifo)));
    const fs::path copy = in.dir / "received.csv";
    std::ofstream(copy) << received;
    check_complete_csv(received, copy);
}

TEST_CASE("cli --output /dev/null stays a character device", "[cli][output]") {
    if (!cli_built())
        return;
    const Inputs in("devnull");
    struct stat before {};
    REQUIRE(::stat("/dev/null", &before) == 0);
    REQUIRE(S_ISCHR(before.st_mode));
    const Run r = tool(in.fit("/dev/null"));
    INFO("stderr: " << r.err);
    CHECK(r.status == 0);
    struct stat after {};
    REQUIRE(::stat("/dev/null", &after) == 0);
    CHECK(S_ISCHR(after.st_mode));
    CHECK(after.st_ino == before.st_ino);
    CHECK(after.st_rdev == before.st_rdev);
}

TEST_CASE("cli --output: a write that fails names the file and the system's reason",
          "[cli][output]") {
    if (!cli_built())
        return;
    const Inputs in("full");
    // /dev/full fails every write with ENOSPC, as a full disk does.
    check_one_line_error(tool(in.fit("/dev/full")), 1,
                         "cannot write `/dev/full`: No space left on device");
}
