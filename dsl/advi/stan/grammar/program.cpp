// A Stan program: the functions block (definitions and forward declarations) and the six
// blocks, each at most once and in order; the data and parameters blocks only declare.
#include <advi/stan/grammar/grammar.hpp>

namespace advi::stan::grammar {
namespace {

std::string_view section_name(int section) {
    return section == 0 ? std::string_view("functions") : name(static_cast<BlockKind>(section - 1));
}

void check_order(const ParseState& state, const ProgramParts& parts, int section, Loc loc) {
    const bool seen = section == 0
                          ? parts.has_functions
                          : parts.program.block(static_cast<BlockKind>(section - 1)).has_value();
    if (seen)
        throw SyntaxError{state.at(loc),
                          fmt::format("the `{}` block appears twice", section_name(section))};
    if (section < parts.last_section)
        throw SyntaxError{state.at(loc),
                          fmt::format("the `{}` block must come before the `{}` block",
                                      section_name(section), section_name(parts.last_section))};
}

void add_block(const ParseState& state, ProgramParts& parts, const BlockHead& head,
               std::vector<Statement> statements) {
    const int section = 1 + static_cast<int>(head.kind);
    check_order(state, parts, section, head.loc);
    if (head.kind == BlockKind::Data || head.kind == BlockKind::Parameters) {
        // empty statements (`real x;;`) are nothing, as stanc reads them
        std::erase_if(statements, [](const Statement& s) { return s.is<Empty>(); });
        for (const Statement& s : statements) {
            const auto* decl = s.as<VarDecl>();
            if (!decl)
                throw SyntaxError{
                    state.at(s.loc),
                    fmt::format("the {} block can only declare variables", name(head.kind))};
            if (decl->initial_value)
                throw SyntaxError{state.at(decl->initial_value->loc),
                                  fmt::format("a variable of the {} block cannot be given a value",
                                              name(head.kind))};
        }
    }
    parts.program.block(head.kind) = ProgramBlock{head.loc, std::move(statements)};
    parts.last_section = section;
}

void add_functions(const ParseState& state, ProgramParts& parts, Loc loc,
                   std::vector<FunctionDef> functions) {
    check_order(state, parts, 0, loc);
    parts.program.functions = std::move(functions);
    parts.has_functions = true;
    parts.last_section = 0;
}

// After the last block: the end, or an error that says what is there instead.
struct EndOfProgram : x3::parser<EndOfProgram> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        x3::skip_over(first, last, ctx);
        if (first == last)
            return true;
        const std::string_view w = word_at(first, last);
        if (w == "transformed")
            throw SyntaxError{first + w.size(),
                              "expected `data` or `parameters` after `transformed`", false};
        if (w == "generated")
            throw SyntaxError{first + w.size(), "expected `quantities` after `generated`", false};
        if (!w.empty())
            throw SyntaxError{first, fmt::format("unknown block `{}` (the blocks are, in this "
                                                 "order: functions, data, transformed data, "
                                                 "parameters, transformed parameters, model, "
                                                 "generated quantities)",
                                                 w)};
        throw SyntaxError{first,
                          "expected a program block (functions, data, transformed data, "
                          "parameters, transformed parameters, model, generated quantities)",
                          false};
    }
};

// ---- Actions

const auto set = [](auto& ctx) { x3::_val(ctx) = std::move(x3::_attr(ctx)); };
const auto push = [](auto& ctx) { x3::_val(ctx).push_back(std::move(x3::_attr(ctx))); };

const auto functions_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    add_functions(state_of(ctx), x3::_val(ctx), fusion::at_c<0>(a), std::move(fusion::at_c<1>(a)));
};
const auto block_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    add_block(state_of(ctx), x3::_val(ctx), fusion::at_c<0>(a), std::move(fusion::at_c<1>(a)));
};

