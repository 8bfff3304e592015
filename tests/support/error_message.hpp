// The message of the error a call throws, for tests that compare messages word for word (a
// reader's "file:line:col: ..."): one place for the try/catch each such test wrote.
#pragma once

#include <string>

namespace advi::test {

// What f() throws as E, or "no <E>" (named by `none`) when it throws nothing; an exception of
// another type passes on, so that Catch reports it rather than a wrong message.
template <class E, class F>
std::string error_message(F&& f, const std::string& none) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return none;
}

}  // namespace advi::test
