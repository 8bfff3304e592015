#include <advi/stan/large_stack.hpp>

#include <pthread.h>

namespace advi::stan {

namespace {

struct Job {
    const std::function<void()>* work;
    std::exception_ptr error;
};

void* run_job(void* arg) {
    auto* job = static_cast<Job*>(arg);
    try {
        (*job->work)();
    } catch (...) {
        job->error = std::current_exception();
    }
    return nullptr;
}

}  // namespace

void run_with_stack(std::size_t stack_bytes, const std::function<void()>& work) {
    Job job{&work, nullptr};
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) {
        work();
        return;
    }
    pthread_t thread;
    const bool started = pthread_attr_setstacksize(&attr, stack_bytes) == 0 &&
                         pthread_create(&thread, &attr, run_job, &job) == 0;
    pthread_attr_destroy(&attr);
    if (!started) {
        work();  // no thread (resource limits): the caller's stack is all there is
        return;
    }
    pthread_join(thread, nullptr);
    if (job.error)
        std::rethrow_exception(job.error);
}

}  // namespace advi::stan
