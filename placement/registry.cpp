// The placer registry: each family registers its placers in its own folder through one
// function, register_placers(PlacerRegistry&), and instance() calls each family's once, so a
// new placer is one new file plus one registration line in its family (docs/DESIGN.md "The
// flow of data"). mcm.rl, in a library of its own (libtorch), is added by the app.
#include <fmt/format.h>

#include <iostream>
#include <mutex>
#include <set>
#include <stdexcept>

#include "placement/families.hpp"
#include "placement/placer.hpp"
#include "placement/placer_args.hpp"

namespace hetsim::placement {

PlacerRegistry& PlacerRegistry::instance() {
    // Filled on first use (thread-safe static initialisation), not by static constructors in
    // each placer's file: those would be dropped by the linker from a static library.
    static PlacerRegistry registry = [] {
        PlacerRegistry r;
        classic::register_placers(r);
        lee2022::register_placers(r);
        tarnawski::register_placers(r);
        mcm::register_placers(r);
        duet::register_placers(r);
        eop::register_placers(r);
        baechi::register_placers(r);
        return r;
    }();
    return registry;
}

PlacerRegistry::Family PlacerRegistry::family(const std::string& name,
                                              const std::string& description) {
    for (auto& f : families_) {
        if (f.name == name) {
            if (f.description.empty())
                f.description = description;
            return Family(*this, name);
        }
    }
    families_.push_back({name, description});
    return Family(*this, name);
}

PlacerRegistry::Family& PlacerRegistry::Family::add(PlacerInfo info) {
    // Programming errors in a registration function, caught by the registry tests. A family's
    // main placer may carry the family's name alone (`eop`, as xu2022 names its method).
    if (name_ != kClassicFamily && info.name != name_ && info.name.rfind(name_ + ".", 0) != 0) {
        throw std::logic_error(
            fmt::format("placer '{}' lacks its family prefix '{}.'", info.name, name_));
    }
    if (name_ == kClassicFamily && info.name.find('.') != std::string::npos)
        throw std::logic_error(fmt::format("classic placer '{}' has a prefix", info.name));
    if (registry_.deprecated_.count(info.name) != 0)
        throw std::logic_error(fmt::format("placer '{}' is a deprecated name", info.name));
    for (const std::string& old : info.deprecated_names) {
        if (registry_.placers_.count(old) != 0 || registry_.deprecated_.count(old) != 0)
            throw std::logic_error(fmt::format("deprecated placer name '{}' is taken", old));
    }
    for (const std::string& old : info.deprecated_names)
        registry_.deprecated_.emplace(old, info.name);
    info.family = name_;
    auto key = info.name;
    registry_.placers_.insert_or_assign(std::move(key), std::move(info));
    return *this;
}

std::string PlacerRegistry::canonical_spec(const std::string& spec) const {
    const PlacerSpec parts = split_placer_spec(spec);
    const auto old = deprecated_.find(parts.name);
    if (old == deprecated_.end())
        return spec;
    warn_deprecated_placer_name(old->first, old->second);
    return join_placer_spec(old->second, parts.arguments);
}

std::unique_ptr<Placer> PlacerRegistry::create(const std::string& spec) const {
    const PlacerSpec parts = split_placer_spec(canonical_spec(spec));
    if (spec.find(':') != std::string::npos &&
        parts.arguments.find_first_not_of(" \t") == std::string::npos) {
        throw PlacementError(
            fmt::format("placer spec '{}' has nothing after ':'; write '{}' for the defaults, or "
                        "'{}:key=value'",
                        spec, parts.name, parts.name));
    }
    auto it = placers_.find(parts.name);
    if (it == placers_.end()) {
        std::vector<std::string> known;
        for (const auto& [key, info] : placers_)
            known.push_back(key);
        throw PlacementError(unknown_placer_message(parts.name, known));
    }
    return it->second.factory(parts.arguments);
}

std::vector<const PlacerInfo*> PlacerRegistry::all() const {
    std::vector<const PlacerInfo*> out;
    out.reserve(placers_.size());
    for (const auto& [name, info] : placers_)
        out.push_back(&info);  // std::map: sorted
    return out;
}

std::vector<PlacerRegistry::FamilyInfo> PlacerRegistry::families() const {
    return families_;
}

void warn_deprecated_placer_name(const std::string& old_name, const std::string& new_name) {
    static std::mutex mutex;
    static std::set<std::string> warned;
    const std::lock_guard<std::mutex> lock(mutex);
    if (warned.insert(old_name).second) {
        std::cerr << fmt::format(
            "hetsim: warning: placer '{}' is now '{}'; the old name goes in the next release\n",
            old_name, new_name);
    }
}

}  // namespace hetsim::placement
