// The --where language: a recursive-descent parser to a tree, evaluated per row.
#include "runner/runs/run_query.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <vector>

#include "runner/util/errors.h"

namespace runner {

struct RunQuery::Node {
  enum class Kind { all, any, negate, compare } kind = Kind::compare;
  std::vector<std::unique_ptr<Node>> children;  // all, any, negate
  std::string field, op;                        // compare: field op value
  nlohmann::json value;                         // a number or a string
  bool value_is_word = false;                   // a bare word: a field's name where a run has it
};

namespace {

using Node = RunQuery::Node;

struct Token {
  enum class Kind { word, number, text, op, open, close, end } kind = Kind::end;
  std::string text;
  std::size_t at = 0;  // where it starts in the expression
};

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) { tokenize(); }

  std::unique_ptr<Node> parse() {
    auto node = parse_or();
    if (peek().kind != Token::Kind::end) fail(peek(), "expected 'and', 'or' or the end");
    return node;
  }

 private:
  [[noreturn]] void fail(const Token& at, const std::string& what) const {
    throw UserError(fmt::format("--where: {} at column {}:\n  {}\n  {}^", what, at.at + 1, text_,
                                std::string(at.at, ' ')));
  }

  void tokenize() {
    std::size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      Token token;
      token.at = i;
      if (c == '(' || c == ')') {
        token.kind = c == '(' ? Token::Kind::open : Token::Kind::close;
        token.text = std::string(1, c);
        ++i;
      } else if (c == '\'' || c == '"') {
        const std::size_t end = text_.find(c, i + 1);
        if (end == std::string::npos) {
          fail(token, "a string without its closing quote");
        }
        token.kind = Token::Kind::text;
        token.text = text_.substr(i + 1, end - i - 1);
        i = end + 1;
      } else if (std::string("=!<>").find(c) != std::string::npos) {
        std::size_t end = i + 1;
        if (end < text_.size() && text_[end] == '=') ++end;
        token.kind = Token::Kind::op;
        token.text = text_.substr(i, end - i);
        if (token.text == "=" || token.text == "!") fail(token, "expected ==, !=, <, <=, > or >=");
        i = end;
      } else {
        std::size_t end = i;
        while (end < text_.size() && !std::isspace(static_cast<unsigned char>(text_[end])) &&
               std::string("()=!<>'\"").find(text_[end]) == std::string::npos) {
          ++end;
        }
        token.text = text_.substr(i, end - i);
        char* stop = nullptr;
        std::strtod(token.text.c_str(), &stop);
        const bool number = !token.text.empty() && *stop == '\0' &&
                            (std::isdigit(static_cast<unsigned char>(token.text[0])) ||
                             token.text[0] == '-' || token.text[0] == '.' || token.text[0] == '+');
        token.kind = number ? Token::Kind::number : Token::Kind::word;
        i = end;
      }
      tokens_.push_back(token);
    }
    Token end;
    end.at = text_.size();
    tokens_.push_back(end);
  }

  static std::string mirrored(const std::string& op) {
    if (op == "<") return ">";
    if (op == ">") return "<";
    if (op == "<=") return ">=";
    if (op == ">=") return "<=";
    return op;
  }

  const Token& peek() const { return tokens_[next_]; }
  const Token& take() { return tokens_[next_++]; }
  bool take_word(const char* word) {
    if (peek().kind == Token::Kind::word && peek().text == word) {
      ++next_;
      return true;
    }
    return false;
  }

  std::unique_ptr<Node> combine(Node::Kind kind, std::unique_ptr<Node> first,
                                std::vector<std::unique_ptr<Node>> rest) {
    if (rest.empty()) return first;
    auto node = std::make_unique<Node>();
    node->kind = kind;
    node->children.push_back(std::move(first));
    for (auto& r : rest) node->children.push_back(std::move(r));
    return node;
  }

  std::unique_ptr<Node> parse_or() {
    auto first = parse_and();
    std::vector<std::unique_ptr<Node>> rest;
    while (take_word("or")) rest.push_back(parse_and());
    return combine(Node::Kind::any, std::move(first), std::move(rest));
  }

  std::unique_ptr<Node> parse_and() {
    auto first = parse_not();
    std::vector<std::unique_ptr<Node>> rest;
    while (take_word("and")) rest.push_back(parse_not());
    return combine(Node::Kind::all, std::move(first), std::move(rest));
  }

  std::unique_ptr<Node> parse_not() {
    // Each `not` and `(` nests the parser once more: a bound keeps a hostile expression from
    // exhausting the stack.
    if (++depth_ > kMaxDepth) fail(peek(), fmt::format("more than {} nested levels", kMaxDepth));
    auto node = parse_nested();
    --depth_;
    return node;
  }

  std::unique_ptr<Node> parse_nested() {
    if (take_word("not")) {
      auto node = std::make_unique<Node>();
      node->kind = Node::Kind::negate;
      node->children.push_back(parse_not());
      return node;
    }
    if (peek().kind == Token::Kind::open) {
      take();
      auto inner = parse_or();
      if (peek().kind != Token::Kind::close) fail(peek(), "expected ')'");
      take();
      return inner;
    }
    return parse_comparison();
  }

  // field op value, or value op field (0.01 > training.optimizer.lr), turned around.
  std::unique_ptr<Node> parse_comparison() {
    const Token& first = take();
    if (first.kind == Token::Kind::end || first.kind == Token::Kind::op ||
        first.kind == Token::Kind::close || first.text == "and" || first.text == "or") {
      fail(first, "expected a field name (training.optimizer.lr, status, val_accuracy, ...)");
    }
    const Token& op = take();
    if (op.kind != Token::Kind::op) fail(op, "expected ==, !=, <, <=, > or >= after " + first.text);
    const bool value_first = first.kind != Token::Kind::word;
    if (value_first && peek().kind != Token::Kind::word) {
      fail(peek(), "expected a field name after " + op.text);
    }
    const Token& field = value_first ? take() : first;
    const Token& value = value_first ? first : take();
    auto node = std::make_unique<Node>();
    node->field = field.text;
    node->op = value_first ? mirrored(op.text) : op.text;
    switch (value.kind) {
      case Token::Kind::number:
        node->value = std::strtod(value.text.c_str(), nullptr);
        break;
      case Token::Kind::text:
        node->value = value.text;
        break;
      case Token::Kind::word:
        node->value = value.text;
        node->value_is_word = true;
        break;
      default:
        fail(value, "expected a number, a 'quoted' string or a word after " + op.text);
    }
    return node;
  }

  static constexpr int kMaxDepth = 200;
  const std::string& text_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  int depth_ = 0;
};

