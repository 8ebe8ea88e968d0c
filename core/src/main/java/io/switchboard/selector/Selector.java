package io.switchboard.selector;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * A parsed selector: a filter over attributes in the language of {@code docs/selectors.md}, for
 * message filters and routing requirements alike.
 *
 * <p>Parsing does all the work that can be done once: the text is checked against every rule and
 * limit (a bad selector is refused before anything runs), literals are converted, LIKE patterns
 * compiled, literal lists indexed. Evaluation then allocates nothing of its own, so a selector can
 * be tested against every message of a queue or every agent of a pool. Instances are immutable and
 * safe to share between threads.
 *
 * <p>Two selectors are equal when their {@link #normalized() normalized} texts are, that is when
 * they parse to equal {@link Expression trees}: {@code a=1 and B<>'x'} equals {@code a = 1 AND B !=
 * 'x'}.
 */
public final class Selector {

  /** The longest selector text, in UTF-16 characters. */
  public static final int MAX_LENGTH = 4096;

  /** How deeply parentheses and {@code NOT} may nest. */
  public static final int MAX_DEPTH = 32;

  /** The most literals in one {@code IN}, {@code HAS ANY} or {@code HAS ALL} list. */
  public static final int MAX_LIST_SIZE = 1000;

  private final String text;
  private final Expression expression;
  private final String normalized;
  private final Set<String> attributeNames;
  private final Evaluator.Node root;

  private Selector(String text, Expression expression) {
    this.text = text;
    this.expression = expression;
    this.normalized = Renderer.render(expression);
    this.attributeNames = Collections.unmodifiableSet(AttributeNames.of(expression));
    this.root = Evaluator.compile(expression);
  }

  /**
   * Parses {@code text}.
   *
   * @throws SelectorException if the text is not a selector, or breaks a limit
   */
  public static Selector parse(String text) {
    Objects.requireNonNull(text, "text");
    return new Selector(text, Parser.parse(text));
  }

  /** The text as given to {@link #parse}. */
  public String text() {
    return text;
  }

  /** The root of the syntax tree. */
  public Expression expression() {
    return expression;
  }

  /**
   * The canonical text: upper-case keywords, single spaces, {@code <>} for inequality, minimal
   * parentheses, numbers without trailing zeros. Parsing it gives an equal selector.
   */
  public String normalized() {
    return normalized;
  }

  /** The identifiers the selector reads, in order of first appearance. */
  public Set<String> attributeNames() {
    return attributeNames;
  }

  /** Evaluates the selector in three-valued logic. */
  public Truth evaluate(Attributes attributes) {
    return root.evaluate(attributes);
  }

  /** Whether the selector is TRUE; FALSE and UNKNOWN do not match. */
  public boolean matches(Attributes attributes) {
    return root.evaluate(attributes) == Truth.TRUE;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Selector selector && normalized.equals(selector.normalized);
  }

  @Override
  public int hashCode() {
    return normalized.hashCode();
  }

  /** The text as given. */
  @Override
  public String toString() {
    return text;
  }

  /** Collects identifiers by walking the tree. */
  private static final class AttributeNames {
    private final Set<String> names = new LinkedHashSet<>();

    static Set<String> of(Expression expression) {
      AttributeNames collector = new AttributeNames();
      collector.visit(expression);
      return collector.names;
    }

    private void visit(Expression expression) {
      switch (expression) {
        case Expression.And and -> and.operands().forEach(this::visit);
        case Expression.Or or -> or.operands().forEach(this::visit);
        case Expression.Not not -> visit(not.operand());
        case Expression.Comparison c -> operands(c.left(), c.right());
        case Expression.In in -> operands(in.operand());
        case Expression.Between b -> operands(b.operand(), b.lower(), b.upper());
        case Expression.Like like -> operands(like.operand());
        case Expression.Has has -> operands(has.operand());
        case Expression.IsNull isNull -> operands(isNull.operand());
      }
    }

    private void operands(Operand... operands) {
      for (Operand operand : operands) {
        if (operand instanceof Operand.Identifier identifier) {
          names.add(identifier.name());
        }
      }
    }
  }

  /**
   * The order in which the language compares strings: by Unicode code point (not by UTF-16 unit,
   * which puts U+E000..U+FFFF after the supplementary characters). Indexes that must agree with
   * selector comparisons sort their string keys this way.
   */
  public static int compareStrings(String a, String b) {
    return Values.compareCodePoints(a, b);
  }
}
