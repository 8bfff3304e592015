// The error hierarchy: every user-facing failure is an advi::Error whose message names
// the thing at fault (variable, data slot with expected and actual shape, argument).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace advi {

// Base of every exception advi throws on purpose.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A model that cannot be built: unknown name, duplicate name, bad argument.
class ModelError : public Error {
public:
    using Error::Error;
};

// Shapes that do not fit together, with the expected and actual shape in the message.
class ShapeError : public ModelError {
public:
    using ModelError::ModelError;
};

// Bad data: wrong shape or type for a data slot, values outside a declared domain.
class DataError : public Error {
public:
    using Error::Error;
};

// A fit that could not proceed (every draw non-finite, every step size failed).
class FitError : public Error {
public:
    using Error::Error;
};

// Text that cannot be read (a model file, a data file): the message starts with
// file:line:col and shows the line with a caret under the column (see lib/advi/io/source_text.hpp).
class ParseError : public Error {
public:
    ParseError(std::string message, std::string file, int line, int column)
        : Error(std::move(message)), file_(std::move(file)), line_(line), column_(column) {}
    [[nodiscard]] const std::string& file() const { return file_; }
    [[nodiscard]] int line() const { return line_; }      // 1-based
    [[nodiscard]] int column() const { return column_; }  // 1-based, in bytes

private:
    std::string file_;
    int line_;
    int column_;
};

// Our own bug: an invariant that should hold whatever the user wrote.
class InternalError : public Error {
public:
    using Error::Error;
};

}  // namespace advi
