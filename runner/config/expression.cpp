// A recursive-descent evaluator of the small arithmetic language of ${expr:...}.
#include "runner/config/expression.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "runner/util/utf8.h"

namespace runner {
namespace {

// 2^53: doubles hold every integer up to it, and skip some beyond.
constexpr double kExactIntegerLimit = 9007199254740992.0;

// A byte of a character beyond ASCII: part of a name (a config key may be any UTF-8 text), so that
// "training.bätch" is one name, not "training.b" and a stray byte.
bool is_multibyte(char c) {
  return (static_cast<unsigned char>(c) & 0x80) != 0;
}

struct Number {
  double value = 0;
  bool integral = true;  // every operand an integer, no operation that leaves the integers
  bool boolean = false;  // a comparison's (or a true/false field's) truth, value 0 or 1
};

Number truth_value(bool truth) {
  return {truth ? 1.0 : 0.0, false, true};
}

class Parser {
 public:
  Parser(std::string_view text, const std::function<nlohmann::json(const std::string&)>& field)
      : text_(text), field_(field) {}

  Number parse() {
    Number result = disjunction();
    skip_spaces();
    if (at_ < text_.size()) fail(fmt::format("unexpected '{}'", character()));
    return result;
  }

 private:
  std::string_view text_;
  const std::function<nlohmann::json(const std::string&)>& field_;
  std::size_t at_ = 0;
  int depth_ = 0;

  // Positions count characters, not bytes: "é + 1/0" is at character 6, not 7.
  [[noreturn]] void fail(const std::string& what) const {
    throw ExpressionError(fmt::format("{} at character {} of '{}'", what,
                                      utf8_characters(text_.substr(0, at_)) + 1, text_));
  }

  // The character at the position, whole: "é", never its first byte alone.
  std::string_view character() const {
    return text_.substr(at_, std::max<std::size_t>(1, utf8_sequence_length(text_, at_)));
  }

  void skip_spaces() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }

  bool take(char c) {
    skip_spaces();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!take(c)) {
      fail(at_ < text_.size() ? fmt::format("expected '{}', found '{}'", c, character())
                              : fmt::format("expected '{}' at the end", c));
    }
  }

