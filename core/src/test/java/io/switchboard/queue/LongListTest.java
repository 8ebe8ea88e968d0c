package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LongListTest {

  @Test
  void retainPairs_keepsAcceptedPairsInOrder_fromTheHead() {
    LongList list = new LongList();
    for (long i = 0; i < 10; i++) {
      list.add(i); // due
      list.add(100 + i); // serial
    }
    list.pollFirst(); // the first pair leaves, as the index fires it
    list.pollFirst();
    list.retainPairs((due, serial) -> due % 3 != 0 && serial == 100 + due, 0);
    StringBuilder kept = new StringBuilder();
    for (int i = 0; i < list.size(); i += 2) {
      kept.append(list.get(i)).append(':').append(list.get(i + 1)).append(' ');
    }
    assertEquals("1:101 2:102 4:104 5:105 7:107 8:108 ", kept.toString());
    list.add(20);
    list.add(120);
    assertEquals(14, list.size(), "appends go on after the kept pairs");
    assertEquals(20, list.get(12));
  }

  @Test
  void retainPairs_givesMemoryBackAfterABacklog_butNotBelowTheRoomAskedFor() {
    LongList list = new LongList();
    for (int i = 0; i < 100_000; i++) {
      list.add(i);
    }
    list.retainPairs((due, serial) -> due < 10, 4096);
    assertEquals(10, list.size());
    assertEquals(4096, list.capacity(), "shrunk to the room asked for, not to the 10 kept");
    list.retainPairs((due, serial) -> true, 4096);
    assertEquals(4096, list.capacity(), "a list at its room is left alone");
  }
}
