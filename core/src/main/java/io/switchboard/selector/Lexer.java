package io.switchboard.selector;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Splits selector text into tokens on demand, one ahead of the parser, so that the leftmost error
 * is the one reported. Columns are 1-based indexes into the text.
 */
final class Lexer {

  enum Kind {
    IDENTIFIER,
    STRING,
    NUMBER,
    KEYWORD,
    OPERATOR,
    LEFT_PAREN,
    RIGHT_PAREN,
    COMMA,
    END
  }

  enum Keyword {
    AND,
    OR,
    NOT,
    IN,
    BETWEEN,
    LIKE,
    ESCAPE,
    HAS,
    ANY,
    ALL,
    IS,
    NULL,
    TRUE,
    FALSE
  }

  private static final Map<String, Keyword> KEYWORDS =
      Stream.of(Keyword.values()).collect(Collectors.toMap(Keyword::name, Function.identity()));

  /**
   * One token. {@code value} is the keyword, the operator, the string contents, the identifier name
   * or the {@link BigDecimal}, null for END and punctuation; {@code text} is the token as written.
   */
  record Token(Kind kind, int column, String text, @Nullable Object value) {

    /** The value of a token of a kind that has one (a parser bug otherwise). */
    Object present() {
      return java.util.Objects.requireNonNull(value, kind::toString);
    }

    boolean is(Keyword keyword) {
      return kind == Kind.KEYWORD && value == keyword;
    }

    /** How error messages name this token after "found". */
    String describe() {
      return switch (kind) {
        case END -> "end of input";
        case IDENTIFIER -> "identifier " + shortened(text);
        case STRING -> "string " + shortened(text);
        case NUMBER -> "number " + shortened(text);
        case KEYWORD -> "keyword " + value;
        case OPERATOR, LEFT_PAREN, RIGHT_PAREN, COMMA -> "'" + text + "'";
      };
    }

    private static String shortened(String text) {
      return text.length() <= 40 ? text : text.substring(0, 37) + "...";
    }
  }

  private final String text;
  private int position;

  Lexer(String text) {
    this.text = text;
  }

  static boolean isKeyword(String word) {
    return KEYWORDS.containsKey(word.toUpperCase(Locale.ROOT));
  }

  static boolean isIdentifierStart(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  }

  static boolean isIdentifierPart(char c) {
    return isIdentifierStart(c) || isDigit(c) || c == '.' || c == '-';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  Token next() {
    while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
      position++;
    }
    int start = position;
    if (start == text.length()) {
      return new Token(Kind.END, start + 1, "", null);
    }
    char c = text.charAt(start);
    if (isIdentifierStart(c)) {
      return word(start);
    }
    if (isDigit(c) || c == '-') {
      return number(start);
    }
    return switch (c) {
      case '\'' -> quoted(start, '\'', Kind.STRING);
      case '"' -> quoted(start, '"', Kind.IDENTIFIER);
      case '(' -> symbol(start, 1, Kind.LEFT_PAREN, null);
      case ')' -> symbol(start, 1, Kind.RIGHT_PAREN, null);
      case ',' -> symbol(start, 1, Kind.COMMA, null);
      case '=' -> symbol(start, 1, Kind.OPERATOR, Expression.Op.EQ);
      case '<' -> less(start);
      case '>' ->
          startsWith(start, ">=") ? op(start, 2, Expression.Op.GE) : op(start, 1, Expression.Op.GT);
      case '!' -> bang(start);
      default -> throw unexpected(start);
    };
  }

  private Token less(int start) {
    if (startsWith(start, "<=")) {
      return op(start, 2, Expression.Op.LE);
    }
    return startsWith(start, "<>")
        ? op(start, 2, Expression.Op.NE)
        : op(start, 1, Expression.Op.LT);
  }

  private Token bang(int start) {
    if (startsWith(start, "!=")) {
      return op(start, 2, Expression.Op.NE);
    }
    String found = start + 1 < text.length() ? "'" + text.charAt(start + 1) + "'" : "end of input";
    throw new SelectorException(start + 2, "expected '=' after '!', found " + found);
  }

