package io.switchboard.routing;

import io.switchboard.selector.Expression;
import io.switchboard.selector.Operand;
import io.switchboard.selector.Selector;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Terms (an attribute and a string value) that a requirement cannot be true without: the agent's
 * attribute is that string, or a list holding it. {@code skills HAS 'a'}, {@code skills HAS ALL
 * ('a', 'b')}, {@code lang = 'es'} and {@code lang IN ('es')} give terms, and an {@code AND} gives
 * the terms of all its parts; anything else (OR, NOT, numbers, ranges) gives none, which is always
 * safe: the terms are a necessary condition, never a sufficient one, and the selector itself still
 * decides. The index of {@link EligibleAgents} and {@link WaitingLine} is built on them.
 */
final class RequiredTerms {

  private RequiredTerms() {}

  /** The term key of an attribute value. */
  static String key(String attribute, String value) {
    return attribute + '\u0000' + value;
  }

  /** The requirement's terms, sorted and distinct; empty when none narrows it. */
  static List<String> of(Optional<Selector> requirement) {
    if (requirement.isEmpty()) {
      return List.of();
    }
    TreeSet<String> terms = new TreeSet<>();
    collect(requirement.get().expression(), terms);
    return List.copyOf(terms);
  }

  private static void collect(Expression e, TreeSet<String> terms) {
    switch (e) {
      case Expression.And and -> and.operands().forEach(o -> collect(o, terms));
      case Expression.Comparison c when c.op() == Expression.Op.EQ -> {
        equal(c.left(), c.right(), terms);
        equal(c.right(), c.left(), terms);
      }
      case Expression.In in when !in.negated() && in.literals().size() == 1 ->
          string(in.operand(), in.literals().get(0), terms);
      case Expression.Has has
          when has.mode() == Expression.HasMode.ALL || has.literals().size() == 1 ->
          has.literals().forEach(l -> string(has.operand(), l, terms));
      default -> {
        // narrows nothing
      }
    }
  }

  /**
   * Whether {@code e} is true exactly when the agent holds all its terms: an {@code AND} of {@code
   * HAS 'x'} and {@code HAS ALL ('x', ...)} over attributes, with string literals only. {@code HAS}
   * is true on a list holding the string or on that very string ({@code Values.holds}), and an
   * agent holds the term {@code name:x} in just those two cases ({@link #ofAgent}), so the terms
   * decide. {@code =} and {@code IN} are left out: they are UNKNOWN on a list that holds the value,
   * where the agent still holds the term.
   */
  static boolean exact(Expression e) {
    return switch (e) {
      case Expression.And and -> and.operands().stream().allMatch(RequiredTerms::exact);
      case Expression.Has has ->
          (has.mode() != Expression.HasMode.ANY || has.literals().size() == 1)
              && !has.literals().isEmpty()
              && has.operand() instanceof Operand.Identifier id
              && !id.name().startsWith("sys.")
              && has.literals().stream().allMatch(l -> l instanceof String);
      default -> false;
    };
  }

  private static void equal(Operand attribute, Operand literal, TreeSet<String> terms) {
    if (literal instanceof Operand.Literal lit) {
      string(attribute, lit.value(), terms);
    }
  }

  private static void string(Operand attribute, Object value, TreeSet<String> terms) {
    if (attribute instanceof Operand.Identifier id
        && !id.name().startsWith("sys.")
        && value instanceof String s) {
      terms.add(key(id.name(), s));
    }
  }

  /** An agent's terms: each string attribute, and each element of a list attribute; sorted. */
  static String[] ofAgent(Map<String, Object> attributes) {
    TreeSet<String> terms = new TreeSet<>();
    attributes.forEach(
        (name, value) -> {
          if (value instanceof String s) {
            terms.add(key(name, s));
          } else if (value instanceof Collection<?> list) {
            for (Object item : list) {
              if (item instanceof String s) {
                terms.add(key(name, s));
              }
            }
          }
        });
    return terms.toArray(String[]::new);
  }
}
