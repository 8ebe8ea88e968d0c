package io.switchboard.client.wire;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The API's two Jackson mappers and the binding of its request and response records ({@link
 * NativeWire}). The server reads requests with {@link #STRICT}: a field the record does not declare
 * is refused ({@code UNKNOWN_FIELD}, listing the known ones), types are exact ({@code "5"}, {@code
 * 5.0} and {@code 1.5} are not integers, {@code 5} is not a string, {@code 1} is not a boolean),
 * duplicate keys and trailing text are malformed. The client reads answers with {@link #LENIENT},
 * which ignores fields it does not know, so that a newer server may add some. Both write absent
 * ({@code null}) fields by leaving them out, and both keep decimals exact.
 *
 * <p>Errors read as the tree reader ({@link JsonFields}) words them, so an answer does not depend
 * on which of the two read the request. Public for the server; not part of the client API.
 */
public final class Json {

  /**
   * A new JSON factory whose parsers and generators take their buffers from one pool shared by
   * every thread. Jackson's default pool keeps one set of buffers per thread, which a server that
   * serves each request on a new virtual thread (Helidon) never reuses: every body read and every
   * answer written allocated its buffers afresh (docs/decisions.md, 2026-11-26). A factory per
   * mapper, as Jackson wants; the pool is the same for all of them.
   */
  public static JsonFactory newFactory() {
    return JsonFactory.builder()
        .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
        .build();
  }

  /** The server's mapper: requests are read with it, and every body is written with it. */
  public static final JsonMapper STRICT =
      JsonMapper.builder(newFactory())
          .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
          .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
          .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
          .withCoercionConfigDefaults(c -> c.setAcceptBlankAsEmpty(false))
          .withCoercionConfig(
              LogicalType.Textual,
              c ->
                  c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                      .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                      .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
          .defaultSetterInfo(JsonSetter.Value.forContentNulls(Nulls.FAIL))
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .addModule(MessageJson.module())
          .build();

  /** The client's mapper for answers: like {@link #STRICT}, but fields it does not know pass. */
  public static final JsonMapper LENIENT =
      STRICT.rebuild().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  /**
   * A record component the request must have: absent and {@code null} are both refused ({@code
   * field 'x' is required in ...}).
   */
  @Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD})
  @Retention(RetentionPolicy.RUNTIME)
  @JacksonAnnotationsInside
  @JsonProperty(required = true)
  @JsonSetter(nulls = Nulls.FAIL)
  public @interface Required {}

  private Json() {}

  /**
   * Binds a request strictly; {@code where} names the document in errors ({@code "request body"}).
   * Throws {@link WireFormatException} worded as {@link JsonFields} words it.
   */
  public static <T> T strict(JsonNode node, String where, Class<T> type) {
    return bind(STRICT, node, where, type);
  }

  /** Binds an answer, ignoring fields this client does not know. */
  public static <T> T lenient(JsonNode node, Class<T> type) {
    return bind(LENIENT, node, "response", type);
  }

  /**
   * Binds a request body strictly, straight from its bytes: {@link #strict(JsonNode, String,
   * Class)} of the parsed body ({@link WireFormat#parse}; empty is {@code {}}), with its errors,
   * without building the tree first.
   */
  public static <T> T strict(byte[] body, String where, Class<T> type) {
    return bind(STRICT_READERS, body, where, type);
  }

  /**
   * Binds an answer's body leniently, straight from its bytes; as {@link #lenient(JsonNode,
   * Class)}.
   */
  public static <T> T lenient(byte[] body, Class<T> type) {
    return bind(LENIENT_READERS, body, "response", type);
  }

  /** The JSON of a record (absent fields left out). */
  public static ObjectNode tree(Object value) {
    return STRICT.valueToTree(value);
  }

  /** The bytes of a tree or a record, as every body is sent. */
  public static byte[] bytes(Object value) {
    try {
      return STRICT.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize JSON", e);
    }
  }

  /** A whole number of seconds {@code >= 0}, or empty for an absent field. */
  public static Optional<Duration> seconds(String name, @Nullable Long value) {
    if (value == null) {
      return Optional.empty();
    }
    if (value < 0) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT,
          name + " must be a whole number of seconds >= 0, got " + value);
    }
    return Optional.of(Duration.ofSeconds(value));
  }

  /**
   * A whole number of seconds of {@code 0..max}, the error naming the wire field ({@code
   * delaySeconds must be 0..900 seconds, got 1000000}), not the engine's name of the duration.
   */
  public static Optional<Duration> seconds(String name, @Nullable Long value, Duration max) {
    Optional<Duration> d = seconds(name, value);
    if (d.isPresent() && d.get().compareTo(max) > 0) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT,
          name + " must be 0.." + max.toSeconds() + " seconds, got " + value);
    }
    return d;
  }

  /** The items of a list an answer may leave out. */
  public static <T> List<T> items(@Nullable List<T> list) {
    return list == null ? List.of() : list;
  }

  /** A node that is there and not {@code null}: JSON {@code null} reads as absent. */
  public static Optional<JsonNode> present(@Nullable JsonNode node) {
    return node == null || node.isNull() || node.isMissingNode()
        ? Optional.empty()
        : Optional.of(node);
  }

  /**
   * One pass from the bytes to the record when the body is an object that binds; anything else
   * (empty, not an object, not valid for the record) is bound again through the tree, which words
   * the error exactly as {@link #bind(ObjectMapper, JsonNode, String, Class)} always has. The first
   * pass refuses whatever the tree's does, so the second only runs for a body that is refused.
   */
  private static <T> T bind(Readers readers, byte[] body, String where, Class<T> type) {
    if (startsAnObject(body)) {
      try {
        T value = readers.get(type).readValue(body);
        if (value != null) {
          return value;
        }
      } catch (IOException refused) {
        // words the error below, from the tree
      }
    }
    return bind(readers.mapper, WireFormat.parse(body), where, type);
  }

  /** True if the first character after any JSON whitespace is {@code '{'}. */
  private static boolean startsAnObject(byte[] body) {
    for (byte b : body) {
      switch (b) {
        case ' ', '\t', '\n', '\r' -> {}
        default -> {
          return b == '{';
        }
      }
    }
    return false;
  }

  /** The mapper's reader for each record type, made once ({@link ObjectReader}s are immutable). */
  private static final class Readers extends ClassValue<ObjectReader> {
    final ObjectMapper mapper;

    Readers(ObjectMapper mapper) {
      this.mapper = mapper;
    }

    @Override
    protected ObjectReader computeValue(Class<?> type) {
      return mapper.readerFor(type);
    }
  }

  private static final Readers STRICT_READERS = new Readers(STRICT);
  private static final Readers LENIENT_READERS = new Readers(LENIENT);

  private static <T> T bind(ObjectMapper mapper, JsonNode node, String where, Class<T> type) {
    if (!(node instanceof ObjectNode)) {
      throw new WireFormatException(
          WireCode.INVALID_ARGUMENT,
          where + " must be a JSON object, got " + JsonFields.typeName(node));
    }
    try {
      return mapper.treeToValue(node, type);
    } catch (JsonMappingException e) {
      WireFormatException wire = wireCause(e);
      throw wire != null ? wire : translate(e, node, where);
    } catch (JsonProcessingException e) {
      throw new WireFormatException(
          WireCode.MALFORMED_JSON, "malformed JSON: " + e.getOriginalMessage());
    }
  }

  /**
   * The wire's own error a binding failed with, worded already: a record's constructor's ({@code
   * ValueInstantiationException}), or a value's read by a deserializer of the wire's own ({@link
   * MessageJson}), which Jackson wraps on its way out of a list.
   */
  private static @Nullable WireFormatException wireCause(Throwable e) {
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof WireFormatException wire) {
        return wire;
      }
    }
    return null;
  }

  /** Words a binding error as the tree reader does: what was wrong, what is allowed, what came. */
  private static WireFormatException translate(
      JsonMappingException e, JsonNode root, String where) {
    List<JsonMappingException.Reference> path = e.getPath();
    if (path.isEmpty()) {
      return new WireFormatException(
          WireCode.INVALID_ARGUMENT, where + " is not valid: " + e.getOriginalMessage());
    }
    // The object that holds the offending field, and how errors name it.
    JsonNode parent = root;
    String parentName = where;
    int last = path.size() - 1;
    // A bad item of a list is reported against the list, as the tree reader does.
    boolean item = path.get(last).getFieldName() == null && last > 0;
    int leaf = item ? last - 1 : last;
    StringBuilder name = new StringBuilder();
    for (int i = 0; i < leaf; i++) {
      JsonMappingException.Reference r = path.get(i);
      parent = r.getFieldName() != null ? parent.path(r.getFieldName()) : parent.path(r.getIndex());
      if (r.getFieldName() != null) {
        name.append(name.isEmpty() ? "" : ".").append(r.getFieldName());
      } else {
        name.append('[').append(r.getIndex()).append(']');
      }
      parentName = name.toString();
    }
    String field = path.get(leaf).getFieldName();
    if (e instanceof UnrecognizedPropertyException u) {
      return unknown(u, parent, parentName);
    }
    JsonNode got = parent.path(field);
    if (item) {
      got = got.path(path.get(last).getIndex());
    }
    if (!item && present(got).isEmpty()) {
      return new WireFormatException(
          WireCode.INVALID_ARGUMENT, "field '" + field + "' is required in " + parentName);
    }
    String expected = expected(e, got);
    return JsonFields.invalid(field, item ? "an array of " + plural(expected) : expected, got);
  }

  private static WireFormatException unknown(
      UnrecognizedPropertyException u, JsonNode object, String where) {
    Collection<Object> knownIds = u.getKnownPropertyIds();
    List<String> known = new ArrayList<>();
    Class<?> type = u.getReferringClass();
    if (type != null && type.isRecord()) {
      for (RecordComponent c : type.getRecordComponents()) {
        if (knownIds.contains(c.getName())) {
          known.add(c.getName());
        }
      }
    }
    knownIds.stream().map(String::valueOf).filter(k -> !known.contains(k)).forEach(known::add);
    Set<String> unknown = new TreeSet<>();
    object.fieldNames().forEachRemaining(unknown::add);
    unknown.removeAll(known);
    return JsonFields.unknown(unknown, where, known);
  }

  /** What a field of the target type must be, in the tree reader's words. */
  private static String expected(JsonMappingException e, JsonNode got) {
    Class<?> target =
        e.getCause() instanceof InputCoercionException c
            ? c.getTargetType()
            : e instanceof MismatchedInputException m ? m.getTargetType() : null;
    if (target == null) {
      return "something else";
    }
    if (target == Integer.class || target == int.class) {
      return got.isIntegralNumber() ? "an integer in -2147483648..2147483647" : "an integer";
    }
    if (target == Long.class || target == long.class) {
      return got.isIntegralNumber() ? "a 64-bit integer" : "an integer";
    }
    if (target == String.class) {
      return "a string";
    }
    if (target == Boolean.class || target == boolean.class) {
      return "true or false";
    }
    if (Collection.class.isAssignableFrom(target)) {
      return "an array";
    }
    if (Map.class.isAssignableFrom(target) || target.isRecord()) {
      return "an object";
    }
    return "a " + target.getSimpleName();
  }

  private static String plural(String expected) {
    return switch (expected) {
      case "a string" -> "strings";
      case "an object" -> "objects";
      case "an integer" -> "integers";
      default -> expected;
    };
  }
}