const auto function_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    Name& name = at_c<2>(a);
    x3::_val(ctx) = FunctionDef{at_c<0>(a), std::move(at_c<1>(a)), std::move(name.name),
                                name.loc,   std::move(at_c<3>(a)), std::move(at_c<4>(a))};
};
const auto argument_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) =
        Argument{at_c<0>(a), at_c<1>(a), std::move(at_c<2>(a)), std::move(at_c<3>(a).name)};
};
const auto tuple_parts = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    auto& v = x3::_val(ctx);
    v.base = BaseType::Tuple;
    v.parts.push_back(std::move(at_c<0>(a)));
    if (at_c<1>(a))
        for (UnsizedType& p : *at_c<1>(a)) v.parts.push_back(std::move(p));
};
const auto array_dim = [](auto& ctx) { x3::_val(ctx).array_dims = 1; };
const auto type_base = [](auto& ctx) { x3::_val(ctx).base = x3::_attr(ctx); };
const auto add_dim = [](auto& ctx) { ++x3::_val(ctx).array_dims; };
const auto old_array_type = [](auto& ctx) {
    throw SyntaxError{state_of(ctx).at(x3::_attr(ctx)),
                      "array types after the element type (`real[]`) were removed from Stan "
                      "(2.33): write `array[] real`"};
};
const auto set_base = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    const BaseType base = fusion::at_c<1>(a);
    switch (base) {
        case BaseType::Int:
        case BaseType::Real:
        case BaseType::Vector:
        case BaseType::RowVector:
        case BaseType::Matrix:
        case BaseType::Complex:
        case BaseType::ComplexVector:
        case BaseType::ComplexRowVector:
        case BaseType::ComplexMatrix: x3::_val(ctx) = base; return;
        default:
            throw SyntaxError{state_of(ctx).at(fusion::at_c<0>(a)),
                              fmt::format("`{}` is not a type for function arguments and results "
                                          "(int, real, complex, vector, row_vector, matrix, their "
                                          "complex forms, and arrays of them)",
                                          name(base))};
    }
};

// ---- Rules

inline constexpr Keyword kw_functions{"functions"};
inline constexpr Keyword kw_void{"void"};
inline constexpr Keyword kw_data{"data"};
inline constexpr Keyword kw_tuple{"tuple"};

const x3::rule<class function_def_id, FunctionDef> function_def{
    "a function definition (a return type: void, int, real, vector, ...)"};
const x3::rule<class return_type_id, std::optional<UnsizedType>> return_type{
    "a return type (void, int, real, vector, ...)"};
const x3::rule<class unsized_type_id, UnsizedType> unsized_type{
    "a type (int, real, vector, row_vector, matrix)"};
const x3::rule<class unsized_base_id, BaseType> unsized_base{
    "a type (int, real, vector, row_vector, matrix)"};
const x3::rule<class arguments_id, std::vector<Argument>> arguments{"an argument"};
const x3::rule<class argument_id, Argument> argument{
    "an argument type (int, real, vector, row_vector, matrix)"};
const x3::rule<class function_body_id, std::optional<Statement>> function_body{
    "a function body `{ ... }` or `;`"};

const auto program_def = *((pos >> kw_functions > lbrace > *((!rbrace >> !x3::eoi) > function_def) >
                            rbrace)[functions_action] |
                           (BlockName{} > lbrace > statements > rbrace)[block_action]) >>
                         EndOfProgram{};

const auto function_def_def = (pos >> return_type > declared_name > lparen > arguments > rparen >
                               function_body)[function_action];
const auto return_type_def = kw_void | (unsized_type[set]);
// `array[,] real`; the old `real[,]` is refused with the new spelling.
// `tuple(real, array[] int)`; `data` inside a tuple is an error (it applies to the whole).
const auto unsized_type_def =
    (kw_array[array_dim] > lbracket > *comma[add_dim] > rbracket >
     ((kw_tuple > lparen > unsized_type > comma > -(unsized_type % comma) > rparen)[tuple_parts] |
      unsized_base[type_base])) |
    (kw_tuple > lparen > unsized_type > comma > -(unsized_type % comma) > rparen)[tuple_parts] |
    (unsized_base[type_base] >> -(pos >> lbracket)[old_array_type]);
const auto unsized_base_def = (pos >> base_type)[set_base];
const auto arguments_def = -(argument[push] > *(comma > argument[push]));
const auto argument_def =
    (pos >> x3::matches[kw_data] >> unsized_type > declared_name)[argument_action];
// Stan's body is a block: `real f() reject("");` is refused.
const auto function_body_def = semicolon | (&lbrace > statement[set]);

BOOST_SPIRIT_DEFINE(function_def, return_type, unsized_type, unsized_base, arguments, argument,
                    function_body)

}  // namespace

BOOST_SPIRIT_DEFINE(program)
BOOST_SPIRIT_INSTANTIATE(ProgramRule, Iterator, Context)

}  // namespace advi::stan::grammar
