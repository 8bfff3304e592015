// Complex numbers: the library's complex functions and operators against std::complex, the
// gradient of a program with complex parameters against the same program written in reals,
// complex data read as CmdStan JSON writes it ([re, im] innermost), outputs under CmdStan's
// names (z.1.real, z.1.imag, ...), and the checker's typing (promotion int -> real -> complex,
// no bounds, no ordering).
#include <complex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/io/cmdstan_csv.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "stan_test_util.hpp"
#include "support/same_model.hpp"

namespace advi::stan {
namespace {

using C = std::complex<double>;

std::unique_ptr<LoweredProgram> lower_text(const std::string& program,
                                           const std::string& json = "{}") {
    return lower(parse_program(program, "model.stan"), read_json_data(json, "data.json"));
}

// The generated quantity `name` (known from data alone) as complex numbers, in Stan's order.
std::vector<C> complex_output(const LoweredProgram& p, const std::string& name) {
    for (const ReportedValue& v : p.generated_quantities()) {
        if (v.name != name)
            continue;
        REQUIRE(v.complex);
        const std::vector<double> x = p.model().evaluate(v.value);
        std::vector<C> out;
        for (std::size_t k = 0; k + 1 < x.size(); k += 2) out.emplace_back(x[k], x[k + 1]);
        return out;
    }
    FAIL("no output " << name);
    return {};
}

void check_close(const C& got, const C& want, double tol = 1e-12) {
    INFO("got " << got << ", want " << want);
    CHECK(std::abs(got - want) <= tol * (1 + std::abs(want)));
}

}  // namespace

TEST_CASE("complex functions and operators agree with std::complex", "[stan][complex]") {
    const C z(0.7, -1.3), w(-0.4, 0.9);
    const auto p = lower_text(R"(
data { complex z; complex w; }
parameters { real y; }
model { y ~ normal(0, 1); }
generated quantities {
  array[33] complex f = {exp(z), log(z), log10(z), sqrt(z), sqrt(-2.5 + 0i), pow(z, w), z ^ 2,
                         sin(z), cos(z), tan(z), asin(z), acos(z), atan(z),
                         sinh(z), cosh(z), tanh(z), asinh(z), acosh(z), atanh(z),
                         z + w, z - w, z * w, z / w, 2.5 / z, z / 2, -z, conj(z),
                         polar(2, 0.3), to_complex(1.5, -2), abs(z), arg(z), norm(z), 3i};
  int same = (z == z) + 2 * (z != w) + 4 * (z == w);
}
)",
                              R"({"z": [0.7, -1.3], "w": [-0.4, 0.9]})");
    const std::vector<C> want = {std::exp(z),
                                 std::log(z),
                                 std::log10(z),
                                 std::sqrt(z),
                                 std::sqrt(C(-2.5, 0)),
                                 std::pow(z, w),
                                 z * z,
                                 std::sin(z),
                                 std::cos(z),
                                 std::tan(z),
                                 std::asin(z),
                                 std::acos(z),
                                 std::atan(z),
                                 std::sinh(z),
                                 std::cosh(z),
                                 std::tanh(z),
                                 std::asinh(z),
                                 std::acosh(z),
                                 std::atanh(z),
                                 z + w,
                                 z - w,
                                 z * w,
                                 z / w,
                                 2.5 / z,
                                 z / 2.0,
                                 -z,
                                 std::conj(z),
                                 std::polar(2.0, 0.3),
                                 C(1.5, -2),
                                 std::abs(z),
                                 std::arg(z),
                                 std::norm(z),
                                 C(0, 3)};
    const std::vector<C> got = complex_output(*p, "f");
    REQUIRE(got.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
        INFO("element " << k + 1);
        check_close(got[k], want[k]);
    }
    const std::vector<double> same = p->model().evaluate(p->generated_quantities()[1].value);
    CHECK(same == std::vector<double>{3});
}

