package io.switchboard.testing;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * Copies of a record with one component changed each, for a test that a hand-written form of the
 * record (a fast writer or reader, a store's codec, a protocol mapping) carries every component:
 * run the form on each copy and check that what it gives differs from what it gives for the
 * original, or reads back to the copy. Because the copies are made from the record's components by
 * reflection, a component added to the record is in the test the day it is added, and a form that
 * leaves it out fails.
 */
public final class Components {

  private Components() {}

  /**
   * One copy of {@code base} per component, by component name in the record's order, each equal to
   * {@code base} except for that component. A changed value is: text with {@code "~"} appended, a
   * number plus one, a boolean negated, an instant or a duration one second later, an enum's next
   * constant (the first after the last), an {@link Optional} with its value changed (or, empty, one
   * from {@code other} for the element type). For any other type, {@code other} is asked with the
   * component's generic type and its value in {@code base} and must give a different value.
   *
   * @throws IllegalArgumentException if a changed value equals the original (so the copy would not
   *     test anything), or {@code other} gives none
   */
  public static <R extends Record> Map<String, R> eachChanged(
      R base, BiFunction<Type, @Nullable Object, @Nullable Object> other) {
    RecordComponent[] components = base.getClass().getRecordComponents();
    @Nullable Object[] values = new Object[components.length];
    Class<?>[] types = new Class<?>[components.length];
    for (int i = 0; i < components.length; i++) {
      values[i] = get(components[i], base);
      types[i] = components[i].getType();
    }
    Map<String, R> out = new LinkedHashMap<>();
    for (int i = 0; i < components.length; i++) {
      RecordComponent c = components[i];
      Object changed = changed(c.getGenericType(), values[i], other);
      if (changed.equals(values[i])) { // never for a null original
        throw new IllegalArgumentException(
            c.getName() + ": the changed value " + changed + " equals the original");
      }
      @Nullable Object[] copy = values.clone();
      copy[i] = changed;
      out.put(c.getName(), make(base, types, copy));
    }
    return out;
  }

  private static Object changed(
      Type type,
      @Nullable Object value,
      BiFunction<Type, @Nullable Object, @Nullable Object> other) {
    if (value instanceof String s) {
      return s + "~";
    }
    if (value == null && type == String.class) {
      return "~";
    }
    if (value instanceof Integer n) {
      return n + 1;
    }
    if (value instanceof Long n) {
      return n + 1;
    }
    if (value instanceof Byte n) {
      return (byte) (n + 1);
    }
    if (value instanceof Boolean b) {
      return !b;
    }
    if (value instanceof Instant t) {
      return t.plusSeconds(1);
    }
    if (value instanceof Duration d) {
      return d.plusSeconds(1);
    }
    if (value instanceof Enum<?> e) {
      Object[] constants = e.getDeclaringClass().getEnumConstants();
      return constants[(e.ordinal() + 1) % constants.length];
    }
    if (value instanceof Optional<?> o && type instanceof ParameterizedType p) {
      Type element = p.getActualTypeArguments()[0];
      return o.isPresent()
          ? Optional.of(changed(element, o.get(), other))
          : Optional.of(required(element, other.apply(element, null)));
    }
    return required(type, other.apply(type, value));
  }

  private static Object required(Type type, @Nullable Object value) {
    if (value == null) {
      throw new IllegalArgumentException("no changed value for a component of type " + type);
    }
    return value;
  }

  private static @Nullable Object get(RecordComponent c, Record r) {
    try {
      java.lang.reflect.Method accessor = c.getAccessor();
      accessor.setAccessible(true);
      return accessor.invoke(r);
    } catch (IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot read " + c.getName() + " of " + r.getClass(), e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <R extends Record> R make(R base, Class<?>[] types, @Nullable Object[] values) {
    try {
      Constructor<?> k = base.getClass().getDeclaredConstructor(types);
      k.setAccessible(true);
      return (R) k.newInstance(values);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot make a " + base.getClass(), e);
    }
  }
}
