// The handler does only what is async-signal-safe: lock-free atomics, unlink (through
// remove_unfinished_output_files), signal and raise.
#include <advi/cli/stop_signals.hpp>

#include <advi/io/output_file.hpp>

namespace advi::cli {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_first_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int sig) {
    int none = 0;
    if (g_first_signal.compare_exchange_strong(none, sig)) {
        g_stop.store(true, std::memory_order_relaxed);
        return;
    }
    // A second signal: the user insists. The output being written (if any) is given up: its
    // temporary file goes, the previous file stays; then the signal's default action ends the
    // process (the signal is blocked inside its handler, so raise takes effect on return).
    remove_unfinished_output_files();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::raise(sig);
}

void install(int sig, struct sigaction* previous) {
    sigaction(sig, nullptr, previous);
    if (previous->sa_handler == SIG_IGN)
        return;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    // The other stop signal waits while the handler runs, so that the two cannot both be
    // taken for the first; system calls resume after the handler (the flag is polled).
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    action.sa_flags = SA_RESTART;
    sigaction(sig, &action, nullptr);
}

}  // namespace

StopSignals::StopSignals() {
    g_stop.store(false);
    g_first_signal.store(0);
    install(SIGINT, &previous_int_);
    install(SIGTERM, &previous_term_);
}

StopSignals::~StopSignals() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
}

const std::atomic<bool>& StopSignals::flag() const {
    return g_stop;
}

int StopSignals::received() const {
    return g_first_signal.load();
}

}  // namespace advi::cli
