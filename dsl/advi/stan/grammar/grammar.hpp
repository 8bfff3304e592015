// The Stan grammar's rules shared between its translation units (expression.cpp,
// statement.cpp, declaration.cpp, program.cpp), the one context they are instantiated for,
// and the tokens. Private to dsl/stan.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/spirit/home/x3.hpp>

#include <advi/stan/ast.hpp>

#include <advi/stan/grammar/lexical.hpp>

namespace advi::stan::grammar {

// Every rule is instantiated for this one context: the skipper and the ParseState.
using SkipperContext = x3::context<x3::skipper_tag, const Skipper, x3::unused_type>;
using Context = x3::context<state_tag, ParseState, SkipperContext>;

// ---- Rules defined in one translation unit and used in others.

// expression.cpp
using ExpressionRule = x3::rule<class expression_id, Term>;
using AdditiveRule = x3::rule<class additive_id, Term>;  // no comparisons: a bound in `<...>`
using ExpressionListRule = x3::rule<class expression_list_id, std::vector<Term>>;
// declaration.cpp
using DeclarationRule = x3::rule<class declaration_id, std::vector<Statement>>;
// statement.cpp
using StatementRule = x3::rule<class statement_id, Statement>;
using StatementsRule = x3::rule<class statements_id, std::vector<Statement>>;
// program.cpp: the program and the last block read (to check the order of the blocks).
struct ProgramParts {
    Program program;
    int last_section = -1;  // 0 functions, then 1 + BlockKind
    bool has_functions = false;
};
using ProgramRule = x3::rule<class program_id, ProgramParts>;

BOOST_SPIRIT_DECLARE(ExpressionRule, AdditiveRule, ExpressionListRule, DeclarationRule,
                     StatementRule, StatementsRule, ProgramRule)

// The names are what an expectation failure reports: "expected an expression".
inline const ExpressionRule expression{"an expression"};
inline const AdditiveRule additive{"an expression"};
inline const ExpressionListRule expression_list{"an expression"};
inline const DeclarationRule declaration{"a type (int, real, vector, ...)"};
inline const StatementRule statement{"a statement"};
inline const StatementsRule statements{"a statement"};
inline const ProgramRule program{"a program"};

// ---- Tokens

inline constexpr Token semicolon{";"};
inline constexpr Token comma{","};
inline constexpr Token lparen{"("};
inline constexpr Token rparen{")"};
inline constexpr Token lbracket{"["};
inline constexpr Token rbracket{"]"};
inline constexpr Token lbrace{"{"};
inline constexpr Token rbrace{"}"};
inline constexpr Token langle{"<"};
inline constexpr Token rangle{">"};
inline constexpr Token colon{":"};
inline constexpr Token question{"?"};
inline constexpr Token bar{"|", "|"};
inline constexpr Token tilde{"~"};
inline constexpr Token equals{"=", "="};
inline constexpr Token plus_equals{"+="};
inline constexpr Token quote{"'"};

inline constexpr WordOf<BaseType> base_type_words[] = {
    {"int",                      BaseType::Int                   },
    {"real",                     BaseType::Real                  },
    {"vector",                   BaseType::Vector                },
    {"row_vector",               BaseType::RowVector             },
    {"matrix",                   BaseType::Matrix                },
    {"simplex",                  BaseType::Simplex               },
    {"unit_vector",              BaseType::UnitVector            },
    {"ordered",                  BaseType::Ordered               },
    {"positive_ordered",         BaseType::PositiveOrdered       },
    {"cholesky_factor_corr",     BaseType::CholeskyFactorCorr    },
    {"cholesky_factor_cov",      BaseType::CholeskyFactorCov     },
    {"corr_matrix",              BaseType::CorrMatrix            },
    {"cov_matrix",               BaseType::CovMatrix             },
    {"sum_to_zero_vector",       BaseType::SumToZeroVector       },
    {"sum_to_zero_matrix",       BaseType::SumToZeroMatrix       },
    {"row_stochastic_matrix",    BaseType::RowStochasticMatrix   },
    {"column_stochastic_matrix", BaseType::ColumnStochasticMatrix},
    {"complex",                  BaseType::Complex               },
    {"complex_vector",           BaseType::ComplexVector         },
    {"complex_row_vector",       BaseType::ComplexRowVector      },
    {"complex_matrix",           BaseType::ComplexMatrix         },
};
inline constexpr WordTable<BaseType> base_type{base_type_words, "a type (int, real, vector, ...)"};

inline constexpr Keyword kw_array{"array"};
inline constexpr Position pos{};
inline constexpr DeclaredName declared_name{};

// ---- Helpers for actions

namespace fusion = boost::fusion;

// Moves a Term's expression out.
inline Expression take(Term& t) {
    return std::move(t.e);
}
inline std::optional<Expression> take(boost::optional<Term>& t) {
    if (!t)
        return std::nullopt;
    return std::move(t->e);
}
inline std::vector<Expression> take(std::vector<Term>& ts) {
    std::vector<Expression> out;
    out.reserve(ts.size());
    for (Term& t : ts) out.push_back(std::move(t.e));
    return out;
}

}  // namespace advi::stan::grammar
