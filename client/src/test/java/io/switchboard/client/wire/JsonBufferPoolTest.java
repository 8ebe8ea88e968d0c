package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.RecyclerPool;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Jackson's buffers are kept for the next request even when every request runs on a new virtual
 * thread (Helidon's model): the mappers take them from one shared pool, not from a per-thread one
 * that a virtual thread never sees again.
 */
class JsonBufferPoolTest {

  @Test
  void bothMappersAndEveryNewFactory_shareOnePool() {
    RecyclerPool<BufferRecycler> pool = Json.STRICT.getFactory()._getRecyclerPool();
    assertSame(pool, Json.LENIENT.getFactory()._getRecyclerPool());
    assertSame(pool, Json.newFactory()._getRecyclerPool());
  }

  @Test
  void buffersUsedOnOneVirtualThread_areInThePoolForTheNext() throws Exception {
    RecyclerPool<BufferRecycler> pool = Json.STRICT.getFactory()._getRecyclerPool();
    AtomicReference<byte[]> written = new AtomicReference<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                written.set(Json.STRICT.writeValueAsBytes(Map.of("a", 1)));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            })
        .join();
    assertEquals("{\"a\":1}", new String(written.get(), java.nio.charset.StandardCharsets.UTF_8));
    // a per-thread pool cannot count what it holds (-1); this one holds the buffers just released
    assertTrue(pool.pooledCount() >= 1, "pooled recyclers: " + pool.pooledCount());
  }
}
