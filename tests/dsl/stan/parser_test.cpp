// The Stan parser: every construct to the expected AST (through the canonical printer, or by
// walking the tree), Stan's operator table, both array syntaxes, every constraint, each block,
// functions, complete classic programs, and parse -> print -> parse giving the same print.
// Syntax errors are in parser_errors_test.cpp.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <catch2/catch.hpp>

#include <advi/stan/ast_printer.hpp>
#include <advi/stan/parser.hpp>

#include "stan_test_util.hpp"

namespace advi::stan {
namespace {

using test::block_of;
using test::parens;
using test::print;
using test::round_trip;

// The one statement of `model { <text> }`.
Statement model_statement(const std::string& text) {
    Program p = parse_program("model {\n" + text + "\n}\n", "t.stan");
    REQUIRE(p.model);
    REQUIRE(p.model->statements.size() == 1);
    return p.model->statements[0];
}

// The printed statements of `model { <text> }`, without the block's own lines.
std::string model_print(const std::string& text) {
    return block_of(round_trip("model {\n" + text + "\n}\n"), "model");
}

// A random expression over every operator, prefix and postfix form, conditional, index and
// call, `depth` levels deep at most.
Expression random_expression(std::mt19937& rng, int depth) {
    const auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    Expression e;
    const int kind = depth == 0 ? pick(3) : pick(11);
    switch (kind) {
        case 0: e.node = Variable{std::string(1, static_cast<char>('a' + pick(5)))}; break;
        case 1: e.node = IntLiteral{pick(10)}; break;
        case 2: e.node = RealLiteral{0.5 * pick(5)}; break;
        case 3:
        case 4:
        case 5: {
            const auto& table = binary_op_table();
            e.node = Binary{table[pick(static_cast<int>(table.size()))].op,
                            random_expression(rng, depth - 1), random_expression(rng, depth - 1)};
            break;
        }
        case 6:
            e.node = Unary{static_cast<UnaryOp>(pick(3)), random_expression(rng, depth - 1)};
            break;
        case 7:
            e.node =
                Conditional{random_expression(rng, depth - 1), random_expression(rng, depth - 1),
                            random_expression(rng, depth - 1)};
            break;
        case 8: e.node = Transpose{random_expression(rng, depth - 1)}; break;
        case 9: {
            Index i;
            i.is_range = pick(2) == 1;
            if (!i.is_range || pick(2))
                i.lower = Box<Expression>(random_expression(rng, depth - 1));
            if (i.is_range && pick(2))
                i.upper = Box<Expression>(random_expression(rng, depth - 1));
            Indexed x{random_expression(rng, depth - 1), {}};
            x.indices.push_back(std::move(i));
            if (pick(2))
                x.indices.push_back(Index{{}, true, std::nullopt, std::nullopt});
            e.node = std::move(x);
            break;
        }
        default: {
            Call c{pick(2) ? "f" : "g_lpdf", {}, false};
            const int n = pick(3);
            for (int k = 0; k < n; ++k) c.args.push_back(random_expression(rng, depth - 1));
            c.conditional = n > 0 && pick(2);
            e.node = std::move(c);
            break;
        }
    }
    return e;
}

}  // namespace

TEST_CASE("random expressions: the printer's parentheses keep the tree", "[stan][parser]") {
    std::mt19937 rng(20240611);
    for (int i = 0; i < 3000; ++i) {
        const Expression e = random_expression(rng, 1 + i % 5);
        const std::string text = to_stan(e);
        INFO(text);
        CHECK(parens(parse_expression(text)) == parens(e));
    }
}

TEST_CASE("literals: ints, reals with exponents, digit separators", "[stan][parser]") {
    CHECK(parse_expression("42").as<IntLiteral>()->value == 42);
    CHECK(parse_expression("1_000_000").as<IntLiteral>()->value == 1000000);
    CHECK(parse_expression("2147483647").as<IntLiteral>()->value == 2147483647);
    CHECK(parse_expression("1.5").as<RealLiteral>()->value == 1.5);
    CHECK(parse_expression("1.").as<RealLiteral>()->value == 1.0);
    CHECK(parse_expression(".25").as<RealLiteral>()->value == 0.25);
    CHECK(parse_expression("1e3").as<RealLiteral>()->value == 1000.0);
    CHECK(parse_expression("2.5E-2").as<RealLiteral>()->value == 0.025);
    CHECK(parse_expression("3e+2").as<RealLiteral>()->value == 300.0);
    // A real stays a real when printed.
    CHECK(print("1e5") == "100000.0");
    CHECK(print("0.1") == "0.1");
    CHECK(print("1.5e-300") == "1.5e-300");
    // `2.*x` is the real 2. times x, as Stan's lexer reads it; `2 .* x` is elementwise.
    CHECK(parens("2.*x") == "(2.0 * x)");
    CHECK(parens("a.*x") == "(a .* x)");
}

TEST_CASE("Stan's operator table: precedence and associativity", "[stan][parser]") {
    // Each row: the input and its fully parenthesised reading.
    const std::pair<std::string, std::string> cases[] = {
        {"a + b * c",                "(a + (b * c))"                 },
        {"a * b + c",                "((a * b) + c)"                 },
        {"a - b - c",                "((a - b) - c)"                 },
        {"a / b / c",                "((a / b) / c)"                 },
        {"a - b + c",                "((a - b) + c)"                 },
        {"a ^ b ^ c",                "(a ^ (b ^ c))"                 },
        {"a .^ b .^ c",              "(a .^ (b .^ c))"               },
        {"-a ^ 2",                   "(-(a ^ 2))"                    },
        {"-a .^ 2",                  "(-(a .^ 2))"                   },
        {"a ^ -b",                   "(a ^ (-b))"                    },
        {"2 ^ -1 ^ 2",               "(2 ^ (-(1 ^ 2)))"              },
        {"-a * b",                   "((-a) * b)"                    },
        {"a * -b",                   "(a * (-b))"                    },
        {"a - -b",                   "(a - (-b))"                    },
        {"!a && b",                  "((!a) && b)"                   },
        {"+a",                       "(+a)"                          },
        {"--a",                      "(-(-a))"                       },
 // \ and %/% bind tighter than * / %.
        {"a * b \\ c",               "(a * (b \\ c))"                },
        {"a \\ b * c",               "((a \\ b) * c)"                },
        {"a %/% b * c",              "((a %/% b) * c)"               },
        {"a * b %/% c",              "(a * (b %/% c))"               },
        {"a % b %/% c",              "(a % (b %/% c))"               },
        {"a % b * c",                "((a % b) * c)"                 },
        {"a .* b ./ c * d",          "(((a .* b) ./ c) * d)"         },
        {"-a \\ b",                  "((-a) \\ b)"                   },
        {"a + b < c * d",            "((a + b) < (c * d))"           },
        {"a < b == c >= d",          "((a < b) == (c >= d))"         },
        {"a <= b != c > d",          "((a <= b) != (c > d))"         },
        {"a == b == c",              "((a == b) == c)"               },
        {"a || b && c",              "(a || (b && c))"               },
        {"a && b || c",              "((a && b) || c)"               },
        {"a && b == c",              "(a && (b == c))"               },
        {"c ? a : b",                "(c ? a : b)"                   },
        {"c ? a : d ? e : f",        "(c ? a : (d ? e : f))"         },
        {"c ? d ? e : f : g",        "(c ? (d ? e : f) : g)"         },
        {"a || b ? c + 1 : d",       "((a || b) ? (c + 1) : d)"      },
 // Postfix binds tightest.
        {"x' * y",                   "((x') * y)"                    },
        {"-x'",                      "(-(x'))"                       },
        {"x'[1]",                    "((x')[1])"                     },
        {"x[1]'",                    "((x[1])')"                     },
        {"x''",                      "((x')')"                       },
        {"a ^ x'",                   "(a ^ (x'))"                    },
        {"(y - mu)' * S * (y - mu)", "((((y - mu)') * S) * (y - mu))"},
        {"f(a)[2]",                  "(f(a)[2])"                     },
        {"(a + b)[1]",               "((a + b)[1])"                  },
        {"a[i][j]",                  "((a[i])[j])"                   },
    };
    for (const auto& [text, expected] : cases) {
        INFO(text);
        CHECK(parens(text) == expected);
        // The canonical print parses back to the same tree.
        CHECK(parens(print(text)) == expected);
    }
}

TEST_CASE("the printer adds only the parentheses the table requires", "[stan][parser]") {
    CHECK(print("(a + b) * c") == "(a + b) * c");
    CHECK(print("a + (b * c)") == "a + b * c");
    CHECK(print("(a - b) - c") == "a - b - c");
    CHECK(print("a - (b - c)") == "a - (b - c)");
    CHECK(print("(a ^ b) ^ c") == "(a ^ b) ^ c");
    CHECK(print("a ^ (b ^ c)") == "a ^ b ^ c");
    CHECK(print("(-a) ^ 2") == "(-a) ^ 2");
    CHECK(print("-(a ^ 2)") == "-a ^ 2");
    CHECK(print("(c ? a : b) ? d : e") == "(c ? a : b) ? d : e");
    CHECK(print("((x))'") == "x'");
    CHECK(print("(x + y)'") == "(x + y)'");
    CHECK(print("f( a,b )") == "f(a, b)");
}

TEST_CASE("calls, conditional density calls and target()", "[stan][parser]") {
    Expression e = parse_expression("normal_lpdf(y | mu, sigma)");
    const Call* c = e.as<Call>();
    REQUIRE(c);
    CHECK(c->name == "normal_lpdf");
    CHECK(c->conditional);
    REQUIRE(c->args.size() == 3);
    CHECK(c->args[0].as<Variable>()->name == "y");
    CHECK(print("normal_lpdf(y | mu, sigma)") == "normal_lpdf(y | mu, sigma)");
    CHECK(print("std_normal_lpdf(y|)") == "std_normal_lpdf(y |)");
    CHECK(print("poisson_log_lpmf(n | a[1] || b)") == "poisson_log_lpmf(n | a[1] || b)");

    Expression f = parse_expression("foo(a, b + 1)");
    CHECK_FALSE(f.as<Call>()->conditional);
    CHECK(f.as<Call>()->args.size() == 2);
    CHECK(parse_expression("foo()").as<Call>()->args.empty());
    CHECK(print("log_sum_exp(a, log(b))") == "log_sum_exp(a, log(b))");

    Expression t = parse_expression("target()");
    CHECK(t.as<Call>()->name == "target");
    CHECK(t.as<Call>()->args.empty());
    CHECK(print("target() + 1") == "target() + 1");
}

TEST_CASE("indexing: single, multiple, slices and multi-indices", "[stan][parser]") {
    const auto indices = [](const std::string& text) {
        Expression e = parse_expression(text);
        REQUIRE(e.is<Indexed>());
        return e.as<Indexed>()->indices;
    };
    auto one = indices("a[i]");
    REQUIRE(one.size() == 1);
    CHECK_FALSE(one[0].is_range);
    CHECK((*one[0].lower)->as<Variable>()->name == "i");

    auto two = indices("a[i, j + 1]");
    REQUIRE(two.size() == 2);
    CHECK(to_stan(**two[1].lower) == "j + 1");

    auto slice = indices("a[2:5]");
    CHECK(slice[0].is_range);
    CHECK(to_stan(**slice[0].lower) == "2");
    CHECK(to_stan(**slice[0].upper) == "5");

    auto upto = indices("a[:3]");
    CHECK(upto[0].is_range);
    CHECK_FALSE(upto[0].lower);
    CHECK(to_stan(**upto[0].upper) == "3");

    auto from = indices("a[2:]");
    CHECK(from[0].is_range);
    CHECK(to_stan(**from[0].lower) == "2");
    CHECK_FALSE(from[0].upper);

    auto all = indices("a[:]");
    CHECK(all[0].is_range);
    CHECK_FALSE(all[0].lower);
    CHECK_FALSE(all[0].upper);

    // An empty position is all of it, as `:`.
    auto empty = indices("X[, k]");
    REQUIRE(empty.size() == 2);
    CHECK(empty[0].is_range);
    CHECK_FALSE(empty[0].lower);
    CHECK(print("X[, k]") == "X[:, k]");

    // A multi-index is syntactically a single index (an int array); the checker tells.
    auto multi = indices("a[idxs]");
    CHECK_FALSE(multi[0].is_range);

    CHECK(print("a[i][j]") == "a[i][j]");
    CHECK(print("a[b[i]:b[i + 1] - 1, :]") == "a[b[i]:b[i + 1] - 1, :]");
    CHECK(print("a[c ? 1 : 2]") == "a[c ? 1 : 2]");
    Expression nested = parse_expression("a[i][j]");
    CHECK(nested.as<Indexed>()->base->is<Indexed>());
}

TEST_CASE("array and row-vector expressions", "[stan][parser]") {
    Expression arr = parse_expression("{1, 2.5, x}");
    REQUIRE(arr.is<ArrayExpr>());
    CHECK(arr.as<ArrayExpr>()->elements.size() == 3);
    Expression rv = parse_expression("[a, b, c]");
    REQUIRE(rv.is<RowVectorExpr>());
    CHECK(rv.as<RowVectorExpr>()->elements.size() == 3);
    Expression m = parse_expression("[[1, 2], [3, 4]]");
    REQUIRE(m.is<RowVectorExpr>());
    CHECK(m.as<RowVectorExpr>()->elements[1].is<RowVectorExpr>());
    CHECK(print("[[1,2],[3,4]]") == "[[1, 2], [3, 4]]");
    CHECK(print("{{1, 2}, {3, 4}}") == "{{1, 2}, {3, 4}}");
    CHECK(print("[ ]") == "[]");
    CHECK(print("[1, 2]'") == "[1, 2]'");
}

TEST_CASE("expressions carry their source location", "[stan][parser]") {
    Expression e = parse_expression("  a + foo(b)[1]");
    CHECK(e.loc.offset == 2);
    const Binary* b = e.as<Binary>();
    REQUIRE(b);
    CHECK(b->op_loc.offset == 4);
    CHECK(b->rhs->loc.offset == 6);
    CHECK(b->rhs->as<Indexed>()->base->loc.offset == 6);
    CHECK(b->rhs->as<Indexed>()->indices[0].loc.offset == 13);

    Program p = parse_program("data {\n  int N;\n}\nmodel {\n  y ~ normal(0, 1);\n}\n", "m.stan");
    REQUIRE(p.model);
    const Statement& s = p.model->statements[0];
    CHECK(s.loc.offset == 28);
    const Tilde* t = s.as<Tilde>();
    CHECK(t->distribution_loc.offset == 32);
    // Any later stage can point at a node.
    const ParseError err = p.error_at(t->distribution_loc, "unknown distribution");
    CHECK(err.line() == 5);
    CHECK(err.column() == 7);
    CHECK(std::string(err.what()).starts_with("m.stan:5:7: unknown distribution"));
    CHECK(p.data->loc.offset == 0);
    CHECK(p.model->loc.offset == 18);
}

TEST_CASE("assignments with every operator and indexed left-hand sides", "[stan][parser]") {
    const std::pair<std::string, AssignOp> ops[] = {
        {"=",   AssignOp::Assign     },
        {"+=",  AssignOp::Add        },
        {"-=",  AssignOp::Subtract   },
        {"*=",  AssignOp::Multiply   },
        {"/=",  AssignOp::Divide     },
        {".*=", AssignOp::EltMultiply},
        {"./=", AssignOp::EltDivide  },
    };
    for (const auto& [spelling, op] : ops) {
        INFO(spelling);
        Statement s = model_statement("x[i, j] " + spelling + " y + 1;");
        const Assign* a = s.as<Assign>();
        REQUIRE(a);
        CHECK(a->op == op);
        CHECK(to_stan(a->lhs) == "x[i, j]");
        CHECK(to_stan(a->rhs) == "y + 1");
        CHECK(model_print("x[i, j]" + spelling + "y+1;") == "  x[i, j] " + spelling + " y + 1;\n");
    }
    Statement s = model_statement("a[i][j] = 0;");
    CHECK(to_stan(s.as<Assign>()->lhs) == "a[i][j]");
    CHECK(model_print("v[2:N] = w[1:(N - 1)];") == "  v[2:N] = w[1:N - 1];\n");
    // `x == 1` is a comparison, not an assignment.
    CHECK(model_print("b = x == 1;") == "  b = x == 1;\n");
}

TEST_CASE("tilde statements, with and without truncation", "[stan][parser]") {
    Statement s = model_statement("y[n] ~ normal(mu + x[n] * beta, sigma);");
    const Tilde* t = s.as<Tilde>();
    REQUIRE(t);
    CHECK(to_stan(t->lhs) == "y[n]");
    CHECK(t->distribution == "normal");
    CHECK(t->args.size() == 2);
    CHECK_FALSE(t->truncation);

    Statement tr = model_statement("y ~ normal(mu, sigma) T[L, U];");
    REQUIRE(tr.as<Tilde>()->truncation);
    CHECK(to_stan(*tr.as<Tilde>()->truncation->lower) == "L");
    CHECK(to_stan(*tr.as<Tilde>()->truncation->upper) == "U");
    CHECK(model_print("y ~ normal(mu, sigma) T[0, ];") == "  y ~ normal(mu, sigma) T[0, ];\n");
    CHECK(model_print("y ~ normal(mu, sigma) T[, 10];") == "  y ~ normal(mu, sigma) T[, 10];\n");
    CHECK(model_print("y~std_normal();") == "  y ~ std_normal();\n");
    // Any expression on the left.
    CHECK(model_print("(y - mu) / sigma ~ std_normal();") ==
          "  (y - mu) / sigma ~ std_normal();\n");
    // `T` is still an ordinary name.
    CHECK(model_print("T ~ normal(T[1], 1);") == "  T ~ normal(T[1], 1);\n");
}

TEST_CASE("target +=, calls, print, reject, fatal_error, break, continue, return, empty",
          "[stan][parser]") {
    CHECK(model_statement("target += normal_lpdf(y | mu, 1);").is<TargetPlus>());
    const Statement call = model_statement("foo(x, 2);");
    REQUIRE(call.is<CallStatement>());
    CHECK(call.as<CallStatement>()->call.name == "foo");
    CHECK(call.as<CallStatement>()->call.args.size() == 2);

    const Statement pr = model_statement("print(\"x = \", x, \" and \", y[1]);");
    REQUIRE(pr.is<Print>());
    CHECK(pr.as<Print>()->kind == PrintKind::Print);
    REQUIRE(pr.as<Print>()->args.size() == 4);
    CHECK(pr.as<Print>()->args[0].as<StringLiteral>()->value == "x = ");
    CHECK(model_statement("reject(\"bad \", x);").as<Print>()->kind == PrintKind::Reject);
    CHECK(model_statement("fatal_error(\"no\");").as<Print>()->kind == PrintKind::FatalError);
    CHECK(model_statement(";").is<Empty>());
    CHECK(model_print("print(\"a // not a comment\", 1);") ==
          "  print(\"a // not a comment\", 1);\n");
    CHECK(model_print("target += -0.5 * dot_self(x);") == "  target += -0.5 * dot_self(x);\n");

    const std::string loops =
        model_print("while (1) { if (x) break; else continue; }\nfor (i in 1:N) { ; }");
    CHECK(loops ==
          "  while (1) {\n"
          "    if (x)\n"
          "      break;\n"
          "    else\n"
          "      continue;\n"
          "  }\n"
          "  for (i in 1:N) {\n"
          "    ;\n"
          "  }\n");
}

TEST_CASE("for, foreach, while, if / else if / else, blocks and profile", "[stan][parser]") {
    Statement f = model_statement("for (i in 1:N) y[i] ~ normal(0, 1);");
    const For* loop = f.as<For>();
    REQUIRE(loop);
    CHECK(loop->variable == "i");
    CHECK(to_stan(loop->lower) == "1");
    CHECK(to_stan(loop->upper) == "N");
    CHECK(loop->body->is<Tilde>());

    Statement fe = model_statement("for (x in xs) { total += x; }");
    const ForEach* each = fe.as<ForEach>();
    REQUIRE(each);
    CHECK(each->variable == "x");
    CHECK(to_stan(each->container) == "xs");
    CHECK(each->body->is<Block>());

    Statement w = model_statement("while (n < 10) n += 1;");
    REQUIRE(w.is<While>());

    Statement i =
        model_statement("if (a) x = 1; else if (b) x = 2; else if (c) { x = 3; } else x = 4;");
    const If* cond = i.as<If>();
    REQUIRE(cond);
    REQUIRE(cond->branches.size() == 3);
    CHECK(to_stan(cond->branches[2].condition) == "c");
    REQUIRE(cond->otherwise);
    CHECK((*cond->otherwise)->is<Assign>());
    CHECK(model_print("if (a) x = 1; else if (b) x = 2; else if (c) { x = 3; } else x = 4;") ==
          "  if (a)\n"
          "    x = 1;\n"
          "  else if (b)\n"
          "    x = 2;\n"
          "  else if (c) {\n"
          "    x = 3;\n"
          "  } else\n"
          "    x = 4;\n");
    // The dangling else binds to the nearest if; printing keeps it there.
    Statement d = model_statement("if (a) if (b) x = 1; else x = 2;");
    CHECK_FALSE(d.as<If>()->otherwise);
    CHECK(d.as<If>()->branches[0].body->as<If>()->otherwise);
    // And an outer else after an inner open if is printed with braces.
    CHECK(model_print("if (a) { if (b) x = 1; } else x = 2;") ==
          "  if (a) {\n"
          "    if (b)\n"
          "      x = 1;\n"
          "  } else\n"
          "    x = 2;\n");

    Statement b = model_statement("{ real z = 1; vector[3] v; z += 2; }");
    const Block* block = b.as<Block>();
    REQUIRE(block);
    REQUIRE(block->statements.size() == 3);
    CHECK(block->statements[0].is<VarDecl>());
    CHECK(block->statements[1].is<VarDecl>());
    CHECK(block->statements[2].is<Assign>());

    Statement p = model_statement("profile(\"likelihood\") { y ~ normal(mu, 1); }");
    REQUIRE(p.is<Profile>());
    CHECK(p.as<Profile>()->name == "likelihood");
    CHECK(p.as<Profile>()->statements.size() == 1);
    CHECK(model_print("profile(\"lik\") { target += 1; }") ==
          "  profile(\"lik\") {\n"
          "    target += 1;\n"
          "  }\n");
}

TEST_CASE("declarations: every type with its sizes", "[stan][parser]") {
    const std::tuple<std::string, BaseType, std::size_t> cases[] = {
        {"int n;",                            BaseType::Int,                    0},
        {"real x;",                           BaseType::Real,                   0},
        {"vector[N] v;",                      BaseType::Vector,                 1},
        {"row_vector[N] r;",                  BaseType::RowVector,              1},
        {"matrix[N, M] m;",                   BaseType::Matrix,                 2},
        {"simplex[K] s;",                     BaseType::Simplex,                1},
        {"unit_vector[K] u;",                 BaseType::UnitVector,             1},
        {"ordered[K] o;",                     BaseType::Ordered,                1},
        {"positive_ordered[K] p;",            BaseType::PositiveOrdered,        1},
        {"cholesky_factor_corr[K] L;",        BaseType::CholeskyFactorCorr,     1},
        {"cholesky_factor_cov[K] L;",         BaseType::CholeskyFactorCov,      1},
        {"cholesky_factor_cov[M, N] L;",      BaseType::CholeskyFactorCov,      2},
        {"corr_matrix[K] C;",                 BaseType::CorrMatrix,             1},
        {"cov_matrix[K] S;",                  BaseType::CovMatrix,              1},
        {"sum_to_zero_vector[K] z;",          BaseType::SumToZeroVector,        1},
        {"sum_to_zero_matrix[M, N] Z;",       BaseType::SumToZeroMatrix,        2},
        {"row_stochastic_matrix[N, M] P;",    BaseType::RowStochasticMatrix,    2},
        {"column_stochastic_matrix[N, M] P;", BaseType::ColumnStochasticMatrix, 2},
    };
    for (const auto& [text, base, sizes] : cases) {
        INFO(text);
        Program p = parse_program("parameters {\n" + text + "\n}\n");
        const VarDecl* d = p.parameters->statements.at(0).as<VarDecl>();
        REQUIRE(d);
        CHECK(d->type.base == base);
        CHECK(d->type.sizes.size() == sizes);
        CHECK(d->type.dims.empty());
        CHECK(block_of(round_trip("parameters {\n" + text + "\n}\n"), "parameters") ==
              "  " + text + "\n");
    }
}

TEST_CASE("declarations: array dimensions land before the type", "[stan][parser]") {
    const auto decl = [](const std::string& text) {
        Program p = parse_program("data {\n" + text + "\n}\n");
        REQUIRE(p.data->statements.size() == 1);
        return *p.data->statements[0].as<VarDecl>();
    };
    const VarDecl a = decl("array[N, M] real y;");
    CHECK(a.name == "y");
    CHECK(a.type.base == BaseType::Real);
    REQUIRE(a.type.dims.size() == 2);
    CHECK(to_stan(a.type.dims[0]) == "N");
    CHECK(to_stan(a.type.dims[1]) == "M");
    CHECK(to_stan(a.type) == "array[N, M] real");
    const VarDecl e = decl("array[J] vector<lower=0>[K] theta;");
    CHECK(to_stan(e.type) == "array[J] vector<lower=0>[K]");
    // The declaration starts at its first word, its name where it is written.
    CHECK(a.name_loc.offset == std::string("data {\narray[N, M] real ").size());
}

TEST_CASE("declarations: constraints of every kind, either order", "[stan][parser]") {
    const auto type = [](const std::string& text) {
        Program p = parse_program("parameters {\n" + text + " x;\n}\n");
        return p.parameters->statements.at(0).as<VarDecl>()->type;
    };
    SizedType lower = type("real<lower=0>");
    REQUIRE(lower.lower);
    CHECK(to_stan(*lower.lower) == "0");
    CHECK_FALSE(lower.upper);
    SizedType upper = type("real<upper=1>");
    CHECK_FALSE(upper.lower);
    CHECK(to_stan(*upper.upper) == "1");
    SizedType both = type("real<lower=-1, upper=1>");
    CHECK(to_stan(*both.lower) == "-1");
    CHECK(to_stan(*both.upper) == "1");
    SizedType swapped = type("real<upper=b, lower=a>");
    CHECK(to_stan(*swapped.lower) == "a");
    CHECK(to_stan(*swapped.upper) == "b");
    SizedType offset = type("real<offset=mu>");
    CHECK(to_stan(*offset.offset) == "mu");
    SizedType mult = type("vector<multiplier=tau>[J]");
    CHECK(to_stan(*mult.multiplier) == "tau");
    SizedType om = type("vector<multiplier=tau, offset=mu>[J]");
    CHECK(to_stan(*om.offset) == "mu");
    CHECK(to_stan(*om.multiplier) == "tau");
    CHECK(to_stan(om) == "vector<offset=mu, multiplier=tau>[J]");
    SizedType mat = type("matrix<lower=0, upper=1>[N, M]");
    CHECK(to_stan(mat) == "matrix<lower=0, upper=1>[N, M]");
    SizedType rv = type("row_vector<lower=L>[N]");
    CHECK(to_stan(rv) == "row_vector<lower=L>[N]");
    SizedType i = type("int<lower=0, upper=N>");
    CHECK(to_stan(i) == "int<lower=0, upper=N>");
    // A bound is an arithmetic expression: `>` closes the constraint.
    SizedType expr = type("real<lower=min(y) - 2 * sd(y), upper=a[1]^2>");
    CHECK(to_stan(expr) == "real<lower=min(y) - 2 * sd(y), upper=a[1] ^ 2>");
    // A comparison or a conditional needs (and keeps) its parentheses.
    SizedType cmp = type("real<lower=(a > b ? a : b)>");
    CHECK(to_stan(cmp) == "real<lower=(a > b ? a : b)>");
    CHECK(block_of(round_trip("parameters {\n  real<lower=(a > b)> x;\n}\n"), "parameters") ==
          "  real<lower=(a > b)> x;\n");
}

TEST_CASE("declarations: several names, initial values, local declarations", "[stan][parser]") {
    Program p = parse_program(
        "transformed data {\n  real a = 1, b, c = a + 1;\n  array[2] int n = {1, 2}, m;\n}\n");
    const auto& s = p.transformed_data->statements;
    REQUIRE(s.size() == 5);
    CHECK(s[0].as<VarDecl>()->name == "a");
    CHECK(to_stan(*s[0].as<VarDecl>()->initial_value) == "1");
    CHECK(s[1].as<VarDecl>()->name == "b");
    CHECK_FALSE(s[1].as<VarDecl>()->initial_value);
    CHECK(to_stan(*s[2].as<VarDecl>()->initial_value) == "a + 1");
    // Each name gets the whole type, array dimensions included.
    CHECK(to_stan(s[4].as<VarDecl>()->type) == "array[2] int");
    CHECK(s[3].loc.offset == s[4].loc.offset);
    CHECK(block_of(round_trip(to_stan(p)), "transformed data") ==
          "  real a = 1;\n  real b;\n  real c = a + 1;\n  array[2] int n = {1, 2};\n"
          "  array[2] int m;\n");
}

TEST_CASE("each block, in order, and an empty program", "[stan][parser]") {
    Program p = parse_program(
        "functions { real twice(real x) { return 2 * x; } }\n"
        "data { int N; }\n"
        "transformed data { int M = N + 1; }\n"
        "parameters { real mu; }\n"
        "transformed parameters { real nu = twice(mu); }\n"
        "model { mu ~ normal(0, 1); }\n"
        "generated quantities { real z = normal_rng(nu, 1); }\n");
    CHECK(p.functions.size() == 1);
    for (int k = 0; k < kBlockKinds; ++k) {
        INFO(name(static_cast<BlockKind>(k)));
        REQUIRE(p.block(static_cast<BlockKind>(k)));
        CHECK(p.block(static_cast<BlockKind>(k))->statements.size() == 1);
    }
    CHECK(to_stan(p) ==
          "functions {\n"
          "  real twice(real x) {\n"
          "    return 2 * x;\n"
          "  }\n"
          "}\n"
          "data {\n"
          "  int N;\n"
          "}\n"
          "transformed data {\n"
          "  int M = N + 1;\n"
          "}\n"
          "parameters {\n"
          "  real mu;\n"
          "}\n"
          "transformed parameters {\n"
          "  real nu = twice(mu);\n"
          "}\n"
          "model {\n"
          "  mu ~ normal(0, 1);\n"
          "}\n"
          "generated quantities {\n"
          "  real z = normal_rng(nu, 1);\n"
          "}\n");
    Program empty = parse_program("  // nothing\n");
    CHECK(empty.functions.empty());
    CHECK_FALSE(empty.data);
    CHECK_FALSE(empty.model);
    Program only_model = parse_program("model{}");
    REQUIRE(only_model.model);
    CHECK(only_model.model->statements.empty());
    CHECK(to_stan(only_model) == "model {\n}\n");
    // Block names of two words may be split by any space.
    CHECK(parse_program("transformed\n   parameters { }").transformed_parameters);
}

TEST_CASE("functions: return types, data arguments, arrays, forward declarations",
          "[stan][parser]") {
    Program p = parse_program(
        "functions {\n"
        "  real foo(real x, vector y);\n"
        "  real foo(real x, vector y) { return x + sum(y); }\n"
        "  void say(data int n) { print(n); }\n"
        "  array[] real twice(array[] real xs, data array[,] int idx) { return xs; }\n"
        "  array[] real old(array[] real xs, array[,] matrix ms) { return xs; }\n"
        "  vector f_lpdf(vector y, row_vector mu) { return y; }\n"
        "  matrix g(int k) {\n"
        "    matrix[k, k] m;\n"
        "    return m;\n"
        "  }\n"
        "}\n");
    REQUIRE(p.functions.size() == 7);
    const FunctionDef& fwd = p.functions[0];
    CHECK(fwd.name == "foo");
    CHECK_FALSE(fwd.body);
    REQUIRE(fwd.args.size() == 2);
    CHECK(fwd.args[1].type.base == BaseType::Vector);
    CHECK(p.functions[1].body);
    const FunctionDef& say = p.functions[2];
    CHECK_FALSE(say.return_type);
    CHECK(say.args[0].data_only);
    CHECK(say.args[0].type.base == BaseType::Int);
    const FunctionDef& twice = p.functions[3];
    REQUIRE(twice.return_type);
    CHECK(twice.return_type->array_dims == 1);
    CHECK(twice.args[1].data_only);
    CHECK(twice.args[1].type.array_dims == 2);
    const FunctionDef& old = p.functions[4];
    CHECK(old.return_type->array_dims == 1);
    CHECK(old.args[0].type.array_dims == 1);
    CHECK(old.args[1].type.array_dims == 2);
    CHECK(old.args[1].type.base == BaseType::Matrix);
    CHECK(old.name_loc.offset == p.text.find("old"));
    CHECK(to_stan(p.functions[0]) == "real foo(real x, vector y);\n");
    CHECK(to_stan(p.functions[4]) ==
          "array[] real old(array[] real xs, array[,] matrix ms) {\n  return xs;\n}\n");
    CHECK(to_stan(p.functions[3]) ==
          "array[] real twice(array[] real xs, data array[,] int idx) {\n  return xs;\n}\n");
    round_trip(p.text);
}

TEST_CASE("comments of every kind, whitespace", "[stan][parser]") {
    Program p = parse_program(
        "// line comment\n"
        "/* block\n   comment */ data { int N; // another\n"
        "  real/*inline*/x; }\r\n"
        "\tmodel{ }");
    REQUIRE(p.data);
    CHECK(p.data->statements.size() == 2);
    CHECK(p.model);
    // A byte order mark is skipped; offsets still count from the first byte.
    Program bom = parse_program("\xEF\xBB\xBFmodel { }");
    REQUIRE(bom.model);
    CHECK(bom.model->loc.offset == 3);
}

TEST_CASE("the classic programs parse, and print -> parse -> print is stable", "[stan][parser]") {
    const std::filesystem::path dir =
        std::filesystem::path(ADVI_SOURCE_DIR) / "tests/dsl/stan/programs";
    const char* names[] = {
        "eight_schools_centered.stan",
        "eight_schools_noncentered.stan",
        "radon_varying_intercept.stan",
        "logistic_regression.stan",
        "mixture.stan",
        "stochastic_volatility.stan",
        "gamma_poisson_factorization.stan",
    };
    for (const char* file : names) {
        INFO(file);
        std::ifstream in(dir / file);
        REQUIRE(in);
        std::stringstream text;
        text << in.rdbuf();
        Program p = parse_program(text.str(), file);
        CHECK(p.file == file);
        CHECK(p.model);
        CHECK_FALSE(p.model->statements.empty());
        round_trip(text.str());
    }

    std::ifstream in(dir / "eight_schools_noncentered.stan");
    std::stringstream text;
    text << in.rdbuf();
    const Program p = parse_program(text.str(), "eight_schools_noncentered.stan");
    REQUIRE(p.parameters->statements.size() == 4);
    const VarDecl* theta = p.parameters->statements[3].as<VarDecl>();
    CHECK(to_stan(*theta->type.offset) == "mu");
    CHECK(to_stan(*theta->type.multiplier) == "tau");
    CHECK(block_of(to_stan(p), "generated quantities") ==
          "  vector[J] y_rep;\n"
          "  for (j in 1:J)\n"
          "    y_rep[j] = normal_rng(theta[j], sigma[j]);\n");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("stanc's leniencies: a lone declaration, empty statements, `{a, b} ~`",
          "[stan][parser]") {
    // a declaration as the body of for/if is a block of its own (its variables local to it)
    const Program p = parse_program("model { for (i in 1:N) real x = 1, y; }", "t.stan");
    const auto* loop = p.model->statements.at(0).as<For>();
    REQUIRE(loop != nullptr);
    const auto* body = loop->body->as<Block>();
    REQUIRE(body != nullptr);
    CHECK(body->statements.size() == 2);
    CHECK(body->statements[0].is<VarDecl>());
    // empty statements in the data and parameters blocks are nothing
    const Program q = parse_program("data { ; real x;; }\nparameters { real y;;; }", "t.stan");
    CHECK(q.data->statements.size() == 1);
    CHECK(q.parameters->statements.size() == 1);
    // braces holding expressions and followed by `~` are an array expression; a block otherwise
    const Program r =
        parse_program("model { {1.5, x} ~ normal(0, 1); { x ~ normal(0, 1); } }", "t.stan");
    CHECK(r.model->statements.at(0).is<Tilde>());
    CHECK(r.model->statements.at(1).is<Block>());
}

}  // namespace advi::stan
