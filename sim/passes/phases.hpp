// DUET's coarse-grained multi-phase partitioning (zhang2021 §IV-A): the graph as a totally
// ordered sequence of phases, alternating sequential (one subgraph) and multi-path (several
// independent subgraphs), one level deep.
//
// How the phases are found (the paper gives the definition, not an algorithm):
//   1. An op is a cut op when every other op is its ancestor or its descendant: every path
//      through the graph passes it. Cut ops are totally ordered, and every other op lies in
//      the region between two consecutive ones (or before the first, after the last).
//   2. In a region, the sources are its ops with no predecessor inside it. Each op is labelled
//      with the sources it depends on: an op with one source belongs to that source's branch;
//      an op with several is a merge op (it joins branches, and everything after it does too).
//   3. A branch is worth a device of its own only if it computes: it holds a Conv, a matrix
//      product or a recurrent op. Branches without one (an attention mask's casts, an
//      embedding's Gather) fold into the merge that reads them, as a module boundary would.
//   4. A region with two or more computing branches is a multi-path phase of them when they
//      are independent modules: they start from graph inputs (Wide-and-Deep's towers,
//      Siamese's branches) or never re-join (MT-DNN's heads), and their join only combines
//      results (no compute op among its merge ops and the cut op after them); its merge ops
//      open the next sequential phase. A fork of one activation that re-joins (a ResNet block
//      and its downsample, attention's Q/K/V) is parallelism inside a module, finer than
//      DUET's subgraphs (§III: "a relatively high computational granularity"): its region
//      stays sequential. The cut ops, the merge ops and the other regions form sequential
//      phases; consecutive sequential pieces are one phase.
// Subgraphs list their ops in the graph's topological order.
#pragma once

#include <string>
#include <vector>

#include "sim/graph.hpp"

namespace hetsim::sim::passes {

struct Subgraph {
    std::vector<int> ops;  // op ids, topological order
};

struct Phase {
    bool multi_path = false;
    std::vector<Subgraph> subgraphs;  // one for a sequential phase
};

std::vector<Phase> partition_phases(const Graph& graph);

// One line per phase and subgraph: its kind, its ops' common name prefix, op count, FLOPs.
std::string describe_phases(const Graph& graph, const std::vector<Phase>& phases);

}  // namespace hetsim::sim::passes
