// A sweep's `where:` constraints: small boolean expressions over the axes' values, e.g.
//   where: ["workload.seq_len * 2 <= 64", "bandwidth >= 2 GB/s or seq_len == 8",
//           "platform.name != 'tiny'"]
// Grammar (precedence from low to high):
//   or-expr   := and-expr ('or' and-expr)*
//   and-expr  := not-expr ('and' not-expr)*
//   not-expr  := 'not' not-expr | compare
//   compare   := sum (('==' | '!=' | '<' | '<=' | '>' | '>=') sum)?
//   sum       := product (('+' | '-') product)*
//   product   := unary (('*' | '/') unary)*
//   unary     := '-' unary | atom
//   atom      := number [unit] | 'string' | name | '(' or-expr ')'
// A name is an axis's YAML path, or its last component when no other axis ends the same way.
// A quantity with a unit ("2 GB/s", "32 MiB") is its value in SI base units (sim/units.hpp), so
// it compares with an axis written with any prefix. Written by hand: a recursive-descent parser
// of this size is smaller and clearer than a parser-generator dependency.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>

#include "sim/units.hpp"

namespace hetsim::sweep {

class ExpressionError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// An axis value: a number (SI base units when it had a unit), or text.
using Value = std::variant<double, std::string>;

// The value of one axis's YAML text: "16" -> 16, "2 GB/s" -> 2e9, "bert" -> "bert".
Value axis_value(const std::string& text);
// The kind of a quantity's text ("2 GB/s" -> bandwidth); nullopt for a bare number or text.
std::optional<sim::Quantity> quantity_kind(const std::string& text);

class Expression {
public:
    // Throws ExpressionError saying where the text stops making sense.
    static Expression parse(const std::string& text);
    ~Expression();
    Expression(Expression&&) noexcept;
    Expression& operator=(Expression&&) noexcept;

    // `variables`: axis path -> value. Throws ExpressionError on an unknown name (with the names
    // it knows), an ambiguous short name, or a type mismatch (text in arithmetic).
    // `kinds`: axis path -> the kind of quantity its value is ("2 GB/s": bandwidth), for every
    // axis whose value has a unit; an axis with a number value and no entry is a plain number.
    // A comparison, sum or difference of two kinds that differ ("bandwidth > 1.5 GHz"), or of a
    // plain number and a quantity ("seq_len > 1 s"), throws ExpressionError instead of
    // comparing the bare numbers. A product or quotient of plain numbers is a plain number; one
    // with a quantity has no kind checked ("bandwidth * 2 > 1 GHz" is not refused).
    bool holds(const std::map<std::string, Value>& variables,
               const std::map<std::string, sim::Quantity>& kinds = {}) const;
    const std::string& text() const { return text_; }

    struct Node;

private:
    Expression(std::string text, std::unique_ptr<Node> root);
    std::string text_;
    std::unique_ptr<Node> root_;
};

}  // namespace hetsim::sweep
