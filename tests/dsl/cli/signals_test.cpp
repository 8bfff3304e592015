// SIGINT and SIGTERM during `advi fit` (issue 17, class 9): honoured within an iteration
// wherever the fit is, the eta search included, with the output still written; during the
// write of the CSV the previous file or the complete new one remains, never a temporary file.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace advi::test;

namespace {

const char* kModel = R"(data { int N; vector[N] y; }
parameters { real mu; real<lower=0> sigma; }
model { mu ~ normal(0, 10); sigma ~ lognormal(0, 1); y ~ normal(mu, sigma); }
generated quantities { real y_new = normal_rng(mu, sigma); }
)";

const char* kData = R"({"N": 5, "y": [4.1, 5.3, 3.8, 6.0, 4.9]})";

struct Ended {
    int status = 0;
    double seconds = 0;  // from the signal to the exit
};

// Sends `sig` to `pid` and waits for it to end; a process that ignores the signal for 20 s
// is killed and the test fails (rather than hanging).
Ended signal_and_wait(pid_t pid, int sig) {
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(::kill(pid, sig) == 0);
    Ended e;
    for (int i = 0; i < 20000; ++i) {
        if (::waitpid(pid, &e.status, WNOHANG) == pid) {
            e.seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return e;
        }
        ::usleep(1000);
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &e.status, 0);
    FAIL("the process ignored signal " << sig << " for 20 s");
    return e;
}

// The hidden temporary files beside `csv` (".name.tmp.*").
int temporaries(const fs::path& csv) {
    int n = 0;
    const std::string prefix = "." + csv.filename().string() + ".tmp.";
    for (const auto& e : fs::directory_iterator(csv.parent_path())) {
        if (e.path().filename().string().rfind(prefix, 0) == 0)
            ++n;
    }
    return n;
}

struct Case {
    int sig;
    const char* where;          // "search" or "main loop"
    const char* wait_for_text;  // on stderr, before the signal
    const char* reason;         // in the CSV's trailer
};

}  // namespace

TEST_CASE("cli: SIGINT and SIGTERM stop the fit within an iteration, search included",
          "[cli][signals]") {
    if (!cli_built())
        return;
    const fs::path model = write_file("sig.stan", kModel);
    const fs::path data = write_file("sig.json", kData);
    const Case cases[] = {
        {SIGINT,  "search",    "Begin eta adaptation",
         "# convergence: interrupted during the eta search, after "},
        {SIGTERM, "search",    "Begin eta adaptation",
         "# convergence: interrupted during the eta search, after "},
        {SIGTERM, "main loop", "Begin stochastic gradient ascent",
         "# convergence: interrupted after "                       },
    };
    for (const Case& c : cases) {
        INFO("signal " << c.sig << " during the " << c.where);
        const fs::path csv = scratch() / "sig.csv", out = scratch() / "sig.out",
                       err = scratch() / "sig.err";
        fs::remove(csv);
        // Only a signal ends either: a search of a billion iterations per candidate, or a fit
        // with a tolerance none reaches (Stan's rule: the default rule's statistics stop it).
        std::vector<std::string> args = {
            "fit",    model.string(), "--data",        data.string(), "--output",      csv.string(),
            "--iter", "1000000000",   "--tol-rel-obj", "1e-15",       "--convergence", "stan"};
        if (std::string(c.where) == "search") {
            // From the init point: the default start at the mode fixes eta and runs no search.
            args.insert(args.end(), {"--adapt-iter", "1000000000", "--start", "init"});
        }
        const pid_t pid = spawn(args, out, err);
        REQUIRE(pid > 0);
        // The child runs a billion iterations: a failed wait must not leave it running (two
        // such orphans took both cores of a later CI run).
        if (!wait_for(err, c.wait_for_text, 30)) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
            FAIL("`" << c.wait_for_text << "` not printed within 30 s");
        }
        ::usleep(500000);
        const Ended e = signal_and_wait(pid, c.sig);
        const std::string text = read_file(err);
        INFO("stderr: " << text);
        REQUIRE(WIFEXITED(e.status));
        CHECK(WEXITSTATUS(e.status) == 128 + c.sig);
        // Within an iteration: the writing of 1000 draws included, far below this bound.
        CHECK(e.seconds < 2.0);
        CHECK(contains(text, "advi: interrupted: interrupted"));
        const std::string written = read_file(csv);
        CHECK(contains(written, "# converged = 0"));
        CHECK(contains(written, c.reason));
        // No eta was chosen when the search was interrupted: the file must not say one was.
        const bool in_search = std::string(c.where) == "search";
        CHECK(contains(written, "# Stepsize adaptation complete.") == !in_search);
        CHECK(contains(written, "# Stepsize adaptation interrupted after ") == in_search);
        CHECK(contains(written, "# eta = nan\n") == in_search);
        const advi::StanCsv parsed = advi::read_stan_csv(csv);
        CHECK(parsed.values.rows() == 1001);  // q's mean, then 1000 draws
        CHECK(parsed.values.allFinite());
        CHECK(temporaries(csv) == 0);
    }
}

TEST_CASE("cli: a signal while the CSV is written leaves the old file or the whole new one",
          "[cli][signals]") {
    if (!cli_built())
        return;
    const fs::path model = write_file("wr.stan", kModel);
    const fs::path data = write_file("wr.json", kData);
    const fs::path csv = scratch() / "wr.csv";
    const std::string previous = "previous output\n";
    constexpr int kDraws = 150000;  // a write that lasts a while
    for (const int signals : {1, 2}) {
        for (const int sig : {SIGINT, SIGTERM}) {
            INFO(signals << " x signal " << sig << " during the write");
            std::ofstream(csv) << previous;
            const pid_t pid =
                spawn({"fit", model.string(), "--data", data.string(), "--output", csv.string(),
                       "--output-samples", std::to_string(kDraws), "--quiet"},
                      scratch() / "wr.out", scratch() / "wr.err");
            REQUIRE(pid > 0);
            // The write has begun when its temporary file exists.
            bool writing = false;
            for (int i = 0; i < 60000 && !writing; ++i) {
                writing = temporaries(csv) > 0;
                if (!writing)
                    ::usleep(1000);
            }
            REQUIRE(writing);
            if (signals == 2) {
                // Apart, since a signal sent while the same one is pending is lost.
                REQUIRE(::kill(pid, sig) == 0);
                ::usleep(20000);
            }
            const Ended e = signal_and_wait(pid, sig);
            const std::string text = read_file(csv);
            CHECK(temporaries(csv) == 0);
            if (signals == 1) {
                // One signal after the fit: noted, the output finished, the status says so.
                REQUIRE(WIFEXITED(e.status));
                CHECK(WEXITSTATUS(e.status) == 128 + sig);
                CHECK(contains(read_file(scratch() / "wr.err"), "the output is complete"));
                CHECK(contains(text, "#  Elapsed Time: "));
                CHECK(advi::read_stan_csv(csv).values.rows() == kDraws + 1);
            } else {
                // A second one gives up the output: the signal ends the process, the previous
                // file stays (or the new one, whole, if the write won the race).
                CHECK(WIFSIGNALED(e.status));
                CHECK(WTERMSIG(e.status) == sig);
                if (text != previous) {
                    CHECK(contains(text, "#  Elapsed Time: "));
                    CHECK(advi::read_stan_csv(csv).values.rows() == kDraws + 1);
                }
            }
        }
    }
}