TEST_CASE("complex vectors and matrices: products, division, dot products as Stan computes them",
          "[stan][complex]") {
    const auto p = lower_text(R"(
transformed data {
  complex_matrix[2, 2] A = to_complex([[1, 2], [3, 4]], [[0.5, 0], [0, 1]]);
  matrix[2, 2] B = [[2, 1], [1, 3]];
  complex_vector[2] u = [1 + 2i, -1i]';
  complex_vector[2] v = [3 - 1i, 2]';
}
parameters { real y; }
model { y ~ normal(0, 1); }
generated quantities {
  complex_matrix[2, 2] AA = A * A;
  complex_matrix[2, 2] AdivA = A / A;
  complex_matrix[2, 2] BdivA = B / A;
  complex_vector[2] Au = A * u;
  complex_row_vector[2] uA = u' * A;
  complex d = dot_product(u, v);
  complex s = dot_self(u);
  complex_row_vector[2] cd = columns_dot_product(A, A);
  complex pr = prod(u);
  complex tr = trace(A);
  complex_matrix[2, 2] At = A';
  complex_vector[4] stacked = append_row(u, v);
}
)");
    const C a11(1, 0.5), a12(2, 0), a21(3, 0), a22(4, 1);
    const C u1(1, 2), u2(0, -1), v1(3, -1), v2(2, 0);
    // column-major, as Stan's order
    auto product = [](C x11, C x12, C x21, C x22, C y11, C y12, C y21, C y22) {
        return std::vector<C>{x11 * y11 + x12 * y21, x21 * y11 + x22 * y21, x11 * y12 + x12 * y22,
                              x21 * y12 + x22 * y22};
    };
    const std::vector<C> AA = product(a11, a12, a21, a22, a11, a12, a21, a22);
    const std::vector<C> got_AA = complex_output(*p, "AA");
    for (std::size_t k = 0; k < 4; ++k) check_close(got_AA[k], AA[k]);
    // A / A is the identity; B / A = B A^-1
    const std::vector<C> AdivA = complex_output(*p, "AdivA");
    check_close(AdivA[0], 1);
    check_close(AdivA[1], 0);
    check_close(AdivA[2], 0);
    check_close(AdivA[3], 1);
    const C det = a11 * a22 - a12 * a21;
    const C i11 = a22 / det, i12 = -a12 / det, i21 = -a21 / det, i22 = a11 / det;
    const std::vector<C> BdivA = product(2, 1, 1, 3, i11, i12, i21, i22);
    const std::vector<C> got_BdivA = complex_output(*p, "BdivA");
    for (std::size_t k = 0; k < 4; ++k) check_close(got_BdivA[k], BdivA[k]);
    const std::vector<C> Au = complex_output(*p, "Au");
    check_close(Au[0], a11 * u1 + a12 * u2);
    check_close(Au[1], a21 * u1 + a22 * u2);
    // u' is the plain transpose (no conjugate), as Stan's
    const std::vector<C> uA = complex_output(*p, "uA");
    check_close(uA[0], u1 * a11 + u2 * a21);
    check_close(uA[1], u1 * a12 + u2 * a22);
    // dot_product conjugates its first argument (Eigen's dot, Stan's); dot_self is |u|^2;
    // columns_dot_product does not conjugate
    check_close(complex_output(*p, "d")[0], std::conj(u1) * v1 + std::conj(u2) * v2);
    check_close(complex_output(*p, "s")[0], std::norm(u1) + std::norm(u2));
    const std::vector<C> cd = complex_output(*p, "cd");
    check_close(cd[0], a11 * a11 + a21 * a21);
    check_close(cd[1], a12 * a12 + a22 * a22);
    check_close(complex_output(*p, "pr")[0], u1 * u2);
    check_close(complex_output(*p, "tr")[0], a11 + a22);
    const std::vector<C> At = complex_output(*p, "At");
    check_close(At[1], a12);
    check_close(At[2], a21);
    const std::vector<C> stacked = complex_output(*p, "stacked");
    check_close(stacked[1], u2);
    check_close(stacked[2], v1);
}

TEST_CASE("a program with complex parameters has the density of the same program in reals",
          "[stan][complex]") {
    const std::string complex_program = R"(
data { complex w; }
parameters {
  complex p;
  complex_vector[2] q;
}
model {
  target += -norm(p - w);
  target += -abs(exp(p) * w) ^ 2 / 10;
  target += -get_real(dot_self(q - p));
  get_real(q[2]) ~ normal(0, 1);
}
)";
    const std::string real_program = R"(
