#include "sweep/expression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <vector>

#include "sim/units.hpp"

namespace hetsim::sweep {

namespace {

// A quantity "<number> <unit>" in SI base units, whatever its kind; nullopt when `text` is not
// one (a bare number is handled by the caller).
std::optional<double> parse_any_quantity(const std::string& text) {
    const auto kind = quantity_kind(text);
    return kind ? std::optional<double>(sim::parse_quantity(text, *kind)) : std::nullopt;
}

std::optional<double> parse_number(const std::string& text) {
    std::size_t used = 0;
    try {
        const double v = std::stod(text, &used);
        while (used < text.size() && std::isspace(static_cast<unsigned char>(text[used])))
            ++used;
        if (used == text.size())
            return v;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

// An expression as its error messages quote it: whole when short, else its start and length
// (a message is one line, and a refused expression may be megabytes long).
std::string quoted(const std::string& text) {
    constexpr std::size_t kShown = 100;
    if (text.size() <= kShown)
        return fmt::format("'{}'", text);
    return fmt::format("'{}...' ({} characters)", text.substr(0, kShown - 20), text.size());
}

// The operators, as messages list them (the grammar in expression.hpp).
constexpr const char* kOperators = "or, and, not, ==, !=, <, <=, >, >=, +, -, *, /";

// "or", "AND", "Not": a word that is an operator, or one in other capitals.
bool is_keyword_ignoring_case(const std::string& word) {
    std::string lower = word;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower == "or" || lower == "and" || lower == "not";
}

}  // namespace

std::optional<sim::Quantity> quantity_kind(const std::string& text) {
    // A bare number, or text that does not start like one, has no kind: answered without the
    // five failed parses (each an exception) that would say so, since every point of a sweep
    // with a `where:` asks this of every axis value.
    const std::size_t first = text.find_first_not_of(' ');
    if (first == std::string::npos || parse_number(text) ||
        !(std::isdigit(static_cast<unsigned char>(text[first])) || text[first] == '.' ||
          text[first] == '-' || text[first] == '+'))
        return std::nullopt;
    for (const sim::Quantity q :
         {sim::Quantity::time, sim::Quantity::frequency, sim::Quantity::bandwidth,
          sim::Quantity::data_size, sim::Quantity::rate}) {
        try {
            sim::parse_quantity(text, q);
            return q;
        } catch (const sim::UnitError&) {
        }
    }
    return std::nullopt;
}

Value axis_value(const std::string& text) {
    if (const auto v = parse_number(text))
        return *v;
    if (const auto q = parse_any_quantity(text))
        return *q;
    return text;
}

struct Expression::Node {
    enum Kind { number, text, name, negate, not_, and_, or_, add, sub, mul, div, cmp } kind;
    double value = 0.0;
    std::string str;  // text, name or the comparison operator
    std::unique_ptr<Node> left, right;
    int depth = 1;  // of the subtree: evaluation and destruction recurse this deep
    std::optional<sim::Quantity> quantity;  // a number written with a unit: its kind
};

namespace {

using Node = Expression::Node;
using NodePtr = std::unique_ptr<Node>;

NodePtr make(Node::Kind kind, NodePtr left = nullptr, NodePtr right = nullptr) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->left = std::move(left);
    n->right = std::move(right);
    n->depth = 1 + std::max(n->left ? n->left->depth : 0, n->right ? n->right->depth : 0);
    return n;
}

// Deeper expressions are refused: parsing, evaluating and freeing one recurse once per level,
// and a `where:` of thousands of nested parentheses or terms would exhaust the stack.
constexpr int kMaxExpressionDepth = 200;

class Parser {
public:
    explicit Parser(const std::string& text) : s_(text) {}

    NodePtr parse() {
        NodePtr root = parse_or();
        skip_space();
        if (pos_ != s_.size())
            fail_unexpected();
        return root;
    }

private:
    // make() with the depth limit, and one level of parser recursion counted while it runs.
    NodePtr node(Node::Kind kind, NodePtr left = nullptr, NodePtr right = nullptr) {
        NodePtr n = make(kind, std::move(left), std::move(right));
        if (n->depth > kMaxExpressionDepth)
            fail(fmt::format("more than {} levels of operators or parentheses",
                             kMaxExpressionDepth));
        return n;
    }
    struct Nesting {
        explicit Nesting(Parser& p) : parser(p) {
            if (++parser.nesting_ > kMaxExpressionDepth)
                parser.fail(fmt::format("more than {} levels of operators or parentheses",
                                        kMaxExpressionDepth));
        }
        ~Nesting() { --parser.nesting_; }
        Parser& parser;
    };
    int nesting_ = 0;

    // "<text>: <what> at column <n>", then "; <hint>" when there is one.
    [[noreturn]] void fail(const std::string& what, const std::string& hint = "") const {
        throw ExpressionError(fmt::format("{}: {} at column {}{}", quoted(s_), what,
                                          std::min(pos_, s_.size()) + 1,
                                          hint.empty() ? "" : "; " + hint));
    }
    // Fails when the text at the parse position is an operator spelled as in another language
    // ("OR", "&&", "="), naming the spelling hetsim takes rather than "unexpected text".
    void fail_if_misspelled_operator() const {
        const std::string rest = s_.substr(pos_);
        for (const auto& [written, meant] :
             {std::pair{"||", "or"}, std::pair{"&&", "and"}, std::pair{"!=", ""},
              std::pair{"!", "not"}, std::pair{"==", ""}, std::pair{"=", "=="}}) {
            if (!rest.starts_with(written))
                continue;
            if (*meant != '\0')
                fail(fmt::format("'{}' is not an operator", written),
                     fmt::format("write '{}' (operators: {})", meant, kOperators));
            return;  // a real operator, out of place
        }
        const std::string word = word_at(pos_);
        if (is_keyword_ignoring_case(word) && word != "or" && word != "and" && word != "not")
            fail(fmt::format("unknown word '{}'", word),
                 fmt::format("the operators are lower case: {}", kOperators));
    }
    // Text after a complete expression.
    [[noreturn]] void fail_unexpected() const {
        fail_if_misspelled_operator();
        const std::string word = word_at(pos_);
        const std::string hint = fmt::format("expected an operator ({}) or the end", kOperators);
        if (!word.empty())
            fail(fmt::format("unexpected word '{}'", word), hint);
        fail("unexpected text", hint);
    }
    // The name-like word starting at `at` ("" when none starts there).
    std::string word_at(std::size_t at) const {
        if (at >= s_.size() || !(std::isalpha(static_cast<unsigned char>(s_[at])) || s_[at] == '_'))
            return "";
        std::size_t end = at;
        while (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) ||
                                   s_[end] == '_' || s_[end] == '.'))
            ++end;
        return s_.substr(at, end - at);
    }
    void skip_space() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
            ++pos_;
    }
    // Consumes `word` when it is next (a keyword only when not followed by a name character).
    bool accept(std::string_view word) {
        skip_space();
        if (s_.compare(pos_, word.size(), word) != 0)
            return false;
        const bool keyword = std::isalpha(static_cast<unsigned char>(word[0]));
        const std::size_t end = pos_ + word.size();
        if (keyword && end < s_.size() &&
            (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_' || s_[end] == '.'))
            return false;
        pos_ = end;
        return true;
    }

    NodePtr parse_or() {
        NodePtr left = parse_and();
        while (accept("or"))
            left = node(Node::or_, std::move(left), parse_and());
        return left;
    }
    NodePtr parse_and() {
        NodePtr left = parse_not();
        while (accept("and"))
            left = node(Node::and_, std::move(left), parse_not());
        return left;
    }
    NodePtr parse_not() {
        if (accept("not")) {
            const Nesting level(*this);
            return node(Node::not_, parse_not());
        }
        return parse_compare();
    }
    NodePtr parse_compare() {
        NodePtr left = parse_sum();
        for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
            if (accept(op)) {
                NodePtr n = node(Node::cmp, std::move(left), parse_sum());
                n->str = op;
                return n;
            }
        }
        return left;
    }
    NodePtr parse_sum() {
        NodePtr left = parse_product();
        while (true) {
            if (accept("+"))
                left = node(Node::add, std::move(left), parse_product());
            else if (accept("-"))
                left = node(Node::sub, std::move(left), parse_product());
            else
                return left;
        }
    }
    NodePtr parse_product() {
        NodePtr left = parse_unary();
        while (true) {
            if (accept("*"))
                left = node(Node::mul, std::move(left), parse_unary());
            else if (accept("/"))
                left = node(Node::div, std::move(left), parse_unary());
            else
                return left;
        }
    }
    NodePtr parse_unary() {
        if (accept("-")) {
            const Nesting level(*this);
            return node(Node::negate, parse_unary());
        }
        return parse_atom();
    }
    NodePtr parse_atom() {
        skip_space();
        if (pos_ >= s_.size())
            fail("expected a value");
        const char c = s_[pos_];
        if (accept("(")) {
            const Nesting level(*this);
            NodePtr inner = parse_or();
            if (!accept(")")) {
                fail_if_misspelled_operator();
                fail("expected ')'");
            }
            return inner;
        }
        if (c == '\'' || c == '"') {
            const std::size_t close = s_.find(c, pos_ + 1);
            if (close == std::string::npos)
                fail("unterminated string");
            NodePtr n = node(Node::text);
            n->str = s_.substr(pos_ + 1, close - pos_ - 1);
            pos_ = close + 1;
            return n;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.')
            return parse_number_atom();
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            const std::size_t start = pos_;
            while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                        s_[pos_] == '_' || s_[pos_] == '.'))
                ++pos_;
            NodePtr n = node(Node::name);
            n->str = s_.substr(start, pos_ - start);
            if (is_keyword_ignoring_case(n->str)) {
                pos_ = start;
                fail_if_misspelled_operator();  // "NOT x == 1"
                fail("expected a value");       // "x == and"
            }
            return n;
        }
        fail(fmt::format("unexpected '{}'", c));
    }
    // A number, and a unit right after it when number and unit make a quantity.
    NodePtr parse_number_atom() {
        std::size_t used = 0;
        double v = 0.0;
        std::optional<sim::Quantity> quantity;
        try {
            v = std::stod(s_.substr(pos_), &used);
        } catch (const std::exception&) {
            fail("expected a number");
        }
        const std::string number = s_.substr(pos_, used);
        // std::stod also reads hex (`0x8` was 8) and `inf`/`nan`: numbers are decimal.
        if (number.find_first_not_of("0123456789.eE+-") != std::string::npos)
            fail(fmt::format("'{}' is not a decimal number", number));
        pos_ += used;
        std::size_t unit_start = pos_;
        while (unit_start < s_.size() && s_[unit_start] == ' ')
            ++unit_start;
        std::size_t unit_end = unit_start;
        // A unit starts with a letter (or µ): "7 / 2" is a division, "2 GB/s" a quantity.
        const bool letter =
            unit_start < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[unit_start])) ||
                                       (s_[unit_start] & 0x80) != 0);
        while (letter && unit_end < s_.size() &&
               (std::isalpha(static_cast<unsigned char>(s_[unit_end])) || s_[unit_end] == '/' ||
                (s_[unit_end] & 0x80) != 0))
            ++unit_end;
        if (unit_end > unit_start) {
            const std::string unit = s_.substr(unit_start, unit_end - unit_start);
            if (const auto q = parse_any_quantity(number + " " + unit)) {
                v = *q;
                quantity = quantity_kind(number + " " + unit);
                pos_ = unit_end;
            } else if (!is_keyword_ignoring_case(unit)) {
                // "8 OR ..." is an operator in capitals, which parse() names as such.
                fail(fmt::format("'{}' is not a unit hetsim knows", unit));
            }
        }
        NodePtr n = node(Node::number);
        n->value = v;
        n->quantity = quantity;
        return n;
    }

    const std::string& s_;
    std::size_t pos_ = 0;
};

