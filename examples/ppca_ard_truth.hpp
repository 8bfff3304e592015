// examples::read_truth for sim/ppca_ard's truth files, run on a thread with a large stack.
// read_truth's std::regex recurses once per character between two quotes, and these files hold
// z (N x 11 numbers) between "z" and "notes": 113 kB (small) overflows an 8 MB stack. Drop this
// file when read_truth stops recursing.
#pragma once

#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>

#include "example_data.hpp"
#include <pthread.h>

namespace advi::examples {

inline DataTable read_ppca_truth(const std::filesystem::path& file) {
    struct Job {
        std::filesystem::path file;
        std::optional<DataTable> table;
        std::exception_ptr error;
    } job{file, {}, {}};
    // 32 MB was enough for 113 kB; 512 bytes of stack per byte of file leaves room (virtual
    // memory: pages are touched only as deep as the recursion goes).
    const std::size_t stack =
        std::max<std::size_t>(std::size_t{64} << 20, 512 * std::filesystem::file_size(file));
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack);
    pthread_t thread;
    const auto run = [](void* p) -> void* {
        auto* j = static_cast<Job*>(p);
        try {
            j->table = read_truth(j->file);
        } catch (...) {
            j->error = std::current_exception();
        }
        return nullptr;
    };
    const int rc = pthread_create(&thread, &attr, run, &job);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return read_truth(file);  // no thread: try on this one
    pthread_join(thread, nullptr);
    if (job.error)
        std::rethrow_exception(job.error);
    return std::move(*job.table);
}

}  // namespace advi::examples
