package io.switchboard.routing;

import java.util.AbstractList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.RandomAccess;
import java.util.function.Function;

/**
 * An immutable list of named elements that also finds an element by name in constant time: a
 * workspace's task queues and workflows (up to 1,000 each), looked up by name on every contact
 * routed by a workflow. Equal to any list of the same elements in the same order, as {@code
 * List.copyOf} is; the first element of a name wins, as a linear search would find it.
 */
final class NamedList<T> extends AbstractList<T> implements RandomAccess {

  private final List<T> items;
  private final Map<String, T> byName;

  private NamedList(List<T> items, Function<T, String> name) {
    this.items = items;
    this.byName = HashMap.newHashMap(items.size());
    for (T item : items) {
      byName.putIfAbsent(name.apply(item), item);
    }
  }

  /** An immutable copy of {@code items} (no nulls), indexed by {@code name}. */
  static <T> NamedList<T> of(List<? extends T> items, Function<T, String> name) {
    return new NamedList<>(List.copyOf(items), name);
  }

  /** The first element named {@code name}. */
  Optional<T> named(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  @Override
  public T get(int index) {
    return items.get(index);
  }

  @Override
  public int size() {
    return items.size();
  }
}
