// Writing an output file without destroying what is at its path: a regular file is replaced
// whole (a temporary beside it, renamed into place), a symlink's target is written, a FIFO or
// a device is written in place; a failure names the file and the system's reason.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace advi {

// Receives the file's text in pieces; throws Error naming the file when a write fails.
using WriteText = std::function<void(std::string_view)>;

// The file that writing `path` writes: the final target of a chain of symlinks (a relative
// link read from its own directory), or `path` itself. Throws Error on a loop of links.
[[nodiscard]] std::filesystem::path output_target(const std::filesystem::path& path);

// Writes the text that `produce` hands to its argument to `path`:
//  - nothing or a regular file at the target: into a hidden temporary file beside it, with
//    the old file's permission bits, synced, then renamed over it, so that a reader (or a
//    process killed at any moment) sees the old file or the whole new one; the temporary is
//    removed on any failure (and by remove_unfinished_output_files from a signal handler);
//  - a symlink: its target is written as above (output_target); the link stays a link;
//  - anything else that exists (a FIFO, /dev/null, /dev/stdout): opened and written in
//    place, never renamed over;
//  - a directory: refused.
// Throws Error "cannot write `path`: <reason>" with the system's reason (strerror), e.g.
// "No space left on device"; an exception from `produce` passes through, the old file kept.
void write_output_file(const std::filesystem::path& path,
                       const std::function<void(const WriteText&)>& produce);

// Removes the temporary files of the writes under way in this process. Async-signal-safe
// (unlink only): for a signal handler that is about to end the process, so that a killed
// write leaves the previous file and no temporary one.
void remove_unfinished_output_files() noexcept;

}  // namespace advi