struct Evaluator {
    const std::map<std::string, Value>& variables;
    const std::map<std::string, sim::Quantity>& kinds;
    const std::string& text;

    // What kind of number a value is, for the checks: a plain number (no unit), a quantity of
    // one kind, or not known (text, truth values, products and quotients with a quantity).
    struct Dimension {
        enum { unknown, plain, quantity } what = unknown;
        sim::Quantity kind = sim::Quantity::time;  // when `quantity`

        bool known() const { return what != unknown; }
        bool operator==(const Dimension& o) const {
            return what == o.what && (what != quantity || kind == o.kind);
        }
        std::string text() const {
            return what == plain ? "plain number" : std::string(sim::to_string(kind));
        }
    };

    // The dimension of `n`: a literal's (with or without its unit), an axis's (its values'
    // unit, or plain numbers), and what sums, differences, negations, and products and
    // quotients of plain numbers keep of them. Throws on a sum or difference of two known
    // dimensions that differ, anywhere below `n`.
    Dimension kind(const Node& n) const {
        switch (n.kind) {
            case Node::number:
                return n.quantity ? Dimension{Dimension::quantity, *n.quantity}
                                  : Dimension{Dimension::plain};
            case Node::name: {
                const std::string path = resolve(n.str);
                if (const auto it = kinds.find(path); it != kinds.end())
                    return {Dimension::quantity, it->second};
                return std::holds_alternative<double>(variables.at(path))
                           ? Dimension{Dimension::plain}
                           : Dimension{};
            }
            case Node::negate:
                return kind(*n.left);
            case Node::add:
            case Node::sub: {
                const Dimension a = kind(*n.left), b = kind(*n.right);
                if (a.known() && b.known() && !(a == b))
                    fail(fmt::format("{} a {} and a {}", n.kind == Node::add ? "adds" : "subtracts",
                                     a.text(), b.text()));
                return a.known() ? a : b;
            }
            case Node::mul:
            case Node::div: {
                // "bandwidth * 2" is left unchecked (a scaled bandwidth, or a new quantity);
                // plain numbers stay plain.
                const Dimension a = kind(*n.left), b = kind(*n.right);
                return a.what == Dimension::plain && b.what == Dimension::plain ? a : Dimension{};
            }
            default:
                return {};
        }
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw ExpressionError(fmt::format("{}: {}", quoted(text), what));
    }

