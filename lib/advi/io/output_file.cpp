// Output files written whole or in place, by what is at the path (see output_file.hpp).
#include <advi/io/output_file.hpp>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include <advi/base/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace advi {

namespace {

namespace fs = std::filesystem;

// The temporary files being written, for remove_unfinished_output_files: fixed slots of
// plain characters and lock-free atomics, which a signal handler may read. A slot is free
// (0), being filled (1) or holds a path (2).
constexpr int kSlots = 16;
constexpr std::size_t kPathBytes = 4096;
struct UnfinishedSlot {
    std::atomic<int> state{0};
    char path[kPathBytes];
};
UnfinishedSlot g_unfinished[kSlots];
static_assert(std::atomic<int>::is_always_lock_free);

// Holds `tmp` in a slot for its lifetime (no slot when all are taken or the path is too long:
// then only a signal can leave that temporary behind).
class UnfinishedFile {
public:
    explicit UnfinishedFile(const fs::path& tmp) {
        const std::string& s = tmp.native();
        if (s.size() >= kPathBytes)
            return;
        for (UnfinishedSlot& slot : g_unfinished) {
            int expected = 0;
            if (slot.state.compare_exchange_strong(expected, 1)) {
                std::memcpy(slot.path, s.c_str(), s.size() + 1);
                slot.state.store(2, std::memory_order_release);
                slot_ = &slot;
                return;
            }
        }
    }
    ~UnfinishedFile() {
        if (slot_ != nullptr)
            slot_->state.store(0, std::memory_order_release);
    }
    UnfinishedFile(const UnfinishedFile&) = delete;
    UnfinishedFile& operator=(const UnfinishedFile&) = delete;

private:
    UnfinishedSlot* slot_ = nullptr;
};

// "cannot write `out.csv`: ...", naming the link's target too when the path is a link.
std::string cannot_write(const fs::path& path, const fs::path& target, std::string_view why) {
    if (target == path)
        return fmt::format("cannot write `{}`: {}", path.string(), why);
    return fmt::format("cannot write `{}` (the target of the link `{}`): {}", target.string(),
                       path.string(), why);
}

// An open file descriptor, closed once; every failure an Error with the system's reason.
class Descriptor {
public:
    Descriptor(int fd, std::string what) : fd_(fd), what_(std::move(what)) {}
    ~Descriptor() {
        if (fd_ >= 0)
            ::close(fd_);
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;

    void write(std::string_view text) {
        while (!text.empty()) {
            const ssize_t n = ::write(fd_, text.data(), text.size());
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                fail(errno);
            }
            text.remove_prefix(static_cast<std::size_t>(n));
        }
    }
    // The data on the disk before the new name is (a crash of the machine just after the
    // rename then cannot leave an empty file under the name); a full disk may say so only here.
    void sync() {
        if (::fsync(fd_) != 0)
            fail(errno);
    }
    void close() {
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0 && errno != EINTR)
            fail(errno);
    }

private:
    [[noreturn]] void fail(int err) const { throw Error(what_ + std::strerror(err)); }

    int fd_;
    std::string what_;  // "cannot write `out.csv`: ", the reason follows
};

void write_in_place(const fs::path& path, const std::function<void(const WriteText&)>& produce) {
    // No O_CREAT: the file exists and is not ours to replace; a FIFO's open waits for a reader.
    int fd = -1;
    do {
        fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        throw Error(cannot_write(path, path, std::strerror(errno)));
    Descriptor out(fd, cannot_write(path, path, ""));
    produce([&](std::string_view text) { out.write(text); });
    out.close();
}

void write_replacing(const fs::path& path, const fs::path& target, const struct stat* old,
                     const std::function<void(const WriteText&)>& produce) {
    // A hidden temporary beside the target: rename() within one directory (one file system)
    // replaces the target atomically.
    static std::atomic<unsigned> counter{0};
    const fs::path tmp =
        target.parent_path() /
        fmt::format(".{}.tmp.{}.{}", target.filename().string(), ::getpid(), counter++);
    const UnfinishedFile unfinished(tmp);
    const mode_t mode = old != nullptr ? (old->st_mode & 07777) : 0666;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        throw Error(cannot_write(path, target, std::strerror(errno)));
    try {
        Descriptor out(fd, cannot_write(path, target, ""));
        // The old file's permissions, not those the umask leaves (a replaced file keeps them).
        if (old != nullptr)
            (void)::fchmod(fd, mode);
        produce([&](std::string_view text) { out.write(text); });
        out.sync();
        out.close();
        if (::rename(tmp.c_str(), target.c_str()) != 0)
            throw Error(cannot_write(path, target, std::strerror(errno)));
    } catch (...) {
        ::unlink(tmp.c_str());
        throw;
    }
}

}  // namespace

fs::path output_target(const fs::path& path) {
    fs::path p = path;
    // Linux's own limit on links followed in one lookup.
    for (int hops = 0; hops <= 40; ++hops) {
        std::error_code ec;
        if (!fs::is_symlink(fs::symlink_status(p, ec)))
            return p;
        const fs::path link = fs::read_symlink(p, ec);
        if (ec)
            throw Error(cannot_write(path, path, ec.message()));
        p = link.is_absolute() ? link : p.parent_path() / link;
    }
    throw Error(cannot_write(path, path, std::strerror(ELOOP)));
}

void write_output_file(const fs::path& path, const std::function<void(const WriteText&)>& produce) {
    // stat follows every link, /proc's too (/dev/stdout names a pipe, not a path).
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno != ENOENT)
            throw Error(cannot_write(path, path, std::strerror(errno)));
        // Nothing there, or a link to nothing: the file (the link's target) is created.
        write_replacing(path, output_target(path), nullptr, produce);
        return;
    }
    if (S_ISDIR(st.st_mode))
        throw Error(cannot_write(path, path, "it is a directory"));
    if (S_ISREG(st.st_mode)) {
        write_replacing(path, output_target(path), &st, produce);
        return;
    }
    write_in_place(path, produce);
}

void remove_unfinished_output_files() noexcept {
    for (UnfinishedSlot& slot : g_unfinished) {
        if (slot.state.load(std::memory_order_acquire) == 2)
            ::unlink(slot.path);
    }
}

}  // namespace advi
