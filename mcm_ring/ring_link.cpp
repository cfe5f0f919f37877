#include "mcm_ring/ring_link.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <utility>

#include "interconnect/dma_link.hpp"
#include "sim/yaml_params.hpp"

namespace hetsim::mcm_ring {

RingLinkModel::RingLinkModel(double latency_s, double bandwidth_Bps)
    : latency_s_(latency_s), bandwidth_Bps_(bandwidth_Bps) {
    if (!(bandwidth_Bps_ > 0.0) || latency_s_ < 0.0)
        throw std::invalid_argument("ring_link: bandwidth must be > 0 and latency >= 0");
}

void build_ring_link(const sim::ConfigNode& node, const std::string& name,
                     sim::Platform& platform) {
    node.expect_map();
    for (const char* key : {"backward", "one_way"}) {
        if (node.has(key)) {
            node[key].fail(fmt::format(
                "a ring_link is one-way (endpoints[0] -> endpoints[1]) and takes no '{}'; "
                "declare the other direction as a ring_link of its own",
                key));
        }
    }
    node.expect_keys({"type", "endpoints", "bandwidth", "latency", "arbitration"});
    auto [a, b] = interconnect::parse_endpoints(node);
    sim::Link link;
    link.name = name;
    link.endpoint_a = std::move(a);
    link.endpoint_b = std::move(b);
    link.model = std::make_shared<RingLinkModel>(
        sim::non_negative_time(node, "latency"),
        node.require_positive_quantity("bandwidth", sim::Quantity::bandwidth));
    link.one_way = true;
    link.arbitration = interconnect::parse_arbitration(node);
    platform.add_link(std::move(link));
}

}  // namespace hetsim::mcm_ring
