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
    std::uint64_t seen = 0;
    for (;;) {
        std::uint64_t now = generation_.load(std::memory_order_acquire);
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
        if (index < parts_) {
            try {
                task_(context_, index);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(error_mutex_);
                if (!error_)
                    error_ = std::current_exception();
            }
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1)
                pending_.notify_one();
        }
    }
}

void ThreadPool::run(int parts, Task task, void* context) {
    parts = std::clamp(parts, 1, size());
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (parts == 1 || !lock.owns_lock()) {
        for (int p = 0; p < parts; ++p) task(context, p);
        return;
    }
    parts_ = parts;
    task_ = task;
    context_ = context;
    error_ = nullptr;
    pending_.store(parts - 1, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    generation_.notify_all();
    std::exception_ptr mine;
    try {
        task(context, 0);
    } catch (...) {
        mine = std::current_exception();
    }
    int left = pending_.load(std::memory_order_acquire);
    for (int s = 0; left != 0 && s < kSpins; ++s) {
        ADVI_CPU_RELAX();
        left = pending_.load(std::memory_order_acquire);
    }
    while (left != 0) {
        pending_.wait(left, std::memory_order_acquire);
        left = pending_.load(std::memory_order_acquire);
    }
    if (mine)
        std::rethrow_exception(mine);
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
