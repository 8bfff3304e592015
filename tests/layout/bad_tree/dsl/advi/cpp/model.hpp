// The C++ DSL may not include the Stan front end; nor an include without its file.
#include <advi/stan/ast.hpp>
#include <advi/missing/file.hpp>