    // The axis path a name stands for: the path itself, or its last part(s) when no other
    // axis ends the same way.
    std::string resolve(const std::string& name) const {
        if (variables.count(name) != 0)
            return name;
        const std::string* found = nullptr;
        std::vector<std::string> names;
        for (const auto& entry : variables) {
            const std::string& path = entry.first;
            names.push_back(path);
            const bool suffix = path.size() > name.size() && path.ends_with(name) &&
                                path[path.size() - name.size() - 1] == '.';
            if (!suffix)
                continue;
            if (found)
                fail(fmt::format("'{}' is ambiguous: write the axis's whole path", name));
            found = &path;
        }
        if (!found)
            fail(fmt::format("'{}' is not an axis (axes: {})", name, fmt::join(names, ", ")));
        return *found;
    }
    Value lookup(const std::string& name) const { return variables.at(resolve(name)); }

    double number(const Node& n) const {
        const Value v = value(n);
        if (const double* d = std::get_if<double>(&v))
            return *d;
        fail(fmt::format("'{}' is text, not a number", std::get<std::string>(v)));
    }
    bool truth(const Node& n) const {
        switch (n.kind) {
            case Node::not_:
                return !truth(*n.left);
            case Node::and_:
                return truth(*n.left) && truth(*n.right);
            case Node::or_:
                return truth(*n.left) || truth(*n.right);
            case Node::cmp: {
                // "bandwidth > 1.5 GHz" compared 1.5e9 B/s with 1.5e9 Hz: a typo, not a filter.
                // "seq_len > 1 s" compared a count with a time in seconds: refused the same way.
                const Dimension kind_a = kind(*n.left), kind_b = kind(*n.right);
                if (kind_a.known() && kind_b.known() && !(kind_a == kind_b))
                    fail(fmt::format("compares a {} with a {}", kind_a.text(), kind_b.text()));
                const Value a = value(*n.left), b = value(*n.right);
                if (a.index() != b.index())
                    return n.str == "!=";  // a number never equals a text
                const auto c = a <=> b;
                if (n.str == "==")
                    return c == 0;
                if (n.str == "!=")
                    return c != 0;
                if (std::holds_alternative<std::string>(a))
                    fail("text compares only with == and !=");
                if (n.str == "<")
                    return c < 0;
                if (n.str == "<=")
                    return c <= 0;
                if (n.str == ">")
                    return c > 0;
                return c >= 0;
            }
            default:
                fail("a constraint must be a comparison (==, !=, <, <=, >, >=)");
        }
    }
    Value value(const Node& n) const {
        switch (n.kind) {
            case Node::number:
                return n.value;
            case Node::text:
                return n.str;
            case Node::name:
                return lookup(n.str);
            case Node::negate:
                return -number(*n.left);
            case Node::add:
                return number(*n.left) + number(*n.right);
            case Node::sub:
                return number(*n.left) - number(*n.right);
            case Node::mul:
                return number(*n.left) * number(*n.right);
            case Node::div: {
                // x / 0 is ±inf or NaN, which every comparison would silently take or drop.
                const double divisor = number(*n.right);
                if (divisor == 0.0)
                    fail("division by zero at this point");
                return number(*n.left) / divisor;
            }
            default:
                return truth(n) ? 1.0 : 0.0;
        }
    }
};

}  // namespace

Expression::Expression(std::string text, std::unique_ptr<Node> root)
    : text_(std::move(text)), root_(std::move(root)) {}
Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

Expression Expression::parse(const std::string& text) {
    NodePtr root = Parser(text).parse();
    return Expression(text, std::move(root));
}

bool Expression::holds(const std::map<std::string, Value>& variables,
                       const std::map<std::string, sim::Quantity>& kinds) const {
    return Evaluator{variables, kinds, text_}.truth(*root_);
}

}  // namespace hetsim::sweep