  private boolean startsWith(int start, String symbol) {
    return text.startsWith(symbol, start);
  }

  private Token op(int start, int length, Expression.Op op) {
    return symbol(start, length, Kind.OPERATOR, op);
  }

  private Token symbol(int start, int length, Kind kind, @Nullable Object value) {
    position = start + length;
    return new Token(kind, start + 1, text.substring(start, position), value);
  }

  private SelectorException unexpected(int start) {
    int c = text.codePointAt(start);
    return new SelectorException(
        start + 1,
        "expected an identifier, a literal, an operator or a parenthesis, found '"
            + Character.toString(c)
            + "'");
  }

  private Token word(int start) {
    int end = start + 1;
    while (end < text.length() && isIdentifierPart(text.charAt(end))) {
      end++;
    }
    position = end;
    String word = text.substring(start, end);
    Keyword keyword = KEYWORDS.get(word.toUpperCase(Locale.ROOT));
    return keyword == null
        ? new Token(Kind.IDENTIFIER, start + 1, word, word)
        : new Token(Kind.KEYWORD, start + 1, word, keyword);
  }

  /** {@code -?digits(.digits)?([eE][+-]?digits)?}, not followed by a letter, digit, _ or dot. */
  private Token number(int start) {
    int end = start;
    if (text.charAt(end) == '-') {
      end++;
    }
    end = digits(end);
    if (end >= 0 && end < text.length() && text.charAt(end) == '.') {
      end = digits(end + 1);
    }
    if (end >= 0 && end < text.length() && (text.charAt(end) == 'e' || text.charAt(end) == 'E')) {
      int sign = end + 1 < text.length() && "+-".indexOf(text.charAt(end + 1)) >= 0 ? 1 : 0;
      end = digits(end + 1 + sign);
    }
    if (end < 0 || (end < text.length() && isIdentifierPart(text.charAt(end)))) {
      throw badNumber(start);
    }
    position = end;
    String literal = text.substring(start, end);
    try {
      return new Token(Kind.NUMBER, start + 1, literal, new BigDecimal(literal));
    } catch (NumberFormatException exponentOutOfRange) {
      throw badNumber(start);
    }
  }

  /** The end of at least one digit from {@code from}, or -1 if there is none. */
  private int digits(int from) {
    if (from < 0) {
      return -1;
    }
    int end = from;
    while (end < text.length() && isDigit(text.charAt(end))) {
      end++;
    }
    return end > from ? end : -1;
  }

  private SelectorException badNumber(int start) {
    int end = start + 1;
    while (end < text.length() && (isIdentifierPart(text.charAt(end)) || text.charAt(end) == '+')) {
      end++;
    }
    return new SelectorException(
        start + 1,
        "expected a number such as 42, -1.5 or 2e3, found '" + text.substring(start, end) + "'");
  }

  /**
   * A string in single quotes or an identifier in double quotes; a doubled quote stands for one.
   */
  private Token quoted(int start, char quote, Kind kind) {
    StringBuilder contents = new StringBuilder();
    int i = start + 1;
    while (true) {
      int close = text.indexOf(quote, i);
      if (close < 0) {
        String what = kind == Kind.STRING ? "string" : "quoted identifier";
        throw new SelectorException(
            start + 1,
            "expected a closing " + quote + " to end the " + what + ", found end of input");
      }
      contents.append(text, i, close);
      if (close + 1 < text.length() && text.charAt(close + 1) == quote) {
        contents.append(quote);
        i = close + 2;
      } else {
        position = close + 1;
        break;
      }
    }
    String raw = text.substring(start, position);
    if (kind == Kind.IDENTIFIER && contents.isEmpty()) {
      throw new SelectorException(
          start + 1, "expected an attribute name between the double quotes, found " + raw);
    }
    return new Token(kind, start + 1, raw, contents.toString());
  }
}
