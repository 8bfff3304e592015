#include <advi/stan/stan_library.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <advi/stan/signature.hpp>
#include <advi/stan/types.hpp>

namespace advi::stan {

namespace {

// One line per signature, `name(args) => result`, sorted by name; `name(...)` for a variadic
// function. Plain pointers: lengths counted at compile time would exceed the compiler's
// constexpr budget for 24,000 lines.
const char* const kLines[] = {
#include <advi/stan/stan_library_signatures.inc>
};

std::string_view name_of(std::string_view line) {
    return line.substr(0, line.find('('));
}

struct Index {
    std::vector<std::string_view> names;
    // per name: its lines [first, last) in kLines, and its entry once parsed
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    std::vector<std::unique_ptr<LibraryFunction>> parsed;
    std::mutex mutex;
};

Index& index() {
    static Index* const built = [] {
        auto* ix = new Index;
        constexpr std::size_t n = std::size(kLines);
        for (std::size_t k = 0; k < n;) {
            const std::string_view name = name_of(kLines[k]);
            std::size_t end = k;
            while (end < n && name_of(kLines[end]) == name) ++end;
            ix->names.push_back(name);
            ix->ranges.emplace_back(k, end);
            k = end;
        }
        ix->parsed.resize(ix->names.size());
        return ix;
    }();
    return *built;
}

const LibraryFunction* entry(std::string_view name) {
    Index& ix = index();
    const auto it = std::lower_bound(ix.names.begin(), ix.names.end(), name);
    if (it == ix.names.end() || *it != name)
        return nullptr;
    const auto k = static_cast<std::size_t>(it - ix.names.begin());
    const std::lock_guard lock(ix.mutex);
    if (!ix.parsed[k]) {
        auto f = std::make_unique<LibraryFunction>();
        f->name = *it;
        for (std::size_t line = ix.ranges[k].first; line < ix.ranges[k].second; ++line) {
            const std::string_view text = std::string_view(kLines[line]).substr(name.size());
            if (text == "(...)")
                f->variadic = true;
            else
                f->signatures.push_back(parse_signature(text));
        }
        ix.parsed[k] = std::move(f);
    }
    return ix.parsed[k].get();
}

}  // namespace

bool LibraryFunction::higher_order() const {
    return std::any_of(signatures.begin(), signatures.end(), [](const Signature& s) {
        return std::any_of(s.args.begin(), s.args.end(),
                           [](const StanType& t) { return t.kind == TypeKind::Function; });
    });
}

const LibraryFunction* find_library_function(std::string_view name) {
    for (const auto& [unnormalised, normalised] : {
             std::pair<std::string_view, std::string_view>{"_lupdf", "_lpdf"},
             {"_lupmf", "_lpmf"}
    }) {
        if (name.size() > unnormalised.size() && name.ends_with(unnormalised)) {
            const std::string full =
                std::string(name.substr(0, name.size() - unnormalised.size())) +
                std::string(normalised);
            return entry(full);
        }
    }
    return entry(name);
}

std::span<const std::string_view> library_function_names() {
    return index().names;
}

bool data_only_arguments(std::string_view name) {
    constexpr std::string_view kDataOnly[] = {
        "to_int",
        "quantile",
        "linspaced_vector",
        "linspaced_row_vector",
        "linspaced_array",
        "linspaced_int_array",
        "hmm_hidden_state_prob",
    };
    return std::find(std::begin(kDataOnly), std::end(kDataOnly), name) != std::end(kDataOnly);
}

std::optional<bool> user_function_wins(std::string_view name, std::span<const Signature> user,
                                       std::span<const StanType> args) {
    const auto fewest = [&](std::span<const Signature> signatures) {
        std::optional<int> best;
        for (const Signature& s : signatures) {
            int promotions = 0;
            if (match(s, args, &promotions) && (!best || promotions < *best))
                best = promotions;
        }
        return best;
    };
    const LibraryFunction* library = find_library_function(name);
    if (library == nullptr)
        return true;
    const auto mine = fewest(user), theirs = fewest(library->signatures);
    if (!mine || !theirs)
        return mine.has_value();
    if (*mine == *theirs)
        return std::nullopt;
    return *mine < *theirs;
}

}  // namespace advi::stan
