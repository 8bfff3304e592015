// The fit's progress on stderr with the time elapsed: an ostream for Options::log that passes
// the engine's lines through and adds an `elapsed` column to its ELBO tables (Stan's: iteration,
// ELBO, relative ELBO change (mean and median over the window); the Auto rule's: iteration, eta,
// ELBO of the iterate average, gain; then elapsed, notes).
#pragma once

#include <chrono>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace advi::cli {

// `line` (without its line break) with the elapsed time inserted after the fourth column when
// it is a row of an ELBO table ("  100  -43.2  0.31  0.31" and notes, or "  200  0.1  -43.2  -"),
// or the column's title when it is a table's header; any other line unchanged.
[[nodiscard]] std::string with_elapsed(std::string_view line, double seconds);

class ProgressStream : public std::ostream {
public:
    // Times from now; writes whole lines to `out` and flushes it after each.
    explicit ProgressStream(std::ostream& out);
    ProgressStream(const ProgressStream&) = delete;
    ProgressStream& operator=(const ProgressStream&) = delete;
    ~ProgressStream() override;

private:
    class LineBuf : public std::streambuf {
    public:
        explicit LineBuf(std::ostream& out);
        void finish();  // writes a last line without a line break

    protected:
        int_type overflow(int_type c) override;
        std::streamsize xsputn(const char* s, std::streamsize n) override;

    private:
        void emit_line();

        std::ostream& out_;
        std::string line_;
        std::chrono::steady_clock::time_point start_;
    };
    LineBuf buf_;
};

}  // namespace advi::cli
