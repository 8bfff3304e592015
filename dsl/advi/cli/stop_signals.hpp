// Ctrl-C (SIGINT) and SIGTERM during `advi fit`: the first stops the fit after its current
// iteration (of the eta search or of the main loop) and the output is still written whole; a
// second ends the process as the signal would, leaving no temporary file behind.
#pragma once

#include <atomic>
#include <csignal>

namespace advi::cli {

// Installs the handlers for its lifetime and restores the previous ones. A signal that was
// ignored when it was made (a background job's SIGINT) stays ignored. One at a time.
class StopSignals {
public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    // Set by the first signal: for Options::interrupt.
    [[nodiscard]] const std::atomic<bool>& flag() const;
    // The first signal received (SIGINT or SIGTERM), or 0.
    [[nodiscard]] int received() const;

private:
    struct sigaction previous_int_ {};
    struct sigaction previous_term_ {};
};

}  // namespace advi::cli