  // `word` (and, or, not) as a whole word: "order" is a field, not "or" and "der".
  bool take_word(std::string_view word) {
    skip_spaces();
    if (text_.substr(at_, word.size()) != word) return false;
    const std::size_t end = at_ + word.size();
    if (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) ||
                               text_[end] == '_' || is_multibyte(text_[end]))) {
      return false;
    }
    at_ = end;
    return true;
  }

  // Truth and arithmetic do not mix: `1 and x > 2` or `(a < b) + 1` is a mistake, not a number.
  bool truth(const Number& n, std::string_view where) {
    if (!n.boolean)
      fail(fmt::format("{} needs true or false, found the number {}", where, n.value));
    return n.value != 0;
  }
  const Number& arithmetic(const Number& n) {
    if (n.boolean) fail("true or false used as a number");
    return n;
  }

  Number disjunction() {
    Number left = conjunction();
    while (take_word("or")) {
      const bool a = truth(left, "'or'");
      left = truth_value(truth(conjunction(), "'or'") || a);
    }
    return left;
  }

  Number conjunction() {
    Number left = negation();
    while (take_word("and")) {
      const bool a = truth(left, "'and'");
      left = truth_value(truth(negation(), "'and'") && a);
    }
    return left;
  }

  Number negation() {
    if (take_word("not")) {
      return truth_value(!truth(nested([&] { return negation(); }), "'not'"));
    }
    return comparison();
  }

  Number comparison() {
    Number left = sum();
    skip_spaces();
    for (std::string_view op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (text_.substr(at_, op.size()) != op) continue;
      at_ += op.size();
      const double a = arithmetic(left).value, b = arithmetic(sum()).value;
      return truth_value(op == "=="   ? a == b
                         : op == "!=" ? a != b
                         : op == "<=" ? a <= b
                         : op == ">=" ? a >= b
                         : op == "<"  ? a < b
                                      : a > b);
    }
    return left;
  }

  Number sum() {
    Number left = product();
    for (;;) {
      if (take('+')) {
        left = combine(left, product(), '+');
      } else if (take('-')) {
        left = combine(left, product(), '-');
      } else {
        return left;
      }
    }
  }

  Number product() {
    Number left = unary();
    for (;;) {
      if (take('*')) {
        left = combine(left, unary(), '*');
      } else if (take('/')) {
        Number right = arithmetic(unary());
        if (right.value == 0) fail("division by zero");
        left = {arithmetic(left).value / right.value, false};
      } else {
        return left;
      }
    }
  }

  Number combine(const Number& a, const Number& b, char op) {
    arithmetic(a), arithmetic(b);
    double value = op == '+'   ? a.value + b.value
                   : op == '-' ? a.value - b.value
                               : a.value * b.value;
    return {value, a.integral && b.integral};
  }

  Number unary() {
    if (take('-')) {
      Number inner = arithmetic(nested([&] { return unary(); }));
      return {-inner.value, inner.integral};
    }
    if (take('+')) return nested([&] { return unary(); });
    return primary();
  }

  template <typename F>
  Number nested(F&& parse_inner) {
    if (++depth_ > kMaxExpressionDepth)
      fail(fmt::format("nested more than {} levels deep", kMaxExpressionDepth));
    Number inner = parse_inner();
    --depth_;
    return inner;
  }

  Number primary() {
    skip_spaces();
    if (at_ >= text_.size()) fail("expected a number, a field or '(' at the end");
    char c = text_[at_];
    if (c == '(') {
      ++at_;
      Number inner = nested([&] { return disjunction(); });
      expect(')');
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || is_multibyte(c)) return name();
    fail(fmt::format("unexpected '{}'", character()));
  }

  // Numbers are doubles, exact for integers up to 2^53: a larger one would silently become its
  // neighbour (a seed of 9007199254740993 ran as ...992), so it is refused naming the limit.
  // `magnitude` is the integer's exact absolute value (saturated).
  void check_exact(std::uint64_t magnitude, std::string_view what) {
    if (magnitude > static_cast<std::uint64_t>(kExactIntegerLimit)) {
      fail(
          fmt::format("the integer {} is beyond 2^53 ({}), where an expression's numbers stop "
                      "being exact",
                      what, static_cast<std::int64_t>(kExactIntegerLimit)));
    }
  }

  Number number() {
    const char* begin = text_.data() + at_;
    double value = 0;
    auto [end, error] = std::from_chars(begin, text_.data() + text_.size(), value);
    if (error != std::errc() || !std::isfinite(value)) fail("malformed number");
    std::string_view spelt(begin, static_cast<std::size_t>(end - begin));
    at_ += spelt.size();
    bool integral = spelt.find_first_of(".eE") == std::string_view::npos;
    if (integral) {
      std::uint64_t exact = 0;
      auto [digits_end, overflow] = std::from_chars(begin, end, exact);
      if (overflow != std::errc() || digits_end != end) exact = UINT64_MAX;
      check_exact(exact, spelt);
    }
    return {value, integral};
  }

  // A function call or a config path (letters, digits, '_', '.', and [N] indices).
  Number name() {
    std::size_t start = at_;
    while (at_ < text_.size()) {
      char c = text_[at_];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || is_multibyte(c)) {
        ++at_;
      } else if (c == '[') {
        std::size_t close = text_.find(']', at_);
        if (close == std::string_view::npos) fail("found '[' with no closing ']'");
        at_ = close + 1;
      } else {
        break;
      }
    }
    std::string word(text_.substr(start, at_ - start));
    skip_spaces();
    if (at_ < text_.size() && text_[at_] == '(') {
      ++at_;
      return call(word);
    }
    return field(word);
  }

  Number call(const std::string& function) {
    Number first = arithmetic(nested([&] { return sum(); }));
    if (function == "min" || function == "max") {
      expect(',');
      Number second = arithmetic(nested([&] { return sum(); }));
      expect(')');
      double value = function == "min" ? std::min(first.value, second.value)
                                       : std::max(first.value, second.value);
      return {value, first.integral && second.integral};
    }
    expect(')');
    if (function == "sqrt") {
      if (first.value < 0) fail("sqrt of a negative number");
      return {std::sqrt(first.value), false};
    }
    if (function == "round") return {std::round(first.value), true};
    fail(fmt::format("unknown function '{}' (expected sqrt, min, max or round)", function));
  }

  Number field(const std::string& path) {
    nlohmann::json value = field_(path);
    if (value.is_number_integer()) {
      const std::uint64_t magnitude = value.is_number_unsigned()
                                          ? value.get<std::uint64_t>()
                                          : static_cast<std::uint64_t>(std::llabs(
                                                std::max(value.get<std::int64_t>(), -INT64_MAX)));
      check_exact(magnitude, path + " (" + value.dump() + ")");
      return {value.get<double>(), true};
    }
    if (value.is_number()) return {value.get<double>(), false};
    if (value.is_boolean()) return truth_value(value.get<bool>());
    fail(fmt::format("{} is {}, not a number or true/false", path, value.dump()));
  }
};

}  // namespace

nlohmann::json evaluate_expression(std::string_view text,
                                   const std::function<nlohmann::json(const std::string&)>& field) {
  Number result = Parser(text, field).parse();
  if (result.boolean) return result.value != 0;
  if (!std::isfinite(result.value)) {
    throw ExpressionError(fmt::format("'{}' is not a finite number", text));
  }
  if (result.integral && std::fabs(result.value) > kExactIntegerLimit) {
    throw ExpressionError(fmt::format(
        "'{}' is the integer {:.0f}, beyond 2^53 ({}), where an expression's numbers stop being "
        "exact",
        text, result.value, static_cast<std::int64_t>(kExactIntegerLimit)));
  }
  if (result.integral) return static_cast<std::int64_t>(result.value);
  return result.value;
}

}  // namespace runner
