// The table of Stan's library (stan_library.hpp), derived from stanc3's dump of every
// signature: it parses whole, prints back as stanc prints it, and answers the lookups the
// checker makes (densities' `_lupdf` forms, variadic and higher-order functions).
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include <advi/stan/signature.hpp>
#include <advi/stan/stan_library.hpp>
#include <advi/stan/types.hpp>

namespace advi::stan {

TEST_CASE("every signature of Stan's library parses and prints back", "[stan]") {
    std::size_t signatures = 0, variadic = 0;
    for (const std::string_view name : library_function_names()) {
        const LibraryFunction* f = find_library_function(name);
        REQUIRE(f != nullptr);
        CHECK(f->name == name);
        variadic += f->variadic ? 1 : 0;
        CHECK(f->variadic == f->signatures.empty());
        for (const Signature& s : f->signatures) {
            ++signatures;
            const std::string text = str(s);
            INFO(name << text);
            CHECK(text.find('?') == std::string::npos);
            CHECK(str(parse_signature(text)) == text);
        }
    }
    // stanc3 90c653249: 564 names with 24,246 signatures, and 39 variadic functions
    CHECK(library_function_names().size() == 564 + 39);
    CHECK(signatures == 24246);
    CHECK(variadic == 39);
}

TEST_CASE("lookups in Stan's library", "[stan]") {
    const LibraryFunction* normal = find_library_function("normal_lpdf");
    REQUIRE(normal != nullptr);
    CHECK(find_library_function("normal_lupdf") == normal);
    CHECK(find_library_function("poisson_lupmf") == find_library_function("poisson_lpmf"));
    CHECK(find_library_function("normal_lpmf") == nullptr);
    CHECK(find_library_function("fabs") == nullptr);  // removed in Stan 2.33
    CHECK(find_library_function("no_such_function") == nullptr);
    // vectorised: normal_lpdf(vector | real, array[] real)
    const std::vector<StanType> args = {parse_signature("(vector) => real").args[0], real_type(),
                                        real_type(1)};
    CHECK(resolve(normal->signatures, args) == real_type());
    // promotions: exp of an int is real; of a complex, complex
    const LibraryFunction* exp = find_library_function("exp");
    REQUIRE(exp != nullptr);
    CHECK(str(*resolve(exp->signatures, std::vector{int_type()})) == "real");
    const StanType complex = parse_signature("(complex) => real").args[0];
    CHECK(str(*resolve(exp->signatures, std::vector{complex})) == "complex");
    // higher-order and variadic functions
    const LibraryFunction* solver = find_library_function("algebra_solver");
    REQUIRE(solver != nullptr);
    CHECK(solver->higher_order());
    CHECK_FALSE(solver->variadic);
    CHECK(str(solver->signatures.front().args.front()) ==
          "(vector, vector, data array[] real, data array[] int) => vector");
    const LibraryFunction* ode = find_library_function("ode_rk45");
    REQUIRE(ode != nullptr);
    CHECK(ode->variadic);
    CHECK(find_library_function("reduce_sum")->variadic);
    // tuples as results
    const LibraryFunction* csr = find_library_function("csr_extract");
    REQUIRE(csr != nullptr);
    CHECK(str(csr->signatures.front().result) == "tuple(vector, array[] int, array[] int)");
}

}  // namespace advi::stan
