package io.switchboard.routing;

import io.switchboard.selector.Selector;
import java.math.BigDecimal;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * References to a contact's attributes in a workflow target's worker expression: a bare identifier
 * {@code contact.<name>} stands for the value of the contact's attribute {@code <name>}, e.g.
 * {@code languages HAS contact.language}. It is resolved when the contact enters the target, by
 * writing the value as a literal in the text, so a reference may stand wherever a literal may
 * ({@code HAS}, {@code IN} lists, comparisons, {@code BETWEEN}). A double-quoted {@code
 * "contact.x"} stays an agent attribute. A reference to an attribute the contact lacks, or whose
 * value is a list, makes the expression match no agent ({@link #resolve}).
 */
final class ContactReferences {

  static final String PREFIX = "contact.";

  private ContactReferences() {}

  /** The attribute names the expression refers to, in order of first use. */
  static Set<String> names(String expression) {
    Set<String> names = new LinkedHashSet<>();
    substitute(
        expression,
        name -> {
          names.add(name);
          return "''";
        });
    return names;
  }

  /**
   * Checks the expression parses with its references standing for literals; INVALID_SELECTOR naming
   * {@code field} otherwise.
   */
  static void check(String field, String expression) {
    Checks.requirement(field, substitute(expression, name -> "''"));
  }

  /**
   * The expression with each reference replaced by the contact's value. A reference the contact
   * cannot resolve (no such attribute, a list value, or a value that does not fit where the
   * reference stands) gives {@code "contact.x" IS NULL AND "contact.x" IS NOT NULL}, which no agent
   * matches, naming the reference so that the contact's requirement shows why.
   */
  static String resolve(String expression, Map<String, Object> attributes) {
    StringBuilder missing = new StringBuilder();
    String text =
        substitute(
            expression,
            name -> {
              String literal = literal(attributes.get(name));
              if (literal == null && missing.isEmpty()) {
                missing.append(name);
              }
              return literal == null ? "''" : literal;
            });
    if (missing.isEmpty()) {
      try {
        Selector.parse(text);
        return text;
      } catch (RuntimeException e) {
        missing.append(names(expression).iterator().next());
      }
    }
    String quoted = "\"" + (PREFIX + missing).replace("\"", "\"\"") + "\"";
    return quoted + " IS NULL AND " + quoted + " IS NOT NULL";
  }

  private static @Nullable String literal(@Nullable Object value) {
    return switch (value) {
      case null -> null;
      case String s -> " '" + s.replace("'", "''") + "' ";
      case Boolean b -> b ? " TRUE " : " FALSE ";
      case Number n -> {
        BigDecimal d = Checks.number(n);
        yield d == null ? null : " " + d.toPlainString() + " ";
      }
      default -> null;
    };
  }

  /**
   * {@code text} with each bare identifier {@code contact.<name>} replaced by {@code
   * literal(name)}; quoted strings and quoted identifiers are copied as they are.
   */
  private static String substitute(
      String text, java.util.function.Function<String, String> literal) {
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      if (c == '\'' || c == '"') {
        int end = i + 1;
        while (end < n) {
          if (text.charAt(end) == c) {
            if (end + 1 < n && text.charAt(end + 1) == c) {
              end += 2;
              continue;
            }
            break;
          }
          end++;
        }
        end = Math.min(end + 1, n);
        out.append(text, i, end);
        i = end;
      } else if (isStart(c) && (i == 0 || !isPart(text.charAt(i - 1)))) {
        int end = i + 1;
        while (end < n && isPart(text.charAt(end))) {
          end++;
        }
        String word = text.substring(i, end);
        if (word.startsWith(PREFIX) && word.length() > PREFIX.length()) {
          out.append(literal.apply(word.substring(PREFIX.length())));
        } else {
          out.append(word);
        }
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static boolean isStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  private static boolean isPart(char c) {
    return isStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
  }
}
