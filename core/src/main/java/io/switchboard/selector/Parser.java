package io.switchboard.selector;

import io.switchboard.selector.Expression.HasMode;
import io.switchboard.selector.Lexer.Keyword;
import io.switchboard.selector.Lexer.Kind;
import io.switchboard.selector.Lexer.Token;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Recursive descent over the grammar of docs/design.md, one token of lookahead. Recursion happens
 * only where the text nests ({@code (} and {@code NOT}), which the depth limit bounds; chains of
 * {@code AND} and {@code OR} are loops, so no selector within the length limit can exhaust the
 * stack.
 */
final class Parser {

  private final Lexer lexer;

  @SuppressWarnings("NullAway.Init") // set by advance() before the first read
  private Token current;

  private int depth;

  private Parser(String text) {
    this.lexer = new Lexer(text);
  }

  static Expression parse(String text) {
    if (text.length() > Selector.MAX_LENGTH) {
      throw new SelectorException(
          Selector.MAX_LENGTH + 1,
          "text length must be at most "
              + Selector.MAX_LENGTH
              + " characters, got "
              + text.length());
    }
    Parser parser = new Parser(text);
    parser.advance();
    if (parser.current.kind() == Kind.END) {
      throw parser.expected("a predicate");
    }
    Expression expression = parser.orChain();
    if (parser.current.kind() != Kind.END) {
      throw parser.expected("AND, OR or end of input");
    }
    return expression;
  }

  private void advance() {
    current = lexer.next();
  }

  private SelectorException expected(String what) {
    return new SelectorException(current.column(), "expected " + what + ", found " + describe());
  }

  private String describe() {
    return current.describe();
  }

  private boolean accept(Keyword keyword) {
    if (current.is(keyword)) {
      advance();
      return true;
    }
    return false;
  }

  private void expect(Keyword keyword, String what) {
    if (!accept(keyword)) {
      throw expected(what);
    }
  }

  private void expect(Kind kind, String what) {
    if (current.kind() != kind) {
      throw expected(what);
    }
    advance();
  }

  private Expression orChain() {
    List<Expression> operands = new ArrayList<>();
    operands.add(andChain());
    while (accept(Keyword.OR)) {
      operands.add(andChain());
    }
    return operands.size() == 1 ? operands.get(0) : new Expression.Or(operands);
  }

  private Expression andChain() {
    List<Expression> operands = new ArrayList<>();
    operands.add(factor());
    while (accept(Keyword.AND)) {
      operands.add(factor());
    }
    return operands.size() == 1 ? operands.get(0) : new Expression.And(operands);
  }

  private Expression factor() {
    if (current.is(Keyword.NOT)) {
      enterNesting();
      advance();
      Expression operand = factor();
      depth--;
      return new Expression.Not(operand);
    }
    if (current.kind() == Kind.LEFT_PAREN) {
      enterNesting();
      advance();
      Expression inner = orChain();
      expect(Kind.RIGHT_PAREN, "AND, OR or ')'");
      depth--;
      return inner;
    }
    return predicate();
  }

  private void enterNesting() {
    if (++depth > Selector.MAX_DEPTH) {
      throw new SelectorException(
          current.column(),
          "nesting depth must be at most "
              + Selector.MAX_DEPTH
              + " (each '(' and NOT counts), found depth "
              + depth
              + " at "
              + describe());
    }
  }

  private Expression predicate() {
    Operand left = value("a predicate");
    String after = "after " + describe(left);
    if (current.kind() == Kind.OPERATOR) {
      Expression.Op op = (Expression.Op) current.present();
      advance();
      return new Expression.Comparison(left, op, value("a value after " + op.symbol()));
    }
    if (accept(Keyword.NOT)) {
      return negatable(left, true, "IN, BETWEEN or LIKE after NOT");
    }
    if (accept(Keyword.HAS)) {
      return has(left);
    }
    if (accept(Keyword.IS)) {
      boolean negated = accept(Keyword.NOT);
      expect(Keyword.NULL, negated ? "NULL after IS NOT" : "NULL or NOT after IS");
      return new Expression.IsNull(left, negated);
    }
    return negatable(
        left,
        false,
        "an operator (=, <>, !=, <, <=, >, >=, IN, BETWEEN, LIKE, HAS or IS) " + after);
  }

  private static String describe(Operand operand) {
    return switch (operand) {
      case Operand.Identifier identifier -> "identifier " + Renderer.operand(identifier);
      case Operand.Literal literal -> "literal " + Renderer.operand(literal);
    };
  }

  private Expression negatable(Operand left, boolean negated, String expected) {
    if (accept(Keyword.IN)) {
      return new Expression.In(left, literalList(negated ? "NOT IN (" : "IN ("), negated);
    }
    if (accept(Keyword.BETWEEN)) {
      Operand lower = value("a value after BETWEEN");
      expect(Keyword.AND, "AND after the lower bound of BETWEEN");
      Operand upper = value("a value after BETWEEN ... AND");
      return new Expression.Between(left, lower, upper, negated);
    }
    if (accept(Keyword.LIKE)) {
      return like(left, negated);
    }
    throw expected(expected);
  }

  private Expression like(Operand left, boolean negated) {
    Token pattern = current;
    expect(Kind.STRING, "a string pattern after LIKE");
    Optional<String> escape = Optional.empty();
    if (accept(Keyword.ESCAPE)) {
      Token escapeToken = current;
      expect(Kind.STRING, "a one-character string after ESCAPE");
      String escapeChar = (String) escapeToken.present();
      if (escapeChar.codePointCount(0, escapeChar.length()) != 1) {
        throw new SelectorException(
            escapeToken.column(),
            "expected a one-character string after ESCAPE, found " + escapeToken.describe());
      }
      escape = Optional.of(escapeChar);
    }
    String text = (String) pattern.present();
    try {
      LikePattern.compile(text, escape);
    } catch (IllegalArgumentException badPattern) {
      throw new SelectorException(pattern.column(), String.valueOf(badPattern.getMessage()));
    }
    return new Expression.Like(left, text, escape, negated);
  }

  private Expression has(Operand left) {
    if (accept(Keyword.ANY)) {
      return new Expression.Has(left, HasMode.ANY, literalList("HAS ANY ("));
    }
    if (accept(Keyword.ALL)) {
      return new Expression.Has(left, HasMode.ALL, literalList("HAS ALL ("));
    }
    Object literal = literal("a literal, ANY or ALL after HAS");
    return new Expression.Has(left, HasMode.ONE, List.of(literal));
  }

  private List<Object> literalList(String opening) {
    String keyword = opening.substring(0, opening.length() - 2);
    expect(Kind.LEFT_PAREN, "'(' after " + keyword);
    List<Object> literals = new ArrayList<>();
    literals.add(literal("a literal after " + opening));
    while (accept(Kind.COMMA)) {
      if (literals.size() == Selector.MAX_LIST_SIZE) {
        throw new SelectorException(
            current.column(),
            "expected at most "
                + Selector.MAX_LIST_SIZE
                + " literals in the list after "
                + keyword
                + ", found literal number "
                + (literals.size() + 1));
      }
      literals.add(literal("a literal after ','"));
    }
    expect(Kind.RIGHT_PAREN, "',' or ')' in the list after " + keyword);
    return literals;
  }

  private boolean accept(Kind kind) {
    if (current.kind() == kind) {
      advance();
      return true;
    }
    return false;
  }

  private Operand value(String what) {
    if (current.kind() == Kind.IDENTIFIER) {
      String name = (String) current.present();
      advance();
      return new Operand.Identifier(name);
    }
    return new Operand.Literal(literal(what));
  }

  private Object literal(String what) {
    Object value =
        switch (current.kind()) {
          case STRING -> current.present();
          case NUMBER -> (BigDecimal) current.present();
          case KEYWORD ->
              current.is(Keyword.TRUE)
                  ? Boolean.TRUE
                  : current.is(Keyword.FALSE) ? Boolean.FALSE : null;
          default -> null;
        };
    if (value == null) {
      throw expected(what);
    }
    advance();
    return value;
  }
}
