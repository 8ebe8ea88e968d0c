package io.switchboard.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One server setting, declared once (in {@link Settings}): its key, from which the flag {@code
 * --key} and the variable {@code SWITCHBOARD_KEY} follow, how its text is read and checked, its
 * default, and a one-line description. The command line's options, the reading of flags,
 * environment and config file, the error messages and the table in {@code docs/server.md} all come
 * from these declarations.
 *
 * <p>Every error names the key, what is allowed, the value given and where it came from ({@code
 * --key}, the variable, or the config file). A secret's value is never echoed: not in an error, not
 * in {@link ServerConfig#toString()}; a URL's password (user info or a {@code password=} parameter)
 * neither.
 *
 * @param <T> the type of the value
 */
public final class Setting<T> {

  /**
   * Reads a setting's text and checks a value of it.
   *
   * @param <T> the type of the value
   */
  interface Type<T> {
    /**
     * The value of {@code text}.
     *
     * @throws Invalid when the text is not a value of this type
     * @throws IllegalArgumentException with a message that names the setting and what is wrong,
     *     when the check belongs to the value's own class
     */
    T parse(String text);

    /** Refuses a value outside the allowed range; nothing by default. */
    default void check(T value) {}

    /** What is allowed, for the docs and help ({@code 1..1000}); empty when the doc says it. */
    default String allowed() {
      return "";
    }

    /** The value as a user writes it, for defaults and {@code toString}. */
    default String show(T value) {
      return String.valueOf(value);
    }
  }

  /** The text is not an allowed value: the key "must be {@code mustBe}", got the value. */
  static final class Invalid extends RuntimeException {
    private final String mustBe;
    private final @Nullable String got;

    /** Echoes the text as given, quoted. */
    Invalid(String mustBe) {
      this(mustBe, null);
    }

    /**
     * @param got what to show as the value (a typed value unquoted), or null for the quoted text
     */
    Invalid(String mustBe, @Nullable String got) {
      super(mustBe, null, false, false);
      this.mustBe = mustBe;
      this.got = got;
    }
  }

  private final String key;
  private final Type<T> type;
  private final @Nullable T defaultValue;
  private final @Nullable String defaultDoc;
  private final String doc;
  private final boolean secret;
  private final boolean flag;

  private Setting(
      String key,
      Type<T> type,
      @Nullable T defaultValue,
      @Nullable String defaultDoc,
      String doc,
      boolean secret,
      boolean flag) {
    this.key = Objects.requireNonNull(key, "key");
    this.type = Objects.requireNonNull(type, "type");
    this.defaultValue = defaultValue;
    this.defaultDoc = defaultDoc;
    this.doc = Objects.requireNonNull(doc, "doc");
    this.secret = secret;
    this.flag = flag;
    if (!key.matches("[a-z][a-z0-9]*(-[a-z0-9]+)*")) {
      throw new IllegalArgumentException("a setting's key is lower-case words with dashes: " + key);
    }
    if (defaultValue != null) {
      type.check(defaultValue);
    }
  }

  /** A setting of any type; {@code defaultValue} null means none. */
  static <T> Setting<T> of(String key, Type<T> type, @Nullable T defaultValue, String doc) {
    return new Setting<>(key, type, defaultValue, null, doc, false, true);
  }

  /** An integer of {@code min..max}. */
  static Setting<Integer> integer(String key, int defaultValue, int min, int max, String doc) {
    return of(key, integerType(min, max), defaultValue, doc);
  }

  /** {@code true}/{@code yes}/{@code 1}/empty or {@code false}/{@code no}/{@code 0}. */
  static Setting<Boolean> bool(String key, boolean defaultValue, String doc) {
    return of(key, BOOLEAN, defaultValue, doc);
  }

  /**
   * A duration of {@code min..max}, written {@code 500ms}, {@code 30s}, {@code 5m} or {@code 1h}.
   */
  static Setting<Duration> duration(
      String key, Duration defaultValue, Duration min, Duration max, String doc) {
    return of(key, durationType(min, max), defaultValue, doc);
  }

  /** Text as given; {@code defaultValue} null means none. */
  static Setting<String> text(String key, @Nullable String defaultValue, String doc) {
    return of(key, TEXT, defaultValue, doc);
  }

  /** A file system path. */
  static Setting<Path> path(String key, @Nullable Path defaultValue, String doc) {
    return of(key, Path::of, defaultValue, doc);
  }

  /** One of an enum's constants, written in lower case. */
  static <E extends Enum<E>> Setting<E> enumeration(
      String key, Class<E> type, E defaultValue, String doc) {
    return of(key, enumType(type), defaultValue, doc);
  }

  /** The same setting, whose value is never shown. */
  Setting<T> secret() {
    return new Setting<>(key, type, defaultValue, defaultDoc, doc, true, flag);
  }

  /**
   * The same setting without a command-line flag: set only by its variable or the config file (a
   * password: a flag shows in the process list).
   */
  Setting<T> withoutFlag() {
    return new Setting<>(key, type, defaultValue, defaultDoc, doc, secret, false);
  }

  /** The same setting, its default described in words (when it is none, or derived). */
  Setting<T> defaultDoc(String words) {
    return new Setting<>(key, type, defaultValue, words, doc, secret, flag);
  }

  /** The key, also the config file's key: {@code data-dir}. */
  public String key() {
    return key;
  }

  /** The command-line flag: {@code --data-dir}. */
  public String flag() {
    return "--" + key;
  }

  /** Whether the command line has a flag for it. */
  public boolean hasFlag() {
    return flag;
  }

  /** The environment variable: {@code SWITCHBOARD_DATA_DIR}. */
  public String variable() {
    return "SWITCHBOARD_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /** Whether its value is never shown. */
  public boolean isSecret() {
    return secret;
  }

  /** Whether it is a flag that may stand alone ({@code --in-memory} means true). */
  public boolean isBoolean() {
    return type == BOOLEAN;
  }

  /** The default, or empty when there is none. */
  public Optional<T> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  /** The default as the docs say it: {@code 8080}, {@code none}. */
  public String defaultText() {
    if (defaultDoc != null) {
      return defaultDoc;
    }
    return defaultValue == null ? "none" : show(defaultValue);
  }

  /** The one-line description, with what is allowed when the type knows it. */
  public String description() {
    String allowed = type.allowed();
    return allowed.isEmpty() ? doc : doc + " (" + allowed + ")";
  }

  /** The value as a user writes it, or {@code ***} for a secret. */
  public String show(T value) {
    if (value == null) {
      return "none";
    }
    return secret ? "***" : type.show(value);
  }

  /**
   * Reads the setting's text.
   *
   * @param source where the text came from ({@code --port}, a variable, the config file)
   * @throws StartupException naming the key, what is allowed, the value given and the source
   */
  public T parse(String text, String source) {
    String from = " (from " + source + ")";
    try {
      T value = type.parse(text);
      type.check(value);
      return value;
    } catch (Invalid e) {
      String got = e.got != null ? e.got : "'" + redact(text) + "'";
      throw new StartupException(key + " must be " + e.mustBe + ", got " + got + from);
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      throw new StartupException((message.startsWith(key) ? message : key + ": " + message) + from);
    }
  }

  /**
   * Checks a value given in code (not read from text).
   *
   * @throws StartupException as {@link #parse}, without a source
   */
  public T check(T value) {
    Objects.requireNonNull(value, key);
    try {
      type.check(value);
      return value;
    } catch (Invalid e) {
      String got = e.got != null ? e.got : "'" + redact(type.show(value)) + "'";
      throw new StartupException(key + " must be " + e.mustBe + ", got " + got);
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      throw new StartupException(message.startsWith(key) ? message : key + ": " + message);
    }
  }

  /** Text of this setting made safe to echo. */
  String redact(String text) {
    return secret ? "***" : Redact.url(text);
  }

  @Override
  public String toString() {
    return key;
  }

  // ---- the types

  private static final Type<String> TEXT = text -> text;

  private static final Type<Boolean> BOOLEAN =
      text ->
          switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1", "" -> true;
            case "false", "no", "0" -> false;
            default -> throw new Invalid("true or false");
          };

  /**
   * An amount of memory of {@code min..max} bytes ({@code 64k}, {@code 512m}, {@code 2g}) or, with
   * {@code heapShare}, a share of the max heap of 1%..90% ({@code 50%}).
   */
  static Setting<ByteAmount> bytes(
      String key, ByteAmount defaultValue, long min, long max, boolean heapShare, String doc) {
    return of(key, byteType(min, max, heapShare), defaultValue, doc);
  }

  private static Type<ByteAmount> byteType(long min, long max, boolean heapShare) {
    return new Type<>() {
      @Override
      public ByteAmount parse(String text) {
        ByteAmount a = ByteAmount.parse(text);
        if (a == null || (a.percent() > 0 && !heapShare)) {
          throw new Invalid(mustBe());
        }
        return a;
      }

      @Override
      public void check(ByteAmount value) {
        boolean ok =
            value.percent() > 0
                ? value.percent() <= 90
                : value.bytes() >= min && value.bytes() <= max;
        if (!ok) {
          throw new Invalid(mustBe(), value.toString());
        }
      }

      private String mustBe() {
        return allowed() + " (such as 64k, 512m or 2g" + (heapShare ? ", or 50%" : "") + ")";
      }

      @Override
      public String allowed() {
        String range = ByteAmount.ofBytes(min) + ".." + ByteAmount.ofBytes(max) + " bytes";
        return heapShare ? range + " or 1%..90% of the max heap" : range;
      }

      @Override
      public String show(ByteAmount value) {
        return value.toString();
      }
    };
  }

  private static Type<Integer> integerType(int min, int max) {
    return new Type<>() {
      @Override
      public Integer parse(String text) {
        try {
          return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
          throw new Invalid("an integer");
        }
      }

      @Override
      public void check(Integer value) {
        if (value < min || value > max) {
          throw new Invalid(allowed(), String.valueOf(value));
        }
      }

      @Override
      public String allowed() {
        return min + ".." + max;
      }
    };
  }

  private static Type<Duration> durationType(Duration min, Duration max) {
    return new Type<>() {
      @Override
      public Duration parse(String text) {
        Duration d = parseDuration(text);
        if (d == null) {
          throw new Invalid(mustBe());
        }
        return d;
      }

      @Override
      public void check(Duration value) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
          throw new Invalid(mustBe());
        }
      }

      private String mustBe() {
        return "a duration of " + allowed() + " (such as 500ms, 30s, 5m or 1h)";
      }

      @Override
      public String allowed() {
        return showDuration(min) + ".." + showDuration(max);
      }

      @Override
      public String show(Duration value) {
        return showDuration(value);
      }
    };
  }

  private static <E extends Enum<E>> Type<E> enumType(Class<E> type) {
    java.util.List<String> names =
        Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT)).toList();
    String last = names.get(names.size() - 1);
    String mustBe =
        names.size() == 1
            ? last
            : String.join(", ", names.subList(0, names.size() - 1)) + " or " + last;
    return new Type<>() {
      @Override
      public E parse(String text) {
        try {
          return Enum.valueOf(type, text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw new Invalid(mustBe);
        }
      }

      @Override
      public String allowed() {
        return String.join(" | ", names);
      }

      @Override
      public String show(E value) {
        return value.name().toLowerCase(Locale.ROOT);
      }
    };
  }

  /** A type checked by {@code check}, which throws {@link Invalid} or its own message. */
  static <T> Type<T> checked(Function<String, T> parse, java.util.function.Consumer<T> check) {
    return new Type<>() {
      @Override
      public T parse(String text) {
        return parse.apply(text);
      }

      @Override
      public void check(T value) {
        check.accept(value);
      }
    };
  }

  /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, or null when the text is none of them. */
  static @Nullable Duration parseDuration(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    String[] units = {"ms", "s", "m", "h"};
    for (String unit : units) {
      if (t.endsWith(unit) && t.length() > unit.length()) {
        String number = t.substring(0, t.length() - unit.length());
        if (!number.chars().allMatch(Character::isDigit) || number.length() > 9) {
          continue;
        }
        long n = Long.parseLong(number);
        return switch (unit) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          default -> Duration.ofHours(n);
        };
      }
    }
    return null;
  }

  /** A duration as it is written: {@code 1500ms}, {@code 30s}, {@code 15m}, {@code 24h}. */
  static String showDuration(Duration d) {
    long ms = d.toMillis();
    if (ms % 1000 != 0) {
      return ms + "ms";
    }
    long s = ms / 1000;
    if (s != 0 && s % 3600 == 0) {
      return s / 3600 + "h";
    }
    if (s != 0 && s % 60 == 0) {
      return s / 60 + "m";
    }
    return s + "s";
  }
}