// -1, 0 or 1; nullopt when the two cannot be ordered (a missing field, a table).
std::optional<int> order(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  auto text = [](const nlohmann::json& v) -> std::optional<std::string> {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean() || v.is_number()) return v.dump();
    return std::nullopt;
  };
  const auto x = text(a), y = text(b);
  if (!x || !y) return std::nullopt;
  return x < y ? -1 : x > y ? 1 : 0;
}

bool evaluate(const Node& node, const RunRow& row) {
  switch (node.kind) {
    case Node::Kind::all:
      for (const auto& child : node.children) {
        if (!evaluate(*child, row)) return false;
      }
      return true;
    case Node::Kind::any:
      for (const auto& child : node.children) {
        if (evaluate(*child, row)) return true;
      }
      return false;
    case Node::Kind::negate:
      return !evaluate(*node.children[0], row);
    case Node::Kind::compare:
      break;
  }
  const nlohmann::json& left = row_field(row, node.field);
  const nlohmann::json& named =
      node.value_is_word ? row_field(row, node.value.get<std::string>()) : node.value;
  const nlohmann::json& right = named.is_null() ? node.value : named;
  const std::optional<int> c = order(left, right);
  if (!c) return false;
  if (node.op == "==") return *c == 0;
  if (node.op == "!=") return *c != 0;
  if (node.op == "<") return *c < 0;
  if (node.op == "<=") return *c <= 0;
  if (node.op == ">") return *c > 0;
  return *c >= 0;
}

}  // namespace

RunQuery::RunQuery(const std::string& text) : root_(Parser(text).parse()) {}
RunQuery::~RunQuery() = default;
RunQuery::RunQuery(RunQuery&&) noexcept = default;
RunQuery& RunQuery::operator=(RunQuery&&) noexcept = default;

bool RunQuery::matches(const RunRow& row) const {
  return evaluate(*root_, row);
}

std::vector<std::string> RunQuery::fields() const {
  std::vector<std::string> names;
  const auto walk = [&](const auto& self, const Node& node) -> void {
    if (node.kind != Node::Kind::compare) {
      for (const auto& child : node.children) self(self, *child);
      return;
    }
    names.push_back(node.field);
    if (node.value_is_word) names.push_back(node.value.get<std::string>());
  };
  walk(walk, *root_);
  return names;
}

}  // namespace runner
