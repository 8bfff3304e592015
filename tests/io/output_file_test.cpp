// write_output_file by what is at the path: a regular file replaced whole, a symlink's target
// written and the link kept, a FIFO and a character device written in place, a failure named
// with the system's reason, and no temporary file left in any case.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/output_file.hpp>

#include "support/temp_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using advi::test::read_text;
using advi::test::TempDir;
using Catch::Matchers::Contains;

namespace {

void write_text(const fs::path& p, const std::string& text) {
    advi::write_output_file(p, [&](const advi::WriteText& write) { write(text); });
}

}  // namespace

TEST_CASE("write_output_file replaces a regular file whole, keeping its permissions", "[io]") {
    TempDir dir("regular");
    const fs::path path = dir.path / "out.csv";
    write_text(path, "first\n");
    CHECK(read_text(path) == "first\n");
    ::chmod(path.c_str(), 0640);
    write_text(path, "second\n");
    CHECK(read_text(path) == "second\n");
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0640);
    CHECK(dir.files() == std::vector<std::string>{"out.csv"});

    // A failure inside the writer keeps the old file and leaves no temporary behind.
    CHECK_THROWS_WITH(advi::write_output_file(path,
                                              [](const advi::WriteText& write) {
                                                  write("half of a new file");
                                                  throw advi::Error("the writer failed");
                                              }),
                      "the writer failed");
    CHECK(read_text(path) == "second\n");
    CHECK(dir.files() == std::vector<std::string>{"out.csv"});
}

TEST_CASE("write_output_file follows a symlink: the target is replaced, the link kept", "[io]") {
    TempDir dir("symlink");
    fs::create_directory(dir.path / "real");
    const fs::path target = dir.path / "real" / "target.csv";
    std::ofstream(target) << "old\n";
    // A relative link, read from the link's own directory, through a second link.
    fs::create_symlink("real/target.csv", dir.path / "link1");
    fs::create_symlink("link1", dir.path / "link2");
    CHECK(advi::output_target(dir.path / "link2") == dir.path / "real/target.csv");
    write_text(dir.path / "link2", "new\n");
    CHECK(fs::is_symlink(dir.path / "link1"));
    CHECK(fs::is_symlink(dir.path / "link2"));
    CHECK(fs::read_symlink(dir.path / "link2") == "link1");
    CHECK(read_text(target) == "new\n");
    CHECK(dir.files() == std::vector<std::string>{"link1", "link2", "real"});
    std::vector<std::string> real;
    for (const auto& e : fs::directory_iterator(dir.path / "real"))
        real.push_back(e.path().filename());
    CHECK(real == std::vector<std::string>{"target.csv"});

    // A link to nothing: its target is created.
    fs::create_symlink("real/new.csv", dir.path / "dangling");
    write_text(dir.path / "dangling", "created\n");
    CHECK(fs::is_symlink(dir.path / "dangling"));
    CHECK(read_text(dir.path / "real" / "new.csv") == "created\n");

    // A loop of links: an error naming the path, nothing written.
    fs::create_symlink("loop_b", dir.path / "loop_a");
    fs::create_symlink("loop_a", dir.path / "loop_b");
    CHECK_THROWS_WITH(write_text(dir.path / "loop_a", "x"),
                      Contains(fmt::format("cannot write `{}`", (dir.path / "loop_a").string())) &&
                          Contains("Too many levels of symbolic links"));
}

TEST_CASE("write_output_file writes a FIFO in place", "[io]") {
    TempDir dir("fifo");
    const fs::path fifo = dir.path / "pipe";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string text;
    for (int i = 0; i < 20000; ++i)
        text += fmt::format("{},{}\n", i, i * 0.5);  // > a pipe's buffer
    std::string received;
    std::thread reader([&] { received = read_text(fifo); });
    write_text(fifo, text);
    reader.join();
    CHECK(received == text);
    CHECK(fs::is_fifo(fs::symlink_status(fifo)));
    CHECK(dir.files() == std::vector<std::string>{"pipe"});
}

TEST_CASE("write_output_file writes a character device in place", "[io]") {
    struct stat before {};
    REQUIRE(::stat("/dev/null", &before) == 0);
    REQUIRE(S_ISCHR(before.st_mode));
    write_text("/dev/null", "into the void\n");
    struct stat after {};
    REQUIRE(::stat("/dev/null", &after) == 0);
    CHECK(S_ISCHR(after.st_mode));
    CHECK(after.st_rdev == before.st_rdev);
    CHECK(after.st_ino == before.st_ino);
}

TEST_CASE("write_output_file names the file and the system's reason when a write fails", "[io]") {
    // /dev/full fails every write with ENOSPC.
    CHECK_THROWS_AS(write_text("/dev/full", "x"), advi::Error);
    CHECK_THROWS_WITH(write_text("/dev/full", "x"),
                      "cannot write `/dev/full`: No space left on device");

    TempDir dir("fail");
    CHECK_THROWS_WITH(write_text(dir.path / "missing" / "out.csv", "x"),
                      fmt::format("cannot write `{}`: No such file or directory",
                                  (dir.path / "missing" / "out.csv").string()));
    CHECK_THROWS_WITH(write_text(dir.path, "x"),
                      fmt::format("cannot write `{}`: it is a directory", dir.path.string()));
}

TEST_CASE("remove_unfinished_output_files removes the temporary file of a write under way",
          "[io]") {
    TempDir dir("unfinished");
    const fs::path path = dir.path / "out.csv";
    std::ofstream(path) << "previous\n";
    std::vector<std::string> during, after_removal;
    CHECK_THROWS_WITH(advi::write_output_file(path,
                                              [&](const advi::WriteText& write) {
                                                  write("part of the new file\n");
                                                  during = dir.files();
                                                  // What a signal handler does before the
                                                  // process ends.
                                                  advi::remove_unfinished_output_files();
                                                  after_removal = dir.files();
                                                  throw advi::Error("killed");
                                              }),
                      "killed");
    REQUIRE(during.size() == 2);  // out.csv and the hidden temporary
    CHECK(during[0].rfind(".out.csv.tmp.", 0) == 0);
    CHECK(after_removal == std::vector<std::string>{"out.csv"});
    CHECK(read_text(path) == "previous\n");
    // No write under way: nothing to remove, nothing removed.
    advi::remove_unfinished_output_files();
    CHECK(dir.files() == std::vector<std::string>{"out.csv"});
}
