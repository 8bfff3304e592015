// The numbers of a simulated data set's truth file (../shared/data/sim/MODEL/*.truth.json) for
// the examples and their tests. The data reader (advi::read_data) refuses strings, and a truth
// file has some ("description", "notes"), so this small reader keeps the numeric members only.
#pragma once

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace advi::examples {

// Each numeric member of the top-level object, nested arrays flattened in reading order (a
// matrix written as rows comes out row-major). Members whose value holds a string are left out.
class Truth {
public:
    explicit Truth(const std::filesystem::path& file) {
        std::ifstream in(file);
        if (!in)
            throw std::runtime_error("cannot open truth file " + file.string());
        std::stringstream s;
        s << in.rdbuf();
        text_ = s.str();
        parse_object();
    }

    [[nodiscard]] bool contains(const std::string& name) const { return values_.count(name) > 0; }
    [[nodiscard]] const std::vector<double>& at(const std::string& name) const {
        auto it = values_.find(name);
        if (it == values_.end())
            throw std::runtime_error("truth file has no number `" + name + "`");
        return it->second;
    }
    [[nodiscard]] double scalar(const std::string& name) const { return at(name).at(0); }
    [[nodiscard]] Eigen::VectorXd vector(const std::string& name) const {
        const auto& v = at(name);
        return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
    }
    // A square matrix written as rows.
    [[nodiscard]] Eigen::MatrixXd square_matrix(const std::string& name) const {
        const auto& v = at(name);
        Eigen::Index n = 0;
        while (n * n < static_cast<Eigen::Index>(v.size())) ++n;
        if (n * n != static_cast<Eigen::Index>(v.size()))
            throw std::runtime_error("truth `" + name + "` is not a square matrix");
        Eigen::MatrixXd m(n, n);
        for (Eigen::Index i = 0; i < n; ++i)
            for (Eigen::Index j = 0; j < n; ++j) m(i, j) = v[static_cast<std::size_t>(i * n + j)];
        return m;
    }

private:
    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    void expect(char c) {
        skip_space();
        if (pos_ >= text_.size() || text_[pos_] != c)
            throw std::runtime_error(std::string("truth file: expected '") + c + "' at offset " +
                                     std::to_string(pos_));
        ++pos_;
    }
    std::string read_string() {
        expect('"');
        std::string out;
        while (pos_ < text_.size() && text_[pos_] != '"') {
            if (text_[pos_] == '\\')
                ++pos_;  // escapes: keep the escaped character
            out += text_[pos_++];
        }
        expect('"');
        return out;
    }
    // A value into `out`; false when it holds a string (or true/false/null).
    bool read_value(std::vector<double>& out) {
        skip_space();
        if (text_[pos_] == '"') {
            read_string();
            return false;
        }
        if (text_[pos_] == '[') {
            ++pos_;
            bool numeric = true;
            skip_space();
            if (text_[pos_] == ']') {
                ++pos_;
                return true;
            }
            for (;;) {
                numeric = read_value(out) && numeric;
                skip_space();
                if (text_[pos_] == ']') {
                    ++pos_;
                    return numeric;
                }
                expect(',');
            }
        }
        const char* begin = text_.c_str() + pos_;
        char* end = nullptr;
        const double v = std::strtod(begin, &end);
        if (end == begin) {  // true, false, null
            while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_])))
                ++pos_;
            return false;
        }
        pos_ += static_cast<std::size_t>(end - begin);
        out.push_back(v);
        return true;
    }
    void parse_object() {
        expect('{');
        skip_space();
        if (text_[pos_] == '}')
            return;
        for (;;) {
            const std::string name = read_string();
            expect(':');
            std::vector<double> v;
            if (read_value(v))
                values_[name] = std::move(v);
            skip_space();
            if (text_[pos_] == '}')
                return;
            expect(',');
        }
    }

    std::string text_;
    std::size_t pos_ = 0;
    std::map<std::string, std::vector<double>> values_;
};

}  // namespace advi::examples
