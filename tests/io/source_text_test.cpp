// UTF-8 in the text we are handed (lib/advi/io/source_text.hpp): which byte sequences are
// characters, how a stray byte is named, and the source excerpt of an error with such bytes in its
// line.
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/source_text.hpp>

namespace advi {

TEST_CASE("utf8_length_at: RFC 3629's well-formed sequences and nothing else", "[io][utf8]") {
    using namespace std::string_literals;
    CHECK(utf8_length_at("a", 0) == 1);
    CHECK(utf8_length_at("\x7f", 0) == 1);
    CHECK(utf8_length_at("\xc3\xa9", 0) == 2);          // é
    CHECK(utf8_length_at("\xe2\x82\xac", 0) == 3);      // €
    CHECK(utf8_length_at("\xf0\x9f\x98\x80", 0) == 4);  // U+1F600
    CHECK(utf8_length_at("\xf4\x8f\xbf\xbf", 0) == 4);  // U+10FFFF, the last code point
    CHECK(utf8_length_at("x\xc3\xa9", 1) == 2);
    // Not UTF-8: a stray continuation byte, lead bytes that are never valid, overlong forms,
    // surrogates, beyond U+10FFFF, and a sequence cut short (by the end or by an ASCII byte).
    for (const std::string& bad :
         {"\x80"s, "\xbf"s, "\xc0\x80"s, "\xc1\xbf"s, "\xe0\x80\x80"s, "\xed\xa0\x80"s,
          "\xf0\x80\x80\x80"s, "\xf4\x90\x80\x80"s, "\xf5\x80\x80\x80"s, "\xff"s, "\xfe"s, "\xc3"s,
          "\xe2\x82"s, "\xc3("s, "\xe2\x82("s, "\xf0\x9f\x98"s}) {
        INFO("bytes: " << bad.size());
        CHECK(utf8_length_at(bad, 0) == 0);
    }
    CHECK(utf8_length_at("abc", 3) == 0);  // past the end
}

TEST_CASE("describe_character names characters, control characters and stray bytes", "[io][utf8]") {
    CHECK(describe_character("@", 0) == "character `@`");
    CHECK(describe_character("\xe2\x82\xac", 0) == "character `\xe2\x82\xac`");
    CHECK(describe_character("\x07", 0) == "control character 0x07");
    CHECK(describe_character("a\xff", 1) == "a byte that is not UTF-8 (0xff)");
}

TEST_CASE("an error's excerpt shows stray bytes as ? and puts the caret under the character",
          "[io][utf8]") {
    // `é` is two bytes and one column on a terminal; \xff is one byte shown as `?`.
    const std::string text = "x = \xc3\xa9\xff + y";
    const ParseError e = parse_error_at("f.stan", text, 7, "here");  // the byte after \xff
    const std::string m = e.what();
    INFO(m);
    CHECK(m == "f.stan:1:8: here\n  x = \xc3\xa9? + y\n        ^");
    // Control characters (not tabs) are shown as ? too; tabs stay so the caret lines up.
    const ParseError t = parse_error_at("f.stan", "\tx\x01 y", 4, "here");
    CHECK(std::string(t.what()) == "f.stan:1:5: here\n  \tx? y\n  \t   ^");
}

}  // namespace advi
