// A small pool of worker threads for the long loops of a gradient program. The caller
// takes part in every parallel region itself, so a pool of n threads starts n - 1
// workers. Regions are short (microseconds to milliseconds), so workers spin briefly
// before they sleep. run() allocates nothing.
//
// Same bits on any thread count: a region is split into parts whose number and boundaries
// the caller chooses from the sizes of the work only, never from size(); any thread may run
// any part (threads take the next part as they come free), each part writes its partial
// result to a slot of its own, and the caller combines the slots in part order. So the
// arithmetic, and therefore every bit of the result, is the same on 1 thread or 64; only
// which thread did which part differs.
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
    // `part`: which part to compute (what it computes and where it writes); `thread`: which
    // thread runs it, in [0, size()) (0: the caller), for scratch space that one thread
    // reuses from part to part. A part's result must not depend on `thread`.
    using Task = void (*)(void* context, int part, int thread);

    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    [[nodiscard]] int size() const { return static_cast<int>(workers_.size()) + 1; }

    // Runs task(context, p, thread) for every p in [0, parts) and returns when all are done;
    // any number of parts: the caller and the workers take parts in increasing order as
    // they come free. If another thread holds the pool, the parts run one after another on the
    // caller (thread 0): the parts are the same, so the results are too. If parts throw, the
    // exception of the lowest-numbered part that threw is rethrown here once every part has
    // finished (the one a run on one thread would have met first).
    void run(int parts, Task task, void* context);

    // The process-wide pool of `threads` threads (created on first use, kept to exit).
    [[nodiscard]] static ThreadPool& shared(int threads);
    // The hardware's thread count (at least 1).
    [[nodiscard]] static int hardware_threads();

private:
    void work(int index);
    // Claims and runs parts of region `generation` until none is left (or a newer region
    // has begun: a worker that wakes late claims nothing of it).
    void take_parts(std::uint32_t generation, int thread);
    void stop_workers();  // wakes every worker to stop and joins it

    std::vector<std::thread> workers_;
    std::mutex busy_;  // one parallel region at a time
    std::atomic<std::uint32_t> generation_{0};
    // The region's next part, claimed by compare-and-swap: [generation:32][parts:16][next:16].
    // A claim succeeds only while its region has parts left, so the region cannot end, nor
    // the next one overwrite task_ and context_, before the claimed part is done.
    std::atomic<std::uint64_t> ticket_{0};
    std::atomic<int> remaining_{0};  // parts of this region not yet finished
    std::atomic<bool> stop_{false};
    Task task_ = nullptr;
    void* context_ = nullptr;
    std::mutex error_mutex_;
    std::exception_ptr error_;
    int error_part_ = 0;
};

}  // namespace advi
