#include <advi/compile/thread_pool.hpp>

#include <algorithm>
#include <map>
#include <system_error>

#include <fmt/format.h>

#include <advi/base/error.hpp>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ADVI_CPU_RELAX() _mm_pause()
#else
#define ADVI_CPU_RELAX() ((void)0)
#endif

namespace advi {

namespace {
// How long a waiting thread spins before it sleeps: some tens of microseconds, longer
// than the gap between two parallel regions of one run, shorter than a scheduler tick.
constexpr int kSpins = 1 << 11;
}  // namespace

ThreadPool::ThreadPool(int threads) {
    const int workers = std::max(threads, 1) - 1;
    workers_.reserve(static_cast<std::size_t>(workers));
    try {
        for (int w = 0; w < workers; ++w) workers_.emplace_back([this, w] { work(w + 1); });
    } catch (const std::system_error& e) {
        // The system refused a thread (a limit on threads or memory): stop the ones started,
        // since a joinable std::thread destroyed with the vector would end the program.
        const std::size_t started = workers_.size();
        stop_workers();
        throw Error(
            fmt::format("cannot start {} threads: thread {} failed ({}); ask for fewer "
                        "(this machine has {} cores)",
                        threads, started + 2, e.what(), std::thread::hardware_concurrency()));
    }
}

ThreadPool::~ThreadPool() {
    stop_workers();
}

void ThreadPool::stop_workers() {
    stop_.store(true);
    generation_.fetch_add(1);
    generation_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
}

void ThreadPool::work(int index) {
    std::uint32_t seen = 0;
    for (;;) {
        std::uint32_t now = generation_.load(std::memory_order_acquire);
        for (int s = 0; now == seen && s < kSpins; ++s) {
            ADVI_CPU_RELAX();
            now = generation_.load(std::memory_order_acquire);
        }
        if (now == seen) {
            generation_.wait(seen, std::memory_order_acquire);
            continue;
        }
        seen = now;
        if (stop_.load())
            return;
        take_parts(now, index);
    }
}

void ThreadPool::take_parts(std::uint32_t generation, int thread) {
    std::uint64_t t = ticket_.load(std::memory_order_acquire);
    for (;;) {
        const auto part = static_cast<int>(t & 0xFFFF);
        const auto parts = static_cast<int>((t >> 16) & 0xFFFF);
        if (static_cast<std::uint32_t>(t >> 32) != generation || part >= parts)
            return;
        if (!ticket_.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel,
                                           std::memory_order_acquire)) {
            continue;  // t now holds the current ticket
        }
        try {
            task_(context_, part, thread);
        } catch (...) {
            const std::lock_guard<std::mutex> lock(error_mutex_);
            if (!error_ || part < error_part_) {
                error_ = std::current_exception();
                error_part_ = part;
            }
        }
        if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1)
            remaining_.notify_one();
        t = ticket_.load(std::memory_order_acquire);
    }
}

void ThreadPool::run(int parts, Task task, void* context) {
    if (parts <= 0)
        return;
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (parts == 1 || size() == 1 || parts > 0xFFFF || !lock.owns_lock()) {
        // In part order, so the first part to throw is the lowest-numbered one.
        for (int p = 0; p < parts; ++p) task(context, p, 0);
        return;
    }
    task_ = task;
    context_ = context;
    error_ = nullptr;
    error_part_ = parts;
    remaining_.store(parts, std::memory_order_relaxed);
    const std::uint32_t generation = generation_.load(std::memory_order_relaxed) + 1;
    ticket_.store(
        (static_cast<std::uint64_t>(generation) << 32) | (static_cast<std::uint64_t>(parts) << 16),
        std::memory_order_release);
    generation_.store(generation, std::memory_order_release);
    generation_.notify_all();
    take_parts(generation, 0);
    int left = remaining_.load(std::memory_order_acquire);
    for (int s = 0; left != 0 && s < kSpins; ++s) {
        ADVI_CPU_RELAX();
        left = remaining_.load(std::memory_order_acquire);
    }
    while (left != 0) {
        remaining_.wait(left, std::memory_order_acquire);
        left = remaining_.load(std::memory_order_acquire);
    }
    if (error_)
        std::rethrow_exception(error_);
}

ThreadPool& ThreadPool::shared(int threads) {
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<ThreadPool>> pools;
    const std::lock_guard<std::mutex> lock(mutex);
    auto& pool = pools[std::max(threads, 1)];
    if (!pool)
        pool = std::make_unique<ThreadPool>(threads);
    return *pool;
}

int ThreadPool::hardware_threads() {
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace advi
