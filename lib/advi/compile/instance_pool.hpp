// Evaluators of a compiled sub-program (an ODE right-hand side, a loop body) not in use, kept
// for the next caller: copying the programs (their arenas) per solve or per loop cost as much
// as a small solve or a short loop. A caller takes one for itself (the ops may run on any
// thread) and it returns to the pool when the caller lets go.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

namespace advi {

template <class Instance>
class InstancePool {
public:
    // A free evaluator, or make() a new one; returned to the pool when released, as a
    // shared_ptr<Base> (the interface the op sees).
    template <class Base, class Make>
    [[nodiscard]] static std::shared_ptr<Base> take(const std::shared_ptr<InstancePool>& pool,
                                                    Make make) {
        std::unique_ptr<Instance> inst;
        {
            const std::lock_guard lock(pool->mutex_);
            if (!pool->free_.empty()) {
                inst = std::move(pool->free_.back());
                pool->free_.pop_back();
            }
        }
        if (!inst)
            inst = make();
        return {inst.release(), [pool](Base* used) {
                    std::unique_ptr<Instance> back(static_cast<Instance*>(used));
                    const std::lock_guard lock(pool->mutex_);
                    pool->free_.push_back(std::move(back));
                }};
    }

private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<Instance>> free_;
};

}  // namespace advi
