// The compiler's first pass: a node whose value is a contiguous run of another's (a slice, a
// reshape: the op table's `alias` column) is no instruction; it reads its source's buffer at an
// offset. Chains of aliases resolve to the first node that owns a buffer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <advi/graph/graph.hpp>

namespace advi {

struct Aliases {
    const Graph* graph = nullptr;
    std::vector<bool> live;           // live_nodes(graph)
    std::vector<bool> alias;          // reads another node's buffer
    std::vector<NodeId> source;       // the node owning the buffer (itself if not an alias)
    std::vector<std::int64_t> start;  // offset of the value in the source's buffer

    // One line per alias: `%7 vec[3] = %2 +4` (source and offset), or "(none)".
    [[nodiscard]] std::string str() const;
};

[[nodiscard]] Aliases find_aliases(const Graph& g);

}  // namespace advi
