// lib/advi/report/fit_csv and elbo_trace: what the report reads of each method's CSV, and the
// one-line errors that name the file.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/report/elbo_trace.hpp>
#include <advi/report/fit_csv.hpp>

using namespace advi::report;

namespace {

// A variational CSV as ours and CmdStan's are laid out: the settings, the header, the
// adaptation, the mean row, the draws, the trailer.
const char* const kVariational = R"(# model = normal_model
# method = variational
#   variational
#     algorithm = fullrank
lp__,log_p__,log_g__,mu,sigma
# Stepsize adaptation complete.
# eta = 1
0,0,0,5.0,0.9
0,-10.5,-1.5,4.9,0.8
0,-11.0,-2.5,5.1,1.0
0,-12.0,-2.0,5.0,1.1
#
# iterations = 300
# convergence: converged: the ELBO stopped rising
# verdict = reliable
# pareto_k = 0.21
#  Elapsed Time: 0.01 seconds (Total)
)";

std::string error_of(const auto& call) {
    try {
        call();
    } catch (const advi::Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("fit_csv: a variational CSV without its mean row, the trailer by key",
          "[report][fit_csv]") {
    const FitCsv fit = fit_csv_from_text(kVariational, "fit.csv");
    CHECK(fit.method == "variational");
    CHECK(fit.algorithm == "fullrank");
    CHECK(fit.mean_row_skipped);
    CHECK(fit.columns == std::vector<std::string>{"mu", "sigma"});
    REQUIRE(fit.draws.rows() == 3);
    CHECK(fit.draws(0, 0) == 4.9);
    CHECK(fit.draws(2, 1) == 1.1);
    REQUIRE(fit.log_ratios.size() == 3);
    CHECK(fit.log_ratios(0) == -9.0);  // -10.5 - (-1.5)
    CHECK(fit.log_ratios(2) == -10.0);
    CHECK(fit.log_ratios_from == "log_p__ - log_g__");
    CHECK(fit.trailer_value("verdict") == "reliable");
    CHECK(fit.trailer_value("pareto_k") == "0.21");
    CHECK(fit.trailer_value("eta") == "1");  // the adaptation's line follows the header too
    CHECK(fit.trailer_value("convergence") == "converged: the ELBO stopped rising");
    CHECK(fit.trailer_value("Elapsed Time") == "0.01 seconds (Total)");
    // A setting when the trailer has no such line (optimize writes its ending in the header).
    CHECK(fit.trailer_value("method") == "variational");
    CHECK(!fit.trailer_value("psis_ess"));
}

TEST_CASE("fit_csv: pathfinder's lp__ - lp_approx__, optimize's point without ratios",
          "[report][fit_csv]") {
    const FitCsv pf = fit_csv_from_text(
        "# method = pathfinder\nlp_approx__,lp__,path__,mu\n-1,-3,1,0.5\n-2,-3.5,2,0.6\n",
        "pf.csv");
    CHECK(!pf.mean_row_skipped);
    CHECK(pf.draws.rows() == 2);
    CHECK(pf.columns == std::vector<std::string>{"mu"});
    REQUIRE(pf.log_ratios.size() == 2);
    CHECK(pf.log_ratios(0) == -2.0);
    CHECK(pf.log_ratios(1) == -1.5);
    CHECK(pf.log_ratios_from == "lp__ - lp_approx__");

    const FitCsv opt = fit_csv_from_text(
        "# method = optimize\nlp__,mu,sigma\n-3.2,5.0,0.8\n#\n# converged = 1\n", "opt.csv");
    CHECK(opt.draws.rows() == 1);
    CHECK(opt.log_ratios.size() == 0);
    CHECK(opt.trailer_value("converged") == "1");
}

TEST_CASE("fit_csv and elbo_trace: errors on one line naming the file", "[report][fit_csv]") {
    const std::string missing = error_of([] {
        (void)read_fit_csv(std::filesystem::temp_directory_path() / "advi_no_such_fit.csv");
    });
    CHECK(missing.find("advi_no_such_fit.csv") != std::string::npos);
    CHECK(missing.find("no such file") != std::string::npos);

    const std::string ragged =
        error_of([] { (void)fit_csv_from_text("lp__,mu\n1,2\n3\n", "ragged.csv"); });
    CHECK(ragged.starts_with("ragged.csv:3:"));
    CHECK(ragged.find("row 2 has 1 field") != std::string::npos);
    CHECK(ragged.find('\n') == std::string::npos);

    const std::string word =
        error_of([] { (void)fit_csv_from_text("lp__,mu\n1,two\n", "word.csv"); });
    CHECK(word.starts_with("word.csv:2:"));
    CHECK(word.find('\n') == std::string::npos);

    const std::string mean_only = error_of(
        [] { (void)fit_csv_from_text("# method = variational\nlp__,mu\n0,1\n", "mean.csv"); });
    CHECK(mean_only == "`mean.csv` holds no draws: only the mean row of q");
    CHECK(error_of([] { (void)fit_csv_from_text("", "empty.csv"); }).starts_with("empty.csv:1:"));

    const std::string not_trace =
        error_of([] { (void)elbo_trace_from_text("iter,elbo\n1,2\n", "trace.csv"); });
    CHECK(not_trace ==
          "`trace.csv` has no column `ELBO`: not an ELBO trace (advi fit --diagnostic-file)");
    // pathfinder's trace (an ELBO per iterate of each path) is not one series.
    const std::string paths = error_of([] {
        (void)elbo_trace_from_text("path,iter,time_in_seconds,ELBO\n1,1,0.1,-5\n2,1,0.2,-6\n",
                                   "pf.csv");
    });
    CHECK(paths.starts_with("`pf.csv` is a trace of pathfinder's paths"));
}

TEST_CASE("elbo_trace: iteration, ELBO and its error; NaN where a rule has none",
          "[report][fit_csv]") {
    const ElboTrace t = elbo_trace_from_text(
        "iter,time_in_seconds,ELBO,ELBO_mcse,gain,delta_ELBO_mean,delta_ELBO_med,eta\n"
        "100,0.1,-20.5,0.3,nan,nan,nan,1\n200,0.2,-19.5,nan,nan,0.05,0.04,1\n",
        "trace.csv");
    CHECK(t.iteration == std::vector<double>{100, 200});
    CHECK(t.elbo == std::vector<double>{-20.5, -19.5});
    CHECK(t.elbo_mcse[0] == 0.3);
    CHECK(std::isnan(t.elbo_mcse[1]));
    const ElboTrace cmdstan = elbo_trace_from_text("iter,time_in_seconds,ELBO\n50,0.1,-3\n", "c");
    REQUIRE(cmdstan.elbo_mcse.size() == 1);
    CHECK(std::isnan(cmdstan.elbo_mcse[0]));
}
