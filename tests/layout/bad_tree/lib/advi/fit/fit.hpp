// The fit layer may include the graph.
#include <advi/graph/node.hpp>
