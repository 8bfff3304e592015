// The op table: one row per op (name, arity, shape rule, elementwise, kernel, adjoint rule,
// test domain, and what the compiler's passes need to know of it: scratch, aliasing, loops,
// threads). Adding an op means adding an enumerator here and a row in op_table.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <advi/graph/shape.hpp>

namespace advi {

enum class Op : std::uint8_t {
    // leaves
    Const,
    Data,
    Param,
    Zeta,
    // elementwise unary
    Neg,
    Exp,
    Log,
    Log1p,
    Expm1,
    Sqrt,
    Square,
    InvLogit,
    LogInvLogit,
    Log1pExp,
    Lgamma,
    Digamma,
    Trigamma,
    ToReal,
    // elementwise binary, scalars broadcast
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    // scalar functions: elementwise; unary, then binary with scalars broadcast
    Step,
    Fabs,
    Sin,
    Cos,
    Tanh,
    Cbrt,
    Erf,
    Erfc,
    Phi,
    LogPhi,
    Log1mExp,
    LogBesselI0,
    BesselI1OverI0,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Atanh,
    Tgamma,
    Floor,
    Ceil,
    Round,
    Trunc,
    LambertW0,
    LambertWm1,
    InvErfc,
    Fmin,
    Fmax,
    Lmultiply,
    Atan2,
    Hypot,
    Fmod,
    OwensT,
    Polygamma,
    // Bessel functions of integer order v (input 0, a constant) of x (ops_math.hpp)
    BesselJ,
    BesselY,
    BesselI,
    BesselK,
    // log of the Wiener first-passage time density in (u, w) and its derivatives (ops_wiener.hpp)
    WienerLogF,
    WienerLogFDu,
    WienerLogFDw,
    WienerLogFDuu,
    WienerLogFDuw,
    WienerLogFDww,
    // log of the Wiener first-passage time distribution function (either tail) in (u, w, c),
    // its gradient (attribute `index`) and Hessian (ops_wiener_cdf.hpp)
    WienerLogCdf,
    WienerLogCdfHessian,
    // the same averaged over drift variability, in (u, w, [m; s]) (ops_wiener_cdf.hpp)
    WienerLogCdfSv,
    WienerLogCdfSvHessian,
    // log of the regularised incomplete gamma and beta functions, their gradients (attribute
    // `index`) and Hessians (ops_incomplete.hpp)
    LogIncGamma,
    LogIncGammaHessian,
    LogIncBeta,
    LogIncBetaHessian,
    // log I_v(z), the inverse of the regularised incomplete beta function, Stan's von Mises CDF
    // in log (either tail), their gradients (attribute `index`) and Hessians (ops_special.hpp)
    LogBesselI,
    LogBesselIHessian,
    InvIncBeta,
    InvIncBetaHessian,
    VonMisesLogCdf,
    VonMisesLogCdfHessian,
    // pFq(a; b; z) of vectors a and b, scalar z (ops_special.hpp)
    HypergeometricPFq,
    HypergeometricPFqGrad,
    HypergeometricPFqHvp,
    // reductions, linear algebra, indexing
    Sum,
    Broadcast,
    Dot,
    MatVec,
    MatTVec,
    Outer,
    Gather,
    ScatterAdd,
    // linear algebra, reductions, slicing
    MatMul,
    MatTMul,
    MatMulT,
    Transpose,
    DiagMatrix,
    Diagonal,
    Tril,
    Cholesky,
    CholeskyAdjoint,
    TriLowSolve,
    TriLowTSolve,
    LogDeterminant,
    Determinant,
    Inverse,
    LogSumExp,
    LogSumExpRows,
    LogSumExpCols,
    LseShiftRows,
    CumulativeSum,
    ReverseCumulativeSum,
    Prod,
    ProdOthers,
    ProdOthersVjp,
    Min,
    Max,
    Block,
    Embed,
    Reshape,
    AppendRow,
    AppendCol,
    RepCols,
    RepRows,
    RowSums,
    ColSums,
    GatherRows,
    ScatterAddRows,
    TileRows,
    TileSumRows,
    // transforms: a constant vector leaf, fused constrain ops, their vector-Jacobian
    // products, Jacobian-vector products and second directional derivatives (ops_constrain.hpp)
    ConstVector,
    SimplexConstrain,
    SimplexConstrainVjp,
    SimplexConstrainJvp,
    SimplexConstrainHvp,
    OrderedConstrain,
    OrderedConstrainVjp,
    OrderedConstrainJvp,
    OrderedConstrainHvp,
    PositiveOrderedConstrain,
    PositiveOrderedConstrainVjp,
    PositiveOrderedConstrainJvp,
    PositiveOrderedConstrainHvp,
    CholeskyCorrConstrain,
    CholeskyCorrConstrainVjp,
    CholeskyCorrConstrainJvp,
    CholeskyCorrConstrainHvp,
    CholeskyCovConstrain,
    CholeskyCovConstrainVjp,
    CholeskyCovConstrainJvp,
    CholeskyCovConstrainHvp,
    LowerTriSelfTranspose,
    LowerTriSelfTransposeVjp,
    LowerTriSelfTransposeJvp,
    LowerTriSelfTransposeHvp,
    // random draws for generated quantities: quantile functions of uniforms (ops_random.hpp)
    GammaQuantile,
    BetaQuantile,
    StudentTQuantile,
    VonMisesQuantile,
    PoissonQuantile,
    BinomialQuantile,
    NegBinomial2Quantile,
    // first-order linear recurrences (ops_scan.hpp)
    LinearScan,
    LinearScanReverse,
    // the solution of an ODE initial-value problem and its vector-Jacobian product (ops_ode.hpp)
    OdeSolve,
    OdeSolveVjp,
    AlgebraSolve,
    AlgebraSolveVjp,
    Integrate1d,
    Integrate1dGrad,
    EigenvaluesSym,
    EigenvectorsSym,
    // Stan's hidden Markov model functions (ops_hmm.hpp)
    HmmMarginal,
    HmmGrad,
    HmmLatent,
    // exp(A) of a square matrix (ops_matrix_exp.hpp)
    MatrixExp,
    // a loop over a body of its own, and its vector-Jacobian product (ops_loop.hpp)
    Loop,
    LoopVjp,
    // a where c != 0 else b, elementwise (ops_select.hpp)
    Select,
    // indexing by an int known only per draw (ops_dynamic_index.hpp)
    DynGather,
    DynScatter,
    // a declared constraint checked: 0 or -inf (constraint_check.hpp)
    CheckConstraint,
    // permutations that sort a key (ops_sort.hpp)
    SortGather,
    SortScatter,
    ArgSort,
    Count_
};
inline constexpr int kOpCount = static_cast<int>(Op::Count_);

class Graph;
struct Node;
using NodeId = std::int32_t;

// A read-only view of a kernel input: real values, or int values for integer data.
struct View {
    const double* x = nullptr;
    const int* i = nullptr;
    int rows = 1;
    int cols = 1;
    [[nodiscard]] int size() const { return rows * cols; }
};

struct KernelArgs {
    std::array<View, 3> in;
    double* out = nullptr;
    int out_rows = 1;
    int out_cols = 1;
    const Node* node = nullptr;  // attributes (Const value, ...)
    double* scratch = nullptr;   // OpInfo::scratch(node) doubles the kernel may overwrite
    [[nodiscard]] int out_size() const { return out_rows * out_cols; }
};

using Kernel = void (*)(const KernelArgs&);
// Shape of the node `proto` (whose inputs are set) or a ShapeError naming the op.
using ShapeRule = Shape (*)(const Graph& g, const Node& proto);
// Adjoint rule: given the node `self` and the adjoint `adj` of its output, the adjoint
// contribution for each input (kNoNode: none). A contribution may have the node's shape
// where the input was broadcast from a scalar; the reverse pass sums it back.
using AdjointRule = void (*)(Graph& g, NodeId self, NodeId adj, std::array<NodeId, 3>& contrib);
// Scalar evaluation of elementwise ops, used for constant folding and tests.
using Fold = double (*)(double a, double b);
// Doubles of scratch space a kernel needs for the node (factorisations), so that no kernel
// allocates: the program lays it out in its arena.
using ScratchRule = std::int64_t (*)(const Graph& g, const Node& n);

// Whether the node's value is a contiguous run of its input's values (a vector slice, a range
// of whole columns, a reshape), so that the compiler's aliases pass lets it read the input's
// buffer instead of copying: the run's start in the input, or -1.
using AliasRule = std::int64_t (*)(const Graph& g, const Node& n);

// How a fused loop (compile/loops) computes the op block by block over n values. Elementwise
// ops are Elementwise by their `elementwise` column; the `loop` column gives the others.
enum class LoopForm : std::uint8_t {
    None,         // runs as an instruction of its own
    Elementwise,  // its kernel on the block; every input of the loop's length at the block
    Gather,       // v[idx]: the indices (input 1) at the block's offset, v whole
    RowsMatVec,   // A x: the block's rows of A read in place, x whole
    RepCols,      // out(i, j) = v(i): index-mapped reads of the whole input
    RepRows,      // out(i, j) = v(j)
    TileRows,     // out(i, j) = x(i mod x's rows, j)
    Fill,         // a scalar broadcast
    Embed,        // the input placed at an offset, zeros around it
    // Loop roots that accumulate over the loop's values instead of storing them block by block:
    Sum,         // sum of the input
    ScatterAdd,  // the input (at the block's offset) added at data indices (at the block's offset)
    RowsTVec,    // A' r, the block's rows of A times the block of r, added up
    RowSums,     // a matrix's row sums: the block's values (column-major) added at their rows
    TileSum,     // the sum of a matrix's row tiles: value (i, j) added at (i mod rows, j)
    ColSums,     // a matrix's column sums: the block's values added at their columns
};
// Whether this node of the op can take its loop form (a gather from data indices, an embed
// that places one contiguous run); nullptr: every node can.
using LoopFits = bool (*)(const Graph& g, const Node& n);

// How a long instruction of the op splits over threads (Program: each part's columns).
enum class ThreadSplit : std::uint8_t {
    None,
    OutCols,    // by input 1's columns, the output's columns (A B, A' B)
    OutRows,    // by input 0's columns, the output's rows (A' x)
    InnerSum,   // by input 0's columns and input 1's rows (A x); partial outputs summed
    InnerSumT,  // by input 0's and input 1's columns (A B'); partial outputs summed
};

// Where finite-difference tests draw each op's inputs.
// Negative: (-inf, 0), e.g. log1m_exp.
enum class Domain : std::uint8_t { Real, Positive, Unit, Negative, None };

struct OpInfo {
    Op op;
    std::string_view name;
    int arity;
    bool elementwise;
    ShapeRule shape;
    Kernel kernel;
    AdjointRule adjoint;  // nullptr: not differentiable (the reverse pass names the op)
    Fold fold;            // nullptr unless elementwise
    Domain domain;
    ScratchRule scratch = nullptr;  // nullptr: no scratch
    AliasRule alias = nullptr;      // nullptr: never an alias of its input
    LoopForm loop = LoopForm::None;
    LoopFits loop_fits = nullptr;
    ThreadSplit split = ThreadSplit::None;
};

[[nodiscard]] const OpInfo& op_info(Op op);
// How a fused loop computes the op: Elementwise for an elementwise op, else its `loop` column.
[[nodiscard]] LoopForm loop_form(Op op);
[[nodiscard]] std::string_view op_name(Op op);
// Why an op with inputs has no adjoint rule (empty for an op that has one): each such op is
// either never on a parameter's path or reached only by a third differentiation
// (op_table.cpp, beside the rows).
[[nodiscard]] std::string_view no_derivative_reason(Op op);

}  // namespace advi
