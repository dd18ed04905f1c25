package io.cqlrows.netty.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class StreamIdsTest {
  @Test
  void handsOutIdsRoundRobinSoAFreedIdIsNotReusedAtOnce() {
    StreamIds ids = new StreamIds();
    assertEquals(0, ids.allocate());
    assertEquals(1, ids.allocate());
    ids.release(0);
    assertEquals(2, ids.allocate());
    assertEquals(2, ids.inUse());
  }

  @Test
  void allIdsCanBeInUseAndThenThereIsNone() {
    StreamIds ids = new StreamIds();
    for (int i = 0; i < StreamIds.COUNT; i++) {
      assertEquals(i, ids.allocate());
    }
    assertEquals(-1, ids.allocate());
    ids.release(12345);
    assertEquals(12345, ids.allocate(), "wraps around to the only free id");
    assertEquals(-1, ids.allocate());
  }

  @Test
  void releasingAFreeOrForeignIdChangesNothing() {
    StreamIds ids = new StreamIds();
    ids.allocate();
    ids.release(5);
    ids.release(-1);
    ids.release(StreamIds.COUNT);
    assertEquals(1, ids.inUse());
  }
}
