// The character source of the data readers: runs across chunk boundaries, line and column
// tracking, error lines re-read from the file, and the number literals of the formats.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/text_stream.hpp>

#include <unistd.h>

namespace advi {
namespace {

namespace fs = std::filesystem;

fs::path temp_file(const std::string& name, std::string_view content) {
    const fs::path dir = fs::temp_directory_path() / fmt::format("advi_io_stream_{}", ::getpid());
    fs::create_directories(dir);
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_space(char c) {
    return c == ' ' || c == '\n';
}

}  // namespace

TEST_CASE("runs longer than a chunk come out whole, with lines counted", "[io]") {
    const std::string digits(50, '7');
    const std::string text = "12 " + digits + "\n  345\n\n6";
    const fs::path p = temp_file("runs.txt", text);
    for (std::size_t chunk : {16, 17, 64, 1 << 20}) {
        TextStream in(p, chunk);
        CHECK(in.take_while(is_digit) == "12");
        in.skip_while(is_space);
        CHECK(in.mark().position().column == 4);
        CHECK(in.take_while(is_digit) == digits);
        in.skip_while(is_space);
        const TextMark m = in.mark();
        CHECK(m.line == 2);
        CHECK(m.position().column == 3);
        CHECK(in.peek(2) == '5');
        CHECK(in.take_while(is_digit) == "345");
        in.skip_while(is_space);
        CHECK(in.mark().line == 4);
        CHECK(in.accept('6'));
        CHECK(in.at_end());
        CHECK(in.peek() == TextStream::kEnd);
        CHECK(in.describe_next() == "end of file");
    }
    fs::remove_all(p.parent_path());
}

TEST_CASE("an error on a file re-reads its line; a long line shows a window", "[io]") {
    std::string long_line(300, 'x');
    long_line[200] = '!';
    const fs::path p = temp_file("err.txt", "first\nsecond line\n" + long_line + "\nlast\n");
    TextStream in(p, 16);
    in.skip_while([](char c) { return c != '!'; });
    const TextMark bang = in.mark();
    CHECK(bang.line == 3);
    CHECK(bang.position().column == 201);
    const ParseError e = in.error_at(bang, "unexpected `!`");
    CHECK(e.line() == 3);
    CHECK(e.column() == 201);
    const std::string expected =
        fmt::format("{}:3:201: unexpected `!`\n  ...{}!{}...\n  {}^", p.string(),
                    std::string(60, 'x'), std::string(59, 'x'), std::string(63, ' '));
    CHECK(std::string(e.what()) == expected);

    TextStream again(p, 16);
    again.skip_while([](char c) { return c != 'l'; });
    CHECK(std::string(again.error_here("here").what()) ==
          fmt::format("{}:2:8: here\n  second line\n         ^", p.string()));
    fs::remove_all(p.parent_path());
}

TEST_CASE("text in memory reads the same as a file", "[io]") {
    TextStream in("ab\ncd", "mem.txt");
    CHECK(in.take_while([](char c) { return c != '\n'; }) == "ab");
    CHECK(in.describe_next() == "a line break");
    in.advance();
    CHECK(in.mark().line == 2);
    CHECK(in.describe_next() == "`c`");
    CHECK(std::string(in.error_here("oops").what()) == "mem.txt:2:1: oops\n  cd\n  ^");
}

TEST_CASE("a UTF-8 byte order mark at the start is skipped", "[io]") {
    TextStream in(
        "\xEF\xBB\xBF"
        "ab",
        "bom.txt");
    CHECK(in.mark().position().column == 1);
    CHECK(in.take_while([](char c) { return c != 'b'; }) == "a");
    CHECK(std::string(in.error_here("at b").what()) == "bom.txt:1:2: at b\n  ab\n   ^");
}

TEST_CASE("number literals: int without point or exponent, real otherwise", "[io]") {
    const auto i = parse_number_literal("-42");
    REQUIRE(i);
    CHECK(i->is_int);
    CHECK(i->int_value == -42);
    CHECK(parse_number_literal("+7")->int_value == 7);
    const auto r = parse_number_literal("1.0");
    REQUIRE(r);
    CHECK_FALSE(r->is_int);
    CHECK(r->real_value == 1.0);
    CHECK_FALSE(parse_number_literal("1e3")->is_int);
    CHECK(parse_number_literal("-2.5E-2")->real_value == -0.025);
    CHECK(parse_number_literal(".5")->real_value == 0.5);
    CHECK(parse_number_literal("1e999")->real_value == std::numeric_limits<double>::infinity());
    CHECK(parse_number_literal("1e-999")->real_value == 0.0);
    const auto big = parse_number_literal("2147483648");
    REQUIRE(big);
    CHECK(big->is_int);
    CHECK(big->int_out_of_range);
    CHECK(parse_number_literal("-2147483648")->int_value == std::numeric_limits<int>::min());
    CHECK(parse_number_literal("123456789012345678901234567890")->int_out_of_range);
    for (const char* bad :
         {"", "-", "+", "abc", "1.2.3", "1e", "inf", "nan", "--1", "+-1", "0x10", "1,2"})
        CHECK_FALSE(parse_number_literal(bad));
}

TEST_CASE("special reals: NaN, Inf, Infinity with a sign, any case", "[io]") {
    constexpr double inf = std::numeric_limits<double>::infinity();
    CHECK(std::isnan(*parse_special_real("NaN")));
    CHECK(std::isnan(*parse_special_real("nan")));
    CHECK(*parse_special_real("Inf") == inf);
    CHECK(*parse_special_real("+inf") == inf);
    CHECK(*parse_special_real("-Infinity") == -inf);
    CHECK(*parse_special_real("INF") == inf);
    CHECK_FALSE(parse_special_real("NA"));
    CHECK_FALSE(parse_special_real("infinite"));
    CHECK_FALSE(parse_special_real("1"));
}

}  // namespace advi
