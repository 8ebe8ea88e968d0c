package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ContactHeap} against a {@link TreeSet} under seeded random adds and removals. */
class ContactHeapTest {

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 42, 20261124})
  void randomAddsAndRemovals_sameFirstAndOrderAsATreeSet(long seed) {
    Random random = new Random(seed);
    ContactHeap service = ContactHeap.byOrderOfService();
    ContactHeap arrival = ContactHeap.byArrival();
    TreeSet<ContactRecord> serviceRef = new TreeSet<>(ContactRecord::compareOrder);
    TreeSet<ContactRecord> arrivalRef =
        new TreeSet<>(Comparator.comparingLong((ContactRecord c) -> c.seq));
    List<ContactRecord> in = new ArrayList<>();
    List<ContactRecord> out = new ArrayList<>();
    long seq = 0;
    for (int step = 0; step < 20_000; step++) {
      int dice = random.nextInt(10);
      if (dice < 5 || in.isEmpty()) {
        // a new arrival, or one back from an offer with its old number
        ContactRecord c =
            !out.isEmpty() && random.nextInt(4) == 0
                ? out.remove(random.nextInt(out.size()))
                : contact(++seq, random.nextInt(4) == 0 ? random.nextInt(3) : 0);
        in.add(c);
        service.add(c);
        arrival.add(c);
        serviceRef.add(c);
        arrivalRef.add(c);
      } else {
        ContactRecord c =
            dice < 8 ? serviceRef.first() : in.get(random.nextInt(in.size())); // head or any
        in.remove(c);
        out.add(c);
        service.remove(c);
        arrival.remove(c);
        serviceRef.remove(c);
        arrivalRef.remove(c);
      }
      assertEquals(serviceRef.size(), service.size(), "step " + step);
      assertEquals(serviceRef.isEmpty() ? null : serviceRef.first(), service.first());
      assertEquals(arrivalRef.isEmpty() ? null : arrivalRef.first(), arrival.first());
    }
    assertEquals(new ArrayList<>(serviceRef), service.sorted());
    assertEquals(new ArrayList<>(arrivalRef), arrival.sorted());
    while (!serviceRef.isEmpty()) {
      ContactRecord c = serviceRef.pollFirst();
      assertEquals(c, service.first());
      service.remove(c);
    }
    assertNull(service.first());
  }

  private static ContactRecord contact(long seq, int priority) {
    return new ContactRecord(
        "c" + seq,
        "voice",
        Map.of(),
        priority,
        seq,
        seq,
        Requirement.ANY,
        List.of(),
        Long.MAX_VALUE);
  }
}
