// A small pool of worker threads for the long loops of a gradient program. The caller
// takes part 0 of every parallel region itself, so a pool of n threads starts n - 1
// workers. Regions are short (microseconds to milliseconds), so workers spin briefly
// before they sleep. run() allocates nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace advi {

class ThreadPool {
public:
    using Task = void (*)(void* context, int part);

    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    [[nodiscard]] int size() const { return static_cast<int>(workers_.size()) + 1; }

    // Runs task(context, p) for every p in [0, parts) and returns when all are done;
    // parts <= size(). Part p runs on worker p - 1 (part 0 on the caller). If another
    // thread holds the pool, the parts run one after another on the caller: the work and
    // its partition are the same, so the results are too. The first exception a part
    // throws is rethrown here once every part has finished.
    void run(int parts, Task task, void* context);

    // The process-wide pool of `threads` threads (created on first use, kept to exit).
    [[nodiscard]] static ThreadPool& shared(int threads);
    // The hardware's thread count (at least 1).
    [[nodiscard]] static int hardware_threads();

private:
    void work(int index);
    void stop_workers();  // wakes every worker to stop and joins it

    std::vector<std::thread> workers_;
    std::mutex busy_;  // one parallel region at a time
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<int> pending_{0};
    std::atomic<bool> stop_{false};
    int parts_ = 0;
    Task task_ = nullptr;
    void* context_ = nullptr;
    std::mutex error_mutex_;
    std::exception_ptr error_;
};

}  // namespace advi
