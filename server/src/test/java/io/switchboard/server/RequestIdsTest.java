package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.server.http.RequestIds;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RequestIdsTest {

  @Test
  void requestIds_areDistinctVersion4Uuids() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 100_000; i++) {
      String id = RequestIds.next();
      UUID uuid = UUID.fromString(id);
      assertEquals(4, uuid.version(), id);
      assertEquals(2, uuid.variant(), id);
      assertEquals(id, uuid.toString());
      seen.add(id);
    }
    assertEquals(100_000, seen.size(), "no id repeats");
  }
}
