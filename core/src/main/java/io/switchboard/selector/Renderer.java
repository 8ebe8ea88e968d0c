package io.switchboard.selector;

import io.switchboard.selector.Expression.And;
import io.switchboard.selector.Expression.Or;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Renders a tree as normalized text: upper-case keywords, single spaces, {@code <>} for inequality,
 * parentheses only where precedence needs them, identifiers quoted only when they must be. Parsing
 * the rendering gives back an equal tree, so the rendering identifies the selector.
 */
final class Renderer {

  private static final int MAX_PLAIN_INTEGER_DIGITS = 21;

  private final StringBuilder out = new StringBuilder();

  private Renderer() {}

  static String render(Expression expression) {
    Renderer renderer = new Renderer();
    renderer.expression(expression);
    return renderer.out.toString();
  }

  static String operand(Operand operand) {
    return switch (operand) {
      case Operand.Identifier identifier -> identifier(identifier.name());
      case Operand.Literal literal -> literal(literal.value());
    };
  }

  static String identifier(String name) {
    boolean bare = Lexer.isIdentifierStart(name.charAt(0)) && !Lexer.isKeyword(name);
    for (int i = 1; i < name.length() && bare; i++) {
      bare = Lexer.isIdentifierPart(name.charAt(i));
    }
    return bare ? name : '"' + name.replace("\"", "\"\"") + '"';
  }

  static String literal(Object value) {
    return switch (value) {
      case String string -> quote(string);
      case Boolean bool -> bool.toString().toUpperCase(Locale.ROOT);
      case BigDecimal number -> number(number);
      default -> throw new IllegalArgumentException("not a literal: " + value);
    };
  }

  private static String quote(String string) {
    return "'" + string.replace("'", "''") + "'";
  }

  /**
   * Integers as digits while that stays short ({@code 100}, not {@code 1E+2}), else as Java does.
   */
  private static String number(BigDecimal number) {
    boolean plainInteger =
        number.scale() <= 0 && number.precision() - number.scale() <= MAX_PLAIN_INTEGER_DIGITS;
    return plainInteger ? number.toPlainString() : number.toString();
  }

  private void expression(Expression expression) {
    switch (expression) {
      case And and -> join(and.operands(), " AND ");
      case Or or -> join(or.operands(), " OR ");
      case Expression.Not not -> {
        out.append("NOT ");
        nested(not.operand());
      }
      case Expression.Comparison c ->
          out.append(operand(c.left()))
              .append(' ')
              .append(c.op().symbol())
              .append(' ')
              .append(operand(c.right()));
      case Expression.In in -> {
        out.append(operand(in.operand())).append(in.negated() ? " NOT IN " : " IN ");
        list(in.literals());
      }
      case Expression.Between b ->
          out.append(operand(b.operand()))
              .append(b.negated() ? " NOT BETWEEN " : " BETWEEN ")
              .append(operand(b.lower()))
              .append(" AND ")
              .append(operand(b.upper()));
      case Expression.Like like ->
          like(like.operand(), like.pattern(), like.escape(), like.negated());
      case Expression.Has has -> has(has);
      case Expression.IsNull isNull ->
          out.append(operand(isNull.operand()))
              .append(isNull.negated() ? " IS NOT NULL" : " IS NULL");
    }
  }

  /** AND operands are never ANDs (they are flattened) but may be ORs, which need parentheses. */
  private void join(List<Expression> operands, String separator) {
    for (int i = 0; i < operands.size(); i++) {
      if (i > 0) {
        out.append(separator);
      }
      Expression operand = operands.get(i);
      if (operand instanceof Or) {
        parenthesized(operand);
      } else {
        expression(operand);
      }
    }
  }

  private void nested(Expression operand) {
    if (operand instanceof And || operand instanceof Or) {
      parenthesized(operand);
    } else {
      expression(operand);
    }
  }

  private void parenthesized(Expression operand) {
    out.append('(');
    expression(operand);
    out.append(')');
  }

  private void like(Operand operand, String pattern, Optional<String> escape, boolean negated) {
    out.append(operand(operand)).append(negated ? " NOT LIKE " : " LIKE ").append(quote(pattern));
    escape.ifPresent(c -> out.append(" ESCAPE ").append(quote(c)));
  }

  private void has(Expression.Has has) {
    out.append(operand(has.operand()));
    switch (has.mode()) {
      case ONE -> out.append(" HAS ").append(literal(has.literals().get(0)));
      case ANY, ALL -> {
        out.append(" HAS ").append(has.mode()).append(' ');
        list(has.literals());
      }
    }
  }

  private void list(List<Object> literals) {
    out.append('(');
    for (int i = 0; i < literals.size(); i++) {
      out.append(i > 0 ? ", " : "").append(literal(literals.get(i)));
    }
    out.append(')');
  }
}