data { array[2] real w; }
parameters {
  real a;
  real b;
  vector[2] qr;
  vector[2] qi;
}
model {
  target += -((a - w[1])^2 + (b - w[2])^2);
  target += -exp(2 * a) * (w[1]^2 + w[2]^2) / 10;
  target += -(dot_self(qr - a) + dot_self(qi - b));
  qr[2] ~ normal(0, 1);
}
)";
    const auto a = lower_text(complex_program, R"({"w": [0.3, -0.8]})");
    const auto b = lower_text(real_program, R"({"w": [0.3, -0.8]})");
    // the real program's latents in the complex program's order: p.real, p.imag, then q as
    // q.1.real, q.1.imag, q.2.real, q.2.imag
    auto pa = compile(a->model().spec());
    auto pb = compile(b->model().spec());
    REQUIRE(pa.dim() == 6);
    REQUIRE(pb.dim() == 6);
    const std::vector<int> order = {0, 1, 2, 4, 3, 5};  // complex position -> real position
    for (const double scale : {0.3, 1.0}) {
        Eigen::VectorXd za(6), zb(6), ga(6), gb(6);
        for (int k = 0; k < 6; ++k) za[k] = scale * (0.37 * k - 0.9);
        for (int k = 0; k < 6; ++k) zb[order[k]] = za[k];
        CHECK(pa.run(za, ga) == Approx(pb.run(zb, gb)).epsilon(1e-12));
        for (int k = 0; k < 6; ++k) CHECK(ga[k] == Approx(gb[order[k]]).margin(1e-12));
    }
    // CmdStan's names: the parts of each element together
    const auto& latents = a->model().spec().latents;
    REQUIRE(latents.size() == 2);
    CHECK(stan_column_names(latents[1].name, latents[1].dims, latents[1].complex) ==
          std::vector<std::string>{"q.1.real", "q.1.imag", "q.2.real", "q.2.imag"});
    CHECK(stan_column_names(latents[0].name, latents[0].dims, latents[0].complex) ==
          std::vector<std::string>{"p.real", "p.imag"});
}

TEST_CASE("complex data as CmdStan JSON writes it, and outputs in CmdStan's order",
          "[stan][complex]") {
    const std::string program = R"(
data { array[2] complex_vector[3] z; }
parameters { real y; }
model { y ~ normal(0, 1); }
generated quantities {
  complex_vector[3] second = z[2];
  complex_matrix[2, 3] m;
  for (i in 1:2) m[i] = z[i]';
  m[1, 2] = 7;
}
)";
    // z[i][k] = (10 i + k) + (-(10 i + k)) i
    const std::string json = R"({"z": [[[11, -11], [12, -12], [13, -13]],
                                       [[21, -21], [22, -22], [23, -23]]]})";
    const auto p = lower_text(program, json);
    const std::vector<C> second = complex_output(*p, "second");
    REQUIRE(second.size() == 3);
    check_close(second[0], C(21, -21));
    check_close(second[2], C(23, -23));
    // m column-major: m[1,1], m[2,1], m[1,2], ...
    const std::vector<C> m = complex_output(*p, "m");
    REQUIRE(m.size() == 6);
    check_close(m[0], C(11, -11));
    check_close(m[1], C(21, -21));
    check_close(m[2], C(7, 0));
    check_close(m[3], C(22, -22));
    const ReportedValue& out = p->generated_quantities()[1];
    CHECK(stan_column_names(out.name, out.dims, out.complex) ==
          std::vector<std::string>{"m.1.1.real", "m.1.1.imag", "m.2.1.real", "m.2.1.imag",
                                   "m.1.2.real", "m.1.2.imag", "m.2.2.real", "m.2.2.imag",
                                   "m.1.3.real", "m.1.3.imag", "m.2.3.real", "m.2.3.imag"});
    // a missing imaginary part is an error that names the variable
    CHECK_THROWS_WITH(lower_text(program, R"({"z": [[11, 12, 13], [21, 22, 23]]})"),
                      Catch::Contains("`z`") && Catch::Contains("[real, imaginary]"));
}

TEST_CASE("the checker types complex numbers as Stan does", "[stan][complex]") {
    using test::first_line_of_error;
    CHECK(first_line_of_error("transformed data { complex z = 1; complex_vector[2] v = [1, 2]'; "
                              "z = 2.5; v[1] = z * 2i; }") == "ok");
    CHECK_THAT(first_line_of_error("transformed data { real x = 1i; }"), Catch::Contains("cannot"));
    CHECK_THAT(first_line_of_error("parameters { complex<lower=0> z; }"),
               Catch::Contains("complex"));
    CHECK_THAT(first_line_of_error("transformed data { int b = 1i < 2i; }"),
               Catch::Contains("no operator complex < complex"));
    // int -> complex is two promotions: (real, real) and (int, complex) fit (int, int) equally
    CHECK_THAT(first_line_of_error(R"(
functions {
  real foo(real x, real y) { return y; }
  real foo(int x, complex y) { return get_imag(y); }
}
model { print(foo(1, 2)); }
)"),
               Catch::Contains("ambiguous"));
    CHECK(first_line_of_error(R"(
functions {
  real bar(array[] real x) { return 1; }
  real bar(array[] complex x) { return 2; }
}
model { print(bar({1, 2})); }
)") == "ok");
}

}  // namespace advi::stan
