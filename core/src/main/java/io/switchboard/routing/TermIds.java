package io.switchboard.routing;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Small integer ids for the attribute terms ({@link RequiredTerms}) that waiting groups' keys use
 * on one channel, counted by use: a term gets an id when the first group using it is filed and
 * gives it back when the last one leaves, so ids stay dense (bounded by the terms of the groups
 * waiting now, not of every group ever). Up to {@link WaitingLine#MAX_KEY} ids of 21 bits pack into
 * one {@code long} ({@link #pack}), the key of {@link WaitingLine}'s index: the lookups an agent
 * makes hash a {@code long}, not a string.
 */
final class TermIds {

  /** Bits per id in a packed key. */
  static final int BITS = 21;

  /** Ids run 0..LIMIT-1; each is packed as id + 1 so that 0 means "no term". */
  static final int LIMIT = (1 << BITS) - 1;

  private static final class Use {
    final int id;
    int count;

    Use(int id) {
      this.id = id;
    }
  }

  private final Map<String, Use> byTerm = new HashMap<>();
  private int[] free = new int[16];
  private int freeCount;
  private int next;

  /** The term's id, counting one more use; -1 when all {@link #LIMIT} ids are taken. */
  int acquire(String term) {
    Use use = byTerm.get(term);
    if (use == null) {
      int id = freeCount > 0 ? free[--freeCount] : next < LIMIT ? next++ : -1;
      if (id < 0) {
        return -1;
      }
      use = new Use(id);
      byTerm.put(term, use);
    }
    use.count++;
    return use.id;
  }

  /** One use less; the id is free again after the last. */
  void release(String term) {
    Use use = Objects.requireNonNull(byTerm.get(term));
    if (--use.count == 0) {
      byTerm.remove(term);
      if (freeCount == free.length) {
        free = Arrays.copyOf(free, freeCount * 2);
      }
      free[freeCount++] = use.id;
    }
  }

  /** The term's id, or -1 when no group key uses it. */
  int id(String term) {
    Use use = byTerm.get(term);
    return use == null ? -1 : use.id;
  }

  /** {@code ids[0..n)}, ascending, packed into one non-zero key. */
  static long pack(int[] ids, int n) {
    long key = 0;
    for (int i = 0; i < n; i++) {
      key |= (long) (ids[i] + 1) << (BITS * i);
    }
    return key;
  }
}
